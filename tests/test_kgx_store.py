"""The schema-driven store holding a Biolink KGX graph (issue 9 item 2): tables derived from the data, the schema
stored with the data, negated assertions kept but out of PPR, export/round trip keeping every KGX property."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engram_kit.errors import DataError, WorkspaceError
from engram_kit.kg.kgx import load_kgx
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS
from engram_kit.store.ladybug import LadybugStore

KGX = Path(__file__).parents[1] / "data" / "kgx"
SHH = "Gene::HGNC:10848"


@pytest.fixture(scope="module")
def kg():
    return load_kgx(KGX / "graph_nodes.tsv", KGX / "graph_edges.tsv", progress=False)


@pytest.fixture()
def store(tmp_path, kg):
    with LadybugStore(tmp_path / "graph.lbug", schema=kg.schema) as s:
        s.load_knowledge_graph(kg.nodes, kg.edges, progress=False)
        yield s


def _with_one_negated(kg, rel_type: str = "HAS_PHENOTYPE"):
    """A copy of the sample's edges with the first ``rel_type`` edge of SHH marked negated (a test construct:
    the bundled sample has no negated assertion)."""
    edges = kg.edges.copy()
    index = edges.index[(edges["source"] == SHH) & (edges["rel_type"] == rel_type)][0]
    edges.loc[index, "negated"] = True
    return edges, edges.loc[index]


def test_tables_come_from_the_data(store, kg):
    counts = store.counts()
    assert counts["Gene"] == int((kg.nodes["kind"] == "Gene").sum()) == 178
    assert counts["PhenotypicFeature"] == int((kg.nodes["kind"] == "PhenotypicFeature").sum())
    assert counts["HAS_PHENOTYPE"] == int((kg.edges["rel_type"] == "HAS_PHENOTYPE").sum())
    assert "Compound" not in counts and "BINDS_CbG" not in counts  # no Hetionet tables in a KGX store
    # one rel table per predicate, holding every observed label pair (copied pair by pair)
    pairs = store.query("MATCH (a)-[r:HAS_PHENOTYPE]->(b) RETURN DISTINCT label(a) AS a, label(b) AS b")
    assert set(zip(pairs["a"], pairs["b"])) == {("Gene", "PhenotypicFeature"), ("Disease", "PhenotypicFeature")}
    node = store.query("MATCH (n:Gene) WHERE n.id = $id RETURN n.identifier AS curie, n.in_taxon AS taxon, "
                       "n.category AS category", {"id": SHH})
    assert node.iloc[0].to_dict() == {"curie": "HGNC:10848", "taxon": "NCBITaxon:9606", "category": "biolink:Gene"}


def test_the_schema_is_stored_with_the_data(tmp_path, kg):
    with LadybugStore(tmp_path / "g.lbug", schema=kg.schema) as s:
        s.load_knowledge_graph(kg.nodes, kg.edges, progress=False)
    with LadybugStore(tmp_path / "g.lbug", read_only=True) as ro:  # a dashboard is not told the schema
        assert ro.schema == kg.schema and ro.schema.name == "kgx"
        assert ro.get_nodes([SHH])["name"].tolist() == ["SHH (human)"]
    with pytest.raises(WorkspaceError, match="holds a kgx graph"):
        LadybugStore(tmp_path / "g.lbug", schema=HETIONET_SCHEMA)


def test_negated_edges_are_stored_but_not_traversed(tmp_path, kg):
    edges, negated = _with_one_negated(kg)
    with LadybugStore(tmp_path / "g.lbug", schema=kg.schema) as s:
        s.load_knowledge_graph(kg.nodes, edges, progress=False)
        stored = s.query("MATCH (a)-[r:HAS_PHENOTYPE]->(b) WHERE r.negated = true RETURN a.id AS a, b.id AS b")
        assert list(zip(stored["a"], stored["b"])) == [(negated["source"], negated["target"])]
        asserted, everything = s.domain_edges(), s.domain_edges(include_negated=True)
        assert len(everything) == len(kg.edges) and len(asserted) == len(kg.edges) - 1
        key = set(zip(asserted["source"], asserted["target"], asserted["rel_type"]))
        assert (negated["source"], negated["target"], "HAS_PHENOTYPE") not in key


def test_ppr_never_spreads_through_a_negated_assertion(tmp_path, kg):
    """A phenotype reached from SHH only through a negated edge gets no PPR mass from an SHH seed."""
    from engram_kit.workspace import Workspace

    edges = kg.edges.copy()
    degree = pd.concat([edges["source"], edges["target"]]).value_counts()
    leaf = edges[(edges["source"] == SHH) & (edges["rel_type"] == "HAS_PHENOTYPE")
                 & edges["target"].map(degree).eq(1)].index[0]
    edges.loc[leaf, "negated"] = True
    graph = type(kg)(kg.nodes, edges, kg.report, kg.name, kg.version, kg.schema)
    with Workspace.create(tmp_path / "ws", graph=graph) as ws:
        from engram_kit.retrieval.ppr import personalization_from_ids, personalized_pagerank

        csr = ws.csr_graph()
        scores = personalized_pagerank(csr, personalization_from_ids(csr, {SHH: 1.0})).scores
        target = edges.loc[leaf, "target"]
        assert scores[csr.index[target]] == 0.0  # reachable only through the negated edge
        # the same edge asserted: the phenotype gets mass (so the zero above is the negation, not the graph)
        with Workspace.create(tmp_path / "ws2", graph=kg) as plain:
            csr2 = plain.csr_graph()
            assert personalized_pagerank(csr2, personalization_from_ids(csr2, {SHH: 1.0})).scores[csr2.index[target]] > 0
        assert ws.store.counts()["HAS_PHENOTYPE"] == len(kg.edges[kg.edges["rel_type"] == "HAS_PHENOTYPE"])


def test_round_trip_and_admin_export_keep_kgx_properties(store, tmp_path, kg):
    from engram_kit.store.export import export_neo4j_admin_csv, read_domain

    nodes, edges = read_domain(store)
    assert len(nodes) == len(kg.nodes) and len(edges) == len(kg.edges)
    row = edges[(edges["source"] == SHH) & (edges["metaedge"] == "INTERACTS_WITH")].iloc[0]
    assert row["predicate"] == "biolink:interacts_with" and row["negated"] in (False, np.False_)
    with LadybugStore(tmp_path / "copy.lbug", schema=store.schema) as copy:
        copy.load_knowledge_graph(nodes, edges, progress=False)
        assert copy.counts() == store.counts()
    report = export_neo4j_admin_csv(store, tmp_path / "csv", progress=False)
    header = (tmp_path / "csv" / "relationships_HAS_PHENOTYPE.csv").read_text().splitlines()[0]
    assert "negated:boolean" in header and "primary_knowledge_source" in header and "qualifiers" in header
    meta = pd.read_csv(tmp_path / "csv" / "nodes_EngramMeta.csv")
    assert json.loads(meta["value"][0])["name"] == "kgx"
    assert "nodes_EngramMeta.csv" in report.command


def test_edges_must_fit_the_schema(tmp_path, kg):
    edges = kg.edges.copy()
    bad = edges.index[edges["rel_type"] == "HAS_PHENOTYPE"][0]
    edges.loc[bad, "target"] = SHH  # Gene -HAS_PHENOTYPE-> Gene is no observed label pair
    with LadybugStore(tmp_path / "g.lbug", schema=kg.schema) as s, pytest.raises(DataError, match="biolink:has_phenotype"):
        s.load_knowledge_graph(kg.nodes, edges, progress=False)


def test_only_schema_identifiers_reach_cypher(kg):
    statement = LADYBUG_STATEMENTS.statement
    assert "HAS_PHENOTYPE" in statement("edges_among", schema=kg.schema)
    assert "(r.negated IS NULL OR r.negated = false)" in statement("rel_endpoints_asserted", schema=kg.schema,
                                                                     rel_type="HAS_PHENOTYPE")
    with pytest.raises(DataError, match="not a label or relationship type of the kgx schema"):
        statement("count_nodes", schema=kg.schema, label="Compound")
