"""Purge benchmark: bytes of the graph and vector stores across add/delete cycles, before and after
``ws.compact()`` (``engram purge``).

A workspace from the bundled sample; the bundled PDFs are ingested, all but the first deleted, and that
add/delete cycle repeated ``--cycles`` times; then the workspace is compacted. Reported: graph file bytes,
vector folder bytes and whether a marker sentence of a deleted PDF is still found in any store file.

Run::

    python benchmarks/purge.py --out benchmarks/results/purge.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PDFS = sorted((REPO / "data" / "pdfs").glob("*.pdf"))
#: A phrase printed in the Malawi paper (deleted in every cycle): found in a store file = not purged.
MARKER = b"Kamuzu Central"


def sizes(ws) -> dict[str, int]:  # Workspace
    from engram_kit.compaction import folder_bytes

    graph = sum(folder_bytes(p) for p in ws.path.glob("graph.lbug*"))
    vectors = folder_bytes(ws.path / "vectors")
    leaked = [p.name for p in list(ws.path.glob("graph.lbug*")) + list((ws.path / "vectors").rglob("*"))
              if p.is_file() and MARKER in p.read_bytes()]
    return {"graph": graph, "vectors": vectors, "marker_files": len(leaked)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.workspace import Workspace

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.create(Path(tmp) / "ws", data=resolve_data_paths())
        ws.settings.progress = False
        keep = ws.ingest_pdf(PDFS[0])
        rows.append(("one PDF", sizes(ws)))
        for cycle in range(args.cycles):
            reports = [ws.documents.add_file(p, as_new=True) for p in PDFS[1:]]
            rows.append((f"cycle {cycle + 1}: +{len(reports)} PDFs", sizes(ws)))
            for report in reports:
                ws.documents.delete(report.id)
            rows.append((f"cycle {cycle + 1}: deleted them", sizes(ws)))
        t0 = time.perf_counter()
        report = ws.compact()
        rows.append((f"after compact ({time.perf_counter() - t0:.1f} s)", sizes(ws)))
        assert ws.store.article_passages(keep.id).shape[0] == keep.passages
        ws.close()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    lines = [f"# Purge: store bytes across add/delete cycles (commit {commit})", "",
             f"Load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine). Marker: a phrase of "
             f"a deleted PDF; 'marker files' = store files still holding it.", "",
             "| step | graph bytes | vector bytes | marker files |", "|---|---|---|---|"]
    lines += [f"| {name} | {s['graph']:,} | {s['vectors']:,} | {s['marker_files']} |" for name, s in rows]
    lines += ["", "```", str(report), "```", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
