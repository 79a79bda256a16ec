"""Hetionet v1.0 schema: node kinds, metaedges and their Neo4j-style relationship types.

Source: Himmelstein et al., "Systematic integration of biomedical knowledge prioritizes drugs for
repurposing", eLife 2017; hetio/hetionet v1.0 (``describe/edges/metaedges.tsv``). Counts are the
official v1.0 edge counts. Kind names are Hetionet's (``"Biological Process"``); labels are the
CamelCase forms Hetionet's Neo4j export uses (``BiologicalProcess``); relationship types are
``VERB_abbrev`` with ``>`` dropped (``Gr>G`` -> ``REGULATES_GrG``), as in that export.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram_kit.errors import DataError

#: Hetionet node kind -> graph label. 11 kinds.
NODE_KINDS: dict[str, str] = {
    "Anatomy": "Anatomy",
    "Biological Process": "BiologicalProcess",
    "Cellular Component": "CellularComponent",
    "Compound": "Compound",
    "Disease": "Disease",
    "Gene": "Gene",
    "Molecular Function": "MolecularFunction",
    "Pathway": "Pathway",
    "Pharmacologic Class": "PharmacologicClass",
    "Side Effect": "SideEffect",
    "Symptom": "Symptom",
}
#: graph label -> Hetionet node kind.
LABEL_TO_KIND: dict[str, str] = {label: kind for kind, label in NODE_KINDS.items()}


@dataclass(frozen=True)
class Metaedge:
    """One Hetionet metaedge (edge type between two node kinds).

    Attributes
    ----------
    abbreviation : str
        Hetionet's abbreviation, e.g. ``"CbG"``; ``">"`` marks a directed metaedge (``"Gr>G"``).
    source_kind, target_kind : str
        Hetionet node kinds of the endpoints (``"Compound"``, ``"Gene"``).
    verb : str
        Lower-case relation verb (``"binds"``).
    official_count : int
        Number of edges of this metaedge in Hetionet v1.0.
    """

    abbreviation: str
    source_kind: str
    verb: str
    target_kind: str
    official_count: int

    @property
    def directed(self) -> bool:
        """True only for ``Gr>G``; every other Hetionet metaedge is undirected."""
        return ">" in self.abbreviation

    @property
    def rel_type(self) -> str:
        """Neo4j-style relationship type, e.g. ``BINDS_CbG``, ``REGULATES_GrG``."""
        return f"{self.verb.upper()}_{self.abbreviation.replace('>', '')}"

    @property
    def source_label(self) -> str:
        return NODE_KINDS[self.source_kind]

    @property
    def target_label(self) -> str:
        return NODE_KINDS[self.target_kind]


METAEDGES: tuple[Metaedge, ...] = (
    Metaedge("AdG", "Anatomy", "downregulates", "Gene", 102240),
    Metaedge("AeG", "Anatomy", "expresses", "Gene", 526407),
    Metaedge("AuG", "Anatomy", "upregulates", "Gene", 97848),
    Metaedge("CbG", "Compound", "binds", "Gene", 11571),
    Metaedge("CcSE", "Compound", "causes", "Side Effect", 138944),
    Metaedge("CdG", "Compound", "downregulates", "Gene", 21102),
    Metaedge("CpD", "Compound", "palliates", "Disease", 390),
    Metaedge("CrC", "Compound", "resembles", "Compound", 6486),
    Metaedge("CtD", "Compound", "treats", "Disease", 755),
    Metaedge("CuG", "Compound", "upregulates", "Gene", 18756),
    Metaedge("DaG", "Disease", "associates", "Gene", 12623),
    Metaedge("DdG", "Disease", "downregulates", "Gene", 7623),
    Metaedge("DlA", "Disease", "localizes", "Anatomy", 3602),
    Metaedge("DpS", "Disease", "presents", "Symptom", 3357),
    Metaedge("DrD", "Disease", "resembles", "Disease", 543),
    Metaedge("DuG", "Disease", "upregulates", "Gene", 7731),
    Metaedge("GcG", "Gene", "covaries", "Gene", 61690),
    Metaedge("GiG", "Gene", "interacts", "Gene", 147164),
    Metaedge("GpBP", "Gene", "participates", "Biological Process", 559504),
    Metaedge("GpCC", "Gene", "participates", "Cellular Component", 73566),
    Metaedge("GpMF", "Gene", "participates", "Molecular Function", 97222),
    Metaedge("GpPW", "Gene", "participates", "Pathway", 84372),
    Metaedge("Gr>G", "Gene", "regulates", "Gene", 265672),
    Metaedge("PCiC", "Pharmacologic Class", "includes", "Compound", 1029),
)
METAEDGE_BY_ABBREVIATION: dict[str, Metaedge] = {m.abbreviation: m for m in METAEDGES}
METAEDGE_BY_REL_TYPE: dict[str, Metaedge] = {m.rel_type: m for m in METAEDGES}

#: Official Hetionet v1.0 totals.
HETIONET_NODE_COUNT = 47_031
HETIONET_EDGE_COUNT = 2_250_197


def metaedge(abbreviation: str) -> Metaedge:
    """Look up a metaedge by abbreviation (``"CbG"``) or relationship type (``"BINDS_CbG"``).

    Raises
    ------
    DataError
        If the name is neither; the message lists the known abbreviations.
    """
    found = METAEDGE_BY_ABBREVIATION.get(abbreviation) or METAEDGE_BY_REL_TYPE.get(abbreviation)
    if found is None:
        known = ", ".join(sorted(METAEDGE_BY_ABBREVIATION))
        raise DataError(f"Unknown Hetionet metaedge {abbreviation!r}; known abbreviations: {known}.")
    return found


def kind_to_label(kind: str) -> str:
    """Hetionet kind (``"Side Effect"``) -> graph label (``"SideEffect"``); labels pass through.

    Raises
    ------
    DataError
        If the kind is not one of the 11 Hetionet kinds.
    """
    if kind in NODE_KINDS:
        return NODE_KINDS[kind]
    if kind in LABEL_TO_KIND:
        return kind
    raise DataError(f"Unknown node kind {kind!r}; expected one of: {', '.join(NODE_KINDS)}.")


def split_node_id(node_id: str) -> tuple[str, str]:
    """Split a Hetionet node id ``"Gene::7157"`` into ``("Gene", "7157")``.

    Raises
    ------
    DataError
        If the id has no ``::`` separator.
    """
    kind, sep, identifier = node_id.partition("::")
    if not sep or not kind or not identifier:
        raise DataError(f"Node id {node_id!r} is not of the form 'Kind::identifier' (e.g. 'Gene::7157').")
    return kind, identifier
