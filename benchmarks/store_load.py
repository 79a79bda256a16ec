"""Full-size measurement of the embedded LadybugDB store on the shared Hetionet partial.

Measures, on all 47,031 Hetionet v1.0 nodes and the 1,359,477 edges of the shared partial edge file:

* bulk load time (one ``COPY`` per node label and per metaedge) and the on-disk size;
* reopen time (read-write and read-only; target under 2 s) and the time of ``counts()``;
* ``edges_among`` latency for 40 and 200 node ids (the sizes retrieval asks for);
* ``domain_edges`` (all edges out, as retrieval's CSR build would read them);
* literature write throughput: 1,000 one-passage articles with 10 mentions each, linked to real genes.

Run ``python -m benchmarks.store_load`` from the repository root; it prints a table and skips cleanly
(exit 0) when the shared data folder is absent. ``ENGRAM_SHARED_DATA`` overrides its location.
Source of the data: hetio/hetionet v1.0 (CC0), see ``../shared/data/README.md``.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from engram_kit.kg import load_hetionet
from engram_kit.records import (
    ArticleRecord,
    LiteratureBatch,
    MapsToEdge,
    MentionEdge,
    NounPhraseRecord,
    PassageRecord,
    SectionRecord,
)
from engram_kit.store.ladybug import LadybugStore

logger = logging.getLogger(__name__)

_DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SHARED_HETIONET = Path(os.environ.get("ENGRAM_SHARED_DATA", _DEFAULT_SHARED)) / "hetionet"
NODES_FILE = "hetionet-v1.0-nodes.tsv.gz"
EDGES_FILE = "hetionet-v1.0-edges-partial.tsv.gz"


def read_hetionet(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read the shared node and edge files with the product's reader (:func:`engram_kit.kg.load_hetionet`)."""
    kg = load_hetionet(folder / NODES_FILE, folder / EDGES_FILE, progress=False)
    return kg.nodes, kg.edges


def synthetic_literature(genes: list[str], n_articles: int, mentions_per_passage: int,
                         seed: int = 0) -> LiteratureBatch:
    """``n_articles`` one-section, one-passage articles, each mentioning real genes (one NounPhrase per gene)."""
    rng = np.random.default_rng(seed)
    batch = LiteratureBatch()
    used: set[str] = set()
    for i in range(n_articles):
        aid = f"pubmed:{900000 + i}"
        batch.articles.append(ArticleRecord(aid, "pubmed", f"Synthetic article {i}", pmid=str(900000 + i), year=2020))
        batch.sections.append(SectionRecord(f"{aid}#s0", aid, "Abstract", 0))
        batch.passages.append(PassageRecord(f"{aid}#p0", aid, f"{aid}#s0", "text " * 50, "pubmed", 0,
                                            pmid=str(900000 + i), year=2020, char_end=250))
        for gene in rng.choice(genes, size=mentions_per_passage, replace=False):
            np_id = f"np:gene:{gene.lower()}"
            if np_id not in used:
                used.add(np_id)
                batch.nounphrases.append(NounPhraseRecord(np_id, gene, gene.lower(), "gene"))
                batch.maps_to.append(MapsToEdge(np_id, gene, 0.9, "benchmark"))
            batch.mentions.append(MentionEdge(f"{aid}#p0", np_id, 1))
    return batch


def _disk_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def _best_of(fn, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    """Run all measurements and print a table; returns the process exit code."""
    logging.basicConfig(level=logging.WARNING)
    if not (SHARED_HETIONET / NODES_FILE).exists() or not (SHARED_HETIONET / EDGES_FILE).exists():
        print(f"SKIP: shared Hetionet files not found under {SHARED_HETIONET}")
        return 0
    rows: list[tuple[str, str]] = []
    t0 = time.perf_counter()
    nodes, edges = read_hetionet(SHARED_HETIONET)
    rows.append(("read + validate (kg.load_hetionet)", f"{time.perf_counter() - t0:.1f} s "
                 f"({len(nodes):,} nodes, {len(edges):,} edges)"))
    workdir = Path(tempfile.mkdtemp(prefix="engram-store-bench-"))
    path = workdir / "graph.lbug"
    try:
        t0 = time.perf_counter()
        with LadybugStore(path) as store:
            store.load_knowledge_graph(nodes, edges, progress=False)
            rows.append(("bulk load (COPY x 35 tables)", f"{time.perf_counter() - t0:.1f} s"))
        rows.append(("on-disk size after close", f"{_disk_bytes(path) / 2**20:.0f} MiB"))

        t0 = time.perf_counter()
        store = LadybugStore(path)
        store.get_nodes(["Gene::7157"])
        rows.append(("reopen read-write + first query", f"{time.perf_counter() - t0:.2f} s"))
        store.close()
        t0 = time.perf_counter()
        store = LadybugStore(path, read_only=True)
        store.get_nodes(["Gene::7157"])
        rows.append(("reopen read-only + first query", f"{time.perf_counter() - t0:.2f} s"))
        rows.append(("counts() (44 tables)", f"{_best_of(store.counts, 3):.2f} s"))
        t0 = time.perf_counter()
        n_edges = len(store.domain_edges())
        rows.append(("domain_edges() all edges out", f"{time.perf_counter() - t0:.1f} s ({n_edges:,} rows)"))

        rng = np.random.default_rng(0)
        genes = nodes.loc[nodes["kind"] == "Gene", "id"].tolist()
        hubs = edges["source"].value_counts().index[:20].tolist() + edges["target"].value_counts().index[:20].tolist()
        for size in (40, 200):
            ids = list(dict.fromkeys(hubs[: size // 4] + rng.choice(nodes["id"], size, replace=False).tolist()))[:size]
            found = len(store.edges_among(ids))
            latency_ms = _best_of(lambda: store.edges_among(ids)) * 1000  # used at once
            rows.append((f"edges_among({size} ids, incl. hubs)", f"{latency_ms:.0f} ms ({found} edges)"))
        store.close()

        store = LadybugStore(path)
        batch = synthetic_literature(genes, 1_000, 10)
        t0 = time.perf_counter()
        store.write_literature(batch)
        elapsed = time.perf_counter() - t0
        rows.append(("write_literature 1,000 articles x 10 mentions",
                     f"{elapsed:.1f} s ({len(batch.mentions) / elapsed:,.0f} mentions/s)"))
        t0 = time.perf_counter()
        store.write_literature(batch)
        rows.append(("same batch again (replace path)", f"{time.perf_counter() - t0:.1f} s"))
        t0 = time.perf_counter()
        store.literature_edges()
        rows.append(("literature_edges()", f"{(time.perf_counter() - t0) * 1000:.0f} ms"))
        t0 = time.perf_counter()
        store.passage_mentions([p.id for p in batch.passages[:200]])
        rows.append(("passage_mentions(200 passages)", f"{(time.perf_counter() - t0) * 1000:.0f} ms"))
        store.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    width = max(len(name) for name, _ in rows)
    print(f"LadybugStore on the shared Hetionet partial ({os.cpu_count()} cores)")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
