"""Child process of :mod:`engram_kit.store.isolated`: runs read-only Cypher on a LadybugDB folder.

Run as a script (``python _isolated_child.py DB_PATH FD BUFFER_MB THREADS``), never imported by the
package: it imports only ``ladybug`` and the standard library, so it starts in well under a second and its
memory is the query's.

Memory is bounded by construction, not only watched: after planning each query (EXPLAIN, unlimited) the
child sets its own soft ``RLIMIT_DATA`` to the data size the plan left plus :func:`heap_allowance`
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


#: Keywords that make the engine open a file, an extension or another database (LadybugDB 0.22: ``LOAD FROM``,
#: ``LOAD EXTENSION``, ``COPY ... FROM/TO``, ``IMPORT/EXPORT DATABASE``, ``ATTACH``, ``INSTALL``, ``USE``).
#: LadybugDB reads a file while *binding* (``EXPLAIN LOAD FROM 'x.csv'`` sniffs its header, and a bad line
#: comes back in the error text), so the plan check is too late for these: they are refused from the text.
FILE_KEYWORDS: frozenset[str] = frozenset({"LOAD", "COPY", "IMPORT", "EXPORT", "ATTACH", "INSTALL", "UNINSTALL",
                                           "USE"})
#: Table functions ``CALL`` may run (lower-case): catalogue introspection only. Every file reader
#: (``READ_CSV_SERIAL``, ``READ_CSV_PARALLEL``, ``READ_PARQUET``, ``READ_NPY``, ``READ_PANDAS``) and graph
#: projection (``PROJECT_GRAPH_CYPHER`` runs a query held in a string) is off the list; the CSV and Parquet
#: readers also crashed this process with SIGSEGV when called directly (docs/engine-notes.md).
ALLOWED_TABLE_FUNCTIONS: frozenset[str] = frozenset({"show_tables", "table_info", "show_connection"})

_LEXEME = re.compile(r"""\s+|//[^\n]*|/\*.*?(?:\*/|\Z)|'(?:[^'\\]|\\.)*(?:'|\Z)|"(?:[^"\\]|\\.)*(?:"|\Z)"""
                     r"""|`(?:[^`]|``)*(?:`|\Z)|(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<other>.)""", re.DOTALL)


def file_access(cypher: str) -> str:
    """The first file-opening keyword or non-allowed ``CALL`` in ``cypher``, or ``""`` (none).

    Strings, quoted identifiers and comments are skipped whole (an unterminated one runs to the end, so
    it cannot hide a keyword after it from this check while the engine reads it). A word after ``.``,
    ``:`` or ``AS``, or before ``:``, is a name (``n.load``, ``(:Copy)``, ``AS use``, ``{load: 1}``).
    """
    words: list[tuple[str, str, str]] = []  # (word, previous lexeme, next lexeme) filled below
    lexemes = [m for m in _LEXEME.finditer(cypher) if m.group("word") or m.group("other")]
    for i, m in enumerate(lexemes):
        if not m.group("word"):
            continue
        before = lexemes[i - 1].group(0).upper() if i else ""
        after = lexemes[i + 1].group(0) if i + 1 < len(lexemes) else ""
        words.append((m.group("word"), before, after))
    for i, (word, before, after) in enumerate(words):
        if before in (".", ":", "AS") or after == ":":
            continue
        upper = word.upper()
        if upper in FILE_KEYWORDS:
            return upper
        if upper == "CALL" and i + 1 < len(words) and words[i + 1][0].lower() not in ALLOWED_TABLE_FUNCTIONS:
            if words[i + 1][1] == "CALL":  # CALL name(...); CALL { ... } has "{" before the next word
                return f"CALL {words[i + 1][0]}"
    return ""


# --- the file-system sandbox (Landlock) ----------------------------------------------------------------
#: Landlock file-system rights (linux/landlock.h, ABI 1): execute, write, read file, read dir, remove
#: dir/file, make char/dir/reg/sock/fifo/block/sym.
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ABI1_ALL = (1 << 13) - 1
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # x86_64 and aarch64 share these
_PR_SET_NO_NEW_PRIVS = 38


def sandbox_reads(readable: list[str]) -> str:
    """Restrict this process's file-system access to reading ``readable`` (and what lies beneath them).

    Uses Landlock (Linux >= 5.13, ABI 1 rights), which the kernel enforces whatever the engine does:
    after it, no query can open a file outside ``readable`` (``open`` fails with ``EACCES``), and no file
    can be written, created or removed anywhere. Already open files (the database, the channel) stay
    usable. Landlock binds the calling thread and the threads it starts afterwards, not threads that
    already run: call it before the engine starts its worker threads (before opening the database; measured:
    applied after the open, ``COPY ... TO`` still wrote from a worker thread). Returns ``"landlock"`` when the sandbox is on, else the reason it is not (``"unavailable:
    ..."``: another OS, an older kernel, or Landlock disabled); the parent records it.
    """
    if not sys.platform.startswith("linux"):
        return f"unavailable: {sys.platform} has no Landlock"
    import ctypes
    import os

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(_FS_ABI1_ALL)
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        return f"unavailable: landlock_create_ruleset failed ({os.strerror(ctypes.get_errno())})"
    try:
        for path in readable:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a path this system lacks (/lib64 ...)
            try:
                rights = _FS_READ_FILE | _FS_EXECUTE | (_FS_READ_DIR if os.path.isdir(path) else 0)
                rule = PathBeneath(rights, fd)
                if libc.syscall(_SYS_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0) < 0:
                    return f"unavailable: landlock_add_rule failed ({os.strerror(ctypes.get_errno())})"
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 \
                or libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) < 0:
            return f"unavailable: landlock_restrict_self failed ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    return "landlock"


def readable_paths(db_path: str) -> list[str]:
    """What the query process may read once sandboxed: the database's folder (the database file, its WAL
    and shadow files sit beside it), this Python's installation (lazy imports) and ``/proc/self``. Not
    ``/etc``, ``/home``, ``/tmp`` or any other folder a user's files live in."""
    import os

    here = os.path.dirname(os.path.abspath(db_path)) or "."
    pythons = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.dirname(__file__))}
    return [here, *sorted(pythons), "/proc/self", "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/dev/urandom",
            "/usr/share/zoneinfo"]


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


def _lift_heap_limit() -> None:
    """Set the soft ``RLIMIT_DATA`` back to the hard limit (for planning: see :func:`_run`)."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))


def _run(conn: Any, request: tuple[Any, ...], allowance_mb: int | None = None) -> tuple[Any, ...]:
    """Plan, check and run one request (protocol in the module docstring).

    ``allowance_mb`` (MiB, :func:`heap_allowance`) bounds the query's heap: the data limit is set *after*
    the EXPLAIN, to the data size the plan left plus the allowance. Why: planning a variable-length pattern
    reserves ~1.1 GiB of address space it barely touches (measured on the bundled sample, LadybugDB 0.22:
    VmData +1,128 MiB, VmRSS +94 MiB for ``MATCH p=(a)-[*1..2]-(b) RETURN count(p)``); counted against a
    limit taken at the open, that reservation left the execution a few MiB, and an allocation failing
    inside the recursive join (``DenseBFSGraph::addParent``) is not checked by the engine: SIGSEGV
    (docs/engine-notes.md). Measured from the plan, the execution's own growth is what the limit bounds,
    the buffer pool fills first and the engine reports it (a clean "Buffer manager exception").
    """
    cypher, parameters, timeout_ms, max_rows, max_bytes, denied = request[:6]
    opener = file_access(cypher)
    if opener:
        return ("refused", f"Query refused (file access): {opener} makes the database read files, extensions or "
                           "other databases; the query process only reads the graph. Query the graph's nodes and "
                           f"relationships (CALL may run only {', '.join(sorted(ALLOWED_TABLE_FUNCTIONS))}).")
    try:
        if allowance_mb is not None:
            _lift_heap_limit()
        operators = _plan_operators(conn, cypher, parameters)
        if allowance_mb is not None:
            _limit_heap(_status_kib("VmData"), allowance_mb)
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
    # a variable-length pattern enumerates paths: its memory or time refusal names that (the parent's advice)
    recursive = " (plan: RECURSIVE_EXTEND)" if "RECURSIVE_EXTEND" in operators else ""
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
            return ("memory", message + recursive)
        if "Interrupted" in message:
            return ("timeout", message + recursive)
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
    sandbox = "off"
    try:
        import ladybug as lb

        # before the open: Landlock binds the calling thread and the threads it starts later, so the
        # engine's worker threads (started by the open) must be born inside the sandbox
        if len(argv) <= 5 or argv[5] != "nosandbox":
            sandbox = sandbox_reads(readable_paths(db_path))
        database = lb.Database(db_path, read_only=True, buffer_pool_size=buffer_mb * 1024 * 1024,
                               max_num_threads=threads)
        conn = lb.Connection(database)
    except Exception as exc:  # any open failure is reported to the parent, which raises
        channel.send(("error", f"could not open {db_path} read-only: {exc}"))
        return 1
    base_rss_mb = _status_kib("VmRSS") // 1024
    channel.send(("ready", base_rss_mb, sandbox))
    while True:
        try:
            request = channel.recv()
        except EOFError:
            return 0
        # max_memory_mb: bound this query's heap (module docstring), from the data size after its plan
        allowance = heap_allowance(int(request[6]), int(buffer_mb), base_rss_mb) if len(request) > 6 else None
        try:
            reply = _run(conn, request, allowance)
        except MemoryError:
            reply = ("memory", "MemoryError")
        except Exception as exc:  # reported, the parent decides
            reply = ("error", f"{type(exc).__name__}: {exc}")
        if reply[0] == "memory":  # the peak, so the parent can report it (it restarts this process)
            reply = (*reply, _status_kib("VmHWM") // 1024)
        try:
            channel.send(reply)
        except Exception as exc:  # e.g. a value that cannot be pickled
            channel.send(("error", f"the result could not be returned: {exc}"))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
