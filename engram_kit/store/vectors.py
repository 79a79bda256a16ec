"""The passage vector store: one persistent chromadb collection of passage embeddings (cosine space).

engram-kit computes embeddings itself (:mod:`engram_kit.embeddings`); chromadb only stores and searches
them. The collection is therefore created with an embedding function that *refuses* to embed: chromadb
1.5 silently falls back to its default ONNX MiniLM function (downloaded at first use) when
``embedding_function=None`` is passed and documents are added without embeddings. With
:class:`NoEmbeddingFunction`, that mistake raises a clear error instead of touching the network.

The collection metadata records the embedding model name and dimension; reopening with another model or
dimension raises :class:`~engram_kit.errors.DataError` (vectors of two models are not comparable).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import Settings as ChromaSettings
from chromadb.utils.embedding_functions import register_embedding_function

from engram_kit.errors import DataError, QueryError, ReadOnlyError, WorkspaceError

logger = logging.getLogger(__name__)

#: Name of the one collection of a workspace.
COLLECTION_NAME = "passages"
#: Collection metadata keys recording what produced the vectors.
DIMENSION_KEY = "engram_dimension"
MODEL_KEY = "engram_model_name"
#: Passage metadata key filtered by ``source=`` (values as in :data:`engram_kit.records.SOURCES`).
SOURCE_KEY = "source"
#: Rows per ``collection.get`` page when listing ids.
_PAGE_ROWS = 10_000


class NoEmbeddingFunction(EmbeddingFunction[Documents]):
    """A chromadb embedding function that refuses to embed, so chromadb never downloads a model.

    Raises
    ------
    DataError
        Whenever chromadb asks it to embed texts (documents or query texts given without vectors).
    """

    def __init__(self) -> None:  # chromadb's base __init__ warns about legacy functions; nothing to set
        pass

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - chromadb's parameter name
        raise DataError(
            f"The passage vector store got {len(input)} texts without embeddings; engram-kit never lets chromadb "
            f"embed (that would download a model). Compute vectors with engram_kit.embeddings and pass them as "
            f"embeddings."
        )

    @staticmethod
    def name() -> str:
        return "engram-kit-no-embedding"

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> NoEmbeddingFunction:  # noqa: ARG004
        return NoEmbeddingFunction()


# Registered so chromadb can rebuild the function from a stored collection config instead of warning
# "Could not reconstruct embedding function" on every open.
register_embedding_function(NoEmbeddingFunction)


def _batches(n: int, size: int) -> Iterator[slice]:
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


class VectorStore:
    """Passage embeddings in a persistent chromadb collection (cosine distance, HNSW index).

    Parameters
    ----------
    path : Path
        Folder of the chromadb database (created on first write-mode open).
    dimension : int
        Length of every vector, e.g. 384 for all-MiniLM-L6-v2.
    model_name : str
        Name of the embedding model, recorded in the collection metadata.
    read_only : bool
        Refuse every write with :class:`~engram_kit.errors.ReadOnlyError`; the folder and the collection
        must already exist.

    Raises
    ------
    DataError
        If the existing collection was built with another model or dimension (re-embed into a new
        workspace, or open with the recorded model), or ``dimension`` < 1.
    WorkspaceError
        If ``read_only=True`` and there is no collection at ``path`` yet.

    Notes
    -----
    chromadb's embedded mode is meant for one writing process. A second process should open the same
    folder with ``read_only=True`` (enforced here, not by chromadb).
    """

    def __init__(self, path: Path, *, dimension: int, model_name: str, read_only: bool = False) -> None:
        if dimension < 1:
            raise DataError(f"VectorStore dimension={dimension} is invalid; use the embedding model's dimension.")
        self.path = Path(path)
        self.dimension = int(dimension)
        self.model_name = model_name
        self.read_only = read_only
        if read_only and not self.path.exists():
            raise WorkspaceError(
                f"No vector store at {self.path}: a read-only open cannot create one. Open the workspace for "
                f"writing once (read_only=False) to create it."
            )
        self._client: Any = chromadb.PersistentClient(
            path=str(self.path), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        )
        self._collection: Any = self._open_collection()
        self._max_batch = int(self._client.get_max_batch_size())

    def _open_collection(self) -> Any:
        existing = {c.name if hasattr(c, "name") else str(c) for c in self._client.list_collections()}
        if COLLECTION_NAME in existing:
            collection = self._client.get_collection(COLLECTION_NAME, embedding_function=NoEmbeddingFunction())
            self._check_metadata(collection.metadata or {})
            return collection
        if self.read_only:
            raise WorkspaceError(
                f"The vector store at {self.path} has no {COLLECTION_NAME!r} collection yet; open it for writing "
                f"once (read_only=False) to create it."
            )
        return self._client.create_collection(
            COLLECTION_NAME,
            embedding_function=NoEmbeddingFunction(),
            metadata={"hnsw:space": "cosine", DIMENSION_KEY: self.dimension, MODEL_KEY: self.model_name},
        )

    def _check_metadata(self, metadata: Mapping[str, Any]) -> None:
        stored_dim, stored_model = metadata.get(DIMENSION_KEY), metadata.get(MODEL_KEY)
        if stored_dim != self.dimension or stored_model != self.model_name:
            raise DataError(
                f"The vector store at {self.path} holds {stored_dim}-dimensional vectors of {stored_model!r}, but "
                f"it was opened for {self.dimension}-dimensional vectors of {self.model_name!r}. Open it with the "
                f"recorded model, or re-embed the passages into a new workspace."
            )
        if metadata.get("hnsw:space", "cosine") != "cosine":
            raise DataError(f"The vector store at {self.path} does not use cosine distance; rebuild it.")

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        return f"VectorStore({str(self.path)!r}, dimension={self.dimension}, model={self.model_name!r}, {mode})"

    # --- writes --------------------------------------------------------------------------------------
    def _require_writable(self, operation: str) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"VectorStore.{operation} needs write access, but the vector store {self.path} was opened "
                f"read-only. Write from the process that opened the workspace with read_only=False."
            )
        self._require_open()

    def _require_open(self) -> None:
        if self._collection is None:
            raise WorkspaceError(f"The vector store {self.path} is closed; open a new VectorStore.")

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray,
               metadatas: Sequence[Mapping[str, str | int | float | bool]] | None = None) -> None:
        """Insert or replace passage vectors, in batches under chromadb's maximum batch size.

        Parameters
        ----------
        ids : sequence of str
            Passage ids, unique.
        embeddings : ndarray of shape (len(ids), dimension)
            Vectors (float32 preferred; cosine distance is used, so scale does not matter, but engram-kit's
            embedder returns unit-norm rows).
        metadatas : sequence of dict, optional
            One per id; include ``"source"`` (``"pubmed"`` / ``"uploaded"``) for the source filter of
            :meth:`query`. Values must be str, int, float or bool.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        DataError
            If shapes or lengths disagree, ids repeat, or a vector is not finite.
        """
        self._require_writable("upsert")
        ids = [str(i) for i in ids]
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape != (len(ids), self.dimension):
            raise DataError(f"upsert got embeddings of shape {vectors.shape} for {len(ids)} ids; expected "
                            f"({len(ids)}, {self.dimension}).")
        if len(set(ids)) != len(ids):
            raise DataError("upsert got duplicated passage ids; each id may appear once per call.")
        if not np.isfinite(vectors).all():
            raise DataError("upsert got non-finite values (NaN or inf) in the embeddings.")
        if metadatas is not None and len(metadatas) != len(ids):
            raise DataError(f"upsert got {len(metadatas)} metadatas for {len(ids)} ids; give one per id.")
        for part in _batches(len(ids), self._max_batch):
            try:
                self._collection.upsert(
                    ids=ids[part], embeddings=vectors[part],
                    metadatas=[dict(m) for m in metadatas[part]] if metadatas is not None else None,
                )
            except ValueError as exc:
                raise DataError(f"chromadb rejected the upsert of ids {ids[part][:3]}...: {exc}") from exc
        logger.debug("Upserted %d vectors into %s", len(ids), self.path)

    def delete(self, ids: Sequence[str]) -> None:
        """Delete vectors by passage id; unknown ids are ignored.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        """
        self._require_writable("delete")
        ids = [str(i) for i in ids]
        for part in _batches(len(ids), self._max_batch):
            self._collection.delete(ids=ids[part])

    # --- reads ---------------------------------------------------------------------------------------
    def count(self) -> int:
        """Number of stored vectors."""
        self._require_open()
        return int(self._collection.count())

    def query(self, embedding: np.ndarray, k: int, *, source: str | None = None) -> list[tuple[str, float]]:
        """Nearest passages to a query vector.

        Parameters
        ----------
        embedding : ndarray of shape (dimension,)
            The query vector.
        k : int
            Number of neighbours, >= 1 (fewer are returned when fewer vectors match).
        source : str, optional
            Keep only passages whose metadata ``source`` equals this (``"pubmed"``, ``"uploaded"``).

        Returns
        -------
        list of (str, float)
            ``(passage_id, similarity)`` best first; similarity = 1 - cosine distance = cosine similarity,
            in [-1, 1]. Approximate (HNSW) for large collections.

        Raises
        ------
        DataError
            If the vector has the wrong shape or ``k`` < 1.
        """
        self._require_open()
        vector = np.asarray(embedding, dtype=np.float32)
        if vector.shape != (self.dimension,):
            raise DataError(f"query got a vector of shape {vector.shape}; expected ({self.dimension},).")
        if k < 1:
            raise DataError(f"query got k={k}; ask for at least 1 neighbour.")
        total = self.count()
        if total == 0:
            return []
        where = {SOURCE_KEY: source} if source is not None else None
        try:
            result = self._collection.query(query_embeddings=[vector], n_results=min(k, total), where=where,
                                            include=["distances"])
        except Exception as exc:  # chromadb raises several types (InvalidArgumentError, ValueError...)
            raise QueryError(f"chromadb failed on a nearest-neighbour query (k={k}, source={source!r}): {exc}") from exc
        ids, distances = result["ids"][0], result["distances"][0]
        return [(str(i), float(1.0 - d)) for i, d in zip(ids, distances)]

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by passage id.

        Returns
        -------
        dict
            passage id -> ndarray of shape (dimension,), float32; unknown ids are absent.
        """
        self._require_open()
        ids = list(dict.fromkeys(str(i) for i in ids))
        out: dict[str, np.ndarray] = {}
        for part in _batches(len(ids), self._max_batch):
            result = self._collection.get(ids=ids[part], include=["embeddings"])
            for pid, vec in zip(result["ids"], result["embeddings"]):
                out[str(pid)] = np.asarray(vec, dtype=np.float32)
        return out

    def ids(self, source: str | None = None) -> list[str]:
        """All stored passage ids, optionally only those of one source, in no particular order."""
        self._require_open()
        where = {SOURCE_KEY: source} if source is not None else None
        out: list[str] = []
        offset = 0
        while True:
            result = self._collection.get(where=where, include=[], limit=_PAGE_ROWS, offset=offset)
            out.extend(str(i) for i in result["ids"])
            if len(result["ids"]) < _PAGE_ROWS:
                return out
            offset += _PAGE_ROWS

    def close(self) -> None:
        """Drop the client; idempotent. (chromadb's embedded client has no explicit close.)"""
        self._collection = None
        self._client = None

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
