"""Dashboard in headless Chromium: first-answer time cold and warm, and screenshots of the demo questions.

Usage::

    python benchmarks/dashboard.py -w engram-workspace [--questions "..." "..."]

Starts ``engram dashboard``'s Voila command (with a token) on a free localhost port against the workspace
(which must hold literature, e.g. after ``engram demo``), and measures in Debian's Chromium with the network
blocked:

* **cold**: a fresh page (fresh kernel) asks the first question as soon as the page is ready, while the
  language model is still loading in the background (what a user who types fast gets);
* **preloaded**: a second fresh page waits until the status line says the model is loaded, then asks the
  first question (what a user who reads the page first gets);
* **warm**: the next demo questions on that page.

Each answer's screenshot (first screen at 1400x900) goes to ``benchmarks/results/dashboard-q<i>.png``, and the
last answer's at 1000x700 (window resized) to ``dashboard-q<n>-1000x700.png``, with the graph's node/edge
counts, zoom, smallest label size on screen and where the graph and the evidence start. Prints Markdown tables
with the commit and the load average.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from engram_widgets.dashboard import DEFAULT_POOL_SIZE, dashboard_notebook
from engram_widgets.testing import CHROMIUM, CHROMIUM_ARGS, DashboardDriver, VoilaServer

RESULTS = Path(__file__).resolve().parent / "results"
#: The README's and the issue's demo questions (a gene, a disease/compound question, a name that the
#: resolver may read as an anatomy term).
DEMO_QUESTIONS: tuple[str, ...] = (
    "Which genes interact with BACE1?",
    "What compounds might reduce neuroinflammation in Alzheimer's disease?",
    "Which drugs are used to treat heart failure?",
)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _wait_model(page, timeout: float = 900.0) -> float:
    started = time.perf_counter()
    page.wait_for_function("() => { const s = document.querySelector('.engram-status');"
                           " return s && s.innerText.includes('Language model loaded'); }",
                           timeout=timeout * 1000, polling=250)
    return time.perf_counter() - started


def _wait_pool_warm(server: VoilaServer, pool: int, timeout: float = 900.0) -> float:
    """Wait until ``pool`` kernels run under the server and have gone idle (CPU < 5 % over 2 s: the workspace is
    open and the model warm); returns the seconds waited."""
    import psutil

    started = time.perf_counter()
    assert server.process is not None
    while time.perf_counter() - started < timeout:
        kernels = [p for p in psutil.Process(server.process.pid).children()
                   if any("ipykernel" in part for part in p.cmdline())]
        if len(kernels) >= pool and all(k.cpu_percent(interval=2.0) < 5.0 for k in kernels):
            return time.perf_counter() - started
        time.sleep(1.0)
    raise TimeoutError(f"the {pool} pre-started kernel(s) did not go idle within {timeout:.0f} s")


def _layout(driver: DashboardDriver) -> dict[str, float]:
    """Tops (px from the page's top) of the evidence panel and its first card."""
    boxes = driver.boxes()
    return {"evidence_top": boxes.get("evidence", {}).get("top", -1), "card0_top": boxes.get("card0", {}).get("top", -1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workspace", type=Path, required=True)
    parser.add_argument("--questions", nargs="+", default=list(DEMO_QUESTIONS))
    parser.add_argument("--pool", type=int, default=DEFAULT_POOL_SIZE,
                        help="pre-started kernels, as `engram dashboard --pool` (default as engram dashboard: "
                             f"{DEFAULT_POOL_SIZE}; 0: the kernel starts when the page opens)")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    RESULTS.mkdir(exist_ok=True)
    load_before = os.getloadavg()
    timing_rows: list[tuple[str, str, float, float]] = []
    graph_rows: list[tuple[int, str, str, dict]] = []
    with VoilaServer(args.workspace, dashboard_notebook(), log_path=Path(tempfile.gettempdir()) / "engram-dashboard-voila.log",
                     pool_size=args.pool) as server, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True,
                                    timeout=600_000)
        if args.pool:  # as a user who opens the URL some time after `engram dashboard` started: the pool is warm
            _wait_pool_warm(server, args.pool)
        # cold: ask at once on a fresh kernel (with a pool: the pre-started one)
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        driver = DashboardDriver(page, RESULTS)
        opened = driver.open(server.url)
        driver.ask(args.questions[0])
        timing_rows.append(("cold (asked at page ready, model loading)", args.questions[0], opened.ready,
                            driver.timings.answer))
        driver.screenshot("dashboard-cold")
        page.close(run_before_unload=True)  # as closing the tab: its kernel shuts down and frees the workspace
        # preloaded + warm: a fresh kernel, wait for the background warm-up, then ask every question
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        driver = DashboardDriver(page, RESULTS)
        opened = driver.open(server.url)
        warmup = _wait_model(page)
        for i, question in enumerate(args.questions, 1):
            driver.ask(question)
            label = "first answer, model preloaded" if i == 1 else "warm (later question)"
            timing_rows.append((label, question, opened.ready if i == 1 else 0.0, driver.timings.answer))
            page.evaluate("() => window.scrollTo(0, 0)")
            driver.screenshot(f"dashboard-q{i}")
            graph_rows.append((i, question, "1400x900", {**driver.graph_metrics(), **_layout(driver)}))
        # the last answer stacked at 1000x700 (the window resized: the page re-lays out and re-fits the graph)
        page.set_viewport_size({"width": 1000, "height": 700})
        page.wait_for_timeout(2000)
        page.evaluate("() => window.scrollTo(0, 0)")
        driver.screenshot(f"dashboard-q{len(args.questions)}-1000x700")
        graph_rows.append((len(args.questions), args.questions[-1], "1000x700",
                           {**driver.graph_metrics(), **_layout(driver)}))
        blocked = driver.timings.blocked_requests
        page.close()
        browser.close()
    print(f"Dashboard benchmark, commit {_commit()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"workspace {args.workspace}; background warm-up took {warmup:.1f} s after page ready; load average "
          f"{load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after (1 min; the machine has {os.cpu_count()} "
          "cores). Wall times, measured in the browser.\n")
    print("| run | question | page ready (s) | Ask -> answer drawn (s) |\n|---|---|---|---|")
    for label, question, ready, answer in timing_rows:
        print(f"| {label} | {question} | {ready:.1f} | {answer:.1f} |" if ready else
              f"| {label} | {question} | - | {answer:.1f} |")
    print("\n| # | question | window | nodes | edges | labelled edges | nodes inside the drawing | zoom | "
          "smallest node label (px) | graph panel top (px) | drawing (top, w x h px) | evidence top (px) | "
          "first card top (px) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, question, window, m in graph_rows:
        print(f"| {i} | {question} | {window} | {m['nodes']} | {m['edges']} | {m['labelled_edges']} | {m['inside']} | "
              f"{m['zoom']:.2f} | {m['min_font_px']:.1f} | {m['panel_top']:.0f} | {m['box_top']:.0f}, "
              f"{m['width']:.0f} x {m['height']:.0f} | {m['evidence_top']:.0f} | {m['card0_top']:.0f} |")
    print(f"\nrequests to the internet blocked: {len(blocked)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
