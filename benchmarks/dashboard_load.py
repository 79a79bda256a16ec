"""Several people on one `engram dashboard`: N concurrent browser sessions asking questions (issue 30).

Usage::

    python benchmarks/dashboard_load.py -w /work/ws-sample [--sessions 1 2 4] [--seconds 60]

Copies the workspace into a temporary folder (the original is never written) and starts the real
``engram dashboard`` on it (a token, a free 127.0.0.1 port, its default kernel pool and session limit). Then for
each N: N headless Debian Chromium sessions (one browser each, network blocked) open the page at once; each, from
the moment its page is usable, asks the demo questions in turn for ``--seconds`` and closes its tab (its kernel
shuts down). Reported per N: answers per minute (all sessions), p50/p95 of Ask -> answer drawn, page-ready times,
errors (a failed or timed-out answer), the peak resident memory of the largest kernel and of the whole server tree
(server + kernels, sampled every second), and how many processes held the workspace's writer lock (``flock`` on
``graph.lbug.writer``, read from ``/proc/locks``; never more than one). After the last N the dashboard gets
SIGTERM, and ``engram check`` must pass on the copy. Prints and writes a Markdown report with the commit and load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "widgets")]

from engram_widgets.testing import CHROMIUM, CHROMIUM_ARGS, DashboardDriver, free_port  # noqa: E402

from benchmarks.dashboard import DEMO_QUESTIONS, _commit  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
#: Longest wait for one answer before it counts as an error (seconds).
ANSWER_TIMEOUT_S = 120.0


@dataclass
class Session:
    """What one browser session saw."""

    index: int
    ready: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Sampler:
    """Samples the server tree every second: peak RSS per kernel and in all, writer-lock holders."""

    server_pid: int
    lock_file: Path
    peak_kernel: dict[int, int] = field(default_factory=dict)
    peak_total: int = 0
    max_lock_holders: int = 0
    samples: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _once(self) -> None:
        try:
            root = psutil.Process(self.server_pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        total = 0
        for proc in tree:
            try:
                rss = proc.memory_info().rss
                total += rss
                if any("ipykernel" in part for part in proc.cmdline()):
                    self.peak_kernel[proc.pid] = max(self.peak_kernel.get(proc.pid, 0), rss)
            except psutil.NoSuchProcess:
                continue
        self.peak_total = max(self.peak_total, total)
        self.max_lock_holders = max(self.max_lock_holders, len(lock_holders(self.lock_file)))
        self.samples += 1

    def run(self) -> None:
        while not self._stop.is_set():
            self._once()
            self._stop.wait(1.0)

    def stop(self) -> None:
        self._stop.set()


def lock_holders(lock_file: Path) -> set[int]:
    """Pids holding an ``flock`` on ``lock_file`` (from ``/proc/locks``; empty when the file is absent)."""
    try:
        inode = lock_file.stat().st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return set()
    holders = set()
    for line in lines:
        parts = line.split()
        if "->" in parts:  # a waiter, not a holder
            continue
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].rsplit(":", 1)[-1] == str(inode):
            holders.add(int(parts[4]))
    return holders


def _session(url: str, index: int, seconds: float, questions: list[str], artifacts: Path, out: Session,
             start: threading.Barrier) -> None:
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True,
                                        timeout=600_000)
            page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            driver = DashboardDriver(page, artifacts)
            start.wait()
            out.ready = driver.open(url).ready
            deadline = time.perf_counter() + seconds
            turn = index
            while time.perf_counter() < deadline:
                question = questions[turn % len(questions)]
                turn += 1
                try:
                    driver.ask(question, timeout=ANSWER_TIMEOUT_S)
                    out.latencies.append(driver.timings.answer)
                except Exception as exc:  # every failure is counted and reported
                    out.errors.append(f"{question!r}: {type(exc).__name__}: {str(exc)[:200]}")
                    break
            page.close(run_before_unload=True)  # as closing the tab: the kernel shuts down, the lock is freed
            browser.close()
    except Exception as exc:
        out.errors.append(f"session: {type(exc).__name__}: {str(exc)[:200]}")


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _wait_kernels_gone(server_pid: int, keep: int, timeout: float = 120.0) -> None:
    """Wait until the server runs at most ``keep`` kernels (the closed pages' kernels have shut down)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kernels = [p for p in psutil.Process(server_pid).children() if "ipykernel" in " ".join(p.cmdline())]
        if len(kernels) <= keep:
            return
        time.sleep(1.0)


def _wait_pool_idle(server_pid: int, timeout: float = 900.0) -> None:
    """Wait until the server's pre-started kernel runs and has gone idle (CPU < 5 % over 2 s: workspace open,
    model warm)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kernels = [p for p in psutil.Process(server_pid).children() if "ipykernel" in " ".join(p.cmdline())]
        if kernels and all(k.cpu_percent(interval=2.0) < 5.0 for k in kernels):
            return
        time.sleep(1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-w", "--workspace", type=Path, default=Path("/work/ws-sample"))
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--seconds", type=float, default=60.0, help="asking time per session and N")
    parser.add_argument("--out", type=Path, default=RESULTS / "dashboard_load.md")
    args = parser.parse_args()
    if not (args.workspace / "manifest.json").is_file():
        sys.exit(f"No workspace at {args.workspace}: build one with `engram demo -w DIR`.")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "widgets")]), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    load_before = os.getloadavg()
    rows: list[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="engram-dashboard-load-"))
    try:
        ws = tmp / "ws"
        shutil.copytree(args.workspace, ws)
        port, token = free_port(), "loadbench" + os.urandom(8).hex()
        log = (tmp / "dashboard.log").open("w")
        cli = subprocess.Popen([sys.executable, "-m", "engram_kit.cli", "dashboard", "-w", str(ws), "--port",
                                str(port), "--token", token], env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/?token={token}"
        while True:  # listening (a page request would take the pre-started kernel: connect only)
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if cli.poll() is not None:
                sys.exit(f"engram dashboard exited with {cli.returncode}; see {tmp / 'dashboard.log'}")
            time.sleep(0.5)
        server_pid = psutil.Process(cli.pid).children()[0].pid  # the Voila process
        lock_file = ws / "graph.lbug.writer"
        _wait_pool_idle(server_pid)  # as a user who opens the URL a moment after `engram dashboard` started
        for n in args.sessions:
            sampler = Sampler(server_pid, lock_file)
            sampling = threading.Thread(target=sampler.run, daemon=True)
            sampling.start()
            sessions = [Session(i) for i in range(n)]
            barrier = threading.Barrier(n)
            threads = [threading.Thread(target=_session, args=(url, i, args.seconds, list(DEMO_QUESTIONS),
                                                               tmp / "artifacts", sessions[i], barrier))
                       for i in range(n)]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
            _wait_kernels_gone(server_pid, keep=1)
            sampler.stop()
            sampling.join()
            latencies = [x for s in sessions for x in s.latencies]
            errors = [e for s in sessions for e in s.errors]
            peak_kernel = max(sampler.peak_kernel.values(), default=0) / 2**20
            rows.append(f"| {n} | {len(latencies)} | {len(latencies) / (args.seconds / 60):.1f} | "
                        f"{_quantile(latencies, 0.5):.1f} | {_quantile(latencies, 0.95):.1f} | "
                        f"{max(s.ready for s in sessions):.1f} | {len(errors)} | {peak_kernel:,.0f} | "
                        f"{len(sampler.peak_kernel)} | {sampler.peak_total / 2**20:,.0f} | {sampler.max_lock_holders} | "
                        f"{wall:.0f} |")
            print(rows[-1], flush=True)
            for e in errors:
                print(f"  error (N={n}): {e}", flush=True)
        cli.send_signal(signal.SIGTERM)
        status = cli.wait(timeout=120)
        log.close()
        check = subprocess.run([sys.executable, "-m", "engram_kit.cli", "check", "-w", str(ws)], env=env,
                               capture_output=True, text=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load_after = os.getloadavg()
    lines = [
        "# Dashboard under concurrent sessions", "",
        f"`python benchmarks/dashboard_load.py -w {args.workspace} --sessions {' '.join(map(str, args.sessions))} "
        f"--seconds {args.seconds:g}` at commit `{_commit()}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.1f} before and {load_after[0]:.1f} after (1 min). "
        "One `engram dashboard` (default pool and session limit); N headless Chromium sessions, each asking the demo "
        f"questions in turn for {args.seconds:g} s from the moment its page is usable. Latency: Ask click -> answer "
        "and graph drawn, in the browser. Memory: resident set, sampled every second.", "",
        "| N | answers | answers/min | p50 s | p95 s | slowest page ready s | errors | peak RSS largest kernel MB | "
        "kernels seen | peak RSS server tree MB | max writer-lock holders | wall s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows, "",
        f"After SIGTERM: `engram dashboard` exited {status}; `engram check` on the workspace exited "
        f"{check.returncode}: {check.stdout.strip()}", "",
    ]
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text)
    return 0 if check.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
