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

from engram_widgets.dashboard import new_token, voila_command, voila_environment

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
    pool_size : kernels kept pre-started and warmed (``engram dashboard --pool``); 0 (default) starts one per page.
    extra_args : more Voila command-line options, appended (e.g. ``--VoilaConfiguration.extension_denylist=[...]``
        to serve the page as a server without that front-end extension would).
    """

    def __init__(self, workspace: str | Path, notebook: str | Path, *, max_message_mb: int = 100,
                 log_path: str | Path | None = None, startup_timeout: float = 600.0, token: bool = True,
                 pool_size: int = 0, extra_args: tuple[str, ...] = ()) -> None:
        self.workspace = Path(workspace)
        self.notebook = Path(notebook)
        self.port = free_port()
        #: the access token (as ``engram dashboard`` requires one by default); ``url`` carries it
        self.token = new_token() if token else ""
        self.base_url = f"http://127.0.0.1:{self.port}/"
        self.url = self.base_url + (f"?token={self.token}" if self.token else "")
        self.max_message_mb = max_message_mb
        self.log_path = Path(log_path) if log_path else None
        self.startup_timeout = startup_timeout
        #: pre-started kernels (``engram dashboard --pool``; 0: a kernel starts when a page opens)
        self.pool_size = pool_size
        self.extra_args = tuple(extra_args)
        self.process: subprocess.Popen | None = None
        self._log: Any = None

    def __enter__(self) -> VoilaServer:
        command = voila_command(self.notebook, port=self.port, max_message_mb=self.max_message_mb, token=self.token,
                                pool_size=self.pool_size) + list(self.extra_args)
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL
        env = voila_environment(self.workspace, max_message_mb=self.max_message_mb)
        self.process = subprocess.Popen(command, env=env, stdout=self._log, stderr=subprocess.STDOUT)
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


#: JavaScript: ``supportOf(label)``, the support panel on the page whose title is exactly ``label`` (the one in the
#: layout when ipywidgets briefly holds two views of it), or null.
_SUPPORT_OF = ("const supportOf = (label) => Array.from(document.querySelectorAll('.engram-support')).find(x => {"
               " const t = x.querySelector('p > b'); return x.isConnected && x.offsetParent !== null && !!t"
               " && t.innerText.trim() === label; }) || null;")


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

    def screenshot(self, name: str, *, full_page: bool = False) -> Path:
        """Save ``<artifacts>/<name>.png``: the first screen (what the reader sees without scrolling), or the
        whole page with ``full_page``."""
        path = self.artifacts / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def open(self, url: str, *, timeout: float = 600.0) -> PageTimings:
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

    def wait_status(self, text: str, *, timeout: float = 120.0) -> str:
        """Wait until the dashboard's status line contains ``text``; returns the line."""
        self.page.wait_for_function(
            "(t) => { const s = document.querySelector('.engram-dashboard-status'); return s && s.innerText.includes(t); }",
            arg=text, timeout=timeout * 1000, polling=250)
        return self.status_text()

    def graph_metrics(self) -> dict[str, Any]:
        """What a reader sees of the answer graph: its panel's top (px from the window's top, page not
        scrolled), the drawing's box, node/edge counts, zoom, the smallest node and edge label size on screen
        (style font size x zoom, px), how many nodes lie inside the drawing box, how many edges show a label."""
        return self.page.evaluate("(scope) => {" + _WITH_CY + """
          const panel = document.querySelector(scope).getBoundingClientRect();
          const box = cy.container().getBoundingClientRect();
          const z = cy.zoom();
          const fonts = cy.nodes().map(n => parseFloat(n.style('font-size')) * z);
          const labelled = cy.edges().filter(e => e.style('label') && e.style('label').length > 0);
          const edgeFonts = labelled.map(e => parseFloat(e.style('font-size')) * z);
          const inside = cy.nodes().filter(n => { const p = n.renderedPosition();
            return p.x >= 0 && p.y >= 0 && p.x <= box.width && p.y <= box.height; }).length;
          return {panel_top: panel.top + window.scrollY, box_top: box.top + window.scrollY, width: box.width,
                  height: box.height, nodes: cy.nodes().length, edges: cy.edges().length, zoom: z,
                  min_font_px: fonts.length ? Math.min(...fonts) : 0,
                  min_edge_font_px: edgeFonts.length ? Math.min(...edgeFonts) : 0,
                  labelled_edges: labelled.length, inside: inside};
        }""", ".engram-graph-panel")

    #: Parts of the assistant :meth:`boxes` measures (name -> CSS selector).
    BOXES: dict[str, str] = {"chat": ".engram-chat", "panel": ".engram-graph-panel", "answer": ".engram-answer-box",
                             "evidence": ".engram-evidence", "card0": ".engram-card-0", "history": ".engram-history-row"}

    def boxes(self) -> dict[str, dict[str, float]]:
        """Page boxes (px from the page's top-left, i.e. as on the first screen when the page is not scrolled:
        ``left, top, right, bottom, width, height``) of the assistant's parts in :attr:`BOXES` that are drawn."""
        return self.page.evaluate("""(parts) => { const out = {};
            for (const [name, sel] of Object.entries(parts)) {
              const el = document.querySelector(sel); if (!el) { continue; }
              const r = el.getBoundingClientRect();
              if (!r.width && !r.height) { continue; }
              out[name] = {left: r.left + scrollX, top: r.top + scrollY, right: r.right + scrollX,
                           bottom: r.bottom + scrollY, width: r.width, height: r.height}; }
            return out; }""", self.BOXES)

    def citations(self) -> list[dict[str, str]]:
        """The answer's citation links: label, target card class, outside address (``""`` when none)."""
        return self.page.evaluate("""() => Array.from(document.querySelectorAll('.engram-answer a.engram-cite')).map(a => {
            const ext = a.nextElementSibling && a.nextElementSibling.classList.contains('engram-ext')
                        ? a.nextElementSibling.href : '';
            return {label: a.innerText, card: a.dataset.card || '', url: ext}; })""")

    def click_citation(self, index: int = 0, *, timeout: float = 30.0) -> dict[str, Any]:
        """Click the ``index``-th citation; wait until its card is highlighted; returns the card's box in the
        window and whether it is fully visible (inside the window and inside its scrolling list)."""
        link = self.page.locator(".engram-answer a.engram-cite").nth(index)
        card = link.get_attribute("data-card")
        link.click()
        self.page.wait_for_selector(f".{card}.engram-highlight", timeout=timeout * 1000)
        self.page.wait_for_timeout(300)  # scrollIntoView is instant; let layout settle
        return self.page.evaluate("""(cls) => {
            const el = document.querySelector('.' + cls); const r = el.getBoundingClientRect();
            const list = el.closest('.engram-passages'); const l = list ? list.getBoundingClientRect() : r;
            return {card: cls, top: r.top, bottom: r.bottom,
                    visible: r.top >= 0 && r.top < window.innerHeight && r.top >= l.top - 1 && r.top < l.bottom}; }""",
                                  card)

    def exact_items(self) -> list[str]:
        """The labels of the answer's exact-item buttons, in rank order (a yes/no question: its verdict)."""
        return self.page.evaluate("() => Array.from(document.querySelectorAll("
                                  "'.engram-exact button.engram-exact-item')).map(b => b.innerText.trim())")

    def click_exact(self, index: int = 0, *, timeout: float = 60.0) -> dict[str, Any]:
        """Click the ``index``-th exact item; wait until the kernel has shown *its* supporting sentences (the
        support panel's title names exactly this item, it holds sentences, and this item's button is marked
        selected); returns the item, the sentences shown (text of each list item), the marked names, whether its
        button is marked selected and whether the sentences start inside the answer box's view and the window.

        Waiting for the title to name the item matters: right after the click the page may still show the
        previous item's sentences (a fresh-clone CI run read them), and the panel is moved under the clicked row,
        so for a moment the page can hold its old and its new view."""
        button = self.page.locator(".engram-exact button.engram-exact-item").nth(index)
        label = button.inner_text().strip()
        button.click()
        self.page.wait_for_function(
            "([label, index]) => { " + _SUPPORT_OF +
            " const s = supportOf(label);"
            " const b = document.querySelectorAll('.engram-exact button.engram-exact-item')[index];"
            " return !!s && s.querySelectorAll('li').length > 0 && !!b && b.classList.contains('engram-exact-selected'); }",
            arg=[label, index], timeout=timeout * 1000, polling=200)
        self.page.wait_for_timeout(300)  # the page script scrolls the sentences into view
        return {"item": label, **self.page.evaluate("([label, index]) => { " + _SUPPORT_OF + """
            const s = supportOf(label);
            const b = document.querySelectorAll('.engram-exact button.engram-exact-item')[index];
            const r = s.getBoundingClientRect(); const box = s.closest('.engram-answer-box').getBoundingClientRect();
            return {visible: r.top >= box.top - 1 && r.top < box.bottom && r.top < window.innerHeight,
                    title: s.querySelector('b').innerText.trim(),
                    sentences: Array.from(s.querySelectorAll('li')).map(li => li.innerText),
                    marked: Array.from(s.querySelectorAll('mark.engram-mark')).map(m => m.innerText),
                    selected: b.classList.contains('engram-exact-selected')}; }""", [label, index])}

    def banner_text(self) -> str:
        return self.page.inner_text(".engram-dashboard-banner")

    def ask(self, question: str, *, timeout: float = 600.0) -> int:
        """Type ``question``, click Ask, wait until the graph has nodes and is laid out; returns node count."""
        self.page.fill(".engram-question textarea", question)
        # remember the graph and status on screen: a second question must wait for a new graph, not the old one
        self.page.evaluate("(scope) => {" + _WITH_CY + " window.__engramOldCy = cy; window.__engramOldStatus = "
                           "(document.querySelector('.engram-status') || {}).innerText || ''; }", ".engram-graph-panel")
        started = time.perf_counter()
        self.page.click("button.engram-ask")
        self.page.wait_for_function(
            "(scope) => {" + _WITH_CY + " return !!cy && cy !== window.__engramOldCy && cy.nodes().length > 0 && "
            "cy.nodes().some(n => n.position('x') !== 0 || n.position('y') !== 0); }",
            arg=".engram-graph-panel", timeout=timeout * 1000, polling=200)
        self.page.wait_for_selector(".engram-answer li", timeout=timeout * 1000)
        self.page.wait_for_function("() => { const t = document.querySelector('.engram-status').innerText; "
                                    "return t.includes('Answered in') && t !== window.__engramOldStatus; }",
                                    timeout=timeout * 1000, polling=200)
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
