"""PDF parsing on the four bundled CC BY papers, chunking with the real tokenizer, summaries, bad input.

No workspace here: parsing, chunking and summarising are pure functions (the lifecycle is in
test_documents.py). ``bad_inputs`` is imported by test_documents.py too.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from engram_kit.errors import DataError
from engram_kit.ingestion.chunking import (
    MAX_PASSAGE_TOKENS,
    chunk_text,
    default_token_counter,
)
from engram_kit.text import sentence_spans
from engram_kit.ingestion.pdf import canonical_section, parse_pdf, split_authors
from engram_kit.ingestion.summaries import ExtractiveSummarizer

PDFS = Path(__file__).resolve().parents[1] / "data" / "pdfs"

#: (section title, page of its heading) in reading order, as printed in each paper.
EXPECTED_SECTIONS = {
    "bmc_dvt_prophylaxis_trauma_review.pdf": [
        ("Front matter", 1), ("Abstract", 1), ("Introduction", 1), ("Methods", 1), ("Conclusion", 2),
        ("Author details", 2), ("Authors’ contributions", 2), ("Competing interests", 2), ("References", 2)],
    "bmc_malawi_quality_improvement.pdf": [
        ("Front matter", 1), ("Abstract", 1), ("Background", 2), ("Methods", 2), ("Results", 3),
        ("Document review and participatory observations", 4), ("Discussion", 4), ("Conclusions", 9),
        ("Additional file", 9), ("Competing interests", 9), ("Authors’ contributions", 9), ("Acknowledgments", 9),
        ("Author details", 9), ("References", 9)],
    "hindawi_heart_failure_programmes.pdf": [
        ("Front matter", 1), ("1. Introduction", 1), ("2. Methods", 2), ("3. Results", 2),
        ("4. Experience of Programmes", 2), ("5. Maintenance", 3), ("6. Improvements", 3), ("7. GP Services", 3),
        ("8. Quality of Care", 4), ("9. Labelling the Condition “Heart Failure”", 4), ("10. Medication", 4),
        ("11. Discussion", 4), ("Acknowledgments", 5), ("References", 5)],
    "peerjcs_vespa_evolutionary_analyses.pdf": [
        ("Front matter", 1), ("ABSTRACT", 1), ("INTRODUCTION", 1), ("METHODS", 3), ("RESULTS", 6),
        ("DISCUSSION", 12), ("CONCLUSION", 13), ("ACKNOWLEDGEMENTS", 13), ("ADDITIONAL INFORMATION AND DECLARATIONS", 13),
        ("Funding", 13), ("Competing Interests", 14), ("Author Contributions", 14), ("Data Availability", 14),
        ("Supplemental Information", 14), ("REFERENCES", 14)],
}


@pytest.fixture(scope="module")
def parsed():
    return {name: parse_pdf((PDFS / name).read_bytes(), filename=name) for name in EXPECTED_SECTIONS}


@pytest.mark.parametrize("name", sorted(EXPECTED_SECTIONS))
def test_sections_and_heading_pages(parsed, name):
    doc = parsed[name]
    assert [(s.title, s.page) for s in doc.sections] == EXPECTED_SECTIONS[name]
    refs = [s for s in doc.sections if s.kind == "references"]
    assert len(refs) == 1 and not refs[0].retrievable and len(refs[0].text) > 3000
    assert all(s.retrievable for s in doc.sections if s.kind != "references")


def test_section_kinds_and_page_map(parsed):
    doc = parsed["peerjcs_vespa_evolutionary_analyses.pdf"]
    kinds = [s.kind for s in doc.sections]
    assert kinds[:7] == ["front_matter", "abstract", "introduction", "methods", "results", "discussion", "conclusion"]
    results = doc.sections[4]
    assert results.page_at(0) == 6 and results.page_at(len(results.text) - 1) == 12  # spans pages 6-12
    assert "dropped" in " ".join(doc.warnings)  # rotated table headers are reported, not silently kept


def test_two_column_reading_order_and_dehyphenation(parsed):
    intro = parsed["bmc_dvt_prophylaxis_trauma_review.pdf"].sections[2].text
    assert intro.startswith("Multisystem traumatic injury is a significant risk factor")
    # the left column ends mid-sentence; the right column continues it (not the next left paragraph)
    assert "pharmacologic anticoagulation with low molecular weight heparins (LMWHs)" in intro
    assert "DVT alone is not life-threatening, a resulting" in intro  # "life-threa-" + "tening" re-joined
    # running headers are gone
    assert "Page 2 of 4" not in intro


def test_metadata_fallback_chain(parsed):
    dvt = parsed["bmc_dvt_prophylaxis_trauma_review.pdf"].metadata
    assert dvt.title.value.startswith("Complications related to deep venous thrombosis prophylaxis")
    assert dvt.title.source == "first-page layout + pdf metadata" and dvt.title.confidence == 0.95
    assert dvt.authors.value[:2] == ["Indraneel Datta", "Chad G Ball"]
    assert (dvt.doi.value, dvt.doi.source) == ("10.1186/1752-2897-4-1", "pdf metadata subject")
    assert dvt.year.value == 2010
    malawi = parsed["bmc_malawi_quality_improvement.pdf"].metadata  # PDF Title entry is junk: "6489122611071476 1..10"
    assert malawi.title.source == "first-page layout" and malawi.title.value.endswith("Lilongwe, Malawi")
    assert (malawi.doi.value, malawi.doi.source, malawi.doi.confidence) == ("10.1186/1472-6963-14-1", "last page text", 0.6)
    hindawi = parsed["hindawi_heart_failure_programmes.pdf"].metadata
    assert hindawi.authors.value == ["Nuala E. Tully", "Karen M. Morgan", "Helen M. Burke", "Hannah M. McGee"]
    assert (hindawi.year.value, hindawi.year.source) == (2010, "page 1 publication date")
    peerj = parsed["peerjcs_vespa_evolutionary_analyses.pdf"].metadata
    assert peerj.doi.value == "10.7717/peerj-cs.118" and peerj.year.value == 2017
    assert peerj.authors.value == ["Andrew E. Webb", "Thomas A. Walsh", "Mary J. O’Connell"]
    assert set(peerj.to_frame()["field"]) == {"title", "authors", "year", "doi"}


def test_heading_names_and_authors():
    assert canonical_section("2. Materials and Methods") == "methods"
    assert canonical_section("REFERENCES") == "references"
    assert canonical_section("Authors’ contributions") == "contributions"
    assert canonical_section("Patients were enrolled") == ""
    assert split_authors("Andrew E. Webb1, Thomas A. Walsh1 and Mary J. O’Connell1,2") == [
        "Andrew E. Webb", "Thomas A. Walsh", "Mary J. O’Connell"]


# --- chunking -------------------------------------------------------------------------------------------
def test_sentence_splitter_keeps_abbreviations():
    text = "Smith et al. showed it (Fig. 2). Levels were 0.5 mg. J. Doe agreed? Yes.\n\nNew paragraph"
    sentences = [text[s:e] for s, e in sentence_spans(text, line_breaks="blank")]
    assert sentences == ["Smith et al. showed it (Fig. 2).", "Levels were 0.5 mg.", "J. Doe agreed?", "Yes.",
                         "New paragraph"]


def test_chunks_are_token_aware_overlapping_and_end_on_sentences(parsed):
    counter = default_token_counter()
    text = parsed["peerjcs_vespa_evolutionary_analyses.pdf"].sections[4].text  # RESULTS, ~10k chars
    chunks = chunk_text(text, counter=counter)
    assert len(chunks) >= 8
    sizes = counter.count_many([c.text for c in chunks])
    assert max(sizes) <= MAX_PASSAGE_TOKENS
    assert sum(150 <= n for n in sizes[:-1]) >= len(sizes) - 2  # ~200-254 tokens except the tail
    for chunk in chunks:
        assert text[chunk.char_start:chunk.char_end] == chunk.text
    ends = {(s, e) for s, e in sentence_spans(text, line_breaks="blank")}
    assert all(any(e == c.char_end for _, e in ends) for c in chunks)  # never cut mid-sentence here
    overlaps = [b.char_start < a.char_end for a, b in zip(chunks, chunks[1:])]
    assert sum(overlaps) >= len(overlaps) - 1


def test_oversized_sentence_is_cut_at_token_boundaries():
    counter = default_token_counter()
    long_sentence = " ".join(["neuroinflammation"] * 400) + "."
    chunks = chunk_text(long_sentence, counter=counter)
    assert len(chunks) >= 2 and all(c.tokens <= MAX_PASSAGE_TOKENS for c in chunks)
    with pytest.raises(DataError, match="inconsistent"):
        chunk_text("x", counter=counter, target_tokens=10, max_tokens=5)


def test_extractive_summary_picks_central_sentences(parsed):
    section = parsed["bmc_dvt_prophylaxis_trauma_review.pdf"].sections[4]  # Conclusion
    summary = ExtractiveSummarizer().summarize(section.text, title=section.title)
    picked = [summary_sentence for summary_sentence in summary.split(". ") if summary_sentence]
    assert 1 <= len(sentence_spans(summary, line_breaks="blank")) <= 3
    assert all(p.rstrip(".") in " ".join(section.text.split()) for p in picked)
    assert "thromboprophylaxis" in summary.lower()


# --- bad input ------------------------------------------------------------------------------------------
def _encrypted() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Confidential trial results " * 4)
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")


def _scanned() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 400, 600), color=(0, 0, 0), fill=(0.8, 0.8, 0.8))  # an "image" only
    return doc.tobytes()


def bad_inputs() -> dict[str, tuple[bytes, str, str]]:
    """Bad uploads: case -> (bytes, file name, regex the error message must match)."""
    real = (PDFS / "bmc_dvt_prophylaxis_trauma_review.pdf").read_bytes()
    return {
        "empty": (b"", "empty.pdf", "empty"),
        "not_pdf": (b"Patient notes, plain text, saved with the wrong extension.\n" * 5, "notes.pdf", "not a PDF"),
        "corrupted": (b"%PDF-1.4\n" + bytes(range(256)) * 20, "broken.pdf", "corrupted"),
        "truncated": (real[:2000], "truncated.pdf", "corrupted"),
        "encrypted": (_encrypted(), "locked.pdf", "encrypted"),
        "scanned": (_scanned(), "scan.pdf", "no text layer.*OCR"),
    }


@pytest.mark.parametrize("case", ["empty", "not_pdf", "corrupted", "truncated", "encrypted", "scanned"])
def test_bad_pdfs_raise_clear_errors(case):
    data, name, pattern = bad_inputs()[case]
    with pytest.raises(DataError, match=pattern):
        parse_pdf(data, filename=name)


def test_size_and_page_limits():
    data = (PDFS / "bmc_dvt_prophylaxis_trauma_review.pdf").read_bytes()
    with pytest.raises(DataError, match="4 pages, above the 3-page limit"):
        parse_pdf(data, max_pages=3)
    with pytest.raises(DataError, match="above the 0 MB limit"):
        parse_pdf(data, max_bytes=100_000)
