"""Full-size Hetionet-shaped graph for benchmarks: real nodes and edges, synthetic fill-in for the rest.

The shared data (``../shared/data/hetionet``) holds all 47,031 Hetionet v1.0 nodes but only 1,359,477 of
the 2,250,197 edges: DpS, GpBP, GpCC and GpMF are absent and AeG is partial (369,336 of 526,407). To
benchmark on a graph of the real size and shape, this module adds seeded synthetic edges so that every
metaedge has exactly its official v1.0 count (:data:`engram_kit.kg.schema.METAEDGES`):

* endpoints are drawn between nodes of the right kinds; the number of distinct participating source and
  target nodes follows ``official_metaedges.tsv`` (e.g. GpBP: 14,772 genes, 11,381 processes), and each
  participating node gets at least one edge;
* the remaining edges are drawn preferentially: node weight ``(1 + real degree)^0.5 * LogNormal(0, 1)``
  for kinds that already have edges (genes, anatomy, diseases), ``LogNormal(0, 1.5)`` for kinds that
  have none (processes, components, functions, symptoms), which yields the heavy-tailed degree
  distributions of the real graph (hub genes in many processes, a few huge GO terms);
* synthetic pairs never repeat within a metaedge nor duplicate a real edge of the same metaedge.

The result is deterministic for a seed and cached as a :class:`~engram_kit.store.csr.CSRGraph` in
``benchmarks/.cache/``. Edge weight = number of metaedges joining the pair (Hetionet has a few pairs
joined by several metaedges, e.g. GiG and GcG), so ``graph.n_edges`` (distinct pairs) is a little below
2,250,197.
"""

from __future__ import annotations

import gzip
import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd

from engram_kit.kg.schema import HETIONET_EDGE_COUNT, METAEDGES
from engram_kit.store.csr import CSRGraph

logger = logging.getLogger(__name__)

#: Shared data folder (read-only); benchmarks skip when it is absent.
SHARED_HETIONET = Path(__file__).resolve().parents[2] / "shared" / "data" / "hetionet"
CACHE_DIR = Path(__file__).resolve().parent / ".cache"
NODES_FILE = "hetionet-v1.0-nodes.tsv.gz"
EDGES_FILE = "hetionet-v1.0-edges-partial.tsv.gz"
OFFICIAL_FILE = "official_metaedges.tsv"


def shared_available(folder: Path = SHARED_HETIONET) -> bool:
    """True when the shared Hetionet node and partial edge files are present."""
    return (folder / NODES_FILE).is_file() and (folder / EDGES_FILE).is_file()


def _node_weights(rng: np.random.Generator, real_degree: np.ndarray) -> np.ndarray:
    if real_degree.sum() > 0:
        return (1.0 + real_degree) ** 0.5 * rng.lognormal(0.0, 1.0, real_degree.size)
    return rng.lognormal(0.0, 1.5, real_degree.size)


def _synthesise(rng: np.random.Generator, src_pool: np.ndarray, dst_pool: np.ndarray,
                src_w: np.ndarray, dst_w: np.ndarray, n_src: int, n_dst: int, count: int,
                existing: set[int] | np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``count`` new distinct (source, target) pairs; see the module docstring."""
    # Participating nodes: the n_src / n_dst heaviest-by-weight candidates (weights are random).
    n_src, n_dst = min(n_src, src_pool.size), min(n_dst, dst_pool.size)
    s_sel = np.argsort(-src_w, kind="stable")[:n_src]
    d_sel = np.argsort(-dst_w, kind="stable")[:n_dst]
    s_nodes, d_nodes = src_pool[s_sel], dst_pool[d_sel]
    s_p = src_w[s_sel] / src_w[s_sel].sum()
    d_p = dst_w[d_sel] / dst_w[d_sel].sum()
    existing_keys = np.asarray(sorted(existing), dtype=np.int64) if isinstance(existing, set) else existing
    # Coverage edges: every participating node gets one preferential partner.
    cov_s = np.concatenate([s_nodes, rng.choice(s_nodes, size=n_dst, p=s_p)])
    cov_d = np.concatenate([rng.choice(d_nodes, size=n_src, p=d_p), d_nodes])
    keys = np.unique(cov_s.astype(np.int64) * n_nodes + cov_d)
    keys = keys[~np.isin(keys, existing_keys)]
    perm = rng.permutation(keys.size)
    keys = keys[perm][:count]
    while keys.size < count:
        need = count - keys.size
        m = int(need * 1.3) + 1000
        ks = rng.choice(s_nodes, size=m, p=s_p).astype(np.int64) * n_nodes + rng.choice(d_nodes, size=m, p=d_p)
        ks = ks[~np.isin(ks, existing_keys) & ~np.isin(ks, keys)]
        _, first = np.unique(ks, return_index=True)
        ks = ks[np.sort(first)][:need]
        keys = np.concatenate([keys, ks])
    return keys // n_nodes, keys % n_nodes


def build_hetionet_synth(seed: int = 0, folder: Path = SHARED_HETIONET) -> tuple[CSRGraph, pd.DataFrame]:
    """Build the full-size graph (no cache).

    Returns
    -------
    graph : CSRGraph
        47,031 nodes; weighted undirected edges, total weight = 2,250,197 (the official edge count).
    counts : pandas.DataFrame
        Per metaedge: ``official``, ``real``, ``synthetic`` edge counts.
    """
    start = time.perf_counter()
    nodes = pd.read_csv(folder / NODES_FILE, sep="\t", usecols=["id", "kind"], dtype=str)
    with gzip.open(folder / EDGES_FILE, "rt") as fh:
        edges = pd.read_csv(fh, sep="\t", usecols=["source", "metaedge", "target"], dtype=str)
    node_ids = nodes["id"].to_numpy(dtype=str)
    n = node_ids.size
    index = pd.Index(node_ids)
    src = index.get_indexer(edges["source"])
    dst = index.get_indexer(edges["target"])
    if (src < 0).any() or (dst < 0).any():
        raise ValueError("shared edge file has endpoints missing from the node file")
    metaedge_col = edges["metaedge"].to_numpy()
    real_degree = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    kind = nodes["kind"].to_numpy()
    kind_nodes = {k: np.flatnonzero(kind == k) for k in np.unique(kind)}
    official = pd.read_csv(folder / OFFICIAL_FILE, sep="\t").set_index("abbreviation")

    rng = np.random.default_rng(seed)
    all_src, all_dst, rows = [src], [dst], []
    for me in METAEDGES:
        mask = metaedge_col == me.abbreviation
        real = int(mask.sum())
        missing = me.official_count - real
        if missing < 0:
            raise ValueError(f"{me.abbreviation}: {real} real edges exceed the official {me.official_count}")
        if missing:
            sp_, dp_ = kind_nodes[me.source_kind], kind_nodes[me.target_kind]
            existing = src[mask].astype(np.int64) * n + dst[mask]
            n_src = int(official.loc[me.abbreviation, "source_nodes"]) if me.abbreviation in official.index else sp_.size
            n_dst = int(official.loc[me.abbreviation, "target_nodes"]) if me.abbreviation in official.index else dp_.size
            ss, dd = _synthesise(rng, sp_, dp_, _node_weights(rng, real_degree[sp_]),
                                 _node_weights(rng, real_degree[dp_]), n_src, n_dst, missing,
                                 np.unique(existing), n)
            all_src.append(ss)
            all_dst.append(dd)
        rows.append({"metaedge": me.abbreviation, "official": me.official_count, "real": real,
                     "synthetic": missing})
    s_all, d_all = np.concatenate(all_src), np.concatenate(all_dst)
    if s_all.size != HETIONET_EDGE_COUNT:
        raise AssertionError(f"built {s_all.size} edges, expected {HETIONET_EDGE_COUNT}")
    graph = CSRGraph.from_edges(node_ids, s_all, d_all)
    logger.info("Built Hetionet-shaped graph in %.1f s: %r", time.perf_counter() - start, graph)
    return graph, pd.DataFrame(rows)


def load_hetionet_synth(seed: int = 0, folder: Path = SHARED_HETIONET, cache_dir: Path = CACHE_DIR) -> CSRGraph:
    """Cached :func:`build_hetionet_synth` (``benchmarks/.cache/hetionet_synth_seed{seed}.npz``)."""
    path = cache_dir / f"hetionet_synth_seed{seed}.npz"
    if path.is_file():
        return CSRGraph.load(path)
    graph, counts = build_hetionet_synth(seed, folder)
    graph.save(path)
    counts.to_csv(cache_dir / f"hetionet_synth_seed{seed}_counts.tsv", sep="\t", index=False)
    return graph


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    if not shared_available():
        print(f"skip: shared Hetionet data not found at {SHARED_HETIONET}")
        raise SystemExit(0)
    g, c = build_hetionet_synth(0)
    print(c.to_string(index=False))
    print(g)
