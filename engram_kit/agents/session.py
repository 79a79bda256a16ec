"""A multi-turn research session: investigations biased by working memory, with long-term memory.

Each turn: the working-memory seeds (:meth:`engram_kit.memory.WorkingMemory.seeds`, total weight
``memory_weight``) join the question's PPR seeds, remembered entities stand in for a question that names
none ("Which drugs target it?"), then the turn's question entities and synthesis findings are written
back to working memory and the consolidation rule updates long-term memory (``<workspace>/memory.json``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.agents.events import AgentsDoneEvent, Event
from engram_kit.agents.investigate import InvestigationResult, Investigator, iterate_in_thread
from engram_kit.agents.options import AgentOptions
from engram_kit.answering import Claim
from engram_kit.memory import (
    LongTermMemory,
    MemoryFinding,
    WorkingMemory,
)
from engram_kit.retrieval.results import ResolvedEntity

if TYPE_CHECKING:
    from engram_kit.llm.base import LLM
    from engram_kit.workspace import Workspace


class Session:
    """Multi-turn investigations over one workspace (see the module docstring).

    Parameters
    ----------
    workspace : an open workspace.
    llm : LLM provider or None (offline).
    memory_weight : total PPR seed weight of working memory relative to the question's seeds (which sum
        to 1), >= 0; default ``Settings.memory_seed_weight`` of the workspace (0.5), 0 turns memory off.
    half_life_turns : working-memory half-life in turns (default ``Settings.memory_half_life_turns``, 2).
    long_term_weight : seed weight of long-term entities, >= 0 (default 0: off).
    consolidate_after : turns naming an entity before it is consolidated into long-term memory (default
        ``Settings.memory_consolidate_after``, 3).
    options : agent parameters.
    """

    def __init__(self, workspace: Workspace, *, llm: LLM | None = None, memory_weight: float | None = None,
                 half_life_turns: float | None = None, long_term_weight: float = 0.0,
                 consolidate_after: int | None = None, options: AgentOptions | None = None) -> None:
        settings = workspace.settings
        self.workspace = workspace
        self.investigator = Investigator(workspace, llm=llm, options=options)
        self.memory_weight = float(settings.memory_seed_weight if memory_weight is None else memory_weight)
        self.long_term_weight = float(long_term_weight)
        self.consolidate_after = int(settings.memory_consolidate_after if consolidate_after is None
                                     else consolidate_after)
        self.memory = WorkingMemory(settings.memory_half_life_turns if half_life_turns is None else half_life_turns,
                                    settings.memory_forget_below)
        self.long_term = LongTermMemory.load(workspace.path)
        self.history: list[InvestigationResult] = []

    # --- memory in, memory out -------------------------------------------------------------------------
    def memory_seeds(self) -> dict[str, float]:
        """Extra PPR seeds for the next turn: working memory plus (if enabled) long-term entities."""
        seeds = self.memory.seeds(self.memory_weight)
        for node_id, weight in self.long_term.seeds(self.long_term_weight).items():
            seeds[node_id] = seeds.get(node_id, 0.0) + weight
        return seeds

    def memory_entities(self) -> list[ResolvedEntity]:
        """Remembered entities, strongest first, as resolved entities (``method="memory"``)."""
        seeds = self.memory_seeds()
        out = [ResolvedEntity(e.name, 0, 0, e.node_id, e.name, e.kind, 1.0, "memory", seeds.get(e.node_id, 0.0))
               for e in sorted(self.memory.entities.values(), key=lambda e: -e.strength)]
        known = {e.node_id for e in out}
        out += [ResolvedEntity(v["name"], 0, 0, k, v["name"], v["kind"], 1.0, "long-term memory", seeds.get(k, 0.0))
                for k, v in self.long_term.entities.items() if k not in known and seeds.get(k, 0.0) > 0]
        return out

    def _remember(self, result: InvestigationResult) -> None:
        findings = []
        if result.synthesis is not None:
            findings = [MemoryFinding(f.claim.text, [asdict(c) for c in f.claim.citations], f.agent)
                        for f in result.synthesis.findings[:5]]
        self.memory.observe([(e.node_id, e.name, e.kind) for e in result.entities], findings)
        self.long_term.consolidate(self.memory, self.consolidate_after)
        self.history.append(result)

    # --- turns ------------------------------------------------------------------------------------------
    def investigate(self, question: str) -> InvestigationResult:
        """One turn: investigate with memory, then update memory."""
        result = self.investigator.run(question, memory_seeds=self.memory_seeds(),
                                       memory_entities=self.memory_entities())
        self._remember(result)
        return result

    def events(self, question: str) -> Iterator[Event]:
        """One turn as a synchronous event stream; memory is updated when ``agents_done`` arrives."""
        sink: dict[str, Any] = {}
        stream = iterate_in_thread(lambda: self.investigator.events(
            question, memory_seeds=self.memory_seeds(), memory_entities=self.memory_entities(), sink=sink))
        for event in stream:
            if isinstance(event, AgentsDoneEvent) and "result" in sink:
                self._remember(sink["result"])
            yield event

    # --- see, keep and clear ---------------------------------------------------------------------------
    def show_memory(self) -> pd.DataFrame:
        """Working-memory entities with their current seed weight (``seed``)."""
        frame = self.memory.to_frame()
        seeds = self.memory.seeds(self.memory_weight)
        return frame.assign(seed=[round(seeds.get(i, 0.0), 4) for i in frame["node_id"]])

    def keep(self, claim: Claim, *, question: str = "") -> None:
        """Keep a claim (with its citations) in long-term memory."""
        self.long_term.keep_finding(claim.text, [asdict(c) for c in claim.citations], question=question)

    def keep_entity(self, node_id: str) -> None:
        """Keep a remembered entity in long-term memory (also works for an entity of the workspace)."""
        item = self.memory.entities.get(node_id)
        if item is not None:
            self.long_term.keep_entity(node_id, item.name, item.kind)
            return
        row = self.workspace.nodes.loc[self.workspace.nodes["id"] == node_id]
        if row.empty:
            from engram_kit.errors import DataError

            raise DataError(f"{node_id!r} is neither in working memory nor a node of the workspace; pass a node "
                            "id such as 'Gene::54209'.")
        self.long_term.keep_entity(node_id, str(row["name"].iloc[0]), str(row["kind"].iloc[0]))

    def clear_memory(self, *, long_term: bool = False) -> None:
        """Forget working memory (and ``memory.json`` too with ``long_term=True``)."""
        self.memory.clear()
        if long_term:
            self.long_term.clear()
