"""engram_widgets: the Jupyter layer of engram-kit (ipywidgets + ipycytoscape).

Widgets only render objects returned by the core API (:mod:`engram_kit`); they compute nothing.
"""

from __future__ import annotations

from engram_widgets.graph import KIND_COLORS, draw_subgraph, subgraph_view

__all__ = ["KIND_COLORS", "draw_subgraph", "subgraph_view"]
