"""Publish executed copies of the notebooks as HTML pages a reader opens without running anything.

    python scripts/publish_notebooks.py                 # all notebooks/*.ipynb -> docs/notebooks/*.html
    python scripts/publish_notebooks.py 01_quickstart   # only the notebooks whose name starts so
    python scripts/publish_notebooks.py --check         # exit 1 if a page is missing or stale (no execution)

The notebooks stay stored without outputs (clean git diffs); each page is made by executing a copy with
nbclient (the engine of ``jupyter nbconvert --execute``; working directory ``notebooks/``, the same as the
test run) and exporting it with nbconvert's ``HTMLExporter`` (lab template). Every page records the SHA-256
of its notebook's source cells (:func:`source_hash`: cell types and sources, not outputs, ids or metadata)
in ``<meta name="engram-notebook-source-sha256">``; ``tests/test_published_notebooks.py`` checks in CI that
each page was made from the current cells, so a notebook edited without re-publishing fails there.

Widgets: the executed widget state is stored in the page (``store_widget_state``), which nbconvert's template
renders with the Jupyter widgets HTML manager, a script the page loads from a CDN (unpkg.com): online the
widgets show as they were (not live: nothing runs behind them); offline their text fallback shows. Figures
drawn with matplotlib are PNGs already. ``dashboard.ipynb`` runs on a throw-away workspace built from the
bundled sample (``$ENGRAM_WORKSPACE`` is pointed at it), since the dashboard needs one.

Paths of this checkout (and of the interpreter) in the outputs are written repository-relative.

Stylesheets: nbconvert's lab template inlines the same ~0.26 MB of JupyterLab CSS into every page. Each
``<style>`` block of :data:`SHARED_STYLE_MIN` characters or more is written once as ``docs/notebooks/style-<sha>.css``
(named by the SHA-256 of its text, so identical CSS is one file and a changed one a new file) and linked from
the page; small page-specific blocks stay inline. ``--restyle`` applies this to pages already published,
without executing anything.

Slow: every notebook is executed (minutes each on a small machine). Run it with ``nice``.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
PAGES = REPO / "docs" / "notebooks"
#: Name of the ``<meta>`` element carrying :func:`source_hash`.
META_NAME = "engram-notebook-source-sha256"
#: Seconds one cell may run (as scripts/test.sh gives nbmake: embedding cells take minutes on a loaded machine).
CELL_TIMEOUT = 3600
#: Characters from which an inline ``<style>`` block is moved to a shared stylesheet (the template's JupyterLab
#: theme and base CSS are 4-240 kB; the per-output blocks widgets add are a few hundred characters).
SHARED_STYLE_MIN = 4000
_STYLE_BLOCK = re.compile(r"<style(?P<attrs>[^>]*)>(?P<css>.*?)</style>", re.S)
_STYLESHEET_LINK = re.compile(r'<link rel="stylesheet" href="(?P<href>style-[0-9a-f]{16}\.css)">')


def source_hash(notebook: dict[str, Any]) -> str:
    """SHA-256 hex digest of a notebook's source cells: the JSON of ``[[cell_type, source], ...]``.

    ``source`` is joined when stored as a list of lines, so a notebook re-saved by another editor (same text)
    keeps its hash; outputs, execution counts, cell ids and metadata do not enter it.
    """
    cells = [[c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"]]
             for c in notebook.get("cells", [])]
    return hashlib.sha256(json.dumps(cells, ensure_ascii=False).encode()).hexdigest()


def externalise_styles(page_html: str, pages: Path) -> str:
    """Move each large inline ``<style>`` block of ``page_html`` into ``pages/style-<sha16>.css``; return the page.

    A block's file is named by the first 16 hex digits of the SHA-256 of its CSS, so pages with the same theme
    share one file and re-running is idempotent (an existing file of that name holds that text already).
    """
    def replace(match: re.Match[str]) -> str:
        css = match.group("css")
        if len(css) < SHARED_STYLE_MIN:
            return match.group(0)
        name = f"style-{hashlib.sha256(css.encode()).hexdigest()[:16]}.css"
        target = pages / name
        if not target.exists():
            tmp = target.with_suffix(".css.tmp")
            tmp.write_text(css, encoding="utf-8")
            tmp.replace(target)
        return f'<link rel="stylesheet" href="{name}">'

    return _STYLE_BLOCK.sub(replace, page_html)


def missing_stylesheets(page: Path) -> list[str]:
    """Stylesheets ``page`` links (``style-*.css``) that are not beside it."""
    text = page.read_text(encoding="utf-8")
    return [m.group("href") for m in _STYLESHEET_LINK.finditer(text) if not (page.parent / m.group("href")).exists()]


def page_path(notebook: Path) -> Path:
    """The published page of ``notebook``: ``docs/notebooks/<stem>.html``."""
    return PAGES / f"{notebook.stem}.html"


def recorded_hash(page: Path) -> str | None:
    """The source hash recorded in a published page, or None when the page or its ``<meta>`` is missing."""
    if not page.is_file():
        return None
    text = page.read_text(encoding="utf-8")
    marker = f'<meta name="{META_NAME}" content="'
    start = text.find(marker)
    if start < 0:
        return None
    start += len(marker)
    return text[start:text.index('"', start)]


def stale_pages(notebooks: list[Path]) -> list[str]:
    """One line per notebook whose page is missing or was made from other source cells."""
    problems = []
    for nb_path in notebooks:
        wanted = source_hash(json.loads(nb_path.read_text(encoding="utf-8")))
        found = recorded_hash(page_path(nb_path))
        if found != wanted:
            state = "missing" if found is None else f"made from other cells (hash {found[:12]}, now {wanted[:12]})"
            problems.append(f"{page_path(nb_path).relative_to(REPO)}: {state}")
        elif missing := missing_stylesheets(page_path(nb_path)):
            problems.append(f"{page_path(nb_path).relative_to(REPO)}: links missing stylesheets {', '.join(missing)}")
    return problems


def _sample_workspace(root: Path) -> Path:
    """A workspace on the bundled sample with its abstracts, for the dashboard notebook."""
    from engram_kit import Settings, Workspace
    from engram_kit.datasets import resolve_data_paths

    path = root / "dashboard-ws"
    with Workspace.create(path, graph="hetionet", settings=Settings(progress=False)) as ws:
        ws.ingest(resolve_data_paths().abstracts)
    return path


def publish(nb_path: Path, workspace: Path | None) -> Path:
    """Execute ``nb_path`` (a copy; the file is not modified) and write its page with the source hash."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.read(nb_path, as_version=4)
    digest = source_hash(json.loads(nb_path.read_text(encoding="utf-8")))
    env_before = os.environ.get("ENGRAM_WORKSPACE")
    if workspace is not None:
        os.environ["ENGRAM_WORKSPACE"] = str(workspace)
    try:
        NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    finally:
        if workspace is not None:
            if env_before is None:
                os.environ.pop("ENGRAM_WORKSPACE", None)
            else:
                os.environ["ENGRAM_WORKSPACE"] = env_before
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb, resources={"metadata": {"name": nb_path.stem}})
    meta = (f'<meta name="{META_NAME}" content="{digest}">\n'
            f'<meta name="engram-notebook-source" content="{html.escape("notebooks/" + nb_path.name)}">\n')
    body = body.replace("<head>", "<head>\n" + meta, 1)
    # this machine's checkout and interpreter paths say nothing to a reader: repository-relative paths instead
    body = body.replace(str(Path(sys.executable).parent) + os.sep, "").replace(str(REPO) + os.sep, "")
    PAGES.mkdir(parents=True, exist_ok=True)
    body = externalise_styles(body, PAGES)
    target = page_path(nb_path)
    tmp = target.with_suffix(".html.tmp")
    tmp.write_text(body, encoding="utf-8")
    tmp.replace(target)  # a failed run leaves the old page, never half of one
    return target


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (1 when ``--check`` finds stale pages)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="notebook name prefixes (default: all)")
    parser.add_argument("--check", action="store_true", help="only report missing or stale pages")
    parser.add_argument("--restyle", action="store_true",
                        help="move the inline stylesheets of the published pages to shared files (no execution)")
    args = parser.parse_args(argv)
    notebooks = sorted(p for p in NOTEBOOKS.glob("*.ipynb")
                       if not args.names or any(p.stem.startswith(n) for n in args.names))
    if not notebooks:
        parser.error(f"no notebook in {NOTEBOOKS} matches {args.names}")
    if args.restyle:
        for nb_path in notebooks:
            page = page_path(nb_path)
            if page.exists():
                tmp = page.with_suffix(".html.tmp")
                tmp.write_text(externalise_styles(page.read_text(encoding="utf-8"), PAGES), encoding="utf-8")
                tmp.replace(page)
                print(f"{page.relative_to(REPO)}: {page.stat().st_size / 1e3:.0f} kB")
        return 0
    if args.check:
        problems = stale_pages(notebooks)
        print("\n".join(problems) if problems else f"{len(notebooks)} pages up to date")
        return 1 if problems else 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    with tempfile.TemporaryDirectory(prefix="engram-publish-") as tmp:
        workspace = None
        for nb_path in notebooks:
            if nb_path.stem == "dashboard" and workspace is None:
                workspace = _sample_workspace(Path(tmp))
            start = time.perf_counter()
            target = publish(nb_path, workspace if nb_path.stem == "dashboard" else None)
            print(f"{nb_path.relative_to(REPO)} -> {target.relative_to(REPO)} ({time.perf_counter() - start:.0f} s)",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
