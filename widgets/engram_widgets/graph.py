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
* Readability: callers pass at most a few hundred nodes (``AnswerGraph.top(n)``) and offer "show more".
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from engram_kit.exports import HEAT_STOPS, KIND_COLORS, PROVENANCE_STYLES, build_answer_graph, kind_color
from engram_kit.retrieval.results import RetrievalResult

__all__ = ["KIND_COLORS", "cytoscape_style", "draw_subgraph", "graph_widget", "legend_html", "refit",
           "refit_on_select", "subgraph_view"]

#: Layout used for answer graphs: cytoscape.js's built-in force-directed "cose", not animated (an
#: animated layout keeps the browser busy and makes "layout done" ambiguous); fits the viewport.
DEFAULT_LAYOUT: dict[str, Any] = {"name": "cose", "animate": False, "randomize": False, "fit": True, "padding": 20,
                                  "nodeRepulsion": 8000, "idealEdgeLength": 60, "numIter": 600}
#: Class put on highlighted elements (node clicked, or entities of a clicked passage).
HIGHLIGHT = "highlight"
#: Class put on elements that are not highlighted while a highlight is active.
DIMMED = "dimmed"
#: Line and label colour of negated assertions (class ``negated``).
NEGATED_COLOR = "#d50000"


def cytoscape_style() -> list[dict[str, Any]]:
    """The Cytoscape.js stylesheet of engram graphs (see the module docstring)."""
    style: list[dict[str, Any]] = [
        {"selector": "node", "style": {
            "label": "data(label)", "font-size": "9px", "text-valign": "bottom", "text-halign": "center",
            "background-color": "data(color)", "border-width": 3, "border-color": "data(heat_color)",
            "width": "mapData(heat, 0, 1, 14, 34)", "height": "mapData(heat, 0, 1, 14, 34)",
            "text-max-width": "90px", "text-wrap": "ellipsis", "min-zoomed-font-size": 6}},
        {"selector": "node[!heat_color]", "style": {"border-color": "#cccccc", "width": 20, "height": 20}},
        {"selector": "node.seed", "style": {"border-color": "#111111", "border-width": 5, "border-style": "double",
                                            "font-weight": "bold"}},
        {"selector": "edge", "style": {
            "label": "data(label)", "font-size": "6px", "curve-style": "bezier", "width": 1.2,
            "text-rotation": "autorotate", "color": "#666666", "min-zoomed-font-size": 7}},
    ]
    for provenance, spec in PROVENANCE_STYLES.items():
        style.append({"selector": f"edge.{provenance}",
                      "style": {"line-color": spec["color"], "line-style": spec["line_style"]}})
    style += [
        # after the provenance styles, so they win: direction and negation are part of what an edge says
        {"selector": "edge[?directed]", "style": {"target-arrow-shape": "triangle", "arrow-scale": 0.6}},
        {"selector": "edge.negated", "style": {"line-color": NEGATED_COLOR, "line-style": "dashed",
                                               "target-arrow-color": NEGATED_COLOR, "color": NEGATED_COLOR}},
        {"selector": f"node.{HIGHLIGHT}", "style": {"border-color": "#00c853", "border-width": 6, "z-index": 10}},
        {"selector": f"edge.{HIGHLIGHT}", "style": {"width": 3, "line-color": "#00c853"}},
        {"selector": f".{DIMMED}", "style": {"opacity": 0.25}},
    ]
    return style


def graph_widget(elements: dict[str, list[dict[str, Any]]], *, height: str = "460px",
                 layout: dict[str, Any] | None = None):  # noqa: ANN201 - ipycytoscape.CytoscapeWidget
    """An ipycytoscape widget of Cytoscape.js elements (``AnswerGraph.to_cytoscape()``), engram-styled.

    Parallel edges are kept (``multiple_edges=True``); ``classes`` of the elements select the seed and
    provenance styles. The layout runs in the browser when the widget is displayed.
    """
    import ipycytoscape

    widget = ipycytoscape.CytoscapeWidget()
    widget.graph.add_graph_from_json(elements, directed=False, multiple_edges=True)
    widget.set_style(cytoscape_style())
    widget.set_layout(**(layout or DEFAULT_LAYOUT))
    widget.set_tooltip_source("tooltip")
    widget.layout.height = height
    widget.layout.width = "100%"
    widget.add_class("engram-graph")
    return widget


def refit(widget) -> None:  # noqa: ANN001 - ipycytoscape.CytoscapeWidget
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


def set_highlight(widget, node_ids: set[str], *, edges: bool = True) -> int:  # noqa: ANN001
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


def legend_html(kinds: list[str] | None = None) -> str:
    """A small HTML legend: kind colours, heat scale, seed and provenance line styles."""
    by_color: dict[str, list[str]] = {}
    for kind in kinds if kinds is not None else list(KIND_COLORS):
        by_color.setdefault(kind_color(kind), []).append(kind)
    dots = "".join(f'<span style="margin-right:10px"><span style="display:inline-block;width:10px;height:10px;'
                   f'border-radius:50%;background:{c};border:1px solid #999"></span> {" / ".join(k)}</span>'
                   for c, k in by_color.items())
    heat = "".join(f'<span style="display:inline-block;width:14px;height:10px;background:{c}"></span>'
                   for c in HEAT_STOPS)
    lines = "".join(f'<span style="margin-right:10px"><span style="display:inline-block;width:22px;'
                    f'border-top:2px {spec["line_style"]} {spec["color"]};vertical-align:middle"></span> {name}</span>'
                    for name, spec in PROVENANCE_STYLES.items())
    return (f'<div class="engram-legend" style="font-size:11px;line-height:1.8">{dots}<br>'
            f'PPR heat (border) low {heat} high &nbsp; seed = black double border &nbsp; edges: {lines}</div>')


def subgraph_view(result: RetrievalResult, *, max_nodes: int = 60, height: str = "420px"):  # noqa: ANN201
    """An ipycytoscape widget of a result's PPR subgraph (no store needed; see ``Workspace.answer_graph``
    for the richer graph with literature edges): colour = kind, border = PPR heat, seeds outlined."""
    graph = build_answer_graph(result, None, max_nodes=max_nodes)
    return graph_widget(graph.to_cytoscape(), height=height)


def draw_subgraph(result: RetrievalResult, *, max_nodes: int = 40, ax=None, seed: int = 7):  # noqa: ANN001, ANN201
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
