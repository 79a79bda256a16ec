"""Tests of Personalized PageRank (engram_kit.retrieval.ppr)."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from engram_kit.errors import DataError
from engram_kit.retrieval.ppr import (
    PPRResult,
    personalization_from_ids,
    personalized_pagerank,
    personalized_pagerank_many,
    top_share,
)
from engram_kit.store.csr import CSRGraph

METHODS = ("cg", "power")
SHARED_EDGES = Path(__file__).resolve().parents[2] / "shared" / "data" / "hetionet" / "hetionet-v1.0-edges-partial.tsv.gz"


def random_graph(n: int = 200, m: int = 600, seed: int = 0, isolated: int = 3) -> CSRGraph:
    rng = np.random.default_rng(seed)
    s, t = rng.integers(0, n - isolated, m), rng.integers(0, n - isolated, m)
    return CSRGraph.from_edges([f"N{i}" for i in range(n)], s, t, rng.random(m) + 0.1)


def to_networkx(g: CSRGraph) -> nx.Graph:
    G = nx.Graph()
    G.add_nodes_from(range(g.n_nodes))
    a = g.adjacency.tocoo()
    G.add_weighted_edges_from((int(i), int(j), float(v)) for i, j, v in zip(a.row, a.col, a.data) if i < j)
    return G


def path_graph(n: int) -> CSRGraph:
    return CSRGraph.from_edges([f"P{i}" for i in range(n)], np.arange(n - 1), np.arange(1, n))


@pytest.mark.parametrize("method", METHODS)
def test_scores_are_a_distribution(method: str) -> None:
    g = random_graph()
    res = personalized_pagerank(g, {0: 1.0, 5: 2.0}, method=method)
    assert isinstance(res, PPRResult)
    assert res.scores.dtype == np.float32 and res.scores.shape == (g.n_nodes,)
    assert (res.scores >= 0).all()
    assert res.scores.sum() == pytest.approx(1.0, abs=1e-5)
    assert res.converged and res.residual < 1e-6 and 1 <= res.iterations <= 100


@pytest.mark.parametrize("method", METHODS)
def test_seeds_rank_high(method: str) -> None:
    g = random_graph(seed=3)
    res = personalized_pagerank(g, {17: 1.0}, method=method)
    assert res.top(1)[0] == 17


@pytest.mark.parametrize("method", METHODS)
def test_two_hop_neighbour_beats_far_and_disconnected(method: str) -> None:
    # path 0-1-...-9 plus a disconnected pair 10-11
    g = CSRGraph.from_edges([f"P{i}" for i in range(12)], [*range(9), 10], [*range(1, 10), 11])
    x = personalized_pagerank(g, {0: 1.0}, method=method).scores
    assert x[2] > x[6] > x[9] > 0
    assert x[10] == 0 and x[11] == 0
    # star: centre 0, leaves 1..6; seeding a leaf, another leaf (2 hops) outranks the unrelated node 7
    star = CSRGraph.from_edges([f"S{i}" for i in range(8)], [0] * 6, range(1, 7))
    y = personalized_pagerank(star, {1: 1.0}, method=method).scores
    assert y[2] > y[7] == 0


@pytest.mark.parametrize(("method", "damping"), itertools.product(METHODS, (0.5, 0.85)))
def test_agrees_with_networkx(method: str, damping: float) -> None:
    g = random_graph(seed=1)
    seeds = {3: 1.0, 40: 0.5, g.n_nodes - 1: 0.25}   # the last node is isolated (dangling)
    ref = nx.pagerank(to_networkx(g), alpha=damping, personalization=seeds, dangling=seeds, tol=1e-12,
                      max_iter=10_000)
    ref_vec = np.array([ref[i] for i in range(g.n_nodes)])
    res = personalized_pagerank(g, seeds, damping=damping, method=method, max_iter=500)
    assert np.abs(res.scores - ref_vec).max() < 1e-5


def test_agrees_with_igraph_prpack() -> None:
    ig = pytest.importorskip("igraph")
    g = random_graph(seed=2)
    a = g.adjacency.tocoo()
    keep = a.row < a.col
    G = ig.Graph(n=g.n_nodes, edges=np.column_stack([a.row[keep], a.col[keep]]).tolist(), directed=False)
    reset = np.zeros(g.n_nodes)
    reset[[4, 9, g.n_nodes - 1]] = [1.0, 1.0, 0.5]
    ref = np.array(G.personalized_pagerank(damping=0.5, reset=reset.tolist(), weights=a.data[keep].tolist(),
                                           directed=False, implementation="prpack"))
    res = personalized_pagerank(g, reset)
    assert np.abs(res.scores - ref).max() < 1e-5


@pytest.mark.parametrize("method", METHODS)
def test_dangling_mass_returns_to_seeds(method: str) -> None:
    # 0-1 edge, node 2 isolated. Seeding only the isolated node keeps all mass there.
    g = CSRGraph.from_edges(["a", "b", "c"], [0], [1])
    x = personalized_pagerank(g, {2: 1.0}, method=method).scores
    np.testing.assert_allclose(x, [0, 0, 1], atol=1e-7)
    # Seeding 0 and 2 equally: the walker stuck at 2 restarts at the seeds, as NetworkX dangling=s.
    seeds = {0: 1.0, 2: 1.0}
    G = nx.Graph([(0, 1)])
    G.add_node(2)
    ref = nx.pagerank(G, alpha=0.5, personalization=seeds, dangling=seeds, tol=1e-12)
    y = personalized_pagerank(g, seeds, method=method).scores
    np.testing.assert_allclose(y, [ref[0], ref[1], ref[2]], atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_heavier_edge_gets_more_mass(method: str) -> None:
    # seed 0 joined to 1 (weight 5) and 2 (weight 1)
    g = CSRGraph.from_edges(["s", "heavy", "light"], [0, 0], [1, 2], [5.0, 1.0])
    x = personalized_pagerank(g, {0: 1.0}, method=method).scores
    assert x[1] > 3 * x[2]


@pytest.mark.parametrize("method", METHODS)
def test_batched_equals_single(method: str) -> None:
    g = random_graph(seed=4)
    seed_sets = [{1: 1.0}, {2: 1.0, 50: 3.0}, {g.n_nodes - 1: 1.0, 7: 1.0}]
    batch = personalized_pagerank_many(g, seed_sets, method=method)
    assert batch.scores.shape == (3, g.n_nodes) and len(batch) == 3
    for i, seeds in enumerate(seed_sets):
        single = personalized_pagerank(g, seeds, method=method)
        assert np.abs(batch.scores[i] - single.scores).max() < 1e-6
        assert batch[i].converged
    dense = np.zeros((3, g.n_nodes))
    for i, seeds in enumerate(seed_sets):
        for k, v in seeds.items():
            dense[i, k] = v
    np.testing.assert_allclose(personalized_pagerank_many(g, dense, method=method).scores, batch.scores, atol=1e-7)


def test_threads_do_not_change_results(monkeypatch: pytest.MonkeyPatch) -> None:
    import engram_kit.retrieval.ppr as ppr

    monkeypatch.setattr(ppr, "PARALLEL_MIN_NNZ", 0)
    g = random_graph(n=500, m=3000, seed=5)
    one = personalized_pagerank(g, {0: 1.0}, n_threads=1).scores
    three = personalized_pagerank(g, {0: 1.0}, n_threads=3).scores
    np.testing.assert_array_equal(one, three)
    many = personalized_pagerank_many(g, [{0: 1.0}, {9: 1.0}], n_threads=2).scores
    assert np.abs(many[0] - one).max() < 1e-6


def test_dense_seed_vector_and_ids() -> None:
    g = path_graph(5)
    v = np.zeros(5)
    v[[0, 4]] = [1.0, 3.0]
    a = personalized_pagerank(g, v).scores
    b = personalized_pagerank(g, personalization_from_ids(g, {"P0": 1.0, "P4": 3.0})).scores
    np.testing.assert_allclose(a, b, atol=1e-7)
    assert personalization_from_ids(g, ["P1", "P1"]) == {1: 2.0}
    with pytest.raises(DataError, match="P9"):
        personalization_from_ids(g, ["P9"])


@pytest.mark.parametrize(
    ("seeds", "kwargs", "match"),
    [
        ({}, {}, "empty"),
        ({0: -1.0}, {}, ">= 0"),
        ({0: 0.0, 1: 0.0}, {}, "all seed weights are zero"),
        ({7: 1.0}, {}, "outside"),
        ({-1: 1.0}, {}, "outside"),
        ({0: float("nan")}, {}, ">= 0"),
        (np.ones(3), {}, "shape"),
        ({0: 1.0}, {"damping": 1.0}, "damping"),
        ({0: 1.0}, {"damping": 0.0}, "damping"),
        ({0: 1.0}, {"tol": 0.0}, "tol"),
        ({0: 1.0}, {"max_iter": 0}, "max_iter"),
        ({0: 1.0}, {"method": "arnoldi"}, "method"),
    ],
)
def test_errors(seeds, kwargs, match) -> None:
    with pytest.raises(DataError, match=match):
        personalized_pagerank(path_graph(5), seeds, **kwargs)


def test_batch_errors_name_the_seed_set() -> None:
    with pytest.raises(DataError, match="seed set 1"):
        personalized_pagerank_many(path_graph(5), [{0: 1.0}, {}])
    with pytest.raises(DataError, match="no seed sets"):
        personalized_pagerank_many(path_graph(5), [])


def test_not_converged_is_reported_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    res = personalized_pagerank(random_graph(), {0: 1.0}, max_iter=2, method="power")
    assert not res.converged and res.iterations == 2 and res.residual > 1e-6
    assert res.scores.sum() == pytest.approx(1.0, abs=1e-5)
    assert "did not converge" in caplog.text


def test_top_share() -> None:
    assert top_share(np.full(1000, 1.0)) == pytest.approx(0.01)
    peaked = np.full(1000, 1e-6)
    peaked[:5] = 1.0
    assert top_share(peaked) > 0.99
    assert top_share(np.array([0.0, 1.0])) == 1.0          # at least one node counts
    with pytest.raises(DataError):
        top_share(np.ones(10), fraction=1.5)
    with pytest.raises(DataError):
        top_share(np.zeros(10))


@pytest.mark.shared
@pytest.mark.skipif(not SHARED_EDGES.is_file(), reason="needs ../shared/data (Hetionet edges)")
def test_real_hetionet_slice_matches_networkx() -> None:
    # First 30,000 real edges (AdG, AeG...): a real-shaped, hub-heavy bipartite Anatomy-Gene slice.
    src, dst = [], []
    with gzip.open(SHARED_EDGES, "rt") as fh:
        next(fh)
        for line in itertools.islice(fh, 30_000):
            s, _, t, _ = line.split("\t", 3)
            src.append(s)
            dst.append(t)
    ids = sorted(set(src) | set(dst))
    g = CSRGraph.from_id_edges(ids, src, dst)
    gene = g.index[dst[0]]
    seeds = {gene: 1.0, g.index[src[0]]: 0.5}
    ref = nx.pagerank(to_networkx(g), alpha=0.5, personalization=seeds, dangling=seeds, tol=1e-12)
    ref_vec = np.array([ref[i] for i in range(g.n_nodes)])
    for method in METHODS:
        res = personalized_pagerank(g, seeds, method=method)
        assert np.abs(res.scores - ref_vec).max() < 1e-5
    assert 0.0 < top_share(ref_vec) <= 1.0
