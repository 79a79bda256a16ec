"""The embedded graph store: LadybugDB (the maintained fork of Kuzu), one database file per workspace.

:class:`LadybugStore` implements :class:`~engram_kit.store.base.GraphStore`. The Hetionet domain layer is
bulk-loaded with ``COPY ... FROM`` a pandas DataFrame (one COPY per node label and per metaedge); the
literature layer is written in one transaction per :class:`~engram_kit.records.LiteratureBatch` with
``LOAD FROM`` over Arrow tables of the batch's rows (:meth:`LadybugStore._run_rows`), ``CREATE`` where an
edge cannot exist yet and no write for an unchanged MAPS_TO edge (:meth:`LadybugStore._insert_batch_rows`).
All Cypher comes from its statement pack, :data:`~engram_kit.store.statements.ladybug.LADYBUG_STATEMENTS`.

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
  every endpoint in pandas so that a COPY does not fail half-way. (Not reproduced at literature-batch
  scale: small COPYs into non-empty tables inside a transaction committed and rolled back cleanly. But a
  COMMIT after a COPY checkpoints the database, 0.7 s for a batch of 256 abstracts, so literature writes
  use ``LOAD FROM``, which keeps the write-ahead log.)
* ``Connection.execute`` caches a prepared statement per DataFrame/Arrow parameter *object* for the
  connection's life, ~13 MiB each for a COPY; statements with a table parameter are prepared explicitly and
  freed after the call (:func:`_execute_with_table`).
* ``MATCH ... MERGE`` with an ``UNWIND`` row whose endpoint does not exist silently writes nothing; every
  batched write returns its row count and a shortfall is reported with the missing ids.
"""

from __future__ import annotations

import json
import os
import logging
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ladybug as lb
import pandas as pd
import pyarrow as pa
from engram_kit.progress import tqdm

from engram_kit.errors import (
    DataError,
    QueryError,
    ReadOnlyError,
    WorkspaceError,
    WorkspaceLockedError,
)
from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.store.isolated import IsolatedReader
from engram_kit.store.cypher import LITERATURE_LABELS, LITERATURE_REL_TYPES, META_LABEL
from engram_kit.store.cypher_store import (  # re-exported: names callers imported from here before the split
    CypherStore,
)
from engram_kit.store.statements.ladybug import (
    FRAME_STATEMENTS,
    LADYBUG_STATEMENTS,
    MAPS_TO_FRAME_COLUMNS,
    MENTION_FRAME_COLUMNS,
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
    schema : GraphSchema or None
        The domain layer a new database is made for (the workspace's graph format gives it). None opens an
        existing database with the schema it stores; no graph format is assumed.

    Raises
    ------
    WorkspaceLockedError
        If another process has the database open for writing.
    WorkspaceError
        If ``read_only=True`` and no database exists at ``path``, or it lacks the engram-kit schema, or
        ``schema`` differs from the one the database stores.
    DataError
        If ``schema`` is None and the database stores none (new, or made before schemas were stored): pass
        ``schema=`` (a Hetionet store made before then: the Hetionet format's schema).

    Examples
    --------
    >>> with LadybugStore(tmp_path / "graph.lbug", schema=kg.schema) as store:   # doctest: +SKIP
    ...     store.load_knowledge_graph(nodes, edges)
    ...     store.counts()["Gene"]
    """

    statements = LADYBUG_STATEMENTS

    def __init__(self, path: Path, *, read_only: bool = False, buffer_pool_mb: int | None = None,
                 schema: GraphSchema | None = None) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.buffer_pool_mb = buffer_pool_mb
        self._db: lb.Database | None = None
        self._conn: lb.Connection | None = None
        # Threads (issue 31 item 1): the opening thread uses _conn; every other thread gets its own connection
        # (a LadybugDB connection holds one transaction: a second thread's read inside a writer's open
        # transaction hung there), and write transactions take _write_lock (the engine allows one writer).
        self._thread_conns: threading.local = threading.local()
        self._other_conns: list[lb.Connection] = []
        self._owner = threading.get_ident()
        self._write_lock = threading.RLock()
        self._isolated_lock = threading.Lock()
        self._isolated: IsolatedReader | None = None  # the evidence desk's query process, started on first use
        if schema is None and not read_only and not self.path.exists():
            require_schema(schema, f"A new LadybugStore at {self.path}")
        self._open()
        stored = self._stored_schema()
        if stored is not None and schema is not None and stored != schema:
            self.close()
            raise WorkspaceError(
                f"The graph database {self.path} holds a {stored.name} graph with another schema than the one "
                f"given; open it without a schema (it is stored), or create a new workspace for the new graph."
            )
        if stored is None and schema is None:
            self.close()
            require_schema(schema, f"The graph database {self.path} (it stores no graph schema)")
        #: The domain layer this store holds (stored in the database, else the one given).
        self.schema: GraphSchema = require_schema(stored or schema, "LadybugStore")
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
        others, self._other_conns = self._other_conns, []
        for other in others:
            other.close()
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
        if self._conn is None or self._db is None:
            raise WorkspaceError(f"The graph store {self.path} is closed; open a new LadybugStore.")
        if threading.get_ident() == self._owner:
            return self._conn
        conn = getattr(self._thread_conns, "conn", None)
        if conn is None or getattr(self._thread_conns, "db", None) is not self._db:  # new thread, or reopened
            conn = lb.Connection(self._db)
            self._thread_conns.conn, self._thread_conns.db = conn, self._db
            self._other_conns.append(conn)
        return conn

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
            if parameters and any(isinstance(v, _TABLE_TYPES) for v in parameters.values()):
                result = _execute_with_table(conn, cypher, parameters)
            else:
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
        with nullcontext() if read_only else self._write_lock:  # one write transaction at a time
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

    # --- literature writes ---------------------------------------------------------------------------
    def _run_rows(self, name: str, rows: list[dict[str, Any]], **identifiers: str) -> int:
        """Run a literature write on an Arrow table of ``rows`` (its ``LOAD FROM $frame`` form in
        :data:`~engram_kit.store.statements.ladybug.FRAME_STATEMENTS`), else as the base's ``UNWIND $rows`` chunks.

        Same clauses and returned count as the ``UNWIND`` form; measured on 256 shared abstracts per batch
        the node and edge writes take a third to a sixth of the CPU (the engine scans typed columns, and
        ladybug's Python wrapper no longer walks every value of ``$rows`` to type the parameter).
        """
        form = FRAME_STATEMENTS.get(name)
        if form is None or not rows:
            return super()._run_rows(name, rows, **identifiers)
        return self._run_frame(form[0], form[1], rows, **identifiers)

    def _run_frame(self, name: str, columns: dict[str, str], rows: list[dict[str, Any]], **identifiers: str) -> int:
        """Run the ``LOAD FROM $frame ... RETURN count(..) AS n`` statement ``name`` on an Arrow table of ``rows``
        (keys ``columns``, of those LadybugDB types); return its count (0, without running it, for no rows)."""
        if not rows:
            return 0
        return self._run_count(name, {"frame": _rows_table(rows, columns)}, **identifiers)

    def _any_article_stored(self, article_ids: list[str]) -> bool:
        """Primary-key lookups of ``article_ids`` (the base's ``IN $ids`` filter scans the Article table)."""
        return self._run_frame("load_count_articles", {"id": "STRING"}, [{"id": i} for i in article_ids]) > 0

    def _insert_batch_rows(self, rows: dict[str, Any]) -> None:
        """The base's writes, with ``CREATE`` for the edges that cannot exist yet and none for unchanged ones.

        Runs inside :meth:`write_literature`'s transaction after the stored versions of the batch's
        articles were deleted, so its articles, sections and passages are new: a MENTIONS edge from one of
        them to a NounPhrase of the batch is created (``_batch_rows`` summed repeated pairs into one row).
        MAPS_TO rows of the batch's NounPhrases are compared with the edges stored for them (one lookup): a
        pair not stored is created, a pair stored with the same confidence and method is left alone (the
        base's ``MERGE ... SET`` would write the same values), a pair stored with others gets them with one
        ``SET`` over all labels. MAPS_TO of NounPhrases outside the batch, and MENTIONS whose source the
        batch does not write, keep the base's ``MERGE``. Shortfalls raise the base's DataErrors (a MAPS_TO to
        an entity that is not in the graph names the missing entities).

        Notes
        -----
        MAPS_TO has one statement per entity label (LadybugDB refuses to CREATE a rel bound to a label
        union), ~2 CPU-ms each whatever the rows; the base's MERGE form costs 5-17 ms each. ``COPY`` would
        avoid both, but a COMMIT after a COPY checkpoints the database: measured 0.7 s per batch of 256
        abstracts with the batch's 18 COPYs, more than the whole UNWIND write.
        """
        nounphrase_ids = {r["id"] for r in rows["nounphrases"]}
        links = self._stored_links(nounphrase_ids) if rows["maps_to"] and nounphrase_ids else {}
        sources = {"Article": {r["id"] for r in rows["articles"]}, "Section": {r["id"] for r in rows["sections"]},
                   "Passage": {r["id"] for r in rows["passages"]}}
        created_mentions: dict[str, list[dict[str, Any]]] = {}
        merged_mentions: dict[str, list[dict[str, Any]]] = {}
        for label, label_rows in rows["mentions"].items():
            new = sources.get(label, set())
            created_mentions[label], merged_mentions[label] = _split(
                label_rows, lambda r: r["source_id"] in new and r["nounphrase_id"] in nounphrase_ids)
        created_maps_to: dict[str, list[dict[str, Any]]] = defaultdict(list)
        merged_maps_to: dict[str, list[dict[str, Any]]] = defaultdict(list)
        updated_maps_to: list[dict[str, Any]] = []
        for label, label_rows in rows["maps_to"].items():
            for row in label_rows:
                if row["nounphrase_id"] not in nounphrase_ids:
                    merged_maps_to[label].append(row)  # not written by the batch: the base checks it exists
                    continue
                stored = links.get((row["nounphrase_id"], row["entity_id"]))
                if stored is None:
                    created_maps_to[label].append(row)
                elif stored != {(row["confidence"], row["method"])}:
                    updated_maps_to.append(row)
        super()._insert_batch_rows({**rows, "mentions": {k: v for k, v in merged_mentions.items() if v},
                                    "maps_to": dict(merged_maps_to)})
        for label, label_rows in created_mentions.items():
            self._expect(self._run_frame("load_create_mentions", MENTION_FRAME_COLUMNS, label_rows, label=label),
                         label_rows, f"MENTIONS from {label} (do the {label} and NounPhrase ids exist?)")
        for label, label_rows in created_maps_to.items():
            if self._run_frame("load_create_maps_to", MAPS_TO_FRAME_COLUMNS, label_rows,
                               label=label) != len(label_rows):
                self._raise_missing_entities(label, label_rows)
        # The edges were read in this transaction, so each row updates at least one edge.
        if self._run_frame("load_update_maps_to", MAPS_TO_FRAME_COLUMNS, updated_maps_to) < len(updated_maps_to):
            raise DataError(f"only some of {len(updated_maps_to)} stored MAPS_TO edges were updated.")

    def _stored_links(self, nounphrase_ids: set[str]) -> dict[tuple[str, str], set[tuple[float, str]]]:
        """Stored MAPS_TO edges of ``nounphrase_ids``: (NounPhrase id, entity id) -> {(confidence, method)}."""
        table = _rows_table([{"id": i} for i in sorted(nounphrase_ids)], {"id": "STRING"})
        frame = self._run("load_nounphrase_links", {"frame": table})
        links: dict[tuple[str, str], set[tuple[float, str]]] = defaultdict(set)
        for nounphrase_id, entity_id, confidence, method in frame.itertuples(index=False, name=None):
            links[(nounphrase_id, entity_id)].add((float(confidence), method))
        return links

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
        for ddl in self.statements.ddl(self.schema):
            self._execute(ddl, what="schema creation")
        self._run("write_meta", {"key": "graph_schema", "value": json.dumps(self.schema.to_dict())})

    def _stored_schema(self) -> GraphSchema | None:
        """The schema kept in the metadata table, or None (new database, or one made before the table)."""
        if META_LABEL not in self._table_names():
            return None
        frame = self._execute(self.statements.statement("read_meta"), what="reading the stored graph schema")
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
                cypher = self.statements.statement("copy_node_table", schema=self.schema, label=table)
            elif len(self.schema.rel_spec(table).pairs) > 1:
                cypher = self.statements.statement("copy_rel_table_pair", schema=self.schema, rel_type=table,
                                   source_label=pair[0], target_label=pair[1])
            else:
                cypher = self.statements.statement("copy_rel_table", schema=self.schema, rel_type=table)
            try:  # the frame goes in as a parameter: LadybugDB scans it directly (pybind backend)
                _execute_with_table(self._connection(), cypher, {"frame": frame})
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
        with self._isolated_lock:  # threads: one query process per store
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
#: Parameter values LadybugDB scans as a table (``COPY ... FROM $frame``, ``LOAD FROM $frame``).
_TABLE_TYPES: tuple[type, ...] = (pd.DataFrame, pa.Table)
_ARROW_TYPES: dict[str, pa.DataType] = {"STRING": pa.string(), "INT64": pa.int64(), "DOUBLE": pa.float64()}


def _execute_with_table(conn: lb.Connection, cypher: str, parameters: dict[str, Any]) -> Any:
    """Run a statement with a DataFrame/Arrow parameter through a prepared statement freed after the call.

    ``Connection.execute`` caches the prepared statement of every call under a key holding the table
    object's identity, so each new table adds an entry that lives as long as the connection, and a prepared
    ``COPY`` holds ~13 MiB (measured, LadybugDB 0.22: 150 one-row COPYs grew the process by 2 GiB; an OOM
    kill after ~1,900). An explicit ``prepare`` (deprecated by ladybug in favour of ``execute`` alone, but
    the public way around that cache) is released when it goes out of scope: memory stays flat.

    Raises
    ------
    RuntimeError
        LadybugDB's error (the caller converts it).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        prepared = conn.prepare(cypher, parameters)
    if not prepared.is_success():
        raise RuntimeError(prepared.get_error_message())
    return conn.execute(prepared, parameters)


def _rows_table(rows: list[dict[str, Any]], columns: dict[str, str]) -> pa.Table:
    """An Arrow table of ``rows`` (dicts), one column per key of ``columns`` with its LadybugDB type
    (``STRING``/``INT64``/``DOUBLE``); None is NULL.

    Typed explicitly: inferring from values would make an all-None column ``null``, and a pandas frame turns
    a nullable int column into floats (pandas' nullable ``Int64`` trips an assertion in LadybugDB's numpy scan).
    """
    return pa.table({name: pa.array([r[name] for r in rows], type=_ARROW_TYPES[type_])
                     for name, type_ in columns.items()})


def _split(rows: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> tuple[list[dict[str, Any]],
                                                                                     list[dict[str, Any]]]:
    """``(rows passing test, the others)``, order kept."""
    yes: list[dict[str, Any]] = []
    no: list[dict[str, Any]] = []
    for row in rows:
        (yes if test(row) else no).append(row)
    return yes, no
