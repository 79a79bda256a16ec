"""Personalized PageRank (PPR) over a :class:`~engram_kit.store.csr.CSRGraph`.

PPR is the graph half of retrieval (as in HippoRAG): the entities a question resolves to are the seed
(personalization) nodes, and the stationary distribution of a random walk that restarts at the seeds
scores every node of the knowledge graph and of the literature layer by its proximity to them.

Conventions
-----------
``damping`` is the probability of following an edge at each step; ``1 - damping`` is the restart
probability (see :class:`engram_kit.settings.Settings`). With ``T = A D^{-1}`` the column-stochastic
transition operator and ``s`` the personalization vector normalised to sum 1, the scores ``x`` are the
fixed point of::

    x = damping * T x + (damping * sum(x[dangling]) + 1 - damping) * s

i.e. the walker at a dangling (degree-0) node restarts at the seeds, exactly like a restart. This is
the same fixed point as ``networkx.pagerank(G, alpha=damping, personalization=s, dangling=s)`` and
``igraph.Graph.personalized_pagerank(damping=damping, reset=s, directed=False, weights=...)`` (igraph's
PRPACK and ARPACK back-ends also send dangling mass to the reset vector), so scores are directly
comparable; ``tests/test_ppr.py`` checks both to 1e-5.

Two solvers compute that fixed point; both stop when the L1 fixed-point residual
``||F(x) - x||_1`` (the L1 change one more power-iteration step would make) is below ``tol``:

* ``"power"``: the textbook power iteration ``x <- damping * T x + (1 - damping * sum(T x)) * s``.
  Its error shrinks by a factor ``damping`` per step: ~20 steps at 0.5, ~80 at 0.85 for ``tol=1e-6``.
* ``"cg"`` (default): conjugate gradients on the equivalent linear system
  ``(I - damping T) x = (1 - damping) s``, symmetrised as ``(I - damping M) z = (1 - damping) D^{-1/2} s``
  with ``M = D^{-1/2} A D^{-1/2} = D^{-1/2} T D^{1/2}`` and ``x = D^{1/2} z`` (degree-0 nodes use
  ``D = 1``). ``M`` has its spectrum in [-1, 1], so the system is symmetric positive definite with
  condition number at most ``(1 + damping) / (1 - damping)`` (3 at 0.5, 12.3 at 0.85) and CG's error
  shrinks by at least ``(sqrt(k) - 1) / (sqrt(k) + 1)`` per step (0.27 at 0.5, 0.56 at 0.85), usually
  faster. Measured on the Hetionet-sized graph at ``tol=1e-6``: ~11 steps at 0.5 and ~16 at 0.85,
  against ~16 and ~47 for power iteration, each step costing the same one SpMV plus a few vector
  operations. The result is normalised to sum 1, which folds in the dangling-node restarts.
  Vectors are float64 (cheap: O(n)); the operator is float32, which bounds the attainable accuracy at
  about 1e-7 in L1: a smaller ``tol`` buys nothing.

Performance: the operator is float32 (one SpMV reads ``nnz * 8`` bytes), row blocks of it are
multiplied in parallel threads (SciPy releases the GIL inside ``csr_matvec``), vectors are preallocated
and the per-step vector work is a handful of NumPy ufunc calls, so a step runs near the memory-bandwidth
floor. See ``benchmarks/README.md``.

References
----------
.. [1] Page, Brin, Motwani, Winograd, "The PageRank citation ranking: bringing order to the web",
   Stanford InfoLab, 1999.
.. [2] Haveliwala, "Topic-sensitive PageRank", WWW 2002 (personalization vector).
.. [3] Gutiérrez et al., "HippoRAG: Neurobiologically inspired long-term memory for large language
   models", NeurIPS 2024 (PPR over an entity graph for retrieval, damping 0.5).
.. [4] Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., SIAM 2003, Algorithm 6.18 (CG) and
   Section 6.11.3 (its convergence bound).
.. [5] Gleich, "PageRank beyond the web", SIAM Review 57(3), 2015 (PageRank as a linear system;
   dangling-node conventions).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

import numpy as np

from engram_kit.errors import DataError
from engram_kit.store.csr import CSRGraph
# The result type, the restart vector and the seeds' type live with the engine protocol in the store layer (the
# server engine, engram_kit.store.gds, builds them too); re-exported here where the solver always had them.
from engram_kit.store.ppr_engine import PPRResult as PPRResult
from engram_kit.store.ppr_engine import Seeds as Seeds
from engram_kit.store.ppr_engine import personalization_vector as personalization_vector

logger = logging.getLogger(__name__)

Method = Literal["cg", "power"]

#: Below this many stored entries a single thread is faster than handing blocks to a pool.
PARALLEL_MIN_NNZ = 200_000

_POOL: ThreadPoolExecutor | None = None
_POOL_WORKERS = 0


def default_threads() -> int:
    """Threads used for the sparse products: the CPUs this process may run on, at most 8."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def _pool(workers: int) -> ThreadPoolExecutor:
    global _POOL, _POOL_WORKERS
    if _POOL is None or _POOL_WORKERS < workers:
        if _POOL is not None:
            _POOL.shutdown(wait=False)
        _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="engram-ppr")
        _POOL_WORKERS = workers
    return _POOL


# ---------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PPRBatchResult:
    """Scores of several PPR runs computed together by :func:`personalized_pagerank_many`.

    Attributes
    ----------
    scores : ndarray of shape (n_seed_sets, n_nodes), float32
        One row per seed set; each row sums to 1.
    iterations : int
        Steps performed (shared: the batch stops when its slowest member converges).
    converged : ndarray of shape (n_seed_sets,), bool
    residuals : ndarray of shape (n_seed_sets,), float64
    """

    scores: np.ndarray
    iterations: int
    converged: np.ndarray
    residuals: np.ndarray

    def __len__(self) -> int:
        return int(self.scores.shape[0])

    def __getitem__(self, i: int) -> PPRResult:
        return PPRResult(self.scores[i], self.iterations, bool(self.converged[i]), float(self.residuals[i]))


def top_share(scores: np.ndarray, fraction: float = 0.01) -> float:
    """Share of the PPR mass held by the top ``fraction`` of nodes ("hub drift").

    Parameters
    ----------
    scores : ndarray of shape (n_nodes,)
        Non-negative scores (need not sum to 1).
    fraction : float, default 0.01
        Fraction of nodes counted as the top, in (0, 1); at least one node is counted
        (``ceil(fraction * n_nodes)``). See ``Settings.hub_fraction``.

    Returns
    -------
    float
        In [0, 1]. Near ``fraction`` for a uniform distribution; near 1 when a few hubs (or the seeds)
        hold everything.

    Raises
    ------
    DataError
        Fraction outside (0, 1), empty or all-zero scores.
    """
    if not 0.0 < fraction < 1.0:
        raise DataError(f"fraction={fraction!r} must be strictly between 0 and 1, e.g. 0.01 for the top 1%.")
    s = np.asarray(scores, dtype=np.float64).ravel()
    total = float(s.sum())
    if s.size == 0 or total <= 0.0:
        raise DataError("scores are empty or sum to 0; pass the scores of a PPR result.")
    k = max(1, math.ceil(fraction * s.size))
    return float(np.partition(s, s.size - k)[s.size - k:].sum() / total)


# ---------------------------------------------------------------------------------------------- seeds
def personalization_from_ids(graph: CSRGraph, ids: Mapping[str, float] | Sequence[str]) -> dict[int, float]:
    """Map node ids (``"Gene::7157"``) or ``{id: weight}`` to the ``{index: weight}`` seeds PPR takes.

    Raises
    ------
    DataError
        An id is not in the graph (the message names a few).
    """
    if isinstance(ids, Mapping):
        keys, weights = list(ids.keys()), [float(v) for v in ids.values()]
    else:
        keys, weights = list(ids), [1.0] * len(ids)
    idx = graph.indices_of(np.asarray(keys, dtype=str)) if keys else np.zeros(0, dtype=np.int64)
    out: dict[int, float] = {}
    for i, w in zip(idx.tolist(), weights):
        out[i] = out.get(i, 0.0) + w
    return out


def _check_params(damping: float, tol: float, max_iter: int, method: str) -> None:
    if not 0.0 < damping < 1.0:
        raise DataError(f"damping={damping!r} must be strictly between 0 and 1 (probability of following an "
                        "edge; 0.5 as in HippoRAG, 0.85 as in web PageRank).")
    if not tol > 0.0:
        raise DataError(f"tol={tol!r} must be a positive number such as 1e-6.")
    if int(max_iter) < 1:
        raise DataError(f"max_iter={max_iter!r} must be an integer >= 1.")
    if method not in ("cg", "power"):
        raise DataError(f"method={method!r} is unknown; use 'cg' (default) or 'power'.")


# ---------------------------------------------------------------------------------------------- operator
class _Transition:
    """``out[:] = T @ x`` for x of shape (n,) or (n, k), float32, split over threads by row blocks."""

    def __init__(self, graph: CSRGraph, n_threads: int | None) -> None:
        threads = default_threads() if n_threads is None else max(1, int(n_threads))
        self.degree = graph.degree
        if int(graph.transition.indptr[-1]) < PARALLEL_MIN_NNZ:
            threads = 1
        self.blocks = graph.transition_blocks(threads)
        self.matrix = graph.transition
        self.adjacency = graph.adjacency
        self.pool = _pool(len(self.blocks) - 1) if len(self.blocks) > 1 else None

    def push(self, x: np.ndarray, support: np.ndarray, out: np.ndarray) -> bool:
        """``out[:] = T @ x`` for a 1-D ``x`` that is zero outside ``support``, reading only those rows.

        Column ``j`` of ``T`` is row ``j`` of ``A`` over ``degree[j]`` (``A`` is symmetric), so the
        product costs ``O(sum of degrees of the support)``, not ``O(nnz)``. Returns False (and does
        nothing) when the support is too heavy for this to pay off.
        """
        indptr = self.adjacency.indptr
        starts, stops = indptr[support].astype(np.int64), indptr[support + 1].astype(np.int64)
        lengths = stops - starts
        total = int(lengths.sum())
        if x.ndim != 1 or total > self.adjacency.nnz // 8:
            return False
        pos = np.repeat(stops - lengths.cumsum(), lengths) + np.arange(total)
        coef = np.zeros(support.size, dtype=np.float64)
        deg = self.degree[support]
        np.divide(x[support], deg, out=coef, where=deg > 0)
        weights = self.adjacency.data[pos] * np.repeat(coef, lengths)
        out[...] = np.bincount(self.adjacency.indices[pos], weights=weights, minlength=out.size)
        return True

    def __call__(self, x: np.ndarray, out: np.ndarray) -> np.ndarray:
        if self.pool is None:
            out[...] = self.matrix @ x
            return out

        def run(block: tuple[int, int, object]) -> None:
            r0, r1, m = block
            out[r0:r1] = m @ x  # type: ignore[operator]

        futures = [self.pool.submit(run, b) for b in self.blocks[1:]]
        run(self.blocks[0])
        for f in futures:
            f.result()
        return out


# ---------------------------------------------------------------------------------------------- solvers
def _solve(graph: CSRGraph, s: np.ndarray, damping: float, tol: float, max_iter: int, method: str,
           n_threads: int | None) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """Solve for a (n,) or (n, k) personalization ``s`` (float64, columns sum 1).

    Returns scores float32 of the same shape (columns sum 1), steps, converged (k,), residuals (k,).
    """
    op = _Transition(graph, n_threads)
    if method == "power":
        return _power(op, s, damping, tol, max_iter)
    return _conjugate_gradient(op, s, damping, tol, max_iter)


def _power(op: _Transition, s64: np.ndarray, d: float, tol: float, max_iter: int
           ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    s = s64.astype(np.float32)
    x = s.copy()
    y = np.empty_like(x)
    tmp = np.empty_like(x)
    residual = np.full(s.shape[1:] or (1,), np.inf)
    steps = 0
    for steps in range(1, max_iter + 1):  # noqa: B007 - the count is reported after the loop
        op(x, y)                                   # y = T x
        y *= np.float32(d)
        lost = 1.0 - y.sum(axis=0, dtype=np.float64)  # restart + dangling mass, per column
        np.multiply(s, lost.astype(np.float32), out=tmp)
        y += tmp
        np.subtract(y, x, out=tmp)
        np.abs(tmp, out=tmp)
        residual = np.atleast_1d(tmp.sum(axis=0, dtype=np.float64))
        x, y = y, x
        if (residual < tol).all():
            break
    x /= x.sum(axis=0, dtype=np.float64).astype(np.float32)
    return x, steps, residual < tol, residual


def _conjugate_gradient(op: _Transition, s: np.ndarray, d: float, tol: float, max_iter: int
                        ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    # CG on the symmetric positive definite system (I - d M) z = (1 - d) D^{-1/2} s, with
    # M = D^{-1/2} A D^{-1/2} = D^{-1/2} T D^{1/2} (so T is all we need) and x = D^{1/2} z.
    # Degree-0 nodes use D = 1 (their rows and columns of A are empty, so T and M are unchanged).
    degree = op.degree
    dsq = np.sqrt(np.where(degree > 0, degree, 1.0))
    dcol = dsq if s.ndim == 1 else dsq[:, None]
    z = np.zeros_like(s)
    r = (1.0 - d) * s / dcol
    p = r.copy()
    ap = np.empty_like(s)
    tmp = np.empty_like(s)
    p32 = np.empty(s.shape, dtype=np.float32)
    q32 = np.empty_like(p32)
    rr = np.atleast_1d(np.einsum("i...,i...->...", r, r))
    active = np.ones(rr.shape, dtype=bool)
    residual = np.atleast_1d(np.full(rr.shape, np.inf))
    support = np.flatnonzero(s) if s.ndim == 1 else None
    steps = 0
    while steps < max_iter:
        np.multiply(p, dcol, out=tmp)
        np.copyto(p32, tmp, casting="same_kind")
        # q = T D^{1/2} p; the first direction is zero outside the seeds: push from them only.
        if steps > 0 or support is None or not op.push(p32, support, q32):
            op(p32, q32)
        np.divide(q32, dcol, out=ap)
        ap *= -d
        ap += p                                    # ap = (I - d M) p
        pap = np.atleast_1d(np.einsum("i...,i...->...", p, ap))
        alpha = np.where(active & (pap > 0), rr / np.where(pap > 0, pap, 1.0), 0.0)
        step = alpha[0] if s.ndim == 1 else alpha
        z += step * p
        r -= step * ap
        steps += 1
        # Linear residual in x space is D^{1/2} r; convert to the L1 fixed-point residual.
        np.multiply(r, dcol, out=tmp)
        residual = _fixed_point_residual(tmp, dsq @ z, s)
        active &= ~(residual < tol)
        if not active.any():
            break
        rr_next = np.atleast_1d(np.einsum("i...,i...->...", r, r))
        beta = np.where(rr > 0, rr_next / np.where(rr > 0, rr, 1.0), 0.0)
        p *= beta[0] if s.ndim == 1 else beta
        p += r
        rr = rr_next
    x = z * dcol
    np.maximum(x, 0.0, out=x)                      # clip rounding noise (~1e-12)
    x /= x.sum(axis=0)
    return x.astype(np.float32), steps, np.atleast_1d(residual < tol), np.atleast_1d(residual)


def _fixed_point_residual(rho: np.ndarray, x_sum: np.ndarray | float, s: np.ndarray) -> np.ndarray:
    """L1 norm of ``F(x_hat) - x_hat`` for ``x_hat = x / sum(x)``, from the linear residual ``rho``.

    With ``(I - dT) x = (1 - d) s - rho`` one finds ``F(x_hat) - x_hat = (rho - sum(rho) s) / sum(x)``
    (``F`` is one power-iteration step), so the stopping rule means the same for every solver.
    ``rho`` is overwritten.
    """
    rho -= s * rho.sum(axis=0)
    np.abs(rho, out=rho)
    return np.atleast_1d(rho.sum(axis=0) / x_sum)


# ---------------------------------------------------------------------------------------------- public
def personalized_pagerank(graph: CSRGraph, seeds: Seeds, *, damping: float = 0.5, tol: float = 1e-6,
                          max_iter: int = 100, method: Method = "cg",
                          n_threads: int | None = None) -> PPRResult:
    """Personalized PageRank of every node for one seed set.

    Parameters
    ----------
    graph : CSRGraph
        Undirected weighted graph (edge weights bias the walk: a node passes mass to its neighbours in
        proportion to edge weight).
    seeds : Mapping[int, float] or ndarray of shape (n_nodes,)
        Seed node index -> non-negative weight, or a dense weight vector; normalised to sum 1.
    damping : float, default 0.5
        Probability of following an edge, in (0, 1); restart probability ``1 - damping``.
    tol : float, default 1e-6
        Stop when the L1 fixed-point residual is below this.
    max_iter : int, default 100
        Cap on steps (sparse products). Not converging is logged as a warning, not raised.
    method : {"cg", "power"}, default "cg"
        Solver; same fixed point and same stopping rule (see the module notes).
    n_threads : int, optional
        Threads for the sparse products; default :func:`default_threads`.

    Returns
    -------
    PPRResult
        ``scores`` float32 of shape (n_nodes,), non-negative, summing to 1.

    Raises
    ------
    DataError
        Bad seeds (empty, negative, all zero, index out of range) or parameters (damping outside (0, 1),
        tol <= 0, max_iter < 1, unknown method).

    Notes
    -----
    Equals ``networkx.pagerank(G, alpha=damping, personalization=s, dangling=s)`` and igraph's
    ``personalized_pagerank(damping=damping, reset=s)`` (see the module notes).

    Examples
    --------
    >>> g = CSRGraph.from_edges(["a", "b", "c", "d"], [0, 1, 2], [1, 2, 3])
    >>> res = personalized_pagerank(g, {0: 1.0})
    >>> res.top(2).tolist(), round(float(res.scores.sum()), 4)
    ([0, 1], 1.0)
    """
    _check_params(damping, tol, max_iter, method)
    s = personalization_vector(graph, seeds)
    x, steps, conv, res = _solve(graph, s, damping, tol, int(max_iter), method, n_threads)
    if not conv[0]:
        logger.warning("PPR did not converge in %d steps (residual %.2e > tol %.1e); raise max_iter.",
                       steps, res[0], tol)
    return PPRResult(x, steps, bool(conv[0]), float(res[0]))


def personalized_pagerank_many(graph: CSRGraph, seeds: np.ndarray | Sequence[Seeds], *, damping: float = 0.5,
                               tol: float = 1e-6, max_iter: int = 100, method: Method = "cg",
                               n_threads: int | None = None) -> PPRBatchResult:
    """Personalized PageRank for several seed sets at once (one sparse matrix-matrix product per step).

    Reading the matrix once per step for all seed sets makes this several times cheaper per seed set
    than calling :func:`personalized_pagerank` in a loop (useful for benchmarks and agents exploring
    several hypotheses).

    Parameters
    ----------
    seeds : ndarray of shape (n_seed_sets, n_nodes), or sequence of seeds as in
        :func:`personalized_pagerank` (mappings or dense vectors).
    damping, tol, max_iter, method, n_threads
        As in :func:`personalized_pagerank`; the batch steps until every seed set has converged.

    Returns
    -------
    PPRBatchResult
        ``scores`` float32 of shape (n_seed_sets, n_nodes); ``result[i]`` is a :class:`PPRResult`.

    Raises
    ------
    DataError
        As in :func:`personalized_pagerank`, naming the offending seed set; or no seed sets.
    """
    _check_params(damping, tol, max_iter, method)
    if isinstance(seeds, np.ndarray) and seeds.ndim == 2:
        rows: Sequence[Seeds] = list(seeds)
    else:
        rows = list(seeds)
    if not rows:
        raise DataError("no seed sets given: pass a list of seed mappings or a (k, n_nodes) array.")
    S = np.empty((graph.n_nodes, len(rows)), dtype=np.float64)
    for j, row in enumerate(rows):
        try:
            S[:, j] = personalization_vector(graph, row)
        except DataError as exc:
            raise DataError(f"seed set {j}: {exc}") from exc
    x, steps, conv, res = _solve(graph, S, damping, tol, int(max_iter), method, n_threads)
    if not conv.all():
        logger.warning("PPR did not converge in %d steps for %d of %d seed sets; raise max_iter.",
                       steps, int((~conv).sum()), conv.size)
    return PPRBatchResult(np.ascontiguousarray(x.T), steps, conv, res)
