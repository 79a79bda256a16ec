"""Run the agents for one question, concurrently, as a stream of typed events.

:class:`Investigator` resolves the question's entities, routes (:func:`engram_kit.agents.routing.route`),
runs the routed agents concurrently (each in a worker thread via :func:`asyncio.to_thread`; store calls
are serialised by :class:`~engram_kit.agents.graph.LockedStore`, the CPU-bound parts such as PPR and
embedding overlap), then runs synthesis, streaming events as they happen
(:mod:`engram_kit.agents.events`). A failing agent yields an ``error`` event; the others finish.

Three ways in:

* ``async for event in investigator.events(question)`` -- in asyncio code;
* ``for event in investigator.iter_events(question)`` -- synchronous, also inside Jupyter, where an
  event loop is already running: the asyncio loop runs in a worker thread and events cross over a queue;
* ``investigator.run(question)`` (or :meth:`Workspace.run_agents`) -- the collected
  :class:`InvestigationResult`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.agents.base import Agent, AgentContext
from engram_kit.agents.events import (
    AgentsDoneEvent,
    Event,
    ErrorEvent,
    ResolvedEvent,
    StatusEvent,
)
from engram_kit.agents.graph import GraphQueries, LockedStore, QueryRecord
from engram_kit.agents.options import AgentOptions
from engram_kit.agents.registry import agent_names, agent_specs, findings_of, registered
from engram_kit.agents.routing import RoutingDecision, route
from engram_kit.agents.synthesis import SynthesisAgent, SynthesisReport
from engram_kit.answering import AnswerComposer, Claim, ExtractiveComposer
from engram_kit.errors import QueryError
from engram_kit.retrieval.results import ResolvedEntity
from engram_kit.retrieval.retriever import Retriever

if TYPE_CHECKING:
    from engram_kit.llm.base import LLM
    from engram_kit.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass
class InvestigationResult:
    """Everything one investigation produced (the collected event stream plus its trail).

    Attributes
    ----------
    entities, unresolved : resolved question entities (PPR seeds) and mentions that did not resolve.
    memory_seeds : node id -> extra PPR seed weight from session memory (empty without a session).
    routing : which agents ran and why.
    reports : agent name -> its report (the literature agent's is an :class:`~engram_kit.answering.Answer`), for
        every agent that ran and succeeded, registered (:mod:`engram_kit.agents.registry`) or injected. Read one
        with :meth:`report` or as an attribute: ``result.drug`` is ``result.report("drug")`` (None if it did
        not run or failed).
    synthesis : the merged answer, None if synthesis failed.
    errors : ``error`` events of failed agents.
    timings : seconds per agent (``literature``...), ``resolve`` and ``total``.
    queries : every graph query the agents ran, with its rows (``q1``, ``q2``...).
    llm : provider name of the LLM used, or None (offline).
    memory_entities : remembered entities the agents could fall back on (session memory).
    """

    question: str
    entities: list[ResolvedEntity]
    unresolved: list[str]
    memory_seeds: dict[str, float]
    routing: RoutingDecision
    reports: dict[str, Any] = field(default_factory=dict)
    synthesis: SynthesisReport | None = None
    errors: list[ErrorEvent] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    queries: list[QueryRecord] = field(default_factory=list)
    llm: str | None = None
    options: AgentOptions = field(default_factory=AgentOptions)
    memory_entities: list[ResolvedEntity] = field(default_factory=list)

    def report(self, agent: str) -> Any:
        """The report of ``agent``, or None if it did not run or failed."""
        return self.reports.get(agent)

    def __getattr__(self, name: str) -> Any:
        # ``result.drug``: a registered agent's report by name (None when it did not run).
        if not name.startswith("_") and name != "reports" and registered(name) is not None:
            return self.reports.get(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def ordered_reports(self) -> list[tuple[str, Any]]:
        """(agent, report) in registry display order, then injected agents' reports in the order they finished."""
        names = [n for n in agent_names() if n in self.reports] + [n for n in self.reports if registered(n) is None]
        return [(n, self.reports[n]) for n in names]

    def agent_claims(self) -> list[tuple[str, Claim]]:
        """(agent, claim) for every claim of every agent in display order, then the LLM synthesis's claims."""
        out: list[tuple[str, Claim]] = []
        for agent, report in self.ordered_reports():
            spec = registered(agent)
            claims = spec.claims(report) if spec is not None else findings_of(report)
            out += [(agent, c) for c in claims]
        if self.synthesis is not None:
            out += [("synthesis", c) for c in self.synthesis.claims] if self.synthesis.mode != "deterministic" else []
        return out

    def claims_frame(self) -> pd.DataFrame:
        """One row per (agent, claim, citation): ``agent, claim, kind, label, ref``."""
        rows = [{"agent": agent, "claim": c.text, "kind": x.kind, "label": x.label, "ref": x.ref}
                for agent, c in self.agent_claims() for x in c.citations]
        return pd.DataFrame(rows, columns=["agent", "claim", "kind", "label", "ref"])

    def entities_frame(self) -> pd.DataFrame:
        return pd.DataFrame([asdict(e) for e in self.entities],
                            columns=list(ResolvedEntity.__dataclass_fields__))

    @property
    def text(self) -> str:
        return self.to_markdown()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_frame(self) -> pd.DataFrame:
        """Every claim of every agent with its citations (= :meth:`claims_frame`)."""
        return self.claims_frame()

    def to_markdown(self) -> str:
        """The answer as Markdown: the answer line and its exact items (from the synthesis), routing, each agent's
        findings with citations, then the synthesis."""
        lines = [f"## {self.question}", ""]
        if self.synthesis is not None and self.synthesis.headline:  # the answer first: names, or yes / no
            lines += [f"**Answer:** {self.synthesis.headline}", ""]
            lines += [f"- {x.text} ({x.score:.2f}) [{'; '.join(c.label for c in x.citations)}]"
                      for x in self.synthesis.exact[: self.options.max_items]]
            lines += [""] if self.synthesis.exact else []
        lines += ["**Routing**", ""]
        lines += [f"- {r.agent}: {'ran' if r.runs else 'skipped'} — {'; '.join(r.reasons)}" for r in self.routing.routes]
        if self.memory_seeds:
            lines += ["", "Session memory seeds: " + ", ".join(f"{k} ({v:.2f})" for k, v in self.memory_seeds.items())]
        claims_by_agent: dict[str, list[Claim]] = {}
        for agent, claim in self.agent_claims():
            claims_by_agent.setdefault(agent, []).append(claim)
        for agent, _ in self.ordered_reports():
            claims = claims_by_agent.get(agent, [])
            if claims:
                lines += ["", f"**{agent.capitalize()} agent**", ""]
                lines += [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]" for c in claims]
            if agent == "literature" and self.literature is not None and self.literature.notes:
                lines += [f"> {note}" for note in self.literature.notes]
            if agent == "drug" and self.drug is not None:
                for rep in self.drug.repurposing:  # the candidate table, not only the one-line finding
                    lines += ["", rep.to_markdown(self.options.max_items)]
        for error in self.errors:
            lines += ["", f"> {error.agent} agent failed: {error.error_type}: {error.message}"]
        if self.synthesis is not None:
            lines += ["", f"**Synthesis** ({self.synthesis.mode}; {self.synthesis.withheld} claim(s) withheld)", "",
                      self.synthesis.text]
            if self.synthesis.findings:
                lines += [""] + [f"[{f.label}] {'; '.join(c.label + ' ' + c.ref for c in f.claim.citations)}"
                                 for f in self.synthesis.findings]
        return "\n".join(lines).strip()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``reports`` holds each agent's ``to_dict()`` by name (every registered agent is also a
        top-level key, None when it did not run, as in earlier versions)."""
        reports = {name: report.to_dict() for name, report in self.ordered_reports()}
        return {
            "question": self.question, "entities": [asdict(e) for e in self.entities], "unresolved": self.unresolved,
            "memory_seeds": self.memory_seeds, "routing": self.routing.to_dict(),
            **{name: reports.get(name) for name in agent_names()}, "reports": reports,
            "synthesis": self.synthesis.to_dict() if self.synthesis else None,
            "errors": [e.to_dict() for e in self.errors], "timings": self.timings,
            "queries": [q.to_dict() for q in self.queries], "llm": self.llm, "options": self.options.to_dict(),
        }


def default_agents() -> dict[str, Agent]:
    """One instance of every registered domain agent, by name (synthesis is run separately, last)."""
    return {spec.name: spec.factory() for spec in agent_specs()}


_FINISHED = object()


class Investigator:
    """Runs the agents of one workspace (see the module docstring).

    Parameters
    ----------
    workspace : an open :class:`~engram_kit.workspace.Workspace` (read-only is fine).
    llm : an LLM provider (:class:`engram_kit.llm.LLM`) or None for the offline path.
    options : agent parameters (:class:`AgentOptions`).
    composer : answer composer of the literature agent; default: the workspace's, else an LLM composer
        when ``llm`` is given and :mod:`engram_kit.answering.llm` is installed, else extractive.
    agents : replace or add domain agents by name (tests inject a failing one this way).
    """

    def __init__(self, workspace: Workspace, *, llm: LLM | None = None, options: AgentOptions | None = None,
                 composer: AnswerComposer | None = None, agents: Mapping[str, Agent] | None = None) -> None:
        self.workspace = workspace
        self.llm = llm
        self.options = options or AgentOptions()
        self.agents = {**default_agents(), **(agents or {})}
        self.synthesis = SynthesisAgent()
        self._composer = composer
        self._store = LockedStore(workspace.store)

    @property
    def graph_name(self) -> str:
        """The knowledge graph's display name (workspace manifest ``knowledge_graph.name``; ``""`` if unknown)."""
        return str(self.workspace.manifest.get("knowledge_graph", {}).get("name", ""))

    # --- parts -------------------------------------------------------------------------------------
    def composer(self) -> AnswerComposer:
        if self._composer is not None:
            return self._composer
        if self.workspace.composer is not None:
            return self.workspace.composer
        if self.llm is not None:
            try:
                from engram_kit.answering.llm import LLMComposer  # item 1 of issue 5; optional
            except ImportError:
                log.info("engram_kit.answering.llm is not available; the literature agent stays extractive")
            else:
                return LLMComposer(self.llm)
        from engram_kit.answering.facts import GraphFacts

        return ExtractiveComposer(self.workspace.embedder, facts=GraphFacts(self._store))

    def retriever(self) -> Retriever:
        """The workspace's retriever (its PPR engine: GDS on Neo4j, else CSR) reading through the locked store."""
        return self.workspace.retriever(store=self._store)

    # --- the event stream ----------------------------------------------------------------------------
    async def events(self, question: str, *, memory_seeds: Mapping[str, float] | None = None,
                     memory_entities: Sequence[ResolvedEntity] = (),
                     sink: dict[str, Any] | None = None) -> AsyncIterator[Event]:
        """Investigate ``question``, yielding events as agents progress (order: module docstring of
        :mod:`engram_kit.agents.events`).

        Parameters
        ----------
        memory_seeds : node id -> extra PPR seed weight (>= 0) from session memory.
        memory_entities : entities carried over from memory, used by routing and agents when the
            question names no entity of the kind they need.
        sink : if given, receives ``sink["result"]``: the :class:`InvestigationResult`.

        Raises
        ------
        QueryError
            Empty or over-long question (before any event).
        """
        question = (question or "").strip()
        if not question:
            raise QueryError("The question is empty; ask something, e.g. 'Which compounds target BACE1?'.")
        started = time.perf_counter()
        timings: dict[str, float] = {}
        yield StatusEvent("router", "resolving entities")
        retriever = self.retriever()
        index = await asyncio.to_thread(self.workspace.graph_index)
        graph = GraphQueries(self._store, await asyncio.to_thread(self.workspace.csr_graph),
                             graph_name=self.graph_name)
        schema = graph.schema
        t0 = time.perf_counter()
        entities, unresolved = await asyncio.to_thread(retriever.resolve_question, question, index)
        memory_entities = [e for e in memory_entities if e.node_id not in {x.node_id for x in entities}]
        facts: dict[str, Any] = {}
        for spec in agent_specs():  # graph facts the routing rules need (the drug agent's binder counts)
            facts.update(await asyncio.to_thread(spec.facts, graph, [*entities, *memory_entities]))
        routing = route(question, entities, memory_entities, schema=schema, graph_name=graph.graph_name, facts=facts)
        timings["resolve"] = time.perf_counter() - t0
        seeds = {k: float(v) for k, v in (memory_seeds or {}).items() if v > 0}
        yield ResolvedEvent("router", tuple(entities), tuple(unresolved), seeds, routing)

        settings = self.workspace.settings
        context = AgentContext(question, entities, graph, retriever, self.composer(), self.llm,
                               list(memory_entities), seeds, self.options, settings.damping, settings)
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[Any] = asyncio.Queue()

        def emit(event: Event) -> None:
            loop.call_soon_threadsafe(inbox.put_nowait, event)

        results: dict[str, Any] = {}
        errors: list[ErrorEvent] = []

        async def run_one(name: str, call: Callable[[], Any]) -> None:
            t = time.perf_counter()
            try:
                results[name] = await asyncio.to_thread(call)
            except Exception as exc:  # an agent's failure is reported as an event; the others go on
                log.warning("%s agent failed: %s", name, exc, exc_info=log.isEnabledFor(logging.DEBUG))
                error = ErrorEvent(name, type(exc).__name__, str(exc))
                errors.append(error)
                inbox.put_nowait(error)
            finally:
                timings[name] = time.perf_counter() - t
                inbox.put_nowait(_FINISHED)

        names = [n for n in routing.agents if n in self.agents] + [n for n in self.agents if registered(n) is None]
        for name in names:
            agent = self.agents[name]
            asyncio.ensure_future(run_one(name, functools.partial(agent.run, context, emit)))
        async for event in _drain(inbox, len(names)):
            yield event

        asyncio.ensure_future(run_one("synthesis", lambda: self.synthesis.run(context, emit, results)))
        async for event in _drain(inbox, 1):
            yield event

        timings["total"] = time.perf_counter() - started
        reports = {n: results[n] for n in names if n in results}
        result = InvestigationResult(
            question, entities, unresolved, seeds, routing, reports, results.get("synthesis"), errors,
            {k: round(v, 4) for k, v in timings.items()}, list(graph.records),
            self.llm.name if self.llm is not None else None, self.options, list(memory_entities))
        if sink is not None:
            sink["result"] = result
        yield AgentsDoneEvent("router", tuple(n for n in [*names, "synthesis"] if n in results),
                              tuple(e.agent for e in errors), dict(result.timings))

    def iter_events(self, question: str, **kwargs: Any) -> Iterator[Event]:
        """Synchronous version of :meth:`events` (works inside Jupyter: see the module docstring)."""
        return iterate_in_thread(lambda: self.events(question, **kwargs))

    def run(self, question: str, **kwargs: Any) -> InvestigationResult:
        """Investigate and return the collected :class:`InvestigationResult` (blocking)."""
        sink: dict[str, Any] = {}
        for _ in iterate_in_thread(lambda: self.events(question, sink=sink, **kwargs)):
            pass
        return sink["result"]


async def _drain(inbox: asyncio.Queue[Any], tasks: int) -> AsyncIterator[Event]:
    finished = 0
    while finished < tasks:
        item = await inbox.get()
        if item is _FINISHED:
            finished += 1
        else:
            yield item
    while not inbox.empty():  # events emitted just before the last task finished
        item = inbox.get_nowait()
        if item is not _FINISHED:
            yield item


class _Failure:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def iterate_in_thread(factory: Callable[[], AsyncIterator[Event]]) -> Iterator[Event]:
    """Iterate an async generator from synchronous code by running its event loop in a worker thread.

    Works whether or not the calling thread already runs an event loop (Jupyter does). Exceptions of
    the generator are re-raised in the caller.
    """
    channel: queue.Queue[Any] = queue.Queue()
    done = object()

    def worker() -> None:
        async def pump() -> None:
            async for event in factory():
                channel.put(event)
        try:
            asyncio.run(pump())
        except BaseException as exc:  # re-raised in the consuming thread
            channel.put(_Failure(exc))
        finally:
            channel.put(done)

    thread = threading.Thread(target=worker, name="engram-investigate", daemon=True)
    thread.start()
    try:
        while True:
            item = channel.get()
            if item is done:
                break
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        thread.join(timeout=60)
