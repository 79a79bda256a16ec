"""In-memory float32 CSR adjacency of the whole graph, the operand of Personalized PageRank.

The property-graph store (:mod:`engram_kit.store.base`) is the system of record; retrieval needs the
same graph as a sparse matrix it can multiply by a vector a few dozen times per question. This module
holds that matrix, its random-walk transition operator, and a fast ``.npz`` cache of both, so the
knowledge-graph part (Hetionet, ~47k nodes and ~2.25M edges) is built from strings once and reopened
in well under a second afterwards; the literature layer (Passage, NounPhrase) is appended with
:meth:`CSRGraph.with_extra` without rebuilding the rest.

Conventions
-----------
* The graph is **undirected and weighted**: every edge ``(u, v, w)`` is stored as ``A[u, v] = A[v, u] = w``;
  duplicate edges sum their weights (two Hetionet metaedges between the same pair count twice);
  self-loops are dropped; zero-weight edges are dropped.
* ``degree[i] = sum_j A[i, j]`` (weighted degree, float64).
* The transition operator is ``T = A D^{-1}`` (column-stochastic for columns with non-zero degree): one
  random-walk step from a distribution ``x`` is the single SpMV ``T @ x``. Because ``A`` is symmetric,
  ``T`` is ``P^T`` for the row-stochastic ``P = D^{-1} A``, has exactly the same sparsity pattern as ``A``,
  and shares its ``indices``/``indptr`` arrays; only its ``data`` (float32) is stored separately.
  Columns of degree-0 ("dangling") nodes are all zero; :mod:`engram_kit.retrieval.ppr` returns their
  mass to the personalization vector.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from engram_kit.errors import DataError

logger = logging.getLogger(__name__)

#: Version of the ``.npz`` layout written by :meth:`CSRGraph.save`.
CSR_FORMAT_VERSION = 1

ArrayLike = Sequence[Any] | np.ndarray


def _as_id_array(node_ids: ArrayLike) -> np.ndarray:
    """Node ids as a 1-D numpy unicode array (``dtype <U...``); no pickling needed to save it."""
    ids = np.asarray(node_ids)
    if ids.ndim != 1:
        raise DataError(f"node_ids must be one-dimensional, got shape {ids.shape}; pass a flat list of ids.")
    if ids.size and ids.dtype.kind not in "U":
        if ids.dtype.kind == "O" and all(isinstance(v, str) for v in ids.tolist()):
            ids = ids.astype(str)
        elif ids.dtype.kind == "S":
            ids = ids.astype(str)
        else:
            raise DataError(f"node_ids must be strings (e.g. 'Gene::7157'), got dtype {ids.dtype}.")
    if ids.size == 0:
        ids = ids.astype("<U1")
    return ids


def _check_unique(ids: np.ndarray) -> None:
    uniq, counts = np.unique(ids, return_counts=True)
    if uniq.size != ids.size:
        dup = uniq[counts > 1][:5].tolist()
        raise DataError(f"node_ids contain {ids.size - uniq.size} duplicate id(s), e.g. {dup}; "
                        "each node must appear once (deduplicate the node table first).")


def _as_index_array(values: ArrayLike, name: str, n_nodes: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise DataError(f"{name} must be a 1-D array of node indices, got shape {arr.shape}.")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.floor(arr) == arr):
            arr = arr.astype(np.int64)
        else:
            raise DataError(f"{name} must hold integer node indices, got dtype {arr.dtype}; "
                            "use from_id_edges to pass string ids.")
    arr = arr.astype(np.int64, copy=False)
    bad = (arr < 0) | (arr >= n_nodes)
    if bad.any():
        examples = arr[bad][:5].tolist()
        raise DataError(f"{name} has {int(bad.sum())} index(es) outside [0, {n_nodes}) such as {examples}; "
                        f"indices must refer to the {n_nodes} node_ids.")
    return arr


def _as_weight_array(weights: ArrayLike | None, n_edges: int) -> np.ndarray:
    if weights is None:
        return np.ones(n_edges, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n_edges,):
        raise DataError(f"weights has shape {w.shape} but there are {n_edges} edges; pass one weight per edge.")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise DataError("weights must be finite and >= 0 (found NaN, inf or a negative value); "
                        "clip or drop those edges.")
    return w


def _symmetric_csr(n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
    """Symmetric float32 CSR of the undirected edges; duplicates summed, self-loops and zeros dropped."""
    keep = (src != dst) & (w > 0)
    src, dst, w = src[keep], dst[keep], w[keep]
    rows = np.concatenate([src, dst])
    cols = np.concatenate([dst, src])
    vals = np.concatenate([w, w])
    # Sum duplicates in float64, then store float32.
    mat = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    mat.sum_duplicates()
    mat.sort_indices()
    return _finish_csr(mat)


def _finish_csr(mat: sp.csr_matrix) -> sp.csr_matrix:
    out = sp.csr_matrix(
        (mat.data.astype(np.float32), mat.indices.astype(np.int32), mat.indptr.astype(np.int32)),
        shape=mat.shape,
    )
    out.has_sorted_indices = True
    return out


class CSRGraph:
    """Undirected weighted graph as a symmetric float32 CSR matrix plus its PPR transition operator.

    Build with :meth:`from_edges` (integer indices), :meth:`from_id_edges` (string ids) or
    :meth:`load`; extend with :meth:`with_extra`. Instances are treated as immutable.

    Attributes
    ----------
    node_ids : ndarray of shape (n_nodes,), dtype str (``<U..``)
        Node ids in index order, e.g. ``"Gene::7157"``.
    adjacency : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes), float32
        Symmetric weighted adjacency ``A`` (int32 ``indices``/``indptr``, sorted indices).
    transition : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes), float32
        ``T = A D^{-1}``: ``T[i, j] = A[i, j] / degree[j]``. One random-walk step is ``T @ x``.
        Shares ``indices`` and ``indptr`` with :attr:`adjacency`.
    degree : ndarray of shape (n_nodes,), float64
        Weighted degree ``sum_j A[i, j]``; 0 for isolated ("dangling") nodes.

    Notes
    -----
    Memory is ``nnz * (4 + 4 + 4) + (n_nodes + 1) * 4 + n_nodes * 8`` bytes plus the id strings
    (see :attr:`nbytes`), ``nnz = 2 * n_edges``.

    Examples
    --------
    >>> g = CSRGraph.from_id_edges(["a", "b", "c"], ["a", "b"], ["b", "c"])
    >>> g.n_nodes, g.n_edges, g.degree.tolist()
    (3, 2, [1.0, 2.0, 1.0])
    """

    __slots__ = ("node_ids", "adjacency", "transition", "degree", "_index", "_blocks")

    def __init__(self, node_ids: np.ndarray, adjacency: sp.csr_matrix,
                 transition_data: np.ndarray | None = None, degree: np.ndarray | None = None) -> None:
        n = len(node_ids)
        if adjacency.shape != (n, n):
            raise DataError(f"adjacency has shape {adjacency.shape} but there are {n} node ids.")
        self.node_ids = node_ids
        self.adjacency = adjacency
        if degree is None:
            degree = np.asarray(adjacency.sum(axis=1, dtype=np.float64)).ravel()
        self.degree = degree
        if transition_data is None:
            inv = np.zeros(n, dtype=np.float64)
            np.divide(1.0, degree, out=inv, where=degree > 0)
            transition_data = (adjacency.data * inv[adjacency.indices]).astype(np.float32)
        transition = sp.csr_matrix((transition_data, adjacency.indices, adjacency.indptr), shape=(n, n), copy=False)
        transition.has_sorted_indices = True
        self.transition = transition
        self._index: dict[str, int] | None = None
        self._blocks: dict[int, list[tuple[int, int, sp.csr_matrix]]] = {}

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_edges(cls, node_ids: ArrayLike, sources: ArrayLike, targets: ArrayLike,
                   weights: ArrayLike | None = None) -> CSRGraph:
        """Build from integer edge endpoints.

        Parameters
        ----------
        node_ids : sequence of str, length n_nodes
            Unique node ids; position ``i`` is node index ``i``.
        sources, targets : array of int, shape (n_edges,)
            Endpoint indices in ``[0, n_nodes)``. Direction is ignored (the graph is symmetrised).
        weights : array of float, shape (n_edges,), optional
            Non-negative finite edge weights; default 1. Duplicate edges (in either direction) sum.

        Returns
        -------
        CSRGraph

        Raises
        ------
        DataError
            Duplicate node ids, an index out of range, mismatched lengths, or a negative/NaN weight.
        """
        ids = _as_id_array(node_ids)
        _check_unique(ids)
        n = ids.size
        src = _as_index_array(sources, "sources", n)
        dst = _as_index_array(targets, "targets", n)
        if src.shape != dst.shape:
            raise DataError(f"sources ({src.size}) and targets ({dst.size}) must have the same length.")
        w = _as_weight_array(weights, src.size)
        return cls(ids, _symmetric_csr(n, src, dst, w))

    @classmethod
    def from_id_edges(cls, node_ids: ArrayLike, source_ids: ArrayLike, target_ids: ArrayLike,
                      weights: ArrayLike | None = None) -> CSRGraph:
        """Build from string edge endpoints (``"Gene::7157"``).

        Parameters are as in :meth:`from_edges`, with ``source_ids`` / ``target_ids`` of shape
        (n_edges,) holding node ids instead of indices.

        Raises
        ------
        DataError
            An endpoint id is not among ``node_ids`` (the message names a few), or as in :meth:`from_edges`.
        """
        ids = _as_id_array(node_ids)
        _check_unique(ids)
        src = _ids_to_indices(ids, source_ids, "source_ids")
        dst = _ids_to_indices(ids, target_ids, "target_ids")
        if src.shape != dst.shape:
            raise DataError(f"source_ids ({src.size}) and target_ids ({dst.size}) must have the same length.")
        w = _as_weight_array(weights, src.size)
        return cls(ids, _symmetric_csr(ids.size, src, dst, w))

    def with_extra(self, extra_node_ids: ArrayLike, source_ids: ArrayLike, target_ids: ArrayLike,
                   weights: ArrayLike | None = None) -> CSRGraph:
        """New graph with nodes appended after the existing ones and edges added.

        Used to put the literature layer (Passage, NounPhrase, their MENTIONS / MAPS_TO edges) on top of
        the cached knowledge-graph part: existing node indices are unchanged, the existing CSR is reused
        (no string work on its edges), and edges may join old and new nodes in any combination.

        Parameters
        ----------
        extra_node_ids : sequence of str, length m
            New node ids; must not collide with existing ones or each other.
        source_ids, target_ids : sequence of str, shape (n_extra_edges,)
            Endpoints, each an existing or a new id.
        weights : array of float, shape (n_extra_edges,), optional
            As in :meth:`from_edges`. An extra edge between a pair that already has one adds its weight.

        Returns
        -------
        CSRGraph
            A graph of ``n_nodes + m`` nodes; ``self`` is unchanged. Equal to building from scratch.

        Raises
        ------
        DataError
            Colliding ids, unknown endpoint ids, or bad weights.
        """
        extra = _as_id_array(extra_node_ids)
        ids = np.concatenate([self.node_ids, extra]) if extra.size else self.node_ids
        if extra.size:
            _check_unique(extra)
            clash = [v for v in extra.tolist() if v in self.index]
            if clash:
                raise DataError(f"{len(clash)} extra node id(s) already exist in the graph, e.g. {clash[:5]}; "
                                "pass only new nodes in extra_node_ids.")
        n = ids.size
        index = dict(self.index)
        index.update((v, self.n_nodes + i) for i, v in enumerate(extra.tolist()))
        src = _ids_to_indices(ids, source_ids, "source_ids", index)
        dst = _ids_to_indices(ids, target_ids, "target_ids", index)
        if src.shape != dst.shape:
            raise DataError(f"source_ids ({src.size}) and target_ids ({dst.size}) must have the same length.")
        w = _as_weight_array(weights, src.size)
        old = self.adjacency
        grown = sp.csr_matrix((old.data, old.indices,
                               np.concatenate([old.indptr, np.full(n - self.n_nodes, old.indptr[-1], np.int32)])),
                              shape=(n, n))
        added = _symmetric_csr(n, src, dst, w)
        if added.nnz:
            # Sum in float64 so that repeated extensions do not drift from a from-scratch build.
            merged = (grown.astype(np.float64) + added.astype(np.float64)).tocsr()
            merged.sort_indices()
            adjacency = _finish_csr(merged)
        else:
            adjacency = _finish_csr(grown)
        graph = CSRGraph(ids, adjacency)
        graph._index = index
        return graph

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | PathLike[str]) -> Path:
        """Write to an uncompressed ``.npz`` (no pickles) that :meth:`load` reopens in milliseconds.

        Returns
        -------
        pathlib.Path
            The file written (``.npz`` appended if missing).
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(path.suffix + ".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, format_version=np.int64(CSR_FORMAT_VERSION), node_ids=self.node_ids,
                 indptr=self.adjacency.indptr, indices=self.adjacency.indices, data=self.adjacency.data,
                 transition_data=self.transition.data, degree=self.degree)
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: str | PathLike[str]) -> CSRGraph:
        """Reopen a graph written by :meth:`save`.

        Raises
        ------
        DataError
            The file is missing, not a CSRGraph ``.npz``, or of another format version.
        """
        path = Path(path)
        start = time.perf_counter()
        try:
            with np.load(path, allow_pickle=False) as f:
                version = int(f["format_version"]) if "format_version" in f.files else -1
                if version != CSR_FORMAT_VERSION:
                    raise DataError(f"{path} has CSR format version {version}, expected {CSR_FORMAT_VERSION}; "
                                    "rebuild the graph cache.")
                arrays = {k: f[k] for k in ("node_ids", "indptr", "indices", "data", "transition_data", "degree")}
        except (OSError, ValueError, KeyError) as exc:
            raise DataError(f"Cannot read CSR graph from {path}: {exc}. Rebuild it with CSRGraph.save.") from exc
        n = arrays["node_ids"].size
        if arrays["indptr"].size != n + 1 or arrays["indices"].size != arrays["data"].size:
            raise DataError(f"{path} is inconsistent (indptr/indices/data sizes); rebuild the graph cache.")
        adjacency = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=(n, n), copy=False)
        adjacency.has_sorted_indices = True
        graph = cls(arrays["node_ids"], adjacency, arrays["transition_data"], arrays["degree"])
        logger.debug("Loaded CSR graph %s (%d nodes, %d edges) in %.3f s", path, n, graph.n_edges,
                     time.perf_counter() - start)
        return graph

    # ------------------------------------------------------------------ properties
    @property
    def index(self) -> dict[str, int]:
        """Node id -> index (built on first use, ~10 ms per 50k nodes)."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.node_ids.tolist())}
        return self._index

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return int(self.node_ids.size)

    @property
    def n_edges(self) -> int:
        """Number of distinct undirected edges (node pairs) after merging duplicates; ``nnz / 2``."""
        return int(self.adjacency.nnz // 2)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (adjacency, transition data, degree, ids)."""
        a = self.adjacency
        return int(a.data.nbytes + a.indices.nbytes + a.indptr.nbytes + self.transition.data.nbytes
                   + self.degree.nbytes + self.node_ids.nbytes)

    def transition_blocks(self, n_blocks: int) -> list[tuple[int, int, sp.csr_matrix]]:
        """Split :attr:`transition` into ``n_blocks`` row blocks of about equal ``nnz`` (cached).

        Returns a list of ``(row_start, row_stop, block)``; each block is a CSR view sharing
        ``data``/``indices`` with :attr:`transition` (only its ``indptr`` is copied), so that several
        threads can each compute one slice of ``T @ x`` (SciPy releases the GIL inside the product).
        """
        n_blocks = max(1, min(int(n_blocks), max(self.n_nodes, 1)))
        if n_blocks not in self._blocks:
            t = self.transition
            cuts = np.searchsorted(t.indptr, np.linspace(0, t.nnz, n_blocks + 1)[1:-1]).tolist()
            bounds = [0, *cuts, self.n_nodes]
            blocks = []
            for r0, r1 in zip(bounds[:-1], bounds[1:]):
                p0, p1 = int(t.indptr[r0]), int(t.indptr[r1])
                blk = sp.csr_matrix((t.data[p0:p1], t.indices[p0:p1], t.indptr[r0:r1 + 1] - p0),
                                    shape=(r1 - r0, self.n_nodes), copy=False)
                blk.has_sorted_indices = True
                blocks.append((r0, r1, blk))
            self._blocks[n_blocks] = blocks
        return self._blocks[n_blocks]

    def indices_of(self, ids: ArrayLike) -> np.ndarray:
        """Indices (int64, same shape) of the given node ids; DataError naming unknown ones."""
        return _ids_to_indices(self.node_ids, ids, "ids", self.index)

    def __repr__(self) -> str:
        return (f"CSRGraph(n_nodes={self.n_nodes}, n_edges={self.n_edges}, "
                f"nbytes={self.nbytes / 2**20:.1f} MiB)")


def _ids_to_indices(ids: np.ndarray, values: ArrayLike, name: str,
                    index: dict[str, int] | None = None) -> np.ndarray:
    """Map string ids to indices; DataError naming up to five unknown ids."""
    vals = np.asarray(values)
    if vals.ndim != 1:
        raise DataError(f"{name} must be a 1-D sequence of node ids, got shape {vals.shape}.")
    if vals.size == 0:
        return np.zeros(0, dtype=np.int64)
    if index is None:
        # Vectorised path for big edge lists: sort once, binary-search.
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        vals_u = vals.astype(str)
        pos = np.searchsorted(sorted_ids, vals_u)
        pos_clipped = np.minimum(pos, sorted_ids.size - 1) if sorted_ids.size else pos
        found = (sorted_ids.size > 0) & (sorted_ids[pos_clipped] == vals_u) if sorted_ids.size else np.zeros(
            vals.size, dtype=bool)
        if not np.all(found):
            unknown = list(dict.fromkeys(vals_u[~found].tolist()))
            raise DataError(f"{name} has {int((~found).sum())} endpoint(s) not among node_ids, e.g. {unknown[:5]}; "
                            "add those nodes or drop the edges.")
        return order[pos_clipped].astype(np.int64)
    out = np.fromiter((index.get(v, -1) for v in vals.tolist()), dtype=np.int64, count=vals.size)
    if (out < 0).any():
        unknown = list(dict.fromkeys(vals[out < 0].tolist()))
        raise DataError(f"{name} has {int((out < 0).sum())} endpoint(s) not in the graph, e.g. {unknown[:5]}; "
                        "add those nodes or drop the edges.")
    return out
