"""PDF structure benchmark: headings (with levels), tables, passages, warnings per PDF against a gold file.

The gold file (``tests/fixtures/pdf_structure_gold.json``) was made by hand from the printed pages of the four
bundled CC BY papers. For every PDF the script parses it (:func:`engram_kit.ingestion.pdf.parse_pdf`), chunks
the sections like the document pipeline does (prose chunks + one passage per table/caption block, token
counts with the embedder's WordPiece tokenizer), and reports:

* headings found / gold, exact (text, level, page) matches, extra headings;
* table parts found / gold (caption number and page), captions;
* passages by kind (text, table, caption, front/back matter);
* warnings and problems (what makes a document ``complete_with_warnings``);
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
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "tests" / "fixtures" / "pdf_structure_gold.json"


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
    tables = [[(re.match(r"Table \d+", b.title) or re.match(r".*", "Table ?")).group(0), b.page]
              for b in blocks if b.kind == "table"]
    row: dict[str, object] = {
        "pdf": path.name, "pages": doc.pages, "headings": len(found),
        "levels": "/".join(str(sum(1 for h in found if h[1] == lv)) for lv in (1, 2, 3)),
        "tables": len(tables), "captions": sum(b.kind == "caption" for b in blocks),
        "passages": sum(kinds.values()), "by_kind": ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
        "warnings": len(doc.warnings), "problems": len(doc.problems), "seconds": round(seconds, 2),
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
               "tables_gold", "captions", "passages", "by_kind", "warnings", "problems", "seconds"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    report = "\n".join([f"# PDF structure against the hand-made gold (commit {commit})", "",
                        f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine).",
                        "", *lines, ""])
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
