"""Text paths that used to end in a silent "nothing" (issue 31, item 5) and the text rules of issue 34 (items 2-4):
ligature characters on every path, unit superscripts, lost glyphs, PDFs without headings, plain notes named .txt,
sentences that open with a Greek letter, abbreviation long forms, per-font ligature learning, version keys.

Unit tests: pure functions and small PDFs built here (no workspace); the lifecycle checks are in
test_documents.py.
"""

from __future__ import annotations

import gzip

import pymupdf
import pytest

from engram_kit.errors import DataError
from engram_kit.ingestion.documents import (
    clear_of_lost_glyphs,
    content_fingerprint,
    fingerprint_similarity,
    parse_plain_text,
    passage_kind,
    same_source,
)
from engram_kit.ingestion.pdf import BODY_TEXT, parse_pdf
from engram_kit.ingestion.pubmed import PubMedRecord, holds_medline, read_medline
from engram_kit.ingestion.repair import (
    LOST_GLYPH,
    LigatureRepair,
    expand_ligatures,
    known_as_written,
    mark_lost_placeholders,
    render_superscript,
    suspect_words,
)
from engram_kit.ingestion.web import parse_html
from engram_kit.settings import Settings
from engram_kit.text import sentence_texts

BODY = ("Heparin prevents venous thrombosis after major trauma in most patients who can receive it safely, and "
        "compression devices are used when bleeding makes heparin unsafe. ")


# --- issue 34.3: a sentence that opens with a lower-case Greek letter ------------------------------------------
@pytest.mark.parametrize("line_breaks", ["always", "blank"])
def test_a_sentence_opening_with_a_greek_letter_is_cut_but_not_after_an_abbreviation(line_breaks):
    def cut(text):
        return sentence_texts(text, line_breaks=line_breaks)

    assert cut("It inhibits butyrylcholinesterase. β-Amyloid aggregation is slowed.") == [
        "It inhibits butyrylcholinesterase.", "β-Amyloid aggregation is slowed."]
    assert cut("Levels fell by 40%. α-Synuclein rose; κB was bound. γ-secretase cleaves APP.") == [
        "Levels fell by 40%.", "α-Synuclein rose; κB was bound.", "γ-secretase cleaves APP."]
    # an abbreviation or an initial before the Greek letter does not end a sentence
    assert cut("Some proteins (e.g. α-synuclein) aggregate, cf. β-amyloid.") == [
        "Some proteins (e.g. α-synuclein) aggregate, cf. β-amyloid."]
    assert cut("Drugs vs. β-blockers were compared.") == ["Drugs vs. β-blockers were compared."]
    # a Latin lower-case word after a full stop still does not start a sentence ("5 mg. once daily")
    assert cut("It was given at 5 mg. once daily.") == ["It was given at 5 mg. once daily."]


# --- issue 34.4: long forms that the detector cut short --------------------------------------------------------
@pytest.fixture(scope="module")
def finder():
    from engram_kit.extraction.abbreviations import AbbreviationFinder

    return AbbreviationFinder()


def test_a_long_form_cut_inside_its_phrase_is_widened_to_the_initials(finder):
    text = "Multiple myeloma (MM) is treated with bortezomib. MM relapses."
    found = finder.find(text)
    assert [(a.short, a.long_form) for a in found] == [("MM", "Multiple myeloma"), ("MM", "Multiple myeloma")]
    assert text[found[0].long_start:found[0].long_end] == "Multiple myeloma"
    # the same upstream cut on another disease: scispaCy alone gives "sclerosis"
    (ss,) = finder.find("Systemic sclerosis (SS) affects the skin.")
    assert ss.long_form == "Systemic sclerosis" and ss.long_start == 0
    # function words may sit in the phrase; a glued parenthesis is mapped back to the original offsets
    (moh,) = finder.find("The Ministry of Health (MOH) said so.")
    assert moh.long_form == "Ministry of Health"
    (mm,) = finder.find("in patients with multiple myeloma(MM).")[:1]
    assert mm.long_form == "multiple myeloma"
    # the batch path does the same
    assert [a.long_form for a in next(finder.find_many(["Multiple myeloma (MM) responded."]))] == ["Multiple myeloma"]


def test_long_forms_that_were_right_stay_as_they_were(finder):
    for text, long_form in [("non-small cell lung cancer (NSCLC) grew", "non-small cell lung cancer"),
                            ("in type 2 diabetes mellitus (T2DM) and", "type 2 diabetes mellitus"),
                            ("the mammalian target of rapamycin (mTOR) pathway", "mammalian target of rapamycin"),
                            ("a rise in deep vein thrombosis (DVT) was seen", "deep vein thrombosis")]:
        assert [a.long_form for a in finder.find(text)][:1] == [long_form], text


def test_initials_start_needs_every_letter_at_a_word_start():
    from engram_kit.extraction.abbreviations import initials_start

    text = "the dose of multiple myeloma (MM)"
    assert text[initials_start(text, text.index(" ("), "MM"):text.index(" (")] == "multiple myeloma"
    assert initials_start("the amyloid myeloma protein (MMP)", 27, "MMP") is None  # "amyloid" gives no M
    assert initials_start("relapsed myeloma (M)", 16, "M") is None  # one letter: nothing to widen


# --- issue 31.5: the same ligature map on every text path ------------------------------------------------------
def test_ligature_characters_become_letters_on_every_path_and_nothing_else_changes():
    assert expand_ligatures("ﬁbrosis, eﬀect, eﬃcacy, ﬂow, baﬄe, ﬅ") == "fibrosis, effect, efficacy, flow, baffle, st"
    assert expand_ligatures("75 mg/m² of µ-opioid, ½ dose") == "75 mg/m² of µ-opioid, ½ dose"  # not NFKC
    record = PubMedRecord(pmid="123", title="Idiopathic pulmonary ﬁbrosis", abstract="Pirfenidone slows ﬁbrosis.")
    assert record.title == "Idiopathic pulmonary fibrosis" and record.abstract == "Pirfenidone slows fibrosis."
    note = parse_plain_text("# Pulmonary ﬁbrosis\n\nNintedanib slows ﬁbrosis in 10 m² of lung.".encode(), filename="n.md")
    assert note.sections[0].title == "Pulmonary fibrosis"
    assert note.sections[0].text == "Nintedanib slows fibrosis in 10 m² of lung."
    page = parse_html("<html><body><article><h1>Lung</h1><p>Pulmonary ﬁbrosis is scarring of the lung tissue "
                      "that worsens over time.</p></article></body></html>".encode())
    assert "Pulmonary fibrosis is scarring" in " ".join(s.text for s in page.sections)


# --- issue 31.5: a superscript that is part of a unit ---------------------------------------------------------
def test_a_superscript_after_a_compound_unit_is_a_power_and_a_citation_is_still_dropped():
    assert render_superscript("at 75 mg/m", "2") == "^2"
    assert render_superscript("clearance in mL/min/1.73 m", "2") == "^2"
    assert render_superscript("stiffness of 5 kg·m", "-2") == "^-2"
    assert render_superscript("counts of 200 cells/mm", "3") == "^3"
    assert render_superscript("amyloid plaques", "12,13") == ""  # citation markers: dropped
    assert render_superscript("as shown by Smith", "3") == ""


def _superscript_pdf(before: str, sup: str, after: str) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Dose Finding Study", fontsize=16, fontname="hebo")
    x, y = 72, 100
    page.insert_text((x, y), before, fontsize=10, fontname="helv")
    x += pymupdf.get_text_length(before, fontname="helv", fontsize=10)
    page.insert_text((x, y - 4), sup, fontsize=6, fontname="helv")
    x += pymupdf.get_text_length(sup, fontname="helv", fontsize=6)
    page.insert_text((x, y), after, fontsize=10, fontname="helv")
    page.insert_textbox(pymupdf.Rect(72, 120, 520, 700), BODY * 8, fontsize=10, fontname="helv")
    return doc.tobytes()


def test_a_pdf_keeps_the_power_of_mg_per_square_metre_and_drops_a_citation():
    text = " ".join(s.text for s in parse_pdf(_superscript_pdf("Docetaxel was given at 75 mg/m", "2",
                                                                 " every three weeks.")).sections)
    assert "75 mg/m^2 every three weeks" in text
    text = " ".join(s.text for s in parse_pdf(_superscript_pdf("Docetaxel prolongs survival", "12,13",
                                                                 " in prostate cancer.")).sections)
    assert "Docetaxel prolongs survival in prostate cancer" in text


# --- issue 31.5: a glyph the font cannot map ---------------------------------------------------------------
def test_middle_dot_placeholders_are_marked_and_real_middle_dots_are_kept():
    assert mark_lost_placeholders("IL·6 and ·-amyloid rose") == (f"IL{LOST_GLYPH}6 and {LOST_GLYPH}-amyloid rose", 2)
    assert mark_lost_placeholders("TNF·α") == (f"TNF{LOST_GLYPH}α", 1)
    for kept in ("p = 0·05 (Lancet decimals)", "CuSO4·5H2O and CaCl2·H2O", "5 kg·m of torque, 2 mg·kg",
                 "Vol 3 · Issue 2"):
        assert mark_lost_placeholders(kept) == (kept, 0), kept


class _M:
    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


def test_no_mention_is_linked_through_a_lost_glyph():
    text = f"IL{LOST_GLYPH}6 and {LOST_GLYPH}-amyloid, but heparin is fine."
    words = ["IL", "6", "amyloid", "heparin"]
    kept = clear_of_lost_glyphs(text, [_M(text.index(w), text.index(w) + len(w)) for w in words])
    assert [text[m.start:m.end] for m in kept] == ["heparin"]


def test_a_pdf_with_a_glyph_its_font_cannot_encode_reports_it_and_shows_the_gap():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Cytokines After Trauma", fontsize=16, fontname="hebo")
    # Helvetica (WinAnsi) has no "≠" or "β": the writer puts a middle dot in their place
    page.insert_text((72, 90), "Levels of IL\u22606 and \u03b2-amyloid rose.", fontsize=10, fontname="helv")
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 700), BODY * 8, fontsize=10, fontname="helv")
    parsed = parse_pdf(doc.tobytes())
    text = " ".join(s.text for s in parsed.sections)
    assert f"IL{LOST_GLYPH}6 and {LOST_GLYPH}-amyloid" in text
    assert any("2 characters could not be read" in p and "Helvetica 2" in p for p in parsed.problems)


# --- issue 31.5: a PDF without any recognised heading -------------------------------------------------------
def test_a_pdf_without_headings_is_one_body_text_section_that_is_linked():
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), BODY * 12, fontsize=10, fontname="helv")
    parsed = parse_pdf(doc.tobytes(), filename="note.pdf")
    assert [(s.title, s.kind) for s in parsed.sections] == [(BODY_TEXT, "")]
    assert passage_kind(parsed.sections[0]) == "text"  # sent to entity linking (front matter is not)
    assert any("linked as body text" in w for w in parsed.warnings)


# --- issue 31.5: a plain note named .txt --------------------------------------------------------------------
def test_a_txt_file_is_medline_only_when_it_holds_a_medline_record(tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("Heparin after trauma: ask the team about dosing.\nAnother line.\n")
    medline = tmp_path / "export.txt"
    medline.write_text("PMID- 31452104\nTI  - Heparin after trauma.\nAB  - Heparin prevents thrombosis.\n")
    zipped = tmp_path / "export.txt.gz"
    zipped.write_bytes(gzip.compress(medline.read_bytes()))
    assert not holds_medline(note) and holds_medline(medline) and holds_medline(zipped)
    assert [r.pmid for r in read_medline(medline)] == ["31452104"]
    with pytest.raises(DataError, match=r"note\.txt holds no MEDLINE record .*Ingest it as a document"):
        list(read_medline(note))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Thrombose apr\u00e8s trauma.".encode("latin-1"))
    assert not holds_medline(latin)  # the document path reports the encoding


def test_engram_ingest_sends_a_plain_txt_to_the_document_repository(tmp_path):
    from engram_kit.cli import _is_document

    note = tmp_path / "note.txt"
    note.write_text("Heparin after trauma.\n")
    medline = tmp_path / "export.txt"
    medline.write_text("PMID- 31452104\nAB  - Heparin prevents thrombosis.\n")
    assert _is_document(str(note)) and not _is_document(str(medline))
    assert _is_document(str(tmp_path / "paper.md")) and not _is_document(str(tmp_path / "abstracts.jsonl"))


# --- issue 34.2: ligature code points the per-font learning missed -----------------------------------------
def test_a_symbol_code_point_inside_a_word_is_seen_whole_and_is_not_evidence_against():
    assert suspect_words("the speci¿c e˚ect of García’s 3×10 cells") == ["the", "speci¿c", "e˚ect", "of", "García’s",
                                                                         "cells"]
    assert not known_as_written("speci¿c") and known_as_written("specific") and known_as_written("García")
    repair = LigatureRepair()
    repair.observe("a speci¿c and signi¿cant result, the ¿rst one", "ABCDEF+MinionPro-Regular")
    assert repair.fit() == {("MinionPro-Regular", "¿"): "fi"}
    assert repair.apply("speci¿c", "GHIJKL+MinionPro-Regular") == "specific"


def test_a_font_seen_too_rarely_takes_the_documents_mapping_but_not_against_its_own_evidence():
    repair = LigatureRepair()
    repair.observe("a speciíc and signiícant eíect of the írst deínition", "Body")  # body font: evidence
    # the italic subset holds one word, cut at a line end ("signi-" + "ficant"): no evidence either way
    repair.observe("signií", "Body-Italic")
    repair.observe("García and Bíelefeld", "Names")  # a font that sets a real "í" (García is a known word)
    mapping = repair.fit()
    assert mapping[("Body", "í")] == "fi" and mapping[("Body-Italic", "í")] == "fi"
    assert ("Names", "í") not in mapping
    assert repair.apply("signií", "Body-Italic") == "signifi" and repair.apply("García", "Names") == "García"
    lone = LigatureRepair()  # a single supporting word elsewhere is not enough to decide for another font
    lone.observe("a speciíc one", "Body")
    lone.observe("Kíshan", "Rare")
    assert lone.fit() == {("Body", "í"): "fi"}


# --- issue 34.1: which uploads are the same source ----------------------------------------------------------
SENTENCES = [f"Sentence {i} says that patients in ward {i} received heparin on day {i} after the operation."
             for i in range(40)]


def _info(filename, text, **extra):
    return {"filename": filename, "fingerprint": content_fingerprint(text), "source": f"name:{filename}", **extra}


def test_content_fingerprints_tell_a_revision_from_an_unrelated_text():
    original = " ".join(SENTENCES)
    revised = " ".join(SENTENCES[:20] + ["Sentence 20 now says compression devices were used instead."]
                       + SENTENCES[21:])
    unrelated = " ".join(f"Metformin lowers glucose in study {i} of type 2 diabetes." for i in range(40))
    assert fingerprint_similarity(content_fingerprint(original), content_fingerprint(original)) == 1.0
    one_sentence = fingerprint_similarity(content_fingerprint(original), content_fingerprint(revised))
    assert 0.9 < one_sentence < 1.0
    assert fingerprint_similarity(content_fingerprint(original), content_fingerprint(unrelated)) < 0.05
    assert fingerprint_similarity([], content_fingerprint(original)) == 0.0
    assert Settings.same_source_similarity == 0.5


def test_each_key_of_the_same_source():
    text = " ".join(SENTENCES)
    revised = text.replace("ward 7 received heparin", "ward 7 received compression devices")
    other = " ".join(f"Metformin lowers glucose in study {i} of type 2 diabetes." for i in range(40))
    # file name + content: a revision from another folder (another path) is the same source ...
    assert same_source(_info("paper.pdf", revised, source="path:/b/paper.pdf"),
                       _info("paper.pdf", text, source="path:/a/paper.pdf")) == "file name + content"
    # ... an unrelated paper that merely shares the file name is not, nor a record without a fingerprint
    assert same_source(_info("paper.pdf", other), _info("paper.pdf", text)) == ""
    assert same_source(_info("paper.pdf", revised), {"filename": "paper.pdf", "source": "name:paper.pdf"}) == ""
    # path: the same file edited in place, whatever it now says
    assert same_source(_info("a.md", other, source="path:/a/a.md"), _info("a.md", text, source="path:/a/a.md")) == "path"
    # URL: the same page (fragment ignored) whatever the file name; two URLs are two sources
    assert same_source(_info("x.html", other, source_url="https://e.org/p#m"),
                       _info("y.html", text, source_url="https://e.org/p")) == "URL"
    assert same_source(_info("p.html", revised, source_url="https://e.org/a"),
                       _info("p.html", text, source_url="https://e.org/b")) == ""
    # DOI read with confidence: the same paper under other names; two DOIs are two papers
    def doi(value, confidence=0.85):
        return {"metadata": {"doi": {"value": value, "confidence": confidence}}}

    assert same_source(_info("preprint.pdf", other, **doi("10.1/X")), _info("final.pdf", text, **doi("10.1/x"))) == "DOI"
    assert same_source(_info("paper.pdf", revised, **doi("10.1/a")), _info("paper.pdf", text, **doi("10.1/b"))) == ""
    # a DOI read with low confidence (a reference's) is no key: the name and the content decide
    assert same_source(_info("paper.pdf", revised, **doi("10.1/a", 0.5)),
                       _info("paper.pdf", text, **doi("10.1/b", 0.5))) == "file name + content"


def test_a_ligature_glyph_in_a_span_of_its_own_font_is_seen_inside_its_word():
    spans = [("the speci", "ABCDEF+Body"), ("í", "GHIJKL+BodyLigatures"), ("c aim, a signi", "ABCDEF+Body"),
             ("í", "GHIJKL+BodyLigatures"), ("cant result", "ABCDEF+Body")]
    alone = LigatureRepair()
    for text, font in spans:  # span by span, the lone "í" is a known word (Zipf 2.5): evidence against
        alone.observe(text, font)
    assert alone.fit() == {}
    line = LigatureRepair()
    line.observe_line(spans)
    assert line.fit() == {("BodyLigatures", "í"): "fi"}
    assert "".join(line.apply(t, f) for t, f in spans) == "the specific aim, a significant result"


def test_engram_ingest_of_a_file_with_no_pubmed_record_exits_2(workspace_path, tmp_path, capsys):
    from engram_kit.cli import main

    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n  \n")
    assert main(["ingest", "-w", str(workspace_path), str(empty)]) == 2  # was 0 with a warning (issue 31.5)
    assert "error: " + str(empty) + " held no PubMed record" in capsys.readouterr().err


def test_abbreviation_detection_prints_no_spacy_w036_warning():
    """spaCy loads lazily on the first text with a parenthesis; its import put "once" filters in front of the
    finder's W036 filter, so every ingest printed "[W036] The component 'matcher' does not have any patterns"."""
    import subprocess
    import sys

    code = ("from engram_kit.extraction.abbreviations import AbbreviationFinder as F\n"
            "f = F()\n"
            "assert f.find('Multiple myeloma (MM) is rare; MM relapses.')[0].long_form == 'Multiple myeloma'\n"
            "assert list(f.find_many(['Alzheimer disease (AD) is common.']))[0][0].long_form == 'Alzheimer disease'\n")
    done = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "W036" not in done.stderr, done.stderr
