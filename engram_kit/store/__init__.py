"""Storage stage: the graph store interface, its embedded LadybugDB backend, the backends' statement packs and the
passage vector store.

``GraphStore`` (:mod:`engram_kit.store.base`) is what the other stages use; ``LadybugStore`` is the
default embedded backend; every backend's Cypher is its ``StatementPack`` (:mod:`engram_kit.store.statements`,
``store.statements``); ``VectorStore`` keeps passage embeddings (chromadb). The in-memory CSR graph
lives in :mod:`engram_kit.store.csr` (import it from there).
"""

from __future__ import annotations

from engram_kit.store.base import EDGE_COLUMNS, NODE_COLUMNS, GraphStore
from engram_kit.store.statements import schema_statements, statement  # deprecated: use store.statements
from engram_kit.store.ladybug import LadybugStore
from engram_kit.store.statements import StatementPack
from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS

__all__ = [
    "EDGE_COLUMNS",
    "LADYBUG_STATEMENTS",
    "NODE_COLUMNS",
    "GraphStore",
    "LadybugStore",
    "StatementPack",
    "VectorStore",
    "schema_statements",
    "statement",
]


def __getattr__(name: str):  # chromadb takes seconds to import; load it on first use
    if name == "VectorStore":
        from engram_kit.store.vectors import VectorStore

        return VectorStore
    raise AttributeError(name)
