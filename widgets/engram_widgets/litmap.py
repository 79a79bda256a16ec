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
    # 13 px labels with a white halo, and a zoom floor of 0.85 (litmap_view): >= 11 px on screen, like the
    # answer graph; relation names show on a selected edge only (the map has hundreds of edges)
    return [
        {"selector": "node", "style": {"label": "data(label)", "background-color": "data(color)",
                                       "width": "data(size)", "height": "data(size)", "font-size": "13px",
                                       "text-valign": "bottom", "text-background-color": "#ffffff",
                                       "text-background-opacity": 0.75, "text-max-width": "120px",
                                       "text-wrap": "wrap"}},
        {"selector": "edge", "style": {"width": "mapData(weight, 0, 10, 1, 6)", "line-color": "#bbb",
                                       "curve-style": "bezier", "font-size": "12px", "color": "#333"}},
        {"selector": 'edge[kg_status = "new in literature"]', "style": {"line-color": "#f0a030"}},
        {"selector": "edge:selected", "style": {"line-color": "#111", "width": 5, "label": "data(label)"}},
    ]


def community_legend_html(structure: MapStructure, elements: dict[str, list[dict[str, Any]]], *,
                          per_community: int = 3) -> str:
    """Legend of the drawn communities: colour, size and the ``per_community`` most central members drawn."""
    members: dict[int, list[str]] = {}
    for node in elements["nodes"]:  # nodes come in betweenness order (MapStructure.nodes)
        members.setdefault(int(node["data"]["community"]), []).append(str(node["data"]["label"]))
    items = []
    for community, names in sorted(members.items(), key=lambda kv: -len(kv[1])):
        color = COMMUNITY_COLORS[community] if community < len(COMMUNITY_COLORS) else _OTHER
        top = ", ".join(html.escape(n) for n in names[:per_community]) + (" …" if len(names) > per_community else "")
        items.append(f'<span style="margin-right:12px;white-space:nowrap"><span style="display:inline-block;'
                     f'width:11px;height:11px;border-radius:50%;background:{color}"></span> '
                     f"<b>{len(names)}</b> {top}</span>")
    return ('<div class="engram-community-legend" style="font-size:12px;line-height:1.9">'
            f"<b>Communities</b> (colour; size = betweenness; orange edge = new in literature): {' '.join(items)}</div>")


def litmap_view(graph: nx.Graph, structure: MapStructure, *, max_nodes: int = 80, height: str = "480px"):
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
    widget.set_layout(name="cose", animate=False, randomize=False, fit=True, padding=30,
                      nodeDimensionsIncludeLabels=True, idealEdgeLength=80, nodeRepulsion=9000)
    widget.min_zoom = 0.85
    widget.user_zooming_enabled = False  # the wheel scrolls the page until the reader clicks into the map
    widget.layout.height = height
    widget.add_class("engram-graph")
    from engram_widgets.graph import wheel_zoom_after_click

    wheel_zoom_after_click(widget)
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
    legend = ipywidgets.HTML(community_legend_html(structure, elements))
    return ipywidgets.VBox([header, legend, widget, output])


class LiteratureMapTab:
    """The literature map as a dashboard tab: built on demand (it reads every document's sentences), drawn
    by :func:`litmap_view` with the community legend.

    A read-only workspace builds the map without its per-document cache (read-only never writes into the
    workspace folder); a writable one caches in ``<workspace>/cache/litmap/``.
    """

    def __init__(self, workspace: Any, *, max_nodes: int = 50, height: str = "520px") -> None:
        import ipywidgets

        self.workspace = workspace
        self.max_nodes = max_nodes
        self.height = height
        self.view: Any = None
        self.build_button = ipywidgets.Button(description="Build the literature map", button_style="primary",
                                              layout=ipywidgets.Layout(width="auto"))
        self.build_button.add_class("engram-litmap-build")
        self.build_button.on_click(lambda _: self.build())
        self.status = ipywidgets.HTML("<span style='font-size:12px;color:#555'>Entities co-mentioned in the same "
                                      "sentence across the workspace's documents, grouped into communities.</span>")
        self.area = ipywidgets.Box(layout=ipywidgets.Layout(width="100%"))
        self.widget = ipywidgets.VBox([ipywidgets.HBox([self.build_button, self.status]), self.area])
        self.widget.add_class("engram-litmap")

    def build(self) -> Any:
        """Build and draw the map; returns the drawn view (None when the workspace has no documents)."""
        import time

        from engram_kit.analysis import analyze_structure

        started = time.perf_counter()
        self.build_button.disabled = True
        self.status.value = "<i>Reading the documents' sentences…</i>"
        try:
            if getattr(self.workspace, "read_only", False):
                from engram_kit.analysis import LiteratureMapBuilder
                from engram_kit.analysis.store_maps import literature_map_from_store

                builder = LiteratureMapBuilder(self.workspace.extractor, self.workspace.resolver,
                                               min_link_confidence=self.workspace.settings.min_link_confidence)
                litmap = literature_map_from_store(self.workspace.store, builder, cache_dir=None, progress=False)
            else:
                litmap = self.workspace.literature_map(progress=False)
            graph = litmap.graph()
            if graph.number_of_nodes() == 0:
                self.status.value = "<i>No co-mentioned entities yet: add documents first.</i>"
                return None
            structure = analyze_structure(graph)
            self.view = litmap_view(graph, structure, max_nodes=self.max_nodes, height=self.height)
            self.area.children = [self.view]
            self.status.value = (f"<span style='font-size:12px;color:#555'>Built in {time.perf_counter() - started:.1f} s "
                                 f"({graph.number_of_nodes()} entities; the {min(self.max_nodes, graph.number_of_nodes())} "
                                 "most central drawn).</span>")
            return self.view
        finally:
            self.build_button.disabled = False

    def refit(self) -> None:
        if self.view is not None:
            from engram_widgets.graph import refit

            refit(self.view.children[2])
