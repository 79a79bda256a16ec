"""Neo4j bulk load, three paths in one run: batched UNWIND over Bolt, LOAD CSV, neo4j-admin import.

The graph: a workspace on the full shared Hetionet (47,031 nodes, 1,359,477 edges) holding the 6,107 shared
abstracts (static embedder: the vectors do not go to Neo4j), made once under ``benchmarks/.cache``. Each path
fills a fresh Neo4j 5.26 server of ``scripts/neo4j.sh`` (its own state folder, restarted between paths):

1. ``unwind``: :func:`engram_kit.store.neo4j_bulk.load_neo4j` ``method="unwind"`` (the domain layer in UNWIND
   batches of 10,000 rows, the literature through ``write_literature``, 200 articles a transaction), what
   ``engram migrate`` did before;
2. ``load-csv``: ``method="load-csv"`` (CSV files into the server's import folder, ``LOAD CSV ... IN
   TRANSACTIONS``), timed with the file writing;
3. ``admin-import``: ``engram export --neo4j-admin-csv`` (timed apart) then ``scripts/neo4j.sh import DIR``
   (stop the server, ``neo4j-admin database import full``, start on the imported store); timed as neo4j-admin
   alone and as the whole stop-import-start until the server answers.

MB/s use one numerator for every path: the bytes of the neo4j-admin CSV export of the graph (the same rows).
Counts per label and relationship type are compared with the source workspace after each path.

Usage: ``python -m benchmarks.neo4j_load [--out benchmarks/results/neo4j_load.md]``. Exits 0 with ``SKIP`` when
the shared data, java or mvn is missing. Stop the test server first (only one Neo4j at a time on the machine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "benchmarks" / ".cache"
STATE_DIR = CACHE / "neo4j-load-server"
WORKSPACE = CACHE / "neo4j-load-ws"
SHARED = ROOT.parent / "shared" / "data"
ABSTRACTS = SHARED / "pubmed" / "pubmed_abstracts.jsonl.gz"


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return (out.stdout.strip() or "unknown") + ("+dirty" if dirty else "")


def _script_env() -> dict[str, str]:
    return {**os.environ, "NEO4J_STATE_DIR": str(STATE_DIR), "NEO4J_HEAP": os.environ.get("NEO4J_HEAP", "2g"),
            "NEO4J_PAGECACHE_MB": os.environ.get("NEO4J_PAGECACHE_MB", "768")}


def _server(*args: str) -> tuple[dict[str, str], str]:
    """Run ``scripts/neo4j.sh ARGS``; the state file's settings (after start/import) and the script's stdout."""
    out = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), *args], check=True, env=_script_env(),
                         capture_output=True, text=True)
    if args[0] not in ("start", "import"):
        return {}, out.stdout
    pairs = (line.split("=", 1) for line in (STATE_DIR / "neo4j.env").read_text().splitlines() if "=" in line)
    return dict(pairs), out.stdout


def _config(env: dict[str, str]) -> Any:
    from engram_kit.store.neo4j import Neo4jConfig

    return Neo4jConfig(uri=env["NEO4J_URI"], user=env["NEO4J_USER"], password=env["NEO4J_PASSWORD"],
                       projection_name="engram_load_bench")


def _workspace() -> Any:
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    if not (WORKSPACE / "bench-ready").exists():
        ws = Workspace.create(WORKSPACE, data=SHARED, overwrite=True,
                              settings=Settings(embedding_model="static", progress=False))
        ws.ingest(ABSTRACTS, workers=2)
        ws.close()
        (WORKSPACE / "bench-ready").write_text("ok\n")
    return Workspace.open(WORKSPACE, read_only=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "neo4j_load.md")
    parser.add_argument("--skip-unwind", action="store_true", help="development only: no UNWIND baseline")
    args = parser.parse_args(argv)
    if not ABSTRACTS.exists():
        print(f"SKIP: shared data not found under {SHARED}")
        return 0
    if shutil.which("java") is None or shutil.which("mvn") is None:
        print("SKIP: java and mvn are needed for the Neo4j server (scripts/neo4j.sh)")
        return 0
    from engram_kit.store.export import export_neo4j_admin_csv
    from engram_kit.store.neo4j import Neo4jStore
    from engram_kit.store.neo4j_bulk import load_neo4j

    load_start = os.getloadavg()
    ws = _workspace()
    reference = ws.store.counts()
    csv_dir = CACHE / "neo4j-load-csv"
    t0 = time.perf_counter()
    export = export_neo4j_admin_csv(ws.store, csv_dir, overwrite=True, progress=False)
    t_export = time.perf_counter() - t0
    megabytes = sum(p.stat().st_size for p in csv_dir.glob("*.csv")) / 1e6
    n_nodes = sum(n for _, n in export.node_files.values())
    n_rows = n_nodes + sum(n for _, n in export.relationship_files.values())
    rows: list[dict[str, Any]] = []

    def verdict(env: dict[str, str]) -> str:
        store = Neo4jStore(_config(env), read_only=True)
        counts = store.counts()
        store.close()
        differing = [k for k in reference if counts.get(k) != reference[k]]
        return "yes" if not differing else "NO: " + ", ".join(f"{k} {counts.get(k)} vs {reference[k]}"
                                                               for k in differing)

    _server("stop")
    try:
        if not args.skip_unwind:
            env, _ = _server("start")
            store = Neo4jStore(_config(env))
            report = load_neo4j(ws.store, store, method="unwind", progress=False)
            store.close()
            rows.append({"path": "UNWIND batches over Bolt (baseline)", "seconds": report.seconds,
                         "detail": ", ".join(f"{k} {v:.1f} s" for k, v in report.stage_seconds.items()),
                         "same": verdict(env)})
            print(rows[-1], flush=True)
            _server("stop")
        env, _ = _server("start")
        store = Neo4jStore(_config(env), create_schema=False)
        report = load_neo4j(ws.store, store, method="load-csv", import_dir=env["NEO4J_IMPORT_DIR"], progress=False)
        store.close()
        rows.append({"path": "LOAD CSV ... IN TRANSACTIONS (running server)", "seconds": report.seconds,
                     "detail": ", ".join(f"{k} {v:.1f} s" for k, v in report.stage_seconds.items())
                     + f"; {report.files} files, {report.csv_bytes / 1e6:.1f} MB", "same": verdict(env)})
        print(rows[-1], flush=True)
        t0 = time.perf_counter()
        env, out = _server("import", str(csv_dir))
        t_import_all = time.perf_counter() - t0
        t_admin = float(next(line.split("=", 1)[1] for line in out.splitlines() if line.startswith("IMPORT_S=")))
        same = verdict(env)
        rows.append({"path": "neo4j-admin database import full (offline)", "seconds": t_admin,
                     "detail": f"neo4j-admin alone; CSV export before it {t_export:.1f} s", "same": same})
        rows.append({"path": "neo4j-admin import + server stop and start until it answers", "seconds": t_import_all,
                     "detail": f"Launcher start {env.get('NEO4J_STARTUP_S', '?')} s of it", "same": same})
        rows.append({"path": "CSV export + neo4j-admin import + stop/start", "seconds": t_export + t_import_all,
                     "detail": "everything from the embedded store to a serving Neo4j", "same": same})
        print(rows[-3:], flush=True)
    finally:
        _server("stop")
        ws.close()
    base = rows[0]["seconds"] if not args.skip_unwind else float("nan")
    table = ["| path | seconds | rows/s | MB/s | speed-up vs UNWIND | counts equal | detail |",
             "|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        table.append(f"| {r['path']} | {r['seconds']:.1f} | {n_rows / r['seconds']:,.0f} | "
                     f"{megabytes / r['seconds']:.2f} | {base / r['seconds']:.1f}x | {r['same']} | {r['detail']} |")
    load_end = os.getloadavg()
    text = "\n".join([
        f"# Neo4j bulk load: UNWIND vs LOAD CSV vs neo4j-admin import (commit {_commit()})", "",
        f"Graph: full shared Hetionet + the 6,107 shared abstracts ({n_rows:,} rows: {n_nodes:,} nodes + "
        f"{n_rows - n_nodes:,} relationships; {megabytes:.1f} MB as neo4j-admin CSV, the MB/s numerator for every path). Server: "
        "scripts/neo4j.sh (Neo4j 5.26.8 harness, heap 2 GB, page cache 768 MB, -XX:+UseSerialGC), fresh for each "
        "path. Machine: 2 cores, shared with other jobs; load average (1/5/15 min) at the start "
        f"{' / '.join(f'{x:.1f}' for x in load_start)}, at the end {' / '.join(f'{x:.1f}' for x in load_end)}.",
        "", *table, ""])
    print(text)
    if not args.skip_unwind:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
