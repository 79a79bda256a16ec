"""The embedded graph store: LadybugDB (the maintained fork of Kuzu), one database file per workspace.

:class:`LadybugStore` implements :class:`~engram_kit.store.base.GraphStore`. The Hetionet domain layer is
bulk-loaded with ``COPY ... FROM`` a pandas DataFrame (one COPY per node label and per metaedge); the
literature layer is written in one transaction per :class:`~engram_kit.records.LiteratureBatch` with
``UNWIND`` over list parameters. All Cypher comes from :mod:`engram_kit.store.cypher`.

Concurrency (measured with LadybugDB 0.22)
------------------------------------------
* One process at a time may open a database for writing; a second writer gets
  :class:`~engram_kit.errors.WorkspaceLockedError`.
* ``read_only=True`` opens work while a writer holds the lock (read-only opens take no lock). A read-only
  store sees a **snapshot**: the data committed when it was opened (including the writer's write-ahead
  log at that moment). Later writes are not visible until :meth:`LadybugStore.reopen`.
* Opening a writer while read-only processes are open also succeeds; the readers keep their snapshot.
* Within one process, stores of the same file share one LadybugDB ``Database`` (see
  :func:`_acquire_database`: closing a second ``Database`` of the file would drop the process's lock).
  A read-only store that shares a writer's database still refuses every write: its methods check first,
  and :meth:`LadybugStore.query` runs inside ``BEGIN TRANSACTION READ ONLY``.

LadybugDB quirks handled here
-----------------------------
* ``index`` is a reserved word, so ``SectionRecord.index``/``PassageRecord.index`` are stored as ``idx``.
* A failing statement inside ``BEGIN TRANSACTION`` rolls the transaction back by itself; the following
  ``ROLLBACK`` then fails with "No active transaction", which is ignored.
* ``COPY`` inside an explicit transaction followed by ``ROLLBACK`` crashed the process (segfault) on the
  next ``COPY``; bulk loads therefore run each COPY in its own auto-commit transaction, after validating
  every endpoint in pandas so that a COPY does not fail half-way.
* ``MATCH ... MERGE`` with an ``UNWIND`` row whose endpoint does not exist silently writes nothing; every
  batched write returns its row count and a shortfall is reported with the missing ids.
"""

from __future__ import annotations

import json
import os
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ladybug as lb
import pandas as pd
from tqdm.auto import tqdm

from engram_kit.errors import (
    DataError,
    QueryError,
    ReadOnlyError,
    WorkspaceError,
    WorkspaceLockedError,
)
from engram_kit.kg.schema import HETIONET_SCHEMA, GraphSchema
from engram_kit.store.isolated import IsolatedReader
from engram_kit.store.cypher import (
    LITERATURE_LABELS,
    LITERATURE_REL_TYPES,
    META_LABEL,
    schema_statements,
    statement,
)
from engram_kit.store.cypher_store import (  # re-exported: names callers imported from here before the split
    CypherStore,
)

logger = logging.getLogger(__name__)

_LOCK_MESSAGE = "Could not set lock"
_READ_ONLY_MESSAGE = "read-only"
_NO_TRANSACTION_MESSAGE = "No active transaction"


@dataclass
class _SharedDatabase:
    """One LadybugDB ``Database`` per file per process, shared by the stores of that process."""

    database: lb.Database
    read_only: bool
    users: int = 1
    writer_lock: int | None = None  # fd of the writer lock file (see _take_writer_lock), None when read-only


#: Suffix of the writer lock file beside the database file (``graph.lbug.writer``).
WRITER_LOCK_SUFFIX = ".writer"


def _take_writer_lock(path: Path) -> int | None:
    """Take an exclusive ``flock`` on ``<path>.writer``; return its file descriptor (None where flock is missing).

    LadybugDB's own lock is a POSIX ``fcntl`` lock, which the kernel drops when the process closes *any*
    descriptor of the file: a ``shutil.copytree`` or a byte scan of the workspace in the writer's process
    (measured: reading 16 bytes of graph.lbug) let a second process open the workspace for writing. ``flock``
    locks belong to the open file description instead, so this lock holds until the writer closes it.

    Raises
    ------
    WorkspaceLockedError
        If another process holds the writer lock.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: LadybugDB's own lock is all there is
        return None
    lock_path = Path(str(path) + WRITER_LOCK_SUFFIX)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise WorkspaceLockedError(
            f"The graph database {path} is locked: another process (for example a notebook) has the workspace "
            f"open for writing. A dashboard or second process should open it with read_only=True; to write, "
            f"close the other process first."
        ) from None
    return fd


def _drop_writer_lock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the flock


#: Open databases of this process, keyed by resolved file path.
_DATABASES: dict[str, _SharedDatabase] = {}
_DATABASES_LOCK = threading.Lock()


def _acquire_database(path: Path, *, read_only: bool, buffer_pool_size: int) -> lb.Database:
    """Open ``path`` or share this process's open ``Database`` of it.

    LadybugDB locks the file with a POSIX ``fcntl`` lock, which belongs to the *process*: closing a second
    ``Database`` of the same file in the same process (e.g. a read-only one) silently drops the writer's
    lock, after which another process could open the file for writing too (observed with 0.22). So a
    process keeps one ``Database`` per file: a read-only store opened while this process writes shares
    the writer's database (writes are refused by :class:`LadybugStore` itself).

    Raises
    ------
    WorkspaceError
        If a writer is requested while this process has the file open read-only only.
    RuntimeError
        LadybugDB's own errors (the caller converts them).
    """
    key = str(path.resolve())
    with _DATABASES_LOCK:
        shared = _DATABASES.get(key)
        if shared is not None:
            if shared.read_only and not read_only:
                raise WorkspaceError(
                    f"This process already has the graph database {path} open read-only; close those read-only "
                    f"stores (or workspaces) before opening it for writing."
                )
            shared.users += 1
            return shared.database
        writer_lock = None if read_only else _take_writer_lock(path)
        try:
            database = lb.Database(key, read_only=read_only, buffer_pool_size=buffer_pool_size)
        except BaseException:
            _drop_writer_lock(writer_lock)
            raise
        _DATABASES[key] = _SharedDatabase(database, read_only, writer_lock=writer_lock)
        return database


def open_in_this_process(path: Path) -> bool:
    """Whether this process has the database file ``path`` open (through any store)."""
    with _DATABASES_LOCK:
        return str(Path(path).resolve()) in _DATABASES


def _release_database(path: Path) -> None:
    """Drop one user of the shared database of ``path``; close it (and its lock) after the last one."""
    key = str(path.resolve())
    with _DATABASES_LOCK:
        shared = _DATABASES.get(key)
        if shared is None:
            return
        shared.users -= 1
        if shared.users == 0:
            del _DATABASES[key]
            try:
                shared.database.close()
            finally:
                _drop_writer_lock(shared.writer_lock)


class LadybugStore(CypherStore):
    """Embedded LadybugDB graph store (the default backend of a workspace).

    Parameters
    ----------
    path : Path
        The database file (LadybugDB 0.22 keeps one file plus a ``.wal`` next to it). Created, with the
        full schema, when opened for writing; it must already exist for ``read_only=True``.
    read_only : bool
        Open without the write lock: every write method raises :class:`~engram_kit.errors.ReadOnlyError`
        before touching the database. Use this for a dashboard or any second process while a notebook
        has the workspace open. A read-only store sees a snapshot (see the module notes).
    buffer_pool_mb : int or None
        LadybugDB page cache size in MiB; None keeps the backend default (~80 % of RAM, reserved lazily).

    Raises
    ------
    WorkspaceLockedError
        If another process has the database open for writing.
    WorkspaceError
        If ``read_only=True`` and no database exists at ``path``, or it lacks the engram-kit schema.

    Examples
    --------
    >>> with LadybugStore(tmp_path / "graph.lbug") as store:   # doctest: +SKIP
    ...     store.load_knowledge_graph(nodes, edges)
    ...     store.counts()["Gene"]
    """

    dialect = "ladybug"

    def __init__(self, path: Path, *, read_only: bool = False, buffer_pool_mb: int | None = None,
                 schema: GraphSchema | None = None) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.buffer_pool_mb = buffer_pool_mb
        self._db: lb.Database | None = None
        self._conn: lb.Connection | None = None
        self._isolated: IsolatedReader | None = None  # the evidence desk's query process, started on first use
        self._open()
        stored = self._stored_schema()
        if stored is not None and schema is not None and stored != schema:
            self.close()
            raise WorkspaceError(
                f"The graph database {self.path} holds a {stored.name} graph with another schema than the one "
                f"given; open it without a schema (it is stored), or create a new workspace for the new graph."
            )
        #: The domain layer this store holds (stored in the database; Hetionet for stores made before).
        self.schema: GraphSchema = stored or schema or HETIONET_SCHEMA
        if read_only:
            self._check_schema()
        else:
            self.create_schema()

    # --- lifecycle -----------------------------------------------------------------------------------
    def _open(self) -> None:
        if self.read_only and not self.path.exists():
            raise WorkspaceError(
                f"No graph database at {self.path}: a read-only store cannot create one. Open the workspace "
                f"for writing once (read_only=False) to create it, or check the path."
            )
        if not self.read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        pool = 0 if self.buffer_pool_mb is None else int(self.buffer_pool_mb) * 1024 * 1024
        t0 = time.perf_counter()
        try:
            self._db = _acquire_database(self.path, read_only=self.read_only, buffer_pool_size=pool)
        except RuntimeError as exc:
            if _LOCK_MESSAGE in str(exc):
                raise WorkspaceLockedError(
                    f"The graph database {self.path} is locked: another process (for example a notebook) has "
                    f"the workspace open for writing. A dashboard or second process should open it with "
                    f"read_only=True; to write, close the other process first. (LadybugDB: {exc})"
                ) from exc
            raise WorkspaceError(f"Could not open the graph database {self.path}: {exc}") from exc
        try:
            self._conn = lb.Connection(self._db)
        except RuntimeError as exc:
            _release_database(self.path)
            self._db = None
            raise WorkspaceError(f"Could not connect to the graph database {self.path}: {exc}") from exc
        logger.debug("Opened %s (read_only=%s) in %.3f s", self.path, self.read_only, time.perf_counter() - t0)

    def reopen(self) -> None:
        """Close and open the database again, e.g. so a read-only store sees the writer's latest commits."""
        self.close()
        self._open()

    def close(self) -> None:
        """Release the connection, and the database and its lock when no other store of this process
        uses it; idempotent."""
        conn, db = self._conn, self._db
        self._conn, self._db = None, None
        if self._isolated is not None:
            self._isolated.close()
            self._isolated = None
        if conn is not None:
            conn.close()
        if db is not None:
            _release_database(self.path)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._conn is None

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self.read_only else "read-write")
        return f"LadybugStore({str(self.path)!r}, {state})"

    # --- low-level execution -------------------------------------------------------------------------
    def _connection(self) -> lb.Connection:
        if self._conn is None:
            raise WorkspaceError(f"The graph store {self.path} is closed; open a new LadybugStore.")
        return self._conn

    def _require_writable(self, operation: str) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"{operation} needs write access, but the graph store {self.path} was opened read-only. "
                f"Write from the process that opened the workspace with read_only=False."
            )
        self._connection()

    def _execute(self, cypher: str, parameters: dict[str, Any] | None = None, *,
                 what: str = "query") -> pd.DataFrame:
        """Run one statement; LadybugDB's RuntimeError becomes an engram-kit error naming ``what``."""
        conn = self._connection()
        try:
            result = conn.execute(cypher, parameters or {})
        except RuntimeError as exc:
            message = str(exc)
            if _READ_ONLY_MESSAGE in message:
                raise ReadOnlyError(
                    f"{what} tried to write to the graph store {self.path}, which was opened read-only."
                ) from exc
            raise QueryError(f"LadybugDB failed on {what}: {message}") from exc
        if isinstance(result, list):  # several statements in one string: keep the last result
            result = result[-1]
        return result.get_as_df()

    @contextmanager
    def _transaction(self, *, read_only: bool = False) -> Iterator[None]:
        """``BEGIN TRANSACTION [READ ONLY]`` ... ``COMMIT``; ``ROLLBACK`` on any exception, then re-raise."""
        conn = self._connection()
        conn.execute("BEGIN TRANSACTION READ ONLY" if read_only else "BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            try:
                conn.execute("ROLLBACK")
            except RuntimeError as exc:  # a failed statement already rolled the transaction back
                if _NO_TRANSACTION_MESSAGE not in str(exc):
                    logger.error("ROLLBACK failed on %s: %s", self.path, exc)
            raise
        conn.execute("COMMIT")

    # --- schema --------------------------------------------------------------------------------------
    def create_schema(self) -> None:
        """Create the node and rel tables of :attr:`schema` and the literature layer if missing, and store the
        schema in the metadata table; idempotent.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        """
        self._require_writable("create_schema")
        for ddl in schema_statements(self.dialect, self.schema):
            self._execute(ddl, what="schema creation")
        self._run("write_meta", {"key": "graph_schema", "value": json.dumps(self.schema.to_dict())})

    def _stored_schema(self) -> GraphSchema | None:
        """The schema kept in the metadata table, or None (new database, or one made before the table)."""
        if META_LABEL not in self._table_names():
            return None
        frame = self._execute(statement("read_meta", self.dialect), what="reading the stored graph schema")
        value = dict(zip(frame["key"], frame["value"])).get("graph_schema")
        return GraphSchema.from_dict(json.loads(value)) if value else None

    def _table_names(self) -> set[str]:
        frame = self._execute("CALL show_tables() RETURN name", what="listing tables")
        return set(frame["name"])

    def _check_schema(self) -> None:
        expected = set(self.schema.labels + self.schema.rel_types + LITERATURE_LABELS + LITERATURE_REL_TYPES)
        missing = sorted(expected - self._table_names())
        if missing:
            self.close()
            raise WorkspaceError(
                f"The graph database {self.path} lacks the engram-kit tables {', '.join(missing[:8])}"
                f"{'...' if len(missing) > 8 else ''}: it was not created by engram-kit or by an older "
                f"version. Open it once with read_only=False to create the schema."
            )

    # --- bulk load -----------------------------------------------------------------------------------
    def load_knowledge_graph(self, nodes: pd.DataFrame, edges: pd.DataFrame, *, progress: bool = True) -> None:
        """Bulk-load the domain layer of :attr:`schema` with one ``COPY`` per node label and per (relationship
        type, endpoint label pair).

        Parameters
        ----------
        nodes : DataFrame
            Columns :data:`~engram_kit.store.base.NODE_COLUMNS` (``id, kind, identifier, name``) plus any other
            node property of the schema (KGX: ``category, synonyms, ...``); ``kind`` a kind or label of the
            schema (``"Side Effect"``/``"SideEffect"``); ids unique.
        edges : DataFrame
            ``source, target`` and either ``rel_type`` (``"HAS_PHENOTYPE"``) or Hetionet's ``metaedge``
            (``"CbG"``); both endpoints must be nodes of a label pair the schema allows for the type. Property
            columns named in the schema are stored (strings, or booleans for BOOLEAN properties such as KGX
            ``negated``; missing values as NULL/False).
        progress : bool
            Show a tqdm bar over the tables.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        DataError
            If a column is missing, a kind or metaedge is unknown, an id is duplicated, an edge endpoint is
            not a node of the right kind, or the domain layer is already loaded (load into a new workspace).

        Notes
        -----
        Full shared Hetionet partial (47,031 nodes, 1,359,477 edges), 2 cores: 5-8 s, a 50 MiB file,
        reopened in under 0.1 s (``benchmarks/store_load.py``).
        """
        self._require_writable("load_knowledge_graph")
        node_frames = self._node_frames(nodes)
        edge_frames = self._edge_frames(edges, nodes)
        if not self._domain_is_empty():
            raise DataError(
                f"The graph store {self.path} already holds a knowledge graph; load_knowledge_graph only fills "
                f"an empty domain layer. Create a new workspace to load a different graph."
            )
        t0 = time.perf_counter()
        tables = [((label, None), frame) for label, frame in node_frames.items()] + list(edge_frames.items())
        for (table, pair), frame in tqdm(tables, desc="COPY tables", disable=not progress, unit="table"):
            if pair is None:
                cypher = statement("copy_node_table", self.dialect, schema=self.schema, label=table)
            elif len(self.schema.rel_spec(table).pairs) > 1:
                cypher = statement("copy_rel_table_pair", self.dialect, schema=self.schema, rel_type=table,
                                   source_label=pair[0], target_label=pair[1])
            else:
                cypher = statement("copy_rel_table", self.dialect, schema=self.schema, rel_type=table)
            try:  # the frame goes in as a parameter: LadybugDB scans it directly (pybind backend)
                self._connection().execute(cypher, {"frame": frame})
            except RuntimeError as exc:
                raise DataError(
                    f"Bulk COPY into {table} ({len(frame)} rows) failed: {exc}. Tables copied before it stay "
                    f"loaded; delete the workspace's graph file and load again after fixing the input."
                ) from exc
        logger.info("Loaded %d nodes and %d edges into %s in %.1f s", len(nodes), len(edges), self.path,
                    time.perf_counter() - t0)

    # --- queries -------------------------------------------------------------------------------------
    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> pd.DataFrame:
        """Run one Cypher statement and return its rows (no guard: the evidence desk guards).

        Raises
        ------
        ReadOnlyError
            If the statement writes and the store is read-only.
        QueryError
            If LadybugDB rejects or fails the statement (the message carries LadybugDB's reason).
        """
        if not self.read_only:
            return self._execute(cypher, parameters, what="the user query")
        with self._transaction(read_only=True):  # blocks writes even on a writer's shared database
            return self._execute(cypher, parameters, what="the user query")

    def read_only_query(self, cypher: str, parameters: dict[str, Any] | None = None, *,
                        timeout_s: float = 10.0, max_rows: int = 100_000, max_bytes: int = 64 * 1024 * 1024,
                        max_memory_mb: int = 2048) -> pd.DataFrame:
        """Run one untrusted read in a child process with enforced limits (the evidence desk's executor).

        The child (:class:`~engram_kit.store.isolated.IsolatedReader`, started on first use and reused)
        opens this database read-only, refuses a plan with file or write operators, runs the query in a
        ``READ ONLY`` transaction with LadybugDB's timeout, streams at most ``max_rows + 1`` rows and
        ``max_bytes`` of them, and is killed at the hard backstop or past ``max_memory_mb``. The caller's
        process, its connection and the workspace are never at risk.

        Parameters
        ----------
        timeout_s : float
            LadybugDB's query timeout, seconds (> 0); the child is killed ``max(2, timeout_s)`` s later.
        max_rows, max_bytes : int
            Streaming caps (>= 1): rows past ``max_rows + 1`` or past ``max_bytes`` of JSON are not read.
        max_memory_mb : int
            Resident memory cap of the child, MiB (>= 128).

        Returns
        -------
        pandas.DataFrame
            The rows read (object columns), at most ``max_rows + 1``.

        Raises
        ------
        QueryGuardError
            The plan holds a file/write operator or the database refused a write.
        QueryError
            Timeout, memory cap, a crash of the child, or any other database error.
        """
        from engram_kit.store.isolated import IsolatedLimits

        self._connection()  # a closed store refuses here, as every other method does
        if self._isolated is None:
            self._isolated = IsolatedReader(self.path)
        limits = IsolatedLimits(timeout_s=timeout_s, grace_s=max(2.0, timeout_s), max_rows=max_rows,
                                max_bytes=max_bytes, max_memory_mb=max_memory_mb)
        result = self._isolated.run(cypher, parameters, limits)
        frame = pd.DataFrame.from_records(result.rows, columns=result.columns) if result.rows else \
            pd.DataFrame(columns=result.columns)
        frame.attrs["cut"] = result.cut
        return frame


# --- batch preparation -------------------------------------------------------------------------------
