"""Storage stage: the graph store interface, its embedded LadybugDB backend, the Cypher registry and the
passage vector store.

``GraphStore`` (:mod:`engram_kit.store.base`) is what the other stages use; ``LadybugStore`` is the
default embedded backend; ``VectorStore`` keeps passage embeddings (chromadb). The in-memory CSR graph
lives in :mod:`engram_kit.store.csr` (import it from there).
"""

from __future__ import annotations

from engram_kit.store.base import EDGE_COLUMNS, NODE_COLUMNS, GraphStore
from engram_kit.store.cypher import STATEMENTS, schema_statements, statement
from engram_kit.store.ladybug import LadybugStore

__all__ = [
    "EDGE_COLUMNS",
    "NODE_COLUMNS",
    "STATEMENTS",
    "GraphStore",
    "LadybugStore",
    "VectorStore",
    "schema_statements",
    "statement",
]


def __getattr__(name: str):  # chromadb takes seconds to import; load it on first use
    if name == "VectorStore":
        from engram_kit.store.vectors import VectorStore

        return VectorStore
    raise AttributeError(name)
