"""Read-only Cypher in a child process with enforced limits: the evidence desk's execution sandbox.

Why a child process
-------------------
A guarded query can still be expensive: LadybugDB checks its query timeout only at operator boundaries
(a 300-deep nested CASE ran past 420 s with a 10 s timeout), materialises a whole result before the first
row is read (``UNWIND range(1, 300000000)`` took 10.4 GB before a 100-row cap applied) and can exhaust
memory on a cartesian product. None of that can be stopped from inside the same process without risking
the workspace. So the desk's queries run in a child process that opens the database folder
``read_only=True`` (no lock; it sees the writer's committed data, WAL included) and:

* refuses a query whose EXPLAIN plan holds a file or write operator (``COPY_TO``, ``EXPORT``...): a second
  mechanism beside the guard's keyword rule, needed because a ``READ ONLY`` transaction still allows
  ``COPY ... TO`` a file;
* streams rows and stops at the row and byte caps instead of materialising a DataFrame;
* is interrupted by LadybugDB's own timeout, and killed by the parent at a hard backstop
  (``timeout_s + grace_s``);
* bounds its memory by construction: its buffer pool is at most half of ``max_memory_mb``
  (:func:`buffer_pool_for`) and, before each query, it sets its own ``RLIMIT_DATA`` so that the heap
  outside the buffer pool cannot grow past the rest of ``max_memory_mb`` (see
  :mod:`engram_kit.store._isolated_child`): an allocation past the cap fails inside the child
  (``std::bad_alloc``) and is a refusal. The parent's RSS poll (every 50 ms) stays as a backstop for memory
  the data limit does not count;
* a crash of the child (SIGSEGV on a pathological query) is a refusal, never a crash of the caller.

The child is started on first use and reused; after a kill it is restarted on the next query.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psutil

from engram_kit.errors import QueryError, QueryGuardError

log = logging.getLogger(__name__)

#: Words that, inside a plan operator's name, mark it as touching files, extensions, other databases or
#: data (LadybugDB plan operator names, e.g. ``COPY_TO``, ``EXPORT_DATABASE``, ``INSERT``, ``SET_PROPERTY``).
DENIED_PLAN_WORDS: tuple[str, ...] = (
    "COPY", "EXPORT", "IMPORT", "ATTACH", "DETACH_DATABASE", "USE_DATABASE", "LOAD", "INSTALL", "EXTENSION",
    "INSERT", "CREATE", "MERGE", "SET_", "DELETE", "DROP", "ALTER", "TRANSACTION", "CHECKPOINT",
)

_CHILD = Path(__file__).with_name("_isolated_child.py")

#: What to do when a variable-length pattern runs out of the memory or time budget. LadybugDB enumerates
#: every walk of ``-[*1..k]-`` (with ``RETURN count(p)`` or ``count(b)`` alike): from APP, the bundled
#: sample's highest-degree gene (2,012 edges), 1..2 hops are 37,954 walks (0.7 s) and 1..3 hops fill a
#: 448 MiB buffer pool; ``-[* SHORTEST 1..3]-`` reaches the same 19,068 distinct nodes in 0.2 s.
PATH_ADVICE = ("The variable-length pattern enumerates every path, which grows with the degree of the nodes "
               "it passes (a hub gene has thousands of edges per hop): use fewer hops, name relationship types "
               "(-[:INTERACTS_GiG*1..2]-), or ask for shortest paths (-[* SHORTEST 1..3]-), which reach the same "
               "nodes without listing every path.")


@dataclass(frozen=True)
class IsolatedLimits:
    """Limits enforced on one query in the child process.

    Attributes
    ----------
    timeout_s : float
        LadybugDB's own query timeout, seconds (> 0).
    grace_s : float
        Extra seconds past ``timeout_s`` before the parent kills the child (hard backstop), > 0.
    max_rows : int
        Rows returned at most (>= 1); the child stops reading after ``max_rows + 1``.
    max_bytes : int
        Bytes of the rows' JSON returned at most (>= 1).
    max_memory_mb : int
        Resident memory of the child, MiB (>= 128): its buffer pool and heap limit are sized to stay within
        it, and the parent kills it past it (backstop).
    """

    timeout_s: float = 10.0
    grace_s: float = 5.0
    max_rows: int = 100
    max_bytes: int = 128 * 1024
    max_memory_mb: int = 2048

    def __post_init__(self) -> None:
        if self.timeout_s <= 0 or self.grace_s <= 0 or self.max_rows < 1 or self.max_bytes < 1 \
                or self.max_memory_mb < 128:
            raise QueryError(f"IsolatedLimits out of range: {self}; timeouts must be > 0, caps >= 1 and "
                             "max_memory_mb >= 128.")


@dataclass(frozen=True)
class IsolatedResult:
    """Rows of one query: ``columns``, at most ``max_rows + 1`` ``rows`` and ``cut`` (why the stream
    stopped early, e.g. ``"row cap 100"``, or ``""``)."""

    columns: list[str]
    rows: list[list[Any]]
    cut: str


def buffer_pool_for(max_memory_mb: int, largest_mb: int) -> int:
    """The child's LadybugDB buffer pool for a memory cap, MiB: ``largest_mb``, at most half the cap, at
    least 64 (the other half is the heap the child's ``RLIMIT_DATA`` allows, less what the open costs)."""
    return max(64, min(int(largest_mb), int(max_memory_mb) // 2))


def _crash_message(code: int | None) -> str:
    """The refusal for a query process that ended by a signal or an unexpected exit (``code``: its status)."""
    how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 and -code in \
        {s.value for s in signal.Signals} else f"exit status {code}"
    return (f"Query refused: the database engine crashed on it ({how}) inside the query process; the workspace "
            "and this process are untouched. This is an engine fault (known cases: docs/engine-notes.md): "
            "simplify the query (deep nesting, huge lists, many-hop patterns) and report it if it is a plain read.")


class IsolatedReader:
    """A child process answering read-only queries on one LadybugDB folder (see the module docstring).

    Parameters
    ----------
    db_path : str or Path
        The LadybugDB database path (a workspace's ``graph.lbdb``).
    buffer_pool_mb : int
        The child's largest LadybugDB buffer pool, MiB (>= 64); a query's cap may lower it
        (:func:`buffer_pool_for`).
    threads : int
        Threads the child's LadybugDB may use (>= 1).
    """

    def __init__(self, db_path: str | Path, *, buffer_pool_mb: int = 512, threads: int = 2) -> None:
        self.db_path = str(db_path)
        self.buffer_pool_mb = max(64, int(buffer_pool_mb))
        self.threads = max(1, int(threads))
        self._process: subprocess.Popen[bytes] | None = None
        self._channel: Connection | None = None
        self._lock = threading.Lock()
        self._running_pool_mb = 0
        self.resident_at_open_mb = 0  #: the child's RSS after opening the database, MiB (0: unknown)
        self.last_memory_peak_mb = 0  #: the child's peak RSS when it last refused a query for memory, MiB
        #: ``"landlock"`` when the child may read only its database folder and its Python (Linux >= 5.13),
        #: else why not (``"unavailable: ..."``); ``""`` before the first start
        self.sandbox = ""

    # --- lifecycle ------------------------------------------------------------------------------
    def _start(self, timeout_s: float, pool_mb: int) -> None:
        # A socketpair is one duplex channel, as multiprocessing uses for duplex connections.
        ours, theirs = socket.socketpair()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
        self._running_pool_mb = pool_mb
        self._process = subprocess.Popen(
            [sys.executable, "-I", str(_CHILD), self.db_path, str(theirs.fileno()), str(pool_mb),
             str(self.threads)],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env, close_fds=True)
        theirs.close()
        self._channel = Connection(ours.detach())
        if not self._channel.poll(max(30.0, timeout_s)):
            self._kill()
            raise QueryError(f"The query process did not open {self.db_path} within 30 s; try again.")
        try:
            message = self._channel.recv()
        except EOFError:
            code = self._process.wait() if self._process else None
            self._kill()
            raise QueryError(f"The query process exited while opening {self.db_path} (status {code}).") from None
        if message[0] != "ready":
            self._kill()
            raise QueryError(f"The query process failed: {message[1]}")
        self.resident_at_open_mb = int(message[1]) if len(message) > 1 else 0
        self.sandbox = str(message[2]) if len(message) > 2 else "unknown"
        if self.sandbox != "landlock":
            log.info("The query process runs without a file-system sandbox (%s); file loaders are refused from "
                     "the query text only.", self.sandbox)

    def _kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=10)
        if self._channel is not None:
            self._channel.close()
        self._process, self._channel = None, None

    def close(self) -> None:
        """Stop the child process (idempotent)."""
        with self._lock:
            self._kill()

    def __del__(self) -> None:  # a forgotten reader must not leave a process behind
        try:
            self._kill()
        except Exception:  # interpreter shutdown
            pass

    @property
    def pid(self) -> int | None:
        """The child's process id, or None when it is not running."""
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    # --- queries --------------------------------------------------------------------------------
    def run(self, cypher: str, parameters: dict[str, Any] | None = None,
            limits: IsolatedLimits | None = None) -> IsolatedResult:
        """Run one read-only query under ``limits``.

        Returns
        -------
        IsolatedResult
            At most ``max_rows + 1`` rows, stopped early at the byte cap (``cut`` says which).

        Raises
        ------
        QueryGuardError
            The plan holds a file/write operator, or the database refused a write.
        QueryError
            Timeout (LadybugDB's or the hard backstop), the memory cap, a crash of the query process, or
            any database error; the message names the limit and how to narrow the query.
        """
        limits = limits or IsolatedLimits()
        pool_mb = buffer_pool_for(limits.max_memory_mb, self.buffer_pool_mb)
        with self._lock:
            if self._channel is None or self._process is None or self._process.poll() is not None \
                    or pool_mb != self._running_pool_mb:
                self._kill()
                self._start(limits.timeout_s, pool_mb)
            assert self._channel is not None and self._process is not None
            request = (cypher, dict(parameters or {}), int(limits.timeout_s * 1000), limits.max_rows,
                       limits.max_bytes, DENIED_PLAN_WORDS, limits.max_memory_mb)
            self._channel.send(request)
            reply = self._wait(limits)
        kind = reply[0]
        paths = kind in ("memory", "timeout") and "RECURSIVE_EXTEND" in str(reply[1])
        if kind == "ok":
            return IsolatedResult(columns=[str(c) for c in reply[1]], rows=reply[2], cut=reply[3])
        if kind == "refused":
            raise QueryGuardError(reply[1])
        if kind == "memory":
            # the heap may stay at the limit (a failed parse keeps what it took): the next query gets a
            # fresh process
            self.last_memory_peak_mb = int(reply[2]) if len(reply) > 2 else 0
            self.close()
            advice = PATH_ADVICE if paths else ("Add a LIMIT, avoid cartesian products (two MATCH patterns without "
                                                "a shared variable) and large range() lists.")
            raise QueryError(f"Query refused: it needed more memory than the query process may use "
                             f"({limits.max_memory_mb} MiB, buffer pool {pool_mb} MiB; {reply[1]}). {advice}")
        if kind == "timeout":
            advice = PATH_ADVICE if paths else "Narrow the pattern, add a LIMIT, or start from a specific node id."
            raise QueryError(f"Query timed out after {limits.timeout_s:g} s (LadybugDB interrupted it). {advice}")
        raise QueryError(reply[1])

    def _wait(self, limits: IsolatedLimits) -> tuple[Any, ...]:
        assert self._channel is not None and self._process is not None
        deadline = time.monotonic() + limits.timeout_s + limits.grace_s
        try:
            watched = psutil.Process(self._process.pid)
        except psutil.Error:
            watched = None
        cap = limits.max_memory_mb * 1024 * 1024
        while True:
            try:
                if self._channel.poll(0.05):
                    return self._channel.recv()
            except (EOFError, OSError):
                code = self._process.wait(timeout=10)
                self._kill()
                raise QueryError(_crash_message(code)) from None
            if self._process.poll() is not None:
                code = self._process.returncode
                self._kill()
                raise QueryError(_crash_message(code))
            if watched is not None:
                try:
                    rss = watched.memory_info().rss
                except psutil.Error:
                    rss = 0
                if rss > cap:
                    self._kill()
                    self.last_memory_peak_mb = int(rss / (1024 * 1024))
                    raise QueryError(f"Query refused: it needed more memory than the query process may use "
                                     f"({limits.max_memory_mb} MiB; stopped by the memory watch at "
                                     f"{self.last_memory_peak_mb} MiB). Add a LIMIT, avoid cartesian products (two "
                                     "MATCH patterns without a shared variable) and large range() lists.")
            if time.monotonic() > deadline:
                self._kill()
                raise QueryError(f"Query timed out: still running {limits.timeout_s + limits.grace_s:g} s after "
                                 "it started, so it was stopped. Narrow the pattern, add a LIMIT, or start from "
                                 "a specific node id.")
