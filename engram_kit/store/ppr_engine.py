"""Where Personalized PageRank runs, as the store layer sees it: the engine protocol, its result type and the
normalised restart vector both engines build.

:class:`PPREngine` is implemented by the embedded solver (:class:`engram_kit.retrieval.retriever.CSRPPREngine`
over :func:`engram_kit.retrieval.ppr.personalized_pagerank`) and by Neo4j's server engine
(:class:`engram_kit.store.gds.GDSPPREngine`). These pieces sit in :mod:`engram_kit.store` (below retrieval in
the import layers, docs/architecture.md) so a backend can name its own engine without importing retrieval;
:mod:`engram_kit.retrieval.ppr` re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from engram_kit.errors import DataError
from engram_kit.store.csr import CSRGraph

if TYPE_CHECKING:
    from engram_kit.retrieval.graph_index import GraphIndex
    from engram_kit.settings import Settings

#: Seeds of one run: ``{node index: weight >= 0}`` or a dense weight vector of shape (n_nodes,).
Seeds = Mapping[int, float] | np.ndarray


@dataclass(frozen=True)
class PPRResult:
    """Scores of one Personalized PageRank run.

    Attributes
    ----------
    scores : ndarray of shape (n_nodes,), float32
        Stationary probabilities; non-negative, sum to 1 (up to float32 rounding, ~1e-6).
    iterations : int
        Sparse matrix-vector products performed (one per step).
    converged : bool
        True if the L1 fixed-point residual fell below ``tol`` within ``max_iter`` steps.
    residual : float
        Final L1 fixed-point residual ``||F(x) - x||_1`` (see the module notes).
    """

    scores: np.ndarray
    iterations: int
    converged: bool
    residual: float

    def top(self, k: int = 10) -> np.ndarray:
        """Indices (int64) of the ``k`` highest-scoring nodes, best first; ties broken by lower index."""
        return _top_indices(self.scores, k)


def _top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    k = max(0, min(int(k), scores.size))
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    order = np.lexsort((part, -scores[part]))
    return part[order].astype(np.int64)


def personalization_vector(graph: CSRGraph, seeds: Seeds) -> np.ndarray:
    """Normalised personalization vector ``s`` of shape (n_nodes,), float64, sum 1.

    Parameters
    ----------
    graph : CSRGraph
    seeds : Mapping[int, float] or ndarray of shape (n_nodes,)
        Node index -> non-negative weight (e.g. entity-linking confidence), or a dense weight vector.

    Raises
    ------
    DataError
        Empty seeds, an index out of range, a negative/NaN weight, all weights zero, or a dense vector of
        the wrong shape.
    """
    n = graph.n_nodes
    if isinstance(seeds, Mapping):
        if not seeds:
            raise DataError("seeds is empty: pass at least one seed node, e.g. {graph.index['Gene::7157']: 1.0}.")
        try:
            idx = np.fromiter((int(k) for k in seeds.keys()), dtype=np.int64, count=len(seeds))
            w = np.fromiter((float(v) for v in seeds.values()), dtype=np.float64, count=len(seeds))
        except (TypeError, ValueError) as exc:
            raise DataError(f"seeds must map integer node indices to numbers ({exc}); use "
                            "personalization_from_ids to map string ids.") from exc
        bad = (idx < 0) | (idx >= n)
        if bad.any():
            raise DataError(f"seed indices {idx[bad][:5].tolist()} are outside [0, {n}); use graph.index to map "
                            "node ids to indices.")
        vec = np.zeros(n, dtype=np.float64)
        np.add.at(vec, idx, w)
        check = w
    else:
        vec = np.asarray(seeds, dtype=np.float64)
        if vec.shape != (n,):
            raise DataError(f"a dense seed vector must have shape ({n},), got {vec.shape}; or pass a "
                            "{{index: weight}} mapping.")
        vec = vec.copy()
        check = vec
    if not np.all(np.isfinite(check)) or (check < 0).any():
        raise DataError("seed weights must be finite and >= 0 (found NaN, inf or a negative weight); "
                        "use confidences in [0, 1].")
    total = float(vec.sum())
    if total <= 0.0:
        raise DataError("all seed weights are zero: give at least one seed a positive weight.")
    vec /= total
    return vec


class PPREngine(Protocol):
    """Where Personalized PageRank runs: the local CSR solver (default) or a server (Neo4j GDS).

    ``run`` returns scores for every node of ``index.graph`` (ndarray of shape (n_nodes,), float32, sum 1),
    for seeds ``{graph index: weight >= 0}``, with ``damping``/``ppr_tol``/``ppr_max_iter`` from ``settings``.
    See :class:`engram_kit.store.gds.GDSPPREngine` for the server implementation.
    """

    def run(self, index: GraphIndex, seeds: Mapping[int, float], settings: Settings) -> PPRResult: ...
