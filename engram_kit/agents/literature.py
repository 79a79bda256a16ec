"""Literature agent: the workspace's PPR retrieval plus its answer composer, always routed.

Retrieval seeds PPR with the question entities plus the session-memory seeds (``extra_seeds``), ranks
passages by the hybrid text score with PPR graph evidence (:class:`~engram_kit.retrieval.retriever.Retriever`), and the
composer (extractive offline, an LLM composer when configured) turns them into cited claims. Events:
``passages`` once ranked, one ``answer_chunk`` per answer line, then ``done`` with the
:class:`~engram_kit.answering.Answer`.
"""

from __future__ import annotations

from engram_kit.agents.base import AgentContext, Emit
from engram_kit.agents.events import AnswerChunkEvent, DoneEvent, PassagesEvent, StatusEvent
from engram_kit.answering import Answer


class LiteratureAgent:
    """PPR retrieval + answer composition (see module docstring)."""

    name = "literature"

    def run(self, context: AgentContext, emit: Emit) -> Answer:
        """Retrieve and compose; returns the answer (claims cite passages and curated edges)."""
        emit(StatusEvent(self.name, "ranking passages (BM25 + dense, PPR evidence)"))
        result = context.retriever.retrieve(context.question, extra_seeds=context.memory_seeds or None)
        emit(PassagesEvent(self.name, tuple(result.passages)))
        answer = context.composer.compose(result)
        for line in answer.to_markdown().splitlines():
            emit(AnswerChunkEvent(self.name, line + "\n"))
        emit(DoneEvent(self.name, answer))
        return answer
