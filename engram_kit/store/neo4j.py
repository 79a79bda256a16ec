"""The scale-out graph store: Neo4j 5 (+ Graph Data Science for PPR), behind the same store interface.

:class:`Neo4jStore` implements :class:`~engram_kit.store.base.GraphStore` with the official ``neo4j`` Python
driver. Everything above the store (ingestion, retrieval, agents, notebooks) is unchanged: only the
workspace's backend setting differs (see ``docs/scaling-out.md``).

Semantics shared with the embedded store
----------------------------------------
The literature write path (``write_literature``, ``delete_article``, ``set_article_status``) and every read
method only call ``_run``/``_run_count``/``_run_rows`` with statement *names* of its pack
(:data:`~engram_kit.store.statements.neo4j.NEO4J_STATEMENTS`); their bodies are dialect-neutral and live once in the
shared base :class:`~engram_kit.store.cypher_store.CypherStore` (LadybugStore's base too), so delete/reprocess
semantics are identical by construction: one explicit Neo4j transaction per batch (``_transaction``), old sections/passages/MENTIONS of a
re-written article deleted inside it, orphaned NounPhrases removed, any failure rolls the whole batch back
(no partial graph), and every ``UNWIND`` reports its row count so a shortfall (a missing endpoint) raises.

Connection and secrets
----------------------
:class:`Neo4jConfig` takes the URI, user, password or bearer token and database from arguments or the
environment (``NEO4J_URI``, ``NEO4J_USER``/``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_TOKEN``,
``NEO4J_DATABASE``). TLS is chosen by the URI scheme (``neo4j+s://``, ``bolt+s://``; ``+ssc`` accepts a
self-signed certificate). The password and token are never logged, shown by ``repr``, nor returned by
:meth:`Neo4jConfig.to_manifest` (what the workspace manifest records); a URI that embeds credentials is
refused.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
from engram_kit.progress import tqdm

from engram_kit.errors import (
    BackendUnavailableError,
    DataError,
    QueryError,
    QueryGuardError,
    ReadOnlyError,
    WorkspaceError,
)
from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.store.cypher_store import CypherStore
from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS

logger = logging.getLogger(__name__)

#: URI schemes of the official driver; ``+s`` = TLS with a CA-signed certificate, ``+ssc`` = self-signed.
URI_SCHEMES: tuple[str, ...] = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
#: Environment variables read by :meth:`Neo4jConfig.from_env`.
ENV_URI, ENV_USER, ENV_PASSWORD, ENV_TOKEN, ENV_DATABASE = (
    "NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_TOKEN", "NEO4J_DATABASE")
#: Query type a plan must report for :meth:`Neo4jStore.read_query` to run it (Neo4j ``ResultSummary.query_type``:
#: ``r`` read only, ``rw`` read-write, ``w`` write only, ``s`` schema write).
READ_ONLY_QUERY_TYPE = "r"
_REDACTED = "***"


@dataclass(frozen=True)
class Neo4jConfig:
    """How to reach a Neo4j database. Secrets are excluded from ``repr`` and from :meth:`to_manifest`.

    Parameters
    ----------
    uri : str
        ``neo4j://host:7687`` (routing), ``bolt://host:7687`` (direct); ``+s``/``+ssc`` suffixes turn on TLS.
    user : str
        Basic-auth user (default ``neo4j``); ignored when ``token`` is set.
    password : str
        Basic-auth password; never logged or written.
    token : str
        Bearer token (SSO); used instead of user/password when set; never logged or written.
    database : str
        Database name (default ``neo4j``; Community Edition has only that one).
    batch_rows : int
        Rows per ``UNWIND`` in the bulk knowledge-graph load, >= 1. 10,000 is Neo4j's usual advice for
        batched writes (a few MB of parameters per transaction).
    transaction_timeout_s : float
        Server-side timeout of write transactions, seconds (> 0).
    projection_name : str
        Name of the GDS in-memory graph used for PPR.
    """

    uri: str = ""
    user: str = "neo4j"
    password: str = field(default="", repr=False)
    token: str = field(default="", repr=False)
    database: str = "neo4j"
    batch_rows: int = 10_000
    transaction_timeout_s: float = 300.0
    projection_name: str = "engram_retrieval"

    def __post_init__(self) -> None:
        if not self.uri:
            raise DataError(f"Neo4jConfig needs a uri such as 'neo4j://localhost:7687'; pass uri=... or set ${ENV_URI}.")
        parts = urlsplit(self.uri)
        if parts.scheme not in URI_SCHEMES:
            raise DataError(f"Neo4j uri scheme {parts.scheme!r} is not supported; use one of {', '.join(URI_SCHEMES)} "
                            f"(e.g. neo4j+s://host for TLS).")
        if parts.username or parts.password:
            raise DataError("The Neo4j uri embeds credentials; pass user/password (or $NEO4J_PASSWORD) separately so "
                            "they are never written to the workspace manifest.")
        if self.batch_rows < 1 or self.transaction_timeout_s <= 0:
            raise DataError(f"Neo4jConfig batch_rows={self.batch_rows} and transaction_timeout_s="
                            f"{self.transaction_timeout_s} must be >= 1 and > 0.")

    @classmethod
    def from_env(cls, **overrides: Any) -> Neo4jConfig:
        """Build from ``NEO4J_URI``, ``NEO4J_USER`` (or ``NEO4J_USERNAME``), ``NEO4J_PASSWORD``, ``NEO4J_TOKEN``
        and ``NEO4J_DATABASE``; keyword arguments that are not None win over the environment."""
        env: dict[str, Any] = {  # overrides may set batch_rows (int) or transaction_timeout_s (float) too
            "uri": os.environ.get(ENV_URI, ""),
            "user": os.environ.get(ENV_USER) or os.environ.get("NEO4J_USERNAME") or "neo4j",
            "password": os.environ.get(ENV_PASSWORD, ""),
            "token": os.environ.get(ENV_TOKEN, ""),
            "database": os.environ.get(ENV_DATABASE, "neo4j"),
        }
        env.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**env)  # type: ignore[arg-type]  # values are str from the environment or the caller's overrides

    @classmethod
    def from_manifest(cls, data: dict[str, Any], **overrides: Any) -> Neo4jConfig:
        """Rebuild from :meth:`to_manifest` output; secrets come from ``overrides`` or the environment."""
        known = {"uri", "user", "database", "batch_rows", "transaction_timeout_s", "projection_name"}
        return cls.from_env(**{**{k: v for k, v in data.items() if k in known}, **overrides})

    @property
    def tls(self) -> bool:
        """True when the URI scheme asks for an encrypted connection."""
        return "+s" in urlsplit(self.uri).scheme

    def auth(self) -> Any:
        """The driver's auth object: bearer token if set, else basic auth (``None`` without a password)."""
        import neo4j

        if self.token:
            return neo4j.bearer_auth(self.token)
        return neo4j.basic_auth(self.user, self.password) if self.password else None

    def to_manifest(self) -> dict[str, Any]:
        """What the workspace manifest records: no password, no token."""
        return {"uri": self.uri, "user": self.user, "database": self.database, "tls": self.tls,
                "batch_rows": self.batch_rows, "transaction_timeout_s": self.transaction_timeout_s,
                "projection_name": self.projection_name,
                "auth": "token" if self.token else ("password" if self.password else "none")}

    def redact(self, text: str) -> str:
        """``text`` with the password and token replaced by ``***`` (for messages built from driver errors)."""
        for secret in (self.password, self.token):
            if secret:
                text = text.replace(secret, _REDACTED)
        return text


@dataclass
class GuardedQueryResult:
    """Rows of a read-only query run by :meth:`Neo4jStore.read_query`.

    Attributes
    ----------
    frame : DataFrame, at most ``max_rows`` rows.
    truncated : bool, True if the row or size cap cut the result.
    query_type : str, the plan's query type (always ``"r"`` here).
    elapsed_s : float, wall time in seconds, EXPLAIN included.
    bytes_read : int, approximate JSON size of the returned rows.
    """

    frame: pd.DataFrame
    truncated: bool
    query_type: str
    elapsed_s: float
    bytes_read: int

    def to_frame(self) -> pd.DataFrame:
        return self.frame

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.frame.to_dict("records"), "truncated": self.truncated, "query_type": self.query_type,
                "elapsed_s": self.elapsed_s, "bytes_read": self.bytes_read}


def _import_neo4j() -> Any:
    try:
        import neo4j
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailableError("The Neo4j backend needs the 'neo4j' package: pip install 'engram-kit[neo4j]'.") from exc
    return neo4j


def _frame(result: Any) -> pd.DataFrame:
    """A driver result as a DataFrame; the columns are the result's keys even when it has no rows."""
    keys = list(result.keys())
    return pd.DataFrame(result.data(), columns=keys)


def _chunk_records(frame: pd.DataFrame, size: int) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(frame), size):
        yield frame.iloc[start:start + size].to_dict("records")


class Neo4jStore(CypherStore):
    """Neo4j graph store (scale-out backend of a workspace).

    Parameters
    ----------
    config : Neo4jConfig
        Where and how to connect.
    read_only : bool
        Refuse writes before they reach the server, and open READ-access sessions.
    driver : object, optional
        An already built ``neo4j.Driver`` (or a test double with ``session(...)``, ``verify_connectivity()``
        and ``close()``); default: built from ``config``.
    create_schema : bool
        Create constraints and indexes on open (writers only).
    schema : GraphSchema or None
        The domain layer a new database is made for (the workspace's graph format gives it). None opens a
        database with the schema it stores; no graph format is assumed.

    Raises
    ------
    BackendUnavailableError
        If the ``neo4j`` package is missing or the server cannot be reached / refuses the credentials.
    WorkspaceError
        If ``schema`` differs from the one the database stores.
    DataError
        If ``schema`` is None and the database stores none: pass ``schema=``.
    """

    statements = NEO4J_STATEMENTS

    def __init__(self, config: Neo4jConfig, *, read_only: bool = False, driver: Any = None,
                 create_schema: bool = True, schema: GraphSchema | None = None) -> None:
        self.config = config
        self.read_only = read_only
        self._tx: Any = None
        self._gds: Any = None
        self._projection: Any = None
        #: Incremented after every committed write; the GDS projection is refreshed when it changes.
        self.generation = 0
        self._driver = driver if driver is not None else self._connect()
        stored = self._stored_schema()
        if stored is not None and schema is not None and stored != schema:
            raise WorkspaceError(f"The Neo4j database {config.database!r} holds a {stored.name} graph with another "
                                 f"schema than the one given; use a new database for the new graph.")
        if stored is None and schema is None:
            self.close()
        #: The domain layer: the schema stored on the server, else the one given (no graph format is assumed).
        self.schema: GraphSchema = require_schema(
            stored or schema, f"The Neo4j database {config.database!r} (it stores no graph schema)")
        if create_schema and not read_only:
            self.create_schema()

    def _stored_schema(self) -> GraphSchema | None:
        """The graph schema kept in the server's ``EngramMeta`` node, or None (new or older database)."""
        try:
            frame = self._execute(self.statements.statement("read_meta"), what="reading the stored graph schema")
        except QueryError:
            return None
        if frame is None or "key" not in getattr(frame, "columns", ()):
            return None
        value = dict(zip(frame["key"], frame["value"])).get("graph_schema")
        return GraphSchema.from_dict(json.loads(value)) if value else None

    def _connect(self) -> Any:
        neo4j = _import_neo4j()
        try:
            # Notifications off: every counts() on a relationship type with no edges yet made the server send a
            # "relationship type does not exist" warning that the driver logs (dozens per call, seen live).
            driver = neo4j.GraphDatabase.driver(self.config.uri, auth=self.config.auth(),
                                                notifications_min_severity="OFF")
            driver.verify_connectivity()
        except Exception as exc:  # the driver raises ServiceUnavailable, AuthError, ConfigurationError...
            raise BackendUnavailableError(
                f"Cannot reach Neo4j at {self.config.uri} (database {self.config.database!r}) as {self.config.user!r}: "
                f"{self.config.redact(str(exc))}. Start the server (docs/scaling-out.md) and check NEO4J_URI / "
                f"NEO4J_USER / NEO4J_PASSWORD.") from exc
        logger.info("Connected to Neo4j at %s (database %s, tls=%s)", self.config.uri, self.config.database,
                    self.config.tls)
        return driver

    @property
    def path(self) -> str:
        """Where the graph lives, for messages: ``<uri> (database <name>)`` (no credentials)."""
        return f"{self.config.uri} (database {self.config.database})"

    @property
    def closed(self) -> bool:
        """True after :meth:`close` (the driver is gone)."""
        return self._driver is None

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self.read_only else "read-write")
        return f"Neo4jStore({self.config.uri!r}, database={self.config.database!r}, {state})"

    def close(self) -> None:
        """Drop the GDS projection this store made, then close the driver; idempotent."""
        if self._projection is not None:
            try:
                self._projection.drop()
            except Exception as exc:  # closing must not fail because the server went away
                logger.warning("Could not drop the GDS projection on close: %s", self.config.redact(str(exc)))
            self._projection = None
        driver, self._driver = self._driver, None
        if driver is not None:
            driver.close()

    # --- execution ----------------------------------------------------------------------------------
    def _session(self, *, read: bool) -> Any:
        if self._driver is None:
            raise BackendUnavailableError(f"The Neo4j store {self.config.uri} is closed; open a new Neo4jStore.")
        neo4j = _import_neo4j()
        mode = neo4j.READ_ACCESS if read or self.read_only else neo4j.WRITE_ACCESS
        return self._driver.session(database=self.config.database, default_access_mode=mode)

    def _convert(self, exc: Exception, what: str) -> Exception:
        message = self.config.redact(str(exc))
        code = str(getattr(exc, "code", "") or "")
        if "AccessMode" in code or "WriteOnReadOnlyAccessDbException" in code or "read access mode" in message:
            return ReadOnlyError(f"{what} tried to write through a read-only Neo4j session ({code}).")
        if type(exc).__name__ in ("ServiceUnavailable", "SessionExpired"):
            return BackendUnavailableError(f"Neo4j at {self.config.uri} became unreachable during {what}: {message}")
        return QueryError(f"Neo4j failed on {what}: {message}")

    def _execute(self, cypher: str, parameters: dict[str, Any] | None = None, *, what: str = "query") -> pd.DataFrame:
        """Run one statement, inside the open transaction if any, else in its own auto-commit transaction."""
        try:
            if self._tx is not None:
                return _frame(self._tx.run(cypher, parameters or {}))
            with self._session(read=False) as session:
                return _frame(session.run(cypher, parameters or {}))
        except (QueryError, BackendUnavailableError, ReadOnlyError):
            raise
        except Exception as exc:
            raise self._convert(exc, what) from exc

    @contextmanager
    def _transaction(self, *, read_only: bool = False) -> Iterator[None]:
        """One explicit transaction (with the configured timeout): commit on success, roll back on any error."""
        with self._session(read=read_only) as session:
            tx = session.begin_transaction(timeout=self.config.transaction_timeout_s)
            self._tx = tx
            try:
                yield
            except BaseException:
                try:
                    tx.rollback()
                except Exception as exc:  # the server may already have rolled back
                    logger.debug("rollback after failure: %s", self.config.redact(str(exc)))
                raise
            else:
                tx.commit()
                if not read_only:
                    self.generation += 1
            finally:
                self._tx = None
                tx.close()

    def _require_writable(self, operation: str) -> None:
        if self.read_only:
            raise ReadOnlyError(f"{operation} needs write access, but the Neo4j store {self.config.uri} was opened "
                                f"read-only. Write from the process that opened the workspace with read_only=False.")
        if self._driver is None:
            raise BackendUnavailableError(f"The Neo4j store {self.config.uri} is closed; open a new Neo4jStore.")

    # --- schema and bulk load -----------------------------------------------------------------------
    def create_schema(self) -> None:
        """Create the 15 ``id`` uniqueness constraints and 16 range indexes if missing; idempotent.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        """
        self._require_writable("create_schema")
        for ddl in self.statements.ddl(self.schema):
            self._execute(ddl, what="schema creation")
        self._run("write_meta", {"key": "graph_schema", "value": json.dumps(self.schema.to_dict())})

    def load_knowledge_graph(self, nodes: pd.DataFrame, edges: pd.DataFrame, *, progress: bool = True) -> None:
        """Bulk-load the Hetionet domain layer in ``UNWIND`` batches of ``config.batch_rows`` rows.

        Parameters
        ----------
        nodes, edges : DataFrame
            As for :meth:`LadybugStore.load_knowledge_graph` (validated the same way, before anything is sent).
        progress : bool
            Show a tqdm bar over the rows.

        Raises
        ------
        ReadOnlyError
            On a read-only store.
        DataError
            Bad frames (see the embedded store), a domain layer already loaded, or a batch that wrote fewer
            rows than it sent (an endpoint missing on the server). Batches committed before a failure stay:
            drop the database (or use ``engram export --neo4j-admin-csv`` + ``neo4j-admin database import``)
            and load again.

        Notes
        -----
        Each batch is its own transaction: a single transaction over 1.36M Hetionet edges would need
        gigabytes of transaction state. Nodes are MERGEd on id (index-backed by the uniqueness
        constraints), relationships CREATEd between two index seeks. For far larger graphs the offline
        ``neo4j-admin database import`` of :mod:`engram_kit.store.export` CSVs is an order of magnitude faster.
        """
        self._require_writable("load_knowledge_graph")
        node_frames = self._node_frames(nodes)
        edge_frames = self._edge_frames(edges, nodes)
        if not self._domain_is_empty():
            raise DataError(f"The Neo4j database {self.config.database!r} already holds a knowledge graph; "
                            f"load_knowledge_graph only fills an empty domain layer. Use a new database.")
        t0 = time.perf_counter()
        total = sum(len(f) for f in node_frames.values()) + sum(len(f) for f in edge_frames.values())
        with tqdm(total=total, desc="Neo4j load", unit="row", disable=not progress) as bar:
            for label, frame in node_frames.items():
                self._load_batches("copy_node_table", frame, bar, label=label)
            for (rel_type, (source_label, target_label)), frame in edge_frames.items():
                frame = frame.rename(columns={"from": "source", "to": "target"})
                self._load_batches("copy_rel_table", frame, bar, rel_type=rel_type,
                                   source_label=source_label, target_label=target_label)
        self.generation += 1
        logger.info("Loaded %d nodes and %d edges into Neo4j %s in %.1f s", len(nodes), len(edges),
                    self.config.database, time.perf_counter() - t0)

    def _load_batches(self, name: str, frame: pd.DataFrame, bar: Any, **identifiers: str) -> None:
        for rows in _chunk_records(frame, self.config.batch_rows):
            written = self._run_count(name, {"rows": rows}, **identifiers)
            if written != len(rows):
                raise DataError(f"Neo4j bulk load of {identifiers} wrote {written} of {len(rows)} rows; an endpoint "
                                f"is missing on the server. Batches before this one are committed: drop the "
                                f"database and load again.")
            bar.update(len(rows))

    # --- queries -------------------------------------------------------------------------------------
    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> pd.DataFrame:
        """Run one Cypher statement (READ session on a read-only store); no guard, see :meth:`read_query`."""
        if not self.read_only:
            return self._execute(cypher, parameters, what="the user query")
        try:
            with self._session(read=True) as session:
                return _frame(session.run(cypher, parameters or {}))
        except Exception as exc:
            raise self._convert(exc, "the user query") from exc

    def read_query(self, cypher: str, parameters: dict[str, Any] | None = None, *, max_rows: int = 1_000,
                   max_bytes: int = 5_000_000, timeout_s: float = 10.0) -> GuardedQueryResult:
        """Run an evidence query only if Neo4j's own planner says it is read-only; cap rows, size and time.

        The server-side half of the evidence desk's guard (the desk runs its static checks first):

        1. ``EXPLAIN`` the query (plans, runs nothing) and refuse unless the plan's query type is ``"r"``
           (``ResultSummary.query_type``; writes are ``"rw"``/``"w"``, schema changes ``"s"``). Procedure calls
           that write are typed ``"rw"`` too.
        2. Run it in a READ-access session (a cluster routes it to a reader; a write would fail there as well)
           inside a transaction with a server-side ``timeout_s``.
        3. Stop pulling records after ``max_rows`` rows or ``max_bytes`` of JSON, and mark it truncated.

        Parameters
        ----------
        cypher : str
            One Cypher statement (no ``EXPLAIN``/``PROFILE`` prefix).
        parameters : dict, optional
            Query parameters.
        max_rows : int
            Row cap, >= 1.
        max_bytes : int
            Cap on the JSON size of the rows returned, bytes, >= 1.
        timeout_s : float
            Transaction timeout, seconds (> 0); the server aborts the query after it.

        Returns
        -------
        GuardedQueryResult

        Raises
        ------
        QueryGuardError
            The plan is not read-only, or the statement starts with EXPLAIN/PROFILE.
        QueryError
            Neo4j rejected the query (syntax, timeout), with Neo4j's reason.
        """
        text = (cypher or "").strip().rstrip(";")
        first = text.split(None, 1)[0].upper() if text else ""
        if not text or first in ("EXPLAIN", "PROFILE"):
            raise QueryGuardError("Pass one Cypher statement without EXPLAIN/PROFILE; the guard plans it itself.")
        if max_rows < 1 or max_bytes < 1 or timeout_s <= 0:
            raise QueryGuardError(f"read_query caps max_rows={max_rows}, max_bytes={max_bytes}, timeout_s={timeout_s} "
                                  f"must be positive.")
        t0 = time.perf_counter()
        try:
            with self._session(read=True) as session:
                tx = session.begin_transaction(timeout=timeout_s)
                try:
                    query_type = self._plan_query_type(tx, text, parameters)
                    if query_type != READ_ONLY_QUERY_TYPE:
                        raise QueryGuardError(
                            f"Refused: Neo4j plans this query as type {query_type!r}, not read-only ('r'); the "
                            f"evidence desk runs read-only queries only. Remove CREATE/MERGE/SET/DELETE/REMOVE, "
                            f"schema commands and writing procedures.")
                    frame, truncated, size = self._pull_capped(tx.run(text, parameters or {}), max_rows, max_bytes)
                finally:
                    tx.rollback()  # read-only: nothing to commit; also ends the server-side transaction
                    tx.close()
        except QueryGuardError:
            raise
        except Exception as exc:
            raise self._convert(exc, "the evidence query") from exc
        return GuardedQueryResult(frame, truncated, query_type, time.perf_counter() - t0, size)

    def read_only_query(self, cypher: str, parameters: dict[str, Any] | None = None, *,
                        timeout_s: float = 10.0, max_rows: int = 100_000, max_bytes: int = 64 * 1024 * 1024,
                        max_memory_mb: int = 2048) -> pd.DataFrame:
        """:meth:`GraphStore.read_only_query`: :meth:`read_query`'s rows (EXPLAIN must say ``"r"``, READ session,
        server-side transaction timeout ``timeout_s``), at most ``max_rows + 1`` rows pulled. ``max_memory_mb``
        does not apply: the server bounds a transaction's memory (``db.memory.transaction.max``)."""
        return self.read_query(cypher, parameters, timeout_s=timeout_s, max_rows=max_rows + 1,
                               max_bytes=max_bytes).frame

    def backend_manifest(self) -> dict[str, Any]:
        """``{"neo4j": config.to_manifest()}``: URI, user, database, batch and timeout settings, never a secret."""
        return {"neo4j": self.config.to_manifest()}

    @staticmethod
    def _plan_query_type(tx: Any, text: str, parameters: dict[str, Any] | None) -> str:
        summary = tx.run("EXPLAIN " + text, parameters or {}).consume()
        return str(getattr(summary, "query_type", "") or "")

    @staticmethod
    def _pull_capped(result: Any, max_rows: int, max_bytes: int) -> tuple[pd.DataFrame, bool, int]:
        keys = list(result.keys())
        rows: list[dict[str, Any]] = []
        size, truncated = 0, False
        for record in result:
            row = record.data()
            row_size = len(json.dumps(row, default=str))
            if len(rows) >= max_rows or size + row_size > max_bytes:
                truncated = True
                break
            rows.append(row)
            size += row_size
        return pd.DataFrame(rows, columns=keys), truncated, size

    # --- Graph Data Science -------------------------------------------------------------------------
    def gds_client(self) -> Any:
        """A ``graphdatascience.GraphDataScience`` client sharing this store's driver (created once).

        Raises
        ------
        BackendUnavailableError
            If ``graphdatascience`` is not installed or the server has no GDS plugin.
        """
        if self._gds is None:
            try:
                from graphdatascience import GraphDataScience
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise BackendUnavailableError("PPR on Neo4j needs the 'graphdatascience' package: "
                                              "pip install 'engram-kit[neo4j]'.") from exc
            try:
                self._gds = GraphDataScience(self._driver, database=self.config.database, arrow=False)
            except Exception as exc:
                raise BackendUnavailableError(
                    f"Neo4j at {self.config.uri} has no usable Graph Data Science plugin: "
                    f"{self.config.redact(str(exc))}. Install GDS 2.x (docs/scaling-out.md).") from exc
        return self._gds

    def ppr_engine(self, gds: Any = None) -> Any:
        """A :class:`~engram_kit.store.gds.GDSPPREngine` over this store's managed projection.

        The projection is (re)built when :attr:`generation` changed since it was made, and dropped by
        :meth:`close`. ``gds`` overrides the client (tests pass a recording fake).
        """
        from engram_kit.store.gds import GDSPPREngine, GDSProjection

        if self._projection is None:
            self._projection = GDSProjection(gds if gds is not None else self.gds_client(),
                                             name=self.config.projection_name, schema=self.schema)
        return GDSPPREngine(self._projection, version=lambda: self.generation)
