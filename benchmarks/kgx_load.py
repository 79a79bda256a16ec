"""Benchmark: a Monarch-sized Biolink KGX graph as an engram-kit workspace (issue 9).

Run ``python -m benchmarks.kgx_load [--quick] [--copies K] [--seeds 20] [--keep]`` from the repository
root. Writes ``benchmarks/results/kgx_load.md`` (``kgx_load_quick.md`` for ``--quick``) and prints it.

**The graph is a scaled replica of real rows, not the Monarch KG.** No Monarch KG export is available
offline (the real one has ~1M nodes and ~10M+ edges); the bundled real KGX samples in ``data/kgx/``
(``graph_nodes.tsv``: 534 node rows; ``graph_edges.tsv``: 539 edge rows; ``monarch-tiny_edges.tsv``: 500
PomBase gene-to-phenotype edge rows whose 315 endpoints are not in any node file and are loaded as stubs)
are copied K times (:func:`build_replica`):

* copy ``c`` of a CURIE appends ``x<c>`` to its local part (``HGNC:10848`` -> ``HGNC:10848x3``), so every
  node id, edge id (``uuid:...x3``), subject and object stays a valid, distinct ``prefix:local`` CURIE;
  node names get the same `` x<c>`` suffix (distinct names, as in a real graph); all other cells (taxa,
  publications, qualifiers, sources, relation) are the real values, unchanged;
* the base edge file is the monarch-tiny rows followed by the graph_edges rows (columns: union, monarch-tiny's
  order first); the 22 duplicated node rows and 8 duplicated edge rows of the samples are copied too (KGX
  merges them: the loader's duplicate handling is part of what is timed);
* **cross-copy edges**, so that the K copies form one connected graph:
  (1) *rewired real rows*: for each copy ``c`` (when K > 1), every base edge row ``i`` with
  ``i % 50 == c % 50`` (~2% of rows) is emitted once more with its object taken from copy ``(c + 1) % K``
  (same predicate, category and endpoint types; edge id suffixed ``x<c>r``);
  (2) *ring*: ``HGNC:10848x<c+1> biolink:interacts_with HGNC:10848x<c>`` (SHH, the sample's hub, degree 495);
  (3) *bridges*: the base graph has 29 connected components (main 496 nodes; monarch-tiny's 26 PomBase
  components; a Disease-Pathway component of 15 nodes; one isolated gene); for each of the 28 other components,
  ``HGNC:10848x<c+1>`` is linked to that component's highest-degree gene in copy ``c`` with
  ``biolink:interacts_with`` (Gene-Gene, already in the data), or, for the gene-less Disease-Pathway component,
  to its disease with ``biolink:related_to`` (Gene->Disease, already in the data). Ring and bridge rows carry
  ``provided_by = engram_kit_benchmark_bridge`` so they can be told apart. No new relationship type or
  label pair is introduced. The benchmark checks with SciPy that the resulting PPR graph has one component.

**What is measured** (one run; the machine is shared, so the load average at start and end is reported):

(a) :func:`engram_kit.kg.kgx.load_kgx` wall time vs the floor ``pandas.read_csv(path, sep="\\t", dtype=str)``
    of the same two files, plain TSV and gzip, each in a fresh spawned process so that its peak RSS
    (``VmHWM``; see :func:`_peak_mib` for why not ``ru_maxrss`` there) is that step's alone (the Biolink
    Model is loaded by a one-copy warm-up before timing; its time is reported);
(b) :meth:`LadybugStore.load_knowledge_graph` (one ``COPY`` per node label and per (relationship type,
    label pair)) time and on-disk size;
(c) :meth:`Workspace.create(path, graph=kg) <engram_kit.workspace.Workspace.create>` total (store load
    again, CSR for PPR, node parquet, lexicon);
(d) PPR latency on the workspace's CSR: ``personalization_from_ids`` + ``personalized_pagerank`` for 20
    random seed sets of 1-5 connected nodes (seed 0), best of 3 runs each, median and p95 over seed sets,
    against the textbook SciPy float64 power iteration of :mod:`benchmarks.ppr` (reused) and, with
    ``--quick`` only, NetworkX ``pagerank(personalization=...)``; accuracy = top-100 overlap with an exact
    float64 power iteration (L1 change < 1e-12);
(e) peak RSS: per step in (a); for (b)-(d) the main process's high-water mark after each step
    (``resource.getrusage`` ``ru_maxrss`` = ``VmHWM`` there).
"""

from __future__ import annotations

import argparse
import gzip
import logging
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from engram_kit.progress import tqdm

from benchmarks.ppr import dense_seed, overlap, scipy_power, stats
from benchmarks.quality.common import provenance
from benchmarks.store_load import _disk_bytes

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "data" / "kgx"
RESULTS = Path(__file__).resolve().parent / "results"
NODES_FILE, EDGES_FILE, TINY_EDGES_FILE = "graph_nodes.tsv", "graph_edges.tsv", "monarch-tiny_edges.tsv"
#: Node and edge id columns whose CURIEs get the copy suffix.
NODE_ID_COLUMNS = ("id",)
EDGE_ID_COLUMNS = ("id", "subject", "object")
#: One base edge row in REWIRE_EVERY gets a cross-copy twin per copy (row i in copy c when i % 50 == c % 50).
REWIRE_EVERY = 50
HUB = "HGNC:10848"  # SHH (human), degree 495 in the samples
BRIDGE_SOURCE = "engram_kit_benchmark_bridge"
QUICK_EDGES, FULL_EDGES = 50_000, 1_000_000
MONARCH_NOTE = ("a scaled replica of real KGX sample rows (biolink/kgx test resources, incl. a Monarch/PomBase "
                "slice), NOT the Monarch KG")


# ------------------------------------------------------------------------------------------- the graph
def read_samples(folder: Path = SAMPLES) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The real sample rows: the node file, and monarch-tiny + graph edge rows as one edge table (str cells)."""
    def read(name: str) -> pd.DataFrame:
        return pd.read_csv(folder / name, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    nodes, graph_edges, tiny = read(NODES_FILE), read(EDGES_FILE), read(TINY_EDGES_FILE)
    columns = list(tiny.columns) + [c for c in graph_edges.columns if c not in tiny.columns]
    edges = pd.concat([tiny, graph_edges], ignore_index=True).reindex(columns=columns).fillna("")
    return nodes, edges


def _suffixed(values: np.ndarray, copy: np.ndarray, separator: str = "x") -> np.ndarray:
    """``values[i] + separator + str(copy[i])``, empty cells left empty (edges without an id keep none)."""
    out = pd.Series(values, dtype=object) + separator + pd.Series(copy).astype(str)
    return np.where(values == "", "", out.to_numpy(dtype=object))


def _tile(frame: pd.DataFrame, copies: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """``frame`` repeated ``copies`` times; also each row's base row index and copy number."""
    row = np.tile(np.arange(len(frame)), copies)
    copy = np.repeat(np.arange(copies), len(frame))
    return frame.iloc[row].reset_index(drop=True), row, copy


def _bridge_targets(nodes: pd.DataFrame, edges: pd.DataFrame) -> pd.DataFrame:
    """One row per connected component of the base graph except the hub's: the node to link and the predicate.

    Columns ``node, predicate``: the component's highest-degree gene (``biolink:interacts_with``), or, for a
    component without genes, its highest-degree disease or node (``biolink:related_to``).
    """
    category = dict(zip(nodes["id"], nodes["category"]))
    tiny = edges["category"].str.contains("GeneToPhenotypicFeatureAssociation")
    category.update(dict.fromkeys(edges.loc[tiny, "subject"], "biolink:Gene"))  # as load_kgx infers the stubs
    category.update(dict.fromkeys(edges.loc[tiny, "object"], "biolink:PhenotypicFeature"))
    ids = pd.Index(sorted(set(nodes["id"]) | set(edges["subject"]) | set(edges["object"])))
    src, dst = ids.get_indexer(edges["subject"]), ids.get_indexer(edges["object"])
    adjacency = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(len(ids), len(ids))).tocsr()
    adjacency = adjacency + adjacency.T
    _, component = csgraph.connected_components(adjacency, directed=False)
    degree = np.asarray((adjacency > 0).sum(axis=1)).ravel()
    frame = pd.DataFrame({"node": ids, "component": component, "degree": degree,
                          "category": [category.get(i, "") for i in ids]})
    frame["rank"] = frame["category"].map({"biolink:Gene": 0, "biolink:Disease": 1}).fillna(2)
    hub_component = frame.loc[frame["node"] == HUB, "component"].item()
    frame = frame[frame["component"] != hub_component].sort_values(["component", "rank", "degree", "node"],
                                                                   ascending=[True, True, False, True])
    chosen = frame.groupby("component", sort=True).head(1)
    predicate = np.where(chosen["category"] == "biolink:Gene", "biolink:interacts_with", "biolink:related_to")
    return pd.DataFrame({"node": chosen["node"].to_numpy(), "predicate": predicate})


def build_replica(copies: int, folder: Path, *, progress: bool = True,
                  samples: Path = SAMPLES) -> dict[str, object]:
    """Write ``nodes.tsv``/``edges.tsv`` and their ``.gz`` into ``folder``: ``copies`` copies of the samples.

    See the module docstring for the exact id scheme and cross-copy edges. Returns facts for the report:
    row counts per kind of row, file sizes (bytes) and the seconds spent writing and compressing.
    """
    started = time.perf_counter()
    nodes, edges = read_samples(samples)
    bridges = _bridge_targets(nodes, edges)
    out_nodes, _, node_copy = _tile(nodes, copies)
    out_nodes["id"] = _suffixed(out_nodes["id"].to_numpy(dtype=object), node_copy)
    out_nodes["name"] = _suffixed(out_nodes["name"].to_numpy(dtype=object), node_copy, " x")

    real, row, copy = _tile(edges, copies)
    for column in EDGE_ID_COLUMNS:
        real[column] = _suffixed(real[column].to_numpy(dtype=object), copy)
    parts = [real]
    n_rewired = n_ring = n_bridges = 0
    if copies > 1:
        pick = (row % REWIRE_EVERY) == (copy % REWIRE_EVERY)
        rewired = edges.iloc[row[pick]].reset_index(drop=True)
        c = copy[pick]
        rewired["subject"] = _suffixed(rewired["subject"].to_numpy(dtype=object), c)
        rewired["object"] = _suffixed(rewired["object"].to_numpy(dtype=object), (c + 1) % copies)
        rewired["id"] = np.where(rewired["id"] == "", "", _suffixed(rewired["id"].to_numpy(dtype=object), c) + "r")
        n_rewired = len(rewired)
        base = np.arange(copies)
        ring = pd.DataFrame({"subject": _suffixed(np.full(copies, HUB, dtype=object), (base + 1) % copies),
                             "predicate": "biolink:interacts_with",
                             "object": _suffixed(np.full(copies, HUB, dtype=object), base)})
        tiled, _, bcopy = _tile(bridges, copies)
        bridge = pd.DataFrame({"subject": _suffixed(np.full(len(tiled), HUB, dtype=object), (bcopy + 1) % copies),
                               "predicate": tiled["predicate"].to_numpy(),
                               "object": _suffixed(tiled["node"].to_numpy(dtype=object), bcopy)})
        synthetic = pd.concat([ring, bridge], ignore_index=True)
        synthetic["provided_by"] = BRIDGE_SOURCE
        synthetic["knowledge_level"] = synthetic["agent_type"] = "not_provided"
        n_ring, n_bridges = len(ring), len(bridge)
        parts += [rewired, synthetic.reindex(columns=edges.columns).fillna("")]
    out_edges = pd.concat(parts, ignore_index=True)
    built = time.perf_counter() - started

    started = time.perf_counter()
    files: dict[str, Path] = {}
    for name, frame in (("nodes", out_nodes), ("edges", out_edges)):
        path = folder / f"{name}.tsv"
        _write_tsv(frame, path, progress=progress, desc=f"write {path.name}")
        files[name] = path
    written = time.perf_counter() - started
    started = time.perf_counter()
    for name in ("nodes", "edges"):
        with open(files[name], "rb") as src, gzip.open(folder / f"{name}.tsv.gz", "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, length=4 << 20)
    gzipped = time.perf_counter() - started
    return {
        "copies": copies, "node_rows": len(out_nodes), "edge_rows": len(out_edges),
        "real_edge_rows": len(real), "rewired_rows": n_rewired, "ring_rows": n_ring, "bridge_rows": n_bridges,
        "components_bridged": len(bridges), "build_s": built, "write_s": written, "gzip_s": gzipped,
        "sizes": {p.name: p.stat().st_size for p in sorted(folder.glob("*.tsv*"))},
    }


def _write_tsv(frame: pd.DataFrame, path: Path, *, progress: bool, desc: str, chunk: int = 200_000) -> None:
    """Unquoted KGX TSV (no cell holds a tab or newline), written in chunks with a progress bar."""
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("\t".join(frame.columns) + "\n")
        for start in tqdm(range(0, len(frame), chunk), desc=desc, unit="chunk", disable=not progress, leave=False):
            part = frame.iloc[start:start + chunk]
            line = part.iloc[:, 0].astype(str)
            for column in part.columns[1:]:
                line = line + "\t" + part[column].astype(str)
            out.write("\n".join(line.tolist()) + "\n")


def rows_per_copy() -> int:
    """Edge rows one copy contributes (real rows + ~2% rewired + ring + bridges)."""
    nodes, edges = read_samples()
    return len(edges) + len(edges) // REWIRE_EVERY + 1 + len(_bridge_targets(nodes, edges))


# ------------------------------------------------------------------------------- measured in a child
def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    """Peak RSS of this process in MiB: ``VmHWM`` of ``/proc/self/status``, else ``ru_maxrss``.

    ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` is not usable in a spawned child on Linux: the kernel keeps
    the high-water mark across fork + exec, so a child reports at least its parent's peak at fork time.
    ``VmHWM`` belongs to the child's own address space (the same number as ``ru_maxrss`` otherwise).
    """
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024  # kB
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _child_measure(kind: str, nodes_path: str, edges_path: str) -> dict[str, float]:
    """Run one read in this (fresh) process; wall seconds, RSS before and peak RSS after (MiB), rows."""
    logging.disable(logging.WARNING)
    warm = 0.0
    if kind == "load_kgx":
        from engram_kit.kg.kgx import load_kgx

        t0 = time.perf_counter()  # loads the Biolink Model (once per process) on the real one-copy samples
        nodes, edges = read_samples()
        tmp = Path(tempfile.mkdtemp(prefix="engram-kgx-warm-"))
        try:
            edges.to_csv(tmp / "e.tsv", sep="\t", index=False)
            load_kgx(SAMPLES / NODES_FILE, tmp / "e.tsv", missing_nodes="stub", progress=False)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        del nodes, edges
        warm = time.perf_counter() - t0
    before = _rss_mib()
    t0 = time.perf_counter()
    if kind == "load_kgx":
        kg = load_kgx(nodes_path, edges_path, missing_nodes="stub", progress=False)
        n_nodes, n_edges = kg.n_nodes, kg.n_edges
    else:
        n_nodes = len(pd.read_csv(nodes_path, sep="\t", dtype=str))
        n_edges = len(pd.read_csv(edges_path, sep="\t", dtype=str))
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "rss_before": before, "peak": _peak_mib(), "nodes": n_nodes, "edges": n_edges,
            "warmup_s": warm}


def measure_in_child(kind: str, nodes_path: Path, edges_path: Path) -> dict[str, float]:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(_child_measure, kind, str(nodes_path), str(edges_path)).result()


# ------------------------------------------------------------------------------------------------ run
def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {os.cpu_count()} cores, {mem:.0f} GiB RAM"


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def run(quick: bool, copies: int | None, n_seeds: int, repeats: int, damping: float, keep: bool,
        progress: bool = True) -> str:
    from engram_kit.kg.kgx import load_kgx
    from engram_kit.retrieval.ppr import (
        PARALLEL_MIN_NNZ,
        default_threads,
        personalization_from_ids,
        personalized_pagerank,
    )
    from engram_kit.settings import Settings
    from engram_kit.store.ladybug import LadybugStore
    from engram_kit.workspace import Workspace

    load_start = _load()
    target = QUICK_EDGES if quick else FULL_EDGES
    copies = copies or max(1, round(target / rows_per_copy()))
    work = Path(tempfile.mkdtemp(prefix="engram-kgx-bench-"))
    try:
        print(f"Building {copies} copies of the KGX samples in {work} ({MONARCH_NOTE}) ...", file=sys.stderr)
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:  # keeps our peak RSS low
            facts = pool.submit(build_replica, copies, work, progress=progress).result()
        sizes = facts["sizes"]
        files = {"tsv": (work / "nodes.tsv", work / "edges.tsv"), "gz": (work / "nodes.tsv.gz", work / "edges.tsv.gz")}

        # (a) load_kgx vs pandas floor, each in a fresh process
        child: dict[tuple[str, str], dict[str, float]] = {}
        for fmt in ("tsv", "gz"):
            for kind in ("read_csv", "load_kgx"):
                print(f"(a) {kind} on {fmt} in a fresh process ...", file=sys.stderr)
                child[(kind, fmt)] = measure_in_child(kind, *files[fmt])

        # (a') load in this process (the graph used below); (b) LadybugStore bulk load
        peak0 = _peak_mib()
        rss0 = _rss_mib()
        t0 = time.perf_counter()
        kg = load_kgx(*files["tsv"], missing_nodes="stub", name="monarch-replica", version=f"x{copies}",
                      progress=progress)
        load_main = time.perf_counter() - t0
        peak_load = _peak_mib()
        report = kg.report
        n_tables = len(kg.schema.labels) + sum(len(spec.pairs) for spec in kg.schema.rel_specs)
        print("(b) LadybugStore bulk load ...", file=sys.stderr)
        store_path = work / "store" / "graph.lbug"
        t0 = time.perf_counter()
        with LadybugStore(store_path, schema=kg.schema) as store:
            store.load_knowledge_graph(kg.nodes, kg.edges, progress=progress)
            store_s = time.perf_counter() - t0
        store_closed_s = time.perf_counter() - t0
        store_bytes = _disk_bytes(store_path)
        peak_store = _peak_mib()
        shutil.rmtree(work / "store", ignore_errors=True)

        # (c) Workspace.create
        print("(c) Workspace.create ...", file=sys.stderr)
        t0 = time.perf_counter()
        ws = Workspace.create(work / "ws", graph=kg, settings=Settings(progress=progress))
        ws_s = time.perf_counter() - t0
        ws_bytes = sum(p.stat().st_size for p in (work / "ws").rglob("*") if p.is_file())
        peak_ws = _peak_mib()

        # (d) PPR on the workspace's CSR
        graph = ws.csr_graph()
        n_components, _ = csgraph.connected_components(graph.adjacency, directed=False)
        rng = np.random.default_rng(0)
        connected = np.flatnonzero(graph.degree > 0)
        id_sets = [[str(graph.node_ids[i]) for i in rng.choice(connected, int(rng.integers(1, 6)), replace=False)]
                   for _ in range(n_seeds)]
        t64 = graph.transition.astype(np.float64)
        index_sets = [personalization_from_ids(graph, ids) for ids in id_sets]
        refs = [scipy_power(t64, dense_seed(graph, s), damping, 1e-12)
                for s in tqdm(index_sets, desc="exact references", disable=not progress, leave=False)]

        def time_method(fn, count: int, reps: int) -> tuple[list[float], list[float]]:
            fn(id_sets[0])  # warm-up
            ms, ov = [], []
            for ids, ref in zip(id_sets[:count], refs):
                best, scores = float("inf"), None
                for _ in range(reps):
                    start = time.perf_counter()
                    out = fn(ids)
                    elapsed = (time.perf_counter() - start) * 1e3
                    if elapsed < best:
                        best, scores = elapsed, out
                ms.append(best)
                ov.append(overlap(scores, ref))
            return ms, ov

        ppr_rows: list[tuple[str, list[float], list[float], str]] = []  # name, ms, overlap, median steps
        for method, label in (("cg", "CG, default"), ("power", "`method='power'`")):
            steps: list[int] = []

            def ours(ids: list[str], method: str = method, steps: list[int] = steps) -> np.ndarray:
                result = personalized_pagerank(graph, personalization_from_ids(graph, ids), damping=damping,
                                               method=method)
                steps.append(result.iterations)
                return result.scores
            ms, ov = time_method(ours, n_seeds, repeats)
            ppr_rows.append((f"engram-kit `personalization_from_ids` + `personalized_pagerank` ({label})", ms, ov,
                             f"{statistics.median(steps):g} (max {max(steps)})"))
        ppr_rows.append(("SciPy float64 power iteration (`benchmarks.ppr.scipy_power`, tol 1e-6)",
                         *time_method(lambda ids: scipy_power(
                             t64, dense_seed(graph, personalization_from_ids(graph, ids)), damping, 1e-6),
                             n_seeds, repeats), ""))
        nx_note = "not run (full size: NetworkX takes seconds per call; see `benchmarks/ppr.py` for it at 2.2M edges)"
        if quick:
            import networkx as nx

            a = graph.adjacency.tocoo()
            keep_upper = a.row < a.col
            G = nx.Graph()
            G.add_nodes_from(range(graph.n_nodes))
            G.add_weighted_edges_from(zip(a.row[keep_upper].tolist(), a.col[keep_upper].tolist(),
                                          a.data[keep_upper].astype(float).tolist()))

            def nx_fn(ids: list[str]) -> np.ndarray:
                s = personalization_from_ids(graph, ids)
                pr = nx.pagerank(G, alpha=damping, personalization=s, dangling=s, tol=1e-6 / graph.n_nodes,
                                 max_iter=1000)
                return np.fromiter((pr[i] for i in range(graph.n_nodes)), dtype=np.float64, count=graph.n_nodes)
            ppr_rows.append((f"NetworkX {nx.__version__} `pagerank(personalization=...)`",
                             *time_method(nx_fn, n_seeds, 1), ""))
            nx_note = ""
        peak_ppr = _peak_mib()
        ws.close()
        load_end = _load()
    finally:
        if keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

    # ------------------------------------------------------------------------------------------ report
    tsv_k, tsv_f = child[("load_kgx", "tsv")], child[("read_csv", "tsv")]
    gz_k, gz_f = child[("load_kgx", "gz")], child[("read_csv", "gz")]
    lines = [
        f"# KGX load benchmark ({'quick, ~50k edges' if quick else 'full, ~1M edges'}): {MONARCH_NOTE}",
        "",
        *provenance(["pandas", "numpy", "scipy", "networkx", "ladybug", "biolink-model"]),
        f"- CPU: {_machine()}. **Shared, loaded machine**: 1/5/15-min load average {load_start} at start, "
        f"{load_end} at end; wall times are inflated and scattered accordingly (one run each, not best-of).",
        "",
        "## Graph",
        "",
        f"**Scaled replica of real rows, not the Monarch KG** (the real Monarch KG is ~1M nodes / ~10M+ edges). "
        f"The real KGX samples in `data/kgx/` (graph_nodes.tsv, graph_edges.tsv, monarch-tiny_edges.tsv) copied "
        f"{copies:,} times, CURIEs suffixed per copy (`HGNC:10848` -> `HGNC:10848x3`), plus cross-copy edges "
        "(exact scheme in the `benchmarks/kgx_load.py` docstring): every 50th real row rewired to the next copy's "
        "object, a ring of `HGNC:10848x<c+1> interacts_with HGNC:10848x<c>`, and one bridge per copy to each of "
        f"the base graph's {facts['components_bridged']} other connected components.",
        "",
        f"- Rows written: {facts['node_rows']:,} node rows; {facts['edge_rows']:,} edge rows = "
        f"{facts['real_edge_rows']:,} copied real rows + {facts['rewired_rows']:,} rewired real rows + "
        f"{facts['ring_rows']:,} ring + {facts['bridge_rows']:,} bridge rows "
        f"({(facts['ring_rows'] + facts['bridge_rows']) / facts['edge_rows']:.1%} synthetic).",
        f"- Files: nodes.tsv {_mib(sizes['nodes.tsv'])} ({_mib(sizes['nodes.tsv.gz'])} gz), edges.tsv "
        f"{_mib(sizes['edges.tsv'])} ({_mib(sizes['edges.tsv.gz'])} gz, level 6); built in {facts['build_s']:.1f} s, "
        f"written in {facts['write_s']:.1f} s, gzipped in {facts['gzip_s']:.1f} s (not part of any timing).",
        f"- Loaded: {kg.n_nodes:,} nodes ({report.n_stubs:,} stubs for monarch-tiny endpoints, "
        f"{report.n_duplicate_nodes:,} duplicate node rows merged), {kg.n_edges:,} edges "
        f"({report.n_duplicate_edges:,} duplicate edge rows merged), {len(kg.schema.labels)} labels, "
        f"{len(kg.schema.rel_specs)} relationship types, {n_tables} COPY tables "
        f"(labels + relationship-type/label pairs). Skipped rows: {report.n_skipped}.",
        f"- PPR graph (CSR from `Workspace.create`): {graph.n_nodes:,} nodes, {graph.n_edges:,} distinct "
        f"undirected pairs, nnz {graph.transition.nnz:,}; connected components: {n_components} "
        f"(nodes without edges count as their own).",
        "",
        "## Results",
        "",
        "| step | engram-kit | baseline (same run) | ratio | peak RSS |",
        "|---|---|---|---|---|",
        f"| (a) read TSV, fresh process | `load_kgx` {tsv_k['seconds']:.1f} s | "
        f"`pandas.read_csv(sep='\\t', dtype=str)` {tsv_f['seconds']:.1f} s | "
        f"{tsv_k['seconds'] / tsv_f['seconds']:.1f}x | {tsv_k['peak']:,.0f} MiB vs "
        f"{tsv_f['peak']:,.0f} MiB |",
        f"| (a) read gzip TSV, fresh process | `load_kgx` {gz_k['seconds']:.1f} s | `pandas.read_csv` "
        f"{gz_f['seconds']:.1f} s | {gz_k['seconds'] / gz_f['seconds']:.1f}x | {gz_k['peak']:,.0f} MiB vs "
        f"{gz_f['peak']:,.0f} MiB |",
        f"| (a) `load_kgx` TSV again, in the main process (first call: includes loading the Biolink Model; "
        f"progress bar on) | {load_main:.1f} s | | | "
        f"{peak_load:,.0f} MiB (was {peak0:,.0f}; RSS before {rss0:,.0f}) |",
        f"| (b) `LadybugStore.load_knowledge_graph` ({n_tables} COPY) | {store_s:.1f} s ({store_closed_s:.1f} s "
        f"incl. close); {_mib(store_bytes)} on disk | | | {peak_store:,.0f} MiB |",
        f"| (c) `Workspace.create(path, graph=kg)` total | {ws_s:.1f} s; {_mib(ws_bytes)} on disk | "
        f"(b) alone {store_s:.1f} s | | {peak_ws:,.0f} MiB |",
    ]
    base = statistics.median(next(ms for name, ms, _, _ in ppr_rows if name.startswith("SciPy")))
    for name, ms, ov, steps in ppr_rows:
        med, p95 = stats(ms)
        steps = f"; steps {steps}" if steps else ""
        lines.append(f"| (d) PPR d={damping}, {len(ms)} seed sets: {name} | median {med:.1f} ms, p95 {p95:.1f} ms"
                     f"{steps} | | {base / med:.2g}x (SciPy / this) | overlap@100 {np.mean(ov):.3f} |")
    if nx_note:
        lines.append(f"| (d) NetworkX | {nx_note} | | | |")
    lines += [
        f"| (e) peak RSS, main process after (d) | {peak_ppr:,.0f} MiB | | | |",
        "",
        "Notes:",
        "",
        f"- (a) Each read runs in a fresh `spawn` process, so its peak RSS is that read's alone (`VmHWM`, not "
        f"`ru_maxrss`, which a spawned child inherits from its parent on Linux; interpreter + imports included: "
        f"RSS before the read {tsv_k['rss_before']:,.0f} MiB for `load_kgx`, "
        f"{tsv_f['rss_before']:,.0f} MiB for pandas). `load_kgx` ran once on the one-copy samples first to load "
        f"the Biolink Model ({tsv_k['warmup_s']:.1f} s, once per process; not timed). `load_kgx` uses "
        "`missing_nodes='stub'` (monarch-tiny has no node file) and validates every CURIE, merges duplicate "
        "rows, builds `<Label>::<CURIE>` ids, JSON property/qualifier columns and the schema; the floor only "
        "splits cells.",
        "- (b)-(d) peak RSS is the main process's high-water mark after that step (it also holds the "
        "KnowledgeGraph frames; the replica was built in a child process), so it only grows.",
        f"- Shape caveat: {kg.n_edges / kg.n_nodes:.1f} edges per node here (the samples are small and monarch-tiny "
        "brings a stub per endpoint) against ~10 in the Monarch KG; Monarch also has far more predicates, "
        "categories and property columns. Time per edge is the number to extrapolate with, cautiously.",
        f"- (d) Time per seed set = id mapping + solve, best of {repeats} runs (NetworkX: 1), median and p95 "
        f"over {n_seeds} seed sets of 1-5 random connected nodes (seed 0); tol 1e-6 (L1); engram-kit on "
        f"{default_threads() if graph.transition.nnz >= PARALLEL_MIN_NNZ else 1} thread(s). overlap@100 = share "
        "of the method's top 100 in the exact top 100 (float64 power iteration to L1 change < 1e-12). Steps: "
        "sparse products per call (median and max over all timed calls; engram-kit caps them at 100 and logs "
        "a warning when the L1 residual is still above tol). The first `personalization_from_ids` call on a "
        "graph builds its id index (once; excluded by the warm-up call).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"~{QUICK_EDGES:,} edges (default ~{FULL_EDGES:,})")
    parser.add_argument("--copies", type=int, default=None, help="number of copies (overrides the size)")
    parser.add_argument("--seeds", type=int, default=20, help="PPR seed sets (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="PPR runs per seed set, fastest kept (default 3)")
    parser.add_argument("--damping", type=float, default=0.5, help="PPR damping (default 0.5, as the retriever)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder with the files")
    parser.add_argument("--no-progress", action="store_true", help="no tqdm progress bars")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    report = run(args.quick, args.copies, max(1, args.seeds), max(1, args.repeats), args.damping, args.keep,
                 progress=not args.no_progress)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / ("kgx_load_quick.md" if args.quick else "kgx_load.md")
    out.write_text(report)
    print(report)
    print(f"written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
