"""engram_widgets: the Jupyter layer of engram-kit (ipywidgets + ipycytoscape).

Widgets only render objects returned by the core API (:mod:`engram_kit`); they compute nothing.

* :class:`~engram_widgets.assistant.ResearchAssistant` -- chat, knowledge graph and evidence panels;
* :class:`~engram_widgets.explorer.GraphExplorer` -- entity search, typed neighbourhoods, provenance;
* :class:`~engram_widgets.documents.DocumentRepositoryWidget` -- upload and manage documents;
* :func:`~engram_widgets.dashboard.dashboard` -- all three in tabs (the Voila app of ``engram dashboard``);
* :mod:`engram_widgets.graph` -- the ipycytoscape view and its style (Hetionet colours, PPR heat).

Names are imported lazily, so ``import engram_widgets`` stays light (the dashboard paints before
engram-kit's models load).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS: dict[str, str] = {
    "KIND_COLORS": "engram_widgets.graph",
    "draw_subgraph": "engram_widgets.graph",
    "subgraph_view": "engram_widgets.graph",
    "graph_widget": "engram_widgets.graph",
    "ResearchAssistant": "engram_widgets.assistant",
    "GraphExplorer": "engram_widgets.explorer",
    "DocumentRepositoryWidget": "engram_widgets.documents",
    "Dashboard": "engram_widgets.dashboard",
    "dashboard": "engram_widgets.dashboard",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'engram_widgets' has no attribute {name!r}")
