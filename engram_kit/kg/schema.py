"""Hetionet v1.0 schema: node kinds, metaedges and their Neo4j-style relationship types.

Source: Himmelstein et al., "Systematic integration of biomedical knowledge prioritizes drugs for
repurposing", eLife 2017; hetio/hetionet v1.0 (``describe/edges/metaedges.tsv``). Counts are the
official v1.0 edge counts. Kind names are Hetionet's (``"Biological Process"``); labels are the
CamelCase forms Hetionet's Neo4j export uses (``BiologicalProcess``); relationship types are
``VERB_abbrev`` with ``>`` dropped (``Gr>G`` -> ``REGULATES_GrG``), as in that export.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import re
from dataclasses import asdict, dataclass
from typing import Any

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


if TYPE_CHECKING:
    from engram_kit.kg.profiles import GraphProfile


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


# ------------------------------------------------------------------------------------------------
# Graph schema: what a workspace's domain layer holds (Hetionet's fixed one, or one derived from KGX data)
# ------------------------------------------------------------------------------------------------
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
#: Tables of the literature layer and the metadata table: no domain label or relationship type may reuse them.
_ENGRAM_TABLES = frozenset({"Article", "Section", "Passage", "NounPhrase", "EngramMeta", "HAS_SECTION", "CONTAINS",
                            "MENTIONS", "MAPS_TO", "SAME_AS"})

#: Properties of every Hetionet domain node table: name -> LadybugDB type (``id`` is the primary key).
HETIONET_NODE_PROPERTIES: dict[str, str] = {"id": "STRING", "name": "STRING", "identifier": "STRING"}
#: Properties of every Hetionet domain rel table (edge properties, flattened to strings).
HETIONET_REL_PROPERTIES: dict[str, str] = {
    "sources": "STRING", "license": "STRING", "unbiased": "STRING", "pubmed_ids": "STRING",
}


@dataclass(frozen=True)
class RelSpec:
    """One relationship type of a domain layer and the label pairs it connects.

    Attributes
    ----------
    rel_type : str
        Graph relationship type: Hetionet ``"BINDS_CbG"``; KGX ``"HAS_PHENOTYPE"`` (the Biolink predicate,
        upper snake case).
    pairs : tuple of (str, str)
        ``(source_label, target_label)`` pairs the type connects (one for a Hetionet metaedge; every observed
        subject/object label pair for a Biolink predicate).
    predicate : str
        The source vocabulary's name: a Hetionet metaedge abbreviation (``"CbG"``) or a Biolink predicate
        CURIE (``"biolink:has_phenotype"``).
    directed : bool
        Whether direction carries meaning (Hetionet: only ``Gr>G``; Biolink: every non-symmetric predicate).
    count : int
        Edges of this type in the loaded graph (0 when unknown).
    """

    rel_type: str
    pairs: tuple[tuple[str, str], ...]
    predicate: str
    directed: bool
    count: int = 0


@dataclass(frozen=True)
class GraphSchema:
    """The domain layer of one workspace: node labels, relationship types and their properties.

    The store creates its tables from this, so one store class holds Hetionet (:data:`HETIONET_SCHEMA`) or
    any Biolink KGX graph (:func:`engram_kit.kg.kgx.load_kgx` derives one from the data). Node ids are
    ``"<kind>::<identifier>"`` in both (``"Gene::7157"``, ``"Gene::HGNC:10848"``), so an id names its table.

    Attributes
    ----------
    name : str
        ``"hetionet"`` or ``"kgx"``: which vocabulary ``kinds`` and ``rel_specs`` come from.
    kinds : dict of str to str
        Node kind -> graph label (``"Side Effect"`` -> ``"SideEffect"``; KGX kinds are their labels).
    rel_specs : tuple of RelSpec
        Relationship types, in table-creation order.
    node_properties, rel_properties : dict of str to str
        Property name -> LadybugDB type of every domain node table / rel table (``id`` first for nodes).
    negation_property : str
        Name of the boolean edge property marking negated assertions (``"negated"`` for KGX; ``""`` when
        the graph has none, as Hetionet).
    """

    name: str
    kinds: dict[str, str]
    rel_specs: tuple[RelSpec, ...]
    node_properties: dict[str, str]
    rel_properties: dict[str, str]
    negation_property: str = ""

    def __post_init__(self) -> None:
        bad = [x for x in (*self.labels, *self.rel_types, *self.node_properties, *self.rel_properties)
               if not _IDENTIFIER.match(x)]
        if bad:
            raise DataError(f"Graph schema {self.name!r} has names that are not plain identifiers: {bad[:5]}; "
                            "labels, relationship types and properties must match [A-Za-z][A-Za-z0-9_]*.")
        clash = sorted(set(self.labels + self.rel_types) & _ENGRAM_TABLES)
        if clash:
            raise DataError(f"Graph schema {self.name!r} uses engram-kit's own table names {clash}; rename them "
                            "(the KGX loader prefixes such names with Biolink_).")
        if self.negation_property and self.rel_properties.get(self.negation_property) != "BOOLEAN":
            raise DataError(f"Negation property {self.negation_property!r} must be a BOOLEAN rel property.")

    @property
    def profile(self) -> GraphProfile:
        """What differs for this graph format (display names, citation wording, applicable agents and desk
        templates, kind priors): the profile registered under ``name`` (:mod:`engram_kit.kg.profiles`)."""
        from engram_kit.kg.profiles import profile_for

        return profile_for(self.name)

    @property
    def labels(self) -> tuple[str, ...]:
        """Domain node labels, in schema order."""
        return tuple(dict.fromkeys(self.kinds.values()))

    @property
    def rel_types(self) -> tuple[str, ...]:
        """Domain relationship types, in schema order."""
        return tuple(spec.rel_type for spec in self.rel_specs)

    def label_of_kind(self, kind: str) -> str:
        """Node kind (or label) -> label.

        Raises
        ------
        DataError
            If ``kind`` is neither a kind nor a label of this schema.
        """
        if kind in self.kinds:
            return self.kinds[kind]
        if kind in self.labels:
            return kind
        raise DataError(f"Unknown node kind {kind!r} for the {self.name} graph; expected one of: "
                        f"{', '.join(self.kinds)}.")

    def rel_spec(self, rel_type: str) -> RelSpec:
        """The spec of a relationship type or predicate name (``"HAS_PHENOTYPE"``, ``"biolink:has_phenotype"``,
        ``"CbG"``).

        Raises
        ------
        DataError
            If the name is not in this schema.
        """
        for spec in self.rel_specs:
            if rel_type in (spec.rel_type, spec.predicate):
                return spec
        raise DataError(f"Unknown relationship type {rel_type!r} for the {self.name} graph; known: "
                        f"{', '.join(self.rel_types[:30])}{' ...' if len(self.rel_types) > 30 else ''}.")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the workspace manifest and the store's metadata table keep it)."""
        out = asdict(self)
        out["rel_specs"] = [{**asdict(s), "pairs": [list(p) for p in s.pairs]} for s in self.rel_specs]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GraphSchema:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        DataError
            If a key is missing or a name is not a plain identifier.
        """
        try:
            specs = tuple(RelSpec(s["rel_type"], tuple((a, b) for a, b in s["pairs"]), s["predicate"],
                                  bool(s["directed"]), int(s.get("count", 0))) for s in data["rel_specs"])
            return cls(data["name"], dict(data["kinds"]), specs, dict(data["node_properties"]),
                       dict(data["rel_properties"]), data.get("negation_property", ""))
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"Stored graph schema is malformed ({exc!r}); recreate the workspace with "
                            "`engram init --force`.") from exc


def require_schema(schema: GraphSchema | None, where: str) -> GraphSchema:
    """``schema``, or a clear error when a caller passed none: no code path assumes a graph format.

    Raises
    ------
    DataError
        If ``schema`` is None; the message names ``where`` and the fix (the workspace's ``store.schema``).
    """
    if schema is None:
        raise DataError(f"{where} needs the graph schema of the workspace it reads (Workspace.store.schema, or "
                        "KnowledgeGraph.schema); pass schema=. No graph format is assumed.")
    return schema


#: The Hetionet v1.0 domain layer: 11 labels, 24 metaedge relationship types.
HETIONET_SCHEMA = GraphSchema(
    name="hetionet",
    kinds=dict(NODE_KINDS),
    rel_specs=tuple(RelSpec(m.rel_type, ((m.source_label, m.target_label),), m.abbreviation, m.directed,
                            m.official_count) for m in METAEDGES),
    node_properties=dict(HETIONET_NODE_PROPERTIES),
    rel_properties=dict(HETIONET_REL_PROPERTIES),
)

#: Properties of every node table of a KGX graph (LadybugDB types). ``id`` is ``"<label>::<CURIE>"``,
#: ``identifier`` the CURIE itself (``"HGNC:10848"``), ``category`` the most specific Biolink category,
#: ``categories``/``synonyms``/``xrefs`` are ``|``-joined, ``properties`` a JSON object of the columns the
#: Biolink KGX format does not name (kept, never dropped).
KGX_NODE_PROPERTIES: dict[str, str] = {
    "id": "STRING", "name": "STRING", "identifier": "STRING", "category": "STRING", "categories": "STRING",
    "synonyms": "STRING", "in_taxon": "STRING", "description": "STRING", "xrefs": "STRING",
    "provided_by": "STRING", "properties": "STRING",
}
#: Properties of every rel table of a KGX graph. ``predicate`` is the Biolink CURIE, ``negated`` a boolean
#: (KGX ``negated`` column; absent = False), ``aggregator_knowledge_source``/``publications`` ``|``-joined,
#: ``qualifiers`` a JSON object ``{qualifier_name: value or [values]}`` merged from the ``*_qualifier``
#: columns and the ``qualifiers`` column, ``properties`` a JSON object of the other columns.
KGX_REL_PROPERTIES: dict[str, str] = {
    "edge_id": "STRING", "predicate": "STRING", "negated": "BOOLEAN", "category": "STRING",
    "primary_knowledge_source": "STRING", "aggregator_knowledge_source": "STRING", "publications": "STRING",
    "qualifiers": "STRING", "knowledge_level": "STRING", "agent_type": "STRING", "properties": "STRING",
}
