"""`engram dashboard` signs the dashboard notebook, so Voila no longer logs "Notebook ... is not trusted"
(issue 34.15). The warning comes from jupyter_server's ContentsManager.mark_trusted_cells, which Voila calls
when it loads the notebook; it is checked here with that same contents manager."""

from __future__ import annotations

import logging
import shutil

from jupyter_server.services.contents.filemanager import FileContentsManager
from nbformat.sign import NotebookNotary

from engram_widgets.dashboard import dashboard_notebook, trust_notebook


def _untrusted_warnings(root, caplog) -> list[str]:
    caplog.clear()
    manager = FileContentsManager(root_dir=str(root))
    manager.log = logging.getLogger("test-contents")
    with caplog.at_level(logging.WARNING, logger="test-contents"):
        manager.get("dashboard.ipynb")
    return [r.getMessage() for r in caplog.records if "is not trusted" in r.getMessage()]


def test_trusting_the_dashboard_notebook_silences_the_contents_manager(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))  # a fresh notary, not the user's
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(dashboard_notebook(), served / "dashboard.ipynb")
    before = (served / "dashboard.ipynb").read_bytes()
    assert _untrusted_warnings(served, caplog) == ["Notebook dashboard.ipynb is not trusted"]
    assert trust_notebook(served / "dashboard.ipynb") is True
    assert _untrusted_warnings(served, caplog) == []
    assert (served / "dashboard.ipynb").read_bytes() == before  # signed in the notary, the file unchanged
    assert (tmp_path / "jupyter-data" / "nbsignatures.db").is_file()
    assert trust_notebook(served / "dashboard.ipynb") is False  # already trusted: nothing to do
    import nbformat

    assert NotebookNotary().check_signature(nbformat.read(str(served / "dashboard.ipynb"), as_version=4))
