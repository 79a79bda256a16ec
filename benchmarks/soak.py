"""Soak: concurrent read-only readers beside one writer ingesting, then a consistency and memory check.

Run ``python -m benchmarks.soak [--minutes 3] [--readers 1] [--light-readers 20] [--quiet-seconds 60]
[--batch 100] [--writer-threads 1] [--thread-readers 0]``. With ``--writer-threads N`` the writer process ingests
its batches from N threads sharing one open ``Workspace`` and ``--thread-readers M`` threads of it read
through that workspace beside them (retrieval, desk queries, a variable-length pattern on the hub gene):
errors, crashes of the query process and hangs (a thread alive 15 min past the writing time) are reported. A workspace is created from the bundled sample (all Hetionet nodes, the sample edges)
under ``benchmarks/.cache/soak`` (rebuilt each run). One writer process ingests PubMed records in batches
(the 6,107 shared abstracts when ``../shared/data`` is present, else the 430 bundled ones) until the time
is up. Beside it:

* ``--readers`` full readers open the workspace read-only in a loop (``Workspace.open``, ``ask``, one
  evidence-desk run, close): about 1.1-1.7 GB each, so few fit on a small machine;
* ``--light-readers`` readers open the two stores read-only the way a read-only workspace does
  (``LadybugStore(read_only=True)``, ``VectorStore(read_only=True)``, about 0.2-0.4 GB each) and run a graph
  count and a vector query per cycle, ``--pause`` seconds apart: this is how 20 concurrent readers fit.

All readers go on for ``--quiet-seconds`` after the writer has finished and closed. Afterwards the script
checks:

* graph and vectors agree: every passage of a ``complete`` article has a vector, no vector lacks its
  passage (and :meth:`Workspace.check` agrees);
* no reader saw an error other than the documented "opened while a writer holds it" refusals;
* readers left the vector folder and the graph file byte-for-byte untouched: SHA-256 of every file under
  ``vectors/`` and of ``graph.lbug`` when the writer has exited and again when every reader has exited
  (the quiet phase, readers only). While the writer runs, the writer changes those bytes, so no byte check
  can tell the readers' writes from its own there;
* memory afterwards: each process's peak RSS (psutil, with children, sampled every 0.5 s), each reader's
  RSS after its first cycle and after its last (growth = a leak per cycle), and the read-only vector
  snapshots (``engram-vectors-ro-*`` in the temp folder) left behind by readers that closed.

Prints a table with the commit and writes ``benchmarks/results/soak.md``. Numbers depend on the machine's
load (2 cores shared); the consistency checks do not.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import hashlib
import multiprocessing as mp
import os
import platform
import shutil
import subprocess
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
SHARED_ABSTRACTS = HERE.parent.parent / "shared" / "data" / "pubmed" / "pubmed_abstracts.jsonl.gz"
QUESTIONS = ("What does metformin treat?", "Which genes does BACE1 interact with?",
             "What compounds might reduce neuroinflammation in Alzheimer's disease?")


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=HERE.parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _batches(source: Path, batch: int, folder: Path) -> list[Path]:
    """Split ``source`` (JSON Lines, gz ok) into files of ``batch`` records under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt", encoding="utf-8") as fh:
        lines = [line for line in fh if line.strip()]
    files = []
    for start in range(0, len(lines), batch):
        path = folder / f"batch-{start // batch:04d}.jsonl"
        path.write_text("".join(lines[start:start + batch]), encoding="utf-8")
        files.append(path)
    return files


#: What the writer process's reader threads ask beside its writer threads: a retrieval, a guarded desk query
#: and a variable-length pattern on the sample's hub gene (a refusal with its budget is a good answer there;
#: a crash or hang is not).
THREAD_QUERIES = ("MATCH (g:Gene {name: 'APP'})-[:INTERACTS_GiG]-(o) RETURN count(o) AS n",
                  "MATCH p=(a:Gene {name: 'APP'})-[*1..3]-(b) RETURN count(p) AS n")


def _writer(path: str, files: list[str], minutes: float, min_batches: int, ready: Any, out: Any,
            threads: int = 1, thread_readers: int = 0) -> None:
    """Ingest batches for ``minutes`` from the moment the workspace is open (at least ``min_batches``).

    With ``threads`` > 1 the batches are shared out to that many threads of this process, all writing
    through the one open ``Workspace``; ``thread_readers`` threads read through it beside them (retrieval
    and desk queries, :data:`THREAD_QUERIES`) until the writers end. Thread errors are reported like the
    writer's; a thread still alive 15 minutes after the writing time is a hang."""
    import threading

    from engram_kit.workspace import Workspace

    done, records, errors, reads, refused = [0], [0], [], [0], [0]
    lock = threading.Lock()
    try:
        with Workspace.open(path) as ws:
            ws.settings.progress = False
            ready.set()
            deadline = time.time() + minutes * 60
            queue = list(files)
            writing_done = threading.Event()

            def write() -> None:
                while True:
                    with lock:
                        if not queue or (time.time() > deadline and done[0] >= min_batches):
                            return
                        file = queue.pop(0)
                    try:
                        report = ws.ingest(file)
                    except Exception:  # reported in the table
                        errors.append(traceback.format_exc(limit=3))
                        return
                    with lock:
                        records[0] += report.ingested
                        done[0] += 1

            def read() -> None:
                desk = ws.evidence_desk()
                while not writing_done.is_set():
                    try:
                        ws.retrieve(QUESTIONS[reads[0] % len(QUESTIONS)])
                        for text in THREAD_QUERIES:
                            artifact = desk.query(text)
                            if artifact.status != "ok":
                                refused[0] += 1
                                if "crashed" in artifact.error:
                                    errors.append(f"desk query crashed its process: {artifact.error}")
                        reads[0] += 1
                    except Exception:
                        errors.append(traceback.format_exc(limit=3))
                        return

            writers = [threading.Thread(target=write, daemon=True) for _ in range(max(1, threads))]
            readers = [threading.Thread(target=read, daemon=True) for _ in range(thread_readers)]
            for t in writers + readers:
                t.start()
            hang_at = deadline + 900
            for t in writers:
                t.join(max(0.0, hang_at - time.time()))
            writing_done.set()
            for t in readers:
                t.join(max(0.0, hang_at + 120 - time.time()))
            stuck = sum(t.is_alive() for t in writers + readers)
            if stuck:
                errors.append(f"HANG: {stuck} thread(s) still running 15 min after the writing time")
    except Exception:  # reported in the table
        errors.append(traceback.format_exc(limit=3))
    ready.set()  # never leave the readers waiting
    result: dict[str, Any] = {"batches": done[0], "records": records[0], "errors": errors}
    if threads > 1 or thread_readers:
        result.update({"writer threads": threads, "reader threads": thread_readers, "thread reads": reads[0],
                       "desk refusals": refused[0]})
    out.put(("writer", result))


def _refusal_or_error(exc: Exception, errors: list[str]) -> int:
    """1 when ``exc`` is the clear refusal of a second writer or a held lock (expected beside a writer);
    otherwise 0, with the error (an EngramError's message or a short traceback) appended to ``errors``."""
    from engram_kit.errors import EngramError

    if isinstance(exc, EngramError):
        if "writer" in str(exc).lower() or "lock" in str(exc).lower():
            return 1
        errors.append(f"{type(exc).__name__}: {exc}"[:300])
    else:
        errors.append(traceback.format_exc(limit=3)[-300:])
    return 0


def _rss_mib() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _reader(path: str, deadline: Any, writing: Any, ready: Any, number: int, out: Any) -> None:
    from engram_kit.workspace import Workspace

    opens = asks = desk = beside_writer = 0
    refusals, first_rss = 0, 0.0
    errors: list[str] = []
    ready.wait()
    while time.time() < deadline.value:
        beside_writer += bool(writing.value)
        try:
            with Workspace.open(path, read_only=True) as ws:
                opens += 1
                ws.ask(QUESTIONS[(opens + number) % len(QUESTIONS)])
                asks += 1
                ws.run_desk("Which pathways does TP53 participate in?")
                desk += 1
        except Exception as exc:  # reported in the table
            refusals += _refusal_or_error(exc, errors)
        first_rss = first_rss or _rss_mib()
    out.put((f"reader {number}", {"opens": opens, "beside writer": beside_writer, "asks": asks, "desk": desk,
                                  "refusals": refusals, "errors": errors, "rss_first": first_rss,
                                  "rss_last": _rss_mib()}))


def _light_reader(path: str, deadline: Any, writing: Any, ready: Any, number: int, pause: float, out: Any) -> None:
    """Open both stores read-only as a read-only workspace does; a graph count and a vector query per cycle."""
    import json

    import numpy as np

    from engram_kit.store.ladybug import LadybugStore
    from engram_kit.store.vectors import VectorStore

    folder = Path(path)
    model = json.loads((folder / "manifest.json").read_text())["embedding_model"]
    rng = np.random.default_rng(number)
    opens = queries = beside_writer = 0
    refusals, first_rss = 0, 0.0
    errors: list[str] = []
    ready.wait()
    while time.time() < deadline.value:
        beside_writer += bool(writing.value)
        try:
            store = LadybugStore(folder / "graph.lbug", read_only=True)
            try:
                vectors = VectorStore(folder / "vectors", dimension=int(model["dimension"]), model_name=model["name"],
                                      read_only=True)
                try:
                    opens += 1
                    store.query("MATCH (p:Passage) RETURN count(p) AS n")
                    vector = rng.standard_normal(int(model["dimension"])).astype(np.float32)
                    vectors.query(vector / np.linalg.norm(vector), 5)
                    queries += 2
                finally:
                    vectors.close()
            finally:
                store.close()
        except Exception as exc:  # reported in the table
            refusals += _refusal_or_error(exc, errors)
        first_rss = first_rss or _rss_mib()
        time.sleep(pause)
    out.put((f"light {number}", {"opens": opens, "beside writer": beside_writer, "queries": queries,
                                 "refusals": refusals, "errors": errors, "rss_first": first_rss,
                                 "rss_last": _rss_mib()}))


def _fingerprint(path: Path) -> dict[str, str]:
    """SHA-256 of every file under ``vectors/`` and of the graph file(s)."""
    files = sorted(p for p in (path / "vectors").rglob("*") if p.is_file())
    files += sorted(p for p in path.glob("graph.lbug*") if p.is_file())
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def _snapshots() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "engram-vectors-ro-*")))


def _watch(pids: dict[str, int], stop: Any, out: Any) -> None:
    import psutil

    peaks = dict.fromkeys(pids, 0)
    while not stop.is_set():
        for name, pid in pids.items():
            try:
                process = psutil.Process(pid)
                rss = process.memory_info().rss + sum(c.memory_info().rss for c in process.children(recursive=True))
                peaks[name] = max(peaks[name], rss)
            except psutil.Error:
                pass
        time.sleep(0.5)
    out.put(("peaks", peaks))


def check_consistency(path: Path) -> dict[str, int]:
    """Counts of complete articles' passages without vectors and of vectors without passages."""
    from engram_kit.workspace import Workspace

    with Workspace.open(path, read_only=True) as ws:
        frame = ws.store.query("MATCH (a:Article)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                               "WHERE a.status = 'complete' RETURN DISTINCT p.id AS id")
        passages = set(frame["id"]) if not frame.empty else set()
        vectors = set(ws.vectors.ids())
        report = ws.check()
    return {"complete passages": len(passages), "vectors": len(vectors),
            "passages without vector": len(passages - vectors), "vectors without passage": len(vectors - passages),
            "check() consistent": int(report.consistent), "check() pending articles": len(report.pending)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--readers", type=int, default=1, help="full readers (Workspace.open, ask, desk)")
    parser.add_argument("--light-readers", type=int, default=20, help="readers of the two stores only")
    parser.add_argument("--quiet-seconds", type=float, default=60.0,
                        help="readers go on this long after the writer has closed (the byte check)")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--min-batches", type=int, default=3, help="the writer ingests at least this many")
    parser.add_argument("--writer-threads", type=int, default=1,
                        help="threads of the writer process ingesting through its one Workspace (issue 31)")
    parser.add_argument("--thread-readers", type=int, default=0,
                        help="threads of the writer process reading through that Workspace beside them")
    parser.add_argument("--results", default="soak.md", help="file under benchmarks/results/ for the table")
    parser.add_argument("--pause", type=float, default=1.0,
                        help="seconds a light reader waits between cycles (20 readers without a pause saturate 2 cores)")
    args = parser.parse_args(argv)

    from engram_kit.datasets import resolve_data_paths
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = CACHE / "soak"
    shutil.rmtree(path, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    paths = resolve_data_paths()
    Workspace.create(path, data=paths, settings=Settings(progress=False)).close()
    source = SHARED_ABSTRACTS if SHARED_ABSTRACTS.exists() else paths.abstracts
    files = [str(f) for f in _batches(source, args.batch, CACHE / "soak-batches")]

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    snapshots_before = _snapshots()
    ready, writing = ctx.Event(), ctx.Value("i", 1)
    reader_deadline = ctx.Value("d", time.time() + 7 * 24 * 3600)  # moved to writer end + quiet seconds
    procs = {"writer": ctx.Process(target=_writer, args=(str(path), files, args.minutes, args.min_batches, ready, out,
                                                         args.writer_threads, args.thread_readers))}
    procs["writer"].start()
    # readers start now (imports take a while) but begin their cycles only once the writer holds the workspace
    for i in range(args.readers):
        procs[f"reader {i}"] = ctx.Process(target=_reader, args=(str(path), reader_deadline, writing, ready, i, out))
        procs[f"reader {i}"].start()
    for i in range(args.light_readers):
        procs[f"light {i}"] = ctx.Process(target=_light_reader,
                                          args=(str(path), reader_deadline, writing, ready, i, args.pause, out))
        procs[f"light {i}"].start()
    stop = ctx.Event()
    watcher = ctx.Process(target=_watch, args=({k: p.pid for k, p in procs.items()}, stop, out))
    watcher.start()
    results: dict[str, Any] = {}
    name, value = out.get(timeout=args.minutes * 60 + 900)
    while name != "writer":  # a reader cannot end before the writer (its deadline is a day away)
        results[name] = value
        name, value = out.get(timeout=args.minutes * 60 + 900)
    results[name] = value
    procs["writer"].join()
    writing.value = 0
    writer_end = time.time()
    before_quiet = _fingerprint(path)
    reader_deadline.value = writer_end + args.quiet_seconds
    while len(results) < len(procs):
        name, value = out.get(timeout=args.quiet_seconds + 900)
        results[name] = value
    for p in procs.values():
        p.join()
    after_quiet = _fingerprint(path)
    stop.set()
    name, peaks = out.get(timeout=60)
    watcher.join()
    consistency = check_consistency(path)
    changed = sorted(k for k in set(before_quiet) | set(after_quiet) if before_quiet.get(k) != after_quiet.get(k))
    left = sorted(_snapshots() - snapshots_before)
    quiet_work = f"{time.time() - writer_end:.0f} s"

    lines = [f"# Soak: {args.readers} full + {args.light_readers} light readers beside one writer for "
             f"{args.minutes:g} min, then {args.quiet_seconds:g} s of readers alone",
             "", f"commit {_commit()}, {platform.node()}, load average {os.getloadavg()[0]:.1f} at the end "
             f"({os.cpu_count()} cores, shared)", "",
             "| process | work | refusals | errors | peak RSS (MiB) | RSS after 1st / last cycle (MiB) |",
             "|---|---|---|---|---|---|"]
    for key in sorted(results, key=lambda k: (k.split()[0] != "writer", k.split()[0], int(k.split()[-1])
                                              if k.split()[-1].isdigit() else 0)):
        value = results[key]
        work = ", ".join(f"{k} {v}" for k, v in value.items() if k not in ("errors", "refusals", "rss_first", "rss_last"))
        rss = f"{value['rss_first']:.0f} / {value['rss_last']:.0f}" if value.get("rss_first") else "-"
        lines.append(f"| {key} | {work} | {value.get('refusals', 0)} | {len(value['errors'])} | "
                     f"{peaks.get(key, 0) / 2**20:.0f} | {rss} |")
    light = [v for k, v in results.items() if k.startswith("light")]
    if light:
        growth = [v["rss_last"] - v["rss_first"] for v in light if v["rss_first"]] or [0.0]
        lines += ["", f"Light readers: {sum(v['opens'] for v in light)} opens in all "
                      f"({sum(v['beside writer'] for v in light)} begun while the writer held the workspace); "
                      "RSS growth from the first "
                      f"to the last cycle {min(growth):+.0f} to {max(growth):+.0f} MiB (median "
                      f"{sorted(growth)[len(growth) // 2]:+.0f})."]
    lines += ["", "| consistency | count |", "|---|---|"] + [f"| {k} | {v} |" for k, v in consistency.items()]
    lines += ["", f"Byte check (readers alone for {quiet_work} after the writer closed): "
                  f"{len(before_quiet)} files under vectors/ and graph.lbug*, "
                  + (f"**{len(changed)} changed**: {', '.join(changed[:5])}" if changed else "none changed") + ".",
              f"Read-only vector snapshots left in the temp folder by the readers: {len(left)}."]
    errors = [e for value in results.values() for e in value["errors"]]
    if errors:
        lines += ["", "Errors (first 5):", ""] + [f"- `{e.splitlines()[-1] if e else e}`" for e in errors[:5]]
    quiet_cycles = sum(v["opens"] - v["beside writer"] for k, v in results.items() if k != "writer")
    if not quiet_cycles:
        lines.append("No reader opened the stores after the writer closed: the byte check proves nothing.")
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / args.results).write_text(text, encoding="utf-8")
    ok = bool(quiet_cycles) and not errors and not changed and not left and consistency["passages without vector"] == 0 \
        and consistency["vectors without passage"] == 0 and consistency["check() consistent"] == 1
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
