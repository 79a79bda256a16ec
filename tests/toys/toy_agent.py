"""A toy agent: for every Gene in the question, the diseases the graph associates it with, each edge cited.

Its spec (name, routing rule, report type, event type) is registered by one line in tests/test_seams.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engram_kit.agents.base import AgentContext, Emit
from engram_kit.agents.events import Event
from engram_kit.agents.registry import RoutingInput
from engram_kit.agents.routing import Route
from engram_kit.answering import Citation, Claim


@dataclass
class GeneDiseaseReport:
    """Cited gene -> disease findings."""

    findings: list[Claim] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"findings": [{"text": c.text, "refs": [x.ref for x in c.citations]} for c in self.findings]}


@dataclass(frozen=True)
class GeneDiseaseEvent(Event):
    type: ClassVar[str] = "gene_disease"
    report: Any = None


class GeneDiseaseAgent:
    name = "gene_disease"

    def run(self, context: AgentContext, emit: Emit) -> GeneDiseaseReport:
        report = GeneDiseaseReport()
        genes = context.of_kind("Gene")
        edges = context.graph.edges(self.name, [g.node_id for g in genes], "Disease")
        names = context.graph.names(list(edges["target"])) if len(edges) else {}
        for row in edges.itertuples(index=False):
            gene = next(g.name for g in genes if g.node_id == row.entity_id)
            citation = Citation("edge", f"{row.source} -[{row.rel_type}]-> {row.target}",
                                f"{context.graph.graph_name} {row.predicate}")
            report.findings.append(Claim(f"{gene} is associated with {names.get(row.target, row.target)}",
                                         (citation,)))
        emit(GeneDiseaseEvent(self.name, report))
        return report


def gene_disease_route(seen: RoutingInput) -> Route:
    genes = [e.name for e, _ in seen.pick("Gene")]
    return Route("gene_disease", bool(genes), tuple(f"{g} is a gene" for g in genes) or ("no Gene entity",))
