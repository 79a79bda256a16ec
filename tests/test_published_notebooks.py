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
