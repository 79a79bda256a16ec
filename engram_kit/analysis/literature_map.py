"""The project view: merge selected per-document graphs into one literature map, with noise control.

A :class:`LiteratureMap` holds one :class:`~engram_kit.analysis.cooccurrence.DocumentGraph` per document
and a selection. :meth:`LiteratureMap.graph` merges the selected documents on request (summing sentence
counts, pooling evidence, recording which documents contributed to every node and edge) and applies the
noise control of a :class:`MapConfig`. Unticking a document (:meth:`LiteratureMap.deselect`) removes its
contribution at the next merge; nothing is re-extracted.

Edge weight
-----------
``sentences`` is always the raw co-occurrence count. The **analysis weight** ``weight`` used by Louvain,
betweenness, retrieval and discovery is::

    weight = (sentences + relation_bonus * pattern_sentences) * f(a) * f(b)

where ``pattern_sentences`` counts the sentences in which a typed verb pattern linked the pair and
``f`` is the document-frequency factor (:func:`engram_kit.analysis.noise.document_frequency_factor`, 1
when ``df_weighting`` is off). With ``weighting="pmi"`` the bracket is replaced by GraphRAG's PMI weight
of the pair (:func:`engram_kit.analysis.noise.pmi_weights`). ``distance = 1 / weight`` is stored for
shortest-path measures.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import networkx as nx
import pandas as pd

from engram_kit.analysis.cooccurrence import DocumentGraph, EdgeStats, EntityInfo, Evidence, MAX_EVIDENCE
from engram_kit.analysis.noise import (
    DEFAULT_MIN_OCCURRENCE,
    GENERIC_ENTITY_NAMES,
    document_frequency_factor,
    pmi_weights,
)
from engram_kit.errors import DataError
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["MapConfig", "MergedMap", "LiteratureMap", "RELATION_BONUS"]

#: Extra weight per sentence in which a typed verb pattern links the pair: an explicit "A induces B"
#: sentence counts twice as much as a bare co-occurrence. An engineering choice, not a fitted value.
RELATION_BONUS: float = Settings.map_relation_bonus


@dataclass(frozen=True)
class MapConfig:
    """Noise control and weighting of a merged literature map. Every field has a ``help`` text."""

    min_occurrence: int = field(default=DEFAULT_MIN_OCCURRENCE, metadata={
        "help": "Fewest sentences an edge needs in the merged map, >= 1; 4 as in Empirica. Nodes left "
                "without edges are dropped."})
    stoplist: frozenset[str] = field(default=GENERIC_ENTITY_NAMES, metadata={
        "help": "Normalised names of generic entities removed from the map (matched on the Hetionet "
                "name and on the surface form); empty to keep all. Default GENERIC_ENTITY_NAMES."})
    df_weighting: bool = field(default=True, metadata={
        "help": "Multiply edge weights by the document-frequency factors of both ends "
                "(log(1 + N/df) / log(1 + N), in (0, 1])."})
    weighting: Literal["count", "pmi"] = field(default="count", metadata={
        "help": "'count': sentences + relation bonus; 'pmi': GraphRAG's PMI-normalised weight "
                "p(a,b) log2(p(a,b) / (p(a) p(b))), edges with PMI <= 0 dropped."})
    relation_bonus: float = field(default=RELATION_BONUS, metadata={
        "help": "Weight added per sentence with a typed relation pattern, >= 0 (1.0: such a sentence "
                "counts double)."})
    keep_typed_edges: bool = field(default=False, metadata={
        "help": "Keep edges with a typed relation even below min_occurrence."})
    include_unlinked: bool = field(default=True, metadata={
        "help": "Keep NounPhrase nodes the resolver did not link to the knowledge graph."})

    def __post_init__(self) -> None:
        if self.min_occurrence < 1:
            raise DataError(f"MapConfig.min_occurrence={self.min_occurrence!r} is out of range: use an integer >= 1.")
        if self.weighting not in ("count", "pmi"):
            raise DataError(f"MapConfig.weighting={self.weighting!r} is not supported: use 'count' or 'pmi'.")
        if self.relation_bonus < 0:
            raise DataError(f"MapConfig.relation_bonus={self.relation_bonus!r} is out of range: use a value >= 0.")

    @classmethod
    def raw(cls) -> MapConfig:
        """No noise control at all: every pair, no stoplist, no df factor, count weights (the "before")."""
        return cls(min_occurrence=1, stoplist=frozenset(), df_weighting=False)

    def with_(self, **changes: Any) -> MapConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def describe(cls) -> dict[str, str]:
        """Field name -> help text."""
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}


@dataclass
class MergedMap:
    """Raw merge of the selected documents (before noise control).

    Attributes
    ----------
    entities : dict of str to EntityInfo
    entity_sentences : Counter
        Sentences mentioning each entity, over the selection.
    entity_documents : dict of str to list of str
        Documents mentioning each entity (document frequency = its length).
    edges : dict of (str, str) to EdgeStats
        Merged counts; evidence pooled in document order, at most MAX_EVIDENCE.
    edge_documents : dict of (str, str) to dict of str to int
        Per-document sentence counts of every edge (provenance).
    documents : list of str
        Document ids merged, in selection order.
    """

    entities: dict[str, EntityInfo] = field(default_factory=dict)
    entity_sentences: Counter[str] = field(default_factory=Counter)
    entity_documents: dict[str, list[str]] = field(default_factory=dict)
    edges: dict[tuple[str, str], EdgeStats] = field(default_factory=dict)
    edge_documents: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    documents: list[str] = field(default_factory=list)


class LiteratureMap:
    """Per-document co-occurrence graphs and a selection merged on request.

    Parameters
    ----------
    documents : iterable of DocumentGraph
        Per-document graphs (from :class:`~engram_kit.analysis.LiteratureMapBuilder`); all are selected.

    Raises
    ------
    DataError
        If two graphs share a document id.

    Examples
    --------
    >>> lit = LiteratureMap(builder.build_many(docs))   # doctest: +SKIP
    >>> lit.deselect(["pubmed:33969"])                   # doctest: +SKIP
    >>> g = lit.graph(MapConfig(min_occurrence=2))       # doctest: +SKIP
    """

    def __init__(self, documents: Iterable[DocumentGraph] = ()) -> None:
        self._documents: dict[str, DocumentGraph] = {}
        self._selected: dict[str, None] = {}
        self._merged: MergedMap | None = None
        for document in documents:
            self.add(document)

    # ------------------------------------------------------------------------------------- documents
    def add(self, document: DocumentGraph, *, selected: bool = True) -> None:
        """Add one document's graph (selected by default). Raises DataError for a repeated id."""
        if document.doc_id in self._documents:
            raise DataError(f"Document {document.doc_id!r} is already in the map; remove() it first to replace it.")
        self._documents[document.doc_id] = document
        if selected:
            self._selected[document.doc_id] = None
        self._merged = None

    def remove(self, doc_ids: Iterable[str]) -> None:
        """Forget documents entirely (unknown ids raise DataError)."""
        for doc_id in self._known(doc_ids):
            del self._documents[doc_id]
            self._selected.pop(doc_id, None)
        self._merged = None

    def select(self, doc_ids: Iterable[str] | None = None) -> None:
        """Tick documents (all when None); unknown ids raise DataError."""
        ids = list(self._documents) if doc_ids is None else self._known(doc_ids)
        for doc_id in ids:
            self._selected[doc_id] = None
        self._merged = None

    def deselect(self, doc_ids: Iterable[str]) -> None:
        """Untick documents: their contribution disappears from the next merge, nothing is reprocessed."""
        for doc_id in self._known(doc_ids):
            self._selected.pop(doc_id, None)
        self._merged = None

    def _known(self, doc_ids: Iterable[str]) -> list[str]:
        ids = [doc_ids] if isinstance(doc_ids, str) else list(doc_ids)
        unknown = [i for i in ids if i not in self._documents]
        if unknown:
            raise DataError(f"Unknown document id(s) {unknown[:5]}; the map holds {len(self._documents)} documents "
                            "(see LiteratureMap.document_ids).")
        return ids

    @property
    def document_ids(self) -> list[str]:
        """All document ids, in insertion order."""
        return list(self._documents)

    @property
    def selected_ids(self) -> list[str]:
        """Selected document ids, in selection order."""
        return list(self._selected)

    def document(self, doc_id: str) -> DocumentGraph:
        """The graph of one document (DataError when unknown)."""
        return self._documents[self._known([doc_id])[0]]

    # ------------------------------------------------------------------------------------------ merge
    def merged(self) -> MergedMap:
        """Raw merge of the selected documents (cached until the selection changes)."""
        if self._merged is None:
            started = time.perf_counter()
            self._merged = _merge([self._documents[d] for d in self._selected])
            log.debug("merged %d documents in %.3f s", len(self._selected), time.perf_counter() - started)
        return self._merged

    def cooccurring(self, entity_id: str) -> set[str]:
        """Every entity sharing at least one sentence with ``entity_id`` in the selection (no filtering)."""
        found: set[str] = set()
        for a, b in self.merged().edges:
            if a == entity_id:
                found.add(b)
            elif b == entity_id:
                found.add(a)
        return found

    def graph(self, config: MapConfig | None = None) -> nx.Graph:
        """The merged, noise-controlled map of the selected documents.

        Parameters
        ----------
        config : MapConfig, optional
            Noise control; default ``MapConfig()`` (min 4 sentences, stoplist, df factor, count weights).
            ``MapConfig.raw()`` gives the unfiltered map.

        Returns
        -------
        networkx.Graph
            Graph attributes ``documents`` (ids merged), ``config`` (the MapConfig). Node attributes:
            ``name, kind, resolved, sentences, df, df_factor, documents`` (list of doc ids). Edge
            attributes: ``sentences`` (int, raw count), ``pattern_sentences``, ``weight`` (analysis weight,
            > 0, see the module docstring), ``distance`` (``1 / weight``), ``relation``
            (``"CAUSES"`` ... or ``""``), ``relation_source``, ``relation_target``, ``relations`` (list of
            ``"A CAUSES B"`` strings with counts), ``documents`` (dict doc id -> sentences),
            ``evidence`` and ``relation_evidence`` (lists of Evidence).
        """
        config = config or MapConfig()
        merged = self.merged()
        n_docs = max(1, len(merged.documents))
        dropped = {e for e, info in merged.entities.items()
                   if (config.stoplist and (info.normalized in config.stoplist or info.surface in config.stoplist))
                   or (not config.include_unlinked and not info.resolved)}
        kept: dict[tuple[str, str], EdgeStats] = {}
        for key, stats in merged.edges.items():
            if key[0] in dropped or key[1] in dropped:
                continue
            if stats.sentences >= config.min_occurrence or (config.keep_typed_edges and stats.relations):
                kept[key] = stats
        base = {k: s.sentences + config.relation_bonus * s.pattern_sentences for k, s in kept.items()}
        if config.weighting == "pmi":
            base = pmi_weights(base, merged.entity_sentences)
        factor = {e: (document_frequency_factor(len(docs), n_docs) if config.df_weighting else 1.0)
                  for e, docs in merged.entity_documents.items()}
        graph = nx.Graph(documents=list(merged.documents), config=config)
        for (a, b), value in base.items():
            stats = kept[(a, b)]
            weight = value * factor[a] * factor[b]
            if weight <= 0:
                continue
            for node in (a, b):
                if node not in graph:
                    info = merged.entities[node]
                    graph.add_node(node, name=info.name, kind=info.kind, resolved=info.resolved,
                                   sentences=merged.entity_sentences[node], df=len(merged.entity_documents[node]),
                                   df_factor=factor[node], documents=list(merged.entity_documents[node]))
            top = stats.top_relation()
            graph.add_edge(
                a, b, sentences=stats.sentences, pattern_sentences=stats.pattern_sentences, weight=weight,
                distance=1.0 / weight, relation=top[0] if top else "", relation_source=top[1] if top else "",
                relation_target=top[2] if top else "",
                relations=[f"{merged.entities[s].name} {r} {merged.entities[t].name} (x{n})"
                           for (r, s, t), n in stats.relations.most_common()],
                documents=dict(merged.edge_documents[(a, b)]), evidence=list(stats.evidence),
                relation_evidence=list(stats.relation_evidence))
        return graph

    # ----------------------------------------------------------------------------------------- frames
    def nodes_frame(self, config: MapConfig | None = None, graph: nx.Graph | None = None) -> pd.DataFrame:
        """Nodes of :meth:`graph` as a DataFrame (``id, name, kind, sentences, df, df_factor, degree``)."""
        graph = graph if graph is not None else self.graph(config)
        rows = [{"id": n, "name": d["name"], "kind": d["kind"], "sentences": d["sentences"], "df": d["df"],
                 "df_factor": round(d["df_factor"], 3), "degree": graph.degree(n)} for n, d in graph.nodes(data=True)]
        columns = ["id", "name", "kind", "sentences", "df", "df_factor", "degree"]
        return pd.DataFrame(rows, columns=columns).sort_values(["sentences", "id"], ascending=[False, True],
                                                               ignore_index=True)

    def edges_frame(self, config: MapConfig | None = None, graph: nx.Graph | None = None) -> pd.DataFrame:
        """Edges of :meth:`graph` as a DataFrame, strongest first.

        Columns: ``source, target, source_name, target_name, sentences, pattern_sentences, weight, relation,
        direction, n_documents, documents, evidence`` (first evidence sentence, pattern evidence preferred).
        """
        graph = graph if graph is not None else self.graph(config)
        rows = []
        for a, b, d in graph.edges(data=True):
            names = {n: graph.nodes[n]["name"] for n in (a, b)}
            first = (d["relation_evidence"] or d["evidence"] or [None])[0]
            rows.append({
                "source": a, "target": b, "source_name": names[a], "target_name": names[b],
                "sentences": d["sentences"], "pattern_sentences": d["pattern_sentences"],
                "weight": round(d["weight"], 6), "relation": d["relation"],
                "direction": (f"{names[d['relation_source']]} -> {names[d['relation_target']]}"
                              if d["relation"] else ""),
                "n_documents": len(d["documents"]), "documents": ", ".join(d["documents"]),
                "evidence": first.text if first is not None else "",
            })
        columns = ["source", "target", "source_name", "target_name", "sentences", "pattern_sentences", "weight",
                   "relation", "direction", "n_documents", "documents", "evidence"]
        return pd.DataFrame(rows, columns=columns).sort_values(["weight", "source", "target"],
                                                               ascending=[False, True, True], ignore_index=True)

    def documents_frame(self) -> pd.DataFrame:
        """One row per document: ``doc_id, selected, sentences, excluded, mentions, entities, edges``."""
        rows = [{"doc_id": d, "selected": d in self._selected, "sentences": len(g.sentences),
                 "excluded": len(g.excluded), "mentions": g.n_mentions, "entities": len(g.entities),
                 "edges": len(g.edges)} for d, g in self._documents.items()]
        return pd.DataFrame(rows, columns=["doc_id", "selected", "sentences", "excluded", "mentions", "entities",
                                           "edges"])

    def __repr__(self) -> str:
        return f"LiteratureMap(documents={len(self._documents)}, selected={len(self._selected)})"


def _merge(documents: list[DocumentGraph]) -> MergedMap:
    merged = MergedMap(documents=[d.doc_id for d in documents])
    for document in documents:
        for entity_id, info in document.entities.items():
            merged.entities.setdefault(entity_id, info)
            merged.entity_documents.setdefault(entity_id, []).append(document.doc_id)
        merged.entity_sentences.update(document.entity_sentences)
        for key, stats in document.edges.items():
            target = merged.edges.get(key)
            if target is None:
                target = merged.edges[key] = EdgeStats()
                merged.edge_documents[key] = {}
            target.sentences += stats.sentences
            merged.edge_documents[key][document.doc_id] = stats.sentences
            _extend(target.evidence, stats.evidence)
            if stats.relations:
                target.relations.update(stats.relations)
                _extend(target.relation_evidence, stats.relation_evidence)
    return merged


def _extend(kept: list[Evidence], more: list[Evidence]) -> None:
    room = MAX_EVIDENCE - len(kept)
    if room > 0:
        kept.extend(more[:room])
