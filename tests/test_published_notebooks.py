"""The published notebook pages (docs/notebooks/*.html, issue 34.16) were made from the current source cells.

`python scripts/publish_notebooks.py` executes every notebook and writes its page with the SHA-256 of the
notebook's source cells; a notebook edited without re-publishing fails here (re-run that script).
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _publisher():  # the script module
    spec = importlib.util.spec_from_file_location("publish_notebooks", REPO / "scripts" / "publish_notebooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_notebook_has_a_page_made_from_its_current_cells() -> None:
    publisher = _publisher()
    notebooks = sorted((REPO / "notebooks").glob("*.ipynb"))
    assert len(notebooks) == 8
    assert publisher.stale_pages(notebooks) == [], "re-publish: python scripts/publish_notebooks.py"


def test_pages_hold_executed_outputs() -> None:
    # the stored notebooks have no outputs; the pages must (a page of code only would pass the hash check)
    page = (REPO / "docs" / "notebooks" / "01_quickstart.html").read_text(encoding="utf-8")
    assert 'class="jp-OutputArea-child' in page and "Disease::DOID:10652" in page  # an output, not in the cells


def test_the_hash_follows_source_cells_only() -> None:
    publisher = _publisher()
    nb = json.loads((REPO / "notebooks" / "01_quickstart.ipynb").read_text(encoding="utf-8"))
    digest = publisher.source_hash(nb)
    executed = copy.deepcopy(nb)
    code = next(c for c in executed["cells"] if c["cell_type"] == "code")
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hello\n"]}]
    code["execution_count"] = 7
    code["source"] = "".join(code["source"])  # a string instead of a list of lines: same text
    assert publisher.source_hash(executed) == digest
    edited = copy.deepcopy(nb)
    edited["cells"][0]["source"] = ["# changed\n", *edited["cells"][0]["source"]]
    assert publisher.source_hash(edited) != digest


def test_pages_link_one_shared_stylesheet_instead_of_inlining_it(tmp_path: Path) -> None:
    # every page inlined the same ~0.26 MB of JupyterLab CSS; each large block is now one shared file
    publisher = _publisher()
    pages = sorted((REPO / "docs" / "notebooks").glob("*.html"))
    for page in pages:
        text = page.read_text(encoding="utf-8")
        inline = [len(m.group("css")) for m in publisher._STYLE_BLOCK.finditer(text)]
        assert max(inline, default=0) < publisher.SHARED_STYLE_MIN, page.name
        assert publisher._STYLESHEET_LINK.search(text), page.name
        assert publisher.missing_stylesheets(page) == [], page.name
    # the move is idempotent and content-addressed: the same CSS twice is one file, the page keeps small blocks
    css = "body { color: red; }\n" * 400
    html_in = f"<head><style>{css}</style><style>p {{}}</style></head><head><style>{css}</style></head>"
    out = publisher.externalise_styles(html_in, tmp_path)
    assert out.count('<link rel="stylesheet" href="style-') == 2 and "<style>p {}</style>" in out
    assert [p.read_text() for p in tmp_path.glob("style-*.css")] == [css]
    assert publisher.externalise_styles(out, tmp_path) == out
