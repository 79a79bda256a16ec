"""Registration of the built-in agents: literature, pathway, drug (Hetionet metaedges), phenotype (Biolink graphs).

One spec per agent, registered lazily by name in :mod:`engram_kit.plugins` (``plugins.agents``); the rules live in
:mod:`engram_kit.agents.routing`, the agents in their own modules. The required labels and relationship types
are what each agent's queries read (Hetionet v1.0, Himmelstein et al., eLife 2017): pathway membership and
disease genes (pathway agent); compound targets, regulation, indications, pathways and disease genes (drug agent).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engram_kit.agents.drug import DrugAgent, DrugReport
from engram_kit.agents.events import DoneEvent, DrugEvent, PathwayEvent, PhenotypeEvent
from engram_kit.agents.graph import GraphQueries
from engram_kit.agents.literature import LiteratureAgent
from engram_kit.agents.pathway import PathwayAgent, PathwayReport
from engram_kit.agents.phenotype import PhenotypeAgent, PhenotypeReport
from engram_kit.agents.registry import AgentSpec
from engram_kit.agents.routing import drug_route, literature_route, pathway_route, phenotype_route
from engram_kit.answering import Answer, Claim
from engram_kit.retrieval.results import ResolvedEntity


def _answer_claims(answer: Answer) -> list[Claim]:
    return list(answer.claims)


def _answer_markdown(answer: Answer) -> str:
    return answer.to_markdown()


def _report_markdown(report: PathwayReport | DrugReport) -> str:
    """The report's own Markdown: cited findings, then its tables (repurposing candidates, pathways) and notes."""
    return report.to_markdown()


def _phenotype_markdown(report: PhenotypeReport) -> str:
    return report.to_markdown()


def binder_counts(graph: GraphQueries, entities: Sequence[ResolvedEntity]) -> dict[str, Any]:
    """``{"binder_counts": gene id -> number of compounds binding it}`` for the drug agent's routing rule
    (Hetionet's compound-gene metaedge ``BINDS_CbG``; empty on a graph without it)."""
    schema = graph.schema
    if "BINDS_CbG" not in schema.rel_types or "Compound" not in schema.labels:
        return {}
    genes = [e.node_id for e in entities if e.kind == "Gene"]
    return {"binder_counts": graph.neighbour_counts("router", genes, "Gene", "BINDS_CbG", "Compound")}


LITERATURE = AgentSpec("literature", LiteratureAgent, Answer, DoneEvent, literature_route,
                       heading="From the literature", order=10, claims=_answer_claims, render=_answer_markdown)
PATHWAY = AgentSpec("pathway", PathwayAgent, PathwayReport, PathwayEvent, pathway_route,
                    heading="From pathways and graph paths", order=20, render=_report_markdown,
                    requires_labels=("Gene", "Pathway", "BiologicalProcess", "Disease"),
                    requires_rel_types=("PARTICIPATES_GpPW", "PARTICIPATES_GpBP", "ASSOCIATES_DaG"))
DRUG = AgentSpec("drug", DrugAgent, DrugReport, DrugEvent, drug_route,
                 heading="From compounds and targets", order=30, render=_report_markdown, facts=binder_counts,
                 requires_labels=("Compound", "Gene", "Disease", "Pathway"),
                 requires_rel_types=("BINDS_CbG", "TREATS_CtD", "PALLIATES_CpD", "UPREGULATES_CuG",
                                     "DOWNREGULATES_CdG", "PARTICIPATES_GpPW", "ASSOCIATES_DaG"))
PHENOTYPE = AgentSpec("phenotype", PhenotypeAgent, PhenotypeReport, PhenotypeEvent, phenotype_route,
                      heading="From diseases and phenotypes", order=40, render=_phenotype_markdown,
                      requires_labels=("PhenotypicFeature",))
