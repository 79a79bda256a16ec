"""Dashboard timings in headless Chromium: first paint, ready, answer, graph layout (targets: < 5 s, < 2 s).

Usage::

    python benchmarks/dashboard.py -w engram-workspace [--runs 3] [--question "..."]

Starts ``engram dashboard``'s Voila command on a free localhost port against the workspace (which must hold
literature, e.g. after ``engram demo``), opens it ``--runs`` times in Debian's Chromium with the network
blocked, asks the question once per run, and re-runs the graph's Cytoscape.js layout in the page to time it
alone. Prints a Markdown table; screenshots go to ``benchmarks/results/dashboard-*.png``.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from engram_widgets.dashboard import dashboard_notebook
from engram_widgets.graph import DEFAULT_LAYOUT
from engram_widgets.testing import CHROMIUM, CHROMIUM_ARGS, DashboardDriver, VoilaServer

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workspace", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--question", default="Which genes interact with BACE1?")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    RESULTS.mkdir(exist_ok=True)
    rows = []
    with VoilaServer(args.workspace, dashboard_notebook(), log_path=RESULTS / "dashboard-voila.log") as server, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True)
        for run in range(args.runs):
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            driver = DashboardDriver(page, RESULTS)
            driver.open(server.url)
            driver.ask(args.question)
            layouts = [driver.measure_layout(DEFAULT_LAYOUT) for _ in range(3)]
            driver.timings.layout = statistics.median(layouts)
            if run == 0:
                driver.screenshot("dashboard-answer")
            rows.append(driver.timings)
            page.close()
        browser.close()
    print("| run | first paint (s) | ready (s) | answer (s) | layout (s) | nodes | edges | blocked requests |\n"
          "|---|---|---|---|---|---|---|---|")
    for i, t in enumerate(rows, 1):
        print(f"| {i} | {t.first_paint:.2f} | {t.ready:.2f} | {t.answer:.1f} | {t.layout:.3f} | {t.nodes} | {t.edges} "
              f"| {len(t.blocked_requests)} |")
    print(f"\nmedian first paint {statistics.median(t.first_paint for t in rows):.2f} s (target < 5 s), "
          f"median layout {statistics.median(t.layout for t in rows):.3f} s (target < 2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
