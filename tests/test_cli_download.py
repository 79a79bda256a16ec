"""`engram init --download DIR` (issue 34.14): the official Hetionet release fetched, checksum-verified and
loaded with the bundled synonyms, tested against a local HTTP server serving the tests/fixtures mini release
under the official file names."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import threading
from functools import partial
from pathlib import Path

import pytest

from engram_kit.cli import main
from engram_kit.kg import hetionet

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # stdlib name
        _CountingHandler.requests.append(self.path)
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # stdlib signature
        pass


@pytest.fixture
def release(tmp_path: Path):
    """A folder served on 127.0.0.1 with the mini node and edge files under the official release names."""
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(FIXTURES / "kg_mini_nodes.tsv", served / hetionet.HETIONET_FILES["nodes"])
    shutil.copy(FIXTURES / "kg_mini_edges.sif.gz", served / hetionet.HETIONET_FILES["edges"])
    _CountingHandler.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_CountingHandler, directory=str(served)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_init_download_fetches_verifies_and_loads_the_release(release, tmp_path, monkeypatch, capsys) -> None:
    served, url = release
    edges = hetionet.HETIONET_FILES["edges"]
    # the official digest of the edges file is checked: the mini file gets its own (a wrong one fails, below)
    monkeypatch.setitem(hetionet.HETIONET_SHA256, edges, hashlib.sha256((served / edges).read_bytes()).hexdigest())
    folder, ws = tmp_path / "hetionet-v1.0", tmp_path / "ws"
    assert main(["init", "-w", str(ws), "--download", str(folder), "--hetionet-url", url]) == 0
    out = capsys.readouterr().out
    assert f"Downloading Hetionet v1.0 from {url} into {folder}" in out and "SHA-256 verified" in out
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*hetionet.HETIONET_FILES.values(), *(f"{n}.sha256" for n in hetionet.HETIONET_FILES.values())])
    manifest = json.loads((ws / "manifest.json").read_text())
    kg = manifest["knowledge_graph"]
    assert (kg["n_nodes"], kg["n_edges"]) == (17, 32)  # the fixture's 17 node rows and 32 edge rows
    assert Path(kg["edges_file"]) == folder / edges
    assert len(_CountingHandler.requests) == 2
    # again with --force: the verified copy is reused, nothing is fetched
    assert main(["init", "-w", str(ws), "--download", str(folder), "--hetionet-url", url, "--force"]) == 0
    assert len(_CountingHandler.requests) == 2


def test_init_download_with_a_wrong_checksum_keeps_the_old_workspace(release, tmp_path, monkeypatch, capsys) -> None:
    _, url = release
    monkeypatch.setitem(hetionet.HETIONET_SHA256, hetionet.HETIONET_FILES["edges"], "0" * 64)
    ws = tmp_path / "ws"
    ws.mkdir()
    assert main(["init", "-w", str(ws), "--download", str(tmp_path / "dl"), "--hetionet-url", url]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("error: ") and "does not match" in err
    # stderr is no terminal here: the download's progress is plain lines, not carriage-return bars (34.15)
    assert "\r" not in err and "hetionet-v1.0-nodes.tsv: 576/576 B (100%)" in err
    assert not (tmp_path / "dl" / hetionet.HETIONET_FILES["edges"]).exists()
    assert list(ws.iterdir()) == []


def test_download_excludes_data_and_kgx(tmp_path, capsys) -> None:
    assert main(["init", "-w", str(tmp_path / "ws"), "--download", "--data", str(tmp_path)]) == 2
    assert "--download (the official Hetionet release) excludes --data" in capsys.readouterr().err
