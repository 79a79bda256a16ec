"""Automatic, visible routing: which agents run for a question, and why.

Rules (from the resolved entity kinds; memory entities count when the question names no entity of
that kind, and are marked "from memory"):

* **literature** always runs (PPR retrieval over the literature + answer composer).
* **pathway** runs for a Pathway or Biological Process entity, or for any Gene.
* **drug** runs for a Compound entity; for a Gene with known binders (at least one ``BINDS_CbG``
  edge); and for a Gene without binders or a Disease when the question asks for compounds ("drug",
  "compound", "treatment"..., see :data:`engram_kit.answering.extractive.KIND_CUES`): indirect links,
  and drug repurposing for the disease.
* **synthesis** always runs last and merges what the others returned.

A gene without binders does not trigger the drug agent and the decision says so, so the user sees why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from engram_kit.answering.extractive import asked_kind
from engram_kit.retrieval.results import ResolvedEntity

#: Agent names in the order their results are shown.
AGENT_ORDER: tuple[str, ...] = ("literature", "pathway", "drug", "synthesis")
PATHWAY_KINDS: tuple[str, ...] = ("Pathway", "Biological Process")


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
          binder_counts: Mapping[str, int] | None = None) -> RoutingDecision:
    """Decide which agents run (see the module docstring for the rules).

    Parameters
    ----------
    question : the question (its cue words decide whether a disease asks for drug repurposing).
    entities : resolved question entities.
    memory_entities : entities carried over from session memory.
    binder_counts : gene node id -> number of compounds binding it (``BINDS_CbG``); genes absent count 0.

    Returns
    -------
    RoutingDecision
        One :class:`Route` per agent of :data:`AGENT_ORDER`.
    """
    binder_counts = binder_counts or {}

    def pick(*kinds: str) -> list[tuple[ResolvedEntity, bool]]:
        found = [(e, False) for e in entities if e.kind in kinds]
        return found or [(e, True) for e in memory_entities if e.kind in kinds]

    routes = [Route("literature", True, ("always: PPR retrieval over the literature and a cited answer",))]

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
    routes.append(Route("synthesis", True, ("always: merges what the other agents returned",)))
    return RoutingDecision(routes)
