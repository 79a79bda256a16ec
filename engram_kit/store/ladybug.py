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
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ladybug as lb
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from engram_kit.errors import (
    DataError,
    EngramError,
    IngestionError,
    QueryError,
    QueryGuardError,
    ReadOnlyError,
    WorkspaceError,
    WorkspaceLockedError,
)
from engram_kit.kg.schema import HETIONET_SCHEMA, GraphSchema
from engram_kit.records import STATUSES, LiteratureBatch, SameAsEdge
from engram_kit.store.base import EDGE_COLUMNS, NODE_COLUMNS, GraphStore
from engram_kit.store.isolated import IsolatedReader
from engram_kit.store.cypher import (
    LITERATURE_LABELS,
    LITERATURE_NODE_PROPERTIES,
    LITERATURE_REL_TYPES,
    META_LABEL,
    MENTION_SOURCE_LABELS,
    schema_statements,
    statement,
)

logger = logging.getLogger(__name__)

#: Rows per ``UNWIND $rows`` statement in literature writes (bigger lists plan worse, smaller ones
#: pay per-statement overhead; 2,000 measured near-optimal for 10k-row batches).
UNWIND_CHUNK_ROWS = 2_000
#: Prefix of NounPhrase ids (see :mod:`engram_kit.records`).
NOUNPHRASE_PREFIX = "np:"
#: Columns of :meth:`LadybugStore.get_nodes`.
NODE_FRAME_COLUMNS: tuple[str, ...] = ("id", "label", "name")
#: Columns of :meth:`LadybugStore.edges_among` and :meth:`LadybugStore.domain_edges`.
EDGE_FRAME_COLUMNS: tuple[str, ...] = ("source", "target", "rel_type")
#: Columns of :meth:`LadybugStore.literature_edges`.
LITERATURE_EDGE_COLUMNS: tuple[str, ...] = ("source", "target", "rel_type", "weight")
#: Columns of :meth:`LadybugStore.passage_mentions`.
PASSAGE_MENTION_COLUMNS: tuple[str, ...] = (
    "passage_id", "nounphrase_id", "mention", "entity_id", "entity_name", "entity_label", "confidence", "method",
)
_NULLABLE_INT_COLUMNS: tuple[str, ...] = ("year", "page_start", "page_end")
_LOCK_MESSAGE = "Could not set lock"
_READ_ONLY_MESSAGE = "read-only"
_NO_TRANSACTION_MESSAGE = "No active transaction"


@dataclass
class _SharedDatabase:
    """One LadybugDB ``Database`` per file per process, shared by the stores of that process."""

    database: lb.Database
    read_only: bool
    users: int = 1


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
        database = lb.Database(key, read_only=read_only, buffer_pool_size=buffer_pool_size)
        _DATABASES[key] = _SharedDatabase(database, read_only)
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
            shared.database.close()


def _chunks(rows: list[dict[str, Any]], size: int = UNWIND_CHUNK_ROWS) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def _label_of_id(node_id: str, schema: GraphSchema = HETIONET_SCHEMA) -> str | None:
    """Graph label of a node id: ``"Gene::7157"`` -> ``"Gene"``, ``"Gene::HGNC:10848"`` -> ``"Gene"`` (KGX),
    ``"np:..."`` -> ``"NounPhrase"``; None when the prefix is no kind or label of ``schema``."""
    if node_id.startswith(NOUNPHRASE_PREFIX):
        return "NounPhrase"
    kind, sep, _ = node_id.partition("::")
    if not sep:
        return None
    return schema.kinds.get(kind) or (kind if kind in schema.labels else None)


def _text_column(values: pd.Series) -> pd.Series:
    """Strings with missing values as None (LadybugDB NULL), never the text ``"nan"``."""
    return values.astype(object).where(values.notna(), None).map(lambda v: v if v is None else str(v))


class LadybugStore(GraphStore):
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

    def _run(self, name: str, parameters: dict[str, Any] | None = None, **identifiers: str) -> pd.DataFrame:
        return self._execute(statement(name, self.dialect, schema=self.schema, **identifiers), parameters,
                             what=f"statement {name!r}" + (f" {identifiers}" if identifiers else ""))

    def _run_count(self, name: str, parameters: dict[str, Any] | None = None, **identifiers: str) -> int:
        frame = self._run(name, parameters, **identifiers)
        return int(frame.iloc[0, 0]) if len(frame) else 0

    def _run_rows(self, name: str, rows: list[dict[str, Any]], **identifiers: str) -> int:
        """Run an ``UNWIND $rows`` statement in chunks; return the summed count it reports."""
        return sum(self._run_count(name, {"rows": chunk}, **identifiers) for chunk in _chunks(rows))

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
    def _domain_is_empty(self) -> bool:
        return all(self._run_count("count_nodes", label=label) == 0 for label in self.schema.labels)

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

    def _node_labels(self, nodes: pd.DataFrame) -> pd.Series:
        """Label of every row of a node frame (its ``kind`` through the schema)."""
        return nodes["kind"].map({kind: self.schema.label_of_kind(str(kind)) for kind in nodes["kind"].unique()})

    def _node_frames(self, nodes: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """Split the node frame by label into COPY-ready frames (the schema's node properties, in order)."""
        missing = [c for c in NODE_COLUMNS if c not in nodes.columns]
        if missing:
            raise DataError(f"Node frame lacks columns {missing}; expected {list(NODE_COLUMNS)}.")
        duplicated = nodes["id"][nodes["id"].duplicated()]
        if len(duplicated):
            raise DataError(f"Node frame has {len(duplicated)} duplicated ids, e.g. {duplicated.iloc[0]!r}; "
                            f"ids must be unique.")
        labels = self._node_labels(nodes)
        out: dict[str, pd.DataFrame] = {}
        for label in self.schema.labels:
            part = nodes[labels == label]
            if len(part):
                out[label] = pd.DataFrame({
                    prop: (part["id"].astype(str).to_numpy() if prop == "id"
                           else _text_column(part[prop]).to_numpy() if prop in part.columns
                           else np.full(len(part), None, dtype=object))
                    for prop in self.schema.node_properties
                })
        return out

    def _edge_rel_types(self, edges: pd.DataFrame) -> pd.Series:
        """Relationship type of every edge row: its ``rel_type`` column, else its Hetionet ``metaedge``."""
        if "rel_type" in edges.columns:
            names = edges["rel_type"]
        elif "metaedge" in edges.columns:
            names = edges["metaedge"]
        else:
            raise DataError(f"Edge frame needs a 'rel_type' (or Hetionet 'metaedge') column; has {list(edges.columns)}.")
        return names.map({name: self.schema.rel_spec(str(name)).rel_type for name in names.unique()})

    def _edge_frames(self, edges: pd.DataFrame,
                     nodes: pd.DataFrame) -> dict[tuple[str, tuple[str, str]], pd.DataFrame]:
        """Split the edge frame by (relationship type, endpoint label pair) into COPY-ready frames, checking
        that every endpoint is a node whose label pair the schema allows for that type."""
        missing = [c for c in ("source", "target") if c not in edges.columns]
        if missing:
            raise DataError(f"Edge frame lacks columns {missing}; expected {list(EDGE_COLUMNS)}.")
        label_of = pd.Series(self._node_labels(nodes).to_numpy(), index=nodes["id"].astype(str).to_numpy())
        sources, targets = edges["source"].astype(str), edges["target"].astype(str)
        keys = pd.DataFrame({"rel_type": self._edge_rel_types(edges).to_numpy(),
                             "source_label": label_of.reindex(sources.to_numpy()).to_numpy(),
                             "target_label": label_of.reindex(targets.to_numpy()).to_numpy()}, index=edges.index)
        out: dict[tuple[str, tuple[str, str]], pd.DataFrame] = {}
        for (rel_type, source_label, target_label), index in keys.groupby(
                ["rel_type", "source_label", "target_label"], sort=False, dropna=False).groups.items():
            spec = self.schema.rel_spec(str(rel_type))
            pair = (source_label, target_label)
            if pair not in spec.pairs:
                end = "source" if all(source_label != p[0] for p in spec.pairs) else "target"
                example = (sources if end == "source" else targets).loc[index[0]]
                allowed = ", ".join(f"{a}->{b}" for a, b in spec.pairs)
                raise DataError(
                    f"{len(index)} {spec.predicate} edges have a {end} that is not a node of an allowed kind "
                    f"({allowed}) in the node frame, e.g. {example!r}; fix the edge file or add the node."
                )
            part = edges.loc[index]
            frame = pd.DataFrame({"from": sources.loc[index].to_numpy(), "to": targets.loc[index].to_numpy()})
            for prop, type_ in self.schema.rel_properties.items():
                if prop not in part.columns:
                    frame[prop] = np.full(len(part), False if type_ == "BOOLEAN" else None, dtype=object)
                elif type_ == "BOOLEAN":
                    frame[prop] = part[prop].fillna(False).astype(bool).to_numpy()
                else:
                    frame[prop] = _text_column(part[prop]).to_numpy()
            out[(spec.rel_type, pair)] = frame
        return out

    # --- literature writes ---------------------------------------------------------------------------
    def write_literature(self, batch: LiteratureBatch) -> None:
        """Write one batch atomically (all or nothing); re-writing the same batch is idempotent.

        Articles already stored with the same ids are replaced: their sections, passages and MENTIONS
        edges are deleted first, in the same transaction, and NounPhrases they alone mentioned are removed
        at the end unless the batch mentions them again. NounPhrases are merged on id; MAPS_TO edges are
        merged with their confidence and method updated; SAME_AS edges are merged.

        Raises
        ------
        ReadOnlyError
            On a read-only store (nothing is written).
        IngestionError
            If anything fails: the transaction is rolled back, so nothing of the batch is left and the
            previously stored data is intact. The message names the batch's article ids and the cause
            (e.g. a MAPS_TO to an entity that is not in the graph, a passage whose section is missing).

        Notes
        -----
        Statements are ``UNWIND $rows`` in chunks of :data:`UNWIND_CHUNK_ROWS`. Measured on 2 cores: 1,000
        one-passage articles with 10 mentions each (10,000 MENTIONS, ~8,000 new NounPhrases and MAPS_TO)
        in 1.8 s on top of the full Hetionet partial (``benchmarks/store_load.py``); 0.35 s on the test
        slice.
        """
        self._require_writable("write_literature")
        if not any((batch.articles, batch.sections, batch.passages, batch.nounphrases, batch.mentions,
                    batch.maps_to, batch.same_as)):
            return
        article_ids = [a.id for a in batch.articles]
        t0 = time.perf_counter()
        try:
            rows = _batch_rows(batch, self.schema)
            with self._transaction():
                self._write_batch_rows(article_ids, rows)
        except EngramError as exc:
            raise IngestionError(
                f"Literature batch of {len(article_ids)} articles ({_preview(article_ids)}) was not written, "
                f"nothing of it is stored: {exc}"
            ) from exc
        except Exception as exc:
            raise IngestionError(
                f"Literature batch of {len(article_ids)} articles ({_preview(article_ids)}) was not written, "
                f"nothing of it is stored: unexpected {type(exc).__name__}: {exc}"
            ) from exc
        logger.info("Wrote %d articles, %d passages, %d mentions to %s in %.2f s", len(batch.articles),
                    len(batch.passages), len(batch.mentions), self.path, time.perf_counter() - t0)

    def _write_batch_rows(self, article_ids: list[str], rows: dict[str, Any]) -> None:
        """Body of :meth:`write_literature`; runs inside the transaction, raises on any shortfall."""
        orphan_candidates = self._nounphrases_of_articles(article_ids)
        self._delete_articles_content(article_ids)
        self._expect(self._run_rows("create_articles", rows["articles"]), rows["articles"], "articles")
        self._expect(self._run_rows("create_sections", rows["sections"]), rows["sections"],
                     "sections (is each section's article in the batch?)")
        self._expect(self._run_rows("create_passages", rows["passages"]), rows["passages"],
                     "passages (is each passage's section in the batch?)")
        self._expect(self._run_rows("merge_nounphrases", rows["nounphrases"]), rows["nounphrases"], "nounphrases")
        for label, label_rows in rows["mentions"].items():
            self._expect(self._run_rows("merge_mentions", label_rows, label=label), label_rows,
                         f"MENTIONS from {label} (do the {label} and NounPhrase ids exist?)")
        for label, label_rows in rows["maps_to"].items():
            written = self._run_rows("merge_maps_to", label_rows, label=label)
            if written != len(label_rows):
                self._raise_missing_entities(label, label_rows)
        self._expect(self._run_rows("merge_same_as", rows["same_as"]), rows["same_as"],
                     "SAME_AS (are both NounPhrases stored or in the batch?)")
        self._delete_orphan_nounphrases(orphan_candidates)

    @staticmethod
    def _expect(written: int, rows: list[dict[str, Any]], what: str) -> None:
        if written != len(rows):
            raise DataError(f"only {written} of {len(rows)} {what} were written.")

    def _raise_missing_entities(self, label: str, rows: list[dict[str, Any]]) -> None:
        entity_ids = sorted({r["entity_id"] for r in rows})
        found = set(self._run("nodes_by_id", {"ids": entity_ids}, label=label)["id"])
        missing = [e for e in entity_ids if e not in found]
        nounphrase_ids = sorted({r["nounphrase_id"] for r in rows})
        found_np = set(self._run("nodes_by_id", {"ids": nounphrase_ids}, label="NounPhrase")["id"])
        missing += [n for n in nounphrase_ids if n not in found_np]
        raise DataError(
            f"MAPS_TO edges point to {len(missing)} nodes that are not in the graph: {_preview(missing)}. "
            f"Link mentions only to entities of the loaded knowledge graph (is it loaded?)."
        )

    def _nounphrases_of_articles(self, article_ids: list[str]) -> list[str]:
        if not article_ids:
            return []
        found: set[str] = set()
        for name in ("nounphrases_mentioned_by_passages", "nounphrases_mentioned_by_sections",
                     "nounphrases_mentioned_by_articles"):
            found.update(self._run(name, {"article_ids": article_ids})["id"])
        return sorted(found)

    def _delete_orphan_nounphrases(self, candidates: list[str]) -> None:
        """Delete the candidates that nothing mentions and no alias points to.

        Repeated until nothing changes: removing an orphan alias can orphan its SAME_AS hub (the hub
        pattern keeps alias chains one level deep, so this takes two rounds at most in practice).
        """
        for _ in range(5):
            if not candidates or self._run_count("delete_orphan_nounphrases", {"ids": candidates}) == 0:
                return
            candidates = self._run("nodes_by_id", {"ids": candidates}, label="NounPhrase")["id"].tolist()

    def _delete_articles_content(self, article_ids: list[str]) -> int:
        """Delete passages, sections and the articles themselves (with their edges); return passages removed."""
        if not article_ids:
            return 0
        params = {"article_ids": article_ids}
        n_passages = self._run_count("count_passages_of_articles", params)
        self._run("delete_passages_of_articles", params)
        self._run("delete_sections_of_articles", params)
        self._run("delete_articles", params)
        return n_passages

    def delete_article(self, article_id: str) -> int:
        """Delete an article, its sections, passages and their edges, and NounPhrases left unmentioned.

        Returns
        -------
        int
            Number of passages removed (0 if the article is absent).

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        IngestionError
            If the delete failed (rolled back, nothing removed).
        """
        self._require_writable("delete_article")
        try:
            with self._transaction():
                candidates = self._nounphrases_of_articles([article_id])
                removed = self._delete_articles_content([article_id])
                self._delete_orphan_nounphrases(candidates)
        except EngramError as exc:
            raise IngestionError(f"Could not delete article {article_id!r}, nothing was removed: {exc}") from exc
        return removed

    def set_article_status(self, article_id: str, status: str, error: str = "") -> None:
        """Set an article's ``status`` (one of :data:`~engram_kit.records.STATUSES`) and error message.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        DataError
            If the status is not one of STATUSES or the article is not stored.
        """
        self._require_writable("set_article_status")
        if status not in STATUSES:
            raise DataError(f"Article status {status!r} is unknown; use one of {', '.join(STATUSES)}.")
        if self._run_count("set_article_status", {"id": article_id, "status": status, "error": error}) == 0:
            raise DataError(f"Article {article_id!r} is not in the store; write it before setting its status.")

    # --- reads ---------------------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Node count per label and relationship count per type, zero counts included.

        Returns
        -------
        dict
            15 node labels (11 domain, 4 literature) then 29 relationship types (24 domain, 5 literature).
        """
        out = {label: self._run_count("count_nodes", label=label) for label in self.schema.labels + LITERATURE_LABELS}
        for rel in self.schema.rel_types + LITERATURE_REL_TYPES:
            out[rel] = self._run_count("count_rels", rel_type=rel)
        return out

    def get_nodes(self, ids: Sequence[str]) -> pd.DataFrame:
        """Domain or NounPhrase nodes by id; unknown ids are absent.

        Returns
        -------
        DataFrame
            Columns ``id, label, name``, one row per id found, in no particular order.
        """
        by_label: dict[str, list[str]] = defaultdict(list)
        for node_id in dict.fromkeys(str(i) for i in ids):
            label = _label_of_id(node_id, self.schema)
            if label is not None:
                by_label[label].append(node_id)
        frames = []
        for label, label_ids in by_label.items():
            frame = self._run("nodes_by_id", {"ids": label_ids}, label=label)
            frames.append(frame.assign(label=label))
        if not frames:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in NODE_FRAME_COLUMNS})
        return pd.concat(frames, ignore_index=True)[list(NODE_FRAME_COLUMNS)]

    def node_ids_by_label(self) -> dict[str, list[str]]:
        """All node ids per label (11 domain labels and NounPhrase), sorted; empty lists included."""
        return {label: self._run("node_ids", label=label)["id"].tolist()
                for label in (*self.schema.labels, "NounPhrase")}

    def domain_edges(self, *, include_negated: bool = False) -> pd.DataFrame:
        """All domain (knowledge-graph) edges, e.g. to build the in-memory CSR graph for PPR.

        Parameters
        ----------
        include_negated : bool
            Keep negated assertions (KGX ``negated = true``). Default False: PPR and agent traversals must
            never spread relevance along "X does not cause Y".

        Returns
        -------
        DataFrame
            Columns ``source, target, rel_type``; ~1.36M rows for the shared Hetionet partial.
        """
        name = "rel_endpoints" if include_negated else "rel_endpoints_asserted"
        frames = [self._run(name, rel_type=rel).assign(rel_type=rel) for rel in self.schema.rel_types]
        return pd.concat(frames, ignore_index=True)[list(EDGE_FRAME_COLUMNS)]

    def get_passages(self, ids: Sequence[str]) -> pd.DataFrame:
        """Passages by id (unknown ids absent). Columns: fields of :class:`~engram_kit.records.PassageRecord`;
        ``year``, ``page_start``, ``page_end`` are nullable ``Int64``."""
        frame = self._run("passages_by_id", {"ids": list(dict.fromkeys(str(i) for i in ids))})
        return _with_nullable_ints(frame.rename(columns={"idx": "index"}))

    def articles(self, source: str | None = None) -> pd.DataFrame:
        """All articles, optionally of one source, sorted by id.

        Returns
        -------
        DataFrame
            Fields of :class:`~engram_kit.records.ArticleRecord` plus ``passages`` (int, passages stored).
        """
        if source is None:
            frame = self._run("articles_all")
        else:
            frame = self._run("articles_by_source", {"source": source})
        frame = _with_nullable_ints(frame)
        frame["passages"] = frame["passages"].astype("int64")
        return frame

    def literature_edges(self) -> pd.DataFrame:
        """Literature-layer edges used by PPR: Passage->NounPhrase MENTIONS (weight = count),
        NounPhrase->entity MAPS_TO (weight = confidence in [0, 1]), NounPhrase->hub SAME_AS (weight 1).

        Returns
        -------
        DataFrame
            Columns ``source, target, rel_type, weight`` (weight float64).
        """
        frames = [
            self._run("passage_mention_edges").assign(rel_type="MENTIONS"),
            self._run("maps_to_edges").assign(rel_type="MAPS_TO"),
            self._run("same_as_edges").assign(rel_type="SAME_AS"),
        ]
        frame = pd.concat(frames, ignore_index=True)[list(LITERATURE_EDGE_COLUMNS)]
        frame["weight"] = frame["weight"].astype("float64")
        return frame

    def passage_mentions(self, passage_ids: Sequence[str]) -> pd.DataFrame:
        """Entities each passage mentions, one row per (passage, NounPhrase, linked entity).

        Returns
        -------
        DataFrame
            Columns ``passage_id, nounphrase_id, mention, entity_id, entity_name, entity_label,
            confidence, method``; for an unlinked NounPhrase the entity columns and ``method`` are ``""``
            and ``confidence`` is NaN.
        """
        frame = self._run("passage_mentions", {"ids": list(dict.fromkeys(str(i) for i in passage_ids))})
        for column in ("entity_id", "entity_name", "entity_label", "method"):
            frame[column] = frame[column].astype(object).where(frame[column].notna(), "")
        frame["confidence"] = frame["confidence"].astype("float64")
        return frame[list(PASSAGE_MENTION_COLUMNS)]

    def edges_among(self, node_ids: Sequence[str], *, include_negated: bool = False) -> pd.DataFrame:
        """Domain edges (every relationship type of the schema) whose both endpoints are in ``node_ids``.

        One query over the union of the rel types with an ``IN $ids`` filter on both ends; measured on the
        full Hetionet partial: 15 ms for 40 ids, 65-100 ms for 200 ids including 40 hub nodes (per-metaedge
        queries were 4x slower).

        Parameters
        ----------
        node_ids : node ids (``"Gene::7157"``, ``"Gene::HGNC:10848"``); duplicates ignored.
        include_negated : keep negated assertions (KGX ``negated = true``). Default False: subgraphs, evidence
            paths and agent traversals must never show "X does not cause Y" as an edge between X and Y.
            Negated edges are few, so they are dropped here rather than by a second statement.

        Returns
        -------
        DataFrame
            Columns ``source, target, rel_type`` (first, as callers index them), then every rel property of
            :attr:`schema` (Hetionet: ``sources, license, unbiased, pubmed_ids``; KGX: ``edge_id, predicate,
            negated`` (bool, missing = False), ``category, primary_knowledge_source, ...``). Edges as stored
            (subject -> object; Hetionet stores an undirected edge once, in its metaedge's direction).
        """
        columns = [*EDGE_FRAME_COLUMNS, *(p for p in self.schema.rel_properties if p not in EDGE_FRAME_COLUMNS)]
        ids = list(dict.fromkeys(str(i) for i in node_ids))
        if len(ids) < 2:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
        frame = self._run("edges_among", {"ids": ids})[columns]
        negation = self.schema.negation_property
        if negation:
            flags = frame[negation].astype(object).where(frame[negation].notna(), False).astype(bool)
            frame[negation] = flags
            if not include_negated:
                frame = frame[~flags]
        return frame.reset_index(drop=True)

    # --- document repository --------------------------------------------------------------------------
    def article_passages(self, article_id: str) -> pd.DataFrame:
        """Passages of one article in passage order; columns as :meth:`get_passages`."""
        frame = self._run("article_passages", {"article_id": article_id})
        return _with_nullable_ints(frame.rename(columns={"idx": "index"}))

    def article_sections(self, article_id: str) -> pd.DataFrame:
        """Sections of one article in order: ``id, article_id, title, index, summary``."""
        return self._run("article_sections", {"article_id": article_id}).rename(columns={"idx": "index"})

    def article_mentions(self, article_ids: Sequence[str]) -> pd.DataFrame:
        """MENTIONS edges of articles from every level: ``article_id, level, source_id, nounphrase_id, name,
        entity_type, count`` (``level`` is Passage, Section or Article)."""
        params = {"article_ids": list(dict.fromkeys(str(i) for i in article_ids))}
        frames = [self._run("article_mentions_from", params, label=label).assign(level=label)
                  for label in ("Passage", "Section")]
        frames.append(self._run("article_mentions_from_articles", params).assign(level="Article"))
        columns = ["article_id", "level", "source_id", "nounphrase_id", "name", "entity_type", "count"]
        return pd.concat(frames, ignore_index=True)[columns]

    def nounphrase_links(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """MAPS_TO edges of NounPhrases: ``nounphrase_id, name, entity_type, entity_id, entity_name, confidence,
        method``."""
        frame = self._run("nounphrase_links", {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))})
        frame["confidence"] = frame["confidence"].astype("float64")
        return frame

    def nounphrases_linked_to(self, entity_ids: Sequence[str]) -> list[str]:
        """Ids of NounPhrases with a MAPS_TO edge to any of ``entity_ids``, sorted."""
        ids = list(dict.fromkeys(str(i) for i in entity_ids))
        return sorted(self._run("nounphrases_linked_to", {"ids": ids})["id"]) if ids else []

    def nounphrase_articles(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """Distinct ``nounphrase_id, article_id`` pairs over Passage, Section and Article mentions."""
        params = {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))}
        frames = [self._run("nounphrase_articles_from", params, label=label) for label in ("Passage", "Section")]
        frames.append(self._run("nounphrase_articles_from_articles", params))
        return pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)

    def same_as_edges_from(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        """Outgoing SAME_AS edges of NounPhrases: ``nounphrase_id, hub_id``."""
        return self._run("same_as_from", {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))})

    def replace_same_as(self, nounphrase_ids: Sequence[str], edges: Sequence[SameAsEdge]) -> None:
        """Delete the outgoing SAME_AS edges of ``nounphrase_ids`` and merge ``edges``, in one transaction.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        IngestionError
            If an edge names a NounPhrase that is not stored (rolled back, nothing changed).
        """
        self._require_writable("replace_same_as")
        rows = [{"nounphrase_id": e.nounphrase_id, "hub_id": e.hub_id} for e in dict.fromkeys(edges)]
        try:
            with self._transaction():
                self._run("delete_same_as_from", {"ids": list(dict.fromkeys(str(i) for i in nounphrase_ids))})
                self._expect(self._run_rows("merge_same_as", rows), rows, "SAME_AS (are both NounPhrases stored?)")
        except EngramError as exc:
            raise IngestionError(f"Could not update the SAME_AS alias hubs, nothing changed: {exc}") from exc

    def delete_orphan_nounphrases(self, nounphrase_ids: Sequence[str]) -> int:
        """Delete those of ``nounphrase_ids`` that nothing mentions and no alias points to; return how many."""
        self._require_writable("delete_orphan_nounphrases")
        ids = list(dict.fromkeys(str(i) for i in nounphrase_ids))
        before = len(self._run("nodes_by_id", {"ids": ids}, label="NounPhrase")) if ids else 0
        if ids:
            with self._transaction():
                self._delete_orphan_nounphrases(ids)
        return before - (len(self._run("nodes_by_id", {"ids": ids}, label="NounPhrase")) if ids else 0)

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
def _preview(ids: Sequence[str], limit: int = 5) -> str:
    """``'a', 'b' and 3 more`` for error messages; ``none`` when empty."""
    if not ids:
        return "none"
    shown = ", ".join(repr(i) for i in list(ids)[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _with_nullable_ints(frame: pd.DataFrame) -> pd.DataFrame:
    for column in _NULLABLE_INT_COLUMNS:
        if column in frame.columns:
            frame[column] = frame[column].astype("Int64")
    return frame


def _check_unique(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    duplicated = [i for i in ids if i in seen or seen.add(i)]  # type: ignore[func-returns-value]
    if duplicated:
        raise DataError(f"the batch has duplicated {what} ids: {_preview(sorted(set(duplicated)))}.")


def _node_rows(batch: LiteratureBatch) -> dict[str, list[dict[str, Any]]]:
    """Parameter rows of the article, section, passage and NounPhrase statements (``index`` -> ``idx``)."""
    _check_unique([a.id for a in batch.articles], "article")
    _check_unique([s.id for s in batch.sections], "section")
    _check_unique([p.id for p in batch.passages], "passage")
    bad_status = [a.id for a in batch.articles if a.status not in STATUSES]
    if bad_status:
        raise DataError(f"articles {_preview(bad_status)} have a status outside {', '.join(STATUSES)}.")
    articles = [{prop: getattr(a, prop) for prop in LITERATURE_NODE_PROPERTIES["Article"]} for a in batch.articles]
    sections = [{"id": s.id, "article_id": s.article_id, "title": s.title, "idx": s.index, "summary": s.summary}
                for s in batch.sections]
    passage_props = [prop for prop in LITERATURE_NODE_PROPERTIES["Passage"] if prop != "idx"]
    passages = [{**{prop: getattr(p, prop) for prop in passage_props}, "idx": p.index} for p in batch.passages]
    nounphrases = {n.id: {"id": n.id, "name": n.name, "normalized": n.normalized, "entity_type": n.entity_type}
                   for n in batch.nounphrases}
    return {"articles": articles, "sections": sections, "passages": passages,
            "nounphrases": list(nounphrases.values())}


def _mention_rows(batch: LiteratureBatch) -> dict[str, list[dict[str, Any]]]:
    """MENTIONS rows per source label; repeated (source, NounPhrase) pairs are summed into one count."""
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    for m in batch.mentions:
        if m.source_label not in MENTION_SOURCE_LABELS:
            raise DataError(f"mention of {m.nounphrase_id!r} has source_label {m.source_label!r}; use one of "
                            f"{', '.join(MENTION_SOURCE_LABELS)}.")
        if m.count < 1:
            raise DataError(f"mention {m.source_id!r} -> {m.nounphrase_id!r} has count {m.count}; must be >= 1.")
        counts[(m.source_label, m.source_id, m.nounphrase_id)] += m.count
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (label, source_id, nounphrase_id), count in counts.items():
        rows[label].append({"source_id": source_id, "nounphrase_id": nounphrase_id, "count": count})
    return dict(rows)


def _maps_to_rows(batch: LiteratureBatch, schema: GraphSchema = HETIONET_SCHEMA) -> dict[str, list[dict[str, Any]]]:
    """MAPS_TO rows per entity label; for a repeated (NounPhrase, entity) pair the last edge wins."""
    unique: dict[tuple[str, str], dict[str, Any]] = {}
    for e in batch.maps_to:
        if not 0.0 <= e.confidence <= 1.0:
            raise DataError(f"MAPS_TO {e.nounphrase_id!r} -> {e.entity_id!r} has confidence {e.confidence}; "
                            f"must be in [0, 1].")
        unique[(e.nounphrase_id, e.entity_id)] = {"nounphrase_id": e.nounphrase_id, "entity_id": e.entity_id,
                                                  "confidence": float(e.confidence), "method": e.method}
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in unique.values():
        label = _label_of_id(row["entity_id"], schema)
        if label is None or label == "NounPhrase":
            raise DataError(f"MAPS_TO target {row['entity_id']!r} is not a knowledge-graph entity id "
                            f"('Kind::identifier', e.g. 'Gene::7157').")
        rows[label].append(row)
    return dict(rows)


def _batch_rows(batch: LiteratureBatch, schema: GraphSchema = HETIONET_SCHEMA) -> dict[str, Any]:
    """Turn a batch into parameter rows per statement, validating ids, statuses, labels and ranges.

    Returns
    -------
    dict
        ``articles, sections, passages, nounphrases, same_as``: lists of row dicts; ``mentions`` and
        ``maps_to``: dicts label -> list of row dicts (one statement per label).

    Raises
    ------
    DataError
        On duplicated ids, an unknown status or mention source label, a count < 1, a confidence outside
        [0, 1], or a MAPS_TO target that is not a knowledge-graph id.
    """
    same_as = [{"nounphrase_id": s.nounphrase_id, "hub_id": s.hub_id} for s in dict.fromkeys(batch.same_as)]
    return {**_node_rows(batch), "mentions": _mention_rows(batch), "maps_to": _maps_to_rows(batch, schema),
            "same_as": same_as}
