"""Study ``ppr``: hub drift and PPR diagnostics over the PubMedQA benchmark questions (issue 7, item 3).

Personalized PageRank on a knowledge graph drifts towards hubs: the stationary mass of a node far from the
seeds grows with its degree, so highly connected genes and processes end up near the top of every
question's ranking whatever was asked. This study measures that drift for the seeds the retriever derives
from each PubMedQA question (the same questions and workspace as the ``retrieval`` study) and compares
the retriever's PPR with degree-normalised variants.

Measured per question (questions with at least one resolved seed), then averaged
------------------------------------------------------------------------------------
* **top-1% share**: share of the PPR mass on the top 1% of nodes (:func:`engram_kit.retrieval.ppr.top_share`),
  over all nodes of the retrieval graph and over the knowledge-graph nodes only;
* **hub in top 20**: whether any of the 20 highest-degree knowledge-graph nodes is among the question's
  20 highest-scoring non-seed knowledge-graph nodes, and how many of those 20 are in the top 1% by degree;
* **median degree of the top 20** non-seed knowledge-graph nodes (graph median for reference);
* **retrieval effect**: PubMedQA Recall@5 / MRR of the graph score alone and of the default blend
  (alpha 0.4) when the variant's passage scores replace plain PPR.

Variants
--------
* ``plain, damping 0.5``: the retriever (HippoRAG's damping).
* ``plain, damping 0.85``: web PageRank's damping, for contrast (longer walks, more drift).
* ``degree-normalised, beta``: scores divided by ``degree^beta`` (beta 0.5 and 1) after the walk, then
  renormalised; for passages the passage node's degree. beta = 1 is the degree-normalised PPR vector
  ``p(v) / d(v)`` whose sweep Andersen, Chung and Lang use for local partitioning (FOCS 2006) and which
  Kloumann, Ugander and Kleinberg analyse for seed-set expansion (PNAS 114(1), 2017). It removes the
  stationary-distribution component (proportional to degree) that causes the drift.
* ``specificity seeds``: HippoRAG's node specificity (Gutierrez et al., NeurIPS 2024, section 2.2): each
  seed's restart weight is multiplied by ``1 / |P_i|``, the inverse number of passages mentioning it, so
  generic entities restart less of the walk (a degree-penalised restart).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.quality.common import StudyOptions, StudyResult, grouped_bar_plot, markdown_table, output_name, write_report
from benchmarks.quality.retrieval import (
    DEFAULT_ALPHA,
    Benchmark,
    blend_ranking,
    evaluate,
    graph_only_ranking,
    load_benchmark,
    passage_degree,
    ppr_runs,
    SEED,
)

log = logging.getLogger(__name__)

#: Nodes inspected per question.
TOP_NODES = 20
#: Highest-degree knowledge-graph nodes counted as "the hubs".
HUBS = 20
#: Fraction for the top-share and for "top 1% by degree".
FRACTION = 0.01
#: Post-hoc degree-normalisation exponents.
BETAS = (0.5, 1.0)


class _Collector:
    """Per-question diagnostics of one or more score transforms of the same PPR vectors."""

    def __init__(self, bench: Benchmark, transforms: dict[str, Callable[[np.ndarray], np.ndarray]]) -> None:
        index = bench.index
        self.n_kg = index.n_kg
        adj = index.graph.adjacency
        kg = adj[: self.n_kg, : self.n_kg]
        self.kg_degree = np.asarray(kg.sum(axis=1)).ravel()
        self.hubs = set(np.argsort(-self.kg_degree, kind="stable")[:HUBS].tolist())
        k = max(1, math.ceil(FRACTION * self.n_kg))
        self.top_degree = set(np.argsort(-self.kg_degree, kind="stable")[:k].tolist())
        self.bench = bench
        self.transforms = transforms
        self.rows: dict[str, list[dict[str, float]]] = {name: [] for name in transforms}
        self.hub_counts: dict[str, dict[int, int]] = {name: {} for name in transforms}

    def __call__(self, qi: int, scores: np.ndarray) -> None:
        seeds = set(self.bench.seeds[qi])
        for name, transform in self.transforms.items():
            x = transform(scores.astype(np.float64))
            x = x / x.sum()
            kg = x[: self.n_kg]
            top_all = _share(x)
            top_kg = _share(kg)
            cand = np.argsort(-kg, kind="stable")[: TOP_NODES + len(seeds)]
            top = [int(i) for i in cand if int(i) not in seeds and kg[i] > 0][:TOP_NODES]
            hubs_in = [i for i in top if i in self.hubs]
            for h in hubs_in:
                self.hub_counts[name][h] = self.hub_counts[name].get(h, 0) + 1
            self.rows[name].append({
                "top1_share_all": top_all, "top1_share_kg": top_kg, "hub_in_top20": float(bool(hubs_in)),
                "hubs_in_top20": float(len(hubs_in)),
                "top_degree_share_top20": float(np.mean([i in self.top_degree for i in top])) if top else 0.0,
                "median_degree_top20": float(np.median(self.kg_degree[top])) if top else 0.0,
            })


def _share(x: np.ndarray) -> float:
    from engram_kit.retrieval.ppr import top_share

    return float(top_share(x, FRACTION)) if x.sum() > 0 else 0.0


def _degree_transform(degree: np.ndarray, beta: float) -> Callable[[np.ndarray], np.ndarray]:
    safe = np.where(degree > 0, degree, 1.0) ** beta

    def transform(x: np.ndarray) -> np.ndarray:
        return x / safe

    return transform


def run(options: StudyOptions) -> StudyResult:
    """Run the study; write ``ppr_diag[_quick].md`` and ``ppr_diag[_quick]_hubs.png``."""
    started = time.perf_counter()
    bench = load_benchmark(options)
    degree = bench.index.graph.degree.astype(np.float64)
    n_q = len(bench.questions)
    seeded = np.array([bool(s) for s in bench.seeds])
    transforms: dict[str, Callable[[np.ndarray], np.ndarray]] = {"plain, damping 0.5 (retriever)": lambda x: x}
    for beta in BETAS:
        transforms[f"degree-normalised, beta {beta:g}"] = _degree_transform(degree, beta)
    main = _Collector(bench, transforms)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    passage = {"plain, damping 0.5 (retriever)": ppr_runs(bench, "plain", on_scores=main)}
    timings["PPR damping 0.5 + diagnostics"] = time.perf_counter() - t0
    pdeg = passage_degree(bench)
    for beta in BETAS:
        passage[f"degree-normalised, beta {beta:g}"] = passage["plain, damping 0.5 (retriever)"] / np.where(
            pdeg > 0, pdeg, 1.0)[None, :] ** beta
    t0 = time.perf_counter()
    d85 = _Collector(bench, {"plain, damping 0.85": lambda x: x})
    passage["plain, damping 0.85"] = ppr_runs(bench, "plain", damping=0.85, on_scores=d85)
    timings["PPR damping 0.85 + diagnostics"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    spec = _Collector(bench, {"specificity seeds (HippoRAG)": lambda x: x})
    passage["specificity seeds (HippoRAG)"] = ppr_runs(bench, "specificity", on_scores=spec)
    timings["PPR specificity seeds + diagnostics"] = time.perf_counter() - t0
    collected = {**main.rows, **d85.rows, **spec.rows}
    hub_counts = {**main.hub_counts, **d85.hub_counts, **spec.hub_counts}

    rng = np.random.default_rng(SEED)
    pool = bench.settings.candidate_pool
    rows: list[dict[str, Any]] = []
    for name in ["plain, damping 0.5 (retriever)", "plain, damping 0.85", *[f"degree-normalised, beta {b:g}" for b in BETAS],
                 "specificity seeds (HippoRAG)"]:
        diag = collected[name]
        alone, _ = evaluate([graph_only_ranking(passage[name][i], rng) for i in range(n_q)], bench)
        blend, _ = evaluate([blend_ranking(passage[name][i], bench.dense[i], DEFAULT_ALPHA, pool, seeded=seeded[i])
                             for i in range(n_q)], bench)
        mean = {k: float(np.mean([d[k] for d in diag])) if diag else None for k in (diag[0] if diag else {})}
        rows.append({"variant": name, "top-1% share (all nodes)": mean.get("top1_share_all"),
                     "top-1% share (KG nodes)": mean.get("top1_share_kg"),
                     f"questions with a top-{HUBS}-degree hub in top {TOP_NODES}": mean.get("hub_in_top20"),
                     f"hubs in top {TOP_NODES} (mean)": mean.get("hubs_in_top20"),
                     f"share of top {TOP_NODES} in top 1% by degree": mean.get("top_degree_share_top20"),
                     f"median degree of top {TOP_NODES} (mean)": mean.get("median_degree_top20"),
                     "graph alone R@5": alone["R@5"], "graph alone MRR": alone["RR"],
                     "blend 0.4 R@5": blend["R@5"], "blend 0.4 MRR": blend["RR"]})
    names = bench.workspace.store.get_nodes([str(bench.index.graph.node_ids[h]) for h in main.hubs])
    name_of = dict(zip(names["id"], names["name"])) if not names.empty else {}
    hub_rows = []
    for h in sorted(main.hubs, key=lambda h: -main.kg_degree[h]):
        node_id = str(bench.index.graph.node_ids[h])
        hub_rows.append({"hub": f"{name_of.get(node_id, node_id)} ({node_id.split('::')[0]})",
                         "KG degree": int(main.kg_degree[h]),
                         **{f"in top {TOP_NODES}: {n}": hub_counts[n].get(h, 0) for n in
                            ("plain, damping 0.5 (retriever)", "plain, damping 0.85", "degree-normalised, beta 1")}})
    n_seeded = int(seeded.sum())
    stem = output_name("ppr_diag", options.quick)
    plot_cols = ["top-1% share (KG nodes)", f"questions with a top-{HUBS}-degree hub in top {TOP_NODES}",
                 f"share of top {TOP_NODES} in top 1% by degree", "blend 0.4 R@5"]
    figure = grouped_bar_plot(options.results_dir / f"{stem}_hubs.png", ["top-1% share (KG)", "hub in top 20",
                              "top-20 in top-1% degree", "blend R@5"],
                              {r["variant"]: [r[c] if r[c] is not None else float("nan") for c in plot_cols] for r in rows},
                              title=f"Hub drift over {n_seeded} PubMedQA questions with seeds", ylabel="share")
    total = time.perf_counter() - started
    cols = list(rows[0])
    body = [
        "## Setup", "",
        f"- Questions: {n_q} PubMedQA PQA-L questions, {n_seeded} with at least one resolved seed (diagnostics "
        "are over those); graph: the retrieval study's workspace "
        f"({bench.index.graph.n_nodes:,} nodes: {bench.index.n_kg:,} knowledge-graph + literature nodes).",
        f"- Hubs: the {HUBS} highest-degree knowledge-graph nodes (degree within the knowledge graph); "
        f"'top 1% by degree' = the {math.ceil(FRACTION * bench.index.n_kg)} highest. Seeds are excluded from the top {TOP_NODES}.",
        f"- Graph median knowledge-graph degree: {float(np.median(main.kg_degree)):.0f}; mean {float(np.mean(main.kg_degree)):.1f}.",
        "- Retrieval columns: PubMedQA Recall@5 / MRR with the variant's passage scores, alone (random tie order) and "
        f"blended with cosine at alpha {DEFAULT_ALPHA} through the retriever's pool and min-max normalisation.",
        f"- Wall time {total:.0f} s (shared 2-core machine).", "",
        "## Hub drift by variant", "", markdown_table(rows, cols),
        "", f"## The {HUBS} hubs and how often each is in a question's top {TOP_NODES}", "",
        markdown_table(hub_rows, list(hub_rows[0]) if hub_rows else None),
        "", "## Timings (s)", "", markdown_table([{"step": k, "seconds": v} for k, v in timings.items()],
                                                 ["step", "seconds"], digits=1),
    ]
    report = write_report(options, "ppr_diag", "PPR hub drift on the PubMedQA questions", body, packages=("numpy", "scipy"))
    plain, norm1 = rows[0], rows[3]
    summary = {
        "questions_seeded": n_seeded,
        "plain_top1_share_kg": plain["top-1% share (KG nodes)"],
        "plain_hub_in_top20": plain[f"questions with a top-{HUBS}-degree hub in top {TOP_NODES}"],
        "degnorm1_hub_in_top20": norm1[f"questions with a top-{HUBS}-degree hub in top {TOP_NODES}"],
        "plain_blend_r5": plain["blend 0.4 R@5"],
        "best_variant_blend_r5": max(rows, key=lambda r: r["blend 0.4 R@5"])["variant"],
    }
    return StudyResult("ppr_diag", report, [figure], summary, total)
