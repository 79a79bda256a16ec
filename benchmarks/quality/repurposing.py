"""Study ``repurposing``: Compound-treats-Disease hold-out ranking on Hetionet (issue 7, item 4).

Protocol
--------
1. The Hetionet graph (full shared partial graph in full mode, 1.36M edges; the bundled 118k-edge sample in
   quick mode; both hold all 755 CtD edges) is loaded with :func:`engram_kit.kg.hetionet.load_hetionet`.
2. The CtD edges are split into :data:`FOLDS` folds **stratified by disease**: each disease's treatments are
   shuffled (fixed seed) and dealt round-robin from a random offset, so every fold holds out about a fifth
   of every disease's treatments (a disease with fewer than five treatments contributes to fewer folds).
3. Per fold, the graph without the held-out edges is built and, for every disease with a held-out
   treatment, compounds are ranked by **the drug agent's method**: Personalized PageRank (damping 0.5,
   :class:`~engram_kit.settings.Settings`) seeded on the disease (restart share 0.5,
   ``AgentOptions.disease_seed_share``) and its associated genes (DaG edges; the other 0.5 split evenly),
   reading the compounds' scores. A *disease-only seed* row is reported too.
4. Candidates of a disease are all compounds not already treating it in the training graph; the positives
   are its held-out treatments. AUROC and AUPRC (scikit-learn) are computed per disease and averaged over
   the fold's diseases (macro), and pooled over all the fold's (disease, compound) pairs.
5. Baselines: (a) **degree priors** from the training graph: the compound's degree over all edges, and its
   number of training CtD edges (the per-compound half of Rephetio's permutation-derived prior); pooled,
   the prior is the product of the compound's and the disease's training CtD degrees (+1), the
   configuration-model expectation Rephetio's prior approximates; (b) **the same PPR on a
   degree-preserving permutation** of the training graph (:func:`permute_metaedge`), which keeps every
   node's degree in every metaedge and destroys the rest; a method that only follows degree scores the
   same on it.

Published context: Project Rephetio (Himmelstein et al., eLife 6:e26726, 2017) reached AUROC 0.9745 on
these 755 indications, but its degree-only prior reached 0.979 on the same pairs: with treatments piling up
on a few well-studied compounds and diseases, degree alone ranks them well, so a method is judged by its
margin over the prior, not by its AUROC. Rephetio's numbers are pooled over all compound-disease pairs and
from a supervised model trained on the full graph; ours are hold-out rankings, so they are context, not
a like-for-like target.

Permutation: xswap (PyPI) does not build here, so :func:`permute_metaedge` implements the same XSwap
algorithm (Hanhijarvi et al., SDM 2009; used by Rephetio through hetnetpy ``permute_graph``): repeatedly
pick two edges (a, b), (c, d) of one metaedge and rewire them to (a, d), (c, b) unless that creates a
duplicate edge or a self loop. It is vectorised: each round pairs all edges of the metaedge at random and
applies the non-conflicting swaps at once; :data:`SWAP_ROUNDS` rounds attempt ``SWAP_ROUNDS / 2`` swaps
per edge (hetnetpy's default multiplier is 10).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.quality.common import StudyOptions, StudyResult, grouped_bar_plot, markdown_table, output_name, write_report

log = logging.getLogger(__name__)

FOLDS = 5
#: Seed of the fold split; fold f permutes the graph with seed ``SEED + 1 + f``.
SEED = 0
#: Rounds of the vectorised swap (each round tries one swap per pair of edges).
SWAP_ROUNDS = 20
#: Published Project Rephetio numbers (Himmelstein et al. 2017).
REPHETIO_AUROC = 0.9745
REPHETIO_PRIOR_AUROC = 0.979
#: Damping of the drug agent's PPR (Settings.damping) and its disease restart share (AgentOptions).
DAMPING = 0.5
DISEASE_SHARE = 0.5
#: Metaedges whose two ends are the same kind (undirected within one kind).
SAME_KIND_UNDIRECTED = frozenset({"GiG", "GcG", "CrC", "DrD"})


@dataclass
class Graph:
    """Hetionet as integer arrays."""

    node_ids: np.ndarray   # object, (n_nodes,)
    kinds: np.ndarray      # object, (n_nodes,)
    src: np.ndarray        # int64, (n_edges,)
    dst: np.ndarray        # int64, (n_edges,)
    metaedge: np.ndarray   # object, (n_edges,)


def load_graph(options: StudyOptions) -> tuple[Graph, str]:
    """The shared partial Hetionet (full mode) or the bundled sample (quick mode)."""
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.kg.hetionet import load_hetionet

    paths = resolve_data_paths(None if options.quick else options.shared_data)
    kg = load_hetionet(paths.nodes, paths.edges, progress=options.progress)
    ids = kg.nodes["id"].to_numpy(dtype=object)
    pos = {n: i for i, n in enumerate(ids.tolist())}
    src = np.fromiter((pos[s] for s in kg.edges["source"]), dtype=np.int64, count=len(kg.edges))
    dst = np.fromiter((pos[t] for t in kg.edges["target"]), dtype=np.int64, count=len(kg.edges))
    return Graph(ids, kg.nodes["kind"].to_numpy(dtype=object), src, dst,
                 kg.edges["metaedge"].astype(str).to_numpy(dtype=object)), f"{paths.edges} ({kg.n_edges:,} edges)"


# ============================================================================================ permutation
def permute_metaedge(src: np.ndarray, dst: np.ndarray, rng: np.random.Generator, *, undirected_same_kind: bool,
                     n_nodes: int, rounds: int = SWAP_ROUNDS) -> tuple[np.ndarray, np.ndarray, float]:
    """Degree-preserving XSwap permutation of one metaedge's edges.

    Parameters
    ----------
    src, dst : int64 arrays of shape (n_edges,), the edges of one metaedge (not modified).
    rng : seeded generator.
    undirected_same_kind : True for metaedges within one node kind read as undirected (GiG, CrC, ...):
        (a, b) and (b, a) are the same edge and self loops are forbidden; orientations are re-drawn every
        round so both rewirings of a pair are possible.
    n_nodes : number of graph nodes (for edge keys).
    rounds : pairing rounds.

    Returns
    -------
    (src, dst, swapped_share)
        Permuted endpoint arrays (every node keeps its degree in this metaedge; no duplicate edges, no new
        self loops) and the share of edges changed by at least one swap.
    """
    s, d = src.copy(), dst.copy()
    n = s.size
    if n < 2:
        return s, d, 0.0
    touched = np.zeros(n, dtype=bool)

    def keys(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if undirected_same_kind:
            a, b = np.minimum(a, b), np.maximum(a, b)
        return a * n_nodes + b

    current = keys(s, d)
    for _ in range(rounds):
        if undirected_same_kind:
            flip = rng.random(n) < 0.5
            s[flip], d[flip] = d[flip], s[flip].copy()
        perm = rng.permutation(n)
        half = n // 2
        a, b = perm[:half], perm[half:2 * half]
        ka, kb = keys(s[a], d[b]), keys(s[b], d[a])
        ok = ka != kb
        if undirected_same_kind:
            ok &= (s[a] != d[b]) & (s[b] != d[a])
        existing = np.sort(current)
        ok &= ~_member(ka, existing) & ~_member(kb, existing)
        proposed = np.concatenate([ka[ok], kb[ok]])
        uniq, counts = np.unique(proposed, return_counts=True)
        dup = uniq[counts > 1]
        if dup.size:
            ok &= ~_member(ka, dup) & ~_member(kb, dup)
        aa, bb = a[ok], b[ok]
        d[aa], d[bb] = d[bb], d[aa].copy()
        touched[aa] = touched[bb] = True
        current = keys(s, d)
    return s, d, float(touched.mean())


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    if sorted_set.size == 0:
        return np.zeros(values.shape, dtype=bool)
    i = np.searchsorted(sorted_set, values)
    i[i == sorted_set.size] = 0
    return sorted_set[i] == values


def permute_graph(src: np.ndarray, dst: np.ndarray, metaedge: np.ndarray, n_nodes: int, seed: int
                  ) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """Permute every metaedge separately (:func:`permute_metaedge`); checks degrees are preserved.

    Raises
    ------
    AssertionError
        If a node's degree in some metaedge changed (a bug in the swap).
    """
    rng = np.random.default_rng(seed)
    out_s, out_d = src.copy(), dst.copy()
    swapped: dict[str, float] = {}
    for me in sorted(set(metaedge.tolist())):
        mask = metaedge == me
        ps, pd_, share = permute_metaedge(src[mask], dst[mask], rng, undirected_same_kind=me in SAME_KIND_UNDIRECTED,
                                          n_nodes=n_nodes)
        before = np.bincount(np.concatenate([src[mask], dst[mask]]), minlength=n_nodes)
        after = np.bincount(np.concatenate([ps, pd_]), minlength=n_nodes)
        assert np.array_equal(before, after), f"degree changed in metaedge {me}"
        out_s[mask], out_d[mask] = ps, pd_
        swapped[me] = share
    return out_s, out_d, swapped


# ============================================================================================== folds
def stratified_folds(compounds: np.ndarray, diseases: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """Fold number (0 .. n_folds-1) of each CtD edge, dealt round-robin within each disease."""
    rng = np.random.default_rng(seed)
    fold = np.empty(compounds.size, dtype=np.int64)
    for disease in np.unique(diseases):
        edges = np.flatnonzero(diseases == disease)
        edges = edges[rng.permutation(edges.size)]
        fold[edges] = (rng.integers(n_folds) + np.arange(edges.size)) % n_folds
    return fold


def agent_seeds(disease: int, gene_mask: np.ndarray, disease_share: float | None) -> dict[int, float]:
    """The drug agent's restart vector: the disease (``disease_share``) + its DaG-linked genes (the rest, evenly).

    ``disease_share=None`` seeds the disease alone. In this graph a disease's gene neighbours are its
    DaG (associates), DuG and DdG (up/down-regulates) genes; only DaG is used, as the agent does, so the
    caller passes ``gene_mask`` marking the DaG genes of this disease.
    """
    if disease_share is None:
        return {disease: 1.0}
    genes = np.flatnonzero(gene_mask)
    if genes.size == 0:
        return {disease: 1.0}
    seeds = {disease: disease_share}
    for g in genes.tolist():
        seeds[g] = (1.0 - disease_share) / genes.size
    return seeds


def _dag_genes(src: np.ndarray, dst: np.ndarray, metaedge: np.ndarray, n_nodes: int) -> dict[int, np.ndarray]:
    mask = metaedge == "DaG"
    out: dict[int, list[int]] = {}
    for d, g in zip(src[mask].tolist(), dst[mask].tolist()):
        out.setdefault(d, []).append(g)
    result = {}
    for d, genes in out.items():
        m = np.zeros(n_nodes, dtype=bool)
        m[genes] = True
        result[d] = m
    return result


def _ppr_many(node_ids: np.ndarray, src: np.ndarray, dst: np.ndarray, seed_sets: list[dict[int, float]]) -> np.ndarray:
    from engram_kit.retrieval.ppr import personalized_pagerank_many
    from engram_kit.store.csr import CSRGraph

    graph = CSRGraph.from_edges(node_ids, src, dst)
    return personalized_pagerank_many(graph, seed_sets, damping=DAMPING).scores


def _metrics(y: np.ndarray, score: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    return float(roc_auc_score(y, score)), float(average_precision_score(y, score))


def run(options: StudyOptions) -> StudyResult:
    """Run the study; write ``repurposing[_quick].md`` and ``repurposing[_quick]_auroc.png``."""
    started = time.perf_counter()
    t0 = time.perf_counter()
    g, source = load_graph(options)
    load_seconds = time.perf_counter() - t0
    n_nodes = g.node_ids.size
    is_ctd = g.metaedge == "CtD"
    ctd_c, ctd_d = g.src[is_ctd], g.dst[is_ctd]
    compound_idx = np.flatnonzero(g.kinds == "Compound")
    fold_of = stratified_folds(ctd_c, ctd_d, FOLDS, SEED)
    methods = ["PPR, agent seeds (disease + DaG genes)", "PPR, disease-only seed",
               "PPR on permuted graph (agent seeds)", "prior: compound degree", "prior: compound CtD degree",
               "random"]
    per_fold: list[dict[str, Any]] = []
    swap_shares: list[dict[str, float]] = []
    fold_seconds = []
    rng_random = np.random.default_rng(SEED + 100)
    other_s, other_d, other_me = g.src[~is_ctd], g.dst[~is_ctd], g.metaedge[~is_ctd]
    for f in range(FOLDS):
        tf = time.perf_counter()
        train_ctd = fold_of != f
        src = np.concatenate([other_s, ctd_c[train_ctd]])
        dst = np.concatenate([other_d, ctd_d[train_ctd]])
        me = np.concatenate([other_me, np.full(int(train_ctd.sum()), "CtD", dtype=object)])
        held = ~train_ctd
        diseases = np.unique(ctd_d[held])
        degree = np.bincount(np.concatenate([src, dst]), minlength=n_nodes).astype(np.float64)
        ctd_degree = np.bincount(np.concatenate([ctd_c[train_ctd], ctd_d[train_ctd]]), minlength=n_nodes).astype(np.float64)
        dag = _dag_genes(src, dst, me, n_nodes)
        none = np.zeros(n_nodes, dtype=bool)
        seeds_agent = [agent_seeds(int(d), dag.get(int(d), none), DISEASE_SHARE) for d in diseases]
        seeds_only = [agent_seeds(int(d), none, None) for d in diseases]
        scores = {methods[0]: _ppr_many(g.node_ids, src, dst, seeds_agent),
                  methods[1]: _ppr_many(g.node_ids, src, dst, seeds_only)}
        ps, pd_, shares = permute_graph(src, dst, me, n_nodes, SEED + 1 + f)
        swap_shares.append(shares)
        dag_perm = _dag_genes(ps, pd_, me, n_nodes)
        seeds_perm = [agent_seeds(int(d), dag_perm.get(int(d), none), DISEASE_SHARE) for d in diseases]
        scores[methods[2]] = _ppr_many(g.node_ids, ps, pd_, seeds_perm)
        per_disease: dict[str, list[tuple[float, float]]] = {m: [] for m in methods}
        pooled_y: list[np.ndarray] = []
        pooled: dict[str, list[np.ndarray]] = {m: [] for m in methods}
        pooled_prior: list[np.ndarray] = []
        for row, d in enumerate(diseases):
            treating_train = set(ctd_c[train_ctd & (ctd_d == d)].tolist())
            cand = np.array([c for c in compound_idx.tolist() if c not in treating_train], dtype=np.int64)
            positives = set(ctd_c[held & (ctd_d == d)].tolist())
            y = np.array([c in positives for c in cand.tolist()], dtype=np.int64)
            method_scores = {
                methods[0]: scores[methods[0]][row, cand], methods[1]: scores[methods[1]][row, cand],
                methods[2]: scores[methods[2]][row, cand], methods[3]: degree[cand], methods[4]: ctd_degree[cand],
                methods[5]: rng_random.random(cand.size),
            }
            for m, s in method_scores.items():
                per_disease[m].append(_metrics(y, s))
                pooled[m].append(s)
            pooled_y.append(y)
            pooled_prior.append((ctd_degree[cand] + 1.0) * (ctd_degree[d] + 1.0))
        y_all = np.concatenate(pooled_y)
        row_out: dict[str, Any] = {"fold": f, "diseases": int(diseases.size), "held-out edges": int(held.sum()),
                                   "candidates": int(y_all.size)}
        for m in methods:
            arr = np.array(per_disease[m])
            row_out[(m, "AUROC")] = float(arr[:, 0].mean())
            row_out[(m, "AUPRC")] = float(arr[:, 1].mean())
            row_out[(m, "pooled AUROC")], row_out[(m, "pooled AUPRC")] = _metrics(y_all, np.concatenate(pooled[m]))
        row_out[("prior: CtD degree product", "pooled AUROC")], row_out[("prior: CtD degree product", "pooled AUPRC")] = \
            _metrics(y_all, np.concatenate(pooled_prior))
        row_out[("share of diseases where agent PPR beats compound-degree prior", "")] = float(np.mean(
            [a[0] > b[0] for a, b in zip(per_disease[methods[0]], per_disease[methods[3]])]))
        per_fold.append(row_out)
        fold_seconds.append(time.perf_counter() - tf)
        log.info("fold %d done in %.1f s", f, fold_seconds[-1])

    def mean_sd(key: tuple[str, str]) -> tuple[float, float]:
        vals = np.array([r[key] for r in per_fold if key in r])
        return float(vals.mean()), float(vals.std(ddof=1)) if vals.size > 1 else 0.0

    table = []
    for m in [*methods, "prior: CtD degree product"]:
        row: dict[str, Any] = {"method": m}
        for metric in ("AUROC", "AUPRC", "pooled AUROC", "pooled AUPRC"):
            if (m, metric) in per_fold[0]:
                mu, sd = mean_sd((m, metric))
                row[metric] = f"{mu:.3f} ± {sd:.3f}"
            else:
                row[metric] = ""
        table.append(row)
    margins = []
    for m in methods[:3]:
        for prior in ("prior: compound degree", "prior: compound CtD degree"):
            diffs = np.array([r[(m, "AUROC")] - r[(prior, "AUROC")] for r in per_fold])
            margins.append({"method": m, "minus": prior, "AUROC margin (mean ± sd over folds)":
                            f"{diffs.mean():+.3f} ± {diffs.std(ddof=1):.3f}"})
    fold_rows = [{"fold": r["fold"], "diseases": r["diseases"], "held-out edges": r["held-out edges"],
                  "agent PPR AUROC": r[(methods[0], "AUROC")], "compound-degree AUROC": r[(methods[3], "AUROC")],
                  "permuted PPR AUROC": r[(methods[2], "AUROC")],
                  "diseases where PPR > prior": r[("share of diseases where agent PPR beats compound-degree prior", "")],
                  "seconds": s} for r, s in zip(per_fold, fold_seconds)]
    swap_rows = [{"metaedge": me, "edges changed by >= 1 swap (mean over folds)":
                  float(np.mean([s[me] for s in swap_shares]))} for me in sorted(swap_shares[0])]
    stem = output_name("repurposing", options.quick)
    figure = grouped_bar_plot(
        options.results_dir / f"{stem}_auroc.png", ["per-disease AUROC", "per-disease AUPRC"],
        {m: [mean_sd((m, "AUROC"))[0], mean_sd((m, "AUPRC"))[0]] for m in methods},
        title=f"Hetionet CtD hold-out, {FOLDS} folds stratified by disease", ylabel="score",
        reference=("Rephetio prior AUROC 0.979 (pooled)", REPHETIO_PRIOR_AUROC))
    total = time.perf_counter() - started
    body = [
        "## Setup", "",
        f"- Graph: {source}; {int(is_ctd.sum())} CtD edges over {np.unique(ctd_d).size} diseases and "
        f"{np.unique(ctd_c).size} compounds; {compound_idx.size} compounds are candidates.",
        f"- {FOLDS} folds stratified by disease (seed {SEED}); PPR damping {DAMPING}, disease restart share "
        f"{DISEASE_SHARE} (rest over DaG genes), solver `personalized_pagerank_many` (CG, tol 1e-6).",
        "- AUROC / AUPRC: per disease over its candidates (compounds not treating it in training), averaged over the "
        "fold's diseases; 'pooled' = over all (disease, candidate) pairs of the fold. Mean ± sd over folds.",
        f"- Permutation: XSwap per metaedge, {SWAP_ROUNDS} rounds, seed {SEED + 1} + fold (xswap from PyPI "
        "is not installable here; see the module docstring).",
        f"- Published context: Rephetio AUROC {REPHETIO_AUROC}, its degree prior {REPHETIO_PRIOR_AUROC} (pooled, all "
        "indications, supervised model on the full graph); a method is judged by its margin over the prior.",
        f"- Wall time {total:.0f} s (graph load {load_seconds:.0f} s), shared 2-core machine.", "",
        "## Results (mean ± sd over folds)", "", markdown_table(table, ["method", "AUROC", "AUPRC", "pooled AUROC", "pooled AUPRC"]),
        "", "## Margin over the degree priors (per-disease AUROC)", "",
        markdown_table(margins, ["method", "minus", "AUROC margin (mean ± sd over folds)"]),
        "", "## Per fold", "", markdown_table(fold_rows, list(fold_rows[0])),
        "", "## Permutation check", "", "Every node keeps its degree in every metaedge (asserted).", "",
        markdown_table(swap_rows, ["metaedge", "edges changed by >= 1 swap (mean over folds)"]),
    ]
    report = write_report(options, "repurposing", "Drug repurposing: Hetionet Compound-treats-Disease hold-out", body,
                          packages=("numpy", "scipy", "scikit-learn"))
    summary = {
        "ppr_auroc": mean_sd((methods[0], "AUROC"))[0], "ppr_auprc": mean_sd((methods[0], "AUPRC"))[0],
        "disease_only_auroc": mean_sd((methods[1], "AUROC"))[0],
        "permuted_auroc": mean_sd((methods[2], "AUROC"))[0],
        "degree_prior_auroc": mean_sd((methods[3], "AUROC"))[0],
        "ctd_degree_prior_auroc": mean_sd((methods[4], "AUROC"))[0],
        "random_auroc": mean_sd((methods[5], "AUROC"))[0],
        "ppr_pooled_auroc": mean_sd((methods[0], "pooled AUROC"))[0],
        "prior_product_pooled_auroc": mean_sd(("prior: CtD degree product", "pooled AUROC"))[0],
    }
    return StudyResult("repurposing", report, [figure], summary, total)
