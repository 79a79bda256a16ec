"""Interactive graphs (ipycytoscape) of answer graphs and neighbourhoods, plus a static matplotlib drawing.

Colours come from :mod:`engram_kit.exports` so the widget, the exported SVG/PNG and the dashboard agree:
node fill = Hetionet kind (Hetionet's own palette, ``describe/styles.json``), node border = PPR heat
(ColorBrewer YlOrRd), seeds with a thick black double border, edge line style = provenance (curated
solid grey, literature co-occurrence dashed blue, inferred dotted magenta), edge label = relationship type
(the Biolink predicate for a KGX graph). Edges whose data say ``directed`` get an arrowhead at the object;
negated assertions (class ``negated``, label ``"NOT ..."``) are drawn dashed red, so a "does not" edge never
looks like a curated fact.

ipycytoscape pitfalls handled here
----------------------------------
* ``multiple_edges=True`` everywhere, otherwise parallel relationships of different types are merged.
* A graph rendered inside a hidden ``Tab`` (or ``Accordion``) is laid out in a 0x0 box: :func:`refit`
  resizes and re-runs the layout, and :func:`refit_on_select` calls it when the tab becomes visible.
* Readability: the assistant draws a focused view (``AnswerGraph.focus``, <= 40 nodes) whose labels are
  13 px with a zoom floor of 0.85 (>= 11 px on screen); relation names are drawn on graphs of <= 40 edges
  and on hover otherwise; the wheel zooms only after a click into the graph (it scrolls the page before).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from engram_kit.exports import HEAT_STOPS, KIND_COLORS, PROVENANCE_STYLES, build_answer_graph, kind_color
from engram_kit.retrieval.results import RetrievalResult

__all__ = ["KIND_COLORS", "cytoscape_style", "draw_subgraph", "graph_widget", "legend_html", "refit",
           "refit_on_select", "subgraph_view"]

#: Layout used for answer graphs: cytoscape.js's built-in force-directed "cose", not animated (an
#: animated layout keeps the browser busy and makes "layout done" ambiguous); fits the viewport. Edge length
#: and repulsion leave room for 13 px labels between ~40 nodes while keeping the drawing compact enough to
#: fit a ~900x580 px panel at the zoom floor; the dashboard's page script draws a layout that would still
#: overflow closer together (see the ``engram`` Voila template).
DEFAULT_LAYOUT: dict[str, Any] = {"name": "cose", "animate": False, "randomize": False, "fit": True, "padding": 30,
                                  "nodeRepulsion": 6000, "idealEdgeLength": 55, "gravity": 1.5, "numIter": 800,
                                  "nodeDimensionsIncludeLabels": True}
#: Node label size in model px and the smallest zoom a fit may choose: 13 px x 0.85 = 11 px on screen at
#: least, the legibility floor of the workbench (a larger graph overflows the panel and pans instead).
NODE_FONT_PX = 13
MIN_ZOOM = 0.85
#: Edge label size in model px (relation names, shown always on small graphs, on hover otherwise).
EDGE_FONT_PX = 12
#: Graphs with at most this many edges show every relation name; larger ones show names on hover.
ALWAYS_LABEL_EDGES = 40
#: Class put on highlighted elements (node clicked, or entities of a clicked passage).
HIGHLIGHT = "highlight"
#: Class put on elements that are not highlighted while a highlight is active: fainter fill and lines, the
#: label stays readable (a highlight must not hide the rest of the graph).
DIMMED = "dimmed"
#: Class of an edge whose relation name is drawn.
LABELLED = "labelled"
#: Line and label colour of negated assertions (class ``negated``).
NEGATED_COLOR = "#d50000"


def cytoscape_style() -> list[dict[str, Any]]:
    """The Cytoscape.js stylesheet of engram graphs (see the module docstring)."""
    style: list[dict[str, Any]] = [
        {"selector": "node", "style": {
            "label": "data(label)", "font-size": f"{NODE_FONT_PX}px", "text-valign": "bottom",
            "text-halign": "center", "text-margin-y": 2, "color": "#222222",
            "text-background-color": "#ffffff", "text-background-opacity": 0.75, "text-background-padding": "1px",
            "background-color": "data(color)", "border-width": 3, "border-color": "data(heat_color)",
            "width": "mapData(heat, 0, 1, 16, 34)", "height": "mapData(heat, 0, 1, 16, 34)",
            "text-max-width": "120px", "text-wrap": "wrap"}},
        {"selector": "node[!heat_color]", "style": {"border-color": "#cccccc", "width": 22, "height": 22}},
        # seeds drawn above the others (their label is not hidden under a neighbour in a dense cluster)
        {"selector": "node.seed", "style": {"border-color": "#111111", "border-width": 5, "border-style": "double",
                                            "font-weight": "bold", "width": 36, "height": 36, "z-index": 20,
                                            "text-background-opacity": 0.9}},
        {"selector": "edge", "style": {
            "label": "", "font-size": f"{EDGE_FONT_PX}px", "curve-style": "bezier", "width": 1.4,
            "text-rotation": "autorotate", "color": "#444444", "text-background-color": "#ffffff",
            "text-background-opacity": 0.8, "text-background-padding": "1px"}},
        {"selector": f"edge.{LABELLED}", "style": {"label": "data(label)"}},
    ]
    for provenance, spec in PROVENANCE_STYLES.items():
        style.append({"selector": f"edge.{provenance}",
                      "style": {"line-color": spec["color"], "line-style": spec["line_style"],
                                "target-arrow-color": spec["color"]}})
    style += [
        # after the provenance styles, so they win: direction and negation are part of what an edge says
        {"selector": "edge[?directed]", "style": {"target-arrow-shape": "triangle", "arrow-scale": 0.9}},
        {"selector": "edge.negated", "style": {"line-color": NEGATED_COLOR, "line-style": "dashed",
                                               "target-arrow-color": NEGATED_COLOR, "color": NEGATED_COLOR}},
        {"selector": f"node.{HIGHLIGHT}", "style": {"border-color": "#00c853", "border-width": 7, "z-index": 10,
                                                     "font-weight": "bold"}},
        {"selector": f"edge.{HIGHLIGHT}", "style": {"width": 3.5, "line-color": "#00c853", "label": "data(label)"}},
        {"selector": "node:selected", "style": {"border-color": "#00c853", "border-width": 7}},
        {"selector": f"node.{DIMMED}", "style": {"background-opacity": 0.45, "border-opacity": 0.45}},
        {"selector": f"edge.{DIMMED}", "style": {"opacity": 0.35}},
    ]
    return style


def graph_widget(elements: dict[str, list[dict[str, Any]]], *, height: str = "460px",
                 layout: dict[str, Any] | None = None):  # ipycytoscape.CytoscapeWidget
    """An ipycytoscape widget of Cytoscape.js elements (``AnswerGraph.to_cytoscape()``), engram-styled.

    Parallel edges are kept (``multiple_edges=True``); ``classes`` of the elements select the seed and
    provenance styles. The layout runs in the browser when the widget is displayed.
    """
    import ipycytoscape

    if len(elements.get("edges", ())) <= ALWAYS_LABEL_EDGES:  # few edges: every relation name is drawn
        for edge in elements.get("edges", ()):
            edge["classes"] = f"{edge.get('classes', '')} {LABELLED}".strip()
    widget = ipycytoscape.CytoscapeWidget()
    widget.graph.add_graph_from_json(elements, directed=False, multiple_edges=True)
    widget.set_style(cytoscape_style())
    widget.set_layout(**(layout or DEFAULT_LAYOUT))
    widget.set_tooltip_source("tooltip")
    widget.min_zoom = MIN_ZOOM
    widget.max_zoom = 4.0
    # the mouse wheel scrolls the page until the reader clicks into the graph (see wheel_zoom_after_click)
    widget.user_zooming_enabled = False
    widget.layout.height = height
    widget.layout.width = "100%"
    widget.add_class("engram-graph")
    wheel_zoom_after_click(widget)
    label_edges_on_hover(widget)
    return widget


def wheel_zoom_after_click(widget) -> None:  # ipycytoscape.CytoscapeWidget
    """Enable mouse-wheel zoom once the reader clicks a node or edge of ``widget`` (before that the wheel
    scrolls the notebook or page). The dashboard's page script also enables it on a click on the background."""
    def enable(_event: dict[str, Any]) -> None:
        widget.user_zooming_enabled = True

    widget.on("node", "click", enable)
    widget.on("edge", "click", enable)


def label_edges_on_hover(widget) -> None:  # ipycytoscape.CytoscapeWidget
    """Show an edge's relation name while the pointer is over it (graphs with many edges draw none)."""
    def mark(event: dict[str, Any], on: bool) -> None:
        edge_id = event.get("data", {}).get("id")
        for edge in widget.graph.edges:
            if edge.data.get("id") == edge_id:
                classes = [c for c in edge.classes.split() if c != f"{LABELLED}-hover"]
                edge.classes = " ".join(classes + ([f"{LABELLED}-hover"] if on else []))
                return

    if widget.graph.edges and all(LABELLED not in e.classes.split() for e in widget.graph.edges):
        widget.set_style(widget.get_style() + [{"selector": f"edge.{LABELLED}-hover", "style": {"label": "data(label)"}}])
        widget.on("edge", "mouseover", lambda e: mark(e, True))
        widget.on("edge", "mouseout", lambda e: mark(e, False))


def refit(widget) -> None:  # ipycytoscape.CytoscapeWidget
    """Re-measure the widget's box and re-run its layout (after it was shown in a hidden tab).

    ipycytoscape re-measures and fits on a change of ``layout.height``; the 1 px nudge triggers that, then
    :meth:`relayout` re-runs the layout in the real box.
    """
    height = widget.layout.height or "460px"
    if height.endswith("px"):
        nudged = f"{int(float(height[:-2])) + 1}px"
        widget.layout.height = nudged
        widget.layout.height = height
    widget.relayout()


def refit_on_select(container: widgets.Tab | widgets.Accordion, graphs: dict[int, Any]) -> None:
    """Re-fit ``graphs[i]`` whenever tab/accordion ``i`` of ``container`` is selected.

    ``graphs[i]`` is a CytoscapeWidget or a panel with a ``refit()`` method (whose graph may be replaced
    by each answer); the mapping is read at selection time, so it may change later.
    """
    def on_select(change: dict[str, Any]) -> None:
        target = graphs.get(change["new"])
        if target is None:
            return
        if hasattr(target, "graph") and hasattr(target, "relayout"):
            refit(target)
        elif callable(getattr(target, "refit", None)):  # a panel that knows its current graph
            target.refit()

    container.observe(on_select, names="selected_index")


def set_highlight(widget, node_ids: set[str], *, edges: bool = True) -> int:
    """Highlight the given nodes (and edges among them), dim the rest; an empty set clears. Returns the
    number of nodes highlighted."""
    active = bool(node_ids)
    for node in widget.graph.nodes:
        base = " ".join(c for c in node.classes.split() if c not in (HIGHLIGHT, DIMMED))
        mark = HIGHLIGHT if node.data.get("id") in node_ids else (DIMMED if active else "")
        node.classes = f"{base} {mark}".strip()
    if edges:
        for edge in widget.graph.edges:
            base = " ".join(c for c in edge.classes.split() if c not in (HIGHLIGHT, DIMMED))
            inside = edge.data.get("source") in node_ids and edge.data.get("target") in node_ids
            mark = HIGHLIGHT if inside else (DIMMED if active else "")
            edge.classes = f"{base} {mark}".strip()
    return sum(1 for n in widget.graph.nodes if n.data.get("id") in node_ids)


def legend_html(kinds: list[str] | None = None, *, heat: bool = True, provenance: bool = True) -> str:
    """A small HTML legend: kind colours, and optionally the PPR heat scale (answer graphs only: the explorer
    has no PPR) and the provenance line styles."""
    by_color: dict[str, list[str]] = {}
    for kind in kinds if kinds is not None else list(KIND_COLORS):
        by_color.setdefault(kind_color(kind), []).append(kind)
    dots = "".join(f'<span style="margin-right:10px"><span style="display:inline-block;width:10px;height:10px;'
                   f'border-radius:50%;background:{c};border:1px solid #999"></span> {" / ".join(k)}</span>'
                   for c, k in by_color.items())
    scale = "".join(f'<span style="display:inline-block;width:14px;height:10px;background:{c}"></span>'
                    for c in HEAT_STOPS)
    lines = "".join(f'<span style="margin-right:10px"><span style="display:inline-block;width:22px;'
                    f'border-top:2px {spec["line_style"]} {spec["color"]};vertical-align:middle"></span> {name}</span>'
                    for name, spec in PROVENANCE_STYLES.items())
    parts = [dots] if dots else []
    extra = []
    if heat:
        extra.append(f"PPR heat (border) low {scale} high &nbsp; seed = black double border")
    if provenance:
        extra.append(f"edges: {lines}")
    if extra:
        parts.append(" &nbsp; ".join(extra))
    return f'<div class="engram-legend" style="font-size:12px;line-height:1.8">{"<br>".join(parts)}</div>'


def subgraph_view(result: RetrievalResult, *, max_nodes: int = 60, height: str = "420px"):
    """An ipycytoscape widget of a result's PPR subgraph (no store needed; see ``Workspace.answer_graph``
    for the richer graph with literature edges): colour = kind, border = PPR heat, seeds outlined."""
    graph = build_answer_graph(result, None, max_nodes=max_nodes)
    return graph_widget(graph.to_cytoscape(), height=height)


def draw_subgraph(result: RetrievalResult, *, max_nodes: int = 40, ax=None, seed: int = 7):
    """A static matplotlib drawing of the subgraph on ``ax`` (works headless; same colours as the widget).

    To write a file instead, use :func:`engram_kit.exports.render_graph`.
    """
    import matplotlib.pyplot as plt
    import networkx as nx

    graph = build_answer_graph(result, None, max_nodes=max_nodes)
    simple = nx.Graph()
    simple.add_nodes_from(graph.nodes["id"])
    simple.add_edges_from(zip(graph.edges["source"], graph.edges["target"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 6))
    pos = nx.spring_layout(simple, seed=seed, k=0.6)
    nodes = graph.nodes
    nx.draw_networkx_edges(simple, pos, ax=ax, edge_color=PROVENANCE_STYLES["curated"]["color"], width=0.8)
    nx.draw_networkx_nodes(simple, pos, ax=ax, nodelist=list(nodes["id"]),
                           node_color=[kind_color(k) for k in nodes["kind"]],
                           node_size=[80 + 500 * h for h in nodes["heat"]],
                           edgecolors=["#111" if s else c for s, c in zip(nodes["is_seed"], nodes["heat_color"])],
                           linewidths=2)
    nx.draw_networkx_labels(simple, pos, ax=ax, labels={r.id: r.name[:24] for r in nodes.itertuples()}, font_size=7)
    handles = [plt.Line2D([], [], marker="o", ls="", color=kind_color(k), label=k) for k in dict.fromkeys(nodes["kind"])]
    ax.legend(handles=handles, loc="lower left", fontsize=7, frameon=False)
    ax.set_axis_off()
    ax.set_title("PPR-scored subgraph (size and border = PPR heat, black border = seed)", fontsize=9)
    return ax
