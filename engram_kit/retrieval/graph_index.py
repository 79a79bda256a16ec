"""The combined graph PPR runs on: the knowledge graph plus the literature layer.

Node order: the knowledge-graph nodes first (as cached at workspace creation), then the literature
nodes (NounPhrases and Passages) appended from the store's MENTIONS / MAPS_TO / SAME_AS edges. The
knowledge-graph part is loaded from its CSR cache; only the (small) literature part is rebuilt after
ingestion, so reopening a workspace never rebuilds the 2.25M-edge adjacency from strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engram_kit.store.csr import CSRGraph


@dataclass
class GraphIndex:
    """A :class:`CSRGraph` over KG + literature nodes, with the passage bookkeeping retrieval needs.

    Attributes
    ----------
    graph : CSRGraph over ``n_kg`` knowledge-graph nodes followed by literature nodes.
    n_kg : number of knowledge-graph nodes (indices ``0 .. n_kg-1``).
    passage_nodes : int64 array, graph indices of Passage nodes.
    passage_ids : object array of passage ids, aligned with ``passage_nodes``.
    passage_sources : object array of sources (``"pubmed"``/``"uploaded"``), aligned likewise.
    kg_kinds : object array of shape (n_kg,), the Hetionet kind of each knowledge-graph node.
    """

    graph: CSRGraph
    n_kg: int
    passage_nodes: np.ndarray
    passage_ids: np.ndarray
    passage_sources: np.ndarray
    kg_kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object), repr=False)
    _passage_mask: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def build(cls, kg: CSRGraph, literature_edges: pd.DataFrame, article_sources: dict[str, str]) -> GraphIndex:
        """Append the literature layer to the cached knowledge-graph CSR.

        Parameters
        ----------
        kg : the knowledge-graph CSR (domain nodes only).
        literature_edges : frame ``source, target, rel_type, weight`` from
            :meth:`GraphStore.literature_edges`; endpoints not in ``kg`` become new nodes.
        article_sources : article id -> source, to label each passage's source.
        """
        n_kg = kg.n_nodes
        kinds = np.array([node_id.split("::", 1)[0] for node_id in kg.node_ids.tolist()], dtype=object)
        if literature_edges.empty:
            empty = np.zeros(0, dtype=np.int64)
            return cls(kg, n_kg, empty, np.zeros(0, dtype=object), np.zeros(0, dtype=object), kinds)
        src = literature_edges["source"].astype(str).to_numpy()
        dst = literature_edges["target"].astype(str).to_numpy()
        weights = literature_edges["weight"].astype(np.float32).to_numpy()
        kg_index = kg.index
        endpoints = pd.unique(np.concatenate([src, dst]))
        extra = np.array([node for node in endpoints if node not in kg_index], dtype=object)
        graph = kg.with_extra(extra, src, dst, weights)
        passage_mask = literature_edges["rel_type"].to_numpy() == "MENTIONS"
        passage_ids = pd.unique(src[passage_mask]).astype(object)
        index = graph.index
        passage_nodes = np.fromiter((index[p] for p in passage_ids), dtype=np.int64, count=len(passage_ids))
        sources = np.array([article_sources.get(p.split("#", 1)[0], "") for p in passage_ids], dtype=object)
        return cls(graph, n_kg, passage_nodes, passage_ids, sources, kinds)

    def index_of(self, node_id: str) -> int | None:
        """Graph index of a node id, or None if the node is not in the graph."""
        return self.graph.index.get(node_id)

    def is_kg(self, i: int) -> bool:
        """True for knowledge-graph (domain) nodes."""
        return i < self.n_kg

    def neighbours(self, i: int) -> np.ndarray:
        """Indices adjacent to node ``i`` (int array, unsorted)."""
        adj = self.graph.adjacency
        return adj.indices[adj.indptr[i]:adj.indptr[i + 1]]

    def passage_count(self, i: int) -> int:
        """Number of distinct passages that mention knowledge-graph node ``i`` through a NounPhrase
        (entity -> NounPhrase -> Passage); 0 for a node no passage mentions or a literature node.

        This is the corpus frequency behind HippoRAG's node specificity (``1 / |passages|``).
        """
        if not self.is_kg(i) or self.passage_nodes.size == 0:
            return 0
        if self._passage_mask is None:
            mask = np.zeros(self.graph.n_nodes, dtype=bool)
            mask[self.passage_nodes] = True
            self._passage_mask = mask
        phrases = self.neighbours(i)
        phrases = phrases[(phrases >= self.n_kg) & ~self._passage_mask[phrases]]
        if phrases.size == 0:
            return 0
        adj = self.graph.adjacency
        found = np.concatenate([adj.indices[adj.indptr[j]:adj.indptr[j + 1]] for j in phrases])
        return int(np.unique(found[self._passage_mask[found]]).size)
