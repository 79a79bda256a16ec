"""Passage vectors on a real Chroma server (``chroma run``), compared with the embedded store.

The ``chroma_server`` fixture starts the ``chroma`` command installed with chromadb on a free local port,
waits for its heartbeat (with a deadline) and stops it afterwards; if the command is missing or the server
does not come up, the server tests are skipped with the reason and the end of the server log. Vectors are
real: bundled PubMed abstracts embedded with the project's MiniLM embedder.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from engram_kit.errors import BackendUnavailableError, DataError, ReadOnlyError, WorkspaceError
from engram_kit.store.vectors import ChromaServerConfig, VectorStore, workspace_collection_name

#: Seconds allowed for ``chroma run`` to answer its heartbeat (about 1-4 s on 2 cores).
STARTUP_DEADLINE_S = 60.0
N_PASSAGES = 12
QUESTIONS = (
    "What compounds might reduce neuroinflammation in Alzheimer's disease?",
    "Does metformin affect cancer risk?",
    "Which genes regulate TP53 signalling?",
)
TOKEN = "s3cret-test-token"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chroma_command() -> str | None:
    beside_python = Path(sys.executable).parent / "chroma"
    return str(beside_python) if beside_python.exists() else shutil.which("chroma")


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    """URL of a Chroma server started for this module (``chroma run --path <tmp> --host 127.0.0.1 --port <free>``)."""
    command = _chroma_command()
    if command is None:
        pytest.skip("the `chroma` command (installed with chromadb) is not on PATH or beside the interpreter")
    folder = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    log_path = folder / "server.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen([command, "run", "--path", str(folder / "db"), "--host", "127.0.0.1",
                                    "--port", str(port)], stdout=log_file, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-800:]
                reason = (f"exited with status {process.returncode}" if process.poll() is not None
                          else f"did not answer its heartbeat within {STARTUP_DEADLINE_S:.0f} s")
                pytest.skip(f"`chroma run` {reason}; server log: {tail!r}")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture(scope="module")
def passages(sample_records):
    """``(ids, embeddings (N_PASSAGES, 384) float32, metadatas, question vectors (3, 384), embedder)``."""
    from engram_kit.embeddings import default_embedder

    embedder = default_embedder()
    records = sample_records[:N_PASSAGES]
    ids = [f"pubmed:{r.pmid}#p0" for r in records]
    vectors = embedder.encode([r.text for r in records])
    # a third "uploaded", so the source filter is exercised on the server too
    metadatas = [{"source": "uploaded" if i % 3 == 0 else "pubmed"} for i in range(len(ids))]
    return ids, vectors, metadatas, embedder.encode(list(QUESTIONS)), embedder


def _store(tmp_path: Path, url: str | None, embedder, **kwargs) -> VectorStore:
    """A local store in ``tmp_path/vectors``, or (``url``) a server store with a collection unique to ``tmp_path``."""
    if url is None:
        return VectorStore(tmp_path / "vectors", dimension=embedder.dimension, model_name=embedder.name, **kwargs)
    kwargs.setdefault("collection", workspace_collection_name(tmp_path))
    return VectorStore(None, dimension=embedder.dimension, model_name=embedder.name,
                       server=ChromaServerConfig(url, token=""), **kwargs)


@pytest.mark.slow  # e2e: starts a Chroma server: 39 s on a loaded 2-core machine (issue 15)
def test_server_round_trip_matches_the_local_store(chroma_server, tmp_path, passages):
    ids, vectors, metadatas, questions, embedder = passages
    with _store(tmp_path, None, embedder) as local, _store(tmp_path, chroma_server, embedder) as remote:
        assert remote.server is not None and remote.collection_name.startswith(tmp_path.name[:20])
        for store in (local, remote):
            store.upsert(ids, vectors, metadatas)
        assert remote.count() == local.count() == N_PASSAGES
        assert sorted(remote.ids()) == sorted(local.ids()) == sorted(ids)
        assert sorted(remote.ids(source="uploaded")) == sorted(local.ids(source="uploaded"))

        def same_neighbours(k: int, source: str | None = None) -> None:
            for question in questions:
                near_local = local.query(question, k, source=source)
                near_remote = remote.query(question, k, source=source)
                assert [pid for pid, _ in near_remote] == [pid for pid, _ in near_local]
                np.testing.assert_allclose([s for _, s in near_remote], [s for _, s in near_local], atol=1e-5)
                # the similarity is the cosine of our own (unit-norm) embeddings, not a server-side re-embedding
                best_id, best_sim = near_remote[0]
                assert best_sim == pytest.approx(float(vectors[ids.index(best_id)] @ question), abs=1e-5)

        same_neighbours(5)
        same_neighbours(N_PASSAGES, source="uploaded")
        stored = remote.get_embeddings(ids[:3])
        np.testing.assert_allclose(np.stack([stored[i] for i in ids[:3]]), vectors[:3], atol=1e-6)

        nearest = local.query(questions[0], 3)
        gone = [pid for pid, _ in nearest[:2]]
        for store in (local, remote):
            store.delete(gone + ["pubmed:never-stored#p0"])
        assert remote.count() == local.count() == N_PASSAGES - 2
        assert not set(gone) & {pid for pid, _ in remote.query(questions[0], N_PASSAGES)}
        same_neighbours(5)

        # a whole collection copies across (what `migrate` does between local and server vectors)
        with _store(tmp_path / "copy", chroma_server, embedder) as copy:
            assert copy.copy_from(local) == N_PASSAGES - 2
            assert sorted(copy.ids(source="pubmed")) == sorted(local.ids(source="pubmed"))
            assert [pid for pid, _ in copy.query(questions[1], 4)] == [pid for pid, _ in local.query(questions[1], 4)]
            copy.drop()


def test_migration_copies_local_vectors_to_a_server_collection(chroma_server, tmp_path, passages):
    """The vector step of `engram migrate --chroma-url` (the graph step needs Neo4j: tests/test_neo4j_live.py)."""
    from types import SimpleNamespace

    from engram_kit.workspace import _copy_vectors, _migration_vectors, _vector_store_manifest

    ids, vectors, metadatas, questions, embedder = passages
    with _store(tmp_path / "src", None, embedder) as local:
        local.upsert(ids, vectors, metadatas)
        source = SimpleNamespace(path=tmp_path / "src", vectors=local, _vector_server=None, manifest={
            "embedding_model": {"name": embedder.name, "dimension": embedder.dimension}})
        assert _migration_vectors(source, None) == "local"  # default: the kind of the source (an old manifest)
        entry, server = _vector_store_manifest(tmp_path / "dest", chroma_server)
        _copy_vectors(source, tmp_path / "dest", entry, server)
        with _store(tmp_path, chroma_server, embedder, collection=entry["collection"]) as copied:
            assert sorted(copied.ids(source="uploaded")) == sorted(local.ids(source="uploaded"))
            assert [p for p, _ in copied.query(questions[2], 5)] == [p for p, _ in local.query(questions[2], 5)]
            # a server-backed source migrates, by default, into a new collection on the same server
            server_source = SimpleNamespace(manifest={"vector_store": entry}, _vector_server=None)
            again = _migration_vectors(server_source, None)
            assert isinstance(again, ChromaServerConfig) and again.url == chroma_server
            copied.drop()


def test_workspaces_sharing_a_server_do_not_collide(chroma_server, tmp_path, passages):
    ids, vectors, metadatas, _, embedder = passages
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    name_a, name_b = workspace_collection_name(tmp_path / "a" / "ws"), workspace_collection_name(tmp_path / "b" / "ws")
    assert name_a != name_b and name_a.startswith("ws-") and name_b.startswith("ws-")
    with _store(tmp_path, chroma_server, embedder, collection=name_a) as a, \
            _store(tmp_path, chroma_server, embedder, collection=name_b) as b:
        a.upsert(ids[:4], vectors[:4], metadatas[:4])
        b.upsert(ids[4:], vectors[4:], metadatas[4:])
        assert sorted(a.ids()) == sorted(ids[:4]) and sorted(b.ids()) == sorted(ids[4:])


def test_server_store_checks_model_and_dimension(chroma_server, tmp_path, passages):
    ids, vectors, metadatas, _, embedder = passages
    with _store(tmp_path, chroma_server, embedder) as store:
        store.upsert(ids[:2], vectors[:2], metadatas[:2])
        with pytest.raises(DataError, match="shape"):
            store.upsert(ids[:1], vectors[:1, :100])
        with pytest.raises(DataError, match="texts without embeddings"):  # chromadb never embeds for us
            store._collection.add(ids=["x"], documents=["some text"])
        collection = store.collection_name
    with pytest.raises(DataError, match="384-dimensional"):
        VectorStore(None, dimension=128, model_name=embedder.name, server=ChromaServerConfig(chroma_server),
                    collection=collection)


def test_read_only_server_store_refuses_writes(chroma_server, tmp_path, passages):
    ids, vectors, metadatas, questions, embedder = passages
    with pytest.raises(WorkspaceError, match="no .* collection yet"):
        _store(tmp_path, chroma_server, embedder, read_only=True)
    with _store(tmp_path, chroma_server, embedder) as writer:
        writer.upsert(ids, vectors, metadatas)
        collection = writer.collection_name
    with _store(tmp_path, chroma_server, embedder, read_only=True, collection=collection) as reader:
        assert reader.query(questions[0], 1)[0][0] in ids
        with pytest.raises(ReadOnlyError, match="read-only"):
            reader.upsert(ids[:1], vectors[:1])
        with pytest.raises(ReadOnlyError):
            reader.delete(ids[:1])
        with pytest.raises(ReadOnlyError):
            reader.drop()
        assert reader.count() == N_PASSAGES


def test_unreachable_server_gives_a_clear_error(tmp_path, passages):
    _, _, _, _, embedder = passages
    url = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    with pytest.raises(BackendUnavailableError) as info:
        VectorStore(None, dimension=embedder.dimension, model_name=embedder.name,
                    server=ChromaServerConfig(url, token=TOKEN), collection="ws-00000000-passages")
    message = str(info.value)
    assert url in message and "chroma run" in message and TOKEN not in message
    from engram_kit.workspace import Workspace

    started = time.perf_counter()
    with pytest.raises(BackendUnavailableError, match="127.0.0.1"):  # checked before the graph is loaded
        Workspace.create(tmp_path / "ws", graph="hetionet", vectors=url)
    assert time.perf_counter() - started < 5.0 and not (tmp_path / "ws" / "manifest.json").exists()


def test_server_config_keeps_the_token_secret(monkeypatch):
    config = ChromaServerConfig("http://localhost:8000/", token=TOKEN)
    assert config.url == "http://localhost:8000" and TOKEN not in repr(config)
    assert config.headers() == {"Authorization": f"Bearer {TOKEN}"}
    assert TOKEN not in json.dumps(config.to_manifest())
    assert ChromaServerConfig("https://chroma.example.org", token=TOKEN, token_header="X-Chroma-Token").headers() \
        == {"X-Chroma-Token": TOKEN}
    assert ChromaServerConfig("https://chroma.example.org").port == 443
    monkeypatch.delenv("CHROMA_TOKEN", raising=False)
    monkeypatch.setenv("CHROMA_SERVER_AUTHN_CREDENTIALS", "from-chroma-env")
    assert ChromaServerConfig("http://h:1").token == "from-chroma-env"
    monkeypatch.setenv("CHROMA_TOKEN", TOKEN)
    assert ChromaServerConfig.from_manifest(config.to_manifest()).token == TOKEN
    assert ChromaServerConfig("http://h:1", token="").headers() == {}
    for bad in ("localhost:8000", "ftp://h", "http://user:pw@h:8000", "http://h:8000/api"):
        with pytest.raises(DataError):
            ChromaServerConfig(bad)


def test_old_manifest_without_vector_store_means_local(tmp_path):
    from engram_kit.workspace import _open_vector_store

    manifest = {"embedding_model": {"name": "m", "dimension": 8}}
    with _open_vector_store(tmp_path, manifest, read_only=False) as store:
        assert store.server is None and store.path == tmp_path / "vectors"
    with pytest.raises(WorkspaceError, match="unknown vector store kind"):
        _open_vector_store(tmp_path, {**manifest, "vector_store": {"kind": "pinecone"}}, read_only=False)


@pytest.mark.slow  # e2e: a workspace with its vectors on a Chroma server: 68 s on a loaded 2-core machine (issue 15)
def test_workspace_on_a_chroma_server(chroma_server, tmp_path, monkeypatch, sample_records):
    """`engram init --chroma-url` records the server (never the token); ingest, reopen and ask use it."""
    from engram_kit.cli import main
    from engram_kit.workspace import Workspace

    monkeypatch.setenv("CHROMA_TOKEN", TOKEN)  # sent as a header (this test server does not check it)
    path = tmp_path / "server-ws"
    assert main(["init", "-w", str(path), "--chroma-url", chroma_server]) == 0
    text = (path / "manifest.json").read_text()
    entry = json.loads(text)["vector_store"]
    assert entry["kind"] == "chroma-server" and entry["url"] == chroma_server
    assert entry["collection"].startswith("server-ws-") and entry["collection"].endswith("-passages")
    assert TOKEN not in text
    assert set(entry) == {"kind", "url", "tenant", "database", "token_header", "collection"}

    with Workspace.open(path) as ws:
        ws.settings.progress = False
        report = ws.ingest(sample_records[:N_PASSAGES])
        assert report.ingested == N_PASSAGES
        assert ws.vectors.server is not None and ws.vectors.server.url == chroma_server
        assert ws.vectors.count() == ws.info()["passages"] == N_PASSAGES
        assert not (path / "vectors").exists()  # nothing written to a local chromadb
    with Workspace.open(path, read_only=True) as ro:
        assert ro.info()["vector_store"] == f"chroma-server {chroma_server} collection {entry['collection']}"
        result = ro.retrieve(QUESTIONS[0], top_k=3)
        assert result.passages and all(p.passage_id in set(ro.vectors.ids()) for p in result.passages)
        with pytest.raises(ReadOnlyError):
            ro.vectors.delete([result.passages[0].passage_id])
