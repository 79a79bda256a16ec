"""Crash consistency of document (PDF) ingest, `engram check --repair` from the command line, and duplicate
PMIDs in the ingest report (issue 21).

The PubMed path has its fault-injection tests in tests/test_embeddings.py; this module follows their pattern
for :meth:`DocumentRepository.add_bytes`: a :class:`Crash` (a ``BaseException``, so no compensation handler
runs, as with SIGKILL) is raised at each write boundary of ``DocumentRepository._process``, then one retry
of the same upload must leave graph and vectors in agreement with no duplicates. The last test kills a real
child process with SIGKILL half-way through a PDF's vector write.

One toy workspace per module (bundled Hetionet sample, toy hashed embedder: no model download). Tests open
and close it themselves, because the CLI tests need the write lock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pymupdf
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import toy_embedder  # noqa: E402,F401  - registers "toy-hash"

from engram_kit.cli import main  # noqa: E402

DVT = Path(__file__).resolve().parents[1] / "data" / "pdfs" / "bmc_dvt_prophylaxis_trauma_review.pdf"

#: Where ``DocumentRepository._process`` writes: the content batch (one graph transaction), the vectors
#: (half-way and after), the alias hubs, and the final status (before document.json records it).
DOCUMENT_BOUNDARIES = ("before_graph", "after_graph", "mid_vectors", "after_vectors", "after_hubs", "after_status")


class Crash(BaseException):
    """Stands in for SIGKILL in-process: not an Exception, so no compensation handler runs."""


@pytest.fixture(scope="module")
def toy_path(tmp_path_factory) -> Path:
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = tmp_path_factory.mktemp("toydocs") / "ws"
    Workspace.create(path, graph="hetionet", settings=Settings(embedding_model="toy-hash", batch_size=8, progress=False)).close()
    return path


@contextmanager
def opened(path: Path) -> Iterator:
    from engram_kit.workspace import Workspace

    ws = Workspace.open(path)
    ws.settings.progress = False
    try:
        yield ws
    finally:
        ws.close()


def small_pdf(tag: str) -> bytes:
    """A two-section PDF (bold headings over body text) that yields passages; ``tag`` makes the bytes unique."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), f"Heparin after trauma ({tag})", fontsize=18, fontname="hebo")
    body = ("Pulmonary embolism after major trauma is prevented with low molecular weight heparin in most "
            "patients. Venous thrombosis is common when prophylaxis is delayed beyond the first days. ")
    y = 100.0
    for heading in ("Introduction", "Results"):
        page.insert_text((72, y), heading, fontsize=13, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, y + 10, 520, y + 260), body * 4, fontsize=10)
        y += 290
    return doc.tobytes()


def _inject(ws, monkeypatch: pytest.MonkeyPatch, boundary: str) -> None:
    """Make the document pipeline crash at ``boundary`` (only for the document's own content writes)."""
    from engram_kit.ingestion import documents

    store, vectors = ws.store, ws.vectors
    write_literature, upsert, set_status = store.write_literature, vectors.upsert, store.set_article_status
    update_hubs = documents.AliasHubBuilder.update

    def fake_write(batch):  # stubs (status changes) have no passages and pass through
        if batch.passages and boundary == "before_graph":
            raise Crash(boundary)
        write_literature(batch)
        if batch.passages and boundary == "after_graph":
            raise Crash(boundary)

    def fake_upsert(ids, embeddings, metadata):
        if boundary == "mid_vectors":
            half = len(ids) // 2
            upsert(ids[:half], embeddings[:half], metadata[:half])
            raise Crash(boundary)
        upsert(ids, embeddings, metadata)
        if boundary == "after_vectors":
            raise Crash(boundary)

    def fake_hubs(self, *args, **kwargs):
        update_hubs(self, *args, **kwargs)
        if boundary == "after_hubs":
            raise Crash(boundary)

    def fake_status(doc_id, status, *args, **kwargs):
        set_status(doc_id, status, *args, **kwargs)
        if boundary == "after_status" and status.startswith("complete"):
            raise Crash(boundary)

    monkeypatch.setattr(store, "write_literature", fake_write)
    monkeypatch.setattr(vectors, "upsert", fake_upsert)
    monkeypatch.setattr(documents.AliasHubBuilder, "update", fake_hubs)
    monkeypatch.setattr(store, "set_article_status", fake_status)


def _agree(ws, doc_id: str) -> None:
    """Graph and vectors agree, workspace-wide and for ``doc_id`` (no duplicates, no orphans)."""
    final = ws.check()
    assert final.consistent, str(final)
    assert final.vectors == final.passages
    passages = set(ws.store.article_passages(doc_id)["id"])
    assert passages and {i for i in ws.vectors.ids(source="uploaded") if i.startswith(doc_id + "#")} == passages


@pytest.mark.parametrize("boundary", DOCUMENT_BOUNDARIES)
def test_pdf_ingest_crash_at_every_write_boundary_then_one_retry_agrees(toy_path, monkeypatch, capsys,
                                                                          boundary):
    data = small_pdf(boundary)
    name = f"crash-{boundary}.pdf"
    with opened(toy_path) as ws:
        _inject(ws, monkeypatch, boundary)
        with pytest.raises(Crash):
            ws.documents.add_bytes(data, name)
        monkeypatch.undo()
        crashed = ws.check()
        if boundary in ("after_graph", "mid_vectors", "after_vectors", "after_hubs"):
            # the document is left ``processing``: pending in check(), never listed complete
            assert crashed.pending and not crashed.consistent
            assert ws.documents.list(status="complete")["filename"].eq(name).sum() == 0
        if boundary == "mid_vectors":
            assert crashed.missing_vectors
        # `engram info` counts a document left ``processing`` as well as PubMed articles left ``pending``
        assert ws.info()["pending_articles"] == len(crashed.pending)
    if boundary == "after_graph":  # repair embeds the passages but leaves the unfinished document to the retry
        assert main(["check", "-w", str(toy_path), "--repair"]) == 1
        out, err = capsys.readouterr()
        assert "after repair: DRIFT" in out and "1 pending articles" in out
        assert f"run `engram reprocess {crashed.pending[0]}`" in err
    with opened(toy_path) as ws:  # the retry runs in a fresh open, as after a real crash
        report = ws.documents.add_bytes(data, name)
        assert report.status == "complete" and report.passages >= 1, str(report)
        assert ws.documents.detail(report.id).status == "complete"
        _agree(ws, report.id)
        assert report.passages == len(ws.store.article_passages(report.id))
        assert ws.info()["pending_articles"] == 0


def test_cli_check_reports_drift_and_repair_fixes_it(toy_path, sample_records, capsys):
    from dataclasses import replace

    from engram_kit.ingestion.pipeline import PubMedIngestor

    records = [replace(r, pmid=str(8_100_000 + i)) for i, r in enumerate(sample_records[:6])]
    with opened(toy_path) as ws:
        ws.ingest(records[:3])
        victim = f"pubmed:{records[0].pmid}#p0"
        ws.vectors.delete([victim])  # a passage without its vector
        ws.vectors.upsert(["pubmed:1#p0"], np.ones((1, 32), dtype=np.float32), [{"source": "pubmed"}])  # an orphan

        def crash(name: str) -> None:
            if name == "mid_vectors":
                raise Crash(name)

        with pytest.raises(Crash):  # a batch left pending with half its vectors
            PubMedIngestor(store=ws.store, vectors=ws.vectors, extractor=ws.extractor, resolver=ws.resolver,
                           embedder=ws.embedder, settings=ws.settings, fault_hook=crash).ingest(records[3:])
    path = str(toy_path)
    assert main(["check", "-w", path]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("DRIFT:") and "3 pending articles" in out and "1 vectors without passages" in out
    assert "engram check --repair" in err
    assert main(["check", "-w", path, "--repair"]) == 0
    out = capsys.readouterr().out
    assert "(repaired)" in out and "after repair: consistent" in out
    assert main(["check", "-w", path]) == 0
    assert capsys.readouterr().out.startswith("consistent:")
    with opened(toy_path) as ws:
        assert "pubmed:1#p0" not in set(ws.vectors.ids())
        expected = ws.embedder.encode([records[0].text])[0]
        np.testing.assert_allclose(ws.vectors.get_embeddings([victim])[victim], expected, atol=1e-5)
        articles = ws.store.articles(source="pubmed").set_index("id")
        assert (articles.loc[[f"pubmed:{r.pmid}" for r in records], "status"] == "complete").all()


def test_duplicate_pmids_in_one_file_are_in_the_ingest_report_and_the_cli_output(toy_path, tmp_path, capsys):
    def row(pmid: int, text: str) -> str:
        return json.dumps({"pmid": str(pmid), "title": f"Study {pmid}",
                           "abstract": f"Metformin lowers glucose in type 2 diabetes; {text}."})

    lines = [row(8_200_001, "first"), row(8_200_002, "a"), row(8_200_001, "second copy"), row(8_200_003, "b"),
             row(8_200_002, "again"), row(8_200_001, "third copy")]
    source = tmp_path / "dups.jsonl"
    source.write_text("\n".join(lines) + "\n")
    with opened(toy_path) as ws:
        report = ws.ingest(source)
        assert report.duplicates == {"8200001": [1, 3, 6], "8200002": [2, 5]}
        assert report.read == 3 and report.ingested == 3  # each PMID once, not 6 records
        assert "2 PMIDs listed more than once (ingested once)" in str(report)
        assert report.to_frame()["duplicates"].item() == 2
        kept = ws.store.get_passages(["pubmed:8200001#p0"])["text"].item()
        assert "first" in kept  # the first occurrence wins
    assert main(["ingest", "-w", str(toy_path), str(source)]) == 0
    out = capsys.readouterr().out
    assert "unchanged 3" in out and "2 PMIDs listed more than once" in out
    assert "PMID 8200001 is listed 3 times (records 1, 3, 6); ingested once" in out
    assert "PMID 8200002 is listed 2 times (records 2, 5); ingested once" in out


@pytest.mark.slow
def test_sigkill_mid_vector_write_of_a_pdf_then_retry_agrees(toy_path):
    """A real SIGKILL in a child process half-way through the vector write of the DVT review PDF; the
    parent retries the same upload once."""
    script = f"""
import os, signal, sys
sys.path.insert(0, {str(FIXTURES)!r})
import toy_embedder
from engram_kit.store.vectors import VectorStore
from engram_kit.workspace import Workspace
upsert = VectorStore.upsert
def killing_upsert(self, ids, embeddings, metadata):
    half = len(ids) // 2
    upsert(self, ids[:half], embeddings[:half], metadata[:half])
    os.kill(os.getpid(), signal.SIGKILL)
VectorStore.upsert = killing_upsert
ws = Workspace.open({str(toy_path)!r})
ws.settings.progress = False
ws.ingest_pdf({str(DVT)!r})
"""
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    with opened(toy_path) as ws:
        crashed = ws.check()
        assert crashed.pending and crashed.missing_vectors and not crashed.consistent
        doc_id = crashed.pending[0]
        assert doc_id.startswith("doc:") and ws.store.articles(source="uploaded").set_index("id").loc[
            doc_id, "status"] == "processing"
        report = ws.ingest_pdf(DVT)
        assert report.id == doc_id and report.status == "complete" and report.passages >= 10
        _agree(ws, doc_id)


def _content(ws) -> tuple:
    """What a refused input must leave unchanged: passages, vectors, finished articles, stored objects."""
    articles = ws.store.articles()
    finished = tuple(sorted(articles.loc[articles["status"].str.startswith("complete"), "id"]))
    objects = ws.path / "objects" / "documents" / "sha256"
    stored = tuple(sorted(p.name for p in objects.glob("*/*"))) if objects.exists() else ()
    return ws.store.counts().get("Passage", 0), ws.vectors.count(), finished, stored


def test_a_references_only_pdf_without_a_title_is_an_error_not_complete(toy_path):
    # the probe's one "data changed": with no title block, the References heading was taken for the title,
    # so the reference list became 3 retrievable front-matter passages and the document ended complete
    refs = pymupdf.open()
    page = refs.new_page()
    page.insert_text((72, 60), "References", fontsize=12, fontname="hebo")
    page.insert_text((72, 80), "\n".join(f"{i}. Author A. A study. J Things. 2001;{i}:1-9." for i in range(1, 30)),
                     fontsize=9)
    with opened(toy_path) as ws:
        before = _content(ws)
        report = ws.documents.add_bytes(refs.tobytes(), "references-only.pdf", raise_on_error=False)
        assert report.status == "error" and "yields no passages" in report.error, str(report)
        assert ws.documents.detail(report.id).status == "error"
        assert not ws.store.article_passages(report.id).shape[0]
        passages, vectors, finished, _ = _content(ws)
        assert (passages, vectors, finished) == before[:3]  # nothing half-written
        assert ws.check().consistent and ws.info()["pending_articles"] == 0
        ws.documents.delete(report.id)
        assert _content(ws) == before


def test_a_reference_list_pdf_with_no_heading_at_all_is_an_error(toy_path):
    # one font, no heading: layout cannot tell the list from body text, so the text itself is read
    bare = pymupdf.open()
    bare.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), "\n".join(
        f"{i}. Author A, Author B. A study of things. J Things. 2001;{i}:1-9." for i in range(1, 30)), fontsize=9)
    with opened(toy_path) as ws:
        before = _content(ws)
        report = ws.documents.add_bytes(bare.tobytes(), "bare-references.pdf", raise_on_error=False)
        assert report.status == "error" and "only a numbered reference list" in report.error, str(report)
        assert _content(ws)[:3] == before[:3] and ws.check().consistent
        ws.documents.delete(report.id)
        assert _content(ws) == before


def test_finished_statuses_are_not_drift_and_repair_leaves_them(toy_path):
    # complete_with_warnings (a page without text) and superseded (an older version) are finished states:
    # check() called them pending (DRIFT) and repair would have looked at them as interrupted batches
    warned = pymupdf.open(stream=small_pdf("warned"), filetype="pdf")
    warned.new_page().draw_rect(pymupdf.Rect(50, 50, 400, 600), fill=(0.5, 0.5, 0.5))  # an image-only page
    with opened(toy_path) as ws:
        partial = ws.documents.add_bytes(warned.tobytes(), "partial.pdf")
        old = ws.documents.add_bytes(small_pdf("v1"), "versioned.pdf")
        new = ws.documents.add_bytes(small_pdf("v2"), "versioned.pdf")
        statuses = ws.store.articles(source="uploaded").set_index("id")["status"]
        assert (statuses[partial.id], statuses[old.id], statuses[new.id]) == \
            ("complete_with_warnings", "superseded", "complete")
        report = ws.check()
        assert report.consistent and not report.pending, str(report)
        assert ws.info()["pending_articles"] == 0
        assert not ws.check(repair=True).repaired
        after = ws.store.articles(source="uploaded").set_index("id")["status"]
        assert after.to_dict() == statuses.to_dict()
        for doc_id in (partial.id, new.id, old.id):
            ws.documents.delete(doc_id)


def test_the_size_limit_message_gives_size_and_limit_in_one_unit(toy_path):
    from engram_kit.files import too_large_message

    assert too_large_message("a.pdf", 50 * 2**20 + 1, 50 * 2**20) == (
        "a.pdf is 50.0 MiB (52,428,801 bytes); the limit is 50 MiB (52,428,800 bytes). Split it or raise the "
        "limit (max_bytes=).")
    assert too_large_message("b.md", 54_945_587, 50 * 2**20).startswith("b.md is 52.4 MiB (54,945,587 bytes); the "
                                                                       "limit is 50 MiB")
    with opened(toy_path) as ws:
        before = _content(ws)
        report = ws.documents.add_bytes(b"%PDF-1.4\n" + b"0" * (50 * 2**20 - 8), "big.pdf", raise_on_error=False)
        assert report.status == "error"
        assert "big.pdf is 50.0 MiB (52,428,801 bytes); the limit is 50 MiB (52,428,800 bytes)" in report.error
        assert "MB," not in report.error
        ws.documents.delete(report.id)
        assert _content(ws) == before


def test_a_mistyped_jsonl_exits_2_through_the_cli_and_commits_nothing(toy_path, tmp_path, capsys):
    good = json.dumps({"pmid": "8300001", "title": "t", "abstract": "Metformin lowers glucose in diabetes."})
    bad = json.dumps({"pmid": "8300002", "title": "t", "abstract": 12345})
    source = tmp_path / "typed.jsonl"
    source.write_text(good + "\n" + bad + "\n")
    with opened(toy_path) as ws:
        before = _content(ws), ws.store.counts().get("Article", 0)
    assert main(["ingest", "-w", str(toy_path), str(source)]) == 2
    err = capsys.readouterr().err
    assert "typed.jsonl:2: 'abstract' must be a JSON string, got int" in err and "Traceback" not in err
    with opened(toy_path) as ws:
        assert (_content(ws), ws.store.counts().get("Article", 0)) == before  # record 1 was not committed either
