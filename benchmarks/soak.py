"""Soak: concurrent read-only readers beside one writer ingesting, then a consistency and memory check.

Run ``python -m benchmarks.soak [--minutes 3] [--readers 3] [--batch 100]``. A workspace is created from
the bundled sample (all Hetionet nodes, the sample edges) under ``benchmarks/.cache/soak`` (rebuilt each
run). One writer process ingests PubMed records in batches (the 6,107 shared abstracts when
``../shared/data`` is present, else the 430 bundled ones) until the time is up; ``--readers`` reader
processes open the workspace read-only in a loop (open, ``ask``, one evidence-desk query, close) for the
same time. Afterwards the script checks:

* every Article the graph marks ``complete`` has a vector for each of its passages, and no vector lacks its
  passage (graph and vectors agree);
* no reader saw an error other than the documented "opened while a writer holds it" refusals;
* the read-only opens left the vector folder's bytes untouched by readers (the writer changes them);
* peak resident memory of each process (psutil, sampled every 0.5 s).

Prints a table with the commit and writes ``benchmarks/results/soak.md``. Numbers depend on the machine's
load (2 cores shared); the consistency checks do not.
"""

from __future__ import annotations

import argparse
import gzip
import multiprocessing as mp
import os
import platform
import shutil
import subprocess
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


def _writer(path: str, files: list[str], deadline: float, out: Any) -> None:
    from engram_kit.workspace import Workspace

    done, records, errors = 0, 0, []
    try:
        with Workspace.open(path) as ws:
            ws.settings.progress = False
            for file in files:
                if time.time() > deadline:
                    break
                report = ws.ingest(file)
                records += report.ingested
                done += 1
    except Exception:  # noqa: BLE001 - reported in the table
        errors.append(traceback.format_exc(limit=3))
    out.put(("writer", {"batches": done, "records": records, "errors": errors}))


def _reader(path: str, deadline: float, number: int, out: Any) -> None:
    from engram_kit.errors import EngramError
    from engram_kit.workspace import Workspace

    opens = asks = desk = 0
    refusals, errors = 0, []
    while time.time() < deadline:
        try:
            with Workspace.open(path, read_only=True) as ws:
                opens += 1
                ws.ask(QUESTIONS[(opens + number) % len(QUESTIONS)])
                asks += 1
                ws.run_desk("Which pathways does TP53 participate in?")
                desk += 1
        except EngramError as exc:
            if "writer" in str(exc).lower() or "lock" in str(exc).lower():
                refusals += 1
            else:
                errors.append(f"{type(exc).__name__}: {exc}"[:300])
        except Exception:  # noqa: BLE001 - reported in the table
            errors.append(traceback.format_exc(limit=3)[-300:])
    out.put((f"reader {number}", {"opens": opens, "asks": asks, "desk": desk, "refusals": refusals,
                                  "errors": errors}))


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
    return {"complete passages": len(passages), "vectors": len(vectors),
            "passages without vector": len(passages - vectors), "vectors without passage": len(vectors - passages)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--batch", type=int, default=100)
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
    deadline = time.time() + args.minutes * 60
    procs = {"writer": ctx.Process(target=_writer, args=(str(path), files, deadline, out))}
    procs["writer"].start()
    time.sleep(5)  # the writer opens first: readers must work beside a writer, not before it
    for i in range(args.readers):
        procs[f"reader {i}"] = ctx.Process(target=_reader, args=(str(path), deadline, i, out))
        procs[f"reader {i}"].start()
    stop = ctx.Event()
    watcher = ctx.Process(target=_watch, args=({k: p.pid for k, p in procs.items()}, stop, out))
    watcher.start()
    results: dict[str, Any] = {}
    while len(results) < len(procs):
        name, value = out.get(timeout=args.minutes * 60 + 900)
        results[name] = value
    for p in procs.values():
        p.join()
    stop.set()
    name, peaks = out.get(timeout=60)
    watcher.join()
    consistency = check_consistency(path)

    lines = [f"# Soak: {args.readers} readers beside one writer for {args.minutes:g} min",
             "", f"commit {_commit()}, {platform.node()}, load average {os.getloadavg()[0]:.1f} at the end", "",
             "| process | work | refusals | errors | peak RSS (MiB) |", "|---|---|---|---|---|"]
    for key, value in results.items():
        work = ", ".join(f"{k} {v}" for k, v in value.items() if k not in ("errors", "refusals"))
        lines.append(f"| {key} | {work} | {value.get('refusals', 0)} | {len(value['errors'])} | "
                     f"{peaks.get(key, 0) / 2**20:.0f} |")
    lines += ["", "| consistency | count |", "|---|---|"] + [f"| {k} | {v} |" for k, v in consistency.items()]
    errors = [e for value in results.values() for e in value["errors"]]
    if errors:
        lines += ["", "Errors (first 5):", ""] + [f"- `{e.splitlines()[-1] if e else e}`" for e in errors[:5]]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "soak.md").write_text(text, encoding="utf-8")
    ok = not errors and consistency["passages without vector"] == 0 and consistency["vectors without passage"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
