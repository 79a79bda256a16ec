"""Render a retrieval result's PPR-scored subgraph: interactive (ipycytoscape) or static (matplotlib)."""

from __future__ import annotations

from typing import Any

from engram_kit.retrieval.results import RetrievalResult

#: One colour per Hetionet node kind (a qualitative palette; seeds get a dark border).
KIND_COLORS: dict[str, str] = {
    "Anatomy": "#4daf4a",
    "Biological Process": "#ff7f00",
    "Cellular Component": "#ffd92f",
    "Compound": "#377eb8",
    "Disease": "#e41a1c",
    "Gene": "#984ea3",
    "Molecular Function": "#a65628",
    "Pathway": "#f781bf",
    "Pharmacologic Class": "#66c2a5",
    "Side Effect": "#999999",
    "Symptom": "#8da0cb",
}


def _style() -> list[dict[str, Any]]:
    style: list[dict[str, Any]] = [
        {"selector": "node", "style": {"label": "data(label)", "font-size": "9px", "width": "mapData(ppr_rank, 0, 1, 14, 42)",
                                       "height": "mapData(ppr_rank, 0, 1, 14, 42)", "text-valign": "bottom"}},
        {"selector": "node[?is_seed]", "style": {"border-width": 3, "border-color": "#111"}},
        {"selector": "edge", "style": {"label": "data(label)", "font-size": "7px", "curve-style": "bezier",
                                       "width": 1, "line-color": "#bbb", "color": "#777"}},
    ]
    style += [{"selector": f'node[kind = "{kind}"]', "style": {"background-color": color}}
              for kind, color in KIND_COLORS.items()]
    return style


def subgraph_view(result: RetrievalResult, *, max_nodes: int = 60, height: str = "420px"):  # noqa: ANN201
    """An ipycytoscape widget of the subgraph: colour = node kind, size = PPR rank, seeds outlined.

    ``multiple_edges=True`` keeps parallel relationships of different types apart. At most
    ``max_nodes`` nodes (highest PPR first) are drawn to stay readable.
    """
    import ipycytoscape

    data = result.to_cytoscape()
    nodes = sorted(data["nodes"], key=lambda n: -n["data"]["ppr"])[:max_nodes]
    keep = {n["data"]["id"] for n in nodes}
    for rank, node in enumerate(nodes):
        node["data"]["ppr_rank"] = 1.0 - rank / max(len(nodes) - 1, 1)
    edges = [e for e in data["edges"] if e["data"]["source"] in keep and e["data"]["target"] in keep]
    widget = ipycytoscape.CytoscapeWidget()
    widget.graph.add_graph_from_json({"nodes": nodes, "edges": edges}, directed=False, multiple_edges=True)
    widget.set_style(_style())
    widget.set_layout(name="cose", animate=False, randomize=False)
    widget.layout.height = height
    return widget


def draw_subgraph(result: RetrievalResult, *, max_nodes: int = 40, ax=None, seed: int = 7):  # noqa: ANN001, ANN201
    """A static matplotlib drawing of the subgraph (works headless; same colours as the widget)."""
    import matplotlib.pyplot as plt
    import networkx as nx

    data = result.to_cytoscape()
    nodes = sorted(data["nodes"], key=lambda n: -n["data"]["ppr"])[:max_nodes]
    graph = nx.Graph()
    for n in nodes:
        graph.add_node(n["data"]["id"], **n["data"])
    for e in data["edges"]:
        if e["data"]["source"] in graph and e["data"]["target"] in graph:
            graph.add_edge(e["data"]["source"], e["data"]["target"], label=e["data"]["label"])
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 6))
    pos = nx.spring_layout(graph, seed=seed, k=0.6)
    ppr = [graph.nodes[n]["ppr"] for n in graph]
    top = max(ppr) if ppr else 1.0
    nx.draw_networkx_edges(graph, pos, ax=ax, edge_color="#cccccc", width=0.8)
    nx.draw_networkx_nodes(
        graph, pos, ax=ax, node_color=[KIND_COLORS.get(graph.nodes[n]["kind"], "#777") for n in graph],
        node_size=[80 + 600 * (p / top) ** 0.5 for p in ppr],
        edgecolors=["#111" if graph.nodes[n]["is_seed"] else "none" for n in graph], linewidths=2)
    nx.draw_networkx_labels(graph, pos, ax=ax, labels={n: graph.nodes[n]["label"][:24] for n in graph}, font_size=7)
    kinds = sorted({graph.nodes[n]["kind"] for n in graph})
    handles = [plt.Line2D([], [], marker="o", ls="", color=KIND_COLORS.get(k, "#777"), label=k) for k in kinds]
    ax.legend(handles=handles, loc="lower left", fontsize=7, frameon=False)
    ax.set_axis_off()
    ax.set_title("PPR-scored subgraph (size = PPR, outlined = seed)", fontsize=9)
    return ax
