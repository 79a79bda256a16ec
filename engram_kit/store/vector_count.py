"""The passage-vector count a local vector store records beside its chromadb files at each write.

``engram info`` prints how many vectors a workspace holds. Asking chromadb costs a 2-5 s import (its
embedding-function registry imports provider SDKs, jsonschema and a grammar compiler) plus, for a read-only
open, a snapshot copy of the folder (:class:`~engram_kit.store.vectors.VectorStore`); the number itself is one
integer. So every write of a local :class:`~engram_kit.store.vectors.VectorStore` (upsert, delete, drop, and a
write-mode open, which heals a count left stale by a crash) rewrites :data:`COUNT_FILE` in the store's folder
with the collection's own count, and ``engram info`` reads it from here, without chromadb. ``engram check``
compares it with the store (issue 30). This module imports nothing heavy.
"""

from __future__ import annotations

import json
from pathlib import Path

from engram_kit.files import write_atomic

#: File in the local vector folder holding ``{"count": n}``, rewritten after each write.
COUNT_FILE = "engram_vector_count.json"


def record_vector_count(folder: str | Path, count: int) -> None:
    """Record ``count`` (>= 0) vectors for the local store in ``folder`` (atomic replace: never half-written)."""
    write_atomic(Path(folder) / COUNT_FILE, json.dumps({"count": int(count)}))


def recorded_vector_count(folder: str | Path) -> int | None:
    """The count recorded for the local store in ``folder``; None when none was recorded (a store written before
    engram-kit recorded counts, or no store yet) or the file is unreadable: then ask the store itself."""
    try:
        count = json.loads((Path(folder) / COUNT_FILE).read_text())["count"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return count if isinstance(count, int) and count >= 0 else None
