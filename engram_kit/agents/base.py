"""What every agent receives (:class:`AgentContext`) and the small protocol it implements.

An agent is a class with a ``name`` and a synchronous ``run(context, emit)`` that returns a report
dataclass (with ``findings``: a list of :class:`~engram_kit.answering.Claim`, each citing evidence).
The orchestrator (:mod:`engram_kit.agents.investigate`) runs agents concurrently in worker threads;
``emit`` sends progressive events (passages, answer chunks) to the event stream from that thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engram_kit.agents.events import Event
from engram_kit.agents.graph import GraphQueries
from engram_kit.agents.options import AgentOptions
from engram_kit.retrieval.results import ResolvedEntity

if TYPE_CHECKING:
    from engram_kit.answering import AnswerComposer
    from engram_kit.llm.base import LLM
    from engram_kit.retrieval.retriever import Retriever
    from engram_kit.settings import Settings

#: Callback an agent uses to stream an event (thread-safe; provided by the orchestrator).
Emit = Callable[[Event], None]


@dataclass
class AgentContext:
    """Everything an agent may use for one question.

    Attributes
    ----------
    question : the user's question.
    entities : question entities resolved to graph nodes (the PPR seeds), by decreasing seed weight.
    memory_entities : entities carried over from session memory (``seed_weight`` = their memory seed
        weight); agents use them when the question itself names no entity of the kind they need.
    memory_seeds : node id -> extra PPR seed weight from session memory (see :mod:`engram_kit.memory`).
    graph : typed graph queries and shortest paths (records every query).
    retriever, composer : the workspace's retrieval and answer composition (literature agent).
    llm : an LLM provider, or None for the offline, extractive path.
    options : agent parameters.
    damping : PPR damping of the workspace (probability of following an edge, in (0, 1)).
    settings : the workspace's :class:`~engram_kit.settings.Settings` (None in unit tests that build a context
        by hand). Agents get this narrow context, never the workspace.
    """

    question: str
    entities: list[ResolvedEntity]
    graph: GraphQueries
    retriever: Retriever
    composer: AnswerComposer
    llm: LLM | None = None
    memory_entities: list[ResolvedEntity] = field(default_factory=list)
    memory_seeds: dict[str, float] = field(default_factory=dict)
    options: AgentOptions = field(default_factory=AgentOptions)
    damping: float = 0.5
    settings: Settings | None = None

    def of_kind(self, *kinds: str, with_memory: bool = True) -> list[ResolvedEntity]:
        """Question entities of the given Hetionet kinds; memory entities of those kinds when the
        question has none (so "Which drugs target it?" works on the gene of the previous turn)."""
        found = [e for e in self.entities if e.kind in kinds]
        if not found and with_memory:
            found = [e for e in self.memory_entities if e.kind in kinds]
        return found


class Agent(Protocol):
    """An agent: ``name`` (event ``agent`` field) and a blocking ``run`` returning its report."""

    name: str

    def run(self, context: AgentContext, emit: Emit) -> Any:
        ...
