"""Pathway agent: shortest paths between the question's entities, pathway members, overlap of two
pathways, and pathways ranked by how many query genes they contain.

Routed for Pathway / Biological Process entities and for genes (:mod:`engram_kit.agents.routing`).
All facts come from Hetionet v1.0 edges (``PARTICIPATES_GpPW``, ``PARTICIPATES_GpBP``,
``ASSOCIATES_DaG``; Himmelstein et al., eLife 2017); every finding cites the edges it rests on.

On a graph without these metaedges (a Biolink KGX graph) the agent queries nothing and its report holds
one note, "not applicable to a <graph> graph (...)"; the phenotype agent
(:mod:`engram_kit.agents.phenotype`) finds paths there.

Ranking of pathways for the query genes: by the number of query genes a pathway contains, then by the
number of the question disease's associated genes it contains (when a disease is named), then by size
ascending (a 20-gene pathway holding a query gene says more than a 1,000-gene one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pandas as pd

from engram_kit.agents.base import AgentContext, Emit
from engram_kit.agents.events import PathwayEvent, StatusEvent
from engram_kit.agents.graph import GraphPath, edge_citation, shortest_path_findings
from engram_kit.agents.routing import report_not_applicable
from engram_kit.answering import Citation, Claim

#: Hetionet kind -> (graph label, membership relationship type from Gene).
MEMBERSHIP: dict[str, tuple[str, str]] = {
    "Pathway": ("Pathway", "PARTICIPATES_GpPW"),
    "Biological Process": ("BiologicalProcess", "PARTICIPATES_GpBP"),
}


@dataclass(frozen=True)
class PathwayOverlap:
    """Overlap of two gene sets: Jaccard index ``|A & B| / |A | B|`` in [0, 1] and the shared genes."""

    a_id: str
    a_name: str
    b_id: str
    b_name: str
    jaccard: float
    shared: tuple[str, ...]
    size_a: int
    size_b: int


@dataclass
class PathwayReport:
    """What the pathway agent found.

    Attributes
    ----------
    paths : shortest paths between pairs of question entities.
    members : pathway id -> DataFrame ``id, name, in_question`` of its member genes.
    overlaps : pairwise overlaps of the question's pathways.
    ranked : DataFrame ``pathway_id, name, query_genes, n_query_genes, n_disease_genes, size,
        query_gene_ids``.
    findings : cited claims, most informative first.
    notes : why the agent did nothing (``"not applicable to a Monarch KG sample graph (...)"``), else empty.
    """

    genes: list[str] = field(default_factory=list)
    paths: list[GraphPath] = field(default_factory=list)
    members: dict[str, pd.DataFrame] = field(default_factory=dict)
    overlaps: list[PathwayOverlap] = field(default_factory=list)
    ranked: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["pathway_id", "name", "query_genes", "n_query_genes", "n_disease_genes", "size"]))
    findings: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The ranked pathways."""
        return self.ranked

    def to_markdown(self, rows: int = 10) -> str:
        """Findings as cited bullets, then the ranked pathways as a table."""
        from engram_kit.agents.render import claims_markdown, frame_markdown, section

        lines = claims_markdown(self.findings)
        if not self.ranked.empty:
            cols = [c for c in ("name", "query_genes", "n_query_genes", "n_disease_genes", "size") if c in self.ranked]
            lines += section("Pathways", [frame_markdown(self.ranked[cols], rows)])
        lines += [f"> {note}" for note in self.notes]
        return "\n".join(lines).strip() or "No pathway findings."

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {
            "genes": self.genes, "paths": [p.to_dict() for p in self.paths],
            "members": {k: v.to_dict(orient="records") for k, v in self.members.items()},
            "overlaps": [asdict(o) for o in self.overlaps],
            "ranked": self.ranked.to_dict(orient="records"),
            "findings": [asdict(c) for c in self.findings], "notes": list(self.notes),
        }


def jaccard(a: set[str], b: set[str]) -> float:
    """``|a & b| / |a | b|``; 0.0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


class PathwayAgent:
    """See the module docstring."""

    name = "pathway"

    def run(self, context: AgentContext, emit: Emit) -> PathwayReport:
        skipped = report_not_applicable(self.name, context, emit, PathwayReport, PathwayEvent)
        if skipped is not None:  # no Hetionet membership metaedges: say so instead of querying tables that do not exist
            return skipped
        emit(StatusEvent(self.name, "pathways, members and paths"))
        opts = context.options
        report = PathwayReport()
        genes = context.of_kind("Gene")
        report.genes = [g.node_id for g in genes]
        groups = context.of_kind(*MEMBERSHIP)
        diseases = context.of_kind("Disease")
        disease_genes: set[str] = set()
        if diseases:
            frame = context.graph.neighbours(self.name, [d.node_id for d in diseases], "Disease", "ASSOCIATES_DaG", "Gene")
            disease_genes = set(frame["id"])

        member_sets: dict[str, set[str]] = {}
        for entity in groups:
            label, rel = MEMBERSHIP[entity.kind]
            frame = context.graph.neighbours(self.name, [entity.node_id], label, rel, "Gene")
            frame = frame.assign(in_question=frame["id"].isin(report.genes))[["id", "name", "in_question"]]
            report.members[entity.node_id] = frame.sort_values(["in_question", "name"], ascending=[False, True],
                                                               ignore_index=True)
            member_sets[entity.node_id] = set(frame["id"])
            if member_sets[entity.node_id]:  # no members: nothing to claim (the members table shows it empty)
                report.findings.append(self._members_claim(entity.node_id, entity.name, rel,
                                                           report.members[entity.node_id]))

        names = {e.node_id: e.name for e in groups}
        for a, b in combinations(member_sets, 2):
            shared = member_sets[a] & member_sets[b]
            gene_names = dict(zip(report.members[a]["id"], report.members[a]["name"]))
            overlap = PathwayOverlap(a, names[a], b, names[b], round(jaccard(member_sets[a], member_sets[b]), 4),
                                     tuple(sorted(gene_names[g] for g in shared)), len(member_sets[a]),
                                     len(member_sets[b]))
            report.overlaps.append(overlap)
            fallback = [edge_citation(str(m["id"].iloc[0]), "PARTICIPATES_GpPW", pid)
                        for pid, m in ((a, report.members[a]), (b, report.members[b])) if len(m)]
            report.findings.append(self._overlap_claim(overlap, sorted(shared), fallback))

        if genes:
            report.ranked = self._rank(context, report.genes, {g.node_id: g.name for g in genes}, disease_genes)
            report.findings += self._ranked_claims(report.ranked, diseases[0].name if diseases else "", opts.max_items)

        paths, claims = shortest_path_findings(context.graph, [e.node_id for e in context.entities],
                                               max_pairs=opts.max_path_pairs, max_hops=opts.max_path_hops)
        report.paths += paths
        report.findings += claims
        emit(PathwayEvent(self.name, report))
        return report

    # ------------------------------------------------------------------------------------------
    def _rank(self, context: AgentContext, gene_ids: list[str], gene_names: dict[str, str],
              disease_genes: set[str]) -> pd.DataFrame:
        memberships = context.graph.neighbours(self.name, gene_ids, "Gene", "PARTICIPATES_GpPW", "Pathway")
        columns = ["pathway_id", "name", "query_genes", "n_query_genes", "n_disease_genes", "size", "query_gene_ids"]
        if memberships.empty:
            return pd.DataFrame(columns=columns)
        pathway_ids = sorted(set(memberships["id"]))
        members = context.graph.neighbours(self.name, pathway_ids, "Pathway", "PARTICIPATES_GpPW", "Gene")
        by_pathway = members.groupby("source_id")["id"].agg(set).to_dict()
        rows = []
        for pid, group in memberships.groupby("id"):
            query = sorted(group["source_id"])
            member_set = by_pathway.get(pid, set())
            rows.append({"pathway_id": pid, "name": str(group["name"].iloc[0]),
                         "query_genes": ", ".join(gene_names.get(g, g) for g in query), "n_query_genes": len(query),
                         "n_disease_genes": len(member_set & disease_genes), "size": len(member_set),
                         "query_gene_ids": query})
        frame = pd.DataFrame(rows, columns=columns)
        return frame.sort_values(["n_query_genes", "n_disease_genes", "size", "name"],
                                 ascending=[False, False, True, True], ignore_index=True)

    @staticmethod
    def _ranked_claims(ranked: pd.DataFrame, disease: str, limit: int) -> list[Claim]:
        claims = []
        for row in ranked.head(min(3, limit)).itertuples(index=False):
            genes = row.query_genes
            extra = f"; {row.n_disease_genes} of its genes are associated with {disease}" if disease else ""
            text = f"{row.name} ({row.size} genes) contains {genes}{extra}"
            citations = tuple(edge_citation(g, "PARTICIPATES_GpPW", row.pathway_id) for g in row.query_gene_ids)
            claims.append(Claim(text, citations))
        return claims

    @staticmethod
    def _members_claim(pathway_id: str, name: str, rel: str, members: pd.DataFrame) -> Claim:
        shown = ", ".join(members["name"].head(8))
        more = f" and {len(members) - 8} more" if len(members) > 8 else ""
        text = f"{name} has {len(members)} member genes: {shown}{more}"
        citations = tuple(edge_citation(g, rel, pathway_id) for g in members["id"].head(3))
        return Claim(text, citations)

    @staticmethod
    def _overlap_claim(o: PathwayOverlap, shared_ids: list[str], fallback: list[Citation]) -> Claim:
        shown = ", ".join(o.shared[:8]) or "no genes"
        text = (f"{o.a_name} and {o.b_name} share {len(o.shared)} genes (Jaccard {o.jaccard:.3f}; "
                f"{o.size_a} and {o.size_b} genes): {shown}")
        citations = tuple(c for g in shared_ids[:3] for c in (edge_citation(g, "PARTICIPATES_GpPW", o.a_id),
                                                              edge_citation(g, "PARTICIPATES_GpPW", o.b_id)))
        return Claim(text, citations or tuple(fallback))

