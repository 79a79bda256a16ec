"""The agent registry: one :class:`AgentSpec` per domain agent, found by name.

Everything that iterates over agents -- routing, the orchestrator, :class:`~engram_kit.agents.InvestigationResult`,
run bundles, synthesis and the notebook widgets -- reads this registry instead of naming agents. A spec
says how to build the agent, when it runs (its routing rule), which report type it returns and which event
carries that report, how synthesis titles its findings and how a notebook renders its report.

Adding an agent is one new module (the agent class, its report dataclass with ``findings`` and
``to_dict()``, its event class) plus one registration line in :data:`engram_kit.plugins.agents` (or an entry point
in the group ``engram_kit.agents``)::

    plugins.agents.register("toy", AgentSpec("toy", ToyAgent, ToyReport, ToyEvent, route=toy_route,
                                             heading="From the toy"))

The built-in agents' specs are defined in :mod:`engram_kit.agents.builtin` and registered lazily in
:mod:`engram_kit.plugins` (listing their names imports no agent).
Synthesis is not a domain agent: it always runs last, over the registered agents' reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engram_kit import plugins
from engram_kit.agents.events import Event
from engram_kit.errors import EngramError

if TYPE_CHECKING:
    from engram_kit.agents.base import Agent
    from engram_kit.agents.graph import GraphQueries
    from engram_kit.agents.route import Route
    from engram_kit.answering import Claim
    from engram_kit.kg.schema import GraphSchema
    from engram_kit.retrieval.results import ResolvedEntity


@dataclass(frozen=True)
class RoutingInput:
    """What a routing rule sees for one question.

    Attributes
    ----------
    question : the question text (cue words such as "drug", "treat" decide some routes).
    entities : resolved question entities.
    memory_entities : entities carried over from session memory (used when the question names none of a kind).
    facts : per-agent facts gathered before routing by the specs' ``facts`` hooks (e.g. ``"binder_counts"``:
        gene node id -> number of compounds binding it).
    schema : the graph's schema; ``graph_name`` its display name.
    """

    question: str
    entities: Sequence[ResolvedEntity]
    memory_entities: Sequence[ResolvedEntity] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)
    schema: GraphSchema | None = None
    graph_name: str = ""

    def pick(self, *kinds: str) -> list[tuple[ResolvedEntity, bool]]:
        """``(entity, from_memory)`` for question entities of ``kinds``; memory entities of those kinds when the
        question has none."""
        found = [(e, False) for e in self.entities if e.kind in kinds]
        return found or [(e, True) for e in self.memory_entities if e.kind in kinds]


def findings_of(report: Any) -> list[Claim]:
    """A report's cited claims: ``report.findings`` (the report protocol of every domain agent)."""
    return list(report.findings)


def render_findings(report: Any) -> str:
    """Markdown list of a report's findings with their citation labels (the default renderer)."""
    lines = [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]" for c in findings_of(report)]
    return "\n".join(lines) or "_no findings_"


def _no_facts(graph: GraphQueries, entities: Sequence[ResolvedEntity]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class AgentSpec:
    """One registered agent.

    Attributes
    ----------
    name : the agent's name (event ``agent`` field, routing row, result key); a plain identifier.
    factory : builds the agent (a class with ``name`` and ``run(context, emit) -> report``).
    report_type : the class of the report ``run`` returns.
    event_type : the event class that carries the report (its ``type`` is a string such as ``"drug"``).
    route : routing rule: :class:`RoutingInput` -> :class:`~engram_kit.agents.routing.Route` (``runs`` and
        the reasons shown to the user).
    heading : how synthesis titles this agent's findings ("From compounds and targets").
    order : position in routing tables, results and synthesis (ascending; ties by registration order).
    claims : a report's cited claims (default :func:`findings_of`).
    render : Markdown of a report for notebooks (default :func:`render_findings`).
    facts : optional hook gathering graph facts before routing, merged into :attr:`RoutingInput.facts`.
    requires_labels, requires_rel_types : node labels / relationship types the agent reads; on a graph
        lacking them routing lists the agent as "not applicable" instead of running it.
    """

    name: str
    factory: Callable[[], Agent]
    report_type: type
    event_type: type[Event]
    route: Callable[[RoutingInput], Route]
    heading: str = ""
    order: int = 100
    claims: Callable[[Any], list[Claim]] = findings_of
    render: Callable[[Any], str] = render_findings
    facts: Callable[[GraphQueries, Sequence[ResolvedEntity]], Mapping[str, Any]] = _no_facts
    requires_labels: tuple[str, ...] = ()
    requires_rel_types: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise EngramError(f"Agent name {self.name!r} is not a plain identifier; use e.g. 'toy_agent'.")
        if not self.heading:
            object.__setattr__(self, "heading", f"From the {self.name} agent")


#: Names that are not domain agents (synthesis runs last over the others; the router emits status events).
RESERVED = plugins.agents.reserved


def _check_spec(name: str, obj: object) -> None:
    """:attr:`engram_kit.plugins.Registry.validate` of the agents: an :class:`AgentSpec` of the same name."""
    if not isinstance(obj, AgentSpec) or obj.name != name:
        raise plugins.PluginError(f"The agent {name!r} must be an AgentSpec named {name!r}; got {obj!r}.")


plugins.agents.validate = _check_spec


def register_agent(spec: AgentSpec, *, replace: bool = False) -> AgentSpec:
    """Deprecated alias of ``plugins.agents.register(spec.name, spec, ...)``; returns ``spec``.

    Raises
    ------
    PluginError
        If the name is reserved (``synthesis``, ``router``), or already registered and ``replace`` is False.
    """
    return plugins.agents.register(spec.name, spec, description=spec.heading, replace=replace)


def unregister_agent(name: str) -> None:
    """Remove the agent registered as ``name`` (tests); unknown names are ignored."""
    plugins.agents.unregister(name)


def agent_specs() -> list[AgentSpec]:
    """Registered agents in display order (``order``, then registration order); imports every agent module."""
    specs: list[AgentSpec] = [plugins.agents.get(name) for name in plugins.agents.names()]
    ranked = sorted(enumerate(specs), key=lambda item: (item[1].order, item[0]))
    return [spec for _, spec in ranked]


def agent_spec(name: str) -> AgentSpec:
    """The spec registered as ``name``.

    Raises
    ------
    PluginError
        If no agent of that name is registered (the message lists the registered ones).
    """
    spec: AgentSpec = plugins.agents.get(name)
    return spec


def registered(name: str) -> AgentSpec | None:
    """The spec registered as ``name``, or None."""
    return agent_spec(name) if name in plugins.agents else None


def agent_names() -> list[str]:
    """Names of the registered agents in display order."""
    return [spec.name for spec in agent_specs()]


def spec_for_event(event_type: str) -> AgentSpec | None:
    """The agent whose report event has type ``event_type`` (``"drug"``), or None."""
    return next((s for s in agent_specs() if s.event_type.type == event_type), None)
