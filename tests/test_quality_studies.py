"""Smoke tests of the quality harness (issue 7): the quick modes of the retrieval, ppr and repurposing studies.

They run on bundled data only (``data/`` and ``benchmarks/quality/data/``; no ``../shared``) and check that
each study runs end to end and that its numbers are in a sane range -- not that they meet the issue's
targets (those are for the full runs in ``benchmarks/results/``). The quick retrieval workspace is built
once under ``benchmarks/.cache/`` and reused by the next run; reports go to a temporary folder.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.quality import STUDIES
from benchmarks.quality.common import StudyOptions

pytest.importorskip("bm25s")
pytest.importorskip("ir_measures")
pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> StudyOptions:
    # shared_data points at an empty folder: a quick study that reached for ../shared would fail here.
    empty = tmp_path_factory.mktemp("no-shared-data")
    return StudyOptions(quick=True, shared_data=empty, results_dir=tmp_path_factory.mktemp("results"))


def _in_unit(value: float) -> bool:
    return isinstance(value, float) and not math.isnan(value) and 0.0 <= value <= 1.0


def test_studies_are_registered() -> None:
    for name in ("retrieval", "ppr", "repurposing"):
        assert STUDIES[name].implemented, name


@pytest.mark.slow  # e2e: builds the BioASQ quick study index: 269 s on a loaded 2-core machine (issue 15)
def test_retrieval_quick(options: StudyOptions) -> None:
    result = STUDIES["retrieval"].load()(options)
    s = result.summary
    assert result.report.is_file() and all(f.is_file() for f in result.figures)
    assert s["questions"] == 33 and s["passages"] >= 33
    for key in ("bm25_r5", "dense_r5", "ppr_only_r5", "blend_r5", "blend_mrr", "seeds_only_r5", "seeds_1hop_r5"):
        assert _in_unit(s[key]), key
    # a small corpus of near-paraphrased titles: the text baselines must find most gold abstracts
    assert s["bm25_r5"] >= 0.8 and s["dense_r5"] >= 0.8 and s["blend_r5"] >= 0.8
    assert s["ppr_only_r5"] >= 0.3          # the graph signal alone is far above chance (5 / ~90)
    assert s["product_r1"] >= s["dense_r1"] - 0.05  # the product's ranking is not behind plain cosine
    assert s["identical_top10"] == 1.0      # Retriever.retrieve is repeatable: the timed run equals the batch run
    assert "## Latency" in result.report.read_text()


@pytest.mark.slow  # e2e: builds the quick study's workspace when it runs first: 245 s on a loaded 2-core machine (issue 15)
def test_ppr_diagnostics_quick(options: StudyOptions) -> None:
    result = STUDIES["ppr"].load()(options)
    s = result.summary
    assert s["questions_seeded"] >= 10
    assert _in_unit(s["plain_top1_share_kg"]) and s["plain_top1_share_kg"] > 0.1
    assert _in_unit(s["plain_hub_in_top20"]) and _in_unit(s["degnorm1_hub_in_top20"])
    # dividing by degree must not leave more hubs in the top 20 than plain PPR
    assert s["degnorm1_hub_in_top20"] <= s["plain_hub_in_top20"]


@pytest.mark.slow  # e2e: a quick repurposing study on the sample graph: 61 s on a loaded 2-core machine (issue 15)
def test_repurposing_quick(options: StudyOptions) -> None:
    result = STUDIES["repurposing"].load()(options)
    s = result.summary
    for key in ("ppr_auroc", "ppr_auprc", "permuted_auroc", "degree_prior_auroc", "random_auroc"):
        assert _in_unit(s[key]), key
    assert 0.35 <= s["random_auroc"] <= 0.65
    assert s["ppr_auroc"] > 0.6 and s["degree_prior_auroc"] > 0.55


def test_permutation_preserves_degrees() -> None:
    from benchmarks.quality.repurposing import permute_metaedge

    rng = np.random.default_rng(0)
    src = rng.integers(0, 30, size=200)
    dst = rng.integers(30, 60, size=200)
    pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
    src, dst = pairs[:, 0], pairs[:, 1]
    ps, pd_, share = permute_metaedge(src, dst, np.random.default_rng(1), undirected_same_kind=False, n_nodes=60)
    assert np.array_equal(np.bincount(src, minlength=60), np.bincount(ps, minlength=60))
    assert np.array_equal(np.bincount(dst, minlength=60), np.bincount(pd_, minlength=60))
    assert len({(a, b) for a, b in zip(ps, pd_)}) == len(ps)   # no duplicate edges
    assert share > 0.5
    # within one kind (undirected): no self loops, no (a, b) + (b, a) duplicates
    s2, d2 = rng.integers(0, 40, size=150), rng.integers(0, 40, size=150)
    keep = s2 != d2
    pairs = np.unique(np.sort(np.stack([s2[keep], d2[keep]], axis=1), axis=1), axis=0)
    ps, pd_, _ = permute_metaedge(pairs[:, 0], pairs[:, 1], np.random.default_rng(2), undirected_same_kind=True,
                                  n_nodes=40)
    assert not np.any(ps == pd_)
    assert len({(min(a, b), max(a, b)) for a, b in zip(ps, pd_)}) == len(ps)
    assert np.array_equal(np.bincount(pairs.ravel(), minlength=40), np.bincount(np.concatenate([ps, pd_]), minlength=40))


def test_stratified_folds_spread_each_disease() -> None:
    from benchmarks.quality.repurposing import stratified_folds

    diseases = np.repeat(np.arange(4), [10, 5, 3, 1])
    compounds = np.arange(diseases.size)
    folds = stratified_folds(compounds, diseases, 5, seed=0)
    for d, n in enumerate([10, 5, 3, 1]):
        counts = np.bincount(folds[diseases == d], minlength=5)
        assert counts.max() - counts.min() <= 1 and counts.sum() == n
