"""Tests of the passage vector store (chromadb, cosine space, no embedding function, no network)."""

from __future__ import annotations

import numpy as np
import pytest

from engram_kit.errors import DataError, ReadOnlyError, WorkspaceError
from engram_kit.store.vectors import NoEmbeddingFunction, VectorStore

DIM = 16
MODEL = "test-model"


def _unit_rows(n: int, seed: int = 0) -> np.ndarray:
    """``n`` random unit vectors, shape (n, DIM), float32."""
    rows = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def filled(tmp_path):
    """A store with 30 passages: 20 from PubMed, 10 uploaded."""
    ids = [f"pubmed:{i}#p0" for i in range(20)] + [f"doc:{i}#p0" for i in range(10)]
    vectors = _unit_rows(30)
    metadatas = [{"source": "pubmed"}] * 20 + [{"source": "uploaded"}] * 10
    with VectorStore(tmp_path / "vectors", dimension=DIM, model_name=MODEL) as store:
        store.upsert(ids, vectors, metadatas)
        yield store, ids, vectors


def test_query_returns_cosine_similarity_best_first(filled):
    store, ids, vectors = filled
    hits = store.query(vectors[3], k=5)
    assert hits[0][0] == ids[3] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    sims = [s for _, s in hits]
    assert sims == sorted(sims, reverse=True) and all(-1.0 <= s <= 1.0 + 1e-6 for s in sims)
    expected = float(vectors[3] @ vectors[ids.index(hits[1][0])])
    assert hits[1][1] == pytest.approx(expected, abs=1e-4)
    opposite = store.query(-vectors[3], k=30)
    assert opposite[-1][0] == ids[3] and opposite[-1][1] == pytest.approx(-1.0, abs=1e-5)


def test_source_filter(filled):
    store, ids, vectors = filled
    hits = store.query(vectors[0], k=30, source="uploaded")
    assert len(hits) == 10 and all(pid.startswith("doc:") for pid, _ in hits)
    assert sorted(store.ids(source="uploaded")) == sorted(ids[20:])
    assert store.query(vectors[0], k=5, source="web") == []


def test_upsert_replaces_and_delete_removes(filled):
    store, ids, vectors = filled
    store.upsert([ids[0]], vectors[1:2], [{"source": "pubmed"}])
    assert store.count() == 30
    np.testing.assert_allclose(store.get_embeddings([ids[0]])[ids[0]], vectors[1], atol=1e-6)
    store.delete(ids[:5] + ["never-stored"])
    assert store.count() == 25
    assert set(store.get_embeddings(ids[:6])) == {ids[5]}
    assert ids[0] not in store.ids()


def test_get_embeddings_shape_and_dtype(filled):
    store, ids, vectors = filled
    got = store.get_embeddings(ids[:3] + ["unknown"])
    assert set(got) == set(ids[:3])
    assert all(v.shape == (DIM,) and v.dtype == np.float32 for v in got.values())
    np.testing.assert_allclose(got[ids[2]], vectors[2], atol=1e-6)


def test_persistence_after_reopen(tmp_path):
    vectors = _unit_rows(5)
    with VectorStore(tmp_path / "v", dimension=DIM, model_name=MODEL) as store:
        store.upsert([f"p{i}" for i in range(5)], vectors, [{"source": "pubmed"}] * 5)
    with VectorStore(tmp_path / "v", dimension=DIM, model_name=MODEL, read_only=True) as reopened:
        assert reopened.count() == 5
        assert reopened.query(vectors[4], k=1)[0][0] == "p4"


def test_reopen_with_another_model_or_dimension_is_refused(tmp_path):
    VectorStore(tmp_path / "v", dimension=DIM, model_name=MODEL).close()
    with pytest.raises(DataError, match="re-embed"):
        VectorStore(tmp_path / "v", dimension=DIM + 1, model_name=MODEL)
    with pytest.raises(DataError, match="other-model"):
        VectorStore(tmp_path / "v", dimension=DIM, model_name="other-model")


def test_bad_shapes_are_refused(filled):
    store, ids, vectors = filled
    with pytest.raises(DataError, match=r"expected \(2, 16\)"):
        store.upsert(["a", "b"], _unit_rows(2)[:, :8])
    with pytest.raises(DataError, match="duplicated"):
        store.upsert(["a", "a"], _unit_rows(2))
    with pytest.raises(DataError, match="non-finite"):
        store.upsert(["a"], np.full((1, DIM), np.nan, dtype=np.float32))
    with pytest.raises(DataError, match=r"expected \(16,\)"):
        store.query(vectors[:2], k=3)


def test_batches_larger_than_chromadb_maximum(tmp_path):
    with VectorStore(tmp_path / "v", dimension=DIM, model_name=MODEL) as store:
        n = store._max_batch + 7
        store.upsert([f"p{i}" for i in range(n)], _unit_rows(n), [{"source": "pubmed"}] * n)
        assert store.count() == n
        assert len(store.ids()) == n
        store.delete([f"p{i}" for i in range(n)])
        assert store.count() == 0


def test_read_only_refuses_writes_and_needs_existing_store(tmp_path):
    with pytest.raises(WorkspaceError, match="cannot create one"):
        VectorStore(tmp_path / "missing", dimension=DIM, model_name=MODEL, read_only=True)
    VectorStore(tmp_path / "v", dimension=DIM, model_name=MODEL).close()
    with VectorStore(tmp_path / "v", dimension=DIM, model_name=MODEL, read_only=True) as reader:
        with pytest.raises(ReadOnlyError):
            reader.upsert(["a"], _unit_rows(1))
        with pytest.raises(ReadOnlyError):
            reader.delete(["a"])
        assert reader.count() == 0


def test_chromadb_never_embeds_text(filled):
    """Documents or query texts without vectors raise our error instead of downloading chromadb's model."""
    store, _, _ = filled
    collection = store._collection
    assert isinstance(collection._embedding_function, NoEmbeddingFunction)
    with pytest.raises(DataError, match="never lets chromadb embed"):
        collection.add(ids=["x"], documents=["some passage text"])
    with pytest.raises(DataError, match="never lets chromadb embed"):
        collection.query(query_texts=["a question"], n_results=1)
    assert store.count() == 30


def _folder_state(folder):
    """(relative path, size, sha256) of every file under ``folder``."""
    import hashlib

    return sorted((str(p.relative_to(folder)), p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest())
                  for p in folder.rglob("*") if p.is_file())


def test_read_only_open_never_writes_the_folder_even_beside_a_writer(tmp_path):
    """Issue 21: a read-only `engram ask` rewrote chroma.sqlite3 and the HNSW files under a writer. With
    2,800 vectors whose HNSW index the writer has not persisted yet, a plain chromadb client opened on the
    folder rewrites chroma.sqlite3 (checked when this test was written); the read-only store must not."""
    folder = tmp_path / "v"
    n = 2_800
    ids = [f"pubmed:{i}#p0" for i in range(n + 40)]
    vectors = _unit_rows(n + 40)
    with VectorStore(folder, dimension=DIM, model_name=MODEL) as writer:
        writer.upsert(ids[:2_500], vectors[:2_500], [{"source": "pubmed"}] * 2_500)
        writer.upsert(ids[2_500:n], vectors[2_500:n], [{"source": "pubmed"}] * 300)
        before = _folder_state(folder)
        with VectorStore(folder, dimension=DIM, model_name=MODEL, read_only=True) as reader:
            assert reader.count() == n
            hits = reader.query(vectors[7], 3)
            assert hits[0][0] == ids[7] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
            snapshot = reader._snapshot
            assert snapshot is not None and snapshot.exists()
        assert _folder_state(folder) == before, "the read-only open changed the vector folder"
        assert not snapshot.exists(), "the snapshot was not removed on close"
        # the writer goes on; a new read-only open sees its latest commits
        writer.upsert(ids[n:], vectors[n:], [{"source": "pubmed"}] * 40)
        with VectorStore(folder, dimension=DIM, model_name=MODEL, read_only=True) as reader:
            assert reader.count() == n + 40
            assert reader.query(vectors[n + 5], 1)[0][0] == ids[n + 5]


def test_read_only_open_and_close_leave_no_threads_behind(filled):
    """Issue 21 soak: each read-only open queries a fresh snapshot, and chromadb keeps one system (with its
    threads) per folder until the client is closed; close() did not close the embedded client, so a reader
    that opened and closed the store in a loop grew by about 8 OS threads per cycle (840 after ~100)."""
    import psutil

    folder = filled[0].path

    def cycle() -> None:
        with VectorStore(folder, dimension=DIM, model_name=MODEL, read_only=True) as reader:
            assert reader.count() == 30

    cycle()  # the first open may start process-wide threads
    before = psutil.Process().num_threads()
    for _ in range(5):
        cycle()
    assert psutil.Process().num_threads() <= before + 2  # was before + 40
