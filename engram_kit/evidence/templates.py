"""Offline question templates of the evidence desk: entity + relation questions answered from the graph.

A template matches a question when one of its cue patterns occurs and an entity of its source label was
found in the question. It sends two read-only queries through the same guard and artifacts as any other
query: the related entities (sorted by name, ``LIMIT`` :data:`LIST_LIMIT`) and their total count, and turns
each row into one claim citing that row. Relation semantics are Hetionet v1.0's metaedges (Himmelstein et
al., eLife 2017); undirected metaedges are matched in both directions.

The Cypher texts live in :data:`TEMPLATE_CYPHER`, keyed by template name and dialect (the one place the
desk's own Cypher is written), with only schema identifiers interpolated; values are ``$id`` parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_kit.errors import QueryError
from engram_kit.kg.schema import METAEDGE_BY_REL_TYPE

#: Related entities listed per template query (claims cite these rows).
LIST_LIMIT = 25


@dataclass(frozen=True)
class Template:
    """One question shape.

    Attributes
    ----------
    name : str
        Key of :data:`TEMPLATE_CYPHER`.
    cues : str
        Regular expression (case-insensitive) that the question must match.
    source_label : str
        Label of the question entity the query starts from.
    rel_type : str
        Hetionet relationship type followed.
    target_label : str
        Label of the related entities.
    outgoing : bool or None
        True: ``(source)-[rel]->(target)``; False: ``(source)<-[rel]-(target)``; None: either direction.
    phrase : str
        Claim format with ``{source}`` and ``{target}`` (names), e.g. ``"{source} treats {target}"``.
    """

    name: str
    cues: str
    source_label: str
    rel_type: str
    target_label: str
    outgoing: bool | None
    phrase: str

    def matches(self, question: str) -> bool:
        return re.search(self.cues, question, re.IGNORECASE) is not None

    def pattern(self) -> str:
        """The relationship pattern from ``s`` to ``t``."""
        rel = f"[:{self.rel_type}]"
        if self.outgoing is None:
            return f"(s:{self.source_label} {{id: $id}})-{rel}-(t:{self.target_label})"
        if self.outgoing:
            return f"(s:{self.source_label} {{id: $id}})-{rel}->(t:{self.target_label})"
        return f"(s:{self.source_label} {{id: $id}})<-{rel}-(t:{self.target_label})"


#: Templates, checked in order (first matching template with a matching entity wins).
TEMPLATES: tuple[Template, ...] = (
    Template("gene_pathways", r"\bpathways?\b", "Gene", "PARTICIPATES_GpPW", "Pathway", True,
             "{source} participates in the pathway {target}"),
    Template("pathway_genes", r"\bgenes?\b|\bmembers?\b|\bparticipat", "Pathway", "PARTICIPATES_GpPW", "Gene", False,
             "{target} participates in {source}"),
    Template("gene_processes", r"\bprocess(es)?\b", "Gene", "PARTICIPATES_GpBP", "BiologicalProcess", True,
             "{source} participates in the biological process {target}"),
    Template("compound_side_effects", r"side[- ]effects?|adverse", "Compound", "CAUSES_CcSE", "SideEffect", True,
             "{source} causes the side effect {target}"),
    Template("compound_palliates", r"\bpalliat", "Compound", "PALLIATES_CpD", "Disease", True,
             "{source} palliates {target}"),
    Template("disease_palliated_by", r"\bpalliat", "Disease", "PALLIATES_CpD", "Compound", False,
             "{target} palliates {source}"),
    Template("compound_treats", r"\btreat|\bindicat|\bused for\b", "Compound", "TREATS_CtD", "Disease", True,
             "{source} treats {target}"),
    Template("disease_treated_by", r"\btreat|\bdrugs?\b|\bcompounds?\b|\bmedication|\btherap", "Disease",
             "TREATS_CtD", "Compound", False, "{target} treats {source}"),
    Template("compound_targets", r"\bbinds?\b|\btargets?\b|\bbinding\b", "Compound", "BINDS_CbG", "Gene", True,
             "{source} binds {target}"),
    Template("gene_binders", r"\bbinds?\b|\btarget|\binhibitors?\b|\bdrugs?\b|\bcompounds?\b", "Gene", "BINDS_CbG",
             "Compound", False, "{target} binds {source}"),
    Template("gene_interactions", r"\binteract", "Gene", "INTERACTS_GiG", "Gene", None,
             "{source} interacts with {target}"),
    Template("disease_genes", r"\bgenes?\b|\bassociat", "Disease", "ASSOCIATES_DaG", "Gene", True,
             "{source} is associated with the gene {target}"),
    Template("gene_diseases", r"\bdiseases?\b|\bassociat|\bdisorders?\b", "Gene", "ASSOCIATES_DaG", "Disease", False,
             "{target} is associated with {source}"),
    Template("disease_resembles", r"\bresembl|\bsimilar", "Disease", "RESEMBLES_DrD", "Disease", None,
             "{source} resembles {target}"),
    Template("compound_resembles", r"\bresembl|\bsimilar", "Compound", "RESEMBLES_CrC", "Compound", None,
             "{source} resembles {target}"),
    Template("disease_symptoms", r"\bsymptoms?\b|\bpresent", "Disease", "PRESENTS_DpS", "Symptom", True,
             "{source} presents the symptom {target}"),
    Template("disease_anatomy", r"\blocali[sz]|\btissues?\b|\banatom|\bwhere\b", "Disease", "LOCALIZES_DlA",
             "Anatomy", True, "{source} localizes to {target}"),
    Template("class_members", r"\bmembers?\b|\bincludes?\b|\bcompounds?\b|\bdrugs?\b", "PharmacologicClass",
             "INCLUDES_PCiC", "Compound", True, "{source} includes {target}"),
)


def _build_cypher() -> dict[str, dict[str, dict[str, str]]]:
    """name -> query kind (``list`` / ``count``) -> dialect -> text. Both dialects share the text here."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for t in TEMPLATES:
        if t.rel_type not in METAEDGE_BY_REL_TYPE:
            raise QueryError(f"Template {t.name!r} uses unknown relationship type {t.rel_type!r}.")
        listing = (f"MATCH {t.pattern()} RETURN DISTINCT s.name AS source, t.name AS target, t.id AS target_id "
                   f"ORDER BY target LIMIT {LIST_LIMIT}")
        count = f"MATCH {t.pattern()} RETURN s.name AS source, count(DISTINCT t) AS n"
        out[t.name] = {"list": {"ladybug": listing, "neo4j": listing}, "count": {"ladybug": count, "neo4j": count}}
    return out


#: Template name -> ``list``/``count`` -> dialect -> Cypher text (parameter ``$id``: the source node id).
TEMPLATE_CYPHER: dict[str, dict[str, dict[str, str]]] = _build_cypher()


def template_cypher(name: str, kind: str, dialect: str) -> str:
    """Cypher of template ``name`` (``kind`` ``"list"`` or ``"count"``) for ``dialect``.

    Raises
    ------
    QueryError
        If the template, kind or dialect is unknown.
    """
    try:
        return TEMPLATE_CYPHER[name][kind][dialect]
    except KeyError:
        raise QueryError(f"No desk template Cypher for {name!r}/{kind!r}/{dialect!r}; templates: "
                         f"{', '.join(TEMPLATE_CYPHER)}.") from None
