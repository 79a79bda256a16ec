"""Child process of :mod:`engram_kit.store.isolated`: runs read-only Cypher on a LadybugDB folder.

Run as a script (``python _isolated_child.py DB_PATH FD BUFFER_MB THREADS``), never imported by the
package: it imports only ``ladybug`` and the standard library, so it starts in well under a second and its
memory is the query's.

Memory is bounded by construction, not only watched: before each query the child sets its own soft
``RLIMIT_DATA`` to the data size it has after opening the database plus :func:`heap_allowance`
(``max_memory_mb`` less the buffer pool and the resident memory after the open). LadybugDB reserves its
buffer pool's address space (8 TiB on 0.22) when the database opens, so that reservation is already counted
and the buffer pool is bounded by ``BUFFER_MB``; every other allocation (``std::bad_alloc`` in LadybugDB,
``MemoryError`` in Python) past the allowance fails inside the child and becomes a ``("memory", ...)``
reply. ``RLIMIT_AS`` cannot be used (the 8 TiB reservation exceeds any useful cap). Measured on
``UNWIND range(1, 300000000)``: without the limit the child grew past 1.8 GiB before the parent's RSS poll
stopped it; with it the allocation fails at once and the child stays near 120 MiB.

Protocol (pickled tuples over the ``multiprocessing.connection.Connection`` on file descriptor ``FD``):
request ``(cypher, parameters, timeout_ms, max_rows, max_bytes, denied_operators, max_memory_mb)``; reply
``("ok", columns, rows, cut)`` with at most ``max_rows + 1`` rows (one more than the cap, so the caller
sees the cut) and ``cut`` the reason the stream stopped early or ``""``, or ``("refused", message)`` (the
query plan holds a denied operator, or the database refused a write), ``("memory", message, peak_mib)``
(an allocation failed; ``peak_mib`` is this process's peak resident set, ``VmHWM``), ``("timeout",
message)`` or ``("error", message)``.
"""

from __future__ import annotations

import json
import re
import resource
import sys
from multiprocessing.connection import Connection
from typing import Any

#: Operator names in a LadybugDB EXPLAIN plan look like ``COPY_TO[2]``.
_OPERATOR = re.compile(r"\b([A-Z][A-Z_]+)\[\d+\]")


def _plan_operators(conn: Any, cypher: str, parameters: dict[str, Any]) -> set[str]:
    result = conn.execute("EXPLAIN " + cypher, parameters)
    text = " ".join(str(row[0]) for row in result.get_as_df().itertuples(index=False, name=None))
    return set(_OPERATOR.findall(text))


def _status_kib(field: str) -> int:
    """A ``VmData``/``VmRSS`` field of ``/proc/self/status``, KiB (0 where /proc is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


#: Least heap a query is given past the open database, MiB (the result rows, Python, thread stacks).
MIN_HEAP_MB = 32


def heap_allowance(max_memory_mb: int, buffer_pool_mb: int, resident_mb: int) -> int:
    """MiB a query may allocate outside the buffer pool so that the child's resident memory stays within
    ``max_memory_mb``: ``max_memory_mb - buffer_pool_mb - resident_mb``, at least :data:`MIN_HEAP_MB`."""
    return max(MIN_HEAP_MB, int(max_memory_mb) - int(buffer_pool_mb) - int(resident_mb))


def _limit_heap(base_data_kib: int, allowance_mb: int) -> None:
    """Set the soft ``RLIMIT_DATA`` to the data size after the open plus ``allowance_mb`` (hard: unchanged)."""
    if not base_data_kib:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    soft = base_data_kib * 1024 + allowance_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def _out_of_memory(message: str) -> bool:
    return "bad_alloc" in message or "Buffer manager" in message or "out of memory" in message.lower()


def _run(conn: Any, request: tuple[Any, ...]) -> tuple[Any, ...]:
    cypher, parameters, timeout_ms, max_rows, max_bytes, denied = request[:6]
    try:
        operators = _plan_operators(conn, cypher, parameters)
    except RuntimeError as exc:
        if _out_of_memory(str(exc)):
            return ("memory", str(exc))
        if "read-only" in str(exc) or "read only" in str(exc).lower():
            return ("refused", f"Query refused by the database's read-only transaction: {exc}")
        return ("error", f"LadybugDB could not plan the query: {exc}")
    bad = sorted(op for op in operators if any(word in op for word in denied))
    if bad:
        return ("refused", f"Query refused (query plan): the database plans {', '.join(bad)}, which reads or "
                           "writes files or changes the database. The evidence desk only reads the graph.")
    conn.set_query_timeout(int(timeout_ms))
    began = False
    try:
        conn.execute("BEGIN TRANSACTION READ ONLY")
        began = True
        result = conn.execute(cypher, parameters)
        if isinstance(result, list):
            return ("refused", "Query refused (multiple statements): the database saw several statements.")
        columns = list(result.get_column_names())
        rows: list[list[Any]] = []
        size = 0
        cut = ""
        while result.has_next():
            row = result.get_next()
            rows.append(row)
            size += len(json.dumps(row, ensure_ascii=False, default=str).encode("utf-8"))
            if len(rows) > max_rows:
                cut = f"row cap {max_rows}"
                break
            if size > max_bytes:
                cut = f"size cap {max_bytes} bytes"
                break
        return ("ok", columns, rows, cut)
    except RuntimeError as exc:
        message = str(exc)
        if _out_of_memory(message):
            return ("memory", message)
        if "Interrupted" in message:
            return ("timeout", message)
        if "read-only" in message or "read only" in message.lower():
            return ("refused", f"Query refused by the database's read-only mode: {message}")
        return ("error", f"LadybugDB failed on the query: {message}")
    except MemoryError:
        return ("memory", "MemoryError while reading the rows")
    except RecursionError:
        return ("error", "The query's result is nested too deeply to return.")
    finally:
        if began:
            try:
                conn.execute("ROLLBACK")
            except RuntimeError:
                pass  # a failed statement already rolled the transaction back
        conn.set_query_timeout(0)


def main(argv: list[str]) -> int:
    """Open the database read-only and answer requests until the parent closes the pipe."""
    db_path, fd, buffer_mb, threads = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    channel = Connection(fd)
    try:
        import ladybug as lb

        database = lb.Database(db_path, read_only=True, buffer_pool_size=buffer_mb * 1024 * 1024,
                               max_num_threads=threads)
        conn = lb.Connection(database)
    except Exception as exc:  # noqa: BLE001 - any open failure is reported to the parent, which raises
        channel.send(("error", f"could not open {db_path} read-only: {exc}"))
        return 1
    base_data_kib, base_rss_mb = _status_kib("VmData"), _status_kib("VmRSS") // 1024
    channel.send(("ready", base_rss_mb))
    while True:
        try:
            request = channel.recv()
        except EOFError:
            return 0
        if len(request) > 6:  # max_memory_mb: bound this query's heap (module docstring)
            _limit_heap(base_data_kib, heap_allowance(int(request[6]), int(buffer_mb), base_rss_mb))
        try:
            reply = _run(conn, request)
        except MemoryError:
            reply = ("memory", "MemoryError")
        except Exception as exc:  # noqa: BLE001 - reported, the parent decides
            reply = ("error", f"{type(exc).__name__}: {exc}")
        if reply[0] == "memory":  # the peak, so the parent can report it (it restarts this process)
            reply = (*reply, _status_kib("VmHWM") // 1024)
        try:
            channel.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. a value that cannot be pickled
            channel.send(("error", f"the result could not be returned: {exc}"))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
