"""Neo4j backend without a server: config and secrets, batching and parameter shapes, transactions, the
EXPLAIN guard, GDS call construction and the GDS PPR engine (a recording fake stands in for the driver and
the graphdatascience client). The live suite is tests/test_neo4j_live.py."""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace

import numpy as np
import pytest

from engram_kit.errors import DataError, IngestionError, QueryGuardError, ReadOnlyError
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.records import ArticleRecord, LiteratureBatch, MapsToEdge, MentionEdge, NounPhraseRecord, \
    PassageRecord, SectionRecord
from engram_kit.store.gds import GDSPPREngine, GDSProjection, pagerank_parameters
from engram_kit.retrieval.ppr import personalized_pagerank
from engram_kit.retrieval.retriever import Retriever
from engram_kit.settings import Settings
from engram_kit.store.neo4j import Neo4jConfig, Neo4jStore
from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS

pytest.importorskip("neo4j", reason="the Neo4j backend needs the 'neo4j' extra: pip install 'engram-kit[neo4j]'")

SECRET = "s3cr3t-Pa55"
#: The text of a Neo4j statement by name (the backend's own pack).
statement = functools.partial(NEO4J_STATEMENTS.statement, schema=HETIONET_SCHEMA)
TOKEN = "eyJ-token-value"


# --- a recording fake of the official driver ---------------------------------------------------------------
class FakeResult:
    def __init__(self, keys, rows, query_type="r"):
        self._keys, self._rows, self.query_type = list(keys), list(rows), query_type

    def keys(self):
        return self._keys

    def data(self):
        return [dict(r) for r in self._rows]

    def __iter__(self):
        return iter(SimpleNamespace(data=lambda r=r: dict(r)) for r in self._rows)

    def consume(self):
        return SimpleNamespace(query_type=self.query_type)


class FakeServer:
    """Answers by statement shape: UNWIND statements report len(rows) written, counts report 0."""

    def __init__(self):
        self.calls: list[dict] = []
        self.fail_on: str | None = None
        self.plan_type = "r"
        self.rows: list[dict] = []

    def run(self, cypher, params, *, tx, access):
        self.calls.append({"cypher": cypher, "params": params, "tx": tx, "access": access})
        if self.fail_on and self.fail_on in cypher:
            raise RuntimeError(f"Neo.ClientError.Statement.SemanticError: boom with password {SECRET}")
        if cypher.startswith("EXPLAIN "):
            return FakeResult([], [], self.plan_type)
        if "$rows" in cypher and "count(" in cypher:
            return FakeResult(["n"], [{"n": len(params["rows"])}])
        if "count(" in cypher:
            return FakeResult(["n"], [{"n": 0}])
        if cypher.startswith("MATCH (n:") and "RETURN n.id AS id" in cypher:
            return FakeResult(["id", "name"], [])
        if "RETURN DISTINCT n.id AS id" in cypher:
            return FakeResult(["id"], [])
        return FakeResult(list(self.rows[0]) if self.rows else [], self.rows)


class FakeTx:
    def __init__(self, server, access, timeout):
        self.server, self.access, self.timeout = server, access, timeout
        self.state = "open"

    def run(self, cypher, params=None):
        return self.server.run(cypher, params or {}, tx=self, access=self.access)

    def commit(self):
        self.state = "committed"

    def rollback(self):
        self.state = "rolled back"

    def close(self):
        pass


class FakeSession:
    def __init__(self, server, database, access):
        self.server, self.database, self.access = server, database, access
        self.transactions: list[FakeTx] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, cypher, params=None):
        return self.server.run(cypher, params or {}, tx=None, access=self.access)

    def begin_transaction(self, timeout=None):
        tx = FakeTx(self.server, self.access, timeout)
        self.transactions.append(tx)
        self.server.calls.append({"begin": tx})
        return tx


class FakeDriver:
    def __init__(self):
        self.server = FakeServer()
        self.sessions: list[FakeSession] = []
        self.closed = False

    def session(self, database=None, default_access_mode=None):
        s = FakeSession(self.server, database, default_access_mode)
        self.sessions.append(s)
        return s

    def close(self):
        self.closed = True


@pytest.fixture
def config():
    return Neo4jConfig(uri="neo4j+s://db.example.org:7687", user="lab", password=SECRET, database="engram",
                       batch_rows=1_000)


@pytest.fixture
def fake_store(config):
    driver = FakeDriver()
    store = Neo4jStore(config, driver=driver, schema=HETIONET_SCHEMA)
    return store, driver


# --- configuration and secrets ------------------------------------------------------------------------------
def test_secrets_never_in_repr_manifest_or_messages(config, fake_store):
    store, driver = fake_store
    token_config = Neo4jConfig(uri="bolt://localhost:7687", token=TOKEN)
    for text in (repr(config), repr(token_config), repr(store), str(config.to_manifest()),
                 str(token_config.to_manifest())):
        assert SECRET not in text and TOKEN not in text
    assert config.to_manifest() == {"uri": "neo4j+s://db.example.org:7687", "user": "lab", "database": "engram",
                                    "tls": True, "batch_rows": 1000, "transaction_timeout_s": 300.0,
                                    "projection_name": "engram_retrieval", "auth": "password"}
    assert token_config.to_manifest()["auth"] == "token" and token_config.tls is False
    driver.server.fail_on = "CREATE CONSTRAINT gene_id"
    with pytest.raises(Exception) as info:
        store.create_schema()
    assert SECRET not in str(info.value) and "***" in str(info.value)


def test_config_validation_and_environment(monkeypatch):
    with pytest.raises(DataError, match="embeds credentials"):
        Neo4jConfig(uri=f"neo4j://lab:{SECRET}@host:7687")
    with pytest.raises(DataError, match="scheme 'http'"):
        Neo4jConfig(uri="http://host:7474")
    monkeypatch.delenv("NEO4J_URI", raising=False)
    with pytest.raises(DataError, match="NEO4J_URI"):
        Neo4jConfig.from_env()
    monkeypatch.setenv("NEO4J_URI", "bolt+ssc://h:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", SECRET)
    monkeypatch.setenv("NEO4J_DATABASE", "lit")
    cfg = Neo4jConfig.from_env(user="me")
    assert (cfg.uri, cfg.user, cfg.password, cfg.database, cfg.tls) == ("bolt+ssc://h:7687", "me", SECRET, "lit", True)
    again = Neo4jConfig.from_manifest(cfg.to_manifest())
    assert again.password == SECRET and again.database == "lit"  # the secret comes back from the environment only


# --- schema, batching, parameter shapes -----------------------------------------------------------------------
def test_schema_setup_sends_constraints_then_indexes(fake_store):
    store, driver = fake_store
    sent = [c["cypher"] for c in driver.server.calls if "cypher" in c]
    # read the stored schema first (none on a new database), then DDL, then store the schema
    assert sent[0] == statement("read_meta") and sent[-1] == statement("write_meta")
    sent = sent[1:-1]
    assert sent == NEO4J_STATEMENTS.ddl(HETIONET_SCHEMA)
    assert len(sent) == 16 + 16
    assert "CREATE CONSTRAINT gene_id IF NOT EXISTS FOR (n:Gene) REQUIRE n.id IS UNIQUE" in sent
    assert "CREATE INDEX passage_article_id IF NOT EXISTS FOR (n:Passage) ON (n.article_id)" in sent


def test_bulk_load_batches_rows_with_registry_statements(fake_store, sample_paths):
    from engram_kit.kg.hetionet import load_hetionet

    store, driver = fake_store
    kg = load_hetionet(sample_paths.nodes, sample_paths.edges, progress=False)
    nodes = kg.nodes[kg.nodes["kind"].isin(["Compound", "Disease", "Gene"])]
    edges = kg.edges[kg.edges["metaedge"].isin(["CtD", "CbG"])]
    driver.server.calls.clear()
    store.load_knowledge_graph(nodes, edges, progress=False)
    unwinds = [c for c in driver.server.calls if "cypher" in c and "$rows" in c["cypher"]]
    for label in ("Compound", "Disease", "Gene"):
        text = statement("copy_node_table", label=label)
        batches = [c["params"]["rows"] for c in unwinds if c["cypher"] == text]
        n = int((nodes["kind"] == label).sum())
        assert len(batches) == math.ceil(n / 1000) and sum(map(len, batches)) == n
        assert all(len(b) <= 1000 for b in batches)
        assert set(batches[0][0]) == {"id", "name", "identifier"}
    text = statement("copy_rel_table", rel_type="BINDS_CbG", source_label="Compound", target_label="Gene")
    batches = [c["params"]["rows"] for c in unwinds if c["cypher"] == text]
    assert sum(map(len, batches)) == int((edges["metaedge"] == "CbG").sum())
    row = batches[0][0]
    assert set(row) == {"source", "target", "sources", "license", "unbiased", "pubmed_ids"}
    assert row["source"].startswith("Compound::") and row["target"].startswith("Gene::")
    assert store.generation == 1


def _batch(article_id: str = "pubmed:1") -> LiteratureBatch:
    return LiteratureBatch(
        articles=[ArticleRecord(article_id, "pubmed", "A title", pmid="1", year=2020)],
        sections=[SectionRecord(f"{article_id}#s0", article_id, "Abstract", 0)],
        passages=[PassageRecord(f"{article_id}#p0", article_id, f"{article_id}#s0", "Donepezil treats AD.",
                                "pubmed", 0, pmid="1", year=2020, char_end=20)],
        nounphrases=[NounPhraseRecord("np:Compound:donepezil", "donepezil", "donepezil", "Compound")],
        mentions=[MentionEdge(f"{article_id}#p0", "np:Compound:donepezil", 2)],
        maps_to=[MapsToEdge("np:Compound:donepezil", "Compound::DB00843", 0.97, "exact")],
    )


def test_literature_batch_is_one_transaction_committed(fake_store):
    store, driver = fake_store
    driver.server.calls.clear()
    store.write_literature(_batch())
    begins = [c["begin"] for c in driver.server.calls if "begin" in c]
    assert len(begins) == 1 and begins[0].state == "committed" and begins[0].timeout == 300.0
    in_tx = [c for c in driver.server.calls if "cypher" in c]
    assert in_tx and all(c["tx"] is begins[0] for c in in_tx)
    merges = {c["cypher"]: c["params"] for c in in_tx}
    rows = merges[statement("merge_maps_to", label="Compound")]["rows"]
    assert rows == [{"nounphrase_id": "np:Compound:donepezil", "entity_id": "Compound::DB00843",
                     "confidence": 0.97, "method": "exact"}]
    passage_rows = merges[statement("create_passages")]["rows"]
    assert passage_rows[0]["idx"] == 0 and "index" not in passage_rows[0]
    assert store.generation == 1


def test_failed_batch_rolls_back_and_leaves_generation(fake_store):
    store, driver = fake_store
    driver.server.fail_on = "MERGE (n)-[r:MAPS_TO]->(e)"
    with pytest.raises(IngestionError, match="nothing of it is stored"):
        store.write_literature(_batch())
    begins = [c["begin"] for c in driver.server.calls if "begin" in c]
    assert [b.state for b in begins] == ["rolled back"]
    assert store.generation == 0


def test_read_only_store_refuses_writes_before_the_server(config):
    driver = FakeDriver()
    store = Neo4jStore(config, driver=driver, read_only=True, schema=HETIONET_SCHEMA)
    # opening reads the stored graph schema, in a READ session; nothing else may reach the server
    assert [(c["cypher"], c["access"]) for c in driver.server.calls] == [(statement("read_meta"), "READ")]
    driver.server.calls.clear()
    for call in (lambda: store.write_literature(_batch()), lambda: store.delete_article("pubmed:1"),
                 store.create_schema):
        with pytest.raises(ReadOnlyError):
            call()
    assert driver.server.calls == []


# --- EXPLAIN guard ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("query_type", ["rw", "w", "s"])
def test_guard_refuses_plans_that_are_not_read_only(fake_store, query_type):
    store, driver = fake_store
    driver.server.calls.clear()
    driver.server.plan_type = query_type
    with pytest.raises(QueryGuardError, match=f"type '{query_type}'"):
        store.read_query("MATCH (n:Gene) SET n.flag = true RETURN n")
    sent = [c["cypher"] for c in driver.server.calls if "cypher" in c]
    assert sent == ["EXPLAIN MATCH (n:Gene) SET n.flag = true RETURN n"]  # planned, never executed


def test_guard_runs_read_only_plans_in_read_session_with_caps(fake_store):
    import neo4j

    store, driver = fake_store
    driver.server.calls.clear()
    driver.server.rows = [{"id": f"Gene::{i}", "name": "x" * 50} for i in range(10)]
    result = store.read_query("MATCH (g:Gene) RETURN g.id AS id, g.name AS name", max_rows=3, timeout_s=2.5)
    assert len(result.frame) == 3 and result.truncated and result.query_type == "r"
    assert list(result.frame.columns) == ["id", "name"]
    session = driver.sessions[-1]
    assert session.access == neo4j.READ_ACCESS and session.database == "engram"
    tx = session.transactions[0]
    assert tx.timeout == 2.5 and tx.state == "rolled back"
    by_size = store.read_query("MATCH (g:Gene) RETURN g.id AS id, g.name AS name", max_bytes=200)
    assert by_size.truncated and 0 < len(by_size.frame) < 10 and by_size.bytes_read <= 200
    assert not store.read_query("MATCH (g:Gene) RETURN g.id AS id, g.name AS name").truncated
    with pytest.raises(QueryGuardError, match="without EXPLAIN"):
        store.read_query("EXPLAIN MATCH (n) RETURN n")


# --- GDS: call construction and the PPR engine ------------------------------------------------------------
class FakeGDS:
    """Records run_cypher calls; answers PageRank by solving it with the embedded solver on ``graph``,
    scaled by an arbitrary factor (GDS scores are not normalised)."""

    def __init__(self, graph=None, version=(2, 13, 0)):
        self.graph, self.calls, self.version = graph, [], version

    def server_version(self):
        return SimpleNamespace(major=self.version[0], minor=self.version[1], patch=self.version[2])

    def run_cypher(self, query, params=None):
        import pandas as pd

        self.calls.append((query, params))
        if query == statement("gds_graph_exists"):
            return pd.DataFrame({"exists": [False]})
        if query == statement("gds_project_retrieval_graph"):
            return pd.DataFrame({"graph_name": [params["graph_name"]], "node_count": [10], "relationship_count": [20]})
        if query.startswith("MATCH (n:") and "elementId" in query:
            return pd.DataFrame({"id": params["ids"], "element_id": [f"4:x:{i}" for i in params["ids"]]})
        if query == statement("gds_pagerank_stream"):
            index = self.graph.index
            seeds = {index[s["element_id"].split(":", 2)[2]]: s["weight"] for s in params["seeds"]}
            x = personalized_pagerank(self.graph, seeds, damping=params["damping_factor"], tol=1e-10,
                                      max_iter=params["max_iterations"]).scores * 3.7
            nz = np.flatnonzero(x > 0)
            return pd.DataFrame({"id": self.graph.node_ids[nz], "score": x[nz].astype(np.float64)})
        return pd.DataFrame()


def test_projection_lifecycle_sends_registry_statements():
    gds = FakeGDS()
    projection = GDSProjection(gds, name="ws_a", schema=HETIONET_SCHEMA)
    projection.ensure(1)
    projection.ensure(1)  # same data version: no re-projection
    projection.ensure(2)
    projection.drop()
    sent = [statement_name(q) for q, _ in gds.calls]
    assert sent == ["gds_graph_drop", "gds_project_retrieval_graph", "gds_graph_drop",
                    "gds_project_retrieval_graph", "gds_graph_drop"]
    assert all(p == {"graph_name": "ws_a"} for _, p in gds.calls)
    text = statement("gds_project_retrieval_graph")
    assert "undirectedRelationshipTypes: ['*']" in text and "relationshipProperties: {weight: weight}" in text
    assert "WHEN 'MAPS_TO' THEN r.confidence WHEN 'MENTIONS' THEN toFloat(r.count)" in text


def test_old_gds_is_refused():
    from engram_kit.errors import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match="too old"):
        GDSProjection(FakeGDS(version=(2, 3, 9)), schema=HETIONET_SCHEMA).project()


def statement_name(query: str) -> str:
    from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS

    return next((n for n in NEO4J_STATEMENTS.names() if n not in LADYBUG_STATEMENTS and statement(n) == query),
                "element_ids")


def test_pagerank_parameter_mapping():
    settings = Settings(damping=0.5, ppr_tol=1e-6, ppr_max_iter=100)
    assert pagerank_parameters(settings, 50_000) == {"damping_factor": 0.5, "tolerance": 2e-11, "max_iterations": 100}


def test_gds_engine_matches_embedded_ppr_on_the_sample_graph(workspace):
    index = workspace.graph_index()
    gds = FakeGDS(index.graph)
    engine = GDSPPREngine(GDSProjection(gds, schema=HETIONET_SCHEMA), version=lambda: 7)
    graph = index.graph
    seeds = {graph.index["Disease::DOID:10652"]: 0.7, graph.index["Compound::DB00843"]: 0.3}
    settings = Settings(progress=False)
    result = engine.run(index, seeds, settings)
    expected = personalized_pagerank(graph, seeds, damping=settings.damping, tol=1e-10).scores
    assert result.scores.shape == (graph.n_nodes,) and result.scores.dtype == np.float32
    assert abs(float(result.scores.sum()) - 1.0) < 1e-5
    assert np.abs(result.scores - expected).sum() < 1e-5
    assert result.converged and result.residual < 1e-5
    stream = [p for q, p in gds.calls if q == statement("gds_pagerank_stream")][0]
    assert stream["graph_name"] == "engram_retrieval"
    assert stream["tolerance"] == pytest.approx(settings.ppr_tol / graph.n_nodes)
    weights = sorted(s["weight"] for s in stream["seeds"])
    assert weights == pytest.approx([0.3, 0.7]) and all(s["element_id"].startswith("4:x:") for s in stream["seeds"])


def test_retriever_on_gds_engine_ranks_like_the_embedded_one(workspace):
    from engram_kit.cli import DEMO_QUESTION

    base = workspace.retriever()
    index = workspace.graph_index()
    gds_retriever = Retriever(store=base.store, vectors=base.vectors, index=workspace.graph_index,
                              extractor=base.extractor, resolver=base.resolver, embedder=base.embedder,
                              settings=base.settings,
                              ppr_engine=GDSPPREngine(GDSProjection(FakeGDS(index.graph), schema=HETIONET_SCHEMA)))
    a, b = base.retrieve(DEMO_QUESTION), gds_retriever.retrieve(DEMO_QUESTION)
    assert a.entities and [p.passage_id for p in a.passages] == [p.passage_id for p in b.passages]
    assert list(a.subgraph_nodes["id"][:10]) == list(b.subgraph_nodes["id"][:10])


def test_close_drops_the_projection_and_the_driver(fake_store):
    store, driver = fake_store
    gds = FakeGDS()
    engine = store.ppr_engine(gds=gds)
    engine.projection.ensure(store.generation)
    gds.calls.clear()
    store.close()
    assert [statement_name(q) for q, _ in gds.calls] == ["gds_graph_drop"] and driver.closed
    store.close()  # idempotent
