"""Render a literature map: ipycytoscape graph, communities as colours, betweenness as size,
and an edge's evidence sentences shown on click (ipywidgets ``Output``).

The widget computes nothing: it draws a ``networkx.Graph`` from
:meth:`engram_kit.analysis.LiteratureMap.graph` and the :class:`~engram_kit.analysis.MapStructure` of
:func:`engram_kit.analysis.analyze_structure`.
"""

from __future__ import annotations

import html
from typing import Any

import networkx as nx

from engram_kit.analysis import MapStructure

#: Community colours (ColorBrewer Set1 + Dark2, 16 qualitative colours); communities beyond 16 are grey.
COMMUNITY_COLORS: tuple[str, ...] = (
    "#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a65628", "#f781bf", "#1b9e77",
    "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#17becf", "#bcbd22", "#8c564b",
)
_OTHER = "#bbbbbb"


def litmap_elements(graph: nx.Graph, structure: MapStructure, *, max_nodes: int = 80) -> dict[str, list[dict[str, Any]]]:
    """Cytoscape JSON of a map: the ``max_nodes`` highest-betweenness entities and the edges among them.

    Node data: ``id, label, kind, community, color, betweenness, size`` (px, 14-48 by betweenness rank).
    Edge data: ``id, source, target, weight, sentences, relation, kg_status, evidence`` (list of
    ``{"doc_id", "sentence", "text", "kind", "relation"}``: pattern evidence first, then co-occurrence).
    """
    table = structure.nodes.head(max_nodes)
    keep = set(table["id"])
    top = float(table["betweenness"].max() or 1.0) if len(table) else 1.0
    nodes = []
    for row in table.itertuples():
        color = COMMUNITY_COLORS[row.community] if row.community < len(COMMUNITY_COLORS) else _OTHER
        nodes.append({"data": {"id": row.id, "label": row.name, "kind": row.kind, "community": int(row.community),
                               "color": color, "betweenness": float(row.betweenness),
                               "size": 14 + 34 * (float(row.betweenness) / top if top > 0 else 0.0)}})
    edges = []
    for a, b, d in graph.edges(data=True):
        if a not in keep or b not in keep:
            continue
        evidence = [{"doc_id": e.doc_id, "sentence": e.sentence, "text": e.text, "kind": e.kind,
                     "relation": e.relation} for e in list(d.get("relation_evidence", ())) + list(d.get("evidence", ()))]
        edges.append({"data": {"id": f"{a}|{b}", "source": a, "target": b, "weight": float(d.get("weight", 1.0)),
                               "sentences": int(d.get("sentences", 0)), "relation": d.get("relation", ""),
                               "kg_status": d.get("kg_status", ""), "evidence": evidence,
                               "label": d.get("relation", "")}})
    return {"nodes": nodes, "edges": edges}


def evidence_html(edge: dict[str, Any], names: dict[str, str] | None = None) -> str:
    """HTML list of an edge's evidence sentences (what the click handler shows)."""
    data = edge.get("data", edge)
    names = names or {}
    title = f"{names.get(data['source'], data['source'])} — {names.get(data['target'], data['target'])}"
    extra = f"; {data['relation']}" if data.get("relation") else ""
    status = f"; {data['kg_status']}" if data.get("kg_status") else ""
    items = "".join(
        f"<li><b>[{html.escape(e['doc_id'])} s{e['sentence']}]</b> "
        f"{'<i>' + html.escape(e['relation']) + '</i> ' if e.get('relation') else ''}{html.escape(e['text'])}</li>"
        for e in data.get("evidence", ()))
    return (f"<div><b>{html.escape(title)}</b> ({data.get('sentences', 0)} sentences{extra}{status})"
            f"<ul>{items}</ul></div>")


def _style() -> list[dict[str, Any]]:
    return [
        {"selector": "node", "style": {"label": "data(label)", "background-color": "data(color)",
                                       "width": "data(size)", "height": "data(size)", "font-size": "9px",
                                       "text-valign": "bottom"}},
        {"selector": "edge", "style": {"width": "mapData(weight, 0, 10, 1, 6)", "line-color": "#bbb",
                                       "curve-style": "bezier", "label": "data(label)", "font-size": "7px",
                                       "color": "#555"}},
        {"selector": 'edge[kg_status = "new in literature"]', "style": {"line-color": "#f0a030"}},
        {"selector": "edge:selected", "style": {"line-color": "#111", "width": 5}},
    ]


def litmap_view(graph: nx.Graph, structure: MapStructure, *, max_nodes: int = 80, height: str = "480px"):  # noqa: ANN201
    """An ipywidgets ``VBox``: the map (colour = community, size = betweenness) and an evidence panel.

    Click an edge to list its evidence sentences (typed-pattern sentences first) with document id and
    sentence position; click a node to see its community and betweenness. New-in-literature edges (after
    :func:`engram_kit.analysis.link_to_knowledge_graph`) are drawn orange.
    """
    import ipycytoscape
    import ipywidgets

    elements = litmap_elements(graph, structure, max_nodes=max_nodes)
    names = {n["data"]["id"]: n["data"]["label"] for n in elements["nodes"]}
    widget = ipycytoscape.CytoscapeWidget()
    widget.graph.add_graph_from_json(elements, directed=False)
    widget.set_style(_style())
    widget.set_layout(name="cose", animate=False, randomize=False)
    widget.layout.height = height
    output = ipywidgets.Output(layout={"border": "1px solid #ddd", "max_height": "220px", "overflow": "auto"})

    def on_edge(edge: dict[str, Any]) -> None:
        output.clear_output()
        with output:
            from IPython.display import HTML, display

            display(HTML(evidence_html(edge, names)))

    def on_node(node: dict[str, Any]) -> None:
        data = node.get("data", node)
        output.clear_output()
        with output:
            print(f"{data['label']} ({data['kind']}): community {data['community']}, "
                  f"betweenness {data['betweenness']:.4f}")

    widget.on("edge", "click", on_edge)
    widget.on("node", "click", on_node)
    header = ipywidgets.HTML(f"<b>{len(elements['nodes'])} entities, {len(elements['edges'])} edges, "
                             f"{len(structure.communities)} communities, modularity {structure.modularity:.3f}</b>"
                             " &mdash; click an edge for its sentences")
    return ipywidgets.VBox([header, widget, output])
