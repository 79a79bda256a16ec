"""The embedder seam (registry, spec in the manifest, window pooling) and crash-consistent ingestion.

The workspace tests use the toy embedder of ``tests/fixtures/toy_embedder.py`` (one module + one
registration line) so they need no model; fault injection stops an ingest at every write boundary of
:data:`engram_kit.ingestion.pipeline.WRITE_BOUNDARIES` and checks that one retry (or ``check --repair``)
leaves graph and vectors in agreement with no duplicates.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engram_kit.embeddings import EMBEDDERS, WINDOW_OVERLAP, EmbedderSpec, embedder_from_manifest, get_embedder
from engram_kit.errors import EngramError, WorkspaceError
from engram_kit.plugins import PluginError

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import toy_embedder  # noqa: E402  - registers "toy-hash"


def test_builtin_backends_are_registered_with_complete_specs():
    assert {"minilm-fp32", "minilm-onnx-int8", "static"} <= set(EMBEDDERS)
    for key in ("minilm-fp32", "minilm-onnx-int8", "static"):
        spec = EMBEDDERS[key].spec
        assert isinstance(spec, EmbedderSpec) and spec.backend == key and spec.dimension > 0
        assert spec.to_manifest()["long_texts"] == ("windows pooled" if spec.max_tokens else "whole")
    assert EMBEDDERS["minilm-fp32"].spec.max_tokens == 256


def test_unknown_embedder_is_refused_with_the_registered_names():
    with pytest.raises(PluginError, match="toy-hash"):
        get_embedder("no-such-model")


def test_short_text_is_one_window_and_long_text_is_covered_whole():
    emb = get_embedder("toy-hash")
    short = "one two three"
    long = " ".join(f"w{i}" for i in range(50))
    spans = emb.windows([short, long])
    assert spans[0] == [(0, len(short))]
    width = emb.spec.max_tokens - 2
    step = width - min(WINDOW_OVERLAP, width // 4)  # 16 words, 4 shared: windows start at words 0, 12, 24, 36
    assert step == 12 and len(spans[1]) == 4
    starts = [long[:a].count(" ") for a, _ in spans[1]]
    assert starts == [0, 12, 24, 36]
    assert spans[1][0][0] == 0 and spans[1][-1][1] == len(long)  # nothing truncated
    for a, b in spans[1]:
        assert len(long[a:b].split()) <= width


def test_long_text_vector_is_the_length_weighted_mean_of_its_windows():
    emb = get_embedder("toy-hash")
    long = " ".join(f"w{i}" for i in range(40))
    (spans,) = emb.windows([long])
    pieces = emb.encode([long[a:b] for a, b in spans])
    expected = (pieces * np.array([b - a for a, b in spans], dtype=np.float32)[:, None]).sum(0)
    expected /= np.linalg.norm(expected)
    got = emb.encode([long])[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # A word only in the tail still moves the vector: the tail is not truncated away.
    assert not np.allclose(emb.encode([long + " tailword"])[0], got)


def test_encode_keeps_input_order_and_unit_norms():
    emb = get_embedder("toy-hash")
    texts = ["a b c " * 20, "x", "alpha beta", "y z " * 3]
    together = emb.encode(texts)
    one_by_one = np.vstack([emb.encode([t]) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert emb.encode([]).shape == (0, 32)


def test_manifest_without_backend_maps_old_minilm_name_and_refuses_unknown():
    fp32 = EMBEDDERS["minilm-fp32"].spec
    assert embedder_from_manifest({"name": fp32.name, "dimension": 384}).spec.backend == "minilm-fp32"
    with pytest.raises(WorkspaceError, match="does not provide"):
        embedder_from_manifest({"name": "some other model", "dimension": 384, "backend": "gone"})
    with pytest.raises(WorkspaceError, match="not be comparable"):
        embedder_from_manifest({"name": "toy hashed bag of words v0", "dimension": 32, "backend": "toy-hash"})



def test_default_is_int8_and_an_fp32_manifest_still_reopens_with_fp32():
    """int8 is the default (issue 18); a workspace whose manifest records fp32 gets fp32, not the default."""
    from engram_kit.embeddings import DEFAULT_EMBEDDER, MiniLMEmbedder
    from engram_kit.settings import Settings

    assert DEFAULT_EMBEDDER == Settings().embedding_model == "minilm-onnx-int8"
    fp32_entry = EMBEDDERS["minilm-fp32"].spec.to_manifest()
    reopened = embedder_from_manifest(fp32_entry)
    assert isinstance(reopened, MiniLMEmbedder) and reopened.spec.backend == "minilm-fp32"
    # A workspace of the v3 int8 recipe (recorded under the key the v4 recipe now has) reopens with v3, the
    # recipe that made its vectors, not with the default's v4.
    v3_entry = {**EMBEDDERS["minilm-onnx-int8-v3"].spec.to_manifest(), "backend": "minilm-onnx-int8"}
    assert "v3" in v3_entry["name"] and EMBEDDERS["minilm-onnx-int8"].spec.name != v3_entry["name"]
    v3 = embedder_from_manifest(v3_entry)
    assert v3.name == v3_entry["name"] and v3.FUSE_SKIP_LAYER_NORM and v3.FILE.endswith("v3.onnx")
    assert not get_embedder("minilm-onnx-int8").FUSE_SKIP_LAYER_NORM
    # The int8 recipe is part of the recorded name: a workspace of an unregistered recipe is refused, not mixed.
    old_int8 = {**EMBEDDERS["minilm-onnx-int8"].spec.to_manifest(), "name": "all-MiniLM-L6-v2 onnx-int8 v2"}
    with pytest.raises(WorkspaceError, match="not be comparable"):
        embedder_from_manifest(old_int8)

# --------------------------------------------------------------------------------- workspace + crashes
@pytest.fixture(scope="module")
def toy_records(sample_records):
    return sample_records[:40]


@pytest.fixture(scope="module")
def toy_workspace(tmp_path_factory):
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = tmp_path_factory.mktemp("toyws") / "ws"
    ws = Workspace.create(path, graph="hetionet", settings=Settings(embedding_model="toy-hash", batch_size=8, progress=False))
    yield ws
    ws.close()


class Crash(BaseException):
    """Stands in for SIGKILL in-process: not an Exception, so no compensation handler runs."""


def _crash_at(boundary: str):
    def hook(name: str) -> None:
        if name == boundary:
            raise Crash(name)
    return hook


def test_workspace_records_and_reopens_with_its_embedder(toy_workspace):
    from engram_kit.workspace import Workspace

    entry = json.loads((toy_workspace.path / "manifest.json").read_text())["embedding_model"]
    assert entry == {**toy_embedder.ToyHashEmbedder.spec.to_manifest()}
    assert entry["max_tokens"] == 18 and entry["tokenizer"] == "whitespace"
    assert toy_workspace.embedder.spec.backend == "toy-hash"
    reader = Workspace.open(toy_workspace.path, read_only=True)
    try:
        assert reader.embedder.spec.backend == "toy-hash"  # not MiniLM
    finally:
        reader.close()


@pytest.mark.parametrize("boundary", ["before_graph", "after_graph", "mid_vectors", "after_vectors",
                                      "after_status"])
@pytest.mark.parametrize("recovery", ["retry", "repair"])
def test_crash_at_every_write_boundary_then_one_recovery_agrees(toy_workspace, toy_records, boundary, recovery):
    from engram_kit.ingestion.pipeline import WRITE_BOUNDARIES, PubMedIngestor

    assert boundary in WRITE_BOUNDARIES
    ws = toy_workspace
    # A fresh slice of PMIDs per case: rewrite the PMIDs so each case starts from nothing.
    from dataclasses import replace

    offset = 1_000_000 * (WRITE_BOUNDARIES.index(boundary) + 1) + (0 if recovery == "retry" else 500_000)
    records = [replace(r, pmid=str(offset + i)) for i, r in enumerate(toy_records[:12])]
    ingestor = PubMedIngestor(store=ws.store, vectors=ws.vectors, extractor=ws.extractor, resolver=ws.resolver,
                              embedder=ws.embedder, settings=ws.settings, fault_hook=_crash_at(boundary))
    with pytest.raises(Crash):
        ingestor.ingest(records)
    after_crash = ws.check()
    if boundary in ("after_graph", "mid_vectors", "after_vectors"):
        assert after_crash.pending, "the crashed batch must be visible as pending"
        assert not after_crash.consistent
    if boundary == "mid_vectors":
        assert after_crash.missing_vectors
    if recovery == "retry":
        report = ws.ingest(records)
        assert report.failed == 0 and report.ingested + report.unchanged == len(records)
    else:
        repaired = ws.check(repair=True)
        assert repaired.repaired == (not after_crash.consistent)
        ws.ingest(records)  # a later ingest completes what the crash never wrote (before_graph: the batch)
    final = ws.check()
    assert final.consistent, str(final)
    ids = [f"pubmed:{r.pmid}#p0" for r in records]
    stored = set(ws.vectors.ids())
    assert set(ids) <= stored
    assert final.vectors == final.passages  # no duplicates, no orphans
    articles = ws.store.articles(source="pubmed").set_index("id")
    assert (articles.loc[[f"pubmed:{r.pmid}" for r in records], "status"] == "complete").all()


def test_check_repairs_orphan_and_missing_vectors(toy_workspace, toy_records):
    ws = toy_workspace
    ws.ingest(toy_records[:4])
    victim = f"pubmed:{toy_records[0].pmid}#p0"
    ws.vectors.delete([victim])
    ws.vectors.upsert(["pubmed:0#p0"], np.ones((1, 32), dtype=np.float32), [{"source": "pubmed"}])
    found = ws.check()
    assert victim in found.missing_vectors and "pubmed:0#p0" in found.orphan_vectors and not found.consistent
    assert ws.info()["vectors"] == found.vectors
    ws.check(repair=True)
    assert ws.check().consistent
    expected = ws.embedder.encode([toy_records[0].text])[0]
    np.testing.assert_allclose(ws.vectors.get_embeddings([victim])[victim], expected, atol=1e-5)


def _literature_of(ws, pmids: list[str]) -> dict[str, object]:
    """The graph content of ``pmids`` with the PMIDs replaced by their index (so two runs compare)."""
    index = {f"pubmed:{p}": str(i) for i, p in enumerate(pmids)}
    ids = list(index)

    def rename(value: str) -> str:
        article, sep, rest = value.partition("#")
        return index.get(article, article) + sep + rest

    mentions = ws.store.query("MATCH (p:Passage)-[m:MENTIONS]->(n:NounPhrase) WHERE p.article_id IN $ids "
                              "RETURN p.id AS p, n.id AS n, m.count AS c", {"ids": ids})
    maps_to = ws.store.query("MATCH (p:Passage)-[:MENTIONS]->(n:NounPhrase)-[r:MAPS_TO]->(e) WHERE p.article_id IN $ids "
                             "RETURN DISTINCT n.id AS n, e.id AS e, r.confidence AS c", {"ids": ids})
    passages = ws.store.query("MATCH (p:Passage) WHERE p.article_id IN $ids RETURN p.id AS p, p.text AS t", {"ids": ids})
    statuses = ws.store.query("MATCH (a:Article) WHERE a.id IN $ids RETURN a.id AS a, a.status AS s", {"ids": ids})
    return {
        "mentions": sorted((rename(r.p), r.n, int(r.c)) for r in mentions.itertuples()),
        "maps_to": sorted((r.n, r.e, round(float(r.c), 4)) for r in maps_to.itertuples()),
        "passages": sorted((rename(r.p), r.t) for r in passages.itertuples()),
        "statuses": sorted((rename(r.a), r.s) for r in statuses.itertuples()),
    }


def test_ingest_with_two_workers_writes_the_same_graph_as_one(toy_workspace, toy_records):
    """``--workers 2`` forks a pool that prepares and embeds; the graph and the passage vectors it writes equal
    the single-process ones (issue 18)."""
    from dataclasses import replace

    ws = toy_workspace
    runs = {}
    for workers, offset in ((1, 20_000_000), (2, 21_000_000)):
        records = [replace(r, pmid=str(offset + i)) for i, r in enumerate(toy_records[:20])]  # 3 batches of <= 8
        report = ws.ingest(records, workers=workers)
        assert report.ingested == 20 and report.failed == 0
        runs[workers] = (_literature_of(ws, [r.pmid for r in records]), report)
    one, two = runs[1][0], runs[2][0]
    assert len(one["passages"]) == 20 and all(s == "complete" for _, s in one["statuses"])
    assert len(one["mentions"]) > 20 and one["maps_to"], "the sample abstracts mention linked entities"
    assert two == one
    assert runs[2][1].mentions == runs[1][1].mentions and runs[2][1].linked_mentions == runs[1][1].linked_mentions
    # The workers embedded their batches (the stage is timed there) and sent back the same vectors, in order.
    assert runs[2][1].stage_seconds["embed"] > 0
    # The parent's objects were frozen for the fork (no copy-on-write by the workers' GC) and are collectable again.
    assert gc.get_freeze_count() == 0
    single = ws.vectors.get_embeddings([f"pubmed:{20_000_000 + i}#p0" for i in range(20)])
    forked = ws.vectors.get_embeddings([f"pubmed:{21_000_000 + i}#p0" for i in range(20)])
    assert len(single) == len(forked) == 20
    for i in range(20):
        np.testing.assert_allclose(forked[f"pubmed:{21_000_000 + i}#p0"], single[f"pubmed:{20_000_000 + i}#p0"],
                                   atol=1e-6)
    assert ws.check().consistent


@pytest.mark.slow
def test_sigkill_mid_vector_write_then_retry_agrees(toy_workspace, toy_records, tmp_path):
    """A real SIGKILL in a child process half-way through a batch's vector write; the parent retries."""
    from engram_kit.workspace import Workspace

    path = toy_workspace.path
    toy_workspace.close()
    records = [dict(pmid=str(7_000_000 + i), title=r.title, abstract=r.abstract) for i, r in enumerate(toy_records[:10])]
    source = tmp_path / "batch.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in records))
    script = f"""
import os, signal, sys
sys.path.insert(0, {str(FIXTURES)!r})
import toy_embedder
from engram_kit.workspace import Workspace
from engram_kit.ingestion.pubmed import read_pubmed
from engram_kit.ingestion.pipeline import PubMedIngestor
ws = Workspace.open({str(path)!r})
def hook(name):
    if name == "mid_vectors":
        os.kill(os.getpid(), signal.SIGKILL)
PubMedIngestor(store=ws.store, vectors=ws.vectors, extractor=ws.extractor, resolver=ws.resolver,
               embedder=ws.embedder, settings=ws.settings, fault_hook=hook).ingest(read_pubmed({str(source)!r}))
"""
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    ws = Workspace.open(path)
    try:
        ws.settings.progress = False
        crashed = ws.check()
        # Batch size 8: the first batch's graph (8 articles, pending) and half its vectors were written.
        assert len(crashed.pending) == 8 and len(crashed.missing_vectors) == 4 and not crashed.consistent
        report = ws.ingest(source)
        assert report.ingested == 10 and report.unchanged == 0
        final = ws.check()
        assert final.consistent and final.vectors == final.passages
    finally:
        ws.close()


@pytest.mark.slow  # exports the int8 model once per machine (~12 CPU-s), then ~15 CPU-s of fp32 + int8 encoding
def test_int8_vectors_are_within_cosine_0_99_of_fp32_on_bundled_abstracts(sample_records):
    """The real bundled weights: ``minilm-onnx-int8`` against ``minilm-fp32`` on a sample of the bundled
    abstracts (every 8th of 430: long ones are windowed, so pooling is covered too). The full-set figure
    (all 430) is in benchmarks/results/ingest.md."""
    texts = [r.text for r in sample_records[::8]]
    fp32 = get_embedder("minilm-fp32").encode(texts)
    int8 = get_embedder("minilm-onnx-int8").encode(texts)
    assert int8.shape == fp32.shape == (len(texts), 384) and len(texts) >= 50
    cosine = (int8 * fp32).sum(axis=1)
    assert cosine.min() >= 0.99, f"min cosine {cosine.min():.4f} at {int(cosine.argmin())}"
    assert cosine.mean() >= 0.993
    # Not a constant map: different abstracts stay different after quantisation.
    assert float((int8[0] * int8[1]).sum()) < 0.95
    # The v4 recipe: residual add and LayerNormalization stay separate nodes in the exported graph (the
    # session is told not to re-fuse them, see MiniLMOnnxInt8Embedder.FUSE_SKIP_LAYER_NORM).
    import onnx

    ops = {node.op_type for node in onnx.load(str(get_embedder("minilm-onnx-int8").model_path())).graph.node}
    assert "LayerNormalization" in ops and "SkipLayerNormalization" not in ops and "QAttention" in ops


def _encode_with_int8(texts: list[str]) -> np.ndarray:
    return get_embedder("minilm-onnx-int8").encode(texts)


def _int8_after_fork() -> None:
    get_embedder("minilm-onnx-int8").after_fork()


@pytest.mark.slow  # the real int8 model (exported once per machine)
def test_int8_embedder_works_in_a_forked_prepare_worker():
    """``--workers N`` forks after the parent's onnxruntime session exists (the resolver embeds contexts in the
    workers). Freeing that session in the child blocked forever; the child must build its own and agree."""
    import multiprocessing

    texts = ["Amyloid beta deposition in Alzheimer's disease.", "BACE1 inhibitors"]
    parent = _encode_with_int8(texts)  # the session now exists in this process
    with multiprocessing.get_context("fork").Pool(1, initializer=_int8_after_fork) as pool:
        child = pool.apply_async(_encode_with_int8, (texts,)).get(timeout=600)
    assert child.shape == parent.shape == (2, 384)
    assert float((child * parent).sum(axis=1).min()) > 0.999  # one thread vs two: the same model


@pytest.mark.slow  # the real int8 model (exported once per machine)
def test_int8_vector_of_a_text_does_not_depend_on_its_batch(sample_records):
    """Dynamic int8 quantisation scales activations by the range of the whole input tensor, so with several
    texts per model call a vector depended on its neighbours (min cosine to fp32 0.9898 at 16 per call). The
    int8 embedder runs one text per call (``MODEL_BATCH``): the same text gets the same vector in any batch."""
    texts = [r.text for r in sample_records[:12]]
    embedder = get_embedder("minilm-onnx-int8")
    together = embedder.encode(texts, batch_size=64)
    alone = np.vstack([embedder.encode([t]) for t in texts[:4]])
    np.testing.assert_allclose(together[:4], alone, atol=1e-6)
    shuffled = embedder.encode(texts[::-1], batch_size=5)[::-1]
    np.testing.assert_allclose(shuffled, together, atol=1e-6)


def test_workers_zero_means_one_per_core_and_negative_is_refused(toy_workspace):
    """``engram ingest`` defaults to ``workers=0``: one worker per usable core, at most four (issue 18)."""
    from engram_kit.ingestion.pipeline import PubMedIngestor, auto_workers
    from engram_kit.settings import Settings

    ws = toy_workspace
    parts = dict(store=ws.store, vectors=ws.vectors, extractor=ws.extractor, resolver=ws.resolver,
                 embedder=ws.embedder, settings=ws.settings)
    cores = len(os.sched_getaffinity(0))
    assert auto_workers() == max(1, min(Settings.max_auto_workers, cores))
    assert PubMedIngestor(**parts, workers=0).workers == auto_workers()
    assert PubMedIngestor(**parts, workers=3).workers == 3
    with pytest.raises(EngramError, match="workers=-1 is out of range"):
        PubMedIngestor(**parts, workers=-1)
