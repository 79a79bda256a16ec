"""PDF parsing on the four bundled CC BY papers, chunking with the real tokenizer, summaries, bad input.

No workspace here: parsing, chunking and summarising are pure functions (the lifecycle is in
test_documents.py). ``bad_inputs`` is imported by test_documents.py too.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pymupdf
import pytest

from benchmarks.pdf_structure import raw_superscript_glues  # one scan for the test and the benchmark
from engram_kit.errors import DataError
from engram_kit.ingestion.chunking import (
    MAX_PASSAGE_TOKENS,
    chunk_text,
    default_token_counter,
)
from engram_kit.text import sentence_spans
from engram_kit.ingestion.pdf import canonical_section, parse_pdf, split_authors
from engram_kit.ingestion.repair import LIGATURES, is_known
from engram_kit.ingestion.summaries import ExtractiveSummarizer

PDFS = Path(__file__).resolve().parents[1] / "data" / "pdfs"

#: Hand-made gold structure (headings with level and page, tables, captions) of the four papers.
GOLD = json.loads((Path(__file__).parent / "fixtures" / "pdf_structure_gold.json").read_text(encoding="utf-8"))
GOLD.pop("_about")


@pytest.fixture(scope="module")
def parsed():
    return {name: parse_pdf((PDFS / name).read_bytes(), filename=name) for name in GOLD}


@pytest.mark.parametrize("name", sorted(GOLD))
def test_every_gold_heading_found_with_its_level_and_page(parsed, name):
    doc = parsed[name]
    found = [[s.title, s.level, s.page] for s in doc.sections if s.kind != "front_matter"]
    assert found == GOLD[name]["headings"]  # recall and precision: nothing missed, nothing extra, in order
    refs = [s for s in doc.sections if s.kind == "references"]
    assert len(refs) == 1 and not refs[0].retrievable and len(refs[0].text) > 3000
    assert all(s.retrievable for s in doc.sections if s.kind != "references")
    for i, section in enumerate(doc.sections):  # nesting: a level-n section's parent is the last level < n
        if section.level == 1:
            assert section.parent is None
        else:
            parent = doc.sections[section.parent]
            assert parent.level == section.level - 1 and section.parent < i


@pytest.mark.parametrize("name", sorted(GOLD))
def test_every_table_is_a_table_block_and_captions_are_kept(parsed, name):
    blocks = [b for s in parsed[name].sections for b in s.blocks]
    tables = [[re.match(r"Table \d+", b.title).group(0), b.page] for b in blocks if b.kind == "table"]
    assert tables == GOLD[name]["tables"]
    for block in (b for b in blocks if b.kind == "table"):
        assert len(block.header) >= 2 and len(block.rows) >= 2
        assert block.text.startswith("Table") and sum(bool(h) for h in block.header) >= 2  # caption first; named columns
    captions = [[re.match(r"Fig(?:ure|\.) \d+", b.title).group(0), b.page] for b in blocks if b.kind == "caption"]
    assert captions == GOLD[name].get("captions", [])
    prose = " ".join(s.text for s in parsed[name].sections)
    for block in blocks:  # never spliced into prose
        assert block.title not in prose


def test_table_rows_keep_their_header():
    doc = parse_pdf((PDFS / "bmc_malawi_quality_improvement.pdf").read_bytes())
    table = next(b for s in doc.sections for b in s.blocks if b.kind == "table")
    assert table.header[:3] == ("Item", "Yes (%)", "No (%)")
    assert table.rows[0][0] == "Privacy given" and "Item: Privacy given; Yes (%):" in table.text


def _all_text(doc) -> str:
    return "\n".join([s.text for s in doc.sections] + [b.text for s in doc.sections for b in s.blocks])


@pytest.mark.parametrize("name", sorted(GOLD))
def test_no_mis_mapped_glyph_or_glued_superscript_in_any_passage(parsed, name):
    text = _all_text(parsed[name])
    assert not [c for c in text if unicodedata.category(c) in ("Cc", "Co", "Cn") and c not in "\n\t"]
    assert "\ufffd" not in text
    suspicious = [w for w in re.findall(r"\w+", text) if not w.isascii() and not is_known(w)
                  and any(is_known(w.replace(c, lig)) for c in w if not c.isascii() for lig in LIGATURES)]
    assert suspicious == []
    assert not re.search(r"[\u00c2-\u00df][\u0102-\u017e]", text)  # UTF-8 read through a T1 font ("NaÃŕve")
    glued = raw_superscript_glues(PDFS / name)
    assert [g for g in glued if g in text] == []


def test_encoding_damage_of_the_peerj_paper_is_repaired(parsed):
    text = _all_text(parsed["peerjcs_vespa_evolutionary_analyses.pdf"])
    assert "Naïve Empirical Bayes" in text and "the initial ω value" in text and "ÏĽ" not in text
    hindawi = _all_text(parsed["hindawi_heart_failure_programmes.pdf"])
    assert "Dahlström" in hindawi and "¨" not in hindawi


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKC", text).lower())


@pytest.mark.parametrize("name", sorted(GOLD))
def test_pages_are_right_for_every_passage(parsed, name):
    pages = [_letters(p.get_text()) for p in pymupdf.open(PDFS / name)]
    counter = default_token_counter()
    checked = 0
    for section in parsed[name].sections:
        chunks = chunk_text(section.text, counter=counter) if section.text else []
        for chunk in chunks:
            first, last = section.page_at(chunk.char_start), section.page_at(chunk.char_end - 1)
            words = re.findall(r"[A-Za-z]{6,}", chunk.text)
            head = next((w for w in words[:5] if _letters(w) in pages[first - 1]), None)
            tail = next((w for w in reversed(words[-5:]) if _letters(w) in pages[last - 1]), None)
            assert head and tail, (section.title, first, last, chunk.text[:80])
            checked += 1
        for block in section.blocks:
            assert _letters(block.title.split()[-1]) in pages[block.page - 1] or block.kind == "table"
    assert checked >= 5


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
    with pytest.raises(DataError, match=r"the limit is 0.1 MiB \(100,000 bytes\)"):
        parse_pdf(data, max_bytes=100_000)


# --- constructed PDFs: one per text-repair case ---------------------------------------------------------
FILLER = ("Patients were followed for twelve months after discharge and outcomes were recorded by two reviewers "
          "who did not know the allocation. ")


def _pdf(lines: list[tuple[str, float, float]], *, extra: str = FILLER * 3) -> bytes:
    """A one-page PDF: ``(text, font size, baseline raise)`` runs written left to right on one line, then
    ``extra`` as a paragraph below (so the page has a text layer)."""
    return _lines_pdf([[(text, size, rise, "helv") for text, size, rise in lines]], extra=extra)


def _lines_pdf(lines: list[list[tuple[str, float, float, str]]], *, extra: str = FILLER * 3) -> bytes:
    """Like :func:`_pdf` with several lines (14 pt apart) of ``(text, size, raise, base-14 font name)`` runs:
    ``symb`` is Adobe Symbol (its glyphs come out as Latin letters), ``zadb`` ZapfDingbats."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 100.0
    for runs in lines:
        x = 72.0
        for text, size, rise, font in runs:
            page.insert_text((x, y - rise), text, fontsize=size, fontname=font)
            x += pymupdf.get_text_length(text, fontsize=size, fontname=font)
        y += 14
    page.insert_textbox(pymupdf.Rect(72, y + 16, 520, y + 300), extra, fontsize=10)
    return doc.tobytes()


def _text(data: bytes) -> str:
    return _all_text(parse_pdf(data, filename="constructed.pdf"))


def test_ligatures_mapped_to_wrong_code_points_are_repaired_from_font_and_dictionary_evidence():
    data = _pdf([("A speciíc Side Eìect reported by Pízer was signiícant and insuïcient.", 10, 0)])
    text = _text(data)
    assert "A specific Side Effect reported by Pfizer was significant and insufficient." in text
    doc = parse_pdf(data)
    assert any("mis-mapped ligature" in w for w in doc.warnings)
    # a font that uses the code point as a real letter keeps it (known words are evidence against a mapping)
    assert "García and José met in Bogotá" in _text(_pdf([("García and José met in Bogotá about the café.", 10, 0)]))


def test_dehyphenation_keeps_real_compounds_and_joins_split_words():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "We used a degree-\npreserving null model for beta-\namyloid and Ac-\nSDKP levels with "
                     "signifi-\ncance tests in high-\ndegree nodes and p-\nvalues below thresholds for all of the "
                     "patients.\n" + FILLER, fontsize=10)
    text = _text(doc.tobytes())
    assert "degree-preserving null model for beta-amyloid and Ac-SDKP levels with significance tests" in text
    assert "high-degree nodes and p-values" in text


def test_unicode_hyphens_and_labels_at_line_ends():
    """Too little joining: a typesetter's U+2010 hyphen at the line end was not seen as a hyphen ("anti‐ TNF‐ α");
    too much: a one-letter label or a Greek suffix must keep its hyphen ("n-tridecanal", "TNF-α")."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)  # built-in font with U+2010 and Greek
    page.insert_text((72, 100), "Patients received anti\u2010\nTNF\u2010\n\u03b1 therapy and the odour n\u2010\ntridecanal "
                     "and n-\ntridecanal were signifi\u2010\ncant in most of the patients.\n" + FILLER, fontsize=10,
                     fontname="F0")
    text = _text(doc.tobytes())
    assert "Patients received anti-TNF-α therapy and the odour n-tridecanal and n-tridecanal were significant" in text
    assert "\u2010 " not in text and "ntridecanal" not in text.replace("n-tridecanal", "")
    # the same with the Greek letter drawn from the Symbol font ("a" -> alpha) after an ASCII hyphen
    data = _lines_pdf([[("Patients received anti-", 10, 0, "helv")], [("TNF-", 10, 0, "helv")],
                       [("a", 10, 0, "symb"), (" therapy or TNF-", 10, 0, "helv")], [("alpha blockers.", 10, 0, "helv")]])
    assert "Patients received anti-TNF-α therapy or TNF-alpha blockers." in _text(data)


def test_line_start_affiliation_and_footnote_markers_are_dropped():
    data = _lines_pdf([[("1", 6, 3.5, "helv"), ("These authors contributed equally to this work.", 10, 0, "helv")],
                       [("*", 6, 3.5, "helv"), ("Correspondence: jane.doe@example.org", 10, 0, "helv")],
                       [("The dose was 10", 10, 0, "helv"), ("-5", 6, 3.5, "helv"), (" mol per litre.", 10, 0, "helv")]])
    text = _text(data)
    assert "These authors contributed equally to this work." in text and "1These" not in text
    assert "Correspondence: jane.doe@example.org" in text and "*Correspondence" not in text
    assert "The dose was 10^-5 mol per litre." in text  # a raised exponent after a digit is still kept


def test_dingbat_bullets_and_symbol_font_greek_through_a_pdf():
    data = _lines_pdf([[("r", 10, 0, "zadb"), (" Heparin reduced thrombosis in the cohort", 10, 0, "helv")],
                       [("The sum ", 10, 0, "helv"), ("S", 10, 0, "symb"), (" of the scores and the ", 10, 0, "helv"),
                        ("a", 10, 0, "symb"), (" level were reported.", 10, 0, "helv")]])
    text = _text(data)
    assert "• Heparin reduced thrombosis in the cohort" in text and "r Heparin" not in text
    assert "The sum Σ of the scores and the α level were reported." in text
    # a Symbol-font glyph without any Unicode (code 1): removed, counted, and the symbol font named
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "x", fontname="helv", fontsize=11)
    page.insert_text((72, 90), "x", fontname="symb", fontsize=11)  # registers the font resources
    for xref in page.get_contents()[1:]:
        doc.update_stream(xref, b"")
    body = FILLER.encode()
    doc.update_stream(page.get_contents()[0], b"BT 1 0 0 1 72 770 Tm /helv 11 Tf (The sum ) Tj /symb 11 Tf <01> Tj "
                      b"/helv 11 Tf ( of the values was computed for every patient.) Tj ET BT 1 0 0 1 72 740 Tm (" +
                      body[:90] + b") Tj ET BT 1 0 0 1 72 726 Tm (" + body[90:] + b") Tj ET")
    parsed_doc = parse_pdf(doc.tobytes())
    assert "The sum of the values was computed" in _all_text(parsed_doc)
    assert any("1 characters could not be read" in p and "fonts: Symbol 1" in p and "Greek letters or math" in p
               for p in parsed_doc.problems)


def after_references_pdf() -> bytes:
    """Three pages: Introduction/Methods/Results, a reference list on page 2, then supplementary methods, an
    appendix and declarations on page 3 (headings in the body's heading style). Used by test_documents.py."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Heparin After Trauma: A Constructed Study", fontsize=16, fontname="hebo")
    for y, title in ((120, "Introduction"), (320, "Methods"), (520, "Results")):
        page.insert_text((72, y), title, fontsize=12, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, y + 10, 520, y + 180), FILLER * 4, fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 80), "References", fontsize=12, fontname="hebo")
    page.insert_text((72, 100), "\n".join(f"{i}. Author A, Author B. A study of things. J Things. 2001;{i}:1-9."
                                          for i in range(1, 30)), fontsize=9)
    page = doc.new_page()
    for y, title, sentence in (
            (80, "Supplementary methods", "Enoxaparin dosing was adjusted for renal function in every patient. "),
            (320, "Appendix A: Data dictionary", "Each registry variable is listed with its definition and unit. "),
            (520, "Declarations", "The authors declare that they have no competing interests of any kind. ")):
        page.insert_text((72, y), title, fontsize=12, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, y + 10, 520, y + 180), sentence * 5, fontsize=10)
    return doc.tobytes()


def test_body_text_after_the_reference_list_gets_its_own_sections():
    """The issue's trigger: supplementary pages after the references became part of References. (Before the
    fix, "Supplementary methods" matched the caption pattern and was no heading.)"""
    doc = parse_pdf(after_references_pdf(), filename="after-refs.pdf")
    found = [(s.title, s.kind, s.page, s.retrievable) for s in doc.sections]
    assert found == [("Introduction", "introduction", 1, True), ("Methods", "methods", 1, True),
                     ("Results", "results", 1, True), ("References", "references", 2, False),
                     ("Supplementary methods", "supplementary", 3, True),
                     ("Appendix A: Data dictionary", "", 3, True), ("Declarations", "", 3, True)]
    refs = doc.sections[3].text
    assert refs.startswith("1. Author A") and refs.endswith("2001;29:1-9.")
    assert not any(w in refs for w in ("Enoxaparin", "registry", "competing"))
    counter = default_token_counter()
    for section, word in zip(doc.sections[4:], ("Enoxaparin", "registry", "competing")):
        chunks = chunk_text(section.text, counter=counter)
        assert chunks and word in chunks[0].text and section.page_at(0) == 3


def test_footnote_at_the_page_bottom_is_not_spliced_into_a_sentence():
    """A correspondence/affiliation footnote under the left column stays out of the sentence that runs on into
    the right column, and out of the sentence that runs on from the right column onto the next page."""
    doc = pymupdf.open()
    page = doc.new_page()  # A4, two columns
    page.insert_text((50, 40), "A Constructed Trial", fontsize=16, fontname="hebo")
    page.insert_text((50, 60), "Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(50, 70, 290, 700), FILLER * 9 + "Heparin was given to every patient who "
                        "arrived at the trauma centre and was continued", fontsize=10)
    page.insert_text((50, 760), "*Correspondence: jane.doe@example.org", fontsize=7)
    page.insert_text((50, 770), "Department of Surgery, University of Calgary, Calgary, Canada", fontsize=7)
    page.insert_textbox(pymupdf.Rect(305, 70, 545, 740), "until discharge from the hospital in most cases. " +
                        FILLER * 8 + "The right column ends in the middle of a sentence that", fontsize=10)
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 70, 290, 700), "continues on the next page without a break. " + FILLER * 5,
                        fontsize=10)
    page.insert_textbox(pymupdf.Rect(305, 70, 545, 700), "The second column of page two. " + FILLER * 5, fontsize=10)
    text = parse_pdf(doc.tobytes(), filename="footnote.pdf").sections[0].text
    assert "and was continued until discharge from the hospital in most cases." in text
    assert "a sentence that continues on the next page without a break." in text
    assert "\n*Correspondence: jane.doe@example.org Department of Surgery, University of Calgary, Calgary, " \
           "Canada\n" in text  # a paragraph of its own, after the paragraph that finishes the sentence
    assert text.index("without a break.") < text.index("Correspondence") < text.index("The second column")


def test_superscript_markers_are_separated_by_size_and_baseline():
    data = _pdf([("Amyloid plaques", 10, 0), ("12,13", 6, 3.5), (" and neurofibrillary tangles", 10, 0), ("4", 6, 3.5),
                 (" mark the disease at 10", 10, 0), ("-5", 6, 3.5), (" per litre.", 10, 0)])
    text = _text(data)
    assert "Amyloid plaques and neurofibrillary tangles mark the disease at 10^-5 per litre." in text
    assert "plaques12" not in text and "tangles4" not in text


def test_control_and_private_use_characters_are_removed_and_reported_as_lost():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "x", fontname="helv", fontsize=11)
    body = "The total \x01 of the values was computed for every patient in the cohort. " + FILLER
    doc.update_stream(page.get_contents()[0],
                      b"BT 1 0 0 1 72 770 Tm /helv 11 Tf <" + body.encode("latin-1").hex().encode() + b"> Tj ET")
    parsed_doc = parse_pdf(doc.tobytes())
    text = _all_text(parsed_doc)
    assert "\x01" not in text and "The total of the values" in text
    assert any("1 characters could not be read" in p and "Greek" in p for p in parsed_doc.problems)


def test_symbol_font_greek_is_mapped_and_character_helpers():
    from engram_kit.ingestion.repair import clean_characters, fix_encoding, map_font_text

    assert map_font_text("a", "SymbolMT") == "α" and map_font_text("S", "ABCDEF+Symbol") == "Σ"
    assert map_font_text("r", "ZapfDingbats") == "•" and map_font_text("r", "Helvetica") == "r"
    assert clean_characters("a\x02b\ue000c\ufffd\u200bd") == ("abcd", 3)
    assert fix_encoding("NaÃŕve") == "Naïve" and fix_encoding("Dahlstr¨om") == "Dahlström"


def test_single_font_pdf_gets_no_body_text_as_title_and_keeps_its_passages():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 520, 760), FILLER * 14, fontsize=10)
    parsed_doc = parse_pdf(doc.tobytes(), filename="notes.pdf")
    assert parsed_doc.metadata.title.value == "notes" and parsed_doc.metadata.title.source == "filename"
    assert len(parsed_doc.sections[0].text) > 1500  # the text is a section, not a title


def test_truncated_and_image_only_pages_are_problems():
    doc = pymupdf.open()
    for _ in range(2):
        doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), FILLER * 5, fontsize=10)
    doc.new_page().draw_rect(pymupdf.Rect(50, 50, 400, 600), fill=(0.5, 0.5, 0.5))  # an image-only page
    data = doc.tobytes()
    problems = parse_pdf(data).problems
    assert any("1 of 3 pages have no text layer" in p and "page 3" in p for p in problems)
    cut = data[: data.rindex(b"%%EOF")]  # the end of the file is missing
    assert any("suspected truncation" in p for p in parse_pdf(cut).problems)


def test_authors_must_be_names_not_publishing_labels():
    from engram_kit.ingestion.pdf import _name_like

    assert not _name_like("Now Published") and not _name_like("Open Access")
    assert _name_like("Mary J. O’Connell") and _name_like("Ludwig van Beethoven")
