"""PDF structure benchmark: headings (with levels), tables, passages, warnings per PDF against a gold file.

The gold file (``tests/fixtures/pdf_structure_gold.json``) was made by hand from the printed pages of the four
bundled CC BY papers. For every PDF the script parses it (:func:`engram_kit.ingestion.pdf.parse_pdf`), chunks
the sections like the document pipeline does (prose chunks + one passage per table/caption block, token
counts with the embedder's WordPiece tokenizer), and reports:

* headings found / gold, exact (text, level, page) matches, extra headings;
* table parts found / gold (caption number and page), captions;
* passages by kind (text, table, caption, front/back matter);
* warnings and problems (what makes a document ``complete_with_warnings``);
* ``glyph_bad``: passages with a mis-mapped glyph or a glued superscript, out of all passages (the scan of
  ``tests/test_pdf.py::test_no_mis_mapped_glyph_or_glued_superscript_in_any_passage``, per passage: control,
  private-use or unassigned characters, U+FFFD, an unknown word that a ligature in place of one of its
  non-ASCII letters makes a known word, T1 mojibake, or a word + superscript marker as the raw spans would
  read glued, e.g. "plaques12,13");
* ``pages_wrong`` / ``pages_checked``: passages whose pages are wrong (the check of
  ``test_pages_are_right_for_every_passage``: one of the first / last five words of 6+ letters of a prose
  passage must be on its first / last page; a caption's last title word on its page). Unlike the test, table
  passages are checked too: one of their last five words of 6+ letters must be on the table's page. All
  sections count, the non-retrievable reference list included, as in the test;
* parse seconds (wall; the machine is shared, see the load average).

Run::

    python benchmarks/pdf_structure.py --out benchmarks/results/pdf_structure.md
    python benchmarks/pdf_structure.py --pdf other.pdf        # any PDF: structure only, no gold
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import time
import unicodedata
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "tests" / "fixtures" / "pdf_structure_gold.json"


def raw_superscript_glues(path: Path) -> set[str]:
    """Word + superscript marker as they would read glued ("plaques12,13"), from the raw spans: a span at most
    80% of the line's largest size, digits/commas/asterisks only, right after a word of 3+ letters (tests/test_pdf.py's glyph scan uses it
    too)."""
    import pymupdf

    glued = set()
    with pymupdf.open(path) as doc:
        for page in doc:
            for block in page.get_text("dict")["blocks"]:
                for line in block.get("lines", []):
                    spans = line["spans"]
                    top = max(sp["size"] for sp in spans)
                    for k in range(1, len(spans)):
                        sup, before = spans[k], spans[k - 1]
                        word = re.search(r"([A-Za-z]{3,})$", before["text"])
                        if (word and sup["text"].strip() and sup["size"] <= 0.8 * top
                                and re.fullmatch(r"[\d,*]+", sup["text"].strip())):
                            glued.add(word.group(1) + sup["text"].strip())
    return glued


def glyph_faults(text: str, glued: set[str]) -> list[str]:
    """What the glyph scan finds in one passage (empty: clean)."""
    from engram_kit.ingestion.repair import LIGATURES, is_known

    faults = [f"char U+{ord(c):04X}" for c in text
              if unicodedata.category(c) in ("Cc", "Co", "Cn") and c not in "\n\t" or c == "\ufffd"]
    faults += [f"ligature? {w}" for w in re.findall(r"\w+", text) if not w.isascii() and not is_known(w)
               and any(is_known(w.replace(c, lig)) for c in w if not c.isascii() for lig in LIGATURES)]
    faults += [f"T1 mojibake {m}" for m in re.findall(r"[\u00c2-\u00df][\u0102-\u017e]", text)]
    faults += [f"glued {g}" for g in glued if g in text]
    return faults


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKC", text).lower())


def page_faults(doc, path: Path, counter) -> tuple[int, list[str]]:
    """Passages checked and the passages whose pages are wrong (see the module docstring)."""
    import pymupdf

    from engram_kit.ingestion.chunking import chunk_text
    from engram_kit.ingestion.documents import block_passages

    with pymupdf.open(path) as pdf:
        pages = [_letters(p.get_text()) for p in pdf]
    checked, wrong = 0, []
    for section in doc.sections:
        for chunk in chunk_text(section.text, counter=counter) if section.text else []:
            first, last = section.page_at(chunk.char_start), section.page_at(chunk.char_end - 1)
            words = re.findall(r"[A-Za-z]{6,}", chunk.text)
            head = any(_letters(w) in pages[first - 1] for w in words[:5])
            tail = any(_letters(w) in pages[last - 1] for w in words[-5:])
            checked += 1
            if not (head and tail):
                wrong.append(f"{section.title} p{first}-{last}: {chunk.text[:60]!r}")
        for block in section.blocks:
            page = pages[block.page - 1]
            for text, _ in block_passages(block, counter):
                checked += 1
                if block.kind == "table":
                    ok = any(_letters(w) in page for w in re.findall(r"[A-Za-z]{6,}", text)[-5:])
                else:
                    ok = _letters(block.title.split()[-1]) in page
                if not ok:
                    wrong.append(f"{block.kind} {block.title[:30]!r} p{block.page}")
    return checked, wrong


def measure(path: Path, gold: dict | None) -> dict[str, object]:
    from engram_kit.ingestion.chunking import chunk_text, default_token_counter
    from engram_kit.ingestion.documents import block_passages, passage_kind
    from engram_kit.ingestion.pdf import parse_pdf

    t0 = time.perf_counter()
    doc = parse_pdf(path.read_bytes(), filename=path.name)
    seconds = time.perf_counter() - t0
    counter = default_token_counter()
    kinds: Counter[str] = Counter()
    for section in doc.sections:
        if not section.retrievable:
            continue
        kinds[passage_kind(section)] += len(chunk_text(section.text, counter=counter)) if section.text else 0
        for block in section.blocks:
            kinds[block.kind] += len(block_passages(block, counter))
    found = [[s.title, s.level, s.page] for s in doc.sections if s.kind != "front_matter"]
    blocks = [b for s in doc.sections for b in s.blocks]
    # the glyph scan covers every passage text the parser produced (all sections, references included, and
    # every table/caption passage), like the test's scan of all text
    glued = raw_superscript_glues(path)
    texts = [c.text for s in doc.sections if s.text for c in chunk_text(s.text, counter=counter)]
    texts += [t for b in blocks for t, _ in block_passages(b, counter)]
    glyph_bad = [f for t in texts if (f := glyph_faults(t, glued))]
    pages_checked, pages_wrong = page_faults(doc, path, counter)
    tables = [[m.group(0) if (m := re.match(r"Table \d+", b.title)) else "Table ?", b.page]
              for b in blocks if b.kind == "table"]
    row: dict[str, object] = {
        "pdf": path.name, "pages": doc.pages, "headings": len(found),
        "levels": "/".join(str(sum(1 for h in found if h[1] == lv)) for lv in (1, 2, 3)),
        "tables": len(tables), "captions": sum(b.kind == "caption" for b in blocks),
        "passages": sum(kinds.values()), "by_kind": ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
        "warnings": len(doc.warnings), "problems": len(doc.problems), "seconds": round(seconds, 2),
        "glyph_bad": f"{len(glyph_bad)}/{len(texts)}", "pages_wrong": len(pages_wrong), "pages_checked": pages_checked,
        "faults": [x for f in glyph_bad for x in f] + pages_wrong,
    }
    if gold:
        row["headings_gold"] = len(gold["headings"])
        row["headings_exact"] = sum(1 for h in gold["headings"] if h in found)
        row["headings_extra"] = sum(1 for h in found if h not in gold["headings"])
        row["tables_gold"] = len(gold["tables"])
        row["tables_exact"] = sum(1 for t in gold["tables"] if t in tables)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", type=Path, nargs="*", default=None, help="PDFs (default: the four bundled papers)")
    parser.add_argument("--out", type=Path, default=None, help="write the markdown table here")
    args = parser.parse_args()
    gold = json.loads(GOLD.read_text(encoding="utf-8"))
    paths = args.pdf or [REPO / "data" / "pdfs" / name for name in sorted(gold) if not name.startswith("_")]
    rows = [measure(p, gold.get(p.name)) for p in paths]
    columns = ["pdf", "pages", "headings_exact", "headings_gold", "headings_extra", "levels", "tables_exact",
               "tables_gold", "captions", "passages", "by_kind", "warnings", "problems", "glyph_bad", "pages_wrong",
               "pages_checked", "seconds"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    faults = [f"- {r['pdf']}: {f}" for r in rows for f in r["faults"]]  # type: ignore[attr-defined]
    lines += ["", "`passages` counts retrievable passages (as ingested); `glyph_bad` and `pages_checked` count every",
              "chunk of every section (the reference list too) and every table/caption passage.", "",
              "Faults found by the glyph scan and the page check:", "", *(faults or ["- none"])]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    report = "\n".join([f"# PDF structure against the hand-made gold (commit {commit})", "",
                        f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine).",
                        "", *lines, ""])
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
