"""Literature maps over a workspace's stored documents: caching, selection, curated-edge link."""

from __future__ import annotations

from engram_kit.analysis import MapConfig, analyze_structure, link_to_knowledge_graph


def test_workspace_map_is_cached_and_linked_to_hetionet(workspace):
    articles = workspace.store.articles(source="pubmed")
    ids = sorted(articles["id"])[:60]
    lit = workspace.literature_map(ids, progress=False)
    assert sorted(lit.selected_ids) == ids
    cache = workspace.path / "cache" / "litmap"
    cached = sorted(cache.glob("*.pkl"))
    assert len(cached) == len(ids)
    again = workspace.literature_map(ids, progress=False)
    assert sorted(cache.glob("*.pkl")) == cached  # nothing rebuilt
    graph = lit.graph(MapConfig(min_occurrence=1))
    again_graph = again.graph(MapConfig(min_occurrence=1))
    assert set(graph.edges) == set(again_graph.edges)
    structure = analyze_structure(graph)
    assert structure.modularity > 0
    link = link_to_knowledge_graph(graph, workspace.curated_edges(list(graph.nodes)))
    curated = link[link["kg_status"] == "curated"]
    assert not curated.empty
    # Every edge called curated really is a stored Hetionet edge between the two entities.
    for a, b in zip(curated["source"].head(10), curated["target"].head(10)):
        assert not workspace.store.edges_among([a, b]).empty
