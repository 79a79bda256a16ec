"""Shared fixtures: one workspace built from the bundled sample through the CLI, reused read-mostly.

Building it once per test session (knowledge graph load, lexicon, ingest of the bundled abstracts with
real MiniLM embeddings) keeps the suite fast while every test runs against real data.

Tests are split in two by marker, without moving files: ``e2e`` -- every test that uses a workspace fixture
(a fixture named ``*workspace`` or ``*workspace_path``, or one of :data:`WORKSPACE_FIXTURES`), is marked ``slow``
(a test that builds a workspace inline or runs a study) or ``shared``, or is a notebook --
and ``unit``, the rest (tiny fixtures, seconds each). ``pytest -m unit`` runs the fast part,
``pytest -m e2e`` the end-to-end part; ``scripts/test.sh`` runs both.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


#: Module fixtures that build a workspace from the bundled sample under another name (test_answers.py ``graph_ws``:
#: sample graph + ingest; test_documents.py ``ws``: sample graph, 20 abstracts and a PDF, 75 s to set up on a
#: loaded 2-core machine): their tests are end-to-end too.
WORKSPACE_FIXTURES: frozenset[str] = frozenset({"graph_ws", "ws"})


def _is_end_to_end(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())  # notebook items (nbmake) have none: they are end-to-end
    if not names or item.get_closest_marker("slow") or item.get_closest_marker("shared"):
        return True
    return any(n.endswith(("workspace", "workspace_path")) or n in WORKSPACE_FIXTURES for n in names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test ``e2e`` or ``unit`` (see the module docstring)."""
    for item in items:
        item.add_marker(pytest.mark.e2e if _is_end_to_end(item) else pytest.mark.unit)


@pytest.fixture(scope="session")
def sample_paths():
    """Paths of the bundled sample data (``data/``)."""
    from engram_kit.datasets import resolve_data_paths

    return resolve_data_paths()


@pytest.fixture(scope="session")
def workspace_path(tmp_path_factory, sample_paths) -> Path:
    """A workspace created with ``engram init`` and filled with ``engram ingest`` on the bundled sample."""
    from engram_kit.cli import main

    path = tmp_path_factory.mktemp("ws") / "engram-workspace"
    assert main(["init", "-w", str(path)]) == 0
    assert main(["ingest", "-w", str(path), str(sample_paths.abstracts)]) == 0
    return path


@pytest.fixture(scope="session")
def workspace(workspace_path):
    """The session workspace, opened once for all tests (tests must not change its content)."""
    from engram_kit.workspace import Workspace

    ws = Workspace.open(workspace_path)
    ws.settings.progress = False
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def sample_records(sample_paths):
    """The bundled PubMed records, as read by the product's reader."""
    from engram_kit.ingestion.pubmed import read_pubmed

    return list(read_pubmed(sample_paths.abstracts))


@pytest.fixture(scope="session")
def kgx_workspace_path(tmp_path_factory) -> Path:
    """A workspace holding the bundled Biolink KGX sample (SHH / holoprosencephaly graph: HGNC genes, MONDO
    diseases, HP phenotypes) instead of Hetionet, made with ``engram init --kgx-...``, plus the 35 bundled PubMed
    abstracts that mention its entities."""
    from engram_kit.cli import main

    kgx = Path(__file__).parents[1] / "data" / "kgx"
    path = tmp_path_factory.mktemp("kgx") / "kgx-workspace"
    assert main(["init", "-w", str(path), "--kgx-nodes", str(kgx / "graph_nodes.tsv"), "--kgx-edges",
                 str(kgx / "graph_edges.tsv"), "--kgx-name", "Monarch KG sample", "--kgx-release",
                 "biolink/kgx@02b5f97"]) == 0
    assert main(["ingest", "-w", str(path), str(kgx / "abstracts-kgx.jsonl.gz")]) == 0
    return path


@pytest.fixture(scope="session")
def kgx_workspace(kgx_workspace_path):
    """The KGX session workspace, opened once (tests must not change its content)."""
    from engram_kit.workspace import Workspace

    ws = Workspace.open(kgx_workspace_path)
    ws.settings.progress = False
    yield ws
    ws.close()
