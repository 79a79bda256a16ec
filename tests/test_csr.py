"""Tests of the float32 CSR graph (engram_kit.store.csr)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engram_kit.errors import DataError
from engram_kit.store.csr import CSRGraph

HETIONET_IDS = ["Gene::7157", "Gene::672", "Disease::DOID:1612", "Compound::DB00331", "Anatomy::UBERON:0002107"]


def small_graph() -> CSRGraph:
    # TP53 - BRCA1, BRCA1 - breast cancer, TP53 - breast cancer, metformin - TP53 (twice: weights sum)
    return CSRGraph.from_id_edges(
        HETIONET_IDS,
        ["Gene::7157", "Gene::672", "Gene::7157", "Compound::DB00331", "Gene::7157"],
        ["Gene::672", "Disease::DOID:1612", "Disease::DOID:1612", "Gene::7157", "Compound::DB00331"],
        [1.0, 2.0, 1.0, 0.5, 0.25],
    )


def test_symmetric_float32_and_degree() -> None:
    g = small_graph()
    a = g.adjacency
    assert a.dtype == np.float32 and a.indices.dtype == np.int32
    assert (a != a.T).nnz == 0
    assert g.n_nodes == 5 and g.n_edges == 4          # metformin-TP53 given twice -> one edge of weight 0.75
    i, j = g.index["Gene::7157"], g.index["Compound::DB00331"]
    assert a[i, j] == pytest.approx(0.75)
    np.testing.assert_allclose(g.degree, np.asarray(a.sum(axis=1)).ravel())
    assert g.degree[g.index["Anatomy::UBERON:0002107"]] == 0.0


def test_transition_is_column_stochastic_except_dangling() -> None:
    g = small_graph()
    col = np.asarray(g.transition.sum(axis=0)).ravel()
    expected = (g.degree > 0).astype(float)
    np.testing.assert_allclose(col, expected, atol=1e-6)
    assert np.shares_memory(g.transition.indices, g.adjacency.indices)  # shared pattern, only data differs


def test_self_loops_dropped_duplicates_summed_direction_ignored() -> None:
    g = CSRGraph.from_edges(["a", "b", "c"], [0, 1, 1, 2], [1, 0, 1, 2], [1.0, 2.0, 5.0, 1.0])
    assert g.n_edges == 1
    assert g.adjacency[0, 1] == pytest.approx(3.0)
    assert g.adjacency.diagonal().sum() == 0.0


@pytest.mark.parametrize(
    ("sources", "targets", "weights", "match"),
    [
        ([0, 5], [1, 1], None, "outside"),
        ([0, -1], [1, 1], None, "outside"),
        ([0, 1], [1], None, "same length"),
        ([0, 1], [1, 2], [1.0, -1.0], ">= 0"),
        ([0, 1], [1, 2], [1.0, np.nan], ">= 0"),
        ([0, 1], [1, 2], [1.0], "one weight per edge"),
    ],
)
def test_from_edges_errors(sources, targets, weights, match) -> None:
    with pytest.raises(DataError, match=match):
        CSRGraph.from_edges(["a", "b", "c"], sources, targets, weights)


def test_duplicate_node_ids_rejected() -> None:
    with pytest.raises(DataError, match="duplicate"):
        CSRGraph.from_edges(["a", "b", "a"], [0], [1])


def test_unknown_ids_named() -> None:
    with pytest.raises(DataError, match="Gene::999999"):
        CSRGraph.from_id_edges(HETIONET_IDS, ["Gene::7157", "Gene::999999"], ["Gene::672", "Gene::672"])


def test_save_load_roundtrip(tmp_path: Path) -> None:
    g = small_graph()
    path = g.save(tmp_path / "kg")
    assert path.suffix == ".npz"
    h = CSRGraph.load(path)
    assert h.node_ids.tolist() == g.node_ids.tolist()
    assert (h.adjacency != g.adjacency).nnz == 0
    np.testing.assert_array_equal(h.transition.data, g.transition.data)
    np.testing.assert_array_equal(h.degree, g.degree)
    assert h.index == g.index
    assert h.nbytes == g.nbytes


def test_load_bad_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="Cannot read"):
        CSRGraph.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(DataError, match="format version"):
        CSRGraph.load(tmp_path / "other.npz")


def test_with_extra_equals_build_from_scratch() -> None:
    rng = np.random.default_rng(0)
    kg_ids = [f"Gene::{i}" for i in range(40)]
    kg_s, kg_t = rng.integers(0, 40, 120), rng.integers(0, 40, 120)
    kg = CSRGraph.from_edges(kg_ids, kg_s, kg_t)
    lit_ids = [f"Passage::p{i}" for i in range(5)] + [f"NounPhrase::np{i}" for i in range(6)]
    all_ids = kg_ids + lit_ids
    src = [lit_ids[i % 5] for i in range(12)] + ["NounPhrase::np0", "NounPhrase::np1", "Gene::3"]
    dst = [lit_ids[5 + i % 6] for i in range(12)] + ["Gene::1", "Gene::2", "Gene::4"]
    w = rng.random(len(src)) + 0.1
    grown = kg.with_extra(lit_ids, src, dst, w)
    scratch = CSRGraph.from_id_edges(all_ids, [kg_ids[i] for i in kg_s] + src, [kg_ids[i] for i in kg_t] + dst,
                                     np.concatenate([np.ones(120), w]))
    assert grown.node_ids.tolist() == scratch.node_ids.tolist()
    assert abs(grown.adjacency - scratch.adjacency).max() < 1e-6
    np.testing.assert_allclose(grown.degree, scratch.degree, rtol=1e-6)
    np.testing.assert_allclose(grown.transition.toarray(), scratch.transition.toarray(), atol=1e-6)
    assert grown.index["NounPhrase::np5"] == 50
    assert kg.n_nodes == 40                               # the original is untouched


def test_with_extra_errors() -> None:
    g = small_graph()
    with pytest.raises(DataError, match="already exist"):
        g.with_extra(["Gene::7157"], [], [])
    with pytest.raises(DataError, match="Passage::nope"):
        g.with_extra(["Passage::p1"], ["Passage::p1"], ["Passage::nope"])


def test_transition_blocks_cover_all_rows() -> None:
    g = small_graph()
    x = np.arange(5, dtype=np.float32)
    for k in (1, 2, 3):
        blocks = g.transition_blocks(k)
        y = np.concatenate([m @ x for _, _, m in blocks])
        np.testing.assert_allclose(y, g.transition @ x, rtol=1e-6)


def test_load_roundtrip_at_moderate_size(tmp_path: Path) -> None:
    # Load time (< 0.5 s at full Hetionet size) is measured in benchmarks/ppr.py, not asserted here.
    rng = np.random.default_rng(1)
    n, m = 20_000, 400_000
    g = CSRGraph.from_edges([f"Gene::{i}" for i in range(n)], rng.integers(0, n, m), rng.integers(0, n, m))
    path = g.save(tmp_path / "big.npz")
    h = CSRGraph.load(path)
    assert (h.adjacency != g.adjacency).nnz == 0
    assert h.n_edges == g.n_edges
