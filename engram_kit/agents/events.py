"""Typed events of an investigation, in the order a notebook renders them.

An investigation streams events as agents progress (see :mod:`engram_kit.agents.investigate`)::

    status -> resolved -> (passages, answer_chunk*, done | pathway | drug | phenotype | error)* ->
    answer_chunk* -> synthesis -> agents_done

``passages``, ``answer_chunk`` and ``done`` come from the literature agent; ``pathway``, ``drug`` and
``phenotype`` (Biolink graphs) from the graph agents, in whichever order they finish; ``answer_chunk``
with ``agent="synthesis"`` streams the synthesis paragraph; ``agents_done`` is always last. A failing agent yields ``error`` and the others finish.
Every event is a small dataclass with a ``type`` field and :meth:`to_dict` (JSON-ready).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

#: Event type names, as in issue 5 of engram-kit.
EVENT_TYPES: tuple[str, ...] = ("status", "resolved", "answer_chunk", "passages", "done", "pathway", "drug",
                                "phenotype", "synthesis", "agents_done", "error")


@dataclass(frozen=True)
class Event:
    """Base of all events. ``type`` is one of :data:`EVENT_TYPES`; ``agent`` names the emitter."""

    type: ClassVar[str] = ""
    agent: str

    def to_dict(self) -> dict[str, Any]:
        """``{"type": ..., "agent": ..., <fields>}``; payload objects are converted with their ``to_dict``."""
        out: dict[str, Any] = {"type": self.type}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = value.to_dict() if hasattr(value, "to_dict") else _plain(value)
        return out


def _plain(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return asdict(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class StatusEvent(Event):
    """Progress message (``message``), e.g. "resolving entities"."""

    type: ClassVar[str] = "status"
    message: str = ""


@dataclass(frozen=True)
class ResolvedEvent(Event):
    """Question entities, memory entities carried over, the PPR seeds and the routing decision."""

    type: ClassVar[str] = "resolved"
    entities: tuple[Any, ...] = ()
    unresolved: tuple[str, ...] = ()
    memory_seeds: dict[str, float] = field(default_factory=dict)
    routing: Any = None


@dataclass(frozen=True)
class AnswerChunkEvent(Event):
    """A piece of answer text (a Markdown line offline, a token chunk when an LLM streams)."""

    type: ClassVar[str] = "answer_chunk"
    text: str = ""


@dataclass(frozen=True)
class PassagesEvent(Event):
    """Ranked passages of the literature agent (:class:`~engram_kit.retrieval.results.PassageHit`)."""

    type: ClassVar[str] = "passages"
    passages: tuple[Any, ...] = ()


@dataclass(frozen=True)
class DoneEvent(Event):
    """The literature agent's answer is complete (``answer`` is an :class:`~engram_kit.answering.Answer`)."""

    type: ClassVar[str] = "done"
    answer: Any = None


@dataclass(frozen=True)
class PathwayEvent(Event):
    """The pathway agent's report (:class:`~engram_kit.agents.pathway.PathwayReport`)."""

    type: ClassVar[str] = "pathway"
    report: Any = None


@dataclass(frozen=True)
class DrugEvent(Event):
    """The drug agent's report (:class:`~engram_kit.agents.drug.DrugReport`)."""

    type: ClassVar[str] = "drug"
    report: Any = None


@dataclass(frozen=True)
class PhenotypeEvent(Event):
    """The phenotype agent's report (:class:`~engram_kit.agents.phenotype.PhenotypeReport`)."""

    type: ClassVar[str] = "phenotype"
    report: Any = None


@dataclass(frozen=True)
class SynthesisEvent(Event):
    """The merged answer (:class:`~engram_kit.agents.synthesis.SynthesisReport`)."""

    type: ClassVar[str] = "synthesis"
    report: Any = None


@dataclass(frozen=True)
class AgentsDoneEvent(Event):
    """Last event: which agents succeeded or failed, and seconds per agent and in total."""

    type: ClassVar[str] = "agents_done"
    succeeded: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ErrorEvent(Event):
    """An agent failed; ``error_type`` is the exception class name, ``message`` its text."""

    type: ClassVar[str] = "error"
    error_type: str = ""
    message: str = ""
