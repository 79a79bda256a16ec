"""Automatic, visible routing: which agents run for a question, and why.

Rules (from the resolved entity kinds; memory entities count when the question names no entity of
that kind, and are marked "from memory"):

* **literature** always runs (PPR retrieval over the literature + answer composer).
* **pathway** runs for a Pathway or Biological Process entity, or for any Gene.
* **drug** runs for a Compound entity; for a Gene with known binders (at least one ``BINDS_CbG``
  edge); and for a Gene without binders or a Disease when the question asks for compounds ("drug",
  "compound", "treatment"..., see :data:`engram_kit.answering.extractive.KIND_CUES`): indirect links,
  and drug repurposing for the disease.
* **phenotype** (graphs other than Hetionet) runs for a Gene, Disease or PhenotypicFeature entity when the
  graph has PhenotypicFeature nodes (a Biolink graph such as Monarch KG): diseases, phenotypes and
  gene -> disease -> phenotype paths with each edge's predicate and provenance.
* **synthesis** always runs last and merges what the others returned.

A gene without binders does not trigger the drug agent and the decision says so, so the user sees why.
The pathway and drug agents read Hetionet metaedges (:data:`REQUIRED_REL_TYPES`); on a graph without them
they are skipped with the reason "not applicable to a <graph> graph (no ...)" rather than run on nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from engram_kit.answering.extractive import asked_kind
from engram_kit.kg.schema import HETIONET_SCHEMA, GraphSchema
from engram_kit.retrieval.results import ResolvedEntity

#: Agent names in the order their results are shown.
AGENT_ORDER: tuple[str, ...] = ("literature", "pathway", "drug", "phenotype", "synthesis")
PATHWAY_KINDS: tuple[str, ...] = ("Pathway", "Biological Process")
#: Kinds (Biolink labels) the phenotype agent starts from, and what it reports for each.
PHENOTYPE_REASONS: dict[str, str] = {
    "Gene": "its diseases and phenotypes, and gene -> disease -> phenotype paths, with provenance",
    "Disease": "its phenotypes and genes, with provenance",
    "PhenotypicFeature": "the diseases and genes that have it, with provenance",
}
PHENOTYPE_KINDS: tuple[str, ...] = tuple(PHENOTYPE_REASONS)
#: Node labels and Hetionet metaedges (relationship types) each Hetionet-specific agent reads: pathway
#: membership and disease genes (pathway agent); compound targets, regulation, indications, pathways and
#: disease genes (drug agent). Source: the agents' modules (Hetionet v1.0, Himmelstein et al., eLife 2017).
REQUIRED_LABELS: dict[str, tuple[str, ...]] = {
    "pathway": ("Gene", "Pathway", "BiologicalProcess", "Disease"),
    "drug": ("Compound", "Gene", "Disease", "Pathway"),
    "phenotype": ("PhenotypicFeature",),
}
REQUIRED_REL_TYPES: dict[str, tuple[str, ...]] = {
    "pathway": ("PARTICIPATES_GpPW", "PARTICIPATES_GpBP", "ASSOCIATES_DaG"),
    "drug": ("BINDS_CbG", "TREATS_CtD", "PALLIATES_CpD", "UPREGULATES_CuG", "DOWNREGULATES_CdG",
             "PARTICIPATES_GpPW", "ASSOCIATES_DaG"),
    "phenotype": (),
}


def not_applicable(agent: str, schema: GraphSchema | None = None, graph_name: str = "") -> str:
    """Why ``agent`` cannot run on a graph of ``schema`` (default Hetionet), or ``""`` when it can.

    Returns
    -------
    str
        e.g. ``"not applicable to a Monarch KG sample graph (no Compound nodes; no BINDS_CbG, TREATS_CtD,
        PALLIATES_CpD... edges: the drug agent reads Hetionet metaedges)"``.
    """
    schema = schema or HETIONET_SCHEMA
    labels = [x for x in REQUIRED_LABELS.get(agent, ()) if x not in schema.labels]
    rels = [x for x in REQUIRED_REL_TYPES.get(agent, ()) if x not in schema.rel_types]
    if not labels and not rels:
        return ""
    graph = graph_name or ("Hetionet" if schema.name == "hetionet" else "KGX")
    missing = []
    if labels:
        missing.append(f"no {', '.join(labels)} nodes")
    if rels:
        shown = ", ".join(rels[:3]) + ("..." if len(rels) > 3 else "")
        missing.append(f"no {shown} edges: the {agent} agent reads Hetionet metaedges")
    return f"not applicable to a {graph} graph ({'; '.join(missing)})"


def report_not_applicable(agent: str, context: Any, emit: Callable[[Any], None], report_type: type,
                          event_type: type) -> Any:
    """If ``agent`` cannot run on the context's graph (:func:`not_applicable`), emit the reason and an empty report
    carrying it as a note, and return that report; else None (the agent goes on)."""
    reason = not_applicable(agent, context.graph.schema, context.graph.graph_name)
    if not reason:
        return None
    from engram_kit.agents.events import StatusEvent

    emit(StatusEvent(agent, reason))
    report = report_type(notes=[reason])
    emit(event_type(agent, report))
    return report


@dataclass(frozen=True)
class Route:
    """One agent's routing decision: whether it runs and the reasons (entity and rule)."""

    agent: str
    runs: bool
    reasons: tuple[str, ...]


@dataclass
class RoutingDecision:
    """Which agents run and why, for display (``to_frame``) and run bundles (``to_dict``)."""

    routes: list[Route] = field(default_factory=list)

    @property
    def agents(self) -> list[str]:
        """Names of the agents that run, in :data:`AGENT_ORDER`."""
        return [r.agent for r in self.routes if r.runs]

    def route(self, agent: str) -> Route | None:
        return next((r for r in self.routes if r.agent == agent), None)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"agent": r.agent, "runs": r.runs, "why": "; ".join(r.reasons)} for r in self.routes],
                            columns=["agent", "runs", "why"])

    def to_dict(self) -> dict[str, Any]:
        return {"routes": [asdict(r) for r in self.routes]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoutingDecision:
        return cls([Route(r["agent"], bool(r["runs"]), tuple(r["reasons"])) for r in data.get("routes", [])])

    def describe(self) -> str:
        """One line per agent: ``drug      runs  Donepezil is a Compound``."""
        return "\n".join(f"{r.agent:10} {'runs' if r.runs else 'skips':5} {'; '.join(r.reasons)}" for r in self.routes)


def _label(entity: ResolvedEntity, from_memory: bool) -> str:
    return f"{entity.name} ({entity.kind}{', from memory' if from_memory else ''})"


def route(question: str, entities: Sequence[ResolvedEntity], memory_entities: Sequence[ResolvedEntity] = (),
          binder_counts: Mapping[str, int] | None = None, *, schema: GraphSchema | None = None,
          graph_name: str = "") -> RoutingDecision:
    """Decide which agents run (see the module docstring for the rules).

    Parameters
    ----------
    question : the question (its cue words decide whether a disease asks for drug repurposing).
    entities : resolved question entities.
    memory_entities : entities carried over from session memory.
    binder_counts : gene node id -> number of compounds binding it (``BINDS_CbG``); genes absent count 0.
    schema : the graph's schema (default Hetionet v1.0): agents whose metaedges it lacks are skipped.
    graph_name : the graph's display name for those reasons (``"Monarch KG sample"``).

    Returns
    -------
    RoutingDecision
        One :class:`Route` per agent of :data:`AGENT_ORDER`; on Hetionet the phenotype agent is not listed
        (the pathway and drug agents cover it).
    """
    binder_counts = binder_counts or {}
    schema = schema or HETIONET_SCHEMA

    def pick(*kinds: str) -> list[tuple[ResolvedEntity, bool]]:
        found = [(e, False) for e in entities if e.kind in kinds]
        return found or [(e, True) for e in memory_entities if e.kind in kinds]

    routes = [Route("literature", True, ("always: PPR retrieval over the literature and a cited answer",))]
    for decided in _hetionet_routes(question, pick, binder_counts):
        reason = not_applicable(decided.agent, schema, graph_name)  # "" on Hetionet
        routes.append(Route(decided.agent, False, (reason,)) if reason else decided)
    if schema.name != "hetionet":
        reason = not_applicable("phenotype", schema, graph_name)
        phenotype = [f"{_label(e, m)}: {PHENOTYPE_REASONS[e.kind]}" for e, m in pick(*PHENOTYPE_KINDS)]
        why = (reason,) if reason else tuple(phenotype) or ("no Gene, Disease or PhenotypicFeature entity",)
        routes.append(Route("phenotype", bool(phenotype) and not reason, why))
    routes.append(Route("synthesis", True, ("always: merges what the other agents returned",)))
    return RoutingDecision(routes)


def _hetionet_routes(question: str, pick: Callable[..., list[tuple[ResolvedEntity, bool]]],
                     binder_counts: Mapping[str, int]) -> list[Route]:
    """The pathway and drug routes (rules in the module docstring)."""
    routes: list[Route] = []
    pathway_reasons = [f"{_label(e, m)} is a pathway-level entity" for e, m in pick(*PATHWAY_KINDS)]
    pathway_reasons += [f"{_label(e, m)} is a gene: its pathways and paths" for e, m in pick("Gene")]
    routes.append(Route("pathway", bool(pathway_reasons),
                        tuple(pathway_reasons) or ("no Pathway, Biological Process or Gene entity",)))

    drug_reasons, drug_notes = [], []
    drug_reasons += [f"{_label(e, m)} is a compound" for e, m in pick("Compound")]
    wants_drugs = asked_kind(question) == "Compound"
    for e, m in pick("Gene"):
        n = int(binder_counts.get(e.node_id, 0))
        text = f"{_label(e, m)} has {n} known binder{'s' if n != 1 else ''} (BINDS_CbG)"
        if not n and wants_drugs:
            drug_reasons.append(text + " and the question asks for compounds: indirect links via regulation "
                                       "and pathways")
        else:
            (drug_reasons if n else drug_notes).append(text)
    for e, m in pick("Disease"):
        if wants_drugs:
            drug_reasons.append(f"{_label(e, m)} is a disease and the question asks for compounds: repurposing")
        else:
            drug_notes.append(f"{_label(e, m)} is a disease but the question does not ask for compounds")
    routes.append(Route("drug", bool(drug_reasons),
                        tuple(drug_reasons + drug_notes) or ("no Compound, bound Gene or drug-seeking Disease",)))
    return routes
