"""Live Neo4j: the bulk load paths give the graph the batched UNWIND path gives (issue 32).

On the bundled sample workspace (Hetionet sample + 430 abstracts), each path fills an empty database and the
node count per label and relationship count per type must equal the UNWIND path's and the embedded store's:

* ``load_neo4j(..., method="load-csv")``: CSV files in the server's import folder, ``LOAD CSV ... IN
  TRANSACTIONS`` (needs ``NEO4J_IMPORT_DIR``, which ``scripts/neo4j.sh`` writes to its state file);
* ``neo4j-admin database import full`` of ``engram export --neo4j-admin-csv`` through ``scripts/neo4j.sh
  import`` (stops the server, imports, starts it on the imported store), only on the server this repository's
  script runs (not on a ``NEO4J_URI`` given from outside, which cannot be stopped from here).

Same server and gating as ``tests/test_neo4j_live.py``; the database must be empty and disposable.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from engram_kit.kg.schema import HETIONET_SCHEMA
from tests.test_neo4j_live import ROOT, SERVER_ENV, _read_env_file, _wipe, neo4j_server  # noqa: F401 (fixture)


def _config(env: dict[str, str]):
    from engram_kit.store.neo4j import Neo4jConfig

    return Neo4jConfig(uri=env["NEO4J_URI"], user=env.get("NEO4J_USER", "neo4j"),
                       password=env.get("NEO4J_PASSWORD", ""), database=env.get("NEO4J_DATABASE", "neo4j"),
                       projection_name="engram_bulk_test")


def _sample_values(store) -> dict[str, object]:
    """A few typed values that must survive every path: an int, a float, a text with a line break or quote."""
    one = store.query("MATCH (a:Article) WHERE a.year IS NOT NULL RETURN a.id AS id, a.year AS year "
                      "ORDER BY a.id LIMIT 1")
    maps = store.query("MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS np, e.id AS entity, r.confidence AS c, "
                       "r.method AS m ORDER BY np, entity LIMIT 3")
    text = store.query("MATCH (p:Passage) RETURN p.id AS id, p.text AS text ORDER BY p.id LIMIT 5")
    mentions = store.query("MATCH (p:Passage)-[r:MENTIONS]->(n:NounPhrase) RETURN sum(r.count) AS total")
    return {"article": one.to_dict("records"), "maps_to": maps.to_dict("records"),
            "passages": text.to_dict("records"), "mention_total": int(mentions["total"][0])}


@pytest.fixture(scope="module")
def unwind_reference(workspace, neo4j_server):  # noqa: F811
    """Counts and sample values after the UNWIND path (the baseline) on an empty database."""
    from engram_kit.store.neo4j import Neo4jStore
    from engram_kit.store.neo4j_bulk import load_neo4j

    config = _config(neo4j_server)
    _wipe(config)
    store = Neo4jStore(config, schema=HETIONET_SCHEMA)
    try:
        report = load_neo4j(workspace.store, store, method="unwind", progress=False)
        yield {"counts": store.counts(), "values": _sample_values(store), "report": report}
    finally:
        store.close()
        # the admin-import test restarts the server on another port: wipe the one running now
        _wipe(_config(_read_env_file(SERVER_ENV)) if SERVER_ENV.is_file() and not os.environ.get("NEO4J_URI")
              else config)


def test_unwind_path_copies_the_embedded_graph(workspace, unwind_reference):
    assert unwind_reference["counts"] == workspace.store.counts()
    assert unwind_reference["values"] == _sample_values(workspace.store)


def test_load_csv_gives_the_unwind_graph(workspace, neo4j_server, unwind_reference):  # noqa: F811
    from engram_kit.errors import DataError
    from engram_kit.store.neo4j import Neo4jStore
    from engram_kit.store.neo4j_bulk import load_neo4j

    import_dir = neo4j_server.get("NEO4J_IMPORT_DIR")
    if not import_dir:
        pytest.skip("the Neo4j server names no NEO4J_IMPORT_DIR (LOAD CSV needs the server's import folder)")
    config = _config(neo4j_server)
    _wipe(config)
    store = Neo4jStore(config, schema=HETIONET_SCHEMA, create_schema=False)
    try:
        report = load_neo4j(workspace.store, store, method="load-csv", import_dir=import_dir, progress=False)
        assert store.counts() == unwind_reference["counts"]
        assert _sample_values(store) == unwind_reference["values"]
        expected = unwind_reference["counts"]
        assert report.nodes == sum(v for k, v in expected.items() if k in store.schema.labels
                                   or k in ("Article", "Section", "Passage", "NounPhrase"))
        assert report.files > 0
        assert not os.path.exists(os.path.join(import_dir, "engram-load"))  # files removed after the load
        with pytest.raises(DataError, match="already holds a knowledge graph"):
            load_neo4j(workspace.store, store, method="load-csv", import_dir=import_dir, progress=False)
    finally:
        store.close()
        _wipe(config)


def test_load_neo4j_refuses_bad_arguments(workspace, neo4j_server):  # noqa: F811
    from engram_kit.errors import DataError
    from engram_kit.store.neo4j import Neo4jStore
    from engram_kit.store.neo4j_bulk import load_neo4j

    store = Neo4jStore(_config(neo4j_server), schema=HETIONET_SCHEMA, create_schema=False)
    try:
        with pytest.raises(DataError, match="import_dir"):
            load_neo4j(workspace.store, store, method="load-csv", progress=False)
        with pytest.raises(DataError, match="Unknown Neo4j load method 'copy'"):
            load_neo4j(workspace.store, store, method="copy", progress=False)
    finally:
        store.close()


def test_neo4j_admin_import_gives_the_unwind_graph(workspace, neo4j_server, unwind_reference,  # noqa: F811
                                                   tmp_path):
    from engram_kit.store.export import export_neo4j_admin_csv
    from engram_kit.store.neo4j import Neo4jStore

    if os.environ.get("NEO4J_URI") or not SERVER_ENV.is_file():
        pytest.skip("neo4j-admin import needs the scripts/neo4j.sh server (it is stopped and restarted)")
    export = export_neo4j_admin_csv(workspace.store, tmp_path / "csv", progress=False)
    assert export.command.startswith("neo4j-admin database import full neo4j ")
    out = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "import", str(export.directory)],
                         capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "IMPORT_S=" in out.stdout
    env = _read_env_file(SERVER_ENV)  # a new port: the server was restarted on the imported store
    neo4j_server.update(env)  # later tests of this module use the restarted server
    store = Neo4jStore(_config(env), schema=HETIONET_SCHEMA)
    try:
        assert store.schema == workspace.store.schema  # read back from the imported EngramMeta node
        assert store.counts() == unwind_reference["counts"]
        assert _sample_values(store) == unwind_reference["values"]
    finally:
        store.close()
        _wipe(_config(env))
