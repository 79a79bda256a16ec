"""Tests of the embedded LadybugDB store and the Cypher registry, on a real Hetionet slice.

The slice: from the bundled edge sample (``data/hetionet``, or the shared development files), the 250
best-connected nodes of each kind plus 30 edge-less nodes of every kind, and every sample edge among them
(~2k nodes, ~24k edges of 18 metaedges). Expected counts are computed from the input frames with pandas,
independently of the store. The knowledge graph is loaded once per module; each test gets a copy of the
database file.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import (
    DataError,
    IngestionError,
    QueryError,
    ReadOnlyError,
    WorkspaceError,
    WorkspaceLockedError,
)
from engram_kit.kg.schema import HETIONET_SCHEMA, NODE_KINDS, metaedge
from engram_kit.records import (
    ArticleRecord,
    LiteratureBatch,
    MapsToEdge,
    MentionEdge,
    NounPhraseRecord,
    PassageRecord,
    SameAsEdge,
    SectionRecord,
)
from engram_kit.store.cypher import (
    DOMAIN_LABELS,
    DOMAIN_REL_TYPES,
    LITERATURE_LABELS,
    LITERATURE_REL_TYPES,
)
from engram_kit.store.ladybug import LadybugStore
from engram_kit.store.statements import FRAGMENTS, pack_named
from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS, LadybugStatements
from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "data" / "hetionet"
SHARED = REPO.parent / "shared" / "data" / "hetionet"
CANDIDATES = [
    (BUNDLED / "hetionet-v1.0-nodes.tsv.gz", BUNDLED / "hetionet-v1.0-edges-sample.tsv.gz"),
    (SHARED / "hetionet-v1.0-nodes.tsv.gz", SHARED / "hetionet-v1.0-edges-partial.tsv.gz"),
]
PROPERTY_COLUMNS = ("sources", "license", "unbiased", "pubmed_ids")


# --- real-data fixtures ------------------------------------------------------------------------------
def _flatten(text: str) -> dict[str, str]:
    """Edge ``properties`` JSON -> the store's four string properties (lists ``|``-joined, "" if absent)."""
    out = dict.fromkeys(PROPERTY_COLUMNS, "")
    if not text:
        return out
    data = json.loads(text)
    values = {"sources": data.get("sources", data.get("source")), "license": data.get("license"),
              "unbiased": data.get("unbiased"), "pubmed_ids": data.get("pubmed_ids")}
    for key, value in values.items():
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, list):
            out[key] = "|".join(map(str, value))
        elif value is not None:
            out[key] = str(value)
    return out


@pytest.fixture(scope="module")
def kg_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(nodes, edges) frames of a ~2k-node real Hetionet slice, in the store's input layout."""
    found = next(((n, e) for n, e in CANDIDATES if n.exists() and e.exists()), None)
    if found is None:
        pytest.skip("no Hetionet files in data/hetionet or ../shared/data/hetionet")
    nodes_path, edges_path = found
    with gzip.open(nodes_path, "rt") as handle:
        nodes = pd.read_csv(handle, sep="\t", dtype=str, keep_default_na=False)
    with gzip.open(edges_path, "rt") as handle:
        edges = pd.read_csv(handle, sep="\t", dtype=str, keep_default_na=False, nrows=150_000)
    degree = pd.concat([edges["source"], edges["target"]]).value_counts()
    nodes["degree"] = nodes["id"].map(degree).fillna(0)
    ranked = nodes.sort_values(["degree", "id"], ascending=[False, True])
    connected = ranked[ranked["degree"] > 0].groupby("kind").head(250)
    isolated = ranked[ranked["degree"] == 0].groupby("kind").head(30)
    keep = pd.concat([connected, isolated])
    ids = set(keep["id"])
    edges = edges[edges["source"].isin(ids) & edges["target"].isin(ids)].reset_index(drop=True)
    props = pd.DataFrame([_flatten(t) for t in edges["properties"]], columns=list(PROPERTY_COLUMNS))
    edges = pd.concat([edges.drop(columns=["properties"]), props], axis=1)
    keep = keep.assign(identifier=keep["id"].str.split("::", n=1).str[1])[["id", "kind", "identifier", "name"]]
    return keep.reset_index(drop=True), edges


@pytest.fixture(scope="module")
def loaded_db(kg_frames, tmp_path_factory) -> Path:
    """A closed database file holding the slice (loaded once per module)."""
    nodes, edges = kg_frames
    path = tmp_path_factory.mktemp("loaded") / "graph.lbug"
    with LadybugStore(path, schema=HETIONET_SCHEMA) as store:
        store.load_knowledge_graph(nodes, edges, progress=False)
    return path


def _copy_db(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for file in source.parent.glob(source.name + "*"):
        shutil.copy(file, folder / file.name)
    return folder / source.name


@pytest.fixture
def db_path(loaded_db, tmp_path) -> Path:
    """A private copy of the loaded database for one test."""
    return _copy_db(loaded_db, tmp_path / "copy")


@pytest.fixture
def store(db_path):
    with LadybugStore(db_path, schema=HETIONET_SCHEMA) as opened:
        yield opened


# --- literature fixtures ---------------------------------------------------------------------------------
def _genes(kg_frames, n: int) -> list[tuple[str, str]]:
    nodes = kg_frames[0]
    genes = nodes[nodes["kind"] == "Gene"].head(n)
    return list(zip(genes["id"], genes["name"]))


def _article(aid: str, n_passages: int, mentions: list[tuple[int, str]], year: int | None = 2019) -> LiteratureBatch:
    """One article with one section and ``n_passages`` passages; ``mentions``: (passage index, NounPhrase id)."""
    pmid = aid.split(":", 1)[1]
    batch = LiteratureBatch(
        articles=[ArticleRecord(aid, "pubmed", f"Title of {aid}", pmid=pmid, year=year, authors="A. Author")],
        sections=[SectionRecord(f"{aid}#s0", aid, "Abstract", 0)],
    )
    for i in range(n_passages):
        batch.passages.append(PassageRecord(
            f"{aid}#p{i}", aid, f"{aid}#s0", f"Passage {i} of {aid}.", "pubmed", i, pmid=pmid,
            title=f"Title of {aid}", year=year, section_title="Abstract", char_start=100 * i, char_end=100 * i + 50,
        ))
    batch.mentions = [MentionEdge(f"{aid}#p{i}", np_id, 1) for i, np_id in mentions]
    return batch


def _nounphrase(name: str, entity_type: str = "gene") -> NounPhraseRecord:
    return NounPhraseRecord(f"np:{entity_type}:{name.lower()}", name, name.lower(), entity_type)


@pytest.fixture
def two_articles(kg_frames) -> tuple[LiteratureBatch, LiteratureBatch]:
    """Two single-article batches sharing the NounPhrase of the first gene; each has one private NounPhrase."""
    (g1, n1), (g2, n2), (g3, n3) = _genes(kg_frames, 3)
    shared, only_a, only_b = _nounphrase(n1), _nounphrase(n2), _nounphrase(n3)
    unlinked = _nounphrase("neuroinflammation", "process")
    a = _article("pubmed:101", 2, [(0, shared.id), (1, only_a.id), (1, unlinked.id)])
    a.nounphrases = [shared, only_a, unlinked]
    a.maps_to = [MapsToEdge(shared.id, g1, 0.95, "exact"), MapsToEdge(only_a.id, g2, 0.8, "synonym")]
    b = _article("pubmed:202", 3, [(0, shared.id), (2, only_b.id)])
    b.nounphrases = [shared, only_b]
    b.maps_to = [MapsToEdge(shared.id, g1, 0.95, "exact"), MapsToEdge(only_b.id, g3, 0.7, "fuzzy")]
    b.same_as = [SameAsEdge(only_b.id, shared.id)]
    return a, b


def _literature_counts(store: LadybugStore) -> dict[str, int]:
    counts = store.counts()
    return {k: counts[k] for k in LITERATURE_LABELS + LITERATURE_REL_TYPES}


# --- statement packs -----------------------------------------------------------------------------------------
def test_the_embedded_pack_has_every_statement_the_server_pack_has_but_gds():
    """Every statement the shared store code runs exists in both packs; only Neo4j's GDS/element-id calls and the
    LadybugDB bulk/frame forms are one-sided."""
    neo4j_only = set(NEO4J_STATEMENTS.names()) - set(LADYBUG_STATEMENTS.names())
    assert neo4j_only == {"element_ids", "gds_graph_exists", "gds_graph_drop", "gds_project_retrieval_graph",
                          "gds_project_estimate", "gds_pagerank_stream", "gds_pagerank_stream_uniform"}
    ladybug_only = set(LADYBUG_STATEMENTS.names()) - set(NEO4J_STATEMENTS.names())
    assert ladybug_only == {"copy_rel_table_pair"} | {n for n in LADYBUG_STATEMENTS.names() if n.startswith("load_")}
    assert LadybugStore.statements is LADYBUG_STATEMENTS and pack_named("neo4j") is NEO4J_STATEMENTS


def test_statement_fills_schema_identifiers_only():
    assert LADYBUG_STATEMENTS.statement("count_nodes", label="Gene", schema=HETIONET_SCHEMA) == \
        "MATCH (n:Gene) RETURN count(n) AS n"
    with pytest.raises(DataError, match="not a label or relationship type"):
        LADYBUG_STATEMENTS.statement("count_nodes", label="Gene) DETACH DELETE (n", schema=HETIONET_SCHEMA)
    # no graph format is assumed: a domain label, or a statement filled from the schema, needs the schema
    with pytest.raises(DataError, match="needs the graph schema"):
        LADYBUG_STATEMENTS.statement("count_nodes", label="Gene")
    with pytest.raises(DataError, match="needs the graph schema"):
        LADYBUG_STATEMENTS.statement("edges_among")
    assert LADYBUG_STATEMENTS.statement("count_nodes", label="Passage") == "MATCH (n:Passage) RETURN count(n) AS n"
    for no_schema in (LADYBUG_STATEMENTS.schema_statements, NEO4J_STATEMENTS.ddl, NEO4J_STATEMENTS.index_statements):
        with pytest.raises(DataError, match="needs the graph schema"):
            no_schema()
    with pytest.raises(QueryError, match="The ladybug statement pack has no Cypher statement 'no_such_statement'"):
        LADYBUG_STATEMENTS.statement("no_such_statement")
    with pytest.raises(QueryError, match="has no Cypher statement 'gds_graph_drop'"):
        LADYBUG_STATEMENTS.statement("gds_graph_drop")
    with pytest.raises(QueryError, match="No statement pack 'cypher9'"):
        pack_named("cypher9")


def test_fragments_are_each_dialects_own_text():
    """The desk's dialect pieces come from the packs: LadybugDB's string_split/list_slice/label(), Neo4j's
    split/[0..n]/type()/labels()[0]; a pack missing one, or using other slots, is refused when it is built."""
    assert LADYBUG_STATEMENTS.fragment("split_count", expr="r.sources") == \
        "CASE WHEN r.sources IS NULL OR r.sources = '' THEN 0 ELSE size(string_split(r.sources, '|')) END"
    assert NEO4J_STATEMENTS.fragment("split_count", expr="r.sources") == \
        "CASE WHEN r.sources IS NULL OR r.sources = '' THEN 0 ELSE size(split(r.sources, '|')) END"
    assert LADYBUG_STATEMENTS.fragment("first_distinct", expr="v.id", n=3) == "list_slice(collect(DISTINCT v.id), 0, 3)"
    assert [p.fragment("rel_type", rel="r") for p in (LADYBUG_STATEMENTS, NEO4J_STATEMENTS)] == ["label(r)", "type(r)"]
    assert NEO4J_STATEMENTS.fragment("node_label", node="e") == "labels(e)[0]"
    with pytest.raises(QueryError, match="takes slots"):
        NEO4J_STATEMENTS.fragment("rel_type", node="r")
    with pytest.raises(QueryError, match="lacks the fragment 'node_label'"):
        LadybugStatements("broken", {}, prompt_note="",
                          fragments={k: v for k, v in LADYBUG_STATEMENTS.fragments.items() if k != "node_label"})
    with pytest.raises(QueryError, match="must use exactly"):
        LADYBUG_STATEMENTS.derive("broken", fragments={"rel_type": "label(x)"})
    assert set(FRAGMENTS) == set(LADYBUG_STATEMENTS.fragments) == set(NEO4J_STATEMENTS.fragments)


def test_the_deprecated_dialect_functions_still_answer():
    from engram_kit.store import schema_statements, statement

    with pytest.warns(DeprecationWarning, match="store.statements"):
        assert statement("count_nodes", "neo4j", label="Gene", schema=HETIONET_SCHEMA) == \
            NEO4J_STATEMENTS.statement("count_nodes", label="Gene", schema=HETIONET_SCHEMA)
    with pytest.warns(DeprecationWarning):
        assert schema_statements("ladybug", HETIONET_SCHEMA) == LADYBUG_STATEMENTS.schema_statements(HETIONET_SCHEMA)


def test_schema_statements_cover_the_graph_model():
    ddl = LADYBUG_STATEMENTS.schema_statements(HETIONET_SCHEMA)
    assert len(ddl) == 11 + 4 + 1 + 24 + 5  # domain, literature, metadata, metaedges, literature rels
    assert any(s.startswith("CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Passage TO NounPhrase, "
                            "FROM Section TO NounPhrase, FROM Article TO NounPhrase, count INT64)") for s in ddl)
    maps_to = next(s for s in ddl if " MAPS_TO(" in s)
    assert all(f"TO {label}" in maps_to for label in DOMAIN_LABELS)
    assert len(NEO4J_STATEMENTS.schema_statements(HETIONET_SCHEMA)) == 16
    assert len(NEO4J_STATEMENTS.index_statements(HETIONET_SCHEMA)) == 16
    assert LADYBUG_STATEMENTS.ddl(HETIONET_SCHEMA) == ddl and LADYBUG_STATEMENTS.index_statements(HETIONET_SCHEMA) == []


# --- knowledge graph load ------------------------------------------------------------------------------------
def test_counts_match_the_input_frames(store, kg_frames):
    nodes, edges = kg_frames
    counts = store.counts()
    expected_nodes = nodes["kind"].map(NODE_KINDS).value_counts().to_dict()
    expected_rels = edges["metaedge"].map(lambda m: metaedge(m).rel_type).value_counts().to_dict()
    for label in DOMAIN_LABELS:
        assert counts[label] == expected_nodes.get(label, 0), label
    for rel in DOMAIN_REL_TYPES:
        assert counts[rel] == expected_rels.get(rel, 0), rel
    assert all(counts[k] == 0 for k in LITERATURE_LABELS + LITERATURE_REL_TYPES)
    assert sum(counts[label] for label in DOMAIN_LABELS) == len(nodes)


def test_edges_are_stored_with_their_properties(store, kg_frames):
    edges = kg_frames[1]
    row = edges[(edges["metaedge"] == "CbG") & (edges["pubmed_ids"] != "")].iloc[0]
    got = store.query("MATCH (a:Compound {id: $s})-[r:BINDS_CbG]->(b:Gene {id: $t}) "
                      "RETURN r.sources AS sources, r.license AS license, r.pubmed_ids AS pubmed_ids",
                      {"s": row["source"], "t": row["target"]})
    assert got.iloc[0].to_dict() == {"sources": row["sources"], "license": row["license"],
                                     "pubmed_ids": row["pubmed_ids"]}


def test_domain_edges_and_node_ids_roundtrip(store, kg_frames):
    nodes, edges = kg_frames
    got = store.domain_edges()
    expected = edges.assign(rel_type=edges["metaedge"].map(lambda m: metaedge(m).rel_type))
    key = ["source", "target", "rel_type"]
    pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True),
                                  expected[key].sort_values(key).reset_index(drop=True), check_dtype=False)
    by_label = store.node_ids_by_label()
    assert sorted(by_label["Gene"]) == sorted(nodes.loc[nodes["kind"] == "Gene", "id"])
    assert by_label["NounPhrase"] == []


def test_edges_among_equals_pandas_filter(store, kg_frames):
    nodes, edges = kg_frames
    hubs = pd.concat([edges["source"], edges["target"]]).value_counts().index[:20].tolist()
    ids = hubs + nodes["id"].sample(100, random_state=0).tolist()
    inside = edges[edges["source"].isin(ids) & edges["target"].isin(ids)]
    expected = set(zip(inside["source"], inside["target"], inside["metaedge"].map(lambda m: metaedge(m).rel_type)))
    got = store.edges_among(ids)
    assert list(got.columns[:3]) == ["source", "target", "rel_type"]  # then the schema's edge properties
    assert set(map(tuple, got[["source", "target", "rel_type"]].to_numpy())) == expected
    assert len(got) == len(expected) > 0
    assert store.edges_among(ids[:1]).empty


def test_get_nodes_mixed_labels_and_unknown_ids(store, kg_frames):
    nodes = kg_frames[0]
    sample = nodes.groupby("kind").head(1)
    got = store.get_nodes([*sample["id"], "Gene::does-not-exist", "garbage", "np:gene:nothing"])
    assert set(got["id"]) == set(sample["id"])
    assert dict(zip(got["id"], got["name"])) == dict(zip(sample["id"], sample["name"]))
    assert dict(zip(got["id"], got["label"])) == dict(zip(sample["id"], sample["kind"].map(NODE_KINDS)))


def test_second_load_is_refused(store, kg_frames):
    with pytest.raises(DataError, match="already holds a knowledge graph"):
        store.load_knowledge_graph(*kg_frames, progress=False)


def test_load_rejects_an_edge_to_a_node_of_the_wrong_kind(tmp_path, kg_frames):
    nodes, edges = kg_frames
    bad = edges.head(5).copy()
    bad.loc[bad.index[0], "metaedge"] = "CtD"  # endpoints no longer Compound -> Disease
    bad.loc[bad.index[0], "source"] = nodes.loc[nodes["kind"] == "Gene", "id"].iloc[0]
    with LadybugStore(tmp_path / "g.lbug", schema=HETIONET_SCHEMA) as fresh:
        with pytest.raises(DataError, match=r"CtD edges have a source that is not a node of an allowed kind \(Compound->Disease\)"):
            fresh.load_knowledge_graph(nodes, bad, progress=False)
        assert sum(fresh.counts().values()) == 0  # validated before any COPY


# --- literature layer --------------------------------------------------------------------------------------
def test_literature_roundtrip(store, two_articles):
    a, b = two_articles
    store.write_literature(a)
    store.write_literature(b)
    counts = _literature_counts(store)
    assert counts == {"Article": 2, "Section": 2, "Passage": 5, "NounPhrase": 4, "HAS_SECTION": 2, "CONTAINS": 5,
                      "MENTIONS": 5, "MAPS_TO": 3, "SAME_AS": 1}
    passages = store.get_passages([p.id for p in a.passages] + ["pubmed:0#p0"]).set_index("id")
    for record in a.passages:
        row = passages.loc[record.id]
        for field in ("article_id", "section_id", "text", "source", "index", "pmid", "title", "year",
                      "section_title", "char_start", "char_end"):
            assert row[field] == getattr(record, field), field
        assert pd.isna(row["page_start"])
    articles = store.articles().set_index("id")
    assert articles.loc["pubmed:202", "passages"] == 3 and articles.loc["pubmed:101", "year"] == 2019
    assert store.articles(source="uploaded").empty


def test_passage_mentions_and_literature_edges(store, two_articles, kg_frames):
    a, b = two_articles
    store.write_literature(a)
    store.write_literature(b)
    (g1, n1), _, _ = _genes(kg_frames, 3)
    mentions = store.passage_mentions(["pubmed:101#p0", "pubmed:101#p1"])
    assert list(mentions.columns) == ["passage_id", "nounphrase_id", "mention", "entity_id", "entity_name",
                                      "entity_label", "confidence", "method"]
    linked = mentions[mentions["passage_id"] == "pubmed:101#p0"].iloc[0]
    assert (linked["entity_id"], linked["entity_name"], linked["entity_label"]) == (g1, n1, "Gene")
    unlinked = mentions[mentions["nounphrase_id"] == "np:process:neuroinflammation"].iloc[0]
    assert unlinked["entity_id"] == "" and pd.isna(unlinked["confidence"])
    edges = store.literature_edges()
    assert edges.groupby("rel_type").size().to_dict() == {"MAPS_TO": 3, "MENTIONS": 5, "SAME_AS": 1}
    assert edges.loc[edges["rel_type"] == "MAPS_TO", "weight"].between(0, 1).all()


def test_rewriting_a_batch_is_idempotent(store, two_articles):
    a, b = two_articles
    batch = LiteratureBatch()
    batch.extend(a)
    batch.extend(b)
    store.write_literature(batch)
    first_counts, first_edges = _literature_counts(store), store.literature_edges()
    store.write_literature(batch)
    assert _literature_counts(store) == first_counts
    key = ["source", "target", "rel_type"]
    pd.testing.assert_frame_equal(store.literature_edges().sort_values(key).reset_index(drop=True),
                                  first_edges.sort_values(key).reset_index(drop=True), check_dtype=False)


def test_nounphrase_is_merged_across_articles(store, two_articles):
    a, b = two_articles
    store.write_literature(a)
    store.write_literature(b)
    shared = a.nounphrases[0].id
    got = store.query("MATCH (p:Passage)-[:MENTIONS]->(n:NounPhrase {id: $id}) RETURN p.article_id AS article",
                      {"id": shared})
    assert sorted(got["article"]) == ["pubmed:101", "pubmed:202"]
    assert store.counts()["NounPhrase"] == 4


def test_replacing_an_article_drops_old_passages_and_orphans(store, two_articles, kg_frames):
    a, _ = two_articles
    store.write_literature(a)
    shorter = _article("pubmed:101", 1, [(0, a.nounphrases[0].id)])
    shorter.nounphrases = [a.nounphrases[0]]
    store.write_literature(shorter)
    counts = _literature_counts(store)
    assert (counts["Passage"], counts["NounPhrase"], counts["MENTIONS"], counts["MAPS_TO"]) == (1, 1, 1, 1)


def test_delete_article_keeps_shared_nounphrases(store, two_articles):
    a, b = two_articles
    store.write_literature(a)
    store.write_literature(b)
    assert store.delete_article("pubmed:101") == 2
    remaining = set(store.node_ids_by_label()["NounPhrase"])
    assert remaining == {np.id for np in b.nounphrases}  # shared kept, a's private ones removed
    assert store.get_passages([p.id for p in a.passages]).empty
    assert store.delete_article("pubmed:101") == 0
    assert store.delete_article("pubmed:202") == 3
    assert _literature_counts(store) == dict.fromkeys(LITERATURE_LABELS + LITERATURE_REL_TYPES, 0)


def test_failed_batch_is_rolled_back(store, two_articles):
    a, b = two_articles
    store.write_literature(a)
    before = store.counts()
    b.maps_to.append(MapsToEdge(b.nounphrases[1].id, "Gene::999999999", 0.9, "exact"))
    with pytest.raises(IngestionError, match=r"pubmed:202.*Gene::999999999"):
        store.write_literature(b)
    assert store.counts() == before
    assert store.articles()["id"].tolist() == ["pubmed:101"]


def test_failed_replacement_keeps_the_previous_version(store, two_articles, monkeypatch):
    a, _ = two_articles
    store.write_literature(a)
    before, before_edges = store.counts(), store.literature_edges()
    original = LadybugStore._run_rows

    def failing(self, name, rows, **identifiers):
        # create_passages runs after the stored version was deleted (a rewrite of identical MAPS_TO edges
        # sends no MAPS_TO statement on LadybugDB, so the failure is injected into a write every batch has)
        if name == "create_passages":
            raise QueryError("injected failure")
        return original(self, name, rows, **identifiers)

    monkeypatch.setattr(LadybugStore, "_run_rows", failing)
    with pytest.raises(IngestionError, match=r"pubmed:101.*injected failure"):
        store.write_literature(a)
    monkeypatch.undo()
    assert store.counts() == before
    assert len(store.literature_edges()) == len(before_edges)
    store.write_literature(a)  # the store is still usable after the rollback
    assert store.counts() == before


def test_invalid_batches_are_refused_before_writing(store, two_articles):
    a, _ = two_articles
    a.passages.append(a.passages[0])
    with pytest.raises(IngestionError, match="duplicated passage ids"):
        store.write_literature(a)
    orphan = _article("pubmed:303", 1, [])
    orphan.sections = []
    with pytest.raises(IngestionError, match="passages"):
        store.write_literature(orphan)
    assert store.counts()["Article"] == 0


def test_set_article_status(store, two_articles):
    a, _ = two_articles
    store.write_literature(a)
    store.set_article_status("pubmed:101", "error", "PDF had no text layer")
    row = store.articles().iloc[0]
    assert (row["status"], row["error"]) == ("error", "PDF had no text layer")
    with pytest.raises(DataError, match="unknown"):
        store.set_article_status("pubmed:101", "done")
    with pytest.raises(DataError, match="not in the store"):
        store.set_article_status("pubmed:999", "complete")


def test_write_1000_articles_in_one_batch(store, kg_frames):
    # Throughput is measured by benchmarks/store_load.py; here: a large batch is written completely.
    genes = _genes(kg_frames, 200)
    batch = LiteratureBatch()
    batch.nounphrases = [_nounphrase(name) for _, name in genes]
    batch.maps_to = [MapsToEdge(np.id, gid, 0.9, "exact") for np, (gid, _) in zip(batch.nounphrases, genes)]
    for i in range(1000):
        article = _article(f"pubmed:{500000 + i}", 1, [(0, batch.nounphrases[(i + k) % 200].id) for k in range(10)])
        batch.articles += article.articles
        batch.sections += article.sections
        batch.passages += article.passages
        batch.mentions += article.mentions
    store.write_literature(batch)
    counts = store.counts()
    assert counts["MENTIONS"] == 10_000 and counts["Passage"] >= 1_000


# --- access modes ------------------------------------------------------------------------------------------
def test_read_only_store_refuses_every_write(db_path, two_articles):
    a, _ = two_articles
    with LadybugStore(db_path, schema=HETIONET_SCHEMA) as writer:
        writer.write_literature(a)
    with LadybugStore(db_path, read_only=True) as reader:
        assert reader.counts()["Article"] == 1
        for call in (lambda: reader.write_literature(a), lambda: reader.delete_article("pubmed:101"),
                     lambda: reader.set_article_status("pubmed:101", "error"), reader.create_schema,
                     lambda: reader.load_knowledge_graph(pd.DataFrame(), pd.DataFrame())):
            with pytest.raises(ReadOnlyError, match="read-only"):
                call()
        with pytest.raises(ReadOnlyError):
            reader.query("CREATE (:NounPhrase {id: 'np:x:y'})")
        assert reader.counts()["NounPhrase"] == 3


def test_read_only_needs_an_existing_database(tmp_path):
    with pytest.raises(WorkspaceError, match="cannot create one"):
        LadybugStore(tmp_path / "missing.lbug", read_only=True)


def test_query_errors_and_close(store):
    assert store.query("MATCH (g:Gene) RETURN count(g) AS n")["n"].iloc[0] > 0
    with pytest.raises(QueryError, match="LadybugDB failed"):
        store.query("MATCH (g:NoSuchLabel) RETURN g")
    store.close()
    store.close()  # idempotent
    with pytest.raises(WorkspaceError, match="closed"):
        store.counts()


_HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram_kit.store.ladybug import LadybugStore
    store = LadybugStore(Path(sys.argv[1]))
    print("ready", flush=True)
    sys.stdin.read()   # hold the lock until the test closes our stdin
    store.close()
""")


def test_second_writer_gets_a_lock_error_but_readers_may_open(db_path):
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(WorkspaceLockedError) as info:
            LadybugStore(db_path, schema=HETIONET_SCHEMA)
        message = str(info.value)
        assert "another process" in message and "read_only=True" in message
        with LadybugStore(db_path, read_only=True) as reader:  # read-only opens take no lock
            assert reader.counts()["Gene"] > 0
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    with LadybugStore(db_path, schema=HETIONET_SCHEMA) as writer:  # the lock is released with the holder
        assert writer.counts()["Gene"] > 0


_TRY_WRITE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram_kit.errors import WorkspaceLockedError
    from engram_kit.store.ladybug import LadybugStore
    try:
        LadybugStore(Path(sys.argv[1])).close()
        print("OPENED")
    except WorkspaceLockedError:
        print("LOCKED")
""")


def test_in_process_reader_shares_the_writer_and_keeps_its_lock(db_path):
    """Closing a second LadybugDB Database of a file drops the process's fcntl lock; stores share one."""
    with LadybugStore(db_path, schema=HETIONET_SCHEMA) as writer:
        reader = LadybugStore(db_path, read_only=True)
        with pytest.raises(ReadOnlyError):
            reader.query("CREATE (:NounPhrase {id: 'np:x:y', name: 'y'})")
        assert reader.counts()["Gene"] == writer.counts()["Gene"] and writer.counts()["NounPhrase"] == 0
        reader.close()
        probe = subprocess.run([sys.executable, "-c", _TRY_WRITE, str(db_path)], capture_output=True, text=True,
                               cwd=REPO, timeout=900)
        assert probe.stdout.strip() == "LOCKED", probe.stderr
        assert writer.counts()["Gene"] > 0  # the writer is unaffected by the reader's close


def test_reading_the_database_file_in_the_writer_process_keeps_the_lock(db_path, tmp_path):
    """LadybugDB's fcntl lock is dropped when the process closes any descriptor of the file: a byte read or a
    shutil.copytree of the workspace in the writer's process let a second process open it for writing (the
    e2e suite's browser fixture copies the session workspace this way). The flock writer lock holds."""
    import shutil

    with LadybugStore(db_path, schema=HETIONET_SCHEMA) as writer:
        with open(db_path, "rb") as handle:  # what a copy or a scan of the workspace does
            handle.read(16)
        shutil.copytree(db_path.parent, tmp_path / "snapshot")
        probe = subprocess.run([sys.executable, "-c", _TRY_WRITE, str(db_path)], capture_output=True, text=True,
                               cwd=REPO, timeout=900)
        assert probe.stdout.strip() == "LOCKED", probe.stderr
        assert writer.counts()["Gene"] > 0
    # closed: the lock is gone with the writer
    probe = subprocess.run([sys.executable, "-c", _TRY_WRITE, str(db_path)], capture_output=True, text=True,
                           cwd=REPO, timeout=900)
    assert probe.stdout.strip() == "OPENED", probe.stderr


def test_writer_after_in_process_reader_is_refused(db_path):
    with LadybugStore(db_path, read_only=True):
        with pytest.raises(WorkspaceError, match="already has the graph database"):
            LadybugStore(db_path, schema=HETIONET_SCHEMA)
    LadybugStore(db_path, schema=HETIONET_SCHEMA).close()
