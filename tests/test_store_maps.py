"""Literature maps over a workspace's stored documents: caching, selection, curated-edge link."""

from __future__ import annotations

from engram_kit.analysis import MapConfig, analyze_structure, link_to_knowledge_graph


def test_workspace_map_is_cached_and_linked_to_hetionet(workspace):
    articles = workspace.store.articles(source="pubmed")
    ids = sorted(articles["id"])[:60]
    cache = workspace.path / "cache" / "litmap"
    # the session's shared workspace may hold maps an earlier test built (the suite's order decides; a fresh-clone
    # CI run found more files than these 60 documents): count what this map adds
    before = set(cache.glob("*.pkl"))
    lit = workspace.literature_map(ids, progress=False)
    assert sorted(lit.selected_ids) == ids
    cached = sorted(cache.glob("*.pkl"))
    assert len(ids) <= len(cached) <= len(before) + len(ids)
    stamps = {p: p.stat().st_mtime_ns for p in cached}
    again = workspace.literature_map(ids, progress=False)
    assert sorted(cache.glob("*.pkl")) == cached  # nothing rebuilt
    assert {p: p.stat().st_mtime_ns for p in cached} == stamps
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
