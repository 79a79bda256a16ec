"""The Voila dashboard: research assistant, graph explorer and document repository in one page.

``notebooks/dashboard.ipynb`` (served by ``engram dashboard``) calls :func:`dashboard`. To paint fast,
this module imports only ipywidgets: the page shell (title, status line, tabs) is displayed at once and a
background thread imports engram-kit, opens the workspace and fills the tabs, then warms up the embedding
model so the first question does not pay for it.

The workspace is opened for writing when possible (uploads need it); when another process holds it
(:class:`~engram_kit.errors.WorkspaceLockedError`), it is reopened read-only and the page says so.
"""

from __future__ import annotations

import html
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import ipywidgets as widgets

log = logging.getLogger(__name__)

#: Tab order of the dashboard.
TABS: tuple[str, ...] = ("Research assistant", "Graph explorer", "Documents")
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
        ws = Workspace.open(path, read_only=True)
        return ws, (f"Opened read-only: {exc} Asking questions and exploring work; uploads, delete and reprocess "
                    "are disabled until the other process closes the workspace.")


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
        self.documents: Any = None
        self.notice = ""
        self.error = ""
        self.ready = threading.Event()
        self.timings: dict[str, float] = {}
        self.status = widgets.HTML(f"<i>Opening workspace {_e(self.path)}…</i>")
        self.status.add_class("engram-dashboard-status")
        self.banner = widgets.HTML("")
        self.banner.add_class("engram-dashboard-banner")
        self.tabs = widgets.Tab([widgets.HTML("<i>Loading…</i>") for _ in TABS])
        for i, title in enumerate(TABS):
            self.tabs.set_title(i, title)
        self.widget = widgets.VBox([
            widgets.HTML("<h2 style='margin:4px 0'>engram-kit workbench</h2>"), self.status, self.banner, self.tabs])
        self.widget.add_class("engram-dashboard")
        if background:
            threading.Thread(target=self.load, name="engram-dashboard-load", daemon=True).start()
        else:
            self.load()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def load(self) -> None:
        """Open the workspace and build the three tabs (errors are shown in the page, never raised)."""
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
            info = self.workspace.info()
            mode = "read-only" if self.workspace.read_only else "read-write"
            self.status.value = (f"<span style='font-size:12px'>Workspace <code>{_e(self.path)}</code> ({mode}): "
                                 f"{_e(info['knowledge_graph'])}, {info['articles']:,} documents, "
                                 f"{info['passages']:,} passages.</span>")
            if self.notice:
                self.banner.value = f"<div class='engram-banner'>{_e(self.notice)}</div>"
            self.timings["ready"] = time.perf_counter() - started
        except Exception as exc:  # noqa: BLE001 - a thread must show, not swallow, an unexpected failure
            log.exception("dashboard failed to load")
            self.error = f"{type(exc).__name__}: {exc}"
            self.status.value = f"<b style='color:#c62828'>The dashboard failed to load: {_e(self.error)}</b>"
            return
        finally:
            self.ready.set()
            self.widget.add_class("engram-ready")  # lets a browser (test) wait for the filled page
        self.assistant.warm_up()

    def _build_tabs(self) -> None:
        from engram_widgets.assistant import ResearchAssistant
        from engram_widgets.explorer import GraphExplorer
        from engram_widgets.graph import refit_on_select

        self.assistant = ResearchAssistant(self.workspace)
        self.explorer = GraphExplorer(self.workspace)
        children = [self.assistant.widget, self.explorer.widget]
        try:
            from engram_widgets.documents import DocumentRepositoryWidget

            self.documents = DocumentRepositoryWidget(self.workspace)
            children.append(self.documents.widget)
        except (ImportError, AttributeError) as exc:  # engram-kit without the document repository
            children.append(widgets.HTML(f"<i>Document repository unavailable: {_e(exc)}</i>"))
        self.tabs.children = children
        for i, title in enumerate(TABS):
            self.tabs.set_title(i, title)
        refit_on_select(self.tabs, {0: self.assistant, 1: self.explorer})


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
#: Largest websocket message Voila accepts, in MB. Tornado's default is 10 MiB and a larger message
#: closes the kernel websocket without an error in the page: ipywidgets' FileUpload sends each file in one
#: message, so 40 MB uploads need more (the document repository refuses files above 50 MB anyway).
DEFAULT_MAX_MESSAGE_MB = 100
#: Folder put on ``JUPYTER_PATH`` so Voila finds the ``engram`` template (``voila/templates/engram``).
TEMPLATE_ROOT = Path(__file__).resolve().parent / "share"
#: The repository's dashboard notebook (absent in a wheel install; :func:`write_dashboard_notebook` then).
REPO_NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "dashboard.ipynb"


def voila_command(notebook: str | Path, *, host: str = "127.0.0.1", port: int = 8866,
                  max_message_mb: int = DEFAULT_MAX_MESSAGE_MB, open_browser: bool = False,
                  python: str | None = None) -> list[str]:
    """The ``python -m voila ...`` command line serving ``notebook`` (see :func:`voila_environment`).

    Binds ``host`` only (127.0.0.1 by default: never all interfaces unless asked), raises Tornado's
    ``websocket_max_message_size`` to ``max_message_mb`` MB, uses the CDN-free ``engram`` template.
    """
    import sys

    return [
        python or sys.executable, "-m", "voila", str(notebook), f"--port={int(port)}", f"--Voila.ip={host}",
        "--no-browser" if not open_browser else "--Voila.open_browser=True", "--template=engram",
        # JSON form: the key=value form would make the size a string, which Tornado then compares with an int
        "--Voila.tornado_settings=" + json.dumps({"websocket_max_message_size": int(max_message_mb) * 1024 * 1024}),
        "--VoilaConfiguration.show_tracebacks=False", "--Voila.port_retries=0",
    ]


def voila_environment(workspace: str | Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for the Voila process: ``$ENGRAM_WORKSPACE`` (absolute) for the kernel, the ``engram``
    template on ``JUPYTER_PATH``, offline model loading (``HF_HUB_OFFLINE=1``)."""
    env = dict(os.environ if base is None else base)
    env[WORKSPACE_ENV] = str(Path(workspace).resolve())
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(TEMPLATE_ROOT), env.get("JUPYTER_PATH", "")) if p)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    return env


def dashboard_notebook() -> Path:
    """``notebooks/dashboard.ipynb`` of the repository, else a generated copy in a temporary folder."""
    if REPO_NOTEBOOK.is_file():
        return REPO_NOTEBOOK
    import tempfile

    return write_dashboard_notebook(Path(tempfile.mkdtemp(prefix="engram-dashboard-")) / "dashboard.ipynb")
