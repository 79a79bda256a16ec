"""Browser test of the Voila dashboard: real Chromium, real mouse, real workspace, network closed.

Needs Debian's Chromium (``apt-get install -y chromium``) and the ``playwright`` Python package (its own
browser download is never used); skipped with the reason when either is missing. Screenshots and the Voila
log go to ``tests/artifacts/`` (gitignored; CI keeps them).

The session workspace is held for writing by this pytest process (the ``workspace`` fixture), so the
dashboard must fall back to read-only and say so in the page: that is asserted too. The 40 MB upload test
serves a fresh, writable workspace.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engram_widgets.testing import CHROMIUM, CHROMIUM_ARGS, DashboardDriver, VoilaServer

pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} missing: apt-get update && apt-get install -y chromium", allow_module_level=True)
if shutil.which("voila") is None and not (Path(os.sys.executable).parent / "voila").exists():
    pytest.skip("voila is not installed (pip install voila)", allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402

from engram_widgets.dashboard import dashboard_notebook  # noqa: E402
from engram_widgets.graph import DEFAULT_LAYOUT  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
QUESTION = "Which genes interact with BACE1?"


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def served(workspace, workspace_path):
    """Voila serving the session workspace, which this process holds for writing (so: read-only page)."""
    assert not workspace.read_only
    ARTIFACTS.mkdir(exist_ok=True)
    with VoilaServer(workspace_path, dashboard_notebook(), log_path=ARTIFACTS / "voila-dashboard.log") as server:
        yield server


def test_dashboard_answers_and_node_click_highlights_passages(browser, served):
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    driver = DashboardDriver(page, ARTIFACTS)
    timings = driver.open(served.url)
    driver.screenshot("dashboard-ready")
    # another process (this one) holds the workspace: the page says it opened read-only
    assert "read-only" in driver.status_text()
    assert "read-only" in driver.banner_text().lower() and "another process" in driver.banner_text()

    nodes = driver.ask(QUESTION)
    assert nodes > 10
    driver.screenshot("dashboard-answer")
    layout_seconds = driver.measure_layout(DEFAULT_LAYOUT)

    node = driver.node_with_passages()
    assert node["n_passages"] >= 1
    assert page.locator(".engram-card.engram-highlight").count() == 0
    driver.click_node(node)
    highlighted = driver.highlighted_cards(at_least=1)
    driver.screenshot("dashboard-node-click")
    # exactly the passages that mention the clicked node are highlighted, and the status line names it
    assert highlighted == node["n_passages"]
    assert node["label"] in page.inner_text(".engram-status")

    assert driver.timings.blocked_requests == [], f"page asked the internet for {driver.timings.blocked_requests}"
    report = (f"first paint {timings.first_paint:.2f} s, ready {timings.ready:.2f} s, answer {timings.answer:.1f} s, "
              f"layout {layout_seconds:.3f} s for {timings.nodes} nodes / {timings.edges} edges")
    (ARTIFACTS / "dashboard-timings.txt").write_text(report + "\n")
    print(report)
    page.close()


def test_40_mb_upload_reaches_the_kernel(browser, tmp_path, sample_paths):
    """A 40 MB file sent through FileUpload arrives (Tornado's 10 MiB default would drop it silently)."""
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = tmp_path / "upload-ws"
    Workspace.create(path, data=sample_paths, settings=Settings(progress=False)).close()
    with VoilaServer(path, dashboard_notebook(), log_path=ARTIFACTS / "voila-upload.log") as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        driver = DashboardDriver(page, ARTIFACTS)
        driver.open(server.url)
        assert "read-write" in driver.status_text()
        page.get_by_role("tab", name="Documents").click()
        payload = b"%PDF-1.4\n" + os.urandom(40 * 1024 * 1024)  # not a parseable PDF: fails fast after arrival
        with page.expect_file_chooser() as chooser:  # the FileUpload button opens the browser's file dialog
            page.click(".engram-upload")
        chooser.value.set_files(files=[{"name": "big-upload.pdf", "mimeType": "application/pdf", "buffer": payload}])
        page.wait_for_function("() => { const s = document.querySelector('.engram-upload-status');"
                               " return s && /big-upload\\.pdf: (error|complete)/.test(s.innerText); }",
                               timeout=180_000)
        text = page.inner_text(".engram-upload-status")
        driver.screenshot("dashboard-upload-40mb")
        page.close()
    # the kernel received all 40 MB (the size it reports) and the repository judged the content
    assert "big-upload.pdf: error" in text and "corrupted PDF" in text
