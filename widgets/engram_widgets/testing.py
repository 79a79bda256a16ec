"""Drive the Voila dashboard in headless Chromium (Playwright) for the browser test and the benchmark.

Nothing here is needed to use engram-kit. :class:`VoilaServer` starts ``engram dashboard``'s Voila
command on a free localhost port; :class:`DashboardDriver` opens the page with every non-localhost request
blocked (and recorded, to prove the page needs no CDN), asks a question, waits for the graph, clicks a node
with the real mouse at the position Cytoscape.js reports, and measures first paint and layout time.

Chromium: Debian's ``chromium`` package (``apt-get install -y chromium``); Playwright's own browser
download (``playwright install``) is never used. :data:`CHROMIUM_ARGS` are the flags for a sandbox-less
container with no network.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from engram_widgets.dashboard import voila_command, voila_environment

log = logging.getLogger(__name__)

#: Debian's Chromium binary.
CHROMIUM = Path("/usr/bin/chromium")
#: Flags for headless Chromium in a container without a sandbox or network.
CHROMIUM_ARGS: tuple[str, ...] = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                  "--disable-dev-shm-usage")

#: JavaScript prelude binding ``cy`` to the Cytoscape.js instance inside the element matching ``scope``
#: (cytoscape.js registers itself on its container element as ``_cyreg.cy``); ``cy`` is null when none.
_WITH_CY = """const root = document.querySelector(scope) || document;
  let cy = null;
  for (const el of root.querySelectorAll('div')) { if (el._cyreg && el._cyreg.cy) { cy = el._cyreg.cy; } }"""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class VoilaServer:
    """``engram dashboard`` in a subprocess on a free 127.0.0.1 port (a context manager).

    Parameters
    ----------
    workspace : workspace folder served.
    notebook : the dashboard notebook.
    max_message_mb : websocket message limit (see :data:`engram_widgets.dashboard.DEFAULT_MAX_MESSAGE_MB`).
    log_path : file receiving Voila's output (kept for CI artifacts).
    """

    def __init__(self, workspace: str | Path, notebook: str | Path, *, max_message_mb: int = 100,
                 log_path: str | Path | None = None, startup_timeout: float = 180.0) -> None:
        self.workspace = Path(workspace)
        self.notebook = Path(notebook)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.max_message_mb = max_message_mb
        self.log_path = Path(log_path) if log_path else None
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self._log: Any = None

    def __enter__(self) -> VoilaServer:
        command = voila_command(self.notebook, port=self.port, max_message_mb=self.max_message_mb)
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(command, env=voila_environment(self.workspace), stdout=self._log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Voila exited with status {self.process.returncode}; see {self.log_path}.")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.25)
        self.__exit__()
        raise TimeoutError(f"Voila did not listen on {self.url} within {self.startup_timeout:.0f} s.")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # Voila shuts its kernels down on SIGTERM
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()


@dataclass
class PageTimings:
    """Seconds measured in the browser: ``first_paint`` (navigation start -> dashboard shell visible),
    ``ready`` (-> tabs filled), ``answer`` (Ask click -> graph drawn), ``layout`` (one run of the graph's
    layout in Cytoscape.js, ms -> s), ``nodes``/``edges`` of that graph."""

    first_paint: float = 0.0
    ready: float = 0.0
    answer: float = 0.0
    layout: float = 0.0
    nodes: int = 0
    edges: int = 0
    blocked_requests: list[str] = field(default_factory=list)


class DashboardDriver:
    """The dashboard page in a Playwright ``page`` (see the module docstring).

    Parameters
    ----------
    page : a Playwright sync-API page (its context's routes are set here to block the network).
    artifacts : folder for screenshots.
    """

    def __init__(self, page: Any, artifacts: str | Path) -> None:
        self.page = page
        self.artifacts = Path(artifacts)
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.timings = PageTimings()
        page.context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        host = urlparse(route.request.url).hostname or ""
        if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:  # offline check: nothing may come from the internet
            self.timings.blocked_requests.append(route.request.url)
            route.abort()

    def screenshot(self, name: str) -> Path:
        path = self.artifacts / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def open(self, url: str, *, timeout: float = 240.0) -> PageTimings:
        """Load the dashboard; records first paint (shell visible) and ready (workspace open, tabs filled)."""
        started = time.perf_counter()
        self.page.goto(url, wait_until="commit", timeout=timeout * 1000)
        self.page.wait_for_selector(".engram-dashboard", state="visible", timeout=timeout * 1000)
        self.timings.first_paint = time.perf_counter() - started
        self.page.wait_for_selector(".engram-dashboard.engram-ready", state="visible", timeout=timeout * 1000)
        self.timings.ready = time.perf_counter() - started
        return self.timings

    def status_text(self) -> str:
        return self.page.inner_text(".engram-dashboard-status")

    def banner_text(self) -> str:
        return self.page.inner_text(".engram-dashboard-banner")

    def ask(self, question: str, *, timeout: float = 300.0) -> int:
        """Type ``question``, click Ask, wait until the graph has nodes and is laid out; returns node count."""
        self.page.fill(".engram-question textarea", question)
        started = time.perf_counter()
        self.page.click("button.engram-ask")
        self.page.wait_for_function(
            "(scope) => {" + _WITH_CY + " return !!cy && cy.nodes().length > 0 && "
            "cy.nodes().some(n => n.position('x') !== 0 || n.position('y') !== 0); }",
            arg=".engram-graph-panel", timeout=timeout * 1000, polling=200)
        self.page.wait_for_selector(".engram-answer li", timeout=timeout * 1000)
        self.timings.answer = time.perf_counter() - started
        counts = self.page.evaluate("(scope) => {" + _WITH_CY + " return [cy.nodes().length, cy.edges().length]; }",
                                    ".engram-graph-panel")
        self.timings.nodes, self.timings.edges = int(counts[0]), int(counts[1])
        return self.timings.nodes

    def measure_layout(self, layout: dict[str, Any]) -> float:
        """Run ``layout`` once on the current graph in the browser; returns its wall time in seconds."""
        ms = self.page.evaluate(
            "([scope, opts]) => new Promise((resolve) => {" + _WITH_CY + """
              const t0 = performance.now();
              const run = cy.layout(opts);
              run.one('layoutstop', () => resolve(performance.now() - t0));
              run.run();
            })""", [".engram-graph-panel", layout])
        self.timings.layout = float(ms) / 1000.0
        return self.timings.layout

    def node_with_passages(self) -> dict[str, Any]:
        """Id, label, passage count and page coordinates of the drawn node mentioned by most passages."""
        return self.page.evaluate("(scope) => {" + _WITH_CY + """
          const nodes = cy.nodes().filter(n => (n.data('n_passages') || 0) > 0 && n.visible());
          const node = nodes.max(n => n.data('n_passages')).ele;
          const box = cy.container().getBoundingClientRect();
          const p = node.renderedPosition();
          return {id: node.id(), label: node.data('label'), n_passages: node.data('n_passages'),
                  x: box.left + p.x, y: box.top + p.y};
        }""", ".engram-graph-panel")

    def click_node(self, node: dict[str, Any]) -> None:
        """A real mouse click at the node's on-screen position (scrolls it into view first)."""
        self.page.evaluate("(scope) => { const el = document.querySelector(scope); el.scrollIntoView(); }",
                           ".engram-graph-panel")
        node = {**node, **self.page.evaluate("([scope, id]) => {" + _WITH_CY + """
          const n = cy.getElementById(id); const box = cy.container().getBoundingClientRect();
          const p = n.renderedPosition(); return {x: box.left + p.x, y: box.top + p.y}; }""",
                                             [".engram-graph-panel", node["id"]])}
        self.page.mouse.move(node["x"], node["y"])
        self.page.mouse.down()
        self.page.mouse.up()

    def highlighted_cards(self, *, at_least: int = 1, timeout: float = 30.0) -> int:
        """Wait until at least ``at_least`` passage cards are highlighted; returns how many are."""
        self.page.wait_for_function(f"() => document.querySelectorAll('.engram-card.engram-highlight').length >= {at_least}",
                                    timeout=timeout * 1000)
        return int(self.page.evaluate("() => document.querySelectorAll('.engram-card.engram-highlight').length"))
