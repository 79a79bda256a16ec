"""Passage ranking: a hybrid text score, bounded graph evidence, absolute relevance.

The ranking a question gets (``Retriever.retrieve``) is

``score(p) = (1 - graph_weight) * text(p) + graph_weight * graph(p)``

1. **Text score** (lexical + dense, :func:`text_scores`): the candidates are the top ``candidate_pool``
   passages by dense cosine and by BM25; ``text = dense_weight * minmax(cosine) + (1 - dense_weight) *
   bm25 / max(bm25)`` over the candidates. A convex combination of normalised scores beats reciprocal-rank
   fusion when the weight is set on a little labelled data (Bruch, Gai and Ingber, "An Analysis of Fusion
   Functions for Hybrid Retrieval", ACM TOIS 2023); on the BioASQ 12b dev split it scores nDCG@10 0.906 vs
   0.880 for RRF (k = 60), 0.849 dense and 0.821 BM25, and every weight in 0.5 .. 0.7 beats RRF by >= 0.02
   (``benchmarks/results/bioasq.md``).
2. **Graph evidence** (:func:`graph_evidence`): Personalized PageRank seeded by the question's resolved
   entities (and, by ``phrase_seed_share``, the NounPhrase nodes that map to them, as HippoRAG 2 seeds
   phrase nodes) reaches the passages that mention those entities or their graph neighbours. A passage's
   PPR probability is divided by its degree to ``hub_exponent`` (on an undirected graph a walk's visit
   probability grows with degree, so long passages that mention many phrases would collect mass from every
   question) and by the best candidate's, giving a value in [0, 1].
3. **Bounded blend**: ``graph_weight`` (default 0.05) caps what the graph can move: a passage can gain at
   most 5% of the score range, enough to order passages the text scores nearly tie, never enough to lift an
   off-topic passage over a strong text match. The BioASQ study measured the alternatives and the graph's
   part honestly: HippoRAG 2's passage-seeded walk on top of the fused text score lost 0.001-0.012
   nDCG@10, entity-seeded evidence at weight 0.2-0.3 lost 0.007-0.014, at 0.05 it gained +0.001 (within
   noise). The graph's value on that benchmark is in what the answer shows (typed edges, evidence paths),
   not in the order of the passages.

All functions are pure NumPy over arrays aligned on one candidate order, so the product retriever and the
benchmarks score exactly the same formula.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram_kit.errors import QueryError

#: Reciprocal-rank-fusion constant k (Cormack, Clarke and Buettcher, SIGIR 2009, who found 60 robust across
#: collections). The product ranks by :func:`text_scores`; RRF is the fusion baseline of the benchmarks.
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


def minmax(values: np.ndarray) -> np.ndarray:
    """Min-max normalise to [0, 1] (float64); a constant or empty vector maps to zeros (no ranking signal)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    return np.zeros_like(values) if hi - lo <= 0.0 else (values - lo) / (hi - lo)


def text_scores(cosine: np.ndarray, bm25: np.ndarray, dense_weight: float) -> np.ndarray:
    """Hybrid text score of the candidates: ``dense_weight * minmax(cosine) + (1 - dense_weight) * bm25 / max``.

    Parameters
    ----------
    cosine : ndarray (n,), question-passage cosine similarity in [-1, 1].
    bm25 : ndarray (n,), BM25 scores >= 0 (0 for a passage sharing no term with the question).
    dense_weight : in [0, 1]; 1 = dense only, 0 = BM25 only.

    Returns
    -------
    ndarray (n,), float64 in [0, 1]. BM25 is divided by its maximum (its minimum, 0, is a real value: no
    shared term), the cosine is min-max normalised over the candidates (its floor differs by question).

    Raises
    ------
    QueryError
        If the arrays differ in shape or ``dense_weight`` is outside [0, 1].
    """
    cosine = np.asarray(cosine, dtype=np.float64)
    bm25 = np.asarray(bm25, dtype=np.float64)
    if cosine.shape != bm25.shape:
        raise QueryError(f"text_scores: cosine {cosine.shape} and bm25 {bm25.shape} must be aligned.")
    if not 0.0 <= dense_weight <= 1.0:
        raise QueryError(f"dense_weight={dense_weight} is outside [0, 1] (the dense share of the text score).")
    peak = float(bm25.max()) if bm25.size else 0.0
    lexical = np.maximum(bm25, 0.0) / peak if peak > 0 else np.zeros_like(bm25)
    return dense_weight * minmax(cosine) + (1.0 - dense_weight) * lexical


def graph_evidence(ppr: np.ndarray, degree: np.ndarray, hub_exponent: float) -> np.ndarray:
    """Graph evidence of the candidates in [0, 1]: ``ppr / max(degree, 1) ** hub_exponent``, over its maximum.

    Parameters
    ----------
    ppr : ndarray (n,), PPR probability of each candidate's passage node from the entity seeds (0 when the
        passage is outside the graph or no walk reached it).
    degree : ndarray (n,), weighted degree of the passage node (its noun-phrase mentions; 0 outside the graph).
    hub_exponent : >= 0; 0 switches hub control off.

    Returns
    -------
    ndarray (n,), float64 in [0, 1]; all zeros when no candidate received mass.
    """
    ppr = np.maximum(np.asarray(ppr, dtype=np.float64), 0.0)
    if hub_exponent > 0:
        ppr = ppr / np.maximum(np.asarray(degree, dtype=np.float64), 1.0) ** hub_exponent
    peak = float(ppr.max()) if ppr.size else 0.0
    return ppr / peak if peak > 0 else np.zeros_like(ppr)


def blend(text: np.ndarray, graph: np.ndarray, graph_weight: float) -> np.ndarray:
    """Final passage scores ``(1 - graph_weight) * text + graph_weight * graph`` (both in [0, 1]).

    Raises
    ------
    QueryError
        If ``graph_weight`` is outside [0, 1].
    """
    if not 0.0 <= graph_weight <= 1.0:
        raise QueryError(f"graph_weight={graph_weight} is outside [0, 1] (the graph share of the score).")
    return (1.0 - graph_weight) * np.asarray(text, dtype=np.float64) + graph_weight * np.asarray(graph, dtype=np.float64)


def order_of(final: np.ndarray, cosine: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` best candidates by ``final``, ties broken by higher cosine, then input order."""
    final = np.asarray(final, dtype=np.float64)
    return np.lexsort((np.arange(final.size), -np.asarray(cosine, dtype=np.float64), -final))[:k]


def relevance_of(top_cosine: float, floor: float) -> tuple[float, bool]:
    """Absolute relevance of a result: the raw cosine of its best passage and whether it clears ``floor``.

    Min-max scores always put the best hit at 1.0, even for an off-topic question; the raw cosine of the
    question and its best passage does not (MiniLM: on-topic biomedical questions mostly > 0.4, off-topic
    ones < 0.2; see benchmarks/results/bioasq.md for the calibration of ``Settings.min_relevance``).
    """
    return float(top_cosine), bool(top_cosine >= floor)
