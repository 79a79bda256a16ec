"""Benchmark: literature-map analytics time on a 100-paper map, and relation-pattern precision on BC5CDR.

Run ``python -m benchmarks.literature_map [--repeats 5]``. Prints Markdown tables and writes them to
``benchmarks/results/literature_map.md``.

1. **Analytics time.** A 100-paper map is built from the first 100 bundled abstracts on
   neurodegeneration (``data/pubmed``; extraction and resolution are *not* timed). Timed, median of
   ``--repeats`` runs: merging the per-document graphs with noise control (``LiteratureMap.graph``),
   Louvain + betweenness + bridges (``analyze_structure``), the knowledge-graph link, one entity-indexed
   retrieval and one open-discovery query. Also reported: the same analytics on all 430 abstracts, and
   re-merging after unticking one document. Target: < 1 s for the 100-paper map on 2 cores.
2. **Betweenness before / after noise control** (top 10 of each) on the same map.
3. **Pattern precision** on the BC5CDR *test* set (500 documents,
   ``../shared/data/corpora/BC5CDR/CDR_TestSet.PubTator.txt``; skipped with a message when absent), judged
   against the chemical-induced-disease (CID) gold relations by the method of
   :mod:`engram_kit.analysis.cdr`.
"""

from __future__ import annotations

import argparse
import logging
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engram_kit.analysis import (
    CuratedEdgeIndex,
    EntityIndex,
    LiteratureMap,
    LiteratureMapBuilder,
    MapConfig,
    analyze_structure,
    link_to_knowledge_graph,
    open_discovery,
)
from engram_kit.analysis.cdr import evaluate_cid, read_pubtator
from engram_kit.datasets import resolve_data_paths
from engram_kit.extraction import BUNDLED_SYNONYMS_DIR, EntityExtractor, Lexicon, load_node_table
from engram_kit.ingestion.pubmed import read_pubmed
from engram_kit.kg.hetionet import load_hetionet
from engram_kit.resolution import EntityResolver

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parents[1]
BC5CDR_TEST = REPO.parent / "shared" / "data" / "corpora" / "BC5CDR" / "CDR_TestSet.PubTator.txt"
TOPIC = re.compile(r"parkinson|dopamin|levodopa|dyskinesi|alzheimer|dementia|huntington|neurodegenerat", re.I)
LEVODOPA = "Compound::DB01235"


def _median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def time_analytics(lit: LiteratureMap, index: CuratedEdgeIndex, entity_index: EntityIndex, config: MapConfig,
                   repeats: int) -> dict[str, float]:
    """Median seconds of each analytics step on a map (extraction excluded)."""
    def merge() -> None:
        lit._merged = None  # time the merge itself, not the cache
        lit.graph(config)

    graph = lit.graph(config)
    start = LEVODOPA if LEVODOPA in graph else max(graph.degree, key=lambda kv: kv[1])[0]
    cooccurring = lit.cooccurring(start)
    steps = {
        "merge + noise control": merge,
        "structure (Louvain, betweenness, bridges)": lambda: analyze_structure(graph),
        "knowledge-graph link": lambda: link_to_knowledge_graph(graph, index),
        "entity-indexed retrieval": lambda: entity_index.retrieve([start], graph=graph),
        "open discovery (ABC)": lambda: open_discovery(graph, start, cooccurring=cooccurring),
    }
    out = {name: _median_seconds(fn, repeats) for name, fn in steps.items()}
    out["total"] = sum(out.values())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    pd.set_option("display.width", 200)
    lines = [f"# Literature-map benchmark\n\nPython {platform.python_version()}, {platform.machine()}, "
             f"{len(__import__('os').sched_getaffinity(0))} cores.\n"]

    paths = resolve_data_paths()
    nodes = load_node_table(paths.nodes)
    lexicon = Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR)
    builder = LiteratureMapBuilder(EntityExtractor(lexicon), EntityResolver(lexicon, nodes))
    records = list(read_pubmed(paths.abstracts))
    topic = [r for r in records if TOPIC.search(r.text)][:100]
    started = time.perf_counter()
    topic_graphs = builder.build_many({f"pubmed:{r.pmid}": r.text for r in topic})
    extraction_100 = time.perf_counter() - started
    all_graphs = builder.build_many({f"pubmed:{r.pmid}": r.text for r in records})
    kg = load_hetionet(paths.nodes, paths.edges, progress=False)
    index = CuratedEdgeIndex(kg.edges)

    rows = []
    for label, graphs in (("100 papers", topic_graphs), (f"{len(all_graphs)} papers", all_graphs)):
        lit = LiteratureMap(graphs)
        entity_index = EntityIndex.from_documents(graphs)
        for cfg_label, config in (("default (min 4)", MapConfig()), ("min 2", MapConfig(min_occurrence=2)),
                                  ("raw (no noise control)", MapConfig.raw())):
            graph = lit.graph(config)
            timing = time_analytics(lit, index, entity_index, config, args.repeats)
            rows.append({"map": label, "config": cfg_label, "nodes": graph.number_of_nodes(),
                         "edges": graph.number_of_edges(), **{k: round(v, 4) for k, v in timing.items()}})
        lit.deselect([graphs[0].doc_id])
        untick = _median_seconds(lambda: (setattr(lit, "_merged", None), lit.graph(MapConfig())), args.repeats)
        rows[-1]["re-merge after unticking one document"] = round(untick, 4)
    timing_frame = pd.DataFrame(rows)
    lines.append(f"## Analytics time (seconds, median of {args.repeats}; extraction of the 100 papers took "
                 f"{extraction_100:.2f} s and is not included)\n")
    lines.append(timing_frame.to_markdown(index=False))

    lit = LiteratureMap(topic_graphs)
    before = analyze_structure(lit.graph(MapConfig.raw())).nodes.head(10)
    after = analyze_structure(lit.graph(MapConfig(min_occurrence=2))).nodes.head(10)
    columns = ["name", "kind", "betweenness", "degree", "sentences"]
    lines.append("\n## Top-10 betweenness, 100-paper map\n\nBefore: `MapConfig.raw()` (no stoplist, no "
                 "document-frequency weighting, every pair).\n")
    lines.append(before[columns].round(4).to_markdown(index=False))
    lines.append("\nAfter: `MapConfig(min_occurrence=2)` (stoplist, document-frequency weighting, >= 2 sentences).\n")
    lines.append(after[columns].round(4).to_markdown(index=False))

    if BC5CDR_TEST.is_file():
        documents = list(read_pubtator(BC5CDR_TEST))
        started = time.perf_counter()
        result = evaluate_cid(builder, documents)
        seconds = time.perf_counter() - started
        lines.append(f"\n## Pattern precision on BC5CDR test CID relations ({result.documents} documents, "
                     f"{result.gold_pairs} gold CID pairs, {seconds:.1f} s)\n")
        lines.append(result.by_relation.round(3).to_markdown(index=False))
        lines.append(f"\nCAUSES recall of gold CID pairs: {result.causes_recall:.3f} (bounded by the "
                     "offline lexicon's chemical and disease coverage; no NER model).")
    else:
        lines.append(f"\n(BC5CDR precision skipped: {BC5CDR_TEST} not found.)")

    report = "\n".join(lines) + "\n"
    print(report)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "literature_map.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
