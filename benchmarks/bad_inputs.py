"""Bad-input probe (issue 21): every refused-input family, each case in a fresh child process, with its
outcome and peak memory.

Usage::

    python benchmarks/bad_inputs.py                 # all cases; writes benchmarks/results/bad_inputs.md
    python benchmarks/bad_inputs.py --only gzip     # cases whose name contains "gzip"

What it does
------------
1. Builds one base workspace as a user would (``engram init`` on the bundled sample, then ``engram ingest``
   of 20 bundled abstracts, default embedder) and the input files of every case (the 1 GB gzip bomb is
   written once, by the parent, so its cost is not charged to a case).
2. Runs each case in a child process (``--child``) on its own copy of the base workspace: PubMed and
   document files through the ``engram`` CLI (``engram_kit.cli.main``, exit status and stderr kept), the
   record API (``PubMedRecord``, ``ws.documents.add_bytes``) and desk queries through
   :class:`~engram_kit.evidence.QueryRunner` with the default :class:`~engram_kit.evidence.DeskLimits`.
3. After the child exits, a second child snapshots the copy (content counts, vectors, graph/vector
   agreement, document objects that no Article references) and compares it with the base.

Outcome of a case
-----------------
* **handled**: the expected ending. For a refusal: a one-line ``error:`` (exit 2) or a
  :class:`~engram_kit.errors.EngramError` / desk status ``refused``/``failed``, and no content changed.
  For an input that is accepted by design (duplicate PMIDs, ``--skip-bad``, a ``file://`` URL, a desk
  query cut at the row cap): the expected content change and nothing else.
* **data changed**: content differs from what the case allows (partial commits, a ``complete`` document
  with 0 passages, orphan objects, graph/vector drift, a file written by ``COPY ... TO``).
* **silent** (issue 31.5): accepted with exit 0 but nothing stored, nothing linked that the input names, or
  damage nobody is told about (a lost glyph in a ``complete`` document): a "nothing" a script cannot see.
* **crash**: a traceback, a non-Engram exception, a signal or the memory watchdog.
* **hang**: the wall-clock timeout.

Peak RSS
--------
``os.wait4`` gives the child's own peak resident set (``ru_maxrss``), which on Linux also covers the
processes it started and reaped (the desk's query process is stopped and reaped by ``ws.close()``); the
parent also polls the summed RSS of the child's process tree every 20 ms as a second figure.

Memory cap: ``RLIMIT_AS`` and ``RLIMIT_DATA`` cannot be used, because LadybugDB reserves 8 TiB of address
space for its buffer manager on open ("Mmap for size 8796093022208 failed" under either limit). The child
therefore gets ``RLIMIT_FSIZE`` (2 GiB per written file) and ``RLIMIT_CPU`` caps via ``setrlimit``, and the
parent kills the child's process tree when its summed RSS passes :data:`WATCHDOG_MIB` (a crash outcome).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "bad_inputs.md"
#: Kill the child's process tree above this summed RSS (the machine has 24 GB shared with others).
WATCHDOG_MIB = 6144
#: Wall-clock limit of one case, seconds (the desk's own timeout is 10 s, its backstop a few seconds more).
CASE_TIMEOUT_S = 300.0
#: The issue's ceiling for the peak RSS of any single refused input.
RSS_LIMIT_MIB = 2048
#: Content counters compared before and after a case.
CONTENT = ("complete_articles", "Passage", "Section", "NounPhrase", "MENTIONS", "MAPS_TO", "vectors")
#: Outcomes of a case, in table order (see the module docstring).
OUTCOMES = ("handled", "silent", "data changed", "crash", "hang")
#: Counters that grow with any accepted record (one Section per abstract; new noun phrases and mentions).
GROWS: dict[str, int | str] = {"Section": "+", "NounPhrase": "+", "MENTIONS": "+", "MAPS_TO": "+"}


# --------------------------------------------------------------------------------------------- the cases
@dataclass(frozen=True)
class Case:
    """One probe: ``family`` (a row of the table), ``name``, how the child runs it (``kind``, ``arg``) and
    the content change it is allowed (``allow``: counter -> exact delta; anything else must stay)."""

    family: str
    name: str
    kind: str  # "cli" (engram argv), "api" (a function name in API_CASES), "desk" (a Cypher query through the
    # desk's runner), "desk-raw" (a Cypher query sent to the query process directly, the guard bypassed)
    arg: Any
    allow: dict[str, int | str] = field(default_factory=dict)  # "+": any growth (a document's content)
    expect_exit: int = 2  # -1: a clean refusal (exit 2) and a clean acceptance (exit 0) both end well
    expect_text: str = ""  # a fragment the error (or output) must contain
    env: dict[str, str] = field(default_factory=dict)  # extra environment of the child (secrets cases)


def _record(pmid: int | str, abstract: object = None, **extra: object) -> str:
    abstract = f"Metformin lowers glucose in type 2 diabetes, study {pmid}." if abstract is None else abstract
    return json.dumps({"pmid": str(pmid), "title": f"Probe study {pmid}", "abstract": abstract, **extra})


def build_inputs(folder: Path) -> dict[str, Path]:
    """Write every case's input file into ``folder`` (once, in the parent); returns name -> path."""
    import pymupdf

    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}

    def put(name: str, text: str | bytes) -> Path:
        path = folder / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        paths[name] = path
        return path

    # the bomb: ~1 MB gzipped, one line that expands to 1 GB (written in 16 MiB pieces)
    bomb = folder / "bomb-1gb-line.jsonl.gz"
    if not bomb.exists():
        with gzip.open(bomb, "wb", compresslevel=9) as fh:
            fh.write((_record(9_000_001) + "\n").encode())
            fh.write(b'{"pmid": "9000002", "abstract": "')
            piece = b"a" * (16 << 20)
            for _ in range(64):
                fh.write(piece)
            fh.write(b'"}\n')
    paths[bomb.name] = bomb
    put("line-10mb.jsonl", _record(9_000_010, "x" * (10 << 20)) + "\n")
    put("line-1mib-plus-1.jsonl", _record(9_000_011) + "\n" + _record(9_000_012, "y" * (1 << 20)) + "\n")
    put("type-abstract-int.jsonl", _record(9_000_020) + "\n" + _record(9_000_021, 12345) + "\n")
    put("type-title-list.jsonl", json.dumps({"pmid": "9000022", "title": ["a"], "abstract": "ok text"}) + "\n")
    put("type-authors-str.jsonl", _record(9_000_023, authors="Smith J") + "\n")
    put("type-array-record.jsonl", "[1, 2]\n")
    put("type-pmid-number.jsonl", json.dumps({"pmid": 9000024.5, "abstract": "ok text"}) + "\n")
    good = [_record(9_100_000 + i) for i in range(70)]
    put("bad-json-line-71.jsonl", "\n".join(good[:70] + ["{broken"] + [_record(9_100_100 + i) for i in range(9)]) + "\n")
    put("dup-pmids.jsonl", "\n".join([_record(9_200_001), _record(9_200_002), _record(9_200_001, "A second copy."),
                                      _record(9_200_003), _record(9_200_002, "Again.")]) + "\n")
    put("pmid-abc.jsonl", _record("abc") + "\n")
    put("pmid-negative.jsonl", _record("-5") + "\n")
    put("abstract-empty.jsonl", _record(9_300_001, "") + "\n")
    put("abstract-blank.jsonl", _record(9_300_002, "   \t ") + "\n")
    put("empty.jsonl", "")
    whole = gzip.compress("".join(_record(9_400_000 + i) + "\n" for i in range(3000)).encode())
    put("truncated.jsonl.gz", whole[: len(whole) // 2])
    note = b"# Heparin after trauma\n\nPulmonary embolism after trauma is prevented with heparin in most patients. " * 3
    put("note probe.md", note)
    put("empty-a.md", b"")
    (folder / "other").mkdir(exist_ok=True)
    paths["empty-b.md"] = folder / "other" / "empty-a.md"  # same bytes (empty), a different source
    paths["empty-b.md"].write_bytes(b"")
    # file names: non-UTF-8 bytes, a right-to-left override, NUL (through the API: no file can hold it)
    raw = os.fsencode(folder) + b"/report-\xff\xfe.md"
    with open(raw, "wb") as raw_file:
        raw_file.write(note)
    paths["name-not-utf8"] = Path(os.fsdecode(raw))
    put("invoice\u202efdp.md", note)
    paths["name-rlo"] = folder / "invoice\u202efdp.md"
    # a single-font PDF: ~1,760 characters, one font and size throughout (no heading to find)
    doc = pymupdf.open()
    text = ("Heparin prevents venous thrombosis after trauma in most patients who can receive it safely. "
            * 19)[:1759]
    doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), text, fontsize=10, fontname="helv")
    put("single-font.pdf", doc.tobytes())
    refs = pymupdf.open()
    page = refs.new_page()
    page.insert_text((72, 60), "References", fontsize=12, fontname="hebo")
    page.insert_text((72, 80), "\n".join(f"{i}. Author A. A study. J Things. 2001;{i}:1-9." for i in range(1, 30)),
                     fontsize=9)
    put("references-only.pdf", refs.tobytes())
    put("not-a-pdf.pdf", b"this is plain text, not a PDF")
    # a reference list with no heading at all, one font (no layout tells it from body text)
    bare = pymupdf.open()
    bare.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), "\n".join(
        f"{i}. Author A, Author B. A study of things. J Things. 2001;{i}:1-9." for i in range(1, 30)), fontsize=9)
    put("references-no-heading.pdf", bare.tobytes())
    dvt = (REPO / "data" / "pdfs" / "bmc_dvt_prophylaxis_trauma_review.pdf").read_bytes()
    put("truncated.pdf", dvt[: len(dvt) // 2])
    locked = pymupdf.open(stream=dvt, filetype="pdf")
    put("encrypted.pdf", locked.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u"))
    put("empty-body.html", b"<html><head><title>Nothing here</title></head><body>  </body></html>")
    put("latin1.txt", "Heparin pr\u00e9vient la thrombose apr\u00e8s un traumatisme. ".encode("latin-1") * 20)
    put("n" * 250 + ".md", note)
    # more PubMed shapes
    put("pmid-missing.jsonl", json.dumps({"title": "t", "abstract": "Metformin lowers glucose."}) + "\n")
    put("pmid-zero.jsonl", _record(0) + "\n")
    put("json-deep.jsonl", '{"pmid": "9500001", "abstract": "ok text", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    put("not-utf8-line.jsonl", (_record(9_500_002) + "\n").encode() + b'{"pmid": "9500003", "abstract": "caf\xe9"}\n')
    put("bom-crlf.jsonl", ("\ufeff" + _record(9_500_004) + "\r\n" + _record(9_500_005) + "\r\n").encode("utf-8"))
    put("nul-abstract.jsonl", _record(9_500_006, "Metformin\u0000 lowers glucose.") + "\n")
    put("not-gzip.jsonl.gz", _record(9_500_007) + "\n")
    put("blank-lines.jsonl", "\n\n   \n\n")
    (folder / "a-directory.jsonl").mkdir(exist_ok=True)
    paths["a-directory.jsonl"] = folder / "a-directory.jsonl"
    _quiet_inputs(put)
    for name, mib in (("oversize-60mib.pdf", 60), ("oversize-50mib-plus-1.md", 50)):
        path = folder / name
        with open(path, "wb") as sparse:  # sparse: the size is what matters, not the bytes
            sparse.truncate(mib * 2**20 + 1)
        paths[name] = path
    return paths


#: What the "silent nothing" inputs name (issue 31.5): graph nodes of the bundled sample.
QUIET_TEXT = ("Fluoxetine was compared with placebo in idiopathic pulmonary fibrosis, and IL6 levels were measured "
              "in every patient before and after twelve weeks of treatment. ")


def _quiet_inputs(put: Callable[[str, str | bytes], Path]) -> None:
    """Inputs that ended in a silent "nothing" or silent damage (issue 31.5), written beside the others."""
    import pymupdf

    put("note.txt", "Ask the team about " + QUIET_TEXT * 4)
    put("medline.txt", "PMID- 9600001\nTI  - Fluoxetine in fibrosis.\nAB  - " + QUIET_TEXT + "\n")
    lig = QUIET_TEXT.replace("fi", "\ufb01").replace("fl", "\ufb02")
    put("ligatures.md", "# Notes\n\n" + lig * 3)
    put("ligatures.jsonl", _record(9_600_002, lig) + "\n")
    bare = pymupdf.open()  # one font and size throughout: no heading can be recognised
    bare.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), QUIET_TEXT * 14, fontsize=10, fontname="helv")
    put("no-heading.pdf", bare.tobytes())
    unit = pymupdf.open()
    page = unit.new_page()
    page.insert_text((72, 60), "Dose Finding In Fibrosis", fontsize=16, fontname="hebo")
    before = "Fluoxetine was given at 75 mg/m"
    page.insert_text((72, 100), before, fontsize=10, fontname="helv")
    x = 72 + pymupdf.get_text_length(before, fontname="helv", fontsize=10)
    page.insert_text((x, 96), "2", fontsize=6, fontname="helv")
    page.insert_text((x + pymupdf.get_text_length("2", fontname="helv", fontsize=6), 100), " every week.",
                     fontsize=10, fontname="helv")
    page.insert_textbox(pymupdf.Rect(72, 120, 520, 700), QUIET_TEXT * 8, fontsize=10, fontname="helv")
    put("unit-superscript.pdf", unit.tobytes())
    lost = pymupdf.open()  # Helvetica (WinAnsi) cannot encode "≠" or "β": the writer puts "·" in their place
    page = lost.new_page()
    page.insert_text((72, 60), "Cytokines In Fibrosis", fontsize=16, fontname="hebo")
    page.insert_text((72, 90), "Levels of IL\u22606 and \u03b2-amyloid rose.", fontsize=10, fontname="helv")
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 700), QUIET_TEXT.replace("IL6", "cytokine") * 8, fontsize=10,
                        fontname="helv")
    put("lost-glyph.pdf", lost.tobytes())


def _quiet_cases(inputs: dict[str, Path]) -> list[Case]:
    """The "silent nothing" families (issue 31.5): each must end in a clear error or the right content."""
    doc = {"complete_articles": 1, "Passage": "+", "Section": "+", "vectors": "+", "NounPhrase": "+",
           "MENTIONS": "+", "MAPS_TO": "+"}
    return [
        Case("silent nothing: .txt", "plain note named .txt", "cli", ["ingest", str(inputs["note.txt"])],
             allow=doc, expect_exit=0, expect_text="note.txt"),
        Case("silent nothing: .txt", "MEDLINE export named .txt", "cli", ["ingest", str(inputs["medline.txt"])],
             allow={"complete_articles": 1, "Passage": 1, "vectors": 1, **GROWS}, expect_exit=0,
             expect_text="ingested 1"),
        Case("silent nothing: .txt", "plain note through ws.ingest (API)", "api", "txt_note_api",
             expect_text="MEDLINE"),
        Case("silent nothing: PDF without headings", "one font, names a gene, a drug, a disease", "api",
             "no_heading_linked", allow=doc, expect_exit=0),
        Case("silent nothing: ligature characters", "Markdown with U+FB01/FB02", "api", "ligatures_md",
             allow=doc, expect_exit=0),
        Case("silent nothing: ligature characters", "PubMed JSONL with U+FB01/FB02", "api", "ligatures_jsonl",
             allow={"complete_articles": 1, "Passage": 1, "vectors": 1, **GROWS}, expect_exit=0),
        Case("silent nothing: unit superscript", "75 mg/m + raised 2", "api", "unit_superscript", allow=doc,
             expect_exit=0),
        Case("silent nothing: lost glyph", "Helvetica cannot encode ≠ and β", "api", "lost_glyph", allow=doc,
             expect_exit=0),
    ]


def _linked_at(ws: Any, doc_id: str, level: str) -> set[str]:
    """Names of the graph entities that ``level`` mentions (Passage, Section, Article) of a document link to."""
    mentions = ws.store.article_mentions([doc_id])
    mentions = mentions[mentions["level"] == level]
    links = ws.store.nounphrase_links(mentions["nounphrase_id"].unique().tolist()) if not mentions.empty else None
    return set() if links is None or links.empty else set(links["entity_name"].str.lower())


def _quiet_api_cases() -> dict[str, Callable[[Any, Path], str]]:
    """The API side of :func:`_quiet_cases`: a message, ``SILENT: ...`` when the input was accepted but came to
    nothing (or to damage nobody was told about), ``CHANGED: ...`` when the stored text differs from the page."""
    wanted = {"fluoxetine", "idiopathic pulmonary fibrosis"}

    def txt_note_api(ws: Any, inputs: Path) -> str:
        report = ws.ingest(inputs / "note.txt")
        return f"SILENT: ws.ingest read {report.read} records and said nothing" if report.read == 0 else str(report)

    def no_heading_linked(ws: Any, inputs: Path) -> str:
        report = ws.documents.add_bytes((inputs / "no-heading.pdf").read_bytes(), "no-heading.pdf")
        found = _linked_at(ws, report.id, "Passage")
        if not wanted <= found:
            return f"SILENT: {report.status}, passages link {sorted(found) or 'nothing'} (want {sorted(wanted)})"
        return f"{report.status}; passages link {sorted(found)}"

    def ligatures_md(ws: Any, inputs: Path) -> str:
        report = ws.documents.add_bytes((inputs / "ligatures.md").read_bytes(), "ligatures.md")
        found = _linked_at(ws, report.id, "Passage")
        if not wanted <= found:
            return f"SILENT: {report.status}, passages link {sorted(found) or 'nothing'} (want {sorted(wanted)})"
        return f"{report.status}; passages link {sorted(found)}"

    def ligatures_jsonl(ws: Any, inputs: Path) -> str:
        report = ws.ingest(inputs / "ligatures.jsonl")
        found = _linked_at(ws, "pubmed:9600002", "Passage") | _linked_at(ws, "pubmed:9600002", "Section")
        if not wanted <= found:
            return f"SILENT: {report}; the abstract links {sorted(found) or 'nothing'} (want {sorted(wanted)})"
        return f"{report}; the abstract links {sorted(found)}"

    def unit_superscript(ws: Any, inputs: Path) -> str:
        report = ws.documents.add_bytes((inputs / "unit-superscript.pdf").read_bytes(), "unit-superscript.pdf")
        text = " ".join(ws.store.article_passages(report.id)["text"])
        if "75 mg/m every" in text:
            return f"CHANGED: {report.status}, the stored text reads '75 mg/m every week' (the power was dropped)"
        return f"{report.status}; " + ("'75 mg/m^2' kept" if "mg/m^2" in text else "text: " + text[:80])

    def lost_glyph(ws: Any, inputs: Path) -> str:
        report = ws.documents.add_bytes((inputs / "lost-glyph.pdf").read_bytes(), "lost-glyph.pdf")
        found = _linked_at(ws, report.id, "Passage")
        through = sorted(found & {"il6", "amyloid beta precursor protein", "app"})
        if report.status == "complete":
            return f"SILENT: status complete, no warning; linked through the gap: {through or 'nothing'}"
        problems = ws.documents.detail(report.id).info.get("problems", [])
        return f"{report.status} ({problems[0][:60] if problems else ''}); linked through the gap: {through or 'nothing'}"

    return {f.__name__: f for f in (txt_note_api, no_heading_linked, ligatures_md, ligatures_jsonl, unit_superscript,
                                    lost_glyph)}


def cases(inputs: dict[str, Path], scratch: Path) -> list[Case]:
    """Every case of the probe, by family."""
    def ingest(name: str, *extra: str) -> list[str]:
        return ["ingest", str(inputs[name]), *extra]

    def url(path: Path) -> str:
        return path.as_uri()

    leak = scratch / "leak.csv"
    out: list[Case] = [
        Case("gzip bomb line", "1 MB .gz, one 1 GB line", "cli", ingest("bomb-1gb-line.jsonl.gz"),
             expect_text="longer than 1,048,576 characters"),
        Case("10 MB line", "10 MB plain line", "cli", ingest("line-10mb.jsonl"), expect_text="longer than"),
        Case("10 MB line", "1 MiB + 1 line after a good one", "cli", ingest("line-1mib-plus-1.jsonl"),
             expect_text=":2: the line is longer"),
        Case("wrong JSON types", "abstract: 12345", "cli", ingest("type-abstract-int.jsonl"),
             expect_text="'abstract' must be a JSON string, got int"),
        Case("wrong JSON types", "title: list", "cli", ingest("type-title-list.jsonl"), expect_text="'title'"),
        Case("wrong JSON types", "authors: string", "cli", ingest("type-authors-str.jsonl"), expect_text="'authors'"),
        Case("wrong JSON types", "record is an array", "cli", ingest("type-array-record.jsonl"),
             expect_text="expected a JSON object"),
        Case("wrong JSON types", "pmid: 9000024.5", "cli", ingest("type-pmid-number.jsonl"), expect_text="PMID"),
        Case("bad JSON line mid-file", "line 71 of 80", "cli", ingest("bad-json-line-71.jsonl"),
             expect_text="bad-json-line-71.jsonl:71: not valid JSON"),
        Case("bad JSON line mid-file", "line 71 of 80, --skip-bad", "cli", ingest("bad-json-line-71.jsonl", "--skip-bad"),
             allow={"complete_articles": 79, "Passage": 79, "vectors": 79, **GROWS}, expect_exit=0,
             expect_text="ingested 79"),
        Case("bad JSON line mid-file", "truncated .gz", "cli", ingest("truncated.jsonl.gz"),
             expect_text="could not be read to its end"),
        Case("duplicate PMIDs", "5 records, 3 PMIDs", "cli", ingest("dup-pmids.jsonl"),
             allow={"complete_articles": 3, "Passage": 3, "vectors": 3, **GROWS}, expect_exit=0,
             expect_text="PMID 9200001 is listed 2 times (records 1, 3); ingested once"),
        Case("non-UTF-8 / bidi / NUL names", "name with bytes ff fe", "cli", ["ingest", str(inputs["name-not-utf8"])],
             expect_text="UTF-8"),
        Case("non-UTF-8 / bidi / NUL names", "right-to-left override", "cli", ["ingest", str(inputs["name-rlo"])],
             expect_text="bidirectional control"),
        Case("non-UTF-8 / bidi / NUL names", "NUL in the name (API)", "api", "nul_name", expect_text="control characters"),
        Case("single-font PDF", "1,759 characters, one font", "cli", ingest("single-font.pdf"),
             allow={"complete_articles": 1, "Passage": "+", "Section": "+", "vectors": "+", "NounPhrase": "+",
                    "MENTIONS": "+", "MAPS_TO": "+"},
             expect_exit=-1),
        Case("single-font PDF", "references only", "cli", ingest("references-only.pdf"),
             expect_text="yields no passages"),
        Case("single-font PDF", "text file named .pdf", "cli", ingest("not-a-pdf.pdf"), expect_text="PDF"),
        Case("empty files", "two different empty .md files", "api", "two_empty_files", expect_text="empty"),
        Case("empty files", "empty .jsonl", "cli", ingest("empty.jsonl"),  # exit 2 since issue 31.5 (was 0)
             expect_text="held no PubMed record"),
        Case("file:// URLs", "file:// with %20", "cli", ["ingest", url(inputs["note probe.md"])],
             allow={"complete_articles": 1, "Passage": 1, "Section": 1, "vectors": 1, "NounPhrase": "+",
                    "MENTIONS": "+", "MAPS_TO": "+"}, expect_exit=0,
             expect_text="note probe.md"),
        Case("file:// URLs", "file:// to a missing file", "cli", ["ingest", url(scratch / "missing.md")],
             expect_text="No such file"),
        Case("pmid=\"abc\"", "PubMedRecord(pmid='abc')", "api", "pmid_abc", expect_text="positive integer"),
        Case("pmid=\"abc\"", "pmid 'abc' in a file", "cli", ingest("pmid-abc.jsonl"), expect_text="'abc'"),
        Case("pmid=\"abc\"", "pmid '-5' in a file", "cli", ingest("pmid-negative.jsonl"), expect_text="'-5'"),
        Case("empty abstracts", "PubMedRecord(abstract='')", "api", "empty_abstract", expect_text="empty"),
        Case("empty abstracts", "abstract '' in a file", "cli", ingest("abstract-empty.jsonl"), expect_text="abstract"),
        Case("empty abstracts", "abstract of blanks in a file", "cli", ingest("abstract-blank.jsonl"),
             expect_text="abstract"),
        Case("oversize files", "60 MiB PDF", "cli", ingest("oversize-60mib.pdf"),
             expect_text="is 60.0 MiB (62,914,561 bytes); the limit is 50 MiB (52,428,800 bytes)"),
        Case("oversize files", "50 MiB + 1 byte .md", "cli", ingest("oversize-50mib-plus-1.md"),
             expect_text="is 50.0 MiB (52,428,801 bytes); the limit is 50 MiB (52,428,800 bytes)"),
        Case("oversize files", "60 MiB PDF as bytes (API)", "api", "oversize_bytes",
             expect_text="the limit is 50 MiB (52,428,800 bytes)"),
        Case("more PubMed shapes", "no pmid field", "cli", ingest("pmid-missing.jsonl"), expect_text="pmid"),
        Case("more PubMed shapes", "pmid 0", "cli", ingest("pmid-zero.jsonl"), expect_text="positive integer"),
        Case("more PubMed shapes", "JSON nested 100,000 deep in a field", "cli", ingest("json-deep.jsonl")),
        Case("more PubMed shapes", "non-UTF-8 bytes in line 2", "cli", ingest("not-utf8-line.jsonl"),
             expect_text=":2"),
        Case("more PubMed shapes", "UTF-8 BOM and CRLF line ends", "cli", ingest("bom-crlf.jsonl"),
             allow={"complete_articles": 2, "Passage": 2, "vectors": 2, **GROWS}, expect_exit=0,
             expect_text="ingested 2"),
        Case("more PubMed shapes", "NUL inside an abstract", "cli", ingest("nul-abstract.jsonl"),
             allow={"complete_articles": 1, "Passage": 1, "vectors": 1, **GROWS}, expect_exit=-1),
        Case("more PubMed shapes", "plain text named .jsonl.gz", "cli", ingest("not-gzip.jsonl.gz"),  # read by
             allow={"complete_articles": 1, "Passage": 1, "vectors": 1, **GROWS}, expect_exit=0,  # its magic bytes
             expect_text="ingested 1"),
        Case("more PubMed shapes", "only blank lines", "cli", ingest("blank-lines.jsonl"),  # exit 2 since 31.5
             expect_text="held no PubMed record"),
        Case("more PubMed shapes", "a directory named .jsonl", "cli", ingest("a-directory.jsonl")),
        Case("more document shapes", "PDF cut in half", "cli", ingest("truncated.pdf"), expect_exit=-1,
             allow={"complete_articles": 1, "Passage": "+", "Section": "+", "vectors": "+", "NounPhrase": "+",
                    "MENTIONS": "+", "MAPS_TO": "+"}),
        Case("more document shapes", "encrypted PDF", "cli", ingest("encrypted.pdf"), expect_text="encrypted"),
        Case("more document shapes", "HTML with an empty body", "cli", ingest("empty-body.html")),
        Case("more document shapes", "Latin-1 .txt", "cli", ingest("latin1.txt"), expect_exit=-1,
             allow={"complete_articles": 1, "Passage": "+", "Section": "+", "vectors": "+", "NounPhrase": "+",
                    "MENTIONS": "+", "MAPS_TO": "+"}),
        Case("more document shapes", "250-character file name", "cli", ingest("n" * 250 + ".md"), expect_exit=-1,
             allow={"complete_articles": 1, "Passage": "+", "Section": "+", "vectors": "+", "NounPhrase": "+",
                    "MENTIONS": "+", "MAPS_TO": "+"}),
        Case("single-font PDF", "references only, no heading", "cli", ingest("references-no-heading.pdf"),
             expect_text="yields no passages"),
    ]
    out += _quiet_cases(inputs)
    deep = "RETURN " + "[" * 1000 + "1" + "]" * 1000
    desk = [
        ("list nested 1,000 deep", deep),
        ("list nested 600 deep", "RETURN " + "[" * 600 + "1" + "]" * 600),
        ("300 nested CASE", "RETURN " + "CASE WHEN true THEN " * 300 + "1" + " ELSE 0 END" * 300 + " AS x"),
        ("UNWIND range(1, 300000000)", "UNWIND range(1, 300000000) AS x RETURN x"),
        ("RETURN range(1, 3000000000)", "RETURN range(1, 3000000000) AS big"),
        ("Gene x Gene cartesian", "MATCH (a:Gene), (b:Gene) RETURN a.name, b.name"),
        ("Gene x Gene x Gene count", "MATCH (a:Gene), (b:Gene), (c:Gene) RETURN count(*) AS n"),
        ("COPY ... TO a file", f"COPY (MATCH (g:Gene) RETURN g.name) TO '{leak}'"),
        ("EXPORT DATABASE", f"EXPORT DATABASE '{scratch / 'export'}'"),
        ("LOAD extension", "LOAD EXTENSION json"),
        ("ATTACH a database", f"ATTACH '{scratch / 'other.lbug'}' AS other (dbtype lbug)"),
        # grow gradually (no single huge allocation): 3.8-4.4 GB unbounded, measured on this workspace
        ("collect(range(1, 1000)) over 20k rows", "UNWIND range(1, 20000) AS x RETURN collect(range(1, 1000)) AS c"),
        ("3,000 x 3,000 UNWIND collected", "UNWIND range(1, 3000) AS x UNWIND range(1, 3000) AS y "
                                           "RETURN collect(x + y) AS c"),
        ("Gene x Gene names collected", "MATCH (a:Gene), (b:Gene) RETURN collect(a.name + b.name) AS c"),
        ("filtered 4-way Gene product", "MATCH (a:Gene), (b:Gene), (c:Gene), (d:Gene) "
                                        "WHERE a.name + b.name + c.name + d.name = 'x' RETURN count(*) AS n"),
        ("30 nested CASE (under the nesting cap)",
         "RETURN " + "CASE WHEN true THEN " * 30 + "1" + " ELSE 0 END" * 30 + " AS x"),
        ("variable-length path *1..30", "MATCH p = (a:Gene)-[*1..30]-(b:Gene) RETURN count(*) AS n"),
        ("string of 7,000 characters", "RETURN '" + "x" * 7000 + "' AS s"),
    ]
    out += [Case("desk-query bombs", name, "desk", query, expect_exit=-1) for name, query in desk]
    # issue 31: file readers through the query process itself (the guard bypassed: "desk-raw") and through
    # the guard; a file holding FILE_SECRET must give zero bytes of it in any reply
    secret_csv, broken_csv = scratch / "secret.csv", scratch / "secret-broken.csv"
    readers = [
        ("LOAD FROM a .csv", f"LOAD FROM '{secret_csv}' RETURN *"),
        ("LOAD FROM a malformed .csv", f"LOAD FROM '{broken_csv}' RETURN *"),
        ("LOAD FROM /etc/passwd as csv", "LOAD FROM '/etc/passwd' (file_format='csv', delim=':') RETURN *"),
        ("CALL READ_CSV_SERIAL", f"CALL READ_CSV_SERIAL('{secret_csv}') RETURN *"),
        ("CALL READ_PARQUET", f"CALL READ_PARQUET('{secret_csv}') RETURN *"),
        ("COPY FROM", f"COPY Gene FROM '{secret_csv}'"),
        ("IMPORT DATABASE", f"IMPORT DATABASE '{scratch}'"),
        ("LOAD after a MATCH", f"MATCH (g:Gene) WITH g LIMIT 1 LOAD FROM '{secret_csv}' RETURN *"),
    ]
    out += [Case("file loaders (query process)", name, "desk-raw", query, expect_exit=-1) for name, query in readers]
    out += [Case("file loaders (guarded)", name, "desk", query, expect_exit=-1) for name, query in readers[:3]]
    hub = "MATCH p=(a:Gene {name: 'APP'})"
    out += [Case("variable-length on a hub", name, "desk", query, expect_exit=-1) for name, query in [
        ("APP *1..2 count(p)", hub + "-[*1..2]-(b) RETURN count(p) AS n"),
        ("APP *1..3 count(p)", hub + "-[*1..3]-(b) RETURN count(p) AS n"),
        ("APP *1..4 count(p)", hub + "-[*1..4]-(b) RETURN count(p) AS n"),
        ("APP *1..3 names", "MATCH (a:Gene {name: 'APP'})-[*1..3]-(b) RETURN b.name LIMIT 20"),
        ("APP * SHORTEST 1..4", "MATCH (a:Gene {name: 'APP'})-[* SHORTEST 1..4]-(b) RETURN count(DISTINCT b) AS n"),
    ]]
    out += [Case("threads", "8 threads ingest 2 records each, 2 readers", "api", "eight_threads",
                 allow={"complete_articles": 16, "Passage": 16, "vectors": 16, **GROWS}, expect_exit=0),
            Case("embedder mismatch", "another 384-d model", "api", "other_embedder",
                 expect_text="allow_embedder_mismatch=True"),
            Case("embedder mismatch", "a 256-d model", "api", "embedder_256",
                 expect_text="256-dimensional vectors of")]
    # secrets: a made-up key in the environment, the LLM unreachable (a closed local port as proxy); the key
    # must appear in no output, log line (DEBUG), run bundle, cassette or workspace file
    secret = {"ANTHROPIC_API_KEY": SECRET, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
              "ENGRAM_PROBE_DEBUG_LOG": "1"}
    out += [
        Case("secrets", "desk --llm anthropic, network down", "cli",
             ["desk", "What does metformin treat?", "--llm", "anthropic"], expect_exit=-1, env=secret),
        Case("secrets", "investigate --llm anthropic --bundle", "cli",
             ["investigate", "What does metformin treat?", "--llm", "anthropic", "--bundle",
              str(scratch / "bundle.json")], expect_exit=-1, env=secret),
        Case("secrets", "investigate --llm record --cassette", "cli",
             ["investigate", "What does metformin treat?", "--llm", "record", "--cassette",
              str(scratch / "cassette.json")], expect_exit=-1, env=secret),
        Case("secrets", "info and check with the key set", "cli", ["check"], expect_exit=0, env=secret),
    ]
    return out


#: The content of the file-loader cases' files (must appear in no reply).
FILE_SECRET = "FILE-SECRET-5b1e-NOT-REAL"

#: The made-up API key of the secrets cases (never a real key).
SECRET = "sk-ant-probe-0123456789-NOT-A-REAL-KEY-abcdef"


# ------------------------------------------------------------------------------------- the child's side
def _api_cases() -> dict[str, Callable[[Any, Path], str]]:
    """Cases that use the Python API; each returns a message (or raises)."""
    from engram_kit.ingestion.pubmed import PubMedRecord

    def pmid_abc(ws: Any, inputs: Path) -> str:
        return str(ws.ingest([PubMedRecord(pmid="abc", title="t", abstract="Metformin lowers glucose.")]))

    def empty_abstract(ws: Any, inputs: Path) -> str:
        return str(ws.ingest([PubMedRecord(pmid="9300009", title="t", abstract="")]))

    def nul_name(ws: Any, inputs: Path) -> str:
        return str(ws.documents.add_bytes(b"Heparin prevents thrombosis. " * 20, "a\x00b.md"))

    def oversize_bytes(ws: Any, inputs: Path) -> str:
        return str(ws.documents.add_bytes(b"%PDF-1.4\n" + b"0" * (60 << 20), "big.pdf"))

    def two_empty_files(ws: Any, inputs: Path) -> str:
        messages = []
        for path in (inputs / "empty-a.md", inputs / "other" / "empty-a.md"):
            messages.append(ws.documents.add_file(path, raise_on_error=False).error)
        errors = ws.documents.list(status="error")
        if len(errors) != 2:  # each source keeps its own error record
            raise AssertionError(f"two empty files left {len(errors)} error records")
        from engram_kit.errors import DataError

        raise DataError("; ".join(messages))

    def eight_threads(ws: Any, inputs: Path) -> str:
        import threading

        errors: list[str] = []

        def write(w: int) -> None:
            try:
                ws.ingest([PubMedRecord(pmid=str(9_500_000 + w * 10 + j), title=f"Thread {w} study {j}",
                                        abstract=f"Metformin lowers glucose in type 2 diabetes (thread {w}, {j}).")
                           for j in range(2)])
            except Exception as exc:  # collected
                errors.append(repr(exc))

        def read() -> None:
            try:
                for _ in range(3):
                    ws.retrieve("What does metformin treat?")
            except Exception as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=write, args=(w,), daemon=True) for w in range(8)]
        threads += [threading.Thread(target=read, daemon=True) for _ in range(2)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 240
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in threads):
            raise TimeoutError(f"{sum(t.is_alive() for t in threads)} threads still running after 240 s (a hang)")
        if errors:
            raise RuntimeError("; ".join(errors))
        return "8 writers and 2 readers finished"

    def _embedder(dimension: int) -> Any:
        import numpy as np

        from engram_kit.embeddings.base import BaseEmbedder, EmbedderSpec

        class Other(BaseEmbedder):
            spec = EmbedderSpec(name=f"another {dimension}-d model", backend="other", dimension=dimension,
                                tokenizer="whitespace", max_tokens=None)

            def _encode_fitting(self, texts: list[str], batch_size: int) -> Any:
                return np.ones((len(texts), dimension), dtype=np.float32)
        return Other()

    def other_embedder(ws: Any, inputs: Path) -> str:
        from engram_kit.workspace import Workspace

        return str(Workspace.open(ws.path, read_only=True, embedder=_embedder(384)))

    def embedder_256(ws: Any, inputs: Path) -> str:
        from engram_kit.workspace import Workspace

        return str(Workspace.open(ws.path, read_only=True, embedder=_embedder(256)))

    return {**{f.__name__: f for f in (pmid_abc, empty_abstract, nul_name, oversize_bytes, two_empty_files,
                                    eight_threads, other_embedder, embedder_256)},
            **_quiet_api_cases()}


def run_child(case: Case, workspace: Path, inputs: Path, result_path: Path) -> None:
    """Run one case in this (child) process and write its result as JSON."""
    import contextlib
    import io

    # setrlimit caps that work beside LadybugDB's address-space reservation (see the module docstring)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (int(CASE_TIMEOUT_S) * 2, int(CASE_TIMEOUT_S) * 2))
    from engram_kit.errors import EngramError

    result: dict[str, Any] = {"exit": None, "error": "", "output": "", "exception": ""}
    os.environ.update(case.env)
    if case.env.get("ENGRAM_PROBE_DEBUG_LOG"):  # every logger at DEBUG into a file the parent scans
        import logging

        logging.basicConfig(filename=str(result_path.with_suffix(".log")), level=logging.DEBUG, force=True)
    t0 = time.perf_counter()
    try:
        if case.kind == "cli":
            from engram_kit.cli import main

            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result["exit"] = main([case.arg[0], "-w", str(workspace), *case.arg[1:]])
            result["output"], result["error"] = out.getvalue()[-4000:], err.getvalue()[-4000:]
        else:
            from engram_kit.workspace import Workspace

            ws = Workspace.open(workspace, read_only=case.kind in ("desk", "desk-raw"))
            ws.settings.progress = False
            try:
                if case.kind == "api":
                    try:
                        result["output"] = _api_cases()[case.arg](ws, inputs)
                        result["exit"] = 0
                    except EngramError as exc:
                        result["exit"], result["error"] = 2, f"{type(exc).__name__}: {exc}"
                else:
                    from engram_kit.evidence import DeskLimits, QueryRunner

                    if case.kind == "desk-raw":  # the query process itself, the guard bypassed
                        artifact = _run_raw(ws.store, case.arg)
                    else:
                        artifact = QueryRunner(ws.store, DeskLimits()).run(case.arg)  # a new workspace's defaults
                    reader = getattr(ws.store, "_isolated", None)  # the query process, if one ran the query
                    child_peak = 0
                    if reader is not None:
                        child_peak = reader.last_memory_peak_mb if "needed more memory" in artifact.error else 0
                        if not child_peak and reader.pid:
                            child_peak = _vm_hwm_mib(reader.pid)
                    result["query_process_peak_mib"] = child_peak
                    result["caller_peak_mib"] = _vm_hwm_mib(os.getpid())
                    result["exit"] = 0
                    result["output"] = json.dumps({"status": artifact.status, "rows": len(artifact.rows),
                                                   "truncation": artifact.truncation})
                    result["error"] = artifact.error[:2000]
                    result["desk_status"], result["desk_rows"] = artifact.status, len(artifact.rows)
                    result["desk_cut"] = artifact.truncation
            finally:
                ws.close()  # also stops and reaps the desk's query process, so wait4 counts its peak
    except BaseException as exc:  # noqa: B036 - anything that escapes is the crash being measured
        result["exception"] = "".join(traceback.format_exception(exc))[-4000:]
    result["seconds"] = round(time.perf_counter() - t0, 2)
    result_path.write_text(json.dumps(result))


def _run_raw(store: Any, cypher: str) -> Any:
    """An artifact of ``cypher`` run by the query process directly (no guard), as the runner records it."""
    from engram_kit.errors import EngramError, QueryGuardError
    from engram_kit.evidence import DeskLimits, execute_read_only
    from engram_kit.evidence.artifacts import Artifact

    limits, artifact = DeskLimits(), Artifact(id="q1", text=cypher)
    try:
        frame = execute_read_only(store, cypher, {}, limits.query_timeout_s, max_rows=limits.max_rows,
                                  max_bytes=limits.max_bytes, max_memory_mb=limits.max_memory_mb)
        artifact.rows = frame.head(limits.max_rows).astype(str).values.tolist()
    except QueryGuardError as exc:
        artifact.status, artifact.error = "refused", str(exc)
    except EngramError as exc:
        artifact.status, artifact.error = "failed", str(exc)
    return artifact


def _vm_hwm_mib(pid: int) -> int:
    """Peak resident set (``VmHWM``) of a live process, MiB; 0 when it has exited."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def snapshot(workspace: Path) -> dict[str, Any]:
    """Content counters, error records, graph/vector agreement and orphan document objects of a workspace."""
    from engram_kit.records import COMPLETE_STATUSES
    from engram_kit.workspace import Workspace

    ws = Workspace.open(workspace, read_only=True)
    try:
        counts = ws.store.counts()
        articles = ws.store.articles()
        status = articles["status"].value_counts().to_dict() if not articles.empty else {}
        referenced = set(articles["content_hash"].dropna()) if not articles.empty else set()
        root = workspace / "objects" / "documents" / "sha256"
        stored = {p.name for p in root.glob("*/*")} if root.exists() else set()
        check = ws.check()
        out = {k: int(counts.get(k, 0)) for k in CONTENT if k not in ("complete_articles", "vectors")}
        out.update(complete_articles=int(sum(v for k, v in status.items() if k in COMPLETE_STATUSES)),
                   vectors=check.vectors, error_records=int(status.get("error", 0)),
                   not_finished=int(sum(v for k, v in status.items() if k in ("pending", "processing"))),
                   orphan_objects=len(stored - referenced), consistent=check.consistent,
                   whole_text_titles=int(articles["title"].fillna("").str.len().gt(300).sum()) if not articles.empty else 0,
                   zero_passage_complete=int(sum(1 for row in articles.itertuples()
                                                 if row.status in COMPLETE_STATUSES and not int(row.passages or 0))
                                             if not articles.empty else 0))
        return out
    finally:
        ws.close()


# ------------------------------------------------------------------------------------- the parent's side
def _tree_rss(process: psutil.Process) -> int:
    total = 0
    for p in [process, *process.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_case(case: Case, index: int, base: Path, inputs: Path, scratch: Path, env: dict[str, str]) -> dict[str, Any]:
    """Copy the base workspace, run ``case`` in a child with the watchdog, snapshot the copy, classify."""
    workspace = scratch / f"ws-{index}"
    shutil.rmtree(workspace, ignore_errors=True)
    shutil.copytree(base, workspace, symlinks=True)
    result_path = scratch / f"result-{index}.json"
    result_path.unlink(missing_ok=True)
    child = subprocess.Popen([sys.executable, __file__, "--child", str(index), "--workspace", str(workspace),
                              "--inputs", str(inputs), "--scratch", str(scratch), "--result", str(result_path)],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    handle = psutil.Process(child.pid)
    peak_tree, killed, started = 0, "", time.perf_counter()
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        peak_tree = max(peak_tree, _tree_rss(handle))
        if not killed and peak_tree > WATCHDOG_MIB * 2**20:
            killed = f"memory watchdog ({WATCHDOG_MIB} MiB)"
        elif not killed and time.perf_counter() - started > CASE_TIMEOUT_S:
            killed = f"timeout ({CASE_TIMEOUT_S:.0f} s)"
        if killed:
            os.killpg(child.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(child.pid, 0)
            break
        time.sleep(0.02)
    stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    result = json.loads(result_path.read_text()) if result_path.exists() else {}
    after = snapshot_in_child(workspace, env)
    lines = (result.get("error") or result.get("output") or "").strip().splitlines()
    row: dict[str, Any] = {"family": case.family, "case": case.name, "peak_rss_mib": round(usage.ru_maxrss / 1024),
           "peak_tree_mib": round(peak_tree / 2**20), "seconds": round(time.perf_counter() - started, 1),
           "exit": result.get("exit"), "process_status": code, "killed": killed, "after": after,
           "message": lines[-1][:200] if lines else ""}
    if "query_process_peak_mib" in result:
        row["desk_sum_mib"] = result["query_process_peak_mib"] + result["caller_peak_mib"]
    row["outcome"], row["why"] = classify(case, result, code, killed, stderr, after, scratch)
    if case.env.get("ANTHROPIC_API_KEY") and row["outcome"] != "crash":
        leaks = secret_leaks(case.env["ANTHROPIC_API_KEY"], [json.dumps(result), stderr],
                             [workspace, scratch, result_path.with_suffix(".log")])
        row["why"] = (f"KEY LEAKED in {', '.join(leaks)}; " if leaks else "key in no output, log, bundle or "
                      "workspace file; ") + row["why"]
        if leaks:
            row["outcome"] = "data changed"
    for leftover in ("bundle.json", "cassette.json"):
        (scratch / leftover).unlink(missing_ok=True)
    result_path.with_suffix(".log").unlink(missing_ok=True)
    shutil.rmtree(workspace, ignore_errors=True)
    return row


def secret_leaks(secret: str, texts: list[str], places: list[Path]) -> list[str]:
    """Where ``secret`` (or its last 12 characters) occurs: in ``texts`` or any file under ``places``."""
    needles = [secret.encode(), secret[-12:].encode()]
    found = [f"output {i}" for i, text in enumerate(texts) if any(n.decode() in text for n in needles)]
    for place in places:
        files = [place] if place.is_file() else [p for p in place.rglob("*") if p.is_file()] if place.exists() else []
        for path in files:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(n in data for n in needles):
                found.append(str(path))
    return found


def snapshot_in_child(workspace: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--snapshot", str(workspace)], env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        return {"snapshot_failed": done.stderr[-500:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


BASE_SNAPSHOT: dict[str, Any] = {}


def classify(case: Case, result: dict[str, Any], code: int, killed: str, stderr: str, after: dict[str, Any],
             scratch: Path) -> tuple[str, str]:
    """``handled`` / ``data changed`` / ``crash`` and the reason (see the module docstring)."""
    if killed:  # the wall clock: a hang; the memory watchdog: a crash
        return ("hang" if killed.startswith("timeout") else "crash"), killed
    if code != 0 or not result:
        return "crash", f"child exit status {code}: {stderr.strip().splitlines()[-1:] if stderr else ''}"
    if result.get("exception"):
        last_line = result["exception"].strip().splitlines()[-1]
        return ("hang" if "(a hang)" in last_line else "crash"), last_line
    text = (result.get("error", "") or "") + "\n" + (result.get("output", "") or "")
    if "Traceback" in text:
        return "crash", "traceback in the output"
    if "snapshot_failed" in after:
        return "data changed", "the workspace no longer opens: " + after["snapshot_failed"][-200:]
    exit_code = result.get("exit")
    output = result.get("output", "") or ""
    if output.startswith("SILENT:"):
        return "silent", output[len("SILENT: "):][:200]
    if output.startswith("CHANGED:"):
        return "data changed", output[len("CHANGED: "):][:200]
    grew = any(after[key] != BASE_SNAPSHOT[key] for key in CONTENT)
    if case.kind == "cli" and exit_code == 0 and not grew and (case.allow or case.expect_exit == 2):
        tail = text.strip().splitlines()[-1][:160] if text.strip() else ""
        return "silent", f"exit 0 and nothing stored: {tail}"  # a "nothing" a script cannot see
    # a case that may end either way is allowed its new content only when it was accepted
    allow = case.allow if case.expect_exit != -1 or exit_code == 0 else {}
    changed = []
    for key in CONTENT:
        delta = after[key] - BASE_SNAPSHOT[key]
        allowed = allow.get(key, 0)
        if allowed == "+" and delta > 0:
            continue
        if delta != allowed:
            changed.append(f"{key} {delta:+d}")
    for key, problem in (("orphan_objects", "orphan objects"), ("not_finished", "articles left pending"),
                         ("zero_passage_complete", "a complete document with 0 passages"),
                         ("whole_text_titles", "a title holding the whole text")):
        if after[key] > BASE_SNAPSHOT[key]:
            changed.append(f"{after[key] - BASE_SNAPSHOT[key]} {problem}")
    if not after["consistent"]:
        changed.append("graph and vectors disagree")
    if (scratch / "leak.csv").exists() or (scratch / "export").exists():
        changed.append("a file was written by the query")
        shutil.rmtree(scratch / "export", ignore_errors=True)
        (scratch / "leak.csv").unlink(missing_ok=True)
    if changed:
        return "data changed", "; ".join(changed)
    last = text.strip().splitlines()[-1][:160] if text.strip() else ""
    if FILE_SECRET in text or FILE_SECRET in json.dumps(result):
        return "data changed", "FILE CONTENT in the reply"
    if case.kind in ("desk", "desk-raw"):
        status = result.get("desk_status")
        if case.family.startswith("file loaders") and status == "ok":
            return "data changed", f"the query read a file: {result.get('desk_rows')} rows returned"
        if status in ("refused", "failed") and "crashed" in (result.get("error") or ""):
            # the caller survived, but the query process ended by a signal (issue 31: none may)
            return "crash", f"query process: {result['error'][:160]}"
        if status in ("refused", "failed") and result.get("error"):
            return "handled", f"{status}: {result['error'][:160]}"
        if status == "ok" and result.get("desk_rows", 0) <= 100:
            cut = f", cut: {result['desk_cut']}" if result.get("desk_cut") else ""
            return "handled", f"ok, {result.get('desk_rows')} rows{cut}"
        return "crash", f"unexpected desk result {status}"
    if exit_code not in (0, 2):
        return "crash", f"exit {exit_code}: {last}"
    if case.expect_exit == -1:
        return "handled", ("refused: " if exit_code == 2 else "accepted: ") + last
    if exit_code != case.expect_exit:  # nothing changed, but the input was not refused (or not accepted)
        return "handled", f"NOT AS EXPECTED (exit {exit_code}, expected {case.expect_exit}): {last}"
    if case.expect_text and case.expect_text not in text:
        return "handled", f"(message lacks {case.expect_text!r}) {last}"
    return "handled", last or "ok"


def build_base(base: Path, env: dict[str, str]) -> None:
    """``engram init`` + ``engram ingest`` of 20 bundled abstracts, as a user would (default embedder)."""
    if (base / "manifest.json").exists():
        return
    sample = REPO / "data" / "pubmed" / "abstracts-sample.jsonl.gz"
    twenty = base.parent / "twenty.jsonl"
    with gzip.open(sample, "rt") as fh:
        twenty.write_text("".join(line for _, line in zip(range(20), fh)))
    cli = [sys.executable, "-m", "engram_kit.cli"]
    subprocess.run([*cli, "init", "-w", str(base)], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*cli, "ingest", "-w", str(base), str(twenty)], env=env, check=True, stdout=subprocess.DEVNULL)


def write_table(rows: list[dict[str, Any]], seconds: float, note: str = "") -> str:
    """The per-family table (tried / handled / data changed / crash / max RSS) and the per-case rows."""
    families: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        families.setdefault(row["family"], []).append(row)
    def desk_sum(group: list[dict[str, Any]]) -> str:
        values = [r["desk_sum_mib"] for r in group if r.get("desk_sum_mib")]
        return str(max(values)) if values else "-"

    lines = ["| family | tried | handled | silent | data changed | crash | hang | max peak RSS (MiB) | "
             "max tree RSS (MiB) | max caller + query process (MiB) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for family, group in families.items():
        n = {k: sum(r["outcome"] == k for r in group) for k in OUTCOMES}
        lines.append(f"| {family} | {len(group)} | {n['handled']} | {n['silent']} | {n['data changed']} | {n['crash']} | "
                     f"{n['hang']} | "
                     f"{max(r['peak_rss_mib'] for r in group)} | {max(r['peak_tree_mib'] for r in group)} | "
                     f"{desk_sum(group)} |")
    n = {k: sum(r["outcome"] == k for r in rows) for k in OUTCOMES}
    lines.append(f"| **all** | {len(rows)} | {n['handled']} | {n['silent']} | {n['data changed']} | {n['crash']} | "
                 f"{n['hang']} | "
                 f"{max(r['peak_rss_mib'] for r in rows)} | {max(r['peak_tree_mib'] for r in rows)} | "
                 f"{desk_sum(rows)} |")
    detail = ["| family | case | outcome | peak RSS (MiB) | tree RSS (MiB) | caller + query process (MiB) | s | "
              "what happened |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        why = r["why"].replace("|", "\\|").replace("\n", " ")
        detail.append(f"| {r['family']} | {r['case']} | {r['outcome']} | {r['peak_rss_mib']} | {r['peak_tree_mib']} | "
                      f"{r.get('desk_sum_mib', '-')} | {r['seconds']} | {why} |")
    over = [r for r in rows if r["peak_rss_mib"] >= RSS_LIMIT_MIB or r["peak_tree_mib"] >= RSS_LIMIT_MIB
            or r.get("desk_sum_mib", 0) >= RSS_LIMIT_MIB]
    load = os.getloadavg()
    text = "\n".join([
        "# Bad-input probe (issue 21)", "",
        f"`python benchmarks/bad_inputs.py`: {len(rows)} cases, each in a fresh child process on its own copy of a "
        f"workspace built with `engram init` + `engram ingest` of 20 bundled abstracts (default embedder). "
        f"{seconds / 60:.1f} min (sum of the cases) on a shared {os.cpu_count()}-core machine (load average {load[0]:.1f} at the end), "
        f"commit {_commit()}." + (f" {note}" if note else ""), "",
        "*Peak RSS*: the child's `ru_maxrss` from `os.wait4` (the largest single process, the child or the desk's "
        "query process it started and reaped). *Tree RSS*: the summed RSS of the child's process tree, polled every "
        "20 ms. *Caller + query process*: for desk cases, the caller's `VmHWM` plus the query process's peak "
        "(`VmHWM`, or the peak it reported when it refused for memory): an upper bound of their joint peak. "
        f"Memory was capped by a parent watchdog at {WATCHDOG_MIB} MiB (`RLIMIT_AS`/`RLIMIT_DATA` cannot be used: "
        "LadybugDB reserves 8 TiB of address space on open), files by `RLIMIT_FSIZE` 2 GiB, time by "
        f"{CASE_TIMEOUT_S:.0f} s wall clock and `RLIMIT_CPU`.", "",
        "*Handled*: the expected ending (a one-line error with exit 2, an EngramError, a desk refusal/failure, or "
        "for accepted inputs exactly the expected new content). *Data changed*: content other than allowed "
        "(partial commits, orphan objects, drift, a complete document with 0 passages, a file written by a "
        "query, an API key found in an output, log, bundle or workspace file, a stored text that differs from the "
        "page). *Silent*: accepted with exit 0 but nothing stored, nothing linked that the input names, or damage "
        "nobody is told about (issue 31.5). *Crash*: traceback, signal, non-Engram exception or the memory watchdog. *Hang*: "
        "stopped at the wall-clock limit.", "",
        *lines, "",
        f"Cases at or above the issue's {RSS_LIMIT_MIB} MiB ceiling: "
        + (", ".join(f"{r['case']} ({r['peak_rss_mib']}/{r['peak_tree_mib']} MiB)" for r in over) or "none") + ".", "",
        "## Per case", "", *detail, ""])
    return text


def stored_note(results: Path) -> str:
    """The rerun notes already in the results file (kept when more cases are merged)."""
    if not results.exists():
        return ""
    first = next((line for line in results.read_text().splitlines() if line.startswith("`python")), "")
    return first[first.index("Rerun with"):] if "Rerun with" in first else ""


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only cases whose 'family / name' contains one of these comma-separated texts")
    parser.add_argument("--work", default="", help="folder for the base workspace and inputs (default: a temp dir)")
    parser.add_argument("--no-write", action="store_true", help="print the table without writing the results file")
    parser.add_argument("--merge", action="store_true",
                        help="with --only: replace those cases' rows in the stored results and rewrite the table")
    parser.add_argument("--note", default="after fixing the probe's allowances",
                        help="why the cases were rerun (recorded with --merge)")
    parser.add_argument("--partial", default="", help="append each case's row (JSON) to this file as it ends")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--snapshot", default="", help=argparse.SUPPRESS)
    parser.add_argument("--workspace", default="", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", default="", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", default="", help=argparse.SUPPRESS)
    parser.add_argument("--result", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.snapshot:
        print(json.dumps(snapshot(Path(args.snapshot))))
        return 0
    if args.child is not None:
        inputs = Path(args.inputs)
        paths = build_inputs_index(inputs)
        run_child(cases(paths, Path(args.scratch))[args.child], Path(args.workspace), inputs, Path(args.result))
        return 0
    started = time.perf_counter()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bad-inputs-"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    base, inputs, scratch = work / "base", work / "inputs", work / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "secret.csv").write_text(f"name,secret\nalice,{FILE_SECRET}\n")
    (scratch / "secret-broken.csv").write_text(f'{FILE_SECRET} "unterminated\nsecond,x,y\n')
    print(f"work folder {work}", flush=True)
    build_base(base, env)
    paths = build_inputs(inputs)
    BASE_SNAPSHOT.update(snapshot_in_child(base, env))
    print(f"base: {BASE_SNAPSHOT}", flush=True)
    rows = []
    for index, case in enumerate(cases(paths, scratch)):
        if args.only and not any(part.strip().lower() in (case.family + " / " + case.name).lower()
                                 for part in args.only.split(",")):
            continue
        row = run_case(case, index, base, inputs, scratch, env)
        rows.append(row)
        if args.partial:  # a long run on a loaded machine keeps what it measured if it is stopped
            with open(args.partial, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row, default=str) + "\n")
        print(f"{row['outcome']:12} {row['peak_rss_mib']:5} MiB {row['peak_tree_mib']:5} MiB {row['seconds']:6.1f} s  "
              f"{case.family} / {case.name}: {row['why'][:150]}", flush=True)
    seconds = time.perf_counter() - started
    note = ""
    if args.merge and args.only and RESULTS.with_suffix(".json").exists():
        stored = json.loads(RESULTS.with_suffix(".json").read_text())
        fresh = {(r["family"], r["case"]): r for r in rows}
        rows = [fresh.get((r["family"], r["case"]), r) for r in stored]
        known = {(r["family"], r["case"]) for r in stored}
        rows += [r for key, r in fresh.items() if key not in known]  # new cases join the table
        previous = stored_note(RESULTS)
        note = (f"{previous + ' ' if previous else ''}Rerun with `--only {args.only!r} --merge` {args.note}: "
                f"{', '.join(c for _, c in fresh)} ({seconds / 60:.1f} min, commit {_commit()}).")
        seconds = sum(r["seconds"] for r in rows)
    table = write_table(rows, seconds, note)
    print(table)
    if not args.no_write and (not args.only or args.merge):
        RESULTS.write_text(table)
        (RESULTS.with_suffix(".json")).write_text(json.dumps(rows, indent=1, default=str))
    return 0


def build_inputs_index(inputs: Path) -> dict[str, Path]:
    """The name -> path map of :func:`build_inputs` for files the parent already wrote (child side)."""
    paths = {p.name: p for p in inputs.iterdir() if p.is_file()}
    paths["empty-b.md"] = inputs / "other" / "empty-a.md"
    paths["name-rlo"] = inputs / "invoice\u202efdp.md"
    paths["a-directory.jsonl"] = inputs / "a-directory.jsonl"
    paths["name-not-utf8"] = Path(os.fsdecode(os.fsencode(inputs) + b"/report-\xff\xfe.md"))
    return paths


if __name__ == "__main__":
    sys.exit(main())
