"""Answer graphs, headless exports and graph exploration on the bundled sample (session workspace, read only)."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from engram_kit.errors import DataError
from engram_kit.exports import (
    HEAT_STOPS,
    KIND_COLORS,
    PROVENANCES,
    export_answer,
    heat_color,
    heat_scale,
    render_graph,
)

QUESTION = "Which genes interact with BACE1?"
BACE1 = "Gene::23621"


@pytest.fixture(scope="module")
def answer(workspace):
    return workspace.ask(QUESTION)


@pytest.fixture(scope="module")
def graph(workspace, answer):
    return workspace.answer_graph(answer.retrieval, max_nodes=None)


def test_palette_is_hetionets_and_heat_scale_is_logarithmic():
    # describe/styles.json of hetio/hetionet: Gene blue, Compound red-orange, Disease brown
    assert KIND_COLORS["Gene"] == "#0096ff" and KIND_COLORS["Compound"] == "#ff2600"
    assert KIND_COLORS["Disease"] == "#8e4f00" and len(KIND_COLORS) == 11
    heat = heat_scale([0.5, 0.005, 0.00005, 0.0])
    np.testing.assert_allclose(heat, [1.0, 0.5, 0.0, 0.0])  # decades, not linear shares; zero stays zero
    assert heat_scale([0.2, 0.2]).tolist() == [1.0, 1.0]
    assert heat_color(0.0) == HEAT_STOPS[0] and heat_color(1.0) == HEAT_STOPS[-1] and heat_color(7) == HEAT_STOPS[-1]


def test_answer_graph_orders_seeds_first_and_links_passages_both_ways(workspace, answer, graph):
    result = answer.retrieval
    assert graph.nodes["id"].iloc[0] == BACE1 and graph.nodes["is_seed"].iloc[0]
    assert set(result.subgraph_nodes["id"]) <= set(graph.nodes["id"])
    assert set(graph.edges["provenance"]) <= set(PROVENANCES)
    assert graph.edges["id"].is_unique
    # node -> passages and passage -> nodes are the same relation, and agree with the store
    mentions = workspace.store.passage_mentions([p.passage_id for p in result.passages])
    linked = set(zip(mentions["passage_id"], mentions["entity_id"]))
    for node_id, passages in zip(graph.nodes["id"], graph.nodes["passages"]):
        for pid in passages:
            assert node_id in graph.entities_of(pid)
    pairs = {(p, n) for p, nodes in graph.passage_entities.items() for n in nodes}
    assert pairs and pairs <= linked | {(h.passage_id, path.nodes[-1]) for h in result.passages for path in h.paths}
    assert graph.passages_of(BACE1), "some retrieved passage mentions the seed"


def test_edge_provenances_are_what_they_claim(workspace, answer, graph):
    curated = graph.edges[graph.edges["provenance"] == "curated"]
    sub = answer.retrieval.subgraph_edges
    assert set(zip(curated["source"], curated["rel_type"], curated["target"])) <= set(
        zip(sub["source"], sub["rel_type"], sub["target"]))
    literature = graph.edges[graph.edges["provenance"] == "literature"]
    assert len(literature) > 0
    curated_pairs = {frozenset(p) for p in zip(sub["source"], sub["target"])}
    for row in literature.itertuples():
        assert frozenset((row.source, row.target)) not in curated_pairs
        for pid in row.passages:  # each supporting passage mentions both ends
            assert {row.source, row.target} <= set(graph.entities_of(pid))


def test_top_caps_nodes_and_keeps_only_edges_among_them(graph):
    top = graph.top(15)
    assert len(top) == 15 and top.truncated and top.total_nodes == len(graph)
    kept = set(top.nodes["id"])
    assert set(top.edges["source"]) | set(top.edges["target"]) <= kept
    with pytest.raises(DataError, match="n must be >= 1"):
        graph.top(0)


def test_exports_round_trip(tmp_path, answer, graph):
    files = export_answer(answer, graph, tmp_path / "out")
    assert set(files) == {"json", "graphml", "svg", "png", "passages", "entities", "bundle"}
    cy = json.loads(files["json"].read_text())["elements"]
    assert len(cy["nodes"]) == len(graph) and len(cy["edges"]) == len(graph.edges)
    assert {n["data"]["color"] for n in cy["nodes"]} <= set(KIND_COLORS.values())
    back = nx.read_graphml(files["graphml"])
    assert back.number_of_nodes() == len(graph) and back.number_of_edges() == len(graph.edges)  # parallel kept
    assert back.nodes[BACE1]["kind"] == "Gene" and back.nodes[BACE1]["is_seed"] is True
    assert files["svg"].read_text().lstrip().startswith(("<?xml", "<svg")) and "<svg" in files["svg"].read_text()
    png = files["png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    passages = pd.read_csv(files["passages"])
    assert passages["passage_id"].tolist() == [p.passage_id for p in answer.retrieval.passages]
    assert passages["text"].str.len().min() > 50
    entities = pd.read_csv(files["entities"])
    assert entities["id"].tolist() == graph.nodes["id"].tolist()
    bundle = json.loads(files["bundle"].read_text())
    assert bundle["kind"] == "engram-answer-bundle" and bundle["answer"]["question"] == QUESTION
    assert len(bundle["graph"]["nodes"]) == len(graph)


def test_export_errors_name_the_fix(tmp_path, answer, graph):
    with pytest.raises(DataError, match=r"\.svg or \.png"):
        render_graph(graph, tmp_path / "graph.jpg")
    with pytest.raises(DataError, match="choose from"):
        export_answer(answer, graph, tmp_path, formats=["pdf"])


def test_entity_search_finds_names_and_synonyms(workspace):
    hits = workspace.search_entities("bace").matches
    assert hits[0].node_id == BACE1 and hits[0].match == "exact"  # "BACE" is a synonym of BACE1
    assert "→ BACE1" in hits[0].label
    alz = workspace.search_entities("alzheimer's dis").matches
    assert "Disease::DOID:10652" in [m.node_id for m in alz]
    assert len({m.node_id for m in workspace.search_entities("a", limit=7).matches}) == 7
    assert workspace.search_entities("   ").matches == []
    genes_only = workspace.search_entities("bace", kinds={"Anatomy"}).matches
    assert genes_only and all(m.kind == "Anatomy" for m in genes_only)


def test_neighbourhood_has_typed_edges_with_provenance(workspace):
    hood = workspace.neighbourhood(BACE1)
    assert hood.name == "BACE1" and hood.kind == "Gene"
    assert hood.rel_type_counts["INTERACTS_GiG"] >= 5
    assert "Gene::351" in set(hood.edges["neighbour_id"])  # APP
    assert set(hood.edges["direction"]) == {"in", "out"}
    assert (hood.edges["sources"] != "").any()  # Hetionet provenance is carried through
    only = workspace.neighbourhood(BACE1, rel_types=["INTERACTS_GiG"])
    assert set(only.edges["rel_type"]) == {"INTERACTS_GiG"} and len(only.edges) == hood.rel_type_counts["INTERACTS_GiG"]
    summary = hood.provenance_summary()
    assert summary["edges"].sum() == len(hood.edges)
    with pytest.raises(DataError, match="not a knowledge-graph node"):
        workspace.neighbourhood("Gene::0")
    with pytest.raises(DataError, match="Unknown relationship type"):
        workspace.neighbourhood(BACE1, rel_types=["LIKES"])
