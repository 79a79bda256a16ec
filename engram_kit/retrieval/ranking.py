"""Passage ranking: hybrid first stage, passage + entity seeding of PPR, hub control, absolute relevance.

The method follows HippoRAG 2 (Gutierrez et al., "From RAG to Memory", ICML 2025), adapted:

1. **First stage** (lexical + dense): BM25 and dense-cosine rankings of the passages are fused by
   reciprocal-rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009), ``sum_r 1 / (k + rank_r)``, so a
   passage that only one signal finds is not lost.
2. **Seeds**: the question's resolved entities (weights from :mod:`engram_kit.retrieval.question`) *and* the
   top first-stage passages, whose weights are their fused first-stage scores. HippoRAG 2 seeds every
   passage node by its dense similarity (times 0.05) beside the phrase nodes; here the passage share of the
   restart mass is a setting (``Settings.passage_seed_share``) and only the top ``passage_seeds`` passages
   are seeded (the others hold little fused mass and cost nothing to leave out).
3. **Ranking by the PPR stationary distribution**: a passage's score is its PPR probability. Because the
   passage is a seed, this is its own restart mass ``(1 - damping) * s_p`` (the first-stage evidence) plus
   the mass that flows in through the noun phrases and entities it shares with the question and with the
   other strong passages (the graph's evidence).
4. **Hub control**: the inflow part is divided by ``degree ** hub_exponent`` (the passage's weighted degree
   in the PPR graph, i.e. how many noun-phrase mentions it has), because on an undirected graph a walk's
   visit probability grows with degree: without it, long passages that mention many phrases collect mass
   from every question. ``hub_exponent = 0`` switches it off (the ablation in the BioASQ study).

All functions are pure NumPy over arrays aligned on one passage order, so the product retriever and the
benchmark score exactly the same formula.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram_kit.errors import QueryError

#: Reciprocal-rank-fusion constant k (Cormack et al., SIGIR 2009, who found 60 robust across collections).
RRF_K = 60


def ranks_of(scores: np.ndarray, *, present: np.ndarray | None = None) -> np.ndarray:
    """1-based rank of every item by descending score (ties keep input order); ``inf`` where not ``present``.

    Parameters
    ----------
    scores : ndarray of shape (n,), any float.
    present : bool ndarray of shape (n,), items this signal actually retrieved (default all).

    Returns
    -------
    ndarray of shape (n,), float64, ranks 1..n among the present items, ``inf`` elsewhere.
    """
    scores = np.asarray(scores, dtype=np.float64)
    present = np.ones(scores.shape, dtype=bool) if present is None else np.asarray(present, dtype=bool)
    out = np.full(scores.shape, np.inf)
    idx = np.flatnonzero(present)
    order = idx[np.argsort(-scores[idx], kind="stable")]
    out[order] = np.arange(1, order.size + 1, dtype=np.float64)
    return out


def rrf(rank_arrays: Sequence[np.ndarray], weights: Sequence[float] | None = None, k: float = RRF_K) -> np.ndarray:
    """Reciprocal-rank fusion ``sum_r w_r / (k + rank_r)`` of aligned rank arrays (``inf`` rank adds 0).

    Parameters
    ----------
    rank_arrays : arrays of shape (n,) from :func:`ranks_of`.
    weights : one non-negative weight per array (default all 1).
    k : the RRF constant, > 0 (default :data:`RRF_K`).

    Returns
    -------
    ndarray of shape (n,), float64, >= 0; higher is better.

    Raises
    ------
    QueryError
        If no rank arrays are given, the weights do not match them, or k <= 0.
    """
    if not rank_arrays:
        raise QueryError("rrf needs at least one ranking to fuse.")
    weights = [1.0] * len(rank_arrays) if weights is None else list(weights)
    if len(weights) != len(rank_arrays) or any(w < 0 for w in weights):
        raise QueryError(f"rrf: give one non-negative weight per ranking ({len(rank_arrays)}), got {weights}.")
    if k <= 0:
        raise QueryError(f"rrf: k={k} must be > 0 (60 is the usual value).")
    out = np.zeros(np.asarray(rank_arrays[0]).shape, dtype=np.float64)
    for ranks, w in zip(rank_arrays, weights):
        out += w / (k + np.asarray(ranks, dtype=np.float64))
    return out


def passage_seed_vector(first_stage: np.ndarray, n_seeds: int) -> np.ndarray:
    """Seed weights of the top ``n_seeds`` passages by first-stage score, summing to 1 (zeros elsewhere).

    Weights are the first-stage scores themselves (RRF scores are positive and decay like 1/(k + rank), so
    rank 1 gets about twice the weight of rank 60); a constant or empty input gives equal weights to the top.

    Returns
    -------
    ndarray of shape (n,), float64, non-negative, sum 1 (all zeros when ``n == 0`` or ``n_seeds == 0``).
    """
    s = np.zeros(first_stage.shape, dtype=np.float64)
    if first_stage.size == 0 or n_seeds <= 0:
        return s
    top = np.argsort(-first_stage, kind="stable")[: min(n_seeds, first_stage.size)]
    w = np.maximum(first_stage[top].astype(np.float64), 0.0)
    s[top] = w if w.sum() > 0 else 1.0
    return s / s.sum()


def graph_passage_scores(ppr_passage: np.ndarray, restart: np.ndarray, degree: np.ndarray,
                         hub_exponent: float) -> np.ndarray:
    """Final passage scores from the PPR stationary distribution, with hub control on the inflow.

    Parameters
    ----------
    ppr_passage : ndarray (n,), PPR probability of each passage node (0 for passages outside the graph).
    restart : ndarray (n,), the passage's own restart mass ``(1 - damping) * seed share * s_p``; a passage
        outside the graph (no mention) scores exactly this.
    degree : ndarray (n,), weighted degree of the passage node (0 outside the graph).
    hub_exponent : >= 0; the inflow ``ppr - restart`` is divided by ``max(degree, 1) ** hub_exponent``.

    Returns
    -------
    ndarray (n,), float64, >= 0.
    """
    ppr = np.asarray(ppr_passage, dtype=np.float64)
    base = np.asarray(restart, dtype=np.float64)
    inflow = np.maximum(ppr - base, 0.0)
    if hub_exponent > 0:
        inflow = inflow / np.maximum(np.asarray(degree, dtype=np.float64), 1.0) ** hub_exponent
    return np.where(ppr > 0, base + inflow, base)


def relevance_of(top_cosine: float, floor: float) -> tuple[float, bool]:
    """Absolute relevance of a result: the raw cosine of its best passage and whether it clears ``floor``.

    Min-max scores always put the best hit at 1.0, even for an off-topic question; the raw cosine of the
    question and its best passage does not (MiniLM: on-topic biomedical questions mostly > 0.4, off-topic
    ones < 0.2; see benchmarks/results/bioasq.md for the calibration of ``Settings.min_relevance``).
    """
    return float(top_cosine), bool(top_cosine >= floor)
