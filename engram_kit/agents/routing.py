"""Automatic, visible routing: which agents run for a question, and why.

Each registered agent (:mod:`engram_kit.agents.registry`) brings its own rule; the built-in rules are below
(from the resolved entity kinds; memory entities count when the question names no entity of
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
The pathway and drug agents read Hetionet metaedges (their specs' ``requires_rel_types`` in
:mod:`engram_kit.agents.builtin`); on a graph without them
they are skipped with the reason "not applicable to a <graph> graph (no ...)" rather than run on nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from engram_kit.agents.events import StatusEvent
from engram_kit.agents.registry import RoutingInput, agent_specs, registered
from engram_kit.agents.route import Route as Route  # re-exported: its home before agents/route.py
from engram_kit.answering.extractive import asked_kind
from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.retrieval.results import ResolvedEntity

PATHWAY_KINDS: tuple[str, ...] = ("Pathway", "Biological Process")
#: Kinds (Biolink labels) the phenotype agent starts from, and what it reports for each.
PHENOTYPE_REASONS: dict[str, str] = {
    "Gene": "its diseases and phenotypes, and gene -> disease -> phenotype paths, with provenance",
    "Disease": "its phenotypes and genes, with provenance",
    "PhenotypicFeature": "the diseases and genes that have it, with provenance",
}
PHENOTYPE_KINDS: tuple[str, ...] = tuple(PHENOTYPE_REASONS)


def not_applicable(agent: str, schema: GraphSchema | None = None, graph_name: str = "") -> str:
    """Why ``agent`` cannot run on a graph of ``schema`` (default Hetionet), or ``""`` when it can (its spec's
    ``requires_labels`` and ``requires_rel_types`` are all in the schema; an unregistered name needs nothing).

    Returns
    -------
    str
        e.g. ``"not applicable to a Monarch KG sample graph (no Compound nodes; no BINDS_CbG, TREATS_CtD,
        PALLIATES_CpD... edges: the drug agent reads Hetionet metaedges)"``.
    """
    schema = require_schema(schema, "not_applicable()")
    spec = registered(agent)
    labels = [x for x in (spec.requires_labels if spec else ()) if x not in schema.labels]
    rels = [x for x in (spec.requires_rel_types if spec else ()) if x not in schema.rel_types]
    if not labels and not rels:
        return ""
    graph = graph_name or schema.profile.short_name
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
    emit(StatusEvent(agent, reason))
    report = report_type(notes=[reason])
    emit(event_type(agent, report))
    return report


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
          graph_name: str = "", facts: Mapping[str, Any] | None = None) -> RoutingDecision:
    """Decide which agents run: each registered agent's rule (:mod:`engram_kit.agents.registry`), in display order.

    Parameters
    ----------
    question : the question (its cue words decide whether a disease asks for drug repurposing).
    entities : resolved question entities.
    memory_entities : entities carried over from session memory.
    binder_counts : gene node id -> number of compounds binding it (``BINDS_CbG``); genes absent count 0.
        Shorthand for ``facts={"binder_counts": ...}``.
    schema : the graph's schema (default Hetionet v1.0): agents whose labels or relationship types it lacks are
        listed as not applicable; agents its profile does not list are left out.
    graph_name : the graph's display name for those reasons (``"Monarch KG sample"``).
    facts : facts gathered by the specs' ``facts`` hooks (see :class:`~engram_kit.agents.registry.RoutingInput`).

    Returns
    -------
    RoutingDecision
        One :class:`Route` per listed agent, then ``synthesis``; on Hetionet the phenotype agent is not listed
        (the pathway and drug agents cover it).
    """
    schema = require_schema(schema, "route()")
    merged: dict[str, Any] = dict(facts or {})
    if binder_counts is not None:
        merged["binder_counts"] = binder_counts
    seen = RoutingInput(question, tuple(entities), tuple(memory_entities), merged, schema, graph_name)
    routes: list[Route] = []
    for spec in agent_specs():
        if not schema.profile.lists_agent(spec.name):
            continue
        reason = not_applicable(spec.name, schema, graph_name)  # "" when the graph has what it reads
        routes.append(Route(spec.name, False, (reason,)) if reason else spec.route(seen))
    routes.append(Route("synthesis", True, ("always: merges what the other agents returned",)))
    return RoutingDecision(routes)


# --- the built-in agents' routing rules (registered in engram_kit.agents.builtin) ----------------------------
def literature_route(seen: RoutingInput) -> Route:
    """The literature agent always runs."""
    return Route("literature", True, ("always: PPR retrieval over the literature and a cited answer",))


def pathway_route(seen: RoutingInput) -> Route:
    """Pathway / Biological Process entities, or any Gene."""
    reasons = [f"{_label(e, m)} is a pathway-level entity" for e, m in seen.pick(*PATHWAY_KINDS)]
    reasons += [f"{_label(e, m)} is a gene: its pathways and paths" for e, m in seen.pick("Gene")]
    return Route("pathway", bool(reasons), tuple(reasons) or ("no Pathway, Biological Process or Gene entity",))


def drug_route(seen: RoutingInput) -> Route:
    """Compounds; genes with binders; genes without binders or diseases when the question asks for compounds."""
    binder_counts: Mapping[str, int] = seen.facts.get("binder_counts") or {}
    drug_reasons: list[str] = []
    drug_notes: list[str] = []
    drug_reasons += [f"{_label(e, m)} is a compound" for e, m in seen.pick("Compound")]
    wants_drugs = asked_kind(seen.question) == "Compound"
    for e, m in seen.pick("Gene"):
        n = int(binder_counts.get(e.node_id, 0))
        text = f"{_label(e, m)} has {n} known binder{'s' if n != 1 else ''} (BINDS_CbG)"
        if not n and wants_drugs:
            drug_reasons.append(text + " and the question asks for compounds: indirect links via regulation "
                                       "and pathways")
        else:
            (drug_reasons if n else drug_notes).append(text)
    for e, m in seen.pick("Disease"):
        if wants_drugs:
            drug_reasons.append(f"{_label(e, m)} is a disease and the question asks for compounds: repurposing")
        else:
            drug_notes.append(f"{_label(e, m)} is a disease but the question does not ask for compounds")
    return Route("drug", bool(drug_reasons),
                 tuple(drug_reasons + drug_notes) or ("no Compound, bound Gene or drug-seeking Disease",))


def phenotype_route(seen: RoutingInput) -> Route:
    """A Gene, Disease or PhenotypicFeature entity (on graphs with PhenotypicFeature nodes)."""
    phenotype = [f"{_label(e, m)}: {PHENOTYPE_REASONS[e.kind]}" for e, m in seen.pick(*PHENOTYPE_KINDS)]
    return Route("phenotype", bool(phenotype),
                 tuple(phenotype) or ("no Gene, Disease or PhenotypicFeature entity",))
