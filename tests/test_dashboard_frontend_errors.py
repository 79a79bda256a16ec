"""Browser test: the dashboard says so when a widget's front-end extension is missing (issue 31 item 6).

A Jupyter widget whose JavaScript (its labextension) does not load renders as "Click to show javascript error"
while the kernel side fills the page and its status line reads as ready. Here the Cytoscape widget's bundle
(labextension ``jupyter-cytoscape``, shipped by the Python package ``ipycytoscape``) is made to fail to load:
Playwright aborts every request under ``/labextensions/jupyter-cytoscape/``, as a server whose environment lacks
the extension answers 404. The page must then say which piece is missing and how to fix it, in the status line
and in a banner, instead of reading as ready.

Real Chromium (Debian's ``/usr/bin/chromium``), a real Voila server (``engram dashboard``'s command) on a copy of
the session workspace, network closed (see :mod:`engram_widgets.testing`). Skipped with the reason when Chromium,
Playwright or Voila is missing, except under CI (``$CI`` set), where that is a failure. Timeouts are generous (a
loaded 2-core machine); nothing is asserted about speed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engram_widgets.testing import CHROMIUM, CHROMIUM_ARGS, DashboardDriver, VoilaServer


def _cannot_run(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but the browser test cannot run: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


try:
    import playwright.sync_api  # noqa: F401
except ImportError:
    _cannot_run("pip install playwright (no browser download needed)")
if not CHROMIUM.exists():
    _cannot_run(f"{CHROMIUM} missing: apt-get update && apt-get install -y chromium")
if shutil.which("voila") is None and not (Path(os.sys.executable).parent / "voila").exists():
    _cannot_run("voila is not installed (pip install voila)")

from playwright.sync_api import sync_playwright  # noqa: E402

from engram_widgets.dashboard import dashboard_notebook  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
#: The labextension made to fail, and the Python package that ships it (what the message must name).
MISSING_EXTENSION = "jupyter-cytoscape"
PACKAGE = "ipycytoscape"
QUESTION = "Which genes interact with BACE1?"


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True,
                                     timeout=600_000)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def served(workspace_path, tmp_path_factory):
    """Voila serving a writable copy of the session workspace."""
    copy = tmp_path_factory.mktemp("dash-frontend") / "ws"
    shutil.copytree(workspace_path, copy, ignore=shutil.ignore_patterns("conversations", "exports"))
    ARTIFACTS.mkdir(exist_ok=True)
    with VoilaServer(copy, dashboard_notebook(), log_path=ARTIFACTS / "voila-frontend-errors.log") as server:
        yield server


def _assert_named_with_its_fix(page, driver, name: str) -> dict[str, str]:
    """Ask a question (its graph is a Cytoscape widget); wait for the page's own message; check it names the
    extension, its package and the fix, and that the status line reads 'Not ready'. Returns what was shown."""
    page.fill(".engram-question textarea", QUESTION)
    page.click("button.engram-ask")
    page.wait_for_selector(".engram-frontend-error", state="visible", timeout=600_000)
    page.wait_for_function("() => { const s = document.querySelector('.engram-dashboard-status');"
                           " return s && s.innerText.includes('Not ready'); }", timeout=120_000, polling=250)
    # the answer in words still arrives: only the drawing is missing
    page.wait_for_selector(".engram-answer li", timeout=600_000)
    page.wait_for_timeout(1500)  # the status line is rewritten when the answer lands; the warning is put back
    driver.screenshot(f"dashboard-frontend-{name}")
    shown = {"banner": page.inner_text(".engram-frontend-error"), "status": driver.status_text()}
    (ARTIFACTS / f"dashboard-frontend-{name}.txt").write_text(f"{shown}\n")
    banner, status = shown["banner"], shown["status"]
    assert page.locator(".jupyter-widgets-error-widget").count() >= 1  # the broken widget the reader sees
    # ... which says, in the box itself, what is missing
    assert MISSING_EXTENSION in page.inner_text(".jupyter-widgets-error-widget .engram-frontend-why")
    assert MISSING_EXTENSION in banner and PACKAGE in banner, banner  # the missing piece, by name
    assert f"pip install {PACKAGE}" in banner and "jupyter labextension list" in banner, banner  # the fix
    assert "restart" in banner.lower(), banner
    assert status.startswith("Not ready") and MISSING_EXTENSION in status, status  # not a ready page
    assert driver.timings.blocked_requests == []
    return shown


def test_an_extension_bundle_that_fails_to_load_is_named_with_its_fix(browser, served):
    """Installed but not served: every request for the extension's files answers 404."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    driver = DashboardDriver(page, ARTIFACTS)  # blocks the network (context route)
    failed: list[str] = []

    def missing(route):  # a page route wins over the driver's context route
        failed.append(route.request.url)
        route.fulfill(status=404, body="Not Found")

    page.route(f"**/labextensions/{MISSING_EXTENSION}/**", missing)
    driver.open(served.url)  # the kernel side fills the page regardless
    _assert_named_with_its_fix(page, driver, "404")
    assert failed, "the extension's bundle was never requested: the test removed nothing"
    page.close(run_before_unload=True)  # hands the workspace's write lock back
    context.close()


def test_a_server_without_the_extension_names_it_with_its_fix(browser, workspace_path, tmp_path_factory):
    """Not installed: the server's page config lists no such extension (Voila's extension_denylist), so the
    page never asks for it and the widget manager has no module of that name."""
    copy = tmp_path_factory.mktemp("dash-noext") / "ws"
    shutil.copytree(workspace_path, copy, ignore=shutil.ignore_patterns("conversations", "exports"))
    deny = f'--VoilaConfiguration.extension_denylist=["{MISSING_EXTENSION}"]'
    with VoilaServer(copy, dashboard_notebook(), log_path=ARTIFACTS / "voila-frontend-noext.log",
                     extra_args=(deny,)) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        driver = DashboardDriver(page, ARTIFACTS)
        requested: list[str] = []
        page.on("request", lambda r: requested.append(r.url) if f"/{MISSING_EXTENSION}/" in r.url else None)
        driver.open(server.url)
        _assert_named_with_its_fix(page, driver, "not-installed")
        assert requested == []  # really absent from the page, not a failed download
        context.close()


def test_a_complete_front_end_shows_no_such_message(browser, served):
    """The check has no false alarm: with every extension served, the graph draws and nothing is reported."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    driver = DashboardDriver(page, ARTIFACTS)
    driver.open(served.url)
    driver.ask(QUESTION)
    page.wait_for_timeout(2500)  # longer than the page script's check interval
    assert page.locator(".engram-frontend-error").count() == 0
    assert "Not ready" not in driver.status_text()
    context.close()
