"""Graph explorer: start from an entity, expand its neighbourhood by relationship type, inspect provenance.

No LLM and no retrieval: search uses ``Workspace.search_entities`` (names and synonyms of the lexicon),
expansion uses ``Workspace.neighbourhood`` (typed knowledge-graph edges with Hetionet's ``sources`` /
``license`` / ``pubmed_ids``). Clicking a node shows its details and the provenance of the edges drawn to
it; "expand" adds that node's neighbours (of the chosen relationship types) to the drawing.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from engram_kit.errors import EngramError
from engram_kit.exploration import Neighbourhood
from engram_widgets.graph import graph_widget, legend_html, refit, set_highlight

#: Neighbours drawn per expansion at first ("show more" adds as many again).
NEIGHBOURS_FIRST = 40
#: Autocomplete suggestions shown.
SUGGESTIONS = 15


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def provenance_table(rows: Any, *, limit: int = 25) -> str:
    """HTML table of edge rows (``rel_type, direction, neighbour_name, sources, license, pubmed_ids``)."""
    if rows is None or len(rows) == 0:
        return "<i>No edge.</i>"
    body = "".join(
        f"<tr><td>{_e(r.rel_type)}</td><td>{'→' if r.direction == 'out' else '←'} {_e(r.neighbour_name)}</td>"
        f"<td>{_e(r.sources or '—')}</td><td>{_e(r.license or '—')}</td>"
        f"<td>{_e((r.pubmed_ids or '—')[:40])}</td></tr>"
        for r in rows.head(limit).itertuples(index=False))
    more = f"<tr><td colspan=5><i>… {len(rows) - limit} more</i></td></tr>" if len(rows) > limit else ""
    return ('<table style="font-size:11px"><tr><th>relationship</th><th>node</th><th>sources</th><th>licence</th>'
            f"<th>PubMed</th></tr>{body}{more}</table>")


class GraphExplorer:
    """Entity search with autocomplete, typed neighbourhood expansion, node details with provenance.

    Parameters
    ----------
    workspace : an open workspace (read-only is fine).
    height : CSS height of the graph.
    """

    def __init__(self, workspace: Any, *, height: str = "460px") -> None:
        self.workspace = workspace
        self.height = height
        self.neighbourhoods: dict[str, Neighbourhood] = {}
        self.expanded: list[str] = []
        self.limit = NEIGHBOURS_FIRST
        self._choices: dict[str, str] = {}
        self.cytoscape: Any = None
        self.search = widgets.Combobox(placeholder="Type an entity name or synonym (e.g. BACE1, Alzheimer)",
                                       ensure_option=False, layout=widgets.Layout(width="460px"))
        self.search.add_class("engram-entity-search")
        self.search.observe(self._on_type, names="value")
        self.rel_types = widgets.SelectMultiple(description="Relationships:", rows=6,
                                                layout=widgets.Layout(width="420px"))
        self.expand_button = widgets.Button(description="expand selected node", disabled=True)
        self.expand_button.on_click(lambda _: self.expand(self.selected) if self.selected else None)
        self.more = widgets.Button(description="show more neighbours", disabled=True)
        self.more.on_click(lambda _: self._show_more())
        self.reset = widgets.Button(description="clear")
        self.reset.on_click(lambda _: self.clear())
        self.status = widgets.HTML("")
        self.details = widgets.HTML("<i>Search an entity to start.</i>",
                                    layout=widgets.Layout(max_height="520px", overflow="auto"))
        self.details.add_class("engram-node-details")
        self.area = widgets.Box(layout=widgets.Layout(width="100%"))
        self.selected: str | None = None
        left = widgets.VBox([self.area, widgets.HTML(legend_html())], layout=widgets.Layout(width="62%"))
        right = widgets.VBox([widgets.HTML("<b>Node details</b>"), self.details], layout=widgets.Layout(width="37%"))
        self.widget = widgets.VBox([
            widgets.HBox([self.search, self.reset]),
            widgets.HBox([self.rel_types, widgets.VBox([self.expand_button, self.more])]),
            self.status, widgets.HBox([left, right]),
        ])
        self.widget.add_class("engram-explorer")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # --- search ------------------------------------------------------------------------------------
    def suggest(self, text: str) -> list[str]:
        """Autocomplete labels for ``text`` (also sets the Combobox options)."""
        matches = self.workspace.search_entities(text, limit=SUGGESTIONS).matches if text.strip() else []
        self._choices = {m.label: m.node_id for m in matches}
        self.search.options = list(self._choices)
        return list(self._choices)

    def _on_type(self, change: dict[str, Any]) -> None:
        text = change["new"]
        if text in self._choices:
            self.start(self._choices[text])
        else:
            self.suggest(text)

    # --- graph ---------------------------------------------------------------------------------------
    def start(self, node_id: str) -> Neighbourhood:
        """Clear the drawing and expand ``node_id``."""
        self.clear()
        return self.expand(node_id)

    def expand(self, node_id: str) -> Neighbourhood:
        """Add ``node_id``'s neighbours (of the selected relationship types) to the drawing."""
        try:
            hood = self.workspace.neighbourhood(node_id)
        except EngramError as exc:
            self.status.value = f'<span style="color:#c62828">{_e(exc)}</span>'
            raise
        self.neighbourhoods[node_id] = hood
        if node_id not in self.expanded:
            self.expanded.append(node_id)
        chosen = set(self.rel_types.value)
        self.rel_types.options = [(f"{t} ({n})", t) for t, n in hood.rel_type_counts.items()]
        self.rel_types.value = tuple(t for t in hood.rel_type_counts if t in chosen)
        self._draw()
        self.select(node_id)
        return hood

    def _filtered(self, hood: Neighbourhood) -> Any:
        types = set(self.rel_types.value)
        edges = hood.edges if not types else hood.edges[hood.edges["rel_type"].isin(types)]
        keep = list(dict.fromkeys(edges["neighbour_id"]))[: self.limit]
        return edges[edges["neighbour_id"].isin(keep)]

    def elements(self) -> dict[str, list[dict[str, Any]]]:
        """Cytoscape.js elements of everything expanded so far (merged, parallel edges kept)."""
        nodes: dict[str, dict[str, Any]] = {}
        edges: dict[str, dict[str, Any]] = {}
        for hood in self.neighbourhoods.values():
            star = Neighbourhood(hood.node_id, hood.name, hood.kind, self._filtered(hood), hood.rel_type_counts)
            data = star.to_cytoscape()
            for node in data["nodes"]:
                node["classes"] = "seed" if node["data"]["id"] in self.expanded else ""
                nodes.setdefault(node["data"]["id"], node)
            for edge in data["edges"]:
                edges.setdefault(edge["data"]["id"], edge)
        return {"nodes": list(nodes.values()), "edges": list(edges.values())}

    def _draw(self) -> None:
        data = self.elements()
        self.cytoscape = graph_widget(data, height=self.height)
        self.cytoscape.on("node", "click", lambda event: self.select(str(event["data"]["id"])))
        self.area.children = [self.cytoscape]
        total = sum(len(set(h.edges["neighbour_id"])) for h in self.neighbourhoods.values())
        self.status.value = (f'<span style="font-size:11px;color:#666">{len(data["nodes"])} nodes, {len(data["edges"])} '
                             f'edges drawn ({total} neighbours in total); click a node for details, select '
                             "relationship types and expand.</span>")
        self.more.disabled = all(len(set(self._filtered(h)["neighbour_id"])) >= len(set(h.edges["neighbour_id"]))
                                 for h in self.neighbourhoods.values())

    def _show_more(self) -> None:
        self.limit += NEIGHBOURS_FIRST
        self._draw()

    def select(self, node_id: str) -> str:
        """Show ``node_id``'s details: kind, id, degree by relationship type and edge provenance."""
        self.selected = node_id
        self.expand_button.disabled = False
        hood = self.neighbourhoods.get(node_id) or self.workspace.neighbourhood(node_id)
        drawn = [(h, h.edges[h.edges["neighbour_id"] == node_id]) for c, h in self.neighbourhoods.items() if c != node_id]
        counts = ", ".join(f"{t}: {n}" for t, n in hood.rel_type_counts.items()) or "no edges"
        edges_html = "".join(f"<p><b>Edges with {_e(h.name)}:</b>{provenance_table(d)}</p>" for h, d in drawn if len(d))
        self.details.value = (
            f"<p><b>{_e(hood.name)}</b> ({_e(hood.kind)})<br><code>{_e(node_id)}</code><br>"
            f"<span style='font-size:11px'>{'(truncated) ' if hood.truncated else ''}{counts}</span></p>"
            f"{edges_html}<p><b>Provenance of its edges</b> (Hetionet sources / licence):</p>"
            f"{provenance_table(hood.edges)}")
        if self.cytoscape is not None:
            set_highlight(self.cytoscape, {node_id}, edges=False)
        return self.details.value

    def clear(self) -> None:
        self.neighbourhoods.clear()
        self.expanded.clear()
        self.limit = NEIGHBOURS_FIRST
        self.area.children = []
        self.cytoscape = None
        self.selected = None
        self.expand_button.disabled = True
        self.details.value = "<i>Search an entity to start.</i>"

    def refit(self) -> None:
        if self.cytoscape is not None:
            refit(self.cytoscape)
