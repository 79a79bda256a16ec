"""Conversation history of the research assistant, persisted in the workspace as JSON.

Layout: ``<workspace>/conversations/<conversation id>.json``, one file per conversation, each holding its
turns (question, source filter, the full ``Answer.to_dict()`` and a timestamp). Files are written
atomically (temp file + rename). They live outside the graph store, so a dashboard that opened the
workspace read-only (another process holds the store) can still keep its history.

:func:`answer_from_dict` rebuilds an :class:`~engram_kit.answering.Answer` (with its retrieval result)
from the stored dict, so a reopened conversation renders exactly like a live one.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from engram_kit.files import write_atomic
from engram_kit.answering import Answer, Citation, Claim, ExactAnswer
from engram_kit.errors import DataError
from engram_kit.retrieval.results import RetrievalResult

#: Sub-folder of a workspace holding conversation files.
CONVERSATIONS_DIR = "conversations"
#: Version of the conversation file layout.
FORMAT_VERSION = 1


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Turn:
    """One question and its answer (``answer`` is ``Answer.to_dict()``)."""

    question: str
    source: str
    answer: dict[str, Any]
    created: str = field(default_factory=_now)

    def to_answer(self) -> Answer:
        """The stored answer as an :class:`Answer` object."""
        return answer_from_dict(self.answer)


@dataclass
class Conversation:
    """A titled list of turns, saved as one JSON file in the workspace."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    title: str = ""
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)
    turns: list[Turn] = field(default_factory=list)

    def add(self, answer: Answer, source: str = "all") -> Turn:
        """Append a turn for ``answer``; the first question becomes the title."""
        turn = Turn(answer.question, source, answer.to_dict())
        self.turns.append(turn)
        self.title = self.title or answer.question[:80]
        self.updated = turn.created
        return turn

    def to_dict(self) -> dict[str, Any]:
        """The file's content (``dataclasses.asdict`` without its deep copy of every stored answer: the turns'
        answer dicts are shared, so do not change them)."""
        return {"format_version": FORMAT_VERSION, "id": self.id, "title": self.title, "created": self.created,
                "updated": self.updated, "turns": [{"question": t.question, "source": t.source, "answer": t.answer,
                                                    "created": t.created} for t in self.turns]}

    def to_frame(self) -> pd.DataFrame:
        """One row per turn: time, source filter, question, number of claims."""
        return pd.DataFrame([{"created": t.created, "source": t.source, "question": t.question,
                              "claims": len(t.answer.get("claims", []))} for t in self.turns],
                            columns=["created", "source", "question", "claims"])

    def save(self, workspace_path: str | Path) -> Path:
        """Write (atomically) to ``<workspace>/conversations/<id>.json``; returns the file path."""
        return write_atomic(Path(workspace_path) / CONVERSATIONS_DIR / f"{self.id}.json",
                            json.dumps(self.to_dict(), indent=1, default=str))

    @classmethod
    def load(cls, path: str | Path) -> Conversation:
        """Read a conversation file.

        Raises
        ------
        DataError
            If the file is not a conversation file of a supported version.
        """
        path = Path(path)
        try:
            doc = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise DataError(f"Cannot read conversation {path}: {exc}. Delete or restore the file.") from exc
        if doc.get("format_version") != FORMAT_VERSION:
            raise DataError(f"{path} has conversation format {doc.get('format_version')!r}; this version reads "
                            f"{FORMAT_VERSION}. Delete the file or use the engram-kit version that wrote it.")
        turns = [Turn(**t) for t in doc.get("turns", [])]
        return cls(doc["id"], doc.get("title", ""), doc.get("created", ""), doc.get("updated", ""), turns)


def conversation_path(workspace_path: str | Path, conversation_id: str) -> Path:
    """Path of a conversation file; refuses ids that are not plain file names."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", conversation_id):
        raise DataError(f"{conversation_id!r} is not a conversation id (letters, digits, '-', '_').")
    return Path(workspace_path) / CONVERSATIONS_DIR / f"{conversation_id}.json"


#: Listing rows of conversation files already read, by (path, modification time, size): the history list is
#: refreshed after every answer, and reading every file again (each holds its answers in full) grew with the
#: history (issue 30: later answers in the dashboard).
_LISTED: dict[tuple[str, int, int], dict[str, Any]] = {}


def list_conversations(workspace_path: str | Path) -> pd.DataFrame:
    """Saved conversations, newest first: ``id, title, turns, updated``. Unreadable files are skipped."""
    rows = []
    for path in sorted((Path(workspace_path) / CONVERSATIONS_DIR).glob("*.json")):
        try:
            stat = path.stat()
        except OSError:
            continue
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        row = _LISTED.get(key)
        if row is None:
            try:
                conv = Conversation.load(path)
            except DataError:
                continue
            row = _LISTED[key] = {"id": conv.id, "title": conv.title, "turns": len(conv.turns),
                                  "updated": conv.updated}
        rows.append(dict(row))
    if len(_LISTED) > 4 * max(len(rows), 64):  # rewritten files leave old keys behind
        _LISTED.clear()
    frame = pd.DataFrame(rows, columns=["id", "title", "turns", "updated"])
    return frame.sort_values("updated", ascending=False, ignore_index=True)


def answer_from_dict(doc: dict[str, Any]) -> Answer:
    """Rebuild an :class:`Answer` from ``Answer.to_dict()`` output (the inverse, for stored answers), with its
    question type, headline, exact items and yes/no verdict (a conversation saved before those existed reopens
    as a summary answer without them)."""
    result = RetrievalResult.from_dict(doc["retrieval"])

    def claim(c: dict[str, Any]) -> Claim:
        return Claim(c["text"], tuple(Citation(**x) for x in c["citations"]))

    claims = [claim(c) for c in doc.get("claims", [])]
    exact = [ExactAnswer(x["text"], tuple(x.get("synonyms", ())), x.get("node_id"), float(x["score"]),
                         tuple(Citation(**c) for c in x["citations"])) for x in doc.get("exact", [])]
    return Answer(doc["question"], claims, doc.get("mode", ""), result, list(doc.get("notes", [])),
                  question_type=doc.get("question_type", "summary"), exact=exact, yes_no=doc.get("yes_no"),
                  yes_no_citations=tuple(Citation(**c) for c in doc.get("yes_no_citations", [])),
                  headline=doc.get("headline", ""), unsupported=[claim(c) for c in doc.get("unsupported", [])])
