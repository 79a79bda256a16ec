"""Cold-process wall time of the everyday `engram` commands, beside the import of numpy + pandas (issue 30).

Usage::

    python benchmarks/cli_latency.py -w /work/ws-sample [--repeats 3] [--out benchmarks/results/cli_latency.md]

The workspace (e.g. the demo's: bundled Hetionet sample + 430 abstracts) is copied into a temporary folder and
one short Markdown note is added to the copy (so `engram docs` and `engram doc` have a document); the original
is never written. Then, ``--repeats`` times, in turn:

* ``python -c "import numpy, pandas"``: the yardstick. On a loaded machine every wall time grows, and roughly in
  proportion, so each command is also reported as a ratio to the yardstick measured in the same round;
* ``engram --help``, ``info``, ``docs``, ``doc <id>``, ``check``, ``desk Q``, ``ask Q`` and ``ask ""`` (an empty
  question, refused), each a fresh process; wall time and CPU time (user + system of the child).

Each command runs once untimed first (Python's byte-code cache, the OS file cache and the gazetteer cache filled,
as for anyone who has used engram before). Afterwards the same work runs in this process on one open workspace, after a first question has loaded
everything (the resident session of `engram ask -`, the dashboard's kernel): the difference to the cold time is
the start-up. Prints and writes a Markdown table with the commit, the CPU count and the load average.
No network; HF_HUB_OFFLINE=1.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
QUESTION = "Which genes interact with BACE1?"
NOTE = ("# BACE1 inhibitors and amyloid\n\nBACE1 (beta-secretase 1) cleaves the amyloid precursor protein APP. "
        "Verubecestat, a BACE1 inhibitor, lowered amyloid beta in the cerebrospinal fluid of patients with "
        "Alzheimer's disease but did not slow cognitive decline.\n")
#: Targets of issue 30 on a quiet 2-core machine: seconds, and the ratio to the numpy + pandas import.
TARGET_S = {"info": 2.0, "docs": 2.0, "doc": 2.0, "check": 4.0, "ask": 4.0, "ask (empty)": 1.0}
TARGET_RATIO = {"info": 3.0, "ask": 8.0}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(REPO), str(REPO / "widgets"), os.environ.get("PYTHONPATH", "")]))
    env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False"}
    # As installed: Python caches compiled modules. With PYTHONDONTWRITEBYTECODE (set on some shared machines) each
    # cold process compiled engram-kit's 70 modules again (0.6 s of `engram info` under cProfile).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _timed(argv: list[str], *, expect: int = 0) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child process; raises if its status is not ``expect``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != expect:
        raise RuntimeError(f"{argv} exited {done.returncode} (expected {expect}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _engram(*args: str) -> list[str]:
    return [sys.executable, "-m", "engram_kit.cli", *args]


def _prepare(source: Path, folder: Path) -> tuple[Path, str]:
    """Copy the workspace and add the note; returns the copy and the note's document id."""
    import json

    ws = folder / "ws"
    shutil.copytree(source, ws)
    note = folder / "bace1-note.md"
    note.write_text(NOTE)
    subprocess.run(_engram("ingest", str(note), "-w", str(ws)), check=True, env=_env(), capture_output=True,
                   timeout=1200)
    listing = subprocess.run(_engram("docs", "--json", "-w", str(ws)), check=True, env=_env(), capture_output=True,
                             text=True).stdout
    return ws, str(json.loads(listing)[0]["id"])


def _commands(ws: Path, doc_id: str) -> dict[str, tuple[list[str], int]]:
    w = ["-w", str(ws)]
    return {
        "python -c 'import numpy, pandas'": ([sys.executable, "-c", "import numpy, pandas"], 0),
        "--help": (_engram("--help"), 0),
        "info": (_engram("info", *w), 0),
        "docs": (_engram("docs", *w), 0),
        "doc": (_engram("doc", doc_id, *w), 0),
        "check": (_engram("check", *w), 0),
        "desk": (_engram("desk", QUESTION, *w), 0),
        "ask": (_engram("ask", QUESTION, *w), 0),
        "ask (empty)": (_engram("ask", "", *w), 2),
    }


def _in_process(ws_path: Path, doc_id: str) -> dict[str, float]:
    """Seconds of each command's work in one process with the workspace open and warmed by a first question."""
    sys.path[:0] = [str(REPO), str(REPO / "widgets")]
    from engram_kit.workspace import Workspace

    times: dict[str, float] = {}

    def clock(name: str, work: Callable[[], object]) -> None:
        started = time.perf_counter()
        work()
        times[name] = time.perf_counter() - started

    with Workspace.open(ws_path, read_only=True) as ws:
        ws.settings.progress = False
        clock("first ask (loads everything)", lambda: ws.ask(QUESTION))
        clock("info", ws.info)
        clock("docs", lambda: ws.documents.list())
        clock("doc", lambda: ws.documents.detail(ws.documents.resolve_id(doc_id)))
        clock("check", ws.check)
        clock("desk", lambda: ws.run_desk(QUESTION))
        clock("ask", lambda: ws.ask(QUESTION))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-w", "--workspace", type=Path, default=Path("/work/ws-sample"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "cli_latency.md")
    parser.add_argument("--paired", action="store_true",
                        help="time the numpy + pandas yardstick right before every command and divide by that one "
                             "(on a machine whose load swings within a round, a ratio to the round's first yardstick "
                             "swung 5.8x -> 27.5x for the same command)")
    parser.add_argument("--only", default="", help="comma-separated command names to run (default: all), e.g. "
                                                  "ask,info")
    args = parser.parse_args()
    if not (args.workspace / "manifest.json").is_file():
        sys.exit(f"No workspace at {args.workspace}: build one with `engram demo -w DIR`.")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="engram-cli-latency-") as tmp:
        ws, doc_id = _prepare(args.workspace, Path(tmp))
        commands = _commands(ws, doc_id)
        yardstick = next(iter(commands))
        if args.only:
            wanted = {name.strip() for name in args.only.split(",")}
            commands = {k: v for k, v in commands.items() if k == yardstick or k in wanted}
        wall: dict[str, list[float]] = {k: [] for k in commands}
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        ratio: dict[str, list[float]] = {k: [] for k in commands}
        for argv, expect in commands.values():  # untimed: byte-code caches and the OS file cache, as after a
            _timed(argv, expect=expect)          # first use (the gazetteer cache too: a reader's first ask builds it)
        for round_ in range(args.repeats):
            base = None
            for name, (argv, expect) in commands.items():
                if args.paired and name != yardstick:
                    base = _timed(commands[yardstick][0])[0]
                w, c = _timed(argv, expect=expect)
                base = w if base is None else base
                wall[name].append(w)
                cpu[name].append(c)
                ratio[name].append(w / base)
                print(f"round {round_ + 1}: {name:34} {w:6.2f} s wall {c:6.2f} s cpu {w / base:5.1f}x", flush=True)
        warm = _in_process(ws, doc_id)
    load_after = os.getloadavg()
    lines = [
        "# CLI latency (cold processes)", "",
        f"`python benchmarks/cli_latency.py -w {args.workspace} --repeats {args.repeats}"
        f"{' --paired' if args.paired else ''}{f' --only {args.only}' if args.only else ''}` at commit `{_commit()}`, "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.1f} before and {load_after[0]:.1f} after (1 min). "
        + ("Medians over the rounds; the ratio divides each wall time by a numpy + pandas import timed right before "
           "it (--paired). " if args.paired else
           "Medians over the rounds; the ratio divides each wall time by the numpy + pandas import of the same round, "
           "which cancels most of the machine's load. ") + "*in-process*: the same work in one process with the workspace "
        "open and a first question asked (`engram ask -`, a dashboard kernel).", "",
        "| command | wall s | CPU s | ratio to numpy+pandas | in-process s | target (quiet machine) |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name in commands:
        target = []
        if name in TARGET_S:
            target.append(f"<= {TARGET_S[name]:g} s")
        if name in TARGET_RATIO:
            target.append(f"<= {TARGET_RATIO[name]:g}x")
        inproc = f"{warm[name]:.3f}" if name in warm else ""
        lines.append(f"| `{name}` | {statistics.median(wall[name]):.2f} | {statistics.median(cpu[name]):.2f} | "
                     f"{statistics.median(ratio[name]):.1f} | {inproc} | {', '.join(target)} |")
    lines += ["", f"First question in a fresh process, in-process (lexicon, gazetteer, model, indexes loaded): "
              f"{warm['first ask (loads everything)']:.2f} s.", ""]
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
