"""Workspace lifecycle: manifest, reopen, idempotent ingest, read-only mode, answers with citations."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engram_kit.errors import ReadOnlyError, WorkspaceError
from engram_kit.workspace import Workspace


def test_manifest_records_versions(workspace_path, sample_paths):
    manifest = json.loads((workspace_path / "manifest.json").read_text())
    assert manifest["backend"] == "ladybug"
    assert manifest["knowledge_graph"]["name"] == "Hetionet" and manifest["knowledge_graph"]["version"] == "v1.0"
    assert manifest["embedding_model"]["dimension"] == 384
    assert manifest["literature_version"] >= 1
    assert manifest["settings"]["retrieval"]["damping"] == 0.5  # settings are stored by section


def test_info_counts_match_the_sample(workspace, sample_records):
    info = workspace.info()
    assert info["articles"] == len({r.pmid for r in sample_records})
    assert info["passages"] == info["articles"]
    assert info["nounphrases"] > 100 and info["maps_to"] >= info["nounphrases"] * 0.5
    assert workspace.vectors.count() == info["passages"]


def test_reingest_is_idempotent(workspace, sample_records):
    before = workspace.store.counts()
    vectors_before = workspace.vectors.count()
    report = workspace.ingest(sample_records[:40])
    assert report.unchanged == 40 and report.ingested == 0
    assert workspace.store.counts() == before
    assert workspace.vectors.count() == vectors_before


@pytest.mark.slow  # e2e: builds a sample workspace and ingests: 45 s on a loaded 2-core machine (issue 15)
def test_changed_record_replaces_old_one(tmp_path, sample_paths, sample_records):
    from dataclasses import replace

    ws = Workspace.create(tmp_path / "ws", data=sample_paths)
    ws.settings.progress = False
    try:
        ws.ingest(sample_records[:5])
        counts = ws.store.counts()
        edited = replace(sample_records[0], abstract=sample_records[0].abstract + " Metformin was also studied.")
        report = ws.ingest([edited])
        assert report.ingested == 1
        after = ws.store.counts()
        assert after["Passage"] == counts["Passage"] and after["Article"] == counts["Article"]
        text = ws.store.get_passages([f"pubmed:{edited.pmid}#p0"])["text"].iloc[0]
        assert text.endswith("Metformin was also studied.")
    finally:
        ws.close()


def test_create_refuses_existing_and_open_refuses_missing(workspace_path, tmp_path):
    with pytest.raises(WorkspaceError, match="already holds a workspace"):
        Workspace.create(workspace_path, graph="hetionet")
    with pytest.raises(WorkspaceError, match="engram init"):
        Workspace.open(tmp_path / "nowhere")


def test_second_process_reads_while_first_writes(workspace_path, workspace):
    code = (
        "import sys; from engram_kit.workspace import Workspace\n"
        "from engram_kit.errors import WorkspaceLockedError, ReadOnlyError\n"
        f"p = {str(workspace_path)!r}\n"
        "try:\n    Workspace.open(p)\nexcept WorkspaceLockedError as e:\n    print('LOCKED', e)\n"
        "ws = Workspace.open(p, read_only=True)\n"
        "print('ARTICLES', ws.info()['articles'])\n"
        "try:\n    ws.ingest([])\nexcept ReadOnlyError as e:\n    print('READONLY', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)  # a loaded 2-core machine imports slowly
    assert out.returncode == 0, out.stderr
    assert "LOCKED" in out.stdout and "read_only=True" in out.stdout
    assert f"ARTICLES {workspace.info()['articles']}" in out.stdout
    assert "READONLY" in out.stdout


def test_read_only_refuses_writes(workspace_path, workspace):
    ro = Workspace.open(workspace_path, read_only=True)
    try:
        with pytest.raises(ReadOnlyError, match="read-only"):
            ro.ingest([])
    finally:
        ro.close()


def test_reopen_is_lazy(workspace_path, workspace):
    # Reopen time is measured in benchmarks/store_load.py; here: opening loads nothing heavy.
    ro = Workspace.open(workspace_path, read_only=True)
    try:
        assert ro._vectors is None and ro._lexicon is None and ro._index is None
        assert ro.info()["passages"] == workspace.info()["passages"]
    finally:
        ro.close()


def test_question_embedded_once_per_ask(workspace_path):
    """``ws.ask`` embeds the question once: the retriever's vector rides on the result to the extractive composer
    (issue 33), which embeds only its candidate sentences."""
    from engram_kit.workspace import Workspace

    class Counting:
        def __init__(self, inner):
            self.inner, self.calls = inner, []

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def encode(self, texts, *args, **kwargs):
            self.calls.append(list(texts))
            return self.inner.encode(texts, *args, **kwargs)

    ws = Workspace.open(workspace_path, read_only=True)
    try:
        ws.settings.progress = False
        counting = Counting(ws.embedder)
        ws._embedder = counting  # the retriever, resolver and composer all take it from here
        composed = 0
        for question in ("What compounds might reduce neuroinflammation in Alzheimer's disease?",
                         "What treats type 2 diabetes mellitus?"):
            counting.calls.clear()
            answer = ws.ask(question)
            assert sum(texts.count(question) for texts in counting.calls) == 1, counting.calls
            composed += sum(1 for texts in counting.calls if question not in texts)
            assert answer.retrieval.question_vector is not None
        assert composed >= 1  # the composer did embed sentences (so the count above covers its path)
    finally:
        ws.close()


def test_answer_claims_all_cite_evidence(workspace):
    answer = workspace.ask("What compounds might reduce neuroinflammation in Alzheimer's disease?")
    assert answer.mode == "extractive"
    assert answer.claims
    passage_ids = {p.passage_id for p in answer.retrieval.passages}
    for claim in answer.claims:
        assert claim.citations
        for cite in claim.citations:
            if cite.kind == "passage":
                assert cite.ref in passage_ids
                text = next(p.text for p in answer.retrieval.passages if p.passage_id == cite.ref)
                assert claim.text in text  # extractive: the sentence is copied, never invented
            else:  # an edge of the asked relation, read from the graph (GraphFacts): it exists in the store
                source, rel, target = cite.ref.split(" ")
                rel_type = rel.strip("-[]>")
                found = workspace.store.read_only_query(
                    f"MATCH (s {{id: $s}})-[r:{rel_type}]->(t {{id: $t}}) RETURN count(r) AS n", {"s": source, "t": target})
                assert found["n"].iloc[0] == 1
    markdown = answer.to_markdown()
    assert "PMID:" in markdown and "Hetionet" in markdown
    # The question asks for compounds: graph claims name compounds linked to Alzheimer's disease.
    edge_claims = [c for c in answer.claims if c.citations[0].kind == "edge"]
    assert any(c.citations[0].ref.startswith("Compound::") for c in edge_claims)


@pytest.mark.slow  # e2e: builds a sample workspace twice: 22 s on a loaded 2-core machine (issue 15)
def test_stale_lexicon_cache_is_rebuilt(tmp_path, sample_paths):
    """A lexicon cache of another format version (an older engram-kit) is rebuilt, not fatal."""
    import pickle

    from engram_kit.extraction.lexicon import FORMAT_VERSION

    ws = Workspace.create(tmp_path / "ws", data=sample_paths)
    ws.close()
    cache = tmp_path / "ws" / "cache" / "lexicon.pkl"
    with cache.open("rb") as fh:
        payload = pickle.load(fh)
    payload["version"] = FORMAT_VERSION - 1
    with cache.open("wb") as fh:
        pickle.dump(payload, fh)
    reopened = Workspace.open(tmp_path / "ws")
    try:
        assert reopened.lexicon.lookup("Alzheimer's disease")
        with cache.open("rb") as fh:
            assert pickle.load(fh)["version"] == FORMAT_VERSION  # saved again in the current format
    finally:
        reopened.close()
