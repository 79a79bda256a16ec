"""Link a literature map to the knowledge graph: which co-occurrence edges are curated Hetionet edges.

Map nodes are Hetionet node ids when resolved, so an edge of the map can be looked up among the curated
edges. The caller supplies the look-up: any callable ``(a, b) -> sequence of metaedge abbreviations``
(empty when the pair is not a curated edge), e.g. a store query. :class:`CuratedEdgeIndex` builds one
in memory from an edge table (``KnowledgeGraph.edges`` of :func:`engram_kit.kg.hetionet.load_hetionet`,
or any ``source, metaedge, target`` rows). The look-up is undirected: literature co-occurrence has no
direction, and only ``Gr>G`` is directed in Hetionet.

Edges between two resolved entities that Hetionet does not hold are the "new in the literature" edges:
the ones worth reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import networkx as nx
import pandas as pd

from engram_kit.errors import DataError

__all__ = ["CuratedEdgeIndex", "EdgeLookup", "KG_STATUSES", "link_to_knowledge_graph"]

#: Values of the ``kg_status`` edge attribute / column.
KG_STATUSES: tuple[str, ...] = ("curated", "new in literature", "unlinked entity")


class EdgeLookup(Protocol):
    """Anything answering "which curated metaedges join these two entity ids?" (undirected)."""

    def __call__(self, a: str, b: str) -> Sequence[str]: ...


class CuratedEdgeIndex:
    """In-memory undirected index of curated edges: sorted pair -> metaedge abbreviations.

    Parameters
    ----------
    edges : DataFrame or iterable of (source, metaedge, target)
        A frame with columns ``source, metaedge, target`` (``KnowledgeGraph.edges``) or plain triples.

    Raises
    ------
    DataError
        If a frame lacks one of the three columns.

    Examples
    --------
    >>> index = CuratedEdgeIndex([("Compound::DB00331", "CtD", "Disease::DOID:9352")])
    >>> index("Disease::DOID:9352", "Compound::DB00331")
    ('CtD',)
    """

    def __init__(self, edges: pd.DataFrame | Iterable[tuple[str, str, str]]) -> None:
        if isinstance(edges, pd.DataFrame):
            missing = [c for c in ("source", "metaedge", "target") if c not in edges.columns]
            if missing:
                raise DataError(f"The edge table lacks columns {missing}; expected source, metaedge, target "
                                "(KnowledgeGraph.edges).")
            triples: Iterable[tuple[str, str, str]] = zip(edges["source"], edges["metaedge"], edges["target"])
        else:
            triples = edges
        index: dict[tuple[str, str], tuple[str, ...]] = {}
        for source, metaedge, target in triples:
            key = (source, target) if source <= target else (target, source)
            kept = index.get(key, ())
            if metaedge not in kept:
                index[key] = kept + (metaedge,)
        self._index = index

    def __call__(self, a: str, b: str) -> tuple[str, ...]:
        return self._index.get((a, b) if a <= b else (b, a), ())

    def __len__(self) -> int:
        return len(self._index)


def link_to_knowledge_graph(
    graph: nx.Graph, lookup: EdgeLookup | Callable[[str, str], Sequence[str]]
) -> pd.DataFrame:
    """Mark every map edge as curated in the knowledge graph, new in the literature, or unlinked.

    Sets the edge attributes ``kg_status`` (one of :data:`KG_STATUSES`) and ``metaedges`` (tuple of
    abbreviations, empty unless curated) on ``graph`` in place.

    Parameters
    ----------
    graph : networkx.Graph
        A literature map (:meth:`LiteratureMap.graph`); nodes with ``resolved=False`` are NounPhrases.
    lookup : callable (a, b) -> sequence of str
        Curated metaedges between two entity ids, e.g. a :class:`CuratedEdgeIndex`.

    Returns
    -------
    DataFrame
        One row per edge: ``source, target, source_name, target_name, source_kind, target_kind,
        sentences, weight, relation, kg_status, metaedges, evidence``; new-in-literature edges first, then
        curated, then unlinked, each by decreasing weight.
    """
    rows = []
    for a, b, d in graph.edges(data=True):
        na, nb = graph.nodes[a], graph.nodes[b]
        metaedges: tuple[str, ...]
        if not (na.get("resolved", True) and nb.get("resolved", True)):
            status, metaedges = "unlinked entity", ()
        else:
            metaedges = tuple(lookup(a, b))
            status = "curated" if metaedges else "new in literature"
        d["kg_status"], d["metaedges"] = status, metaedges
        evidence = (d.get("relation_evidence") or d.get("evidence") or [None])[0]
        rows.append({"source": a, "target": b, "source_name": na.get("name", a), "target_name": nb.get("name", b),
                     "source_kind": na.get("kind", ""), "target_kind": nb.get("kind", ""),
                     "sentences": d.get("sentences", 0), "weight": d.get("weight", 1.0),
                     "relation": d.get("relation", ""), "kg_status": status, "metaedges": ", ".join(metaedges),
                     "evidence": evidence.text if evidence is not None else ""})
    columns = ["source", "target", "source_name", "target_name", "source_kind", "target_kind", "sentences",
               "weight", "relation", "kg_status", "metaedges", "evidence"]
    frame = pd.DataFrame(rows, columns=columns)
    order = {s: i for i, s in enumerate(("new in literature", "curated", "unlinked entity"))}
    frame["_order"] = frame["kg_status"].map(order)
    return frame.sort_values(["_order", "weight", "source", "target"], ascending=[True, False, True, True],
                             ignore_index=True).drop(columns="_order")
