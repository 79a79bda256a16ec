"""The document repository on a small real workspace: hierarchy, lifecycle, bad input, hubs, retrieval, CLI.

One workspace per module (bundled Hetionet sample + 20 PubMed abstracts + the DVT review PDF); tests that
change it restore what they change, in file order.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pytest

from engram_kit.errors import DataError, IngestionError, UnknownFileTypeError
from engram_kit.ingestion.documents import ObjectStore, check_filename, document_prefix
from engram_kit.resolution.aliases import AliasHubBuilder, aggregate_confidence, plan_hubs

from test_pdf import FILLER, PDFS, after_references_pdf, bad_inputs

DVT = PDFS / "bmc_dvt_prophylaxis_trauma_review.pdf"
LITERATURE = ("Article", "Section", "Passage", "NounPhrase", "HAS_SECTION", "CONTAINS", "MENTIONS", "MAPS_TO", "SAME_AS")


@pytest.fixture(scope="module")
def ws(tmp_path_factory, sample_records):
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.workspace import Workspace

    workspace = Workspace.create(tmp_path_factory.mktemp("docs") / "ws", data=resolve_data_paths())
    workspace.settings.progress = False
    workspace.ingest(list(islice(sample_records, 20)))
    workspace.report = workspace.ingest_pdf(DVT)
    yield workspace
    workspace.close()


def snapshot(ws) -> dict[str, int]:
    counts = ws.store.counts()
    return {**{k: counts[k] for k in LITERATURE}, "vectors": ws.vectors.count()}


def test_pdf_joins_the_graph_as_article_sections_passages(ws):
    report = ws.report
    assert report.status == "complete" and report.pages == 4 and report.sections == 9
    doc_id = report.id
    sections = ws.store.article_sections(doc_id)
    assert sections["title"].tolist()[:5] == ["Front matter", "Abstract", "Introduction", "Methods", "Conclusion"]
    passages = ws.store.article_passages(doc_id)
    assert len(passages) == report.passages >= 10
    assert (passages["source"] == "uploaded").all() and passages["page_start"].notna().all()
    assert "References" not in set(passages["section_title"])  # kept out of retrieval
    intro = passages[passages["section_title"] == "Introduction"]
    assert set(intro["page_start"]) == {1}
    for row in passages.itertuples():
        assert row.char_end > row.char_start
    hierarchy = ws.store.query("MATCH (a:Article {id: $id})-[:HAS_SECTION]->(s:Section)-[:CONTAINS]->(p:Passage) "
                               "RETURN count(p) AS n", {"id": doc_id})
    assert int(hierarchy["n"][0]) == len(passages)
    assert set(ws.vectors.ids(source="uploaded")) == set(passages["id"])


def test_mentions_from_every_level_and_shared_nounphrases(ws):
    mentions = ws.store.article_mentions([ws.report.id])
    assert {"Passage", "Section", "Article"} <= set(mentions["level"])  # summaries are extracted too
    sections = ws.store.article_sections(ws.report.id)
    assert sections.loc[sections["title"] == "References", "summary"].str.contains("kept out of retrieval").all()
    assert sections.loc[sections["title"] == "Conclusion", "summary"].str.len().gt(100).all()
    # NounPhrases merge with PubMed ones on (normalised name, type): one node, mentioned by both sources
    shared = ws.store.nounphrase_articles(mentions["nounphrase_id"].unique())
    by_np = shared.groupby("nounphrase_id")["article_id"].apply(lambda s: {a.split(":")[0] for a in s})
    assert any(sources == {"doc", "pubmed"} for sources in by_np)


def test_alias_hub_pattern_and_cross_document_confidence(ws):
    links = ws.store.nounphrase_links(ws.store.article_mentions([ws.report.id])["nounphrase_id"].unique())
    groups = ws.store.nounphrase_links(ws.store.nounphrases_linked_to(links["entity_id"].unique()))
    multi = groups.groupby("entity_id")["nounphrase_id"].nunique()
    assert (multi > 1).any()  # e.g. "deep venous thrombosis" and "venous thrombosis"
    report = AliasHubBuilder(ws.store).update(multi[multi > 1].index)
    frame = report.to_frame()
    for _, group in frame.groupby("entity_id"):
        hubs = group[group["is_hub"]]
        assert len(hubs) == 1 and hubs["aggregated"].iloc[0] == group["aggregated"].max()
    edges = ws.store.same_as_edges_from(frame["nounphrase_id"])
    assert len(edges) == len(frame) - frame["entity_id"].nunique()  # n - 1 per group, no clique
    assert set(edges["hub_id"]) <= set(frame.loc[frame["is_hub"], "nounphrase_id"])
    # the documented noisy-OR: seen in 3 documents scores above seen once, and never above 1
    assert aggregate_confidence(0.8, 1) == pytest.approx(0.8)
    assert aggregate_confidence(0.8, 3) == pytest.approx(1 - 0.2 * 0.6 ** 2)
    assert aggregate_confidence(0.8, 1) < aggregate_confidence(0.8, 2) < aggregate_confidence(0.8, 3) < 1.0


def test_plan_hubs_elects_the_most_trusted_alias():
    import pandas as pd

    evidence = pd.DataFrame({
        "nounphrase_id": ["np:a", "np:b", "np:c", "np:d"], "name": ["AD", "Alzheimer disease", "alzheimers", "x"],
        "entity_type": ["Disease"] * 4, "entity_id": ["D1", "D1", "D1", "D1"], "entity_name": ["Alzheimer's"] * 4,
        "confidence": [0.85, 0.9, 0.7, 0.9], "method": ["alias"] * 4, "documents": [5, 3, 1, 0]})
    evidence["aggregated"] = aggregate_confidence(evidence["confidence"].to_numpy(), evidence["documents"].to_numpy())
    groups, edges = plan_hubs(evidence)
    assert set(groups["nounphrase_id"]) == {"np:a", "np:b", "np:c"}  # unmentioned np:d takes no part
    hub = groups.loc[groups["is_hub"], "nounphrase_id"].item()
    assert hub == "np:a"  # 0.85 in 5 documents beats 0.9 in 3
    assert sorted((e.nounphrase_id, e.hub_id) for e in edges) == [("np:b", "np:a"), ("np:c", "np:a")]


def test_dedup_listing_and_detail(ws):
    before = snapshot(ws)
    again = ws.ingest_pdf(DVT.read_bytes(), filename="renamed.pdf")
    assert again.duplicate and again.id == ws.report.id and snapshot(ws) == before
    listing = ws.documents.list()
    assert list(listing.columns[:8]) == ["id", "title", "authors", "year", "status", "passages", "entities", "seconds"]
    row = listing[listing["id"] == ws.report.id].iloc[0]
    assert row["status"] == "complete" and row["year"] == 2010 and row["entities"] > 10 and row["seconds"] > 0
    assert len(ws.documents.list(search="THROMBOSIS")) == 1 and ws.documents.list(search="nothing-like-it").empty
    assert ws.documents.list(status="error").empty
    detail = ws.documents.detail(ws.report.id)
    assert detail.metadata.doi.value == "10.1186/1752-2897-4-1" and detail.metadata.title.confidence == 0.95
    assert detail.sections["page"].tolist()[:4] == [1, 1, 1, 1] and not detail.sections["retrievable"].iloc[-1]
    assert {"name", "levels", "entity_id", "confidence", "aggregated"} <= set(detail.entities.columns)
    assert detail.stats["passages"] == ws.report.passages and "thrombo" in detail.summary.lower()
    assert "Introduction" in str(detail) and detail.to_dict()["id"] == ws.report.id
    original = ws.path / "objects" / "documents" / document_prefix(detail.info["content_hash"]) / "original.pdf"
    assert original.read_bytes() == DVT.read_bytes()


def test_retrieval_source_filter_and_passage_pages(ws):
    question = "What are the complications of inferior vena cava filters and heparin in trauma patients?"
    uploaded = ws.retrieve(question, source="uploaded")
    assert uploaded.passages and all(p.source == "uploaded" for p in uploaded.passages)
    assert all(p.section and p.page_start for p in uploaded.passages)
    assert uploaded.passages[0].citation.startswith(ws.report.id + ", p. ")
    pubmed = ws.retrieve(question, source="pubmed")
    assert all(p.source == "pubmed" for p in pubmed.passages)
    both = ws.retrieve(question, source="all")
    assert any(p.source == "uploaded" for p in both.passages)
    # the setting word 'trauma' seeds nothing (it seeded the Side Effect Trauma, the only way this question
    # reached the review's passages through the graph); a question about the review's disease reaches them
    assert not any(e.name == "Trauma" for e in uploaded.entities) and "trauma" in uploaded.unresolved
    dvt = ws.retrieve("Does low molecular weight heparin prevent deep vein thrombosis in trauma patients?",
                      source="uploaded")
    assert "Deep vein thrombosis" in {e.name for e in dvt.entities}
    assert any(p.ppr_score > 0 for p in dvt.passages)  # reachable through the shared entity


@pytest.mark.parametrize("case", ["empty", "not_pdf", "corrupted", "truncated", "encrypted", "scanned"])
def test_bad_pdf_gives_error_status_and_changes_nothing_else(ws, case):
    data, name, pattern = bad_inputs()[case]
    before = snapshot(ws)
    with pytest.raises(IngestionError, match=pattern):
        ws.ingest_pdf(data, filename=name)
    after = snapshot(ws)
    assert after == {**before, "Article": before["Article"] + 1}
    errors = ws.documents.list(status="error")
    row = errors[errors["filename"] == name].iloc[0]
    assert row["passages"] == 0 and row["error"]
    ws.documents.delete(row["id"])
    assert snapshot(ws) == before


def test_limits_names_and_encodings_are_refused_with_a_status(ws, tmp_path):
    before = snapshot(ws)
    repo = ws.documents
    cases = [(DVT.read_bytes() + b"\n% another upload", "../../x.pdf", "path components"),
             ("Résumé: café au lait".encode("latin-1"), "notes.txt", "not UTF-8")]
    for data, name, pattern in cases:
        report = repo.add_bytes(data, name, raise_on_error=False)
        assert report.status == "error" and pytest.approx(0) == report.passages
        assert pattern in report.error
        assert ws.documents.detail(report.id).status == "error"
    with pytest.raises(IngestionError, match="4 pages, above the 2-page limit"):
        repo.max_pages = 2
        try:
            repo.add_bytes(DVT.read_bytes() + b"\n% variant", "long.pdf")
        finally:
            repo.max_pages = 500
    big = tmp_path / "big.pdf"
    big.write_bytes(DVT.read_bytes() + b"\n%" + b"0" * 200_000)
    repo.max_bytes = 300_000
    try:
        report = repo.add_file(big, raise_on_error=False)
    finally:
        repo.max_bytes = 50 * 1024 * 1024
    assert report.status == "error" and "the limit is 0.3 MiB (300,000 bytes)" in report.error
    with pytest.raises(UnknownFileTypeError):
        repo.add_bytes(b"data", "table.xlsx")
    errors = ws.documents.list(status="error")
    assert len(errors) == 4
    assert snapshot(ws) == {**before, "Article": before["Article"] + 4}
    with pytest.raises(DataError, match="no stored original"):
        repo.reprocess(repo.resolve_id(errors[errors["filename"] == "../../x.pdf"]["id"].item()))
    for doc_id in errors["id"]:
        repo.delete(doc_id)
    assert snapshot(ws) == before


def test_failure_mid_pipeline_leaves_no_partial_graph(ws, monkeypatch):
    from engram_kit.ingestion import documents

    text = b"# Trauma and pulmonary embolism\n\nPulmonary embolism after trauma is treated with heparin. " * 3
    before = snapshot(ws)

    def broken_hubs(self, entity_ids, **kwargs):  # after the graph and vectors were written
        raise IngestionError("injected failure after the graph write")

    monkeypatch.setattr(documents.AliasHubBuilder, "update", broken_hubs)
    with pytest.raises(IngestionError, match="injected failure"):
        ws.documents.add_bytes(text, "note.md")
    monkeypatch.undo()
    assert snapshot(ws) == {**before, "Article": before["Article"] + 1}
    doc_id = ws.documents.list(status="error")["id"].item()
    assert "injected failure" in ws.documents.detail(doc_id).error

    monkeypatch.setattr(type(ws.vectors), "upsert", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("disk full")))
    report = ws.documents.reprocess(doc_id, raise_on_error=False)
    monkeypatch.undo()
    assert report.status == "error" and "RuntimeError: disk full" in report.error
    assert snapshot(ws) == {**before, "Article": before["Article"] + 1}
    fixed = ws.documents.reprocess(doc_id)  # the stored original is processed again once the fault is gone
    assert fixed.status == "complete" and fixed.passages >= 1
    ws.documents.delete(doc_id)
    assert snapshot(ws) == before


def test_reprocess_is_idempotent_and_delete_keeps_shared_nounphrases(ws):
    before = snapshot(ws)
    passages = ws.store.article_passages(ws.report.id)["id"].tolist()
    again = ws.documents.reprocess(ws.report.id)
    assert again.status == "complete" and snapshot(ws) == before
    assert ws.store.article_passages(ws.report.id)["id"].tolist() == passages
    # a second document sharing entities with the PDF
    note = ws.documents.add_bytes(b"Pulmonary embolism and venous thrombosis complicate trauma care. " * 3, "note.txt")
    shared = set(ws.store.article_mentions([note.id])["nounphrase_id"]) & set(
        ws.store.article_mentions([ws.report.id])["nounphrase_id"])
    assert shared
    ws.documents.delete(note.id)
    assert set(ws.store.get_nodes(sorted(shared))["id"]) == shared  # still used by the PDF
    assert snapshot(ws) == before


def test_object_store_and_filename_rules(tmp_path):
    objects = ObjectStore(tmp_path)
    objects.put("sha256/ab/abc/original.pdf", b"%PDF-")
    assert objects.keys() == ["sha256/ab/abc/original.pdf"]
    assert (tmp_path / "documents" / "sha256" / "ab" / "abc" / "original.pdf").exists()
    for key in ("../x", "/etc/passwd", "a//b", "a/./b"):
        with pytest.raises(DataError):
            objects.path(key)
    objects.delete_prefix("sha256/ab")
    assert objects.keys() == []
    assert check_filename("paper (1).pdf") == "paper (1).pdf"
    for bad in ("../../x.pdf", "a/b.pdf", "C:\\x.pdf", "", "..", "x\x00.pdf"):
        with pytest.raises(DataError):
            check_filename(bad)


NOTE_V1 = b"# Protocol\n\nPulmonary embolism after trauma was treated with heparin in the first protocol. " * 3
NOTE_V2 = b"# Protocol\n\nVenous thrombosis after trauma is now prevented with compression devices. " * 3
#: A longer note and its revision in one sentence (the same source when the file name is the same, issue 34.1).
REPORT_V1 = ("# Ward report\n\n" + " ".join(
    f"Patient {i} on ward {i % 4} received heparin on day {i} after surgery and was discharged." for i in range(30))
             ).encode()
REPORT_V2 = REPORT_V1.replace(b"Patient 7 on ward 3 received heparin", b"Patient 7 on ward 3 received compression")


def _vector_ids(ws, doc_id):
    return [i for i in ws.vectors.ids(source="uploaded") if i.startswith(doc_id + "#")]


def test_new_version_of_a_source_replaces_the_old_one_and_as_new_keeps_both(ws):
    before = snapshot(ws)
    repo = ws.documents
    old = repo.add_bytes(REPORT_V1, "protocol.md")
    new = repo.add_bytes(REPORT_V2, "protocol.md")  # same name, one sentence changed: the same source
    assert old.id != new.id and new.status == "complete"
    assert repo.detail(old.id).status == "superseded"  # kept as history ...
    assert ws.store.article_passages(old.id).empty and _vector_ids(ws, old.id) == []  # ... never cited
    assert len(_vector_ids(ws, new.id)) == new.passages >= 1
    assert old.id not in set(repo.list()["id"]) and old.id in set(repo.list(status="superseded")["id"])
    versions = repo.versions(new.id)
    assert versions["id"].tolist() == [new.id, old.id] and versions["superseded_by"].tolist() == ["", new.id]
    assert versions["same"].tolist() == ["", "file name + content"]
    hits = ws.retrieve("Which patient on ward 3 received heparin after surgery?", source="uploaded")
    assert hits.passages and all(p.article_id != old.id for p in hits.passages)
    kept = repo.add_bytes(REPORT_V2 + b" Appendix.", "protocol.md", as_new=True)
    assert repo.detail(new.id).status == "complete" and repo.detail(kept.id).status == "complete"
    assert repo.drop_history() == 1
    for doc_id in (new.id, kept.id):
        repo.delete(doc_id)
    assert snapshot(ws) == before


def _doi_pdf(sentence: str) -> bytes:
    """A one-page PDF that prints its DOI on page 1 (read with confidence 0.85: enough to identify a version)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Heparin After Trauma", fontsize=16, fontname="hebo")
    page.insert_text((72, 80), "doi: 10.5555/engram.2026.19", fontsize=9)
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 700), sentence * 6 + FILLER * 3, fontsize=10)
    return doc.tobytes()


def test_versions_are_matched_by_url_and_by_doi_not_only_by_file_name(ws):
    before = snapshot(ws)
    repo = ws.documents
    old = repo.add_bytes(NOTE_V1, "protocol-draft.md", source_url="https://example.org/protocol")
    other = repo.add_bytes(NOTE_V1 + b" Other site.", "protocol-final.md", source_url="https://example.org/other")
    new = repo.add_bytes(NOTE_V2, "protocol-final.md", source_url="https://example.org/protocol#methods")
    assert repo.detail(old.id).status == "superseded"  # same URL (fragment ignored), another file name
    assert repo.detail(other.id).status == "complete"  # same file name, another URL: another source
    assert repo.versions(new.id)["id"].tolist() == [new.id, old.id]
    first = repo.add_bytes(_doi_pdf("Heparin was given to all patients in the first version of the paper. "),
                           "heparin_preprint.pdf")
    second = repo.add_bytes(_doi_pdf("Compression devices were used instead in the revised version. "),
                            "heparin-accepted.pdf")
    assert second.status in ("complete", "complete_with_warnings") and first.id != second.id
    assert repo.detail(first.id).status == "superseded"  # no URL, other file name: the DOI decides
    assert ws.store.article_passages(first.id).empty and _vector_ids(ws, first.id) == []
    assert repo.drop_history() == 2
    for doc_id in (new.id, other.id, second.id):
        repo.delete(doc_id)
    assert snapshot(ws) == before


def test_text_after_the_references_becomes_passages_of_its_own_sections(ws):
    before = snapshot(ws)
    report = ws.documents.add_bytes(after_references_pdf(), "after-refs.pdf")
    passages = ws.store.article_passages(report.id)
    late = passages[passages["page_start"] == 3]
    assert set(late["section_title"]) == {"Supplementary methods", "Appendix A: Data dictionary", "Declarations"}
    assert "References" not in set(passages["section_title"])
    assert late["text"].str.contains("Enoxaparin dosing").any()
    ws.documents.delete(report.id)
    assert snapshot(ws) == before


def test_purge_rewrites_the_stores_so_deleted_text_is_gone_from_disk(ws):
    before = snapshot(ws)
    token = b"Zorblaxine"
    note = ws.documents.add_bytes(b"# Zorblaxine\n\n" + (b"Zorblaxine reduced pulmonary embolism after trauma. " * 6),
                                  "zorblaxine.md")
    ws.literature_map([note.id], progress=False)  # caches the note's sentence graph under cache/litmap
    ws.documents.delete(note.id)

    def files_with_token() -> list[str]:
        return [str(p.relative_to(ws.path)) for p in ws.path.rglob("*") if p.is_file() and token in p.read_bytes()]

    assert files_with_token()  # the deleted text is still on disk before the purge
    report = ws.compact()
    # The vector index was rebuilt in this process and its unused slots held heap bytes of the deleted note in one
    # run of six (data_level0.bin); the literature-map cache kept its sentences. Neither may survive a purge.
    assert files_with_token() == []
    assert not list(ws.path.glob("vectors.compact*"))  # the row export and the build folder are gone
    assert report.graph_bytes_after > 0 and report.vectors_kept == before["vectors"]
    assert "->" in str(report)
    assert snapshot(ws) == before  # nothing live was lost
    hits = ws.retrieve("complications of inferior vena cava filters in trauma", source="uploaded")
    assert hits.passages and hits.passages[0].article_id == ws.report.id


def test_file_names_are_checked_before_anything_is_written_and_sources_keep_their_ids(ws, tmp_path):
    from urllib.parse import quote

    before = snapshot(ws)
    assert check_filename("cafe\u0301.pdf") == "caf\u00e9.pdf"  # NFC
    for bad, why in (("invoice\u202efdp.exe.pdf", "bidirectional"), ("x\udcff.pdf", "not valid UTF-8"),
                     ("x\x00.pdf", "control")):
        with pytest.raises(DataError, match=why):
            check_filename(bad)
    repo = ws.documents
    report = repo.add_bytes(NOTE_V1, "invoice\u202efdp.md", raise_on_error=False)
    assert report.status == "error" and "\u202e" not in report.filename and "\\u202e" in report.filename
    first = repo.add_bytes(b"", "a.pdf", raise_on_error=False)
    second = repo.add_bytes(b"", "b.pdf", raise_on_error=False)
    assert first.id != second.id and {first.filename, second.filename} == {"a.pdf", "b.pdf"}
    assert repo.detail(first.id).info["filename"] == "a.pdf"  # not overwritten by the second empty file
    note = tmp_path / "my note.md"
    note.write_bytes(NOTE_V2)
    via_url = repo.add_url("file://" + quote(str(note)))
    assert via_url.status == "complete" and via_url.filename == "my note.md"
    for doc_id in (report.id, first.id, second.id, via_url.id):
        repo.delete(doc_id)
    assert snapshot(ws) == before


def test_status_is_honest_about_lost_pages_and_empty_documents(ws):
    import pymupdf

    before = snapshot(ws)
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), "Heparin prevents venous thrombosis after "
                                  "trauma in most patients who can receive it safely. " * 12, fontsize=10)
    doc.new_page().draw_rect(pymupdf.Rect(50, 50, 400, 600), fill=(0.5, 0.5, 0.5))  # an image-only page
    report = ws.documents.add_bytes(doc.tobytes(), "partial.pdf")
    assert report.status == "complete_with_warnings" and report.passages >= 1
    assert "warning: 1 of 2 pages have no text layer" in str(ws.documents.detail(report.id))
    refs = pymupdf.open()
    page = refs.new_page()
    page.insert_text((72, 40), "A Title Set Large", fontsize=16, fontname="hebo")  # the title is metadata
    page.insert_text((72, 60), "References", fontsize=12, fontname="hebo")
    page.insert_text((72, 80), "\n".join(
        f"{i}. Author A, Author B. A study of things. J Things. 2001;{i}:1-9." for i in range(1, 30)), fontsize=9)
    empty = ws.documents.add_bytes(refs.tobytes(), "refs-only.pdf", raise_on_error=False)
    assert empty.status == "error" and "yields no passages" in empty.error
    for doc_id in (report.id, empty.id):
        ws.documents.delete(doc_id)
    assert snapshot(ws) == before


def test_same_file_name_is_the_same_source_only_with_similar_content(ws, tmp_path):
    before = snapshot(ws)
    repo = ws.documents
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    (tmp_path / "a" / "report.md").write_bytes(REPORT_V1)
    (tmp_path / "b" / "report.md").write_bytes(REPORT_V2)  # revised in one sentence, another folder
    (tmp_path / "c" / "report.md").write_bytes(NOTE_V2)  # an unrelated note that merely shares the name
    first = repo.add_file(tmp_path / "a" / "report.md")
    second = repo.add_file(tmp_path / "b" / "report.md")
    assert repo.detail(first.id).status == "superseded" and repo.detail(second.id).status == "complete"
    assert repo.versions(second.id)["same"].tolist() == ["", "file name + content"]
    unrelated = repo.add_file(tmp_path / "c" / "report.md")
    assert repo.detail(unrelated.id).status == "complete" and repo.detail(second.id).status == "complete"
    (tmp_path / "c" / "report.md").write_bytes(NOTE_V1)  # the same path, edited in place: the path decides
    edited = repo.add_file(tmp_path / "c" / "report.md")
    assert repo.detail(unrelated.id).status == "superseded"
    assert repo.versions(edited.id)["same"].tolist() == ["", "path"]
    assert repo.drop_history() == 2
    for doc_id in (second.id, edited.id):
        repo.delete(doc_id)
    assert snapshot(ws) == before


def test_entities_are_counted_one_way_in_the_report_and_the_listing(ws):
    from engram_kit.ingestion.documents import ENTITIES_DEFINITION

    row = ws.documents.list().set_index("id").loc[ws.report.id]
    links = ws.store.nounphrase_links(ws.store.article_mentions([ws.report.id])["nounphrase_id"].unique().tolist())
    assert row["entities"] == ws.report.entities == links["entity_id"].nunique() > 10
    assert row["noun_phrases"] > row["entities"]  # the count the listing used to show as "entities"
    assert f"linked to {ws.report.entities} graph entities" in str(ws.report)
    assert "knowledge-graph entities" in ENTITIES_DEFINITION


def _linked(ws, doc_id, level="Passage"):
    mentions = ws.store.article_mentions([doc_id])
    mentions = mentions[mentions["level"] == level]
    links = ws.store.nounphrase_links(mentions["nounphrase_id"].unique().tolist())
    return set(links["entity_name"].str.lower()) if not links.empty else set()


def test_text_that_used_to_come_to_nothing_is_linked_and_lost_glyphs_are_reported(ws):
    import pymupdf

    before = snapshot(ws)
    repo = ws.documents
    sentence = ("Fluoxetine was compared with placebo in idiopathic pulmonary fibrosis, and IL6 levels were measured "
                "in every patient before and after twelve weeks. ")
    # a PDF in one font and size: no heading, so its text is body text and is linked (it was front matter)
    bare = pymupdf.open()
    bare.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), sentence * 12, fontsize=10, fontname="helv")
    flat = repo.add_bytes(bare.tobytes(), "flat.pdf")
    assert {"fluoxetine", "idiopathic pulmonary fibrosis", "il6"} <= _linked(ws, flat.id)
    # ligature characters in Markdown link like the letters they stand for
    note = repo.add_bytes(("# Notes\n\n" + sentence.replace("fi", "\ufb01").replace("fl", "\ufb02") * 3).encode(),
                          "ligatures.md")
    assert {"fluoxetine", "idiopathic pulmonary fibrosis"} <= _linked(ws, note.id)
    # a glyph the font cannot encode: reported, shown as U+FFFD, never linked through
    lost = pymupdf.open()
    page = lost.new_page()
    page.insert_text((72, 60), "Cytokines In Fibrosis", fontsize=16, fontname="hebo")
    page.insert_text((72, 90), "Levels of IL\u22606 and \u03b2-amyloid rose.", fontsize=10, fontname="helv")
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 700), sentence.replace("IL6", "cytokine") * 8, fontsize=10,
                        fontname="helv")
    gap = repo.add_bytes(lost.tobytes(), "lost-glyph.pdf")
    assert gap.status == "complete_with_warnings"
    assert "2 characters could not be read" in str(repo.detail(gap.id))
    assert "il6" not in _linked(ws, gap.id)
    assert "IL\ufffd6" in " ".join(ws.store.article_passages(gap.id)["text"])
    for doc_id in (flat.id, note.id, gap.id):
        repo.delete(doc_id)
    assert snapshot(ws) == before


def test_entities_already_linked_elsewhere_are_counted_in_the_report(ws):
    """A document whose noun phrases an earlier document already linked: report and listing agree. (The case the
    newcomer saw, 17 in the report against 18 in the listing for the DVT review ingested beside the 430 bundled
    abstracts, needs those abstracts; this small case passes on the old code too and guards the invariant.)"""
    before = snapshot(ws)
    text = ("# Thrombosis note\n\nDeep venous thrombosis after trauma is prevented with heparin, and pulmonary "
            "embolism is its most feared complication in patients with fractures.\n")
    note = ws.documents.add_bytes(text.encode(), "thrombosis-note.md")
    row = ws.documents.list().set_index("id").loc[note.id]
    assert note.entities == row["entities"] >= 2, (note.entities, row["entities"])
    ws.documents.delete(note.id)
    assert snapshot(ws) == before


def test_cli_ingest_docs_doc_rm(ws, capsys, monkeypatch):  # `engram reprocess` shares cmd code with rm
    import io
    import json
    import sys

    from engram_kit.cli import main

    path = str(ws.path)
    ws.close()  # the CLI opens the workspace itself (single writer); this is the module's last test
    assert main(["docs", "-w", path]) == 0
    assert ws.report.id in capsys.readouterr().out
    assert main(["doc", ws.report.id.split(":")[1][:8], "-w", path]) == 0
    out = capsys.readouterr().out
    assert "Introduction" in out and "aggregated" in out
    note = Path(path).parent / "note.md"
    note.write_text("# Results\n\nHeparin reduced venous thrombosis after trauma.\n")
    assert main(["ingest", str(note), "-w", path]) == 0
    assert "complete" in capsys.readouterr().out
    # rm without --yes off a terminal (pytest's stdin is not one) refuses and deletes nothing (issue 34.9)
    assert main(["rm", ws.report.id, "-w", path]) == 2
    assert "stdin is not a terminal; pass --yes" in capsys.readouterr().err
    # on a terminal it asks: anything but y/yes keeps the document, "y" deletes it
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert main(["rm", ws.report.id, "-w", path]) == 1
    out = capsys.readouterr().out
    assert f"Delete {ws.report.id} " in out and "[y/N]" in out and f"Not deleted: {ws.report.id}." in out
    assert main(["docs", "-w", path]) == 0
    assert ws.report.id in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert main(["rm", ws.report.id, "-w", path]) == 0
    assert f"Deleted {ws.report.id} (" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["docs", "--json", "-w", path]) == 0
    (note_id,) = [d["id"] for d in json.loads(capsys.readouterr().out)]
    assert main(["rm", note_id[4:12], "--yes", "-w", path]) == 0  # --yes: no prompt, for scripts
    assert capsys.readouterr().out.startswith(f"Deleted {note_id} (")
    assert main(["docs", "-w", path]) == 0
    out = capsys.readouterr().out
    assert ws.report.id not in out and "note" not in out.lower() or "Results" in out or "Heparin" in out
    assert main(["doc", "doc:ffff", "-w", path]) == 2
    assert "matches no document" in capsys.readouterr().err
