"""The passage vector store: one chromadb collection of passage embeddings (cosine space).

The collection lives either in the workspace folder (chromadb's embedded ``PersistentClient``, the default)
or on a Chroma server (``chromadb.HttpClient``, configured by :class:`ChromaServerConfig`; start one with
``chroma run --path DIR --port 8000``). Both behave identically: same methods, same read-only refusal of
writes, same model/dimension checks. On a server, each workspace has its own collection, named after the
workspace folder plus a random suffix (:func:`workspace_collection_name`), so workspaces sharing a server
never see each other's passages. The server token is sent as a request header and never logged, shown by
``repr`` or written to the workspace manifest.

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
import os
import re
import secrets
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from engram_kit.store._chroma_import import chromadb  # first: imports chromadb without an unused 3 s grammar

from chromadb.api.types import Documents, EmbeddingFunction, Embeddings  # after the guarded import
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import NotFoundError
from chromadb.utils.embedding_functions import register_embedding_function

from engram_kit.errors import BackendUnavailableError, DataError, QueryError, ReadOnlyError, WorkspaceError
from engram_kit.store.vector_count import record_vector_count
from engram_kit.store.vector_cache import query_vector

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
#: Environment variables holding the Chroma server token, in order of precedence (the second is the name
#: Chroma's own client settings use).
TOKEN_ENV: tuple[str, ...] = ("CHROMA_TOKEN", "CHROMA_SERVER_AUTHN_CREDENTIALS")
#: Request headers a Chroma server reads a token from (Chroma's ``chroma_auth_token_transport_header``).
TOKEN_HEADERS: tuple[str, ...] = ("Authorization", "X-Chroma-Token")
#: Chroma's rule for collection names (checked here so a bad name fails before any network call).
_COLLECTION_NAME_RE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")


@dataclass(frozen=True)
class ChromaServerConfig:
    """How to reach a Chroma server (``chroma run``). The token is excluded from ``repr`` and :meth:`to_manifest`.

    Parameters
    ----------
    url : str
        ``http://host:port`` or ``https://host:port``; the port defaults to 8000 (http) or 443 (https).
        Credentials, paths and queries in the URL are refused.
    token : str or None
        Token sent with every request; None (default) reads ``$CHROMA_TOKEN``, then
        ``$CHROMA_SERVER_AUTHN_CREDENTIALS``; ``""`` sends none. Never logged or written.
    token_header : str
        ``"Authorization"`` (sent as ``Bearer <token>``, the default) or ``"X-Chroma-Token"`` (sent as is),
        whichever the server's token authentication expects.
    tenant, database : str
        Chroma tenant and database (default ``default_tenant`` / ``default_database``); both must exist.

    Raises
    ------
    DataError
        For a URL that is not ``http(s)://host[:port]`` or an unknown ``token_header``.
    """

    url: str
    token: str | None = field(default=None, repr=False, compare=False)
    token_header: str = "Authorization"
    tenant: str = chromadb.DEFAULT_TENANT
    database: str = chromadb.DEFAULT_DATABASE

    def __post_init__(self) -> None:
        parts = urlsplit(self.url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DataError(f"Chroma server URL {self.url!r} is not usable; give http://host:port, e.g. "
                            f"http://localhost:8000 (https:// for TLS).")
        if parts.username or parts.password:
            raise DataError("The Chroma server URL embeds credentials; pass token=... or set $CHROMA_TOKEN instead, "
                            "so they are never written to the workspace manifest.")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise DataError(f"Chroma server URL {self.url!r} has a path or query; give only http(s)://host:port.")
        if self.token_header not in TOKEN_HEADERS:
            raise DataError(f"token_header={self.token_header!r} is not a Chroma token header; use one of "
                            f"{', '.join(TOKEN_HEADERS)}.")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 8000)
        except ValueError as exc:  # urlsplit validates the port lazily
            raise DataError(f"Chroma server URL {self.url!r} has an invalid port: {exc}.") from exc
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        object.__setattr__(self, "url", f"{parts.scheme}://{host}:{port}")  # normalised: what the manifest records
        if self.token is None:
            object.__setattr__(self, "token", next((os.environ[k] for k in TOKEN_ENV if os.environ.get(k)), ""))

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port or 8000)

    @property
    def ssl(self) -> bool:
        return self.url.startswith("https://")

    def headers(self) -> dict[str, str]:
        """Request headers carrying the token (empty without one). Contains the secret: do not log it."""
        if not self.token:
            return {}
        return {self.token_header: f"Bearer {self.token}" if self.token_header == "Authorization" else self.token}

    def to_manifest(self) -> dict[str, str]:
        """What the workspace manifest records: URL, tenant, database (never the token)."""
        return {"url": self.url, "tenant": self.tenant, "database": self.database, "token_header": self.token_header}

    @classmethod
    def from_manifest(cls, data: Mapping[str, Any], token: str | None = None) -> ChromaServerConfig:
        """Rebuild from :meth:`to_manifest` output (or a manifest ``vector_store`` entry); the token comes from
        ``token`` or the environment."""
        known = {"url", "tenant", "database", "token_header"}
        return cls(**{k: v for k, v in data.items() if k in known}, token=token)

    def connect(self) -> Any:
        """A ``chromadb.HttpClient`` for this server (checked with a heartbeat).

        Raises
        ------
        BackendUnavailableError
            If the server does not answer, refuses the token, or lacks the tenant/database; the message names
            the URL and how to start a server.
        """
        try:
            client = chromadb.HttpClient(
                host=self.host, port=self.port, ssl=self.ssl, headers=self.headers(), tenant=self.tenant,
                database=self.database, settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False))
            client.heartbeat()
        except Exception as exc:  # chromadb raises ValueError, httpx errors or its own ChromaError subclasses
            raise BackendUnavailableError(
                f"Cannot use the Chroma server at {self.url} (tenant {self.tenant!r}, database {self.database!r}): "
                f"{_redact(str(exc), self.token)}. Start one with `chroma run --path <folder> --host "
                f"{self.host} --port {self.port}`, check the URL and $CHROMA_TOKEN, or keep the vectors local "
                f"(omit --chroma-url / vectors=...).") from None  # no chained traceback: it may show headers
        return client


def _redact(text: str, token: str | None) -> str:
    return text.replace(token, "***") if token else text


def workspace_collection_name(workspace: str | Path) -> str:
    """A Chroma collection name unique to one workspace: ``<folder name>-<8 random hex>-passages``.

    The folder name (reduced to Chroma's alphabet, at most 40 characters) makes the collection recognisable
    on a shared server; the random suffix keeps two folders of the same name apart (and a workspace
    recreated with ``overwrite`` from finding its predecessor's vectors).
    """
    stem = re.sub(r"[^a-zA-Z0-9._-]+", "-", Path(workspace).name).strip("._-")[:40].strip("._-") or "workspace"
    return f"{stem}-{secrets.token_hex(4)}-passages"


class NoEmbeddingFunction(EmbeddingFunction[Documents]):
    """A chromadb embedding function that refuses to embed, so chromadb never downloads a model.

    Raises
    ------
    DataError
        Whenever chromadb asks it to embed texts (documents or query texts given without vectors).
    """

    def __init__(self) -> None:  # chromadb's base __init__ warns about legacy functions; nothing to set
        pass

    def __call__(self, input: Documents) -> Embeddings:  # chromadb's parameter name
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
    def build_from_config(config: dict[str, Any]) -> NoEmbeddingFunction:
        return NoEmbeddingFunction()


# Registered so chromadb can rebuild the function from a stored collection config instead of warning
# "Could not reconstruct embedding function" on every open.
register_embedding_function(NoEmbeddingFunction)


def _snapshot_folder(folder: Path) -> Path:
    """A private copy of an embedded chromadb folder for a read-only open, made without writing to ``folder``.

    ``chroma.sqlite3`` is copied with SQLite's online backup API from a ``mode=ro`` connection, so the copy
    is one consistent state even while a writer commits; its ``-wal``/``-shm`` files are not copied (the
    backup includes committed WAL content). Segment folders (HNSW files) are copied as they are: chromadb
    catches an index that lags the SQLite log up on open. The copy lives in the system temp folder and is
    removed by :meth:`VectorStore.close`.

    Returns
    -------
    Path
        The snapshot folder.
    """
    target = Path(tempfile.mkdtemp(prefix="engram-vectors-ro-"))
    try:
        for item in folder.iterdir():
            if item.name == "chroma.sqlite3":
                source = sqlite3.connect(f"{item.resolve().as_uri()}?mode=ro", uri=True)
                copy = sqlite3.connect(target / item.name)
                try:
                    source.backup(copy)
                finally:
                    copy.close()
                    source.close()
            elif item.name.startswith("chroma.sqlite3-"):
                continue
            elif item.is_dir():
                shutil.copytree(item, target / item.name)
            else:
                shutil.copy2(item, target / item.name)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return target


def _batches(n: int, size: int) -> Iterator[slice]:
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


class VectorStore:
    """Passage embeddings in a chromadb collection (cosine distance, HNSW index), local or on a server.

    Parameters
    ----------
    path : Path or None
        Folder of the embedded chromadb database (created on first write-mode open); ignored (may be None)
        when ``server`` is given.
    dimension : int
        Length of every vector, e.g. 384 for all-MiniLM-L6-v2.
    model_name : str
        Name of the embedding model, recorded in the collection metadata.
    read_only : bool
        Refuse every write with :class:`~engram_kit.errors.ReadOnlyError`; the folder (or server collection)
        must already exist.
    server : ChromaServerConfig, optional
        Keep the collection on this Chroma server instead of in ``path``.
    collection : str
        Collection name (Chroma's rule: 3-512 characters of ``[a-zA-Z0-9._-]``, alphanumeric at both ends).
        ``"passages"`` by default, which suits the one collection of a workspace folder; on a shared server
        use :func:`workspace_collection_name`.

    Raises
    ------
    DataError
        If the existing collection was built with another model or dimension (re-embed into a new
        workspace, or open with the recorded model), ``dimension`` < 1, or the collection name is invalid.
    WorkspaceError
        If ``read_only=True`` and there is no collection yet.
    BackendUnavailableError
        If ``server`` is given and cannot be reached (also raised by any later call that loses the server).

    Notes
    -----
    chromadb's embedded mode is meant for one writing process. A second process should open the same
    folder with ``read_only=True`` (enforced here, not by chromadb). A server has no such limit, but
    engram-kit still writes each workspace from one process.
    """

    def __init__(self, path: Path | None, *, dimension: int, model_name: str, read_only: bool = False,
                 server: ChromaServerConfig | None = None, collection: str = COLLECTION_NAME) -> None:
        if dimension < 1:
            raise DataError(f"VectorStore dimension={dimension} is invalid; use the embedding model's dimension.")
        if not _COLLECTION_NAME_RE.match(collection) or ".." in collection:
            raise DataError(f"Collection name {collection!r} is invalid for Chroma; use 3-512 characters of "
                            f"[a-zA-Z0-9._-], starting and ending with a letter or digit.")
        if server is None and path is None:
            raise DataError("VectorStore needs a folder (path=...) or a Chroma server "
                            "(server=ChromaServerConfig(...)).")
        self.path = Path(path) if path is not None else None
        self.server = server
        self.collection_name = collection
        self.dimension = int(dimension)
        self.model_name = model_name
        self.read_only = read_only
        self._snapshot: Path | None = None
        #: Where the vectors are, for messages: the folder, or ``<url> collection <name>``.
        self.location = f"{server.url} collection {collection!r}" if server is not None else str(self.path)
        if server is not None:
            self._client: Any = server.connect()
        else:
            assert self.path is not None  # checked above: a folder or a server
            if read_only and not self.path.exists():
                raise WorkspaceError(
                    f"No vector store at {self.path}: a read-only open cannot create one. Open the workspace for "
                    f"writing once (read_only=False) to create it."
                )
            # chromadb has no read-only mode: even a query rewrites chroma.sqlite3 and the HNSW files. A
            # read-only open therefore queries a private snapshot and never touches the workspace's folder.
            self._snapshot = _snapshot_folder(self.path) if read_only else None
            self._client = chromadb.PersistentClient(
                path=str(self._snapshot or self.path),
                settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
            )
        try:
            with self._server_errors("open"):
                self._collection: Any = self._open_collection()
                self._max_batch = int(self._client.get_max_batch_size())
            self._record_count()  # a write-mode open heals a count a crash left stale
        except BaseException:
            self.close()
            raise

    def _record_count(self) -> None:
        """Rewrite the count file of a local, writable store with the collection's own count
        (:mod:`engram_kit.store.vector_count`: ``engram info`` reads it without importing chromadb)."""
        if self.server is None and not self.read_only and self.path is not None and self._collection is not None:
            record_vector_count(self.path, int(self._collection.count()))

    @contextmanager
    def _server_errors(self, operation: str) -> Iterator[None]:
        """Turn a lost connection to the Chroma server into :class:`BackendUnavailableError`."""
        try:
            yield
        except httpx.TransportError as exc:  # connect/read errors and timeouts; embedded mode never raises them
            url = self.server.url if self.server is not None else self.location
            raise BackendUnavailableError(
                f"VectorStore.{operation}: lost the Chroma server at {url} ({type(exc).__name__}: {exc}). Check that "
                f"`chroma run` is still running there, then retry.") from None

    def _open_collection(self) -> Any:
        try:
            collection = self._client.get_collection(self.collection_name, embedding_function=NoEmbeddingFunction())
        except NotFoundError:
            collection = None
        if collection is not None:
            self._check_metadata(collection.metadata or {})
            return collection
        if self.read_only:
            raise WorkspaceError(
                f"The vector store at {self.location} has no {self.collection_name!r} collection yet; open it for "
                f"writing once (read_only=False) to create it."
            )
        return self._client.create_collection(
            self.collection_name,
            embedding_function=NoEmbeddingFunction(),
            metadata={"hnsw:space": "cosine", DIMENSION_KEY: self.dimension, MODEL_KEY: self.model_name},
        )

    def _check_metadata(self, metadata: Mapping[str, Any]) -> None:
        stored_dim, stored_model = metadata.get(DIMENSION_KEY), metadata.get(MODEL_KEY)
        if stored_dim != self.dimension or stored_model != self.model_name:
            raise DataError(
                f"The vector store at {self.location} holds {stored_dim}-dimensional vectors of {stored_model!r}, but "
                f"it was opened for {self.dimension}-dimensional vectors of {self.model_name!r}. Open it with the "
                f"recorded model, or re-embed the passages into a new workspace."
            )
        if metadata.get("hnsw:space", "cosine") != "cosine":
            raise DataError(f"The vector store at {self.location} does not use cosine distance; rebuild it.")

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        where = (f"{self.server.url!r}, collection={self.collection_name!r}" if self.server is not None
                 else repr(str(self.path)))
        return f"VectorStore({where}, dimension={self.dimension}, model={self.model_name!r}, {mode})"

    # --- writes --------------------------------------------------------------------------------------
    def _require_writable(self, operation: str) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"VectorStore.{operation} needs write access, but the vector store {self.location} was opened "
                f"read-only. Write from the process that opened the workspace with read_only=False."
            )
        self._require_open()

    def _require_open(self) -> None:
        if self._collection is None:
            raise WorkspaceError(f"The vector store {self.location} is closed; open a new VectorStore.")

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray,
               metadatas: Sequence[Mapping[str, str | int | float | bool] | None] | None = None) -> None:
        """Insert or replace passage vectors, in batches under chromadb's maximum batch size.

        Parameters
        ----------
        ids : sequence of str
            Passage ids, unique.
        embeddings : ndarray of shape (len(ids), dimension)
            Vectors (float32 preferred; cosine distance is used, so scale does not matter, but engram-kit's
            embedder returns unit-norm rows).
        metadatas : sequence of dict, optional
            One per id (None for none; chromadb refuses an empty dict); include ``"source"`` (``"pubmed"`` /
            ``"uploaded"``) for the source filter of :meth:`query`. Values must be str, int, float or bool.

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
                with self._server_errors("upsert"):
                    self._collection.upsert(
                        ids=ids[part], embeddings=vectors[part],
                        metadatas=([dict(m) if m is not None else None for m in metadatas[part]]
                                   if metadatas is not None else None),
                    )
            except ValueError as exc:
                self._record_count()  # earlier batches of this call are stored
                raise DataError(f"chromadb rejected the upsert of ids {ids[part][:3]}...: {exc}") from exc
        self._record_count()
        logger.debug("Upserted %d vectors into %s", len(ids), self.location)

    def delete(self, ids: Sequence[str]) -> None:
        """Delete vectors by passage id; unknown ids are ignored.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        """
        self._require_writable("delete")
        ids = [str(i) for i in ids]
        with self._server_errors("delete"):
            for part in _batches(len(ids), self._max_batch):
                self._collection.delete(ids=ids[part])
        self._record_count()

    # --- reads ---------------------------------------------------------------------------------------
    def count(self) -> int:
        """Number of stored vectors."""
        self._require_open()
        with self._server_errors("count"):
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
        vector = query_vector(embedding, self.dimension, k)
        total = self.count()
        if total == 0:
            return []
        where = {SOURCE_KEY: source} if source is not None else None
        try:
            with self._server_errors("query"):
                result = self._collection.query(query_embeddings=[vector], n_results=min(k, total), where=where,
                                                include=["distances"])
        except BackendUnavailableError:
            raise
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
        with self._server_errors("get_embeddings"):
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
            with self._server_errors("ids"):
                result = self._collection.get(where=where, include=[], limit=_PAGE_ROWS, offset=offset)
            out.extend(str(i) for i in result["ids"])
            if len(result["ids"]) < _PAGE_ROWS:
                return out
            offset += _PAGE_ROWS

    def iter_rows(self, rows: int = _PAGE_ROWS) -> Iterator[tuple[list[str], np.ndarray, list[dict[str, Any] | None]]]:
        """Every stored vector, in pages: ``(ids, embeddings of shape (len(ids), dimension) float32, metadatas)``
        (a metadata entry is None for a vector stored without metadata).

        Used to copy a collection to another store (:meth:`copy_from`); pages follow chromadb's insertion
        order, so do not write to this store while iterating.
        """
        self._require_open()
        offset = 0
        while True:
            with self._server_errors("iter_rows"):
                result = self._collection.get(include=["embeddings", "metadatas"], limit=rows, offset=offset)
            ids = [str(i) for i in result["ids"]]
            if ids:
                embeddings = np.asarray(result["embeddings"], dtype=np.float32).reshape(len(ids), self.dimension)
                yield ids, embeddings, [dict(m) if m else None for m in result["metadatas"]]
            if len(ids) < rows:
                return
            offset += rows

    def copy_from(self, source: VectorStore) -> int:
        """Upsert every vector of ``source`` (same model and dimension) into this store; returns the count.

        Raises
        ------
        DataError
            If ``source`` holds vectors of another model or dimension.
        ReadOnlyError
            If this store is read-only.
        """
        self._require_writable("copy_from")
        if (source.model_name, source.dimension) != (self.model_name, self.dimension):
            raise DataError(f"Cannot copy {source.dimension}-dimensional vectors of {source.model_name!r} into a store "
                            f"of {self.dimension}-dimensional vectors of {self.model_name!r}.")
        copied = 0
        for ids, embeddings, metadatas in source.iter_rows(min(self._max_batch, _PAGE_ROWS)):
            self.upsert(ids, embeddings, metadatas)
            copied += len(ids)
        return copied

    def drop(self) -> None:
        """Delete the whole collection (every vector) and close the store; for discarding a failed copy or a
        workspace's server collection.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        """
        self._require_writable("drop")
        with self._server_errors("drop"):
            self._client.delete_collection(self.collection_name)
        if self.server is None and self.path is not None:
            record_vector_count(self.path, 0)
        logger.info("dropped the vector collection %s", self.location)
        self.close()

    def close(self) -> None:
        """Close the client (a server connection, or the embedded client's system and its threads); idempotent.

        chromadb keeps one system per folder, reference-counted, until its clients are closed: a read-only
        open queries a fresh snapshot folder each time, so without ``close()`` every open/close cycle left
        about 8 threads and their memory behind (benchmarks/soak.py: ~840 threads and 850 MiB in a reader
        after some 100 cycles).
        """
        if self._client is not None:
            try:
                self._client.close()
            except Exception:  # a dead server must not make close() fail
                logger.debug("closing the Chroma client of %s failed", self.location, exc_info=True)
        self._collection = None
        self._client = None
        if self._snapshot is not None:
            shutil.rmtree(self._snapshot, ignore_errors=True)
            self._snapshot = None

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
