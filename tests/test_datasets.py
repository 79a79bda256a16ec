"""Data-file resolution: the bundled layout, the shared layout, overrides and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_kit.datasets import CANDIDATES, DATA_DIR_ENV, DataPaths, bundled_data_dir, resolve_data_paths
from engram_kit.errors import DataError

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def _fake_root(root: Path, *, edges: str, abstracts: str, skip: str = "") -> Path:
    """An empty-file data root with the given edge/abstract names (minus ``skip``)."""
    for relative in ("hetionet/hetionet-v1.0-nodes.tsv.gz", edges, abstracts):
        if relative != skip:
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_bytes(b"")
    if skip != "synonyms":
        (root / "synonyms").mkdir(parents=True, exist_ok=True)
    return root


def test_bundled_dir_is_repo_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    assert bundled_data_dir() == REPO / "data"


def test_resolver_finds_bundled_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    paths = resolve_data_paths()
    assert isinstance(paths, DataPaths)
    assert paths.layout == "bundled"
    assert paths.root == REPO / "data"
    assert paths.nodes.name == "hetionet-v1.0-nodes.tsv.gz" and paths.nodes.is_file()
    assert paths.edges.name == "hetionet-v1.0-edges-sample.tsv.gz" and paths.edges.is_file()
    assert paths.abstracts.name == "abstracts-sample.jsonl.gz" and paths.abstracts.is_file()
    assert paths.synonyms_dir.is_dir()


def test_env_var_overrides_bundled_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _fake_root(tmp_path / "mine", edges="hetionet/hetionet-v1.0-edges-sample.tsv.gz",
                      abstracts="pubmed/abstracts-sample.jsonl.gz")
    monkeypatch.setenv(DATA_DIR_ENV, str(root))
    assert bundled_data_dir() == root
    assert resolve_data_paths().root == root


def test_official_download_layout_is_recognised(tmp_path: Path) -> None:
    root = _fake_root(tmp_path, edges="hetionet/hetionet-v1.0-edges.sif.gz",
                      abstracts="pubmed/abstracts-sample.jsonl.gz")
    assert resolve_data_paths(root).layout == "official"


@pytest.mark.parametrize("missing", ["hetionet/hetionet-v1.0-edges-sample.tsv.gz", "synonyms",
                                     "pubmed/abstracts-sample.jsonl.gz"])
def test_missing_file_gives_data_error_listing_candidates(tmp_path: Path, missing: str) -> None:
    root = _fake_root(tmp_path, edges="hetionet/hetionet-v1.0-edges-sample.tsv.gz",
                      abstracts="pubmed/abstracts-sample.jsonl.gz", skip=missing)
    with pytest.raises(DataError) as info:
        resolve_data_paths(root)
    message = str(info.value)
    name = {"synonyms": "synonyms_dir"}.get(missing, "edges" if "edges" in missing else "abstracts")
    assert f"missing {name} (looked for: " in message
    for candidate in CANDIDATES[name]:
        assert str(root / candidate) in message
    assert "Fix:" in message


def test_missing_root_gives_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"does not exist.*Fix:"):
        resolve_data_paths(tmp_path / "nowhere")


@pytest.mark.shared
def test_shared_layout_when_available() -> None:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder {SHARED_DATA} is absent")
    paths = resolve_data_paths(SHARED_DATA)
    assert paths.layout == "shared"
    assert paths.edges.name == "hetionet-v1.0-edges-partial.tsv.gz"
    assert paths.abstracts.name == "pubmed_abstracts.jsonl.gz"
    assert paths.nodes.is_file() and paths.synonyms_dir.is_dir()
