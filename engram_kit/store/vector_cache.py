"""A read-only copy of a local vector store's passage vectors as NumPy arrays, for questions without chromadb.

A cold ``engram ask`` on the sample spent about a second on the vector store before anything was asked: importing
chromadb (its API modules, embedding-function registry and telemetry: 0.5-1 s on a quiet machine, 2-3 s at load
15) and copying the folder into a private snapshot (a read-only open never lets chromadb touch the workspace,
:class:`~engram_kit.store.vectors.VectorStore`). What a question reads from it is small: a nearest-neighbour
query, the passage ids (the BM25 index) and a few stored vectors. For a local store of at most
:data:`MAX_VECTORS` vectors these reads are served from one ``.npz`` file (ids, float32 vectors, each passage's
``source``) that :func:`cached_vectors` writes the first time a read-only process needs it.

The file lives in the user's cache folder (:func:`~engram_kit.extraction.gazetteer_cache.user_cache_dir`), never
in the workspace, under a key naming the store's state: the resolved folder, the name, size and modification time
of every file in it (chromadb rewrites ``chroma.sqlite3`` at each write), the recorded vector count
(:mod:`~engram_kit.store.vector_count`), the model and the dimension. Any write changes the key, so a stale copy is
never read: the next read-only open builds a new one from chromadb (paying what every open paid before, plus the
write of the copy: 0.7 MB for the sample's 430 passages, 77 MB for 50 k).

Search is exact (cosine over all rows, float32) where chromadb's HNSW index is approximate; on the sample both
return the same passages in the same order (tests/test_vector_cache.py). ``engram check`` and every writer keep
using chromadb itself.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engram_kit.errors import DataError, ReadOnlyError, WorkspaceError
from engram_kit.files import write_atomic
from engram_kit.store.vector_count import COUNT_FILE, recorded_vector_count

log = logging.getLogger(__name__)

#: Largest store served from a NumPy copy (about 380 MB of 384-dimensional float32 vectors); above it, chromadb.
MAX_VECTORS = 250_000
#: Copies kept in the user cache folder (most recently written first).
KEEP = 6
#: ``source`` of a passage stored without one (a source filter never selects it, as in chromadb).
_NO_SOURCE = ""


def cache_key(folder: Path, model_name: str, dimension: int) -> str | None:
    """Hex SHA-256 of the state of the local vector folder ``folder``, or None when no count is recorded there
    (a store written before counts were recorded: read it with chromadb)."""
    count = recorded_vector_count(folder)
    if count is None or not folder.is_dir():
        return None
    digest = hashlib.sha256()
    for part in (str(folder.resolve()), model_name, str(dimension), str(count)):
        digest.update(part.encode() + b"\0")
    for item in sorted(folder.rglob("*")):
        if item.is_file() and item.name != COUNT_FILE:
            stat = item.stat()
            digest.update(f"{item.relative_to(folder)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()



def query_vector(embedding: np.ndarray, dimension: int, k: int) -> np.ndarray:
    """``embedding`` as a float32 vector of shape ``(dimension,)`` for a nearest-neighbour query of ``k`` results;
    shared by this copy and :class:`~engram_kit.store.vectors.VectorStore` (which imports chromadb, so it lives here).

    Raises
    ------
    DataError
        If the vector's shape is not ``(dimension,)`` or ``k`` < 1.
    """
    vector = np.asarray(embedding, dtype=np.float32)
    if vector.shape != (dimension,):
        raise DataError(f"query got a vector of shape {vector.shape}; expected ({dimension},).")
    if k < 1:
        raise DataError(f"query got k={k}; ask for at least 1 neighbour.")
    return vector

class CachedVectors:
    """The read side of :class:`~engram_kit.store.vectors.VectorStore` over NumPy arrays (see module docstring).

    Parameters
    ----------
    ids : sequence of str
        Passage ids, unique.
    embeddings : ndarray of shape (len(ids), dimension)
        Their vectors (float32; any scale: rows are normalised here).
    sources : sequence of str
        Each passage's metadata ``source`` (``""`` for none).
    model_name : str
        The recorded embedding model.
    location : str
        The folder the vectors were copied from, for messages.

    Raises
    ------
    DataError
        If the lengths or shapes disagree.
    """

    read_only = True
    server = None

    def __init__(self, ids: Sequence[str], embeddings: np.ndarray, sources: Sequence[str], *, model_name: str,
                 location: str) -> None:
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(ids) or len(sources) != len(ids):
            raise DataError(f"A vector copy needs one vector and one source per id: {len(ids)} ids, vectors of shape "
                            f"{vectors.shape}, {len(sources)} sources.")
        self._ids = [str(i) for i in ids]
        self._row = {pid: i for i, pid in enumerate(self._ids)}
        self._raw = vectors
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self._unit = vectors / np.where(norms > 0, norms, 1.0)
        self._sources = np.asarray([str(s) for s in sources], dtype=object)
        self.dimension = int(vectors.shape[1]) if vectors.ndim == 2 and vectors.shape[1] else 0
        self.model_name = model_name
        self.location = location
        self.path = Path(location)
        self._open = True

    def __repr__(self) -> str:
        return f"CachedVectors({self.location!r}, {len(self._ids)} vectors, model={self.model_name!r}, read-only)"

    def _require_open(self) -> None:
        if not self._open:
            raise WorkspaceError(f"The vector copy of {self.location} is closed; open the workspace again.")

    def count(self) -> int:
        """Number of stored vectors."""
        self._require_open()
        return len(self._ids)

    def query(self, embedding: np.ndarray, k: int, *, source: str | None = None) -> list[tuple[str, float]]:
        """Nearest passages to a query vector, as :meth:`VectorStore.query <engram_kit.store.vectors.VectorStore.query>`:
        ``(passage_id, cosine similarity)`` best first (equal similarities in storage order), at most ``k``, only
        passages of ``source`` when given.

        Raises
        ------
        DataError
            If the vector has the wrong shape or ``k`` < 1.
        """
        self._require_open()
        vector = query_vector(embedding, self.dimension, k)
        rows = np.arange(len(self._ids)) if source is None else np.flatnonzero(self._sources == source)
        if rows.size == 0:
            return []
        norm = float(np.linalg.norm(vector))
        unit = vector / norm if norm > 0 else vector
        similarity = self._unit[rows] @ unit
        order = np.argsort(-similarity, kind="stable")[:k]
        return [(self._ids[rows[i]], float(similarity[i])) for i in order]

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by passage id (float32, shape (dimension,)); unknown ids are absent."""
        self._require_open()
        return {str(p): self._raw[self._row[str(p)]].copy() for p in dict.fromkeys(ids) if str(p) in self._row}

    def ids(self, source: str | None = None) -> list[str]:
        """All stored passage ids, optionally only those of one source."""
        self._require_open()
        if source is None:
            return list(self._ids)
        return [self._ids[i] for i in np.flatnonzero(self._sources == source)]

    def iter_rows(self, rows: int = 10_000) -> Iterator[tuple[list[str], np.ndarray, list[dict[str, Any] | None]]]:
        """Every vector in pages ``(ids, embeddings, metadatas)``, as :meth:`VectorStore.iter_rows`."""
        self._require_open()
        for start in range(0, len(self._ids), rows):
            part = slice(start, start + rows)
            yield (self._ids[part], self._raw[part].copy(),
                   [{"source": s} if s != _NO_SOURCE else None for s in self._sources[part]])

    def _refuse(self, operation: str) -> None:
        raise ReadOnlyError(f"VectorStore.{operation} needs write access, but the vectors of {self.location} were "
                            "opened read-only (a NumPy copy). Write from the process that opened the workspace with "
                            "read_only=False.")

    def upsert(self, *args: Any, **kwargs: Any) -> None:
        self._refuse("upsert")

    def delete(self, *args: Any, **kwargs: Any) -> None:
        self._refuse("delete")

    def close(self) -> None:
        """Release the arrays; idempotent."""
        self._open = False

    def __enter__(self) -> CachedVectors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read(path: Path, model_name: str, location: str) -> CachedVectors | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            return CachedVectors(data["ids"].tolist(), data["embeddings"], data["sources"].tolist(),
                                 model_name=model_name, location=location)
    except (OSError, ValueError, KeyError, DataError):
        return None


def cached_vectors(folder: Path, *, model_name: str, dimension: int, cache_dir: Path,
                   open_store: Any) -> CachedVectors | None:
    """The NumPy copy of the local vector store in ``folder``: read from ``cache_dir`` when its key matches, else
    made from ``open_store()`` (a read-only :class:`~engram_kit.store.vectors.VectorStore`, which the caller keeps)
    and written there. None when the store records no count or holds more than :data:`MAX_VECTORS` vectors (use
    chromadb then). A copy that cannot be written is logged and used from memory."""
    key = cache_key(folder, model_name, dimension)
    count = recorded_vector_count(folder)
    if key is None or count is None or count > MAX_VECTORS:
        return None
    target = cache_dir / f"vectors-{key[:24]}.npz"
    found = _read(target, model_name, str(folder)) if target.is_file() else None
    if found is not None and found.dimension in (dimension, 0):
        return found
    store = open_store()
    ids: list[str] = []
    blocks: list[np.ndarray] = []
    sources: list[str] = []
    for page_ids, embeddings, metadatas in store.iter_rows():
        ids.extend(page_ids)
        blocks.append(np.asarray(embeddings, dtype=np.float32))
        sources.extend(str((m or {}).get("source", _NO_SOURCE)) for m in metadatas)
    matrix = np.concatenate(blocks) if blocks else np.zeros((0, dimension), dtype=np.float32)
    copy = CachedVectors(ids, matrix, sources, model_name=model_name, location=str(folder))
    try:
        import io

        buffer = io.BytesIO()
        np.savez(buffer, ids=np.asarray(ids, dtype=str), embeddings=matrix, sources=np.asarray(sources, dtype=str))
        write_atomic(target, buffer.getvalue())
        _prune(cache_dir, keep=target)
    except OSError as exc:
        log.warning("could not keep the vector copy in %s (%s); chromadb is read again next time", target, exc)
    return copy


def _prune(folder: Path, *, keep: Path) -> None:
    files = sorted(folder.glob("vectors-*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP:]:
        if old != keep:
            old.unlink(missing_ok=True)
