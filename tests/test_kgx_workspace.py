"""Creating workspaces on KGX graphs: bad graphs fail cleanly, names never clash with engram-kit's tables or Cypher,
`--force` never replaces a workspace in use, and a fresh workspace answers before any ingest (newcomer bugs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engram_kit.errors import DataError, WorkspaceLockedError
from engram_kit.kg.kgx import load_kgx
from engram_kit.workspace import Workspace

KGX = Path(__file__).parents[1] / "data" / "kgx"


@pytest.fixture(scope="module")
def kg():
    return load_kgx(KGX / "graph_nodes.tsv", KGX / "graph_edges.tsv", progress=False, name="Monarch KG sample")


@pytest.mark.slow  # e2e: builds KGX workspaces in two processes: 17 s on a loaded 2-core machine (issue 15)
def test_force_never_replaces_a_workspace_another_process_holds(tmp_path, kg):
    path = tmp_path / "ws"
    Workspace.create(path, graph=kg).close()
    holder = subprocess.Popen([sys.executable, "-c", "import time\nfrom engram_kit.workspace import Workspace\n"
                               f"ws = Workspace.open({str(path)!r})\nprint('open', flush=True)\ntime.sleep(120)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(WorkspaceLockedError, match="locked"):
            Workspace.create(path, graph=kg, overwrite=True)
        assert (path / "manifest.json").exists() and (path / "graph.lbug").exists()
    finally:
        holder.kill()
        holder.wait()
    Workspace.create(path, graph=kg, overwrite=True).close()  # free again: replacing works


def test_a_graph_without_edges_is_refused_before_anything_is_written(tmp_path, kg):
    empty = type(kg)(kg.nodes, kg.edges.head(0), kg.report, kg.name, kg.version, kg.schema)
    with pytest.raises(DataError, match="0 edges"):
        Workspace.create(tmp_path / "ws", graph=empty)
    assert not (tmp_path / "ws").exists()


def test_a_failed_create_in_an_existing_folder_removes_only_its_own_files(tmp_path, kg):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    edges = kg.edges.copy()
    bad = edges.index[edges["rel_type"] == "HAS_PHENOTYPE"][0]
    edges.loc[bad, "target"] = "Gene::HGNC:10848"  # a Gene -HAS_PHENOTYPE-> Gene pair the schema does not allow
    broken = type(kg)(kg.nodes, edges, kg.report, kg.name, kg.version, kg.schema)
    with pytest.raises(DataError, match="biolink:has_phenotype"):
        Workspace.create(folder, graph=broken)
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_biolink_names_never_clash_with_engram_tables_or_cypher(tmp_path):
    """biolink:Article / biolink:Case categories and a biolink:mentions predicate (all real Biolink names) get
    their own tables, apart from engram-kit's Article and MENTIONS and from Cypher's CASE keyword."""
    nodes = (KGX / "graph_nodes.tsv").read_text().splitlines()
    edges = (KGX / "graph_edges.tsv").read_text().splitlines()
    nodes = [nodes[0]] + [line.replace("biolink:Pathway", "biolink:Article").replace("biolink:AnatomicalEntity",
                                                                                     "biolink:Case")
                          for line in nodes[1:]]
    edges = [edges[0]] + [line.replace("biolink:actively_involved_in", "biolink:mentions") for line in edges[1:]]
    (tmp_path / "nodes.tsv").write_text("\n".join(nodes) + "\n")
    (tmp_path / "edges.tsv").write_text("\n".join(edges) + "\n")
    graph = load_kgx(tmp_path / "nodes.tsv", tmp_path / "edges.tsv", progress=False)
    assert {"Biolink_Article", "Biolink_Case"} <= set(graph.schema.labels)
    assert "BIOLINK_MENTIONS" in graph.schema.rel_types
    with Workspace.create(tmp_path / "ws", graph=graph) as ws:
        counts = ws.store.counts()
        assert counts["Article"] == 0 and counts["MENTIONS"] == 0  # the literature layer is untouched
        assert counts["Biolink_Article"] == 22 and counts["BIOLINK_MENTIONS"] == 22 and counts["Biolink_Case"] == 20


def test_a_fresh_workspace_answers_read_only_before_any_ingest(tmp_path, kg):
    """Bug: `engram ask` (read-only) on a new workspace failed with 'No vector store ... cannot create one'."""
    Workspace.create(tmp_path / "ws", graph=kg).close()
    with Workspace.open(tmp_path / "ws", read_only=True) as ws:
        answer = ws.ask("What does HGNC:10848 interact with?")
        assert answer.retrieval.passages == [] and any("interacts with" in c.text for c in answer.claims)
