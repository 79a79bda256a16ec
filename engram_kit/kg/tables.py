"""Columns of the node and edge tables a graph loader returns and :meth:`GraphStore.load_knowledge_graph
<engram_kit.store.base.GraphStore.load_knowledge_graph>` takes.

They live in :mod:`engram_kit.kg` (below :mod:`engram_kit.store` in the import layers, docs/architecture.md) so
the loaders and the stores share one definition without the graph package importing the store package.
"""

from __future__ import annotations

#: Columns of the node frame given to :meth:`GraphStore.load_knowledge_graph`.
NODE_COLUMNS: tuple[str, ...] = ("id", "kind", "identifier", "name")
#: Columns of the edge frame (property columns may be empty strings / NaN).
EDGE_COLUMNS: tuple[str, ...] = ("source", "metaedge", "target", "sources", "license", "unbiased", "pubmed_ids")
