"""Phenotype agent: diseases, phenotypes and gene -> disease -> phenotype paths on a Biolink graph, every
finding citing its edges with their predicate, direction and provenance.

Routed on graphs other than Hetionet that have PhenotypicFeature nodes (a Biolink KGX graph such as the
Monarch KG), for Gene, Disease and PhenotypicFeature entities (:mod:`engram_kit.agents.routing`). Which
relationship types join these labels is read from the graph's schema, not fixed: on the Monarch KG sample
they are ``biolink:has_phenotype`` (disease or gene -> phenotype; HPO annotations), ``biolink:related_to``
(gene -> disease; Orphanet, OMIM) and ``biolink:contributes_to`` (gene -> disease or phenotype; OMIM, GWAS
Catalog).

* **Associations**: a gene's diseases and phenotypes; a disease's phenotypes and genes; the diseases and
  genes that have a phenotype. Every row keeps its edge's predicate, stored direction (subject -> object),
  knowledge sources, publications, qualifiers and negation (:meth:`GraphQueries.edges`).
* **Paths gene -> disease -> phenotype**: the phenotypes of the question gene's diseases (only the
  diseases and phenotypes the question names, when it names some), each path citing both edges.
* **Shortest paths** between the question's entities, on the graph of asserted edges.

Findings group plain assertions by entity and predicate ("SHH (human) has phenotype Cleft palate,
Microcephaly, ... and 101 more"), subject first, so a directed predicate reads the right way round. A negated
assertion is its own finding worded ``"NOT: ..."`` by :func:`~engram_kit.answering.assertions.assertion_text`,
never merged into a plain list; qualifiers stay beside the entity they qualify. Negated assertions are left
out unless ``AgentOptions.include_negated``; paths never go through them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from engram_kit.agents.base import AgentContext, Emit
from engram_kit.agents.events import PhenotypeEvent, StatusEvent
from engram_kit.agents.graph import EDGE_COLUMNS, GraphPath, evidence_citation, shortest_path_findings
from engram_kit.agents.routing import PHENOTYPE_KINDS, not_applicable
from engram_kit.answering import Claim
from engram_kit.answering.assertions import assertion_text, predicate_phrase, qualifier_phrase
from engram_kit.retrieval.results import EdgeEvidence
from engram_kit.settings import Settings

#: Entity kind -> the labels of the associations listed for it, in the order they are reported.
ASSOCIATED_LABELS: dict[str, tuple[str, ...]] = {
    "Gene": ("Disease", "PhenotypicFeature"),
    "Disease": ("PhenotypicFeature", "Gene"),
    "PhenotypicFeature": ("Disease", "Gene"),
}
#: Citations kept per grouped finding (the finding names more entities than it cites; all are in the table).
CITED_EDGES: int = Settings.agent_cited_edges
#: Columns of :attr:`PhenotypeReport.paths`.
PATH_COLUMNS: tuple[str, ...] = ("gene_id", "gene", "disease_id", "disease", "phenotype_id", "phenotype",
                                 "gene_disease_predicate", "gene_disease_source", "disease_phenotype_predicate",
                                 "disease_phenotype_source", "disease_phenotype_qualifiers")


@dataclass
class PhenotypeReport:
    """What the phenotype agent found (see the module docstring).

    Attributes
    ----------
    associations : DataFrame
        Columns :data:`engram_kit.agents.graph.EDGE_COLUMNS`: one row per (question entity, edge) to a node of
        an associated label, with the edge's meaning and provenance.
    paths : DataFrame
        Columns :data:`PATH_COLUMNS`: one row per gene -> disease -> phenotype path (both edges asserted).
    shortest : shortest paths between pairs of question entities.
    findings : cited claims, most informative first.
    notes : why the agent did nothing or what it left out.
    graph_name : the graph's display name (citation labels).
    """

    associations: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(EDGE_COLUMNS)))
    paths: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(PATH_COLUMNS)))
    shortest: list[GraphPath] = field(default_factory=list)
    findings: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    graph_name: str = ""

    def to_frame(self) -> pd.DataFrame:
        """The associations (edges with provenance)."""
        return self.associations

    def to_markdown(self) -> str:
        """Findings with their citation labels, then the notes."""
        lines = [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]" for c in self.findings]
        lines += [f"> {note}" for note in self.notes]
        return "\n".join(lines) or "No phenotype findings."

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        return {"associations": self.associations.to_dict(orient="records"),
                "paths": self.paths.to_dict(orient="records"), "shortest": [p.to_dict() for p in self.shortest],
                "findings": [asdict(c) for c in self.findings], "notes": list(self.notes),
                "graph_name": self.graph_name}


def _edge(row: dict[str, Any]) -> EdgeEvidence:
    return EdgeEvidence.from_row(row)


def _source(edge: EdgeEvidence) -> str:
    """The primary knowledge source, else the aggregators (``|``-joined)."""
    return edge.primary_knowledge_source or edge.aggregator_knowledge_source


def _named(row: dict[str, Any], edge: EdgeEvidence) -> str:
    """The other end's name, with the edge's qualifiers when it has any (they belong to this assertion)."""
    qualifiers = qualifier_phrase(edge)
    return f"{row['other_name']} (qualifiers: {qualifiers})" if qualifiers else str(row["other_name"])


def grouped_claims(rows: list[dict[str, Any]], entity: str, graph_name: str, max_items: int) -> list[Claim]:
    """Findings for one entity's edges (rows of :meth:`GraphQueries.edges`): one per (predicate, side) for
    plain assertions, naming at most ``max_items`` other ends; one per negated assertion.

    The entity is the subject (``"SHH (human) has phenotype A, B"``) or the object (``"PAX6, GLI2 interacts
    with SHH (human)"``) as stored, so a directed predicate keeps its direction.
    """
    claims: list[Claim] = []
    groups: dict[tuple[str, bool], list[tuple[dict[str, Any], EdgeEvidence]]] = {}
    for row in rows:
        edge = _edge(row)
        if edge.negated:
            text = assertion_text(edge, str(row["subject"]), str(row["object"]))
            claims.append(Claim(text, (evidence_citation(edge, graph_name),)))
            continue
        groups.setdefault((edge.predicate, row["entity_id"] == row["source"]), []).append((row, edge))
    grouped: list[Claim] = []
    for (_, as_subject), members in groups.items():
        phrase = predicate_phrase(members[0][1])
        names = ", ".join(_named(row, edge) for row, edge in members[:max_items])
        more = f" and {len(members) - max_items} more" if len(members) > max_items else ""
        text = f"{entity} {phrase} {names}{more}" if as_subject else f"{names}{more} {phrase} {entity}"
        grouped.append(Claim(text, tuple(evidence_citation(edge, graph_name) for _, edge in members[:CITED_EDGES])))
    return grouped + claims


class PhenotypeAgent:
    """See the module docstring."""

    name = "phenotype"

    def run(self, context: AgentContext, emit: Emit) -> PhenotypeReport:
        graph = context.graph
        report = PhenotypeReport(graph_name=graph.graph_name)
        reason = not_applicable(self.name, graph.schema, graph.graph_name)
        if reason:
            emit(StatusEvent(self.name, reason))
            report.notes.append(reason)
            emit(PhenotypeEvent(self.name, report))
            return report
        emit(StatusEvent(self.name, "diseases, phenotypes and gene -> disease -> phenotype paths"))
        opts = context.options
        labels = set(graph.schema.labels)
        entities = context.of_kind(*PHENOTYPE_KINDS)
        frames = []
        for kind, associated in ASSOCIATED_LABELS.items():
            ids = [e.node_id for e in entities if e.kind == kind]
            for label in associated:
                if ids and label in labels:
                    frames.append(graph.edges(self.name, ids, label, include_negated=opts.include_negated))
        frames = [f for f in frames if len(f)]
        if frames:
            report.associations = pd.concat(frames, ignore_index=True)
        names = {e.node_id: e.name for e in entities}
        for entity in dict.fromkeys(e.node_id for e in entities):
            mine = report.associations[report.associations["entity_id"] == entity]
            for label in ASSOCIATED_LABELS.get(graph.label_of(entity), ()):
                rows = mine[mine["other_label"] == label].to_dict(orient="records")
                report.findings += grouped_claims(rows, names[entity], graph.graph_name, opts.max_items)
        if opts.include_negated and len(report.associations) and report.associations["negated"].any():
            report.notes.append("Negated assertions are listed (negated = True) and worded NOT: they say the relation "
                                "does not hold; no path goes through them.")

        genes = [e.node_id for e in entities if e.kind == "Gene"]
        if genes and {"Disease", "PhenotypicFeature"} <= labels:
            self._paths(context, report, genes, entities)

        paths, claims = shortest_path_findings(graph, [e.node_id for e in context.entities],
                                               max_pairs=opts.max_path_pairs, max_hops=opts.max_path_hops)
        report.shortest += paths
        report.findings += claims
        emit(PhenotypeEvent(self.name, report))
        return report

    def _paths(self, context: AgentContext, report: PhenotypeReport, genes: list[str], entities: list[Any]) -> None:
        """Gene -> disease -> phenotype paths over asserted edges (restricted to the question's diseases and
        phenotypes when it names some); one finding per (gene, disease)."""
        graph = context.graph
        frame = report.associations
        first = frame[frame["entity_id"].isin(genes) & (frame["other_label"] == "Disease")
                      & ~frame["negated"].astype(bool)]
        asked_diseases = {e.node_id for e in entities if e.kind == "Disease"}
        asked_phenotypes = {e.node_id for e in entities if e.kind == "PhenotypicFeature"}
        if asked_diseases:
            first = first[first["other_id"].isin(asked_diseases)]
        if first.empty:
            return
        second = graph.edges(self.name, sorted(set(first["other_id"])), "PhenotypicFeature")  # never negated
        if asked_phenotypes:
            second = second[second["other_id"].isin(asked_phenotypes)]
        if second.empty:
            report.notes.append(f"No phenotype is recorded for the {first['other_id'].nunique()} disease(s) linked to "
                                "the question's gene(s), so there is no gene -> disease -> phenotype path.")
            return
        onward = {d: g.to_dict(orient="records") for d, g in second.groupby("entity_id", sort=False)}
        rows, limit = [], context.options.max_items
        for hop in first.to_dict(orient="records"):
            ends = onward.get(hop["other_id"], [])
            if not ends:
                continue
            e1 = _edge(hop)
            gene_name, disease = str(hop["subject"] if hop["entity_id"] == hop["source"] else hop["object"]), \
                str(hop["other_name"])
            for end in ends:
                e2 = _edge(end)
                rows.append({"gene_id": hop["entity_id"], "gene": gene_name, "disease_id": hop["other_id"],
                             "disease": disease, "phenotype_id": end["other_id"], "phenotype": end["other_name"],
                             "gene_disease_predicate": e1.predicate, "gene_disease_source": _source(e1),
                             "disease_phenotype_predicate": e2.predicate, "disease_phenotype_source": _source(e2),
                             "disease_phenotype_qualifiers": e2.qualifiers})
            first_text = assertion_text(e1, str(hop["subject"]), str(hop["object"]))
            onward_claims = grouped_claims(ends, disease, graph.graph_name, limit)
            for claim in onward_claims:
                report.findings.append(Claim(f"Path: {first_text}; {claim.text}",
                                             (evidence_citation(e1, graph.graph_name), *claim.citations)))
        report.paths = pd.DataFrame(rows, columns=list(PATH_COLUMNS))
