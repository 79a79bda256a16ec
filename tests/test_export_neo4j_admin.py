"""``engram export --neo4j-admin-csv``: the files parse back to the store's graph, in neo4j-admin's header
format; and the migration batches rebuild the same literature layer in a fresh store."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import DataError
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.store.cypher import DOMAIN_LABELS, DOMAIN_REL_TYPES, LITERATURE_LABELS, LITERATURE_REL_TYPES
from engram_kit.store.export import export_neo4j_admin_csv, literature_batches, read_domain, read_literature
from engram_kit.store.ladybug import LadybugStore


@pytest.fixture(scope="module")
def exported(workspace, tmp_path_factory):
    out = tmp_path_factory.mktemp("admin_csv")
    return export_neo4j_admin_csv(workspace.store, out, progress=False)


def _header(path: Path) -> list[str]:
    with path.open(newline="") as handle:
        return next(csv.reader(handle))


def test_headers_follow_the_neo4j_admin_format(exported):
    assert set(exported.node_files) == set(DOMAIN_LABELS + LITERATURE_LABELS + ("EngramMeta",))
    assert set(exported.relationship_files) == set(DOMAIN_REL_TYPES + LITERATURE_REL_TYPES)
    assert _header(exported.directory / "nodes_EngramMeta.csv") == ["key:ID(engram-meta)", "value", ":LABEL"]
    for label, (name, _) in exported.node_files.items():
        if label == "EngramMeta":
            continue
        header = _header(exported.directory / name)
        assert header[0] == "id:ID" and header[-1] == ":LABEL", (label, header)
    for rel, (name, _) in exported.relationship_files.items():
        assert _header(exported.directory / name)[:3] == [":START_ID", ":END_ID", ":TYPE"], rel
    assert _header(exported.directory / "nodes_Passage.csv")[1:6] == ["article_id", "section_id", "text", "source",
                                                                      "idx:int"]
    assert _header(exported.directory / "relationships_MAPS_TO.csv")[3:] == ["confidence:float", "method"]
    assert _header(exported.directory / "relationships_MENTIONS.csv")[3:] == ["count:int"]


def test_files_parse_back_to_the_store_counts(workspace, exported):
    counts = workspace.store.counts()
    ids: set[str] = set()
    files = dict(exported.node_files)
    assert files.pop("EngramMeta")[1] == 1  # the graph schema node: its own id space, not a graph node
    for label, (name, rows) in files.items():
        frame = pd.read_csv(exported.directory / name, dtype=str, keep_default_na=False)
        assert len(frame) == rows == counts[label], label
        assert (frame[":LABEL"] == label).all() and frame["id:ID"].is_unique
        ids.update(frame["id:ID"])
    assert len(ids) == sum(counts[label] for label in DOMAIN_LABELS + LITERATURE_LABELS)  # one global ID space
    for rel, (name, rows) in exported.relationship_files.items():
        frame = pd.read_csv(exported.directory / name, dtype=str, keep_default_na=False)
        assert len(frame) == rows == counts[rel], rel
        assert (frame[":TYPE"] == rel).all()
        assert frame[":START_ID"].isin(ids).all() and frame[":END_ID"].isin(ids).all(), rel
    mentions = pd.read_csv(exported.directory / "relationships_MENTIONS.csv")
    assert mentions["count:int"].dtype.kind == "i" and (mentions["count:int"] >= 1).all()
    maps_to = pd.read_csv(exported.directory / "relationships_MAPS_TO.csv")
    assert maps_to["confidence:float"].between(0, 1).all()
    passages = pd.read_csv(exported.directory / "nodes_Passage.csv", keep_default_na=False)
    stored = workspace.store.get_passages(passages["id:ID"].head(3).tolist()).set_index("id")
    for _, row in passages.head(3).iterrows():  # multi-line texts survive the round trip
        assert row["text"] == stored.loc[row["id:ID"], "text"]


def test_import_script_lists_every_non_empty_file(exported):
    script = (exported.directory / "import.sh").read_text()
    # the database name right after "full": --nodes/--relationships take several files each, and Neo4j 5.26.8
    # read a trailing name as one more file ("File 'neo4j' doesn't exist")
    assert "neo4j-admin database import full neo4j --multiline-fields=true" in script
    for name, rows in [*exported.node_files.values(), *exported.relationship_files.values()]:
        assert (f"={name}" in script) == (rows > 0), name
    assert not script.rstrip().endswith(" neo4j")


def test_refuses_a_folder_with_csv_files(workspace, exported):
    with pytest.raises(DataError, match="already holds"):
        export_neo4j_admin_csv(workspace.store, exported.directory, progress=False)


def test_migration_batches_rebuild_the_literature_layer(workspace, tmp_path):
    """What ``engram migrate`` sends to Neo4j, written into a fresh embedded store instead."""
    frames = read_literature(workspace.store)
    batches = list(literature_batches(frames, articles_per_batch=100))
    assert len(batches) == math.ceil(len(frames.articles) / 100)
    nodes, edges = read_domain(workspace.store)
    target = LadybugStore(tmp_path / "copy.lbug", schema=HETIONET_SCHEMA)
    try:
        target.load_knowledge_graph(nodes, edges, progress=False)
        for batch in batches:
            target.write_literature(batch)
        assert target.counts() == workspace.store.counts()
        some = frames.passages["id"].head(5).tolist()
        pd.testing.assert_frame_equal(
            target.get_passages(some).sort_values("id").reset_index(drop=True),
            workspace.store.get_passages(some).sort_values("id").reset_index(drop=True))
    finally:
        target.close()
