"""Session memory: what recent turns were about (working memory) and what the user keeps (long-term).

Working memory (per session, in RAM)
    Each turn, every entity the question resolves to gains strength 1.0; before that, all strengths
    decay by ``2 ** (-1 / half_life_turns)`` (default half-life :data:`HALF_LIFE_TURNS` = 2 turns: an
    entity not mentioned again counts half after two turns, a quarter after four). Entities below
    :data:`FORGET_BELOW` are forgotten. Findings (the synthesis claims of each turn) decay the same way.

Memory-biased retrieval
    :meth:`WorkingMemory.seeds` returns ``node id -> weight * strength / sum(strengths)``, passed to
    ``Retriever.retrieve(extra_seeds=...)``. The question's own seeds sum to 1, so memory receives
    ``weight / (1 + weight)`` of the PPR restart mass: 1/3 at the default :data:`MEMORY_SEED_WEIGHT` = 0.5.
    A follow-up question without an entity ("Which drugs target it?") is then seeded by memory alone, and
    agents use the remembered entities when the question names none of the kind they need.

Long-term memory (per workspace, ``<workspace>/memory.json``)
    Entities and findings the user keeps (:meth:`LongTermMemory.keep_entity`, ``keep_finding``), plus
    entities consolidated from working memory by one rule: an entity named in at least
    :data:`CONSOLIDATE_AFTER_TURNS` = 3 turns of a session is kept. Long-term entities seed PPR only when
    a session is opened with ``long_term_weight > 0`` (default 0: past sessions do not steer new ones).
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from engram_kit.files import write_atomic
from engram_kit.errors import DataError

log = logging.getLogger(__name__)

#: Turns after which a working-memory strength halves (documented default, tunable per session).
HALF_LIFE_TURNS = 2.0
#: Strength below which a working-memory entity or finding is forgotten.
FORGET_BELOW = 0.05
#: Total PPR seed weight of working memory, relative to the question's seeds (which sum to 1).
MEMORY_SEED_WEIGHT = 0.5
#: An entity named in this many turns of a session is consolidated into long-term memory.
CONSOLIDATE_AFTER_TURNS = 3
#: File of long-term memory inside a workspace folder.
MEMORY_FILE = "memory.json"


@dataclass
class MemoryEntity:
    """A remembered graph entity: ``strength`` in (0, 1+], ``turns`` = turns that named it."""

    node_id: str
    name: str
    kind: str
    strength: float = 1.0
    turns: int = 1
    first_turn: int = 0
    last_turn: int = 0


@dataclass
class MemoryFinding:
    """A remembered statement with its citations (``[{"kind", "ref", "label"}]``) and strength."""

    text: str
    citations: list[dict[str, str]]
    agent: str = ""
    turn: int = 0
    strength: float = 1.0


class WorkingMemory:
    """Decaying memory of one session's recent turns (see the module docstring).

    Parameters
    ----------
    half_life_turns : turns for a strength to halve, > 0.
    forget_below : strength below which items are dropped, in [0, 1).
    """

    def __init__(self, half_life_turns: float = HALF_LIFE_TURNS, forget_below: float = FORGET_BELOW) -> None:
        if half_life_turns <= 0:
            raise DataError(f"half_life_turns={half_life_turns} must be > 0 (turns for a memory to halve).")
        if not 0 <= forget_below < 1:
            raise DataError(f"forget_below={forget_below} must be in [0, 1).")
        self.half_life_turns = float(half_life_turns)
        self.forget_below = float(forget_below)
        self.turn = 0
        self.entities: dict[str, MemoryEntity] = {}
        self.findings: list[MemoryFinding] = []

    @property
    def decay(self) -> float:
        """Per-turn multiplier ``2 ** (-1 / half_life_turns)`` (0.707 at the default half-life of 2)."""
        return math.pow(2.0, -1.0 / self.half_life_turns)

    def observe(self, entities: list[tuple[str, str, str]], findings: list[MemoryFinding] = ()) -> None:  # type: ignore[assignment]
        """Record one turn: decay everything, then strengthen the turn's ``(node_id, name, kind)`` entities
        by 1.0 and add its findings."""
        self.turn += 1
        for item in self.entities.values():
            item.strength *= self.decay
        for finding in self.findings:
            finding.strength *= self.decay
        for node_id, name, kind in dict.fromkeys(entities):
            known = self.entities.get(node_id)
            if known is None:
                self.entities[node_id] = MemoryEntity(node_id, name, kind, 1.0, 1, self.turn, self.turn)
            else:
                known.strength += 1.0
                known.turns += 1
                known.last_turn = self.turn
        for finding in findings:
            self.findings.append(MemoryFinding(finding.text, finding.citations, finding.agent, self.turn, 1.0))
        self.entities = {k: v for k, v in self.entities.items() if v.strength >= self.forget_below}
        self.findings = [f for f in self.findings if f.strength >= self.forget_below]

    def seeds(self, weight: float = MEMORY_SEED_WEIGHT) -> dict[str, float]:
        """``node id -> weight * strength / total strength``; empty when memory is empty or weight is 0."""
        total = sum(e.strength for e in self.entities.values())
        if total <= 0 or weight <= 0:
            return {}
        return {k: weight * e.strength / total for k, e in sorted(self.entities.items(), key=lambda kv: -kv[1].strength)}

    def consolidation_candidates(self, min_turns: int = CONSOLIDATE_AFTER_TURNS) -> list[MemoryEntity]:
        """Entities named in at least ``min_turns`` turns (the consolidation rule)."""
        return [e for e in self.entities.values() if e.turns >= min_turns]

    def clear(self) -> None:
        self.turn = 0
        self.entities.clear()
        self.findings.clear()

    def to_frame(self) -> pd.DataFrame:
        """Remembered entities, strongest first: ``node_id, name, kind, strength, turns, first_turn, last_turn``."""
        rows = sorted((asdict(e) for e in self.entities.values()), key=lambda r: -r["strength"])
        return pd.DataFrame(rows, columns=list(MemoryEntity.__dataclass_fields__))

    def findings_frame(self) -> pd.DataFrame:
        rows = [{"turn": f.turn, "agent": f.agent, "strength": round(f.strength, 3), "text": f.text,
                 "citations": "; ".join(c["label"] for c in f.citations)} for f in self.findings]
        return pd.DataFrame(rows, columns=["turn", "agent", "strength", "text", "citations"])

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "half_life_turns": self.half_life_turns,
                "entities": [asdict(e) for e in self.entities.values()], "findings": [asdict(f) for f in self.findings]}


@dataclass
class LongTermMemory:
    """Persistent memory of a workspace in ``<workspace>/memory.json`` (see the module docstring).

    ``entities`` maps node id -> ``{name, kind, reason ("kept"|"consolidated"), saved}``; ``findings``
    holds kept statements with their citations. Every change is written at once (atomic rename).
    """

    path: Path
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, workspace_path: str | Path) -> LongTermMemory:
        """Read ``memory.json`` of a workspace (an empty memory if the file does not exist).

        Raises
        ------
        DataError
            If the file exists but is not valid JSON of this layout.
        """
        path = Path(workspace_path) / MEMORY_FILE
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text())
            return cls(path, dict(data.get("entities", {})), list(data.get("findings", [])))
        except (ValueError, AttributeError) as exc:
            raise DataError(f"{path} is not a valid engram-kit memory file ({exc}); delete it to start "
                            "with an empty long-term memory.") from exc

    def save(self) -> None:
        write_atomic(self.path, json.dumps({"entities": self.entities, "findings": self.findings}, indent=2,
                                           sort_keys=True))

    def keep_entity(self, node_id: str, name: str, kind: str, reason: str = "kept") -> None:
        self.entities[node_id] = {"name": name, "kind": kind, "reason": reason, "saved": _now()}
        self.save()

    def keep_finding(self, text: str, citations: list[dict[str, str]], *, question: str = "") -> None:
        """Keep a statement and its citations (duplicates of the same text are not added twice)."""
        if any(f["text"] == text for f in self.findings):
            return
        self.findings.append({"text": text, "citations": citations, "question": question, "saved": _now()})
        self.save()

    def consolidate(self, working: WorkingMemory, min_turns: int = CONSOLIDATE_AFTER_TURNS) -> list[str]:
        """Apply the consolidation rule; returns the node ids newly kept."""
        added = []
        for e in working.consolidation_candidates(min_turns):
            if e.node_id not in self.entities:
                self.entities[e.node_id] = {"name": e.name, "kind": e.kind, "reason": "consolidated", "saved": _now()}
                added.append(e.node_id)
        if added:
            self.save()
        return added

    def seeds(self, weight: float) -> dict[str, float]:
        """``node id -> weight / n`` over the kept entities (empty when weight is 0)."""
        if weight <= 0 or not self.entities:
            return {}
        return {k: weight / len(self.entities) for k in self.entities}

    def clear(self) -> None:
        self.entities.clear()
        self.findings.clear()
        if self.path.exists():
            self.path.unlink()

    def to_frame(self) -> pd.DataFrame:
        rows = [{"node_id": k, **v} for k, v in self.entities.items()]
        return pd.DataFrame(rows, columns=["node_id", "name", "kind", "reason", "saved"])

    def findings_frame(self) -> pd.DataFrame:
        rows = [{"text": f["text"], "citations": "; ".join(c["label"] for c in f["citations"]),
                 "question": f.get("question", ""), "saved": f.get("saved", "")} for f in self.findings]
        return pd.DataFrame(rows, columns=["text", "citations", "question", "saved"])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
