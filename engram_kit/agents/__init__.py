"""Agents: a question fans out to specialised agents whose cited findings are merged into one answer.

* :mod:`~engram_kit.agents.registry` -- the registered agents (name, routing rule, report and event type,
  renderer), in :data:`engram_kit.plugins.agents`; :mod:`~engram_kit.agents.builtin` defines the built-in ones;
* :mod:`~engram_kit.agents.routing` -- which agents run, and why (visible to the user);
* :mod:`~engram_kit.agents.literature`, :mod:`~engram_kit.agents.pathway`, :mod:`~engram_kit.agents.drug`
  (Hetionet metaedges), :mod:`~engram_kit.agents.phenotype` (Biolink graphs) -- the domain agents;
  :mod:`~engram_kit.agents.synthesis` merges them;
* :mod:`~engram_kit.agents.investigate` -- concurrent runs as a stream of typed events
  (:mod:`~engram_kit.agents.events`) and the collected :class:`InvestigationResult`;
* :mod:`~engram_kit.agents.session` -- multi-turn sessions with memory (:mod:`engram_kit.memory`).

Examples
--------
>>> result = ws.run_agents("Which compounds could be repurposed for Alzheimer's disease via BACE1?")  # doctest: +SKIP
>>> print(result.routing.describe())                                                            # doctest: +SKIP
"""

from engram_kit.agents import builtin as builtin  # the built-in specs (registered lazily in engram_kit.plugins)
from engram_kit.agents.base import AgentContext
from engram_kit.agents.drug import CompoundComparison, DrugAgent, DrugReport, Repurposing, auroc
from engram_kit.agents.events import (
    EVENT_TYPES,
    AgentsDoneEvent,
    AnswerChunkEvent,
    DoneEvent,
    DrugEvent,
    ErrorEvent,
    Event,
    PassagesEvent,
    PathwayEvent,
    PhenotypeEvent,
    ResolvedEvent,
    StatusEvent,
    SynthesisEvent,
)
from engram_kit.agents.graph import GraphPath, GraphQueries, LockedStore, QueryRecord, evidence_citation
from engram_kit.agents.investigate import InvestigationResult, Investigator, iterate_in_thread
from engram_kit.agents.literature import LiteratureAgent
from engram_kit.agents.options import AgentOptions
from engram_kit.agents.pathway import PathwayAgent, PathwayOverlap, PathwayReport, jaccard
from engram_kit.agents.registry import (
    AgentSpec,
    RoutingInput,
    agent_names,
    agent_spec,
    agent_specs,
    register_agent,
    unregister_agent,
)
from engram_kit.agents.phenotype import PhenotypeAgent, PhenotypeReport
from engram_kit.agents.routing import Route, RoutingDecision, not_applicable, route
from engram_kit.agents.session import Session
from engram_kit.agents.synthesis import SynthesisAgent, SynthesisReport, validate_paragraph

__all__ = [
    "AgentContext", "AgentOptions", "AgentSpec", "RoutingInput", "agent_names", "agent_spec", "agent_specs",
    "register_agent", "unregister_agent", "AgentsDoneEvent", "AnswerChunkEvent", "CompoundComparison", "DoneEvent",
    "DrugAgent", "DrugEvent", "DrugReport", "EVENT_TYPES", "ErrorEvent", "Event", "GraphPath", "GraphQueries",
    "InvestigationResult", "Investigator", "LiteratureAgent", "LockedStore", "PassagesEvent", "PathwayAgent",
    "PathwayEvent", "PathwayOverlap", "PathwayReport", "PhenotypeAgent", "PhenotypeEvent", "PhenotypeReport",
    "QueryRecord", "Repurposing", "ResolvedEvent", "Route", "RoutingDecision", "Session", "StatusEvent",
    "SynthesisAgent", "SynthesisEvent", "SynthesisReport", "auroc", "evidence_citation", "iterate_in_thread",
    "jaccard", "not_applicable", "route", "validate_paragraph",
]
