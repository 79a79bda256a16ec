"""Neo4j + OpenGDS beside the embedded store on the full shared Hetionet: bulk load, counts, PPR parity.

Measures, in one run, with the commit hash:

* startup of the ``scripts/neo4j.sh`` server (Neo4j 5.26 harness + OpenGDS 2.13, its own state folder under
  ``benchmarks/.cache/neo4j-bench`` so it never touches the test server);
* bulk load of all shared Hetionet nodes and partial-file edges by each backend's load path: LadybugDB ``COPY``
  (embedded) and ``Neo4jStore.load_knowledge_graph`` (batched ``UNWIND`` over Bolt), in seconds, rows/s and MB/s
  of the uncompressed TSV input;
* counts per label and relationship type on both stores (must be equal);
* personalised PageRank on the domain graph for ``--seeds`` random seed nodes (and one 5-seed set): embedded CSR
  solver vs GDS ``pageRank.stream`` with ``sourceNodes`` through :class:`~engram_kit.store.gds.GDSPPREngine`,
  same damping; top-100 overlap (target >= 0.99) and L1 distance of the normalised score vectors.

Usage: ``python -m benchmarks.neo4j_parity [--edges N] [--seeds K] [--out benchmarks/results/neo4j.md]``.
``--edges`` subsamples edges while developing (the note reports full runs only). Exits 0 with ``SKIP`` when the
shared data, java or mvn is missing. Source of the data: hetio/hetionet v1.0 (CC0), ``../shared/data/README.md``.
"""

from __future__ import annotations

import argparse
import gzip
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.store_load import EDGES_FILE, NODES_FILE, SHARED_HETIONET, read_hetionet

ROOT = Path(__file__).resolve().parents[1]
STATE_DIR = ROOT / "benchmarks" / ".cache" / "neo4j-bench"
TOP_K = 100


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def _tsv_megabytes(path: Path) -> float:
    """Uncompressed size of a gzip file in MB (10^6 bytes)."""
    size = 0
    with gzip.open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            size += len(chunk)
    return size / 1e6


def _server(command: str) -> dict[str, str]:
    env = {**os.environ, "NEO4J_STATE_DIR": str(STATE_DIR), "NEO4J_HEAP": os.environ.get("NEO4J_HEAP", "2g"),
           "NEO4J_PAGECACHE_MB": os.environ.get("NEO4J_PAGECACHE_MB", "768")}
    subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), command], check=True, env=env)
    if command != "start":
        return {}
    pairs = (line.split("=", 1) for line in (STATE_DIR / "neo4j.env").read_text().splitlines() if "=" in line)
    return dict(pairs)


def _top(scores: np.ndarray, k: int = TOP_K) -> set[int]:
    order = np.argsort(-scores, kind="stable")
    return set(order[:k].tolist())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, default=0, help="subsample this many edges (0 = all)")
    parser.add_argument("--seeds", type=int, default=10, help="random single-node seed sets")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "neo4j.md")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if not (SHARED_HETIONET / NODES_FILE).exists():
        print(f"SKIP: shared Hetionet files not found under {SHARED_HETIONET}")
        return 0
    if shutil.which("java") is None or shutil.which("mvn") is None:
        print("SKIP: java and mvn are needed to start the Neo4j + OpenGDS server (scripts/neo4j.sh)")
        return 0

    from engram_kit.retrieval.graph_index import GraphIndex
    from engram_kit.retrieval.ppr import personalized_pagerank
    from engram_kit.settings import Settings
    from engram_kit.store.csr import CSRGraph
    from engram_kit.store.ladybug import LadybugStore
    from engram_kit.store.neo4j import Neo4jConfig, Neo4jStore

    rows: list[tuple[str, str, str]] = []
    nodes, edges = read_hetionet(SHARED_HETIONET)
    n_all_edges = len(edges)
    if args.edges:
        edges = edges.sample(n=min(args.edges, len(edges)), random_state=0).reset_index(drop=True)
    megabytes = (_tsv_megabytes(SHARED_HETIONET / NODES_FILE)
                 + _tsv_megabytes(SHARED_HETIONET / EDGES_FILE) * len(edges) / n_all_edges)
    n_rows = len(nodes) + len(edges)
    workdir = Path(tempfile.mkdtemp(prefix="engram-neo4j-bench-", dir=ROOT / "benchmarks" / ".cache"))
    t0 = time.perf_counter()
    embedded = LadybugStore(workdir / "graph.lbug")
    embedded.load_knowledge_graph(nodes, edges, progress=False)
    t_embedded = time.perf_counter() - t0
    t0 = time.perf_counter()
    env = _server("start")
    t_start = time.perf_counter() - t0
    try:
        config = Neo4jConfig(uri=env["NEO4J_URI"], user=env["NEO4J_USER"], password=env["NEO4J_PASSWORD"],
                             projection_name="engram_bench")
        server = Neo4jStore(config)  # a fresh server: scripts/neo4j.sh stop removed the last database
        t0 = time.perf_counter()
        server.load_knowledge_graph(nodes, edges, progress=True)
        t_neo4j = time.perf_counter() - t0
        rows += [
            ("server startup (scripts/neo4j.sh start, cold JVM)", f"{t_start:.1f} s",
             f"Launcher's own clock: {env.get('NEO4J_STARTUP_S', '?')} s; GDS {env.get('NEO4J_GDS_VERSION', '?')}"),
            (f"bulk load, embedded COPY ({n_rows:,} rows)", f"{t_embedded:.1f} s",
             f"{n_rows / t_embedded:,.0f} rows/s, {megabytes / t_embedded:.1f} MB/s"),
            (f"bulk load, Neo4j UNWIND batches of {config.batch_rows:,}", f"{t_neo4j:.1f} s",
             f"{n_rows / t_neo4j:,.0f} rows/s, {megabytes / t_neo4j:.2f} MB/s"),
        ]
        print("\n".join(f"{a}: {b} ({c})" for a, b, c in rows), flush=True)  # kept if a later step fails
        counts_a, counts_b = embedded.counts(), server.counts()
        keys = embedded.schema.labels + embedded.schema.rel_types
        differing = [k for k in keys if counts_a.get(k) != counts_b.get(k)]
        rows.append(("counts per label / rel type equal", f"{len(keys) - len(differing)}/{len(keys)}",
                     "differing: " + (", ".join(f"{k} {counts_a.get(k)} vs {counts_b.get(k)}" for k in differing)
                                      or "none")))

        domain = embedded.domain_edges()
        kg = CSRGraph.from_id_edges(nodes["id"].astype(str).to_numpy(), domain["source"].to_numpy(),
                                    domain["target"].to_numpy())
        index = GraphIndex.build(kg, pd.DataFrame(columns=["source", "target", "rel_type", "weight"]), {})
        settings = Settings()
        engine = server.ppr_engine()
        degree = np.diff(kg.adjacency.indptr)
        rng = np.random.default_rng(0)
        candidates = np.flatnonzero(degree > 0)
        seed_sets = [{int(i): 1.0} for i in rng.choice(candidates, size=args.seeds, replace=False)]
        seed_sets.append({int(i): float(w) for i, w in zip(rng.choice(candidates, 5, replace=False),
                                                           (1.0, 0.8, 0.6, 0.4, 0.2))})
        overlaps, l1s, times_csr, times_gds = [], [], [], []
        for seeds in seed_sets:
            t0 = time.perf_counter()
            local = personalized_pagerank(kg, seeds, damping=settings.damping, tol=settings.ppr_tol,
                                          max_iter=settings.ppr_max_iter).scores.astype(np.float64)
            times_csr.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            remote = engine.run(index, seeds, settings).scores.astype(np.float64)
            times_gds.append(time.perf_counter() - t0)
            overlaps.append(len(_top(local) & _top(remote)) / TOP_K)
            l1s.append(float(np.abs(local / local.sum() - remote / remote.sum()).sum()))
        rows += [
            (f"PPR top-{TOP_K} overlap, CSR vs GDS ({len(seed_sets)} seed sets, damping {settings.damping})",
             f"min {min(overlaps):.3f}, mean {np.mean(overlaps):.3f}",
             f"L1 distance of score vectors: max {max(l1s):.2e}"),
            ("PPR time per seed set (CSR / GDS incl. projection on first)",
             f"{np.median(times_csr) * 1000:.0f} ms / {np.median(times_gds) * 1000:.0f} ms",
             f"first GDS call (projection): {times_gds[0]:.1f} s"),
        ]
        server.close()
    finally:
        embedded.close()
        _server("stop")
        shutil.rmtree(workdir, ignore_errors=True)
    table = ["| measurement | value | detail |", "| --- | --- | --- |"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    text = "\n".join([
        f"# Neo4j 5.26 + OpenGDS 2.13 beside the embedded store (commit {_commit()})", "",
        f"Shared Hetionet: {len(nodes):,} nodes, {len(edges):,} edges"
        f"{' (subsample)' if args.edges else ''}; input {megabytes:.1f} MB of uncompressed TSV. "
        f"Machine: 2-core, 24 GB; load average (1/5/15 min) at the end {' / '.join(f'{x:.1f}' for x in os.getloadavg())}"
        " (other jobs shared the machine: times are upper bounds). Server: scripts/neo4j.sh (heap 2 GB, page cache "
        "768 MB).", "", *table, ""])
    print(text)
    if not args.edges:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
