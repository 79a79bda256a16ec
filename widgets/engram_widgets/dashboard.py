"""The Voila dashboard: research assistant, graph explorer and document repository in one page.

``notebooks/dashboard.ipynb`` (served by ``engram dashboard``) calls :func:`dashboard`. To paint fast,
this module imports only ipywidgets: the page shell (title, status line, tabs) is displayed at once and a
background thread imports engram-kit, opens the workspace and fills the tabs, then warms up the embedding
model so the first question does not pay for it.

The workspace is opened for writing when possible (uploads need it); when another process holds it
(:class:`~engram_kit.errors.WorkspaceLockedError`), it is reopened read-only, the page says so in words
(no exception text, no process id) with a "Try again" button, and it retries by itself at
:data:`LOCK_RETRY_AT` seconds (a reloaded page's old kernel needs a moment to shut down and release the lock).

Lifecycle (no stranded lock, no leaked kernel): the ``engram`` Voila template makes the page-close shutdown
request succeed (it sets the ``_xsrf`` cookie Voila's request carries), and :func:`voila_command` turns on
kernel culling (:data:`CULL_IDLE_SECONDS`), so a kernel whose page went away without the request (a crash,
a killed browser) is shut down, releasing its lock, after that idle time. ``engram dashboard`` requires a
token by default (printed with the address), as Jupyter does.
"""

from __future__ import annotations

import html
import json
import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import ipywidgets as widgets

# the upload cap lives beside the upload box that states it; served from here
from engram_widgets.documents import DEFAULT_MAX_MESSAGE_MB as DEFAULT_MAX_MESSAGE_MB
from engram_widgets.documents import MAX_UPLOAD_ENV as MAX_UPLOAD_ENV

log = logging.getLogger(__name__)

#: Tab order of the dashboard.
TABS: tuple[str, ...] = ("Research assistant", "Graph explorer", "Literature map", "Documents")
#: When a page opened read-only retries the write lock by itself: seconds after load (backing off, since
#: each failed try reopens the workspace and rebuilds the tabs).
LOCK_RETRY_AT: tuple[float, ...] = (2.0, 5.0, 10.0, 20.0, 45.0)
LOCK_RETRY_SECONDS = LOCK_RETRY_AT[-1]
#: A kernel with no page connected for this long is shut down by Voila (releasing the workspace).
CULL_IDLE_SECONDS = 600
#: How often Voila looks for such kernels, in seconds.
CULL_INTERVAL_SECONDS = 60
#: What the page says when another process holds the workspace for writing.
LOCKED_NOTICE = ("Another page, notebook or command has this workspace open for writing, so this page opened it "
                 "read-only: asking questions and exploring work; uploads, delete and reprocess are off until the "
                 "other one closes.")
#: Environment variable naming the workspace (also read by the CLI and notebooks).
WORKSPACE_ENV = "ENGRAM_WORKSPACE"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def open_workspace(path: str | Path) -> tuple[Any, str]:
    """Open ``path`` for writing, or read-only when another process holds it.

    Returns
    -------
    (Workspace, str)
        The workspace and a notice for the page (empty when opened for writing).

    Raises
    ------
    WorkspaceError
        If ``path`` holds no workspace (the message says how to create one).
    """
    from engram_kit.errors import WorkspaceLockedError
    from engram_kit.workspace import Workspace

    try:
        return Workspace.open(path), ""
    except WorkspaceLockedError as exc:
        log.info("workspace %s is locked (%s); opening read-only", path, exc)
        return Workspace.open(path, read_only=True), LOCKED_NOTICE


class Dashboard:
    """The dashboard page (see the module docstring). ``ready`` is set when the tabs are filled.

    Parameters
    ----------
    path : workspace folder (default ``$ENGRAM_WORKSPACE`` or ``./engram-workspace``).
    background : load the workspace in a background thread (True in Voila, for a fast first paint);
        False loads before returning (tests, scripts).
    """

    def __init__(self, path: str | Path | None = None, *, background: bool = True) -> None:
        self.path = Path(path or os.environ.get(WORKSPACE_ENV, "engram-workspace"))
        self.workspace: Any = None
        self.assistant: Any = None
        self.explorer: Any = None
        self.litmap: Any = None
        self.documents: Any = None
        self.notice = ""
        self.error = ""
        self.ready = threading.Event()
        self.timings: dict[str, float] = {}
        self.status = widgets.HTML(f"<i>Opening workspace {_e(self.path)}…</i>")
        self.status.add_class("engram-dashboard-status")
        self.banner = widgets.HTML("")
        self.banner.add_class("engram-dashboard-banner")
        self.retry = widgets.Button(description="Try again for writing", layout=widgets.Layout(width="auto",
                                                                                             display="none"))
        self.retry.add_class("engram-retry")
        self.retry.on_click(lambda _: self.try_writable())
        self._swap = threading.Lock()
        self.tabs = widgets.Tab([widgets.HTML("<i>Loading…</i>") for _ in TABS])
        for i, title in enumerate(TABS):
            self.tabs.set_title(i, title)
        title = widgets.HTML("<b style='font-size:17px'>engram-kit workbench</b>")
        self.widget = widgets.VBox([
            widgets.HBox([title, self.status], layout=widgets.Layout(align_items="baseline", flex_flow="row wrap",
                                                                     grid_gap="12px")),
            widgets.HBox([self.banner, self.retry], layout=widgets.Layout(align_items="center")), self.tabs])
        self.widget.add_class("engram-dashboard")
        if background:
            threading.Thread(target=self.load, name="engram-dashboard-load", daemon=True).start()
        else:
            self.load()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def load(self) -> None:
        """Open the workspace and build the tabs (errors are shown in the page, never raised); then warm up
        the language model in this (background) thread, and retry the write lock when it was taken. Over the
        server's kernel limit (:func:`kernels_over_limit`), first wait, saying so, until another session ends."""
        self._wait_for_a_free_slot()
        started = time.perf_counter()
        try:
            from engram_kit.errors import EngramError

            try:
                self.workspace, self.notice = open_workspace(self.path)
            except EngramError as exc:
                self.error = str(exc)
                self.status.value = f"<b style='color:#c62828'>{_e(exc)}</b>"
                return
            self.timings["open"] = time.perf_counter() - started
            self._build_tabs()
            self._show_state()
            self.timings["ready"] = time.perf_counter() - started
        except Exception as exc:  # a thread must show, not swallow, an unexpected failure
            log.exception("dashboard failed to load")
            self.error = f"{type(exc).__name__}: {exc}"
            self.status.value = f"<b style='color:#c62828'>The dashboard failed to load: {_e(self.error)}</b>"
            return
        finally:
            self.ready.set()
            self.widget.add_class("engram-ready")  # lets a browser (test) wait for the filled page
        if self.workspace.read_only:
            threading.Thread(target=self._retry_lock, name="engram-dashboard-lock", daemon=True).start()
        try:
            self.timings["warmup"] = self.assistant.warm_up()
        except Exception:  # the workspace may be swapped (lock retry) under a running warm-up
            log.warning("warm-up interrupted", exc_info=True)

    def _wait_for_a_free_slot(self) -> None:
        """Hold this kernel (nothing loaded) while the server runs more kernels than it allows, with a status
        line saying why and what to do; checks again every :data:`SLOT_POLL_SECONDS`."""
        while (over := kernels_over_limit()) is not None:
            running, limit = over
            self.status.value = (
                f"<b style='color:#c62828'>This dashboard already serves {running - 1} sessions, its limit of "
                f"{limit} kernels (about {KERNEL_MEMORY_MB:,} MB of memory each): this page waits and opens the "
                "workspace as soon as another dashboard tab is closed. To allow more, restart it with "
                "<code>engram dashboard --max-sessions N</code> on a machine with the memory for them.</b>")
            time.sleep(SLOT_POLL_SECONDS)
        self.status.value = f"<i>Opening workspace {_e(self.path)}…</i>"

    def _show_state(self) -> None:
        info = self.workspace.info()
        mode = "read-only" if self.workspace.read_only else "read-write"
        self.status.value = (f"<span style='font-size:12px'>Workspace <code>{_e(self.path)}</code> ({mode}): "
                             f"{_e(info['knowledge_graph'])}, {info['articles']:,} documents, "
                             f"{info['passages']:,} passages.</span>")
        self.banner.value = f"<div class='engram-banner'>{_e(self.notice)}</div>" if self.notice else ""
        self.retry.layout.display = "" if self.workspace.read_only else "none"

    def _retry_lock(self) -> None:
        started = time.monotonic()
        for at in LOCK_RETRY_AT:
            time.sleep(max(0.0, started + at - time.monotonic()))
            if not self.workspace.read_only:
                return
            if self.assistant is not None and (self.assistant.answer is not None
                                               or self.assistant.cypher.artifact is not None):
                return  # the reader is working: never swap the workspace under them (the button still works)
            if self.try_writable(quiet=True):
                return

    def try_writable(self, *, quiet: bool = False) -> bool:
        """Reopen the workspace for writing if the other writer has gone; rebuilds the tabs on success.
        Returns True when the page is now read-write."""
        from engram_kit.errors import WorkspaceLockedError
        from engram_kit.workspace import Workspace

        with self._swap:
            if not self.workspace.read_only:
                return True
            if self.assistant is not None and self.assistant._busy.locked():
                return False
            old = self.workspace
            # the loaded language model is reused (loading it again takes tens of seconds)
            model = old.embedder if self.assistant is not None and self.assistant.warmup_seconds is not None else None
            old.close()  # one process cannot hold a read-only and a read-write handle of the same graph
            try:
                self.workspace = Workspace.open(self.path, embedder=model)
            except WorkspaceLockedError:
                self.workspace = Workspace.open(self.path, read_only=True, embedder=model)
                if not quiet:
                    self.banner.value = (f"<div class='engram-banner'>{_e(LOCKED_NOTICE)} Still in use at "
                                         f"{time.strftime('%H:%M:%S')}; try again later.</div>")
                self._rebind()
                return False
            self.notice = ""
            self._build_tabs()
            self._show_state()
            self.assistant.warm_up()
            return True

    def _rebind(self) -> None:
        """Point the tabs at the reopened (still read-only) workspace; the new assistant is warmed up again
        (the language model is reused, so only the lexicon and graph index reload) and says so."""
        self._build_tabs()
        self._show_state()
        self.banner.value = self.banner.value or f"<div class='engram-banner'>{_e(LOCKED_NOTICE)}</div>"
        self.assistant.warm_up()

    def _build_tabs(self) -> None:
        from engram_widgets.assistant import ResearchAssistant
        from engram_widgets.explorer import GraphExplorer
        from engram_widgets.graph import refit_on_select
        from engram_widgets.litmap import LiteratureMapTab

        self.assistant = ResearchAssistant(self.workspace)
        self.explorer = GraphExplorer(self.workspace)
        self.litmap = LiteratureMapTab(self.workspace)
        children = [self.assistant.widget, self.explorer.widget, self.litmap.widget]
        try:
            from engram_widgets.documents import DocumentRepositoryWidget

            self.documents = DocumentRepositoryWidget(self.workspace)
            children.append(self.documents.widget)
        except (ImportError, AttributeError) as exc:  # engram-kit without the document repository
            children.append(widgets.HTML(f"<i>Document repository unavailable: {_e(exc)}</i>"))
        self.tabs.children = children
        for i, title in enumerate(TABS):
            self.tabs.set_title(i, title)
        refit_on_select(self.tabs, {0: self.assistant, 1: self.explorer, 2: self.litmap})


#: Environment variable holding the most kernels (pages + pre-started ones) the server may run at once; set by
#: ``engram dashboard`` (:func:`voila_environment`), unset means no limit.
MAX_KERNELS_ENV = "ENGRAM_DASHBOARD_MAX_KERNELS"
#: Pages ``engram dashboard`` serves at once by default (``--max-sessions``): with :data:`KERNEL_MEMORY_MB` each,
#: four sessions and the pre-started kernel take about 12 GB, within a 16 GB machine beside the server; on two
#: cores, four sessions already share the CPU (benchmarks/results/dashboard_load.md: answers per minute, latency
#: and memory at 1, 2 and 4 sessions).
DEFAULT_MAX_SESSIONS = 4
#: Peak resident memory of one dashboard kernel on the bundled sample with the model warm, in MB, rounded up
#: (benchmarks/dashboard_load.py: largest kernel 2,201-2,247 MB over N = 1, 2); shown to a user over the limit.
KERNEL_MEMORY_MB = 2300
#: How often a kernel over the limit checks whether a session has ended, in seconds.
SLOT_POLL_SECONDS = 5.0


def kernels_over_limit(env: dict[str, str] | None = None) -> tuple[int, int] | None:
    """``(running, limit)`` when the Voila server that started this kernel runs more kernels (this one included)
    than ``$ENGRAM_DASHBOARD_MAX_KERNELS``, else None (also when unset, or outside a Voila kernel).

    Counts the ``ipykernel`` children of this process's parent (the server). Kernels started earlier are ahead
    in the queue: only kernels whose start time is not after this one's count, so of two waiting pages the older
    one opens first."""
    import psutil

    raw = (os.environ if env is None else env).get(MAX_KERNELS_ENV, "")
    if not raw.isdigit() or int(raw) < 1:
        return None
    try:
        me = psutil.Process()
        server = me.parent()
        if server is None:
            return None
        kernels = [p for p in server.children() if any("ipykernel" in part for part in p.cmdline())]
        ahead = [p for p in kernels if p.create_time() <= me.create_time()]
    except psutil.Error:
        return None
    running = len(ahead) if any(p.pid == me.pid for p in ahead) else len(ahead) + 1
    return (running, int(raw)) if running > int(raw) else None


def dashboard(path: str | Path | None = None, *, background: bool = True) -> Dashboard:
    """Build and return the dashboard (display it, or let Voila display the cell's value)."""
    return Dashboard(path, background=background)


#: Source of ``notebooks/dashboard.ipynb`` (one markdown cell and one code cell).
NOTEBOOK_CELLS: tuple[tuple[str, str], ...] = (
    ("code", "# The engram-kit workbench, served by `engram dashboard` with Voila (see notebooks/06_dashboard.ipynb).\n"
             "# The workspace comes from $ENGRAM_WORKSPACE (default ./engram-workspace).\n"
             "from engram_widgets.dashboard import dashboard\n\napp = dashboard()\napp"),
)


def write_dashboard_notebook(path: str | Path) -> Path:
    """Write the dashboard notebook (``notebooks/dashboard.ipynb``; also used when that file is absent)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
                for kind, src in NOTEBOOK_CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = Path(path)
    nbformat.write(nb, path)
    return path


# ------------------------------------------------------------------------------------------ serving
#: Kernels ``engram dashboard`` keeps pre-started and warmed for the next page (``--pool``; see voila_command).
DEFAULT_POOL_SIZE = 1
#: Folder put on ``JUPYTER_PATH`` so Voila finds the ``engram`` template (``voila/templates/engram``).
TEMPLATE_ROOT = Path(__file__).resolve().parent / "share"
#: The repository's dashboard notebook (absent in a wheel install; :func:`write_dashboard_notebook` then).
REPO_NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "dashboard.ipynb"


def new_token() -> str:
    """A fresh access token for the dashboard (URL-safe, 192 random bits, like Jupyter's)."""
    return secrets.token_urlsafe(24)


def voila_command(notebook: str | Path, *, host: str = "127.0.0.1", port: int = 8866,
                  max_message_mb: int = DEFAULT_MAX_MESSAGE_MB, open_browser: bool = False,
                  python: str | None = None, token: str | None = None,
                  cull_idle_seconds: int = CULL_IDLE_SECONDS, pool_size: int = 0) -> list[str]:
    """The ``python -m voila ...`` command line serving ``notebook`` (see :func:`voila_environment`).

    Binds ``host`` only (127.0.0.1 by default: never all interfaces unless asked), raises Tornado's
    ``websocket_max_message_size`` to ``max_message_mb`` MB, uses the CDN-free ``engram`` template, culls
    kernels with no page connected after ``cull_idle_seconds`` (0 turns culling off). ``token``: the access
    token every request must carry (``?token=`` once, then a cookie); ``None`` or ``""`` serves without one.
    ``pool_size`` > 0 keeps that many kernels pre-started with the dashboard notebook already run (Voila's
    ``preheat_kernel``): each has opened the workspace and warmed the model in its background thread before a page
    asks for it, so a page is usable at once and its first answer comes warm; a kernel handed to a page is replaced
    at once (``engram dashboard --pool``, default :data:`DEFAULT_POOL_SIZE`).
    """
    import sys

    command = [
        python or sys.executable, "-m", "voila", str(notebook), f"--port={int(port)}", f"--Voila.ip={host}",
        "--no-browser" if not open_browser else "--Voila.open_browser=True", "--template=engram",
        # JSON form: the key=value form would make the size a string, which Tornado then compares with an int
        "--Voila.tornado_settings=" + json.dumps({"websocket_max_message_size": int(max_message_mb) * 1024 * 1024}),
        "--VoilaConfiguration.show_tracebacks=False", "--Voila.port_retries=0",
    ]
    if cull_idle_seconds:
        command += [f"--MappingKernelManager.cull_idle_timeout={int(cull_idle_seconds)}",
                    f"--MappingKernelManager.cull_interval={CULL_INTERVAL_SECONDS}",
                    "--MappingKernelManager.cull_connected=False"]
    if pool_size > 0:
        command += ["--preheat_kernel=True", f"--pool_size={int(pool_size)}"]
    if token:
        command.append(f"--token={token}")
    return command


def voila_environment(workspace: str | Path, base: dict[str, str] | None = None, *,
                      max_kernels: int | None = None, max_message_mb: int | None = None) -> dict[str, str]:
    """Environment for the Voila process: ``$ENGRAM_WORKSPACE`` (absolute) for the kernel, the ``engram``
    template on ``JUPYTER_PATH``, offline model loading (``HF_HUB_OFFLINE=1``), ``max_kernels`` (pages +
    pre-started kernels; None: no limit) as :data:`MAX_KERNELS_ENV`, and the websocket cap ``max_message_mb``
    (None: :data:`DEFAULT_MAX_MESSAGE_MB`) as :data:`MAX_UPLOAD_ENV`, which the documents tab states and the page
    checks an upload against before sending it."""
    env = dict(os.environ if base is None else base)
    env[WORKSPACE_ENV] = str(Path(workspace).resolve())
    env[MAX_UPLOAD_ENV] = str(int(max_message_mb if max_message_mb is not None else DEFAULT_MAX_MESSAGE_MB))
    if max_kernels is not None:
        env[MAX_KERNELS_ENV] = str(int(max_kernels))
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(TEMPLATE_ROOT), env.get("JUPYTER_PATH", "")) if p)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    return env


#: Seconds ``engram dashboard`` waits, after passing on a stop signal, for Voila to shut its kernels down (each
#: closes its workspace and releases the writer lock) before it kills whatever is left of the process tree.
STOP_GRACE_SECONDS = 15.0


def serve(command: list[str], env: dict[str, str], *, grace_seconds: float = STOP_GRACE_SECONDS) -> int:
    """Run the Voila ``command`` until it exits or this process gets SIGTERM, SIGINT (Ctrl-C) or SIGHUP, and leave
    no process of it behind; returns Voila's exit status, or 128 + the signal number after a stop signal.

    Voila runs in a session of its own (so a Ctrl-C reaches it once, through here, not twice), and Jupyter starts
    each kernel in a session of its own too, so neither a process-group signal nor the terminal's Ctrl-C reaches
    the kernels. On a stop signal the server gets SIGTERM and ``grace_seconds`` to shut its kernels down cleanly;
    then every process of the tree recorded before the signal (server, kernels, their children) that is still
    alive is killed. Without this, SIGTERM to ``engram dashboard`` left Voila and its kernels running (issue 30).
    """
    import signal
    import subprocess

    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, _frame: received.append(signum)) for sig in stops}
    try:
        server = subprocess.Popen(command, env=env, start_new_session=True)
        while not received:
            try:
                status = server.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                continue
        tree = _process_tree(server.pid)
        if received:
            _stop_tree(server, tree, grace_seconds)
            return 128 + received[0]
        _stop_tree(server, tree, 0.0)  # Voila exited by itself: no kernel outlives it either
        return int(status)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _process_tree(pid: int) -> list[Any]:
    """``psutil.Process`` objects of ``pid`` and all its descendants (empty when it has exited)."""
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _stop_tree(server: Any, tree: list[Any], grace_seconds: float) -> None:
    """SIGTERM ``server`` (a Popen), wait up to ``grace_seconds`` for it and the processes of ``tree``, then
    SIGKILL every one still alive (kernels are in their own sessions: a killed server would orphan them)."""
    import signal
    import subprocess

    import psutil

    if server.poll() is None:
        try:
            os.killpg(server.pid, signal.SIGTERM)  # the server and any helper in its session
        except ProcessLookupError:
            pass
        try:
            server.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            pass
    tree = [p for p in tree if p.pid != server.pid]
    _, alive = psutil.wait_procs(tree, timeout=grace_seconds if server.poll() is not None else 0)
    for proc in alive:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=5)
    if server.poll() is None:
        server.kill()
        server.wait()


def trust_notebook(notebook: str | Path) -> bool:
    """Sign ``notebook`` in the user's Jupyter notary (as ``jupyter trust`` does), so that Voila's contents
    manager does not log "Notebook ... is not trusted" when it serves it; the file itself is not changed.

    The signature (HMAC-SHA256 of the notebook with the per-user secret, nbformat's ``NotebookNotary``) is
    stored in ``nbsignatures.db`` of the Jupyter data folder (``$JUPYTER_DATA_DIR`` or
    ``jupyter --data-dir``), the one the Voila process reads. Returns True when it had to sign, False when
    the notebook was already trusted.
    """
    import nbformat
    from nbformat.sign import NotebookNotary

    nb = nbformat.read(str(notebook), as_version=nbformat.NO_CONVERT)
    notary = NotebookNotary()
    if notary.check_signature(nb):
        return False
    notary.sign(nb)
    return True


def dashboard_notebook() -> Path:
    """``notebooks/dashboard.ipynb`` of the repository, else a generated copy in a temporary folder."""
    if REPO_NOTEBOOK.is_file():
        return REPO_NOTEBOOK
    import tempfile

    return write_dashboard_notebook(Path(tempfile.mkdtemp(prefix="engram-dashboard-")) / "dashboard.ipynb")
