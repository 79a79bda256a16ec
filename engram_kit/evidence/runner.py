"""Run guarded queries for one desk run: limits, budgets, read-only execution, artifacts.

Every query goes through :func:`~engram_kit.evidence.guard.check_query`, then runs inside a ``READ ONLY``
transaction with a per-query timeout (LadybugDB ``Connection.set_query_timeout``). Its rows are cut at
the row cap and the size cap (bytes of the rows' JSON) with the cut recorded. A run has budgets: a number
of queries and a wall-clock time; a query past either budget is refused, not run.

Measured (LadybugDB 0.22): the query timeout is checked at operator boundaries, so a long scan can
overrun it by seconds (a 50 ms timeout stopped a 30M-row UNWIND after ~5 s) and a nested expression can
ignore it for minutes. So the embedded store runs desk queries in a child process with a hard backstop and
a memory cap (:mod:`engram_kit.store.isolated`), and the runner adds ``LIMIT max_rows + 1`` to a final
``RETURN`` without one, so the engine stops at the cap. ``rows_seen`` therefore counts at most
``max_rows + 1`` rows: ask ``count(*)`` for totals.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import pandas as pd

from engram_kit.errors import EngramError, QueryError, QueryGuardError
from engram_kit.evidence.artifacts import Artifact, graph_value, json_safe
from engram_kit.evidence.guard import check_query, with_row_limit
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeskLimits:
    """Limits of the evidence desk: the ``desk`` section of :class:`~engram_kit.settings.Settings` (units, ranges
    and sources there; issue 5 of engram-kit, engineering choices, not measured optima). A workspace's desk uses
    :meth:`from_settings`; the defaults here are the Settings defaults.

    Attributes
    ----------
    query_timeout_s : float
        Per-query timeout, seconds (> 0): 10 (``desk_query_timeout_s``).
    max_rows : int
        Rows kept per query (>= 1): 100; the rest are cut and the cut recorded (``desk_max_rows``).
    max_bytes : int
        Size cap of the kept rows' JSON, bytes (>= 1): 128 KiB (``desk_max_bytes``).
    run_seconds : float
        Wall-clock budget of one run, seconds: 120 (``desk_run_seconds``).
    run_queries : int
        Queries one run may execute: 12 (``desk_run_queries``).
    repair_turns : int
        LLM repair turns when the validator withholds claims (0-2): 2 (``desk_repair_turns``).
    max_memory_mb : int
        Memory of the query process, MiB (>= 128): 1024 (``desk_max_memory_mb``; half of the reliability
        issue's 2 GB ceiling for a refused input, since the caller holds the rest). Enforced by construction
        in the query process (buffer pool and ``RLIMIT_DATA``, :mod:`engram_kit.store.isolated`).
    list_limit : int
        Rows listed per template query and edges per direction of an edge template (>= 1): 25 (``desk_list_limit``).
    path_limit : int
        Second-hop edges per query of a path template (>= 1): 50 (``desk_path_limit``).
    top_n : int
        Answers listed per relation plan (>= 1): 10 (``desk_top_n``).
    max_hops : int
        Longest variable-length pattern the query guard accepts (>= 1): 4 (``desk_max_hops``).
    max_query_chars, max_nesting : int
        Longest query text and deepest nesting the query guard accepts (>= 1): 8,000 characters
        (``desk_max_query_chars``) and 32 levels (``desk_max_nesting``).
    """

    query_timeout_s: float = Settings.desk_query_timeout_s
    max_rows: int = Settings.desk_max_rows
    max_bytes: int = Settings.desk_max_bytes
    run_seconds: float = Settings.desk_run_seconds
    run_queries: int = Settings.desk_run_queries
    repair_turns: int = Settings.desk_repair_turns
    max_memory_mb: int = Settings.desk_max_memory_mb
    list_limit: int = Settings.desk_list_limit
    path_limit: int = Settings.desk_path_limit
    top_n: int = Settings.desk_top_n
    max_hops: int = Settings.desk_max_hops
    max_query_chars: int = Settings.desk_max_query_chars
    max_nesting: int = Settings.desk_max_nesting

    def __post_init__(self) -> None:
        if self.query_timeout_s <= 0 or self.max_rows < 1 or self.max_bytes < 1 or self.run_seconds <= 0 \
                or self.run_queries < 1 or not 0 <= self.repair_turns <= 2 or self.max_memory_mb < 128 \
                or min(self.list_limit, self.path_limit, self.top_n, self.max_hops, self.max_query_chars,
                       self.max_nesting) < 1:
            raise QueryError(f"DeskLimits out of range: {asdict(self)}; timeouts and budgets must be positive, "
                             "max_rows/max_bytes/run_queries/list_limit/path_limit/top_n/max_hops/max_query_chars/max_nesting >= 1, "
                             "repair_turns in 0..2 and max_memory_mb >= 128.")

    @classmethod
    def from_settings(cls, settings: Settings) -> DeskLimits:
        """The limits a workspace's settings give (its ``desk`` section, field ``desk_<name>``)."""
        return cls(**{f.name: getattr(settings, f"desk_{f.name}") for f in fields(cls)})


def execute_read_only(store: GraphStore, cypher: str, parameters: dict[str, Any], timeout_s: float, *,
                      max_rows: int = 100_000, max_bytes: int = 64 * 1024 * 1024,
                      max_memory_mb: int = 2048) -> pd.DataFrame:
    """Run one query read-only with a timeout and streaming row/byte caps; return its rows.

    Delegates to :meth:`GraphStore.read_only_query`: LadybugDB runs it in a child process (plan check, READ
    ONLY transaction, query timeout, hard backstop, memory cap, at most ``max_rows + 1`` rows streamed); Neo4j
    requires an ``EXPLAIN`` query type ``"r"`` and runs it in a READ session with a server-side transaction
    timeout, pulling at most ``max_rows + 1`` rows.

    Raises
    ------
    QueryGuardError
        If the database refused a write inside the read-only transaction (second line of defence).
    QueryError
        On timeout or any other database error.

    Notes
    -----
    ``max_memory_mb`` bounds the query process's *peak*. The store is given :func:`memory_stop_mb` (the cap
    less :data:`MEMORY_HEADROOM` of it): the query process sizes its buffer pool and its ``RLIMIT_DATA``
    heap limit to that, so an allocation past it fails inside the process, and the parent's RSS poll at
    the same value is a backstop. (Before the data limit, the poll alone let a query grow for one poll
    interval: benchmarks/bad_inputs.py measured a 2064 MiB peak under a 2048 MiB cap enforced at the cap.)
    """
    return store.read_only_query(cypher, parameters, timeout_s=timeout_s, max_rows=max_rows, max_bytes=max_bytes,
                                 max_memory_mb=memory_stop_mb(max_memory_mb))


#: Share of the memory cap kept free for the growth between two RSS polls of the query process.
MEMORY_HEADROOM: float = Settings.desk_memory_headroom


def memory_stop_mb(max_memory_mb: int) -> int:
    """RSS (MiB) at which the query process is stopped so that its peak stays below ``max_memory_mb``
    (1024 -> 896, 2048 -> 1792; never below the query process's floor of 128 MiB)."""
    return max(128, max_memory_mb - max(64, int(max_memory_mb * MEMORY_HEADROOM)))


@dataclass
class QueryRunner:
    """Runs the queries of one desk run and keeps their artifacts (``q1``, ``q2``, ...).

    Parameters
    ----------
    store : GraphStore
    limits : DeskLimits

    Attributes
    ----------
    artifacts : list of Artifact
        Every query sent, including refused and failed ones (they cannot be cited).
    started : float
        ``time.perf_counter()`` at creation: the run's time budget counts from here.
    """

    store: GraphStore
    limits: DeskLimits = field(default_factory=DeskLimits)
    artifacts: list[Artifact] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    @property
    def executed(self) -> int:
        """Queries that reached the database (refused ones do not count against the budget)."""
        return sum(1 for a in self.artifacts if a.status != "refused")

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def get(self, artifact_id: str) -> Artifact | None:
        return next((a for a in self.artifacts if a.id == artifact_id), None)

    def run(self, cypher: str, parameters: dict[str, Any] | None = None, *, purpose: str = "") -> Artifact:
        """Guard, run and record one query; never raises for a refused or failed query (see ``status``)."""
        params = {str(k): json_safe(v) for k, v in (parameters or {}).items()}
        executed_before = self.executed
        artifact = Artifact(id=f"q{len(self.artifacts) + 1}", text=cypher, parameters=params, purpose=purpose)
        self.artifacts.append(artifact)
        try:
            guarded = check_query(cypher, max_hops=self.limits.max_hops, max_chars=self.limits.max_query_chars,
                                      max_nesting=self.limits.max_nesting)
            artifact.text = guarded.text
            self._check_budget(executed_before)
        except QueryGuardError as exc:
            artifact.status, artifact.error = "refused", str(exc)
            log.info("%s refused: %s", artifact.id, exc)
            return artifact
        remaining = self.limits.run_seconds - self.elapsed
        t0 = time.perf_counter()
        try:
            # The engine stops at the cap instead of building the whole result (one extra row shows the cut).
            text = with_row_limit(guarded.text, self.limits.max_rows + 1)
            frame = execute_read_only(self.store, text, params, min(self.limits.query_timeout_s, remaining),
                                      max_rows=self.limits.max_rows, max_bytes=self.limits.max_bytes,
                                      max_memory_mb=self.limits.max_memory_mb)
        except QueryGuardError as exc:
            artifact.status, artifact.error = "refused", str(exc)
            return artifact
        except EngramError as exc:
            artifact.status, artifact.error = "failed", str(exc)
            artifact.seconds = time.perf_counter() - t0
            return artifact
        artifact.seconds = time.perf_counter() - t0
        self._fill(artifact, frame)
        return artifact

    def _check_budget(self, executed: int) -> None:
        if executed >= self.limits.run_queries:
            raise QueryGuardError(f"Query refused (run budget): this run already ran {executed} queries, the "
                                  f"limit is {self.limits.run_queries}; answer from the artifacts you have.")
        if self.elapsed >= self.limits.run_seconds:
            raise QueryGuardError(f"Query refused (run budget): {self.elapsed:.0f} s of the run's "
                                  f"{self.limits.run_seconds:g} s are spent; answer from the artifacts you have.")

    def _fill(self, artifact: Artifact, frame: pd.DataFrame) -> None:
        """Keep rows up to the row and size caps, record the cut, collect nodes and relationships."""
        artifact.columns = [str(c) for c in frame.columns]
        artifact.rows_seen = len(frame)
        size = 0
        kept: list[list[Any]] = []
        for raw in frame.itertuples(index=False, name=None):
            if len(kept) >= self.limits.max_rows:
                artifact.truncated, artifact.truncation = True, f"row cap {self.limits.max_rows}"
                break
            row = [json_safe(v) for v in raw]
            size += len(json.dumps(row, ensure_ascii=False, default=str).encode("utf-8"))
            if size > self.limits.max_bytes:
                artifact.truncated, artifact.truncation = True, f"size cap {self.limits.max_bytes} bytes"
                break
            kept.append(row)
        artifact.rows = kept
        seen_nodes: dict[str, dict[str, Any]] = {}
        seen_rels: dict[str, dict[str, Any]] = {}
        for raw in frame.head(len(kept)).itertuples(index=False, name=None):
            for value in raw:
                if isinstance(value, dict) and "_LABEL" in value:
                    target = seen_rels if "_SRC" in value else seen_nodes
                    target.setdefault(json.dumps(value.get("_ID"), default=str), graph_value(value))
        artifact.nodes, artifact.relationships = list(seen_nodes.values()), list(seen_rels.values())
