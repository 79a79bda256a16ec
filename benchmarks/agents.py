"""Benchmark: offline end-to-end investigation latency (all routed agents, no LLM).

Run ``python -m benchmarks.agents [--repeats 5] [--sample-only]``. Two workspaces, each built once into
``benchmarks/.cache`` and reused:

* **sample**: the bundled data (all Hetionet nodes, 118k edges, 430 abstracts);
* **full-size**: ``../shared/data`` (47,031 nodes, the 1.36M-edge Hetionet partial, 6,107 abstracts). If
  that folder is absent the full-size run prints a skip message and the script exits 0.

What is timed: ``Investigator.run(question)`` from the question string to the collected result (entity
resolution, routing, the literature / pathway / drug agents running concurrently, synthesis), after one
warm-up question that loads the embedding model, lexicon, CSR and graph index. Reported: median and
90th percentile over all questions x repeats, and the median seconds of each agent. Target (issue 5):
median < 1 s on the full-size graph. Writes ``benchmarks/results/agents.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from engram_kit.agents import Investigator
from engram_kit.datasets import resolve_data_paths
from engram_kit.settings import Settings
from engram_kit.workspace import Workspace

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
SHARED_DATA = HERE.parent.parent / "shared" / "data"

QUESTIONS: tuple[str, ...] = (
    "Which compounds could be repurposed for Alzheimer's disease, given what BACE1 does?",
    "Do donepezil and memantine share targets or act on conflicting pathways?",
    "What pathways involve TREM2 and APP?",
    "Which drugs bind the targets of galantamine?",
    "What compounds might reduce neuroinflammation in Alzheimer's disease?",
    "How is metformin connected to type 2 diabetes mellitus?",
    "Which genes does BACE1 interact with?",
    "Which drugs could treat Parkinson's disease through dopamine receptors?",
)


def build_once(name: str, data: Path | None) -> Path:
    """Create and fill a workspace under ``benchmarks/.cache/<name>`` unless it is already complete."""
    path = CACHE / name
    if (path / "READY").exists():
        return path
    paths = resolve_data_paths(data)
    print(f"building {path} from {paths.root} (once; minutes) ...", flush=True)
    ws = Workspace.create(path, data=paths, settings=Settings(progress=False), overwrite=True)
    with ws:
        print(ws.ingest(paths.abstracts), flush=True)
    (path / "READY").write_text("ok")
    return path


def open_fresh(path: Path) -> Workspace:
    """Open read-only (a stale lexicon cache is rebuilt by :attr:`Workspace.lexicon` itself)."""
    ws = Workspace.open(path, read_only=True)
    ws.settings.progress = False
    return ws


def measure(ws: Workspace, repeats: int) -> dict[str, object]:
    investigator = Investigator(ws)
    investigator.run("What does BACE1 do in Alzheimer's disease?")  # warm-up: model, lexicon, CSR, index
    totals: list[float] = []
    per_agent: dict[str, list[float]] = {}
    failures = 0
    for _ in range(repeats):
        for question in QUESTIONS:
            t0 = time.perf_counter()
            result = investigator.run(question)
            totals.append(time.perf_counter() - t0)
            failures += len(result.errors)
            for agent, seconds in result.timings.items():
                per_agent.setdefault(agent, []).append(seconds)
    totals.sort()
    return {
        "runs": len(totals), "median": statistics.median(totals), "p90": totals[int(0.9 * (len(totals) - 1))],
        "max": totals[-1], "failures": failures,
        "agents": {k: statistics.median(v) for k, v in per_agent.items() if k != "total"},
        "kg": ws.manifest["knowledge_graph"], "articles": ws.info()["articles"],
    }


def report(rows: list[tuple[str, dict[str, object]]], repeats: int) -> str:
    lines = ["# Agents: offline end-to-end investigation latency", "",
             f"{len(QUESTIONS)} questions x {repeats} repeats after one warm-up; all routed agents, no LLM. "
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
             f"Measured {time.strftime('%Y-%m-%d %H:%M')}; load average at the end: "
             f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (the machine is shared; high load inflates times).",
             "", "| workspace | KG edges | articles | runs | median s | p90 s | max s | agent failures |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in rows:
        kg = r["kg"]
        lines.append(f"| {name} | {kg['n_edges']:,} | {r['articles']:,} | {r['runs']} | {r['median']:.3f} | "
                     f"{r['p90']:.3f} | {r['max']:.3f} | {r['failures']} |")
    lines += ["", "Median seconds per stage (agents run concurrently, so they overlap):", "",
              "| workspace | " + " | ".join(rows[0][1]["agents"]) + " |",
              "|---|" + "---:|" * len(rows[0][1]["agents"])]
    for name, r in rows:
        lines.append(f"| {name} | " + " | ".join(f"{v:.3f}" for v in r["agents"].values()) + " |")
    lines += ["", "Target (issue 5): median < 1 s on the full-size graph."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample-only", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    targets = [("sample", "agents-sample-workspace", None)]
    if not args.sample_only:
        if (SHARED_DATA / "hetionet").is_dir():
            targets.append(("full-size", "agents-workspace", SHARED_DATA))
        else:
            print(f"skip full-size: {SHARED_DATA} not found")
    for label, folder, data in targets:
        with open_fresh(build_once(folder, data)) as ws:
            print(f"measuring {label} ...", flush=True)
            rows.append((label, measure(ws, args.repeats)))
    text = report(rows, args.repeats)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "agents.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
