"""Entity-indexed retrieval over a literature map: entity -> chunks, with one-hop neighbour expansion.

A chunk is a retrievable piece of text: a sentence (``"<doc id>#s<position>"``) or a whole document. The
index maps every entity id to the chunks mentioning it. A query is a set of entity ids (resolve the
question's mentions first, e.g. with :meth:`LiteratureMapBuilder.link`). Scoring of a chunk ``c``::

    score(c) = sum over query entities q in c of 1
             + neighbour_weight * sum over expansion entities n in c of  w(q, n) / max_n' w(q, n')

where the expansion entities of ``q`` are its ``neighbours`` strongest map neighbours (one hop, by
analysis weight). A chunk naming the query entity always outranks one naming only neighbours, as long
as ``neighbour_weight`` < 1 / neighbours. Ties are broken by chunk id. Each expansion is reported with the
evidence sentences of its edge, so a reader sees why a neighbour was added.

This is the entity-centred retriever of literature-based discovery tools (e.g. the "local search" of
Microsoft GraphRAG, Edge et al. 2024, restricted to co-occurrence neighbours), not a replacement for the
PPR + embedding retriever of :mod:`engram_kit.retrieval`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import pandas as pd

from engram_kit.analysis.cooccurrence import DocumentGraph
from engram_kit.errors import DataError, QueryError

__all__ = ["EntityIndex", "EntityRetrieval"]


@dataclass
class EntityRetrieval:
    """Result of :meth:`EntityIndex.retrieve`.

    Attributes
    ----------
    query : tuple of str
        Query entity ids that the index knows (unknown ones are listed in ``unknown``).
    unknown : tuple of str
        Query entity ids that no chunk mentions.
    chunks : DataFrame
        ``chunk_id, doc_id, score, query_entities, neighbour_entities, text``; best first, at most top_k.
    expansions : DataFrame
        ``entity, neighbour, neighbour_name, weight, sentences, evidence`` (first evidence sentence).
    """

    query: tuple[str, ...]
    unknown: tuple[str, ...]
    chunks: pd.DataFrame
    expansions: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The ranked chunks."""
        return self.chunks


class EntityIndex:
    """Entity id -> chunk ids, with the chunk texts.

    Parameters
    ----------
    chunk_entities : mapping chunk id -> iterable of entity ids
    chunk_texts : mapping chunk id -> str, optional
    chunk_documents : mapping chunk id -> document id, optional (defaults to the part before ``#``)
    """

    def __init__(self, chunk_entities: Mapping[str, Iterable[str]], chunk_texts: Mapping[str, str] | None = None,
                 chunk_documents: Mapping[str, str] | None = None) -> None:
        self._chunks: dict[str, tuple[str, ...]] = {c: tuple(dict.fromkeys(e)) for c, e in chunk_entities.items()}
        self._texts = dict(chunk_texts or {})
        self._docs = dict(chunk_documents or {})
        index: dict[str, list[str]] = defaultdict(list)
        for chunk, entities in self._chunks.items():
            for entity in entities:
                index[entity].append(chunk)
        self._index = dict(index)

    @classmethod
    def from_documents(cls, documents: Iterable[DocumentGraph], *, level: str = "sentence") -> EntityIndex:
        """Index document graphs by sentence (``"<doc>#s<i>"``) or by document (``level="document"``).

        Raises
        ------
        DataError
            If ``level`` is neither ``"sentence"`` nor ``"document"``.
        """
        if level not in ("sentence", "document"):
            raise DataError(f"level={level!r} is not supported: use 'sentence' or 'document'.")
        entities: dict[str, list[str]] = {}
        texts: dict[str, str] = {}
        docs: dict[str, str] = {}
        for document in documents:
            by_index = {s.index: s for s in document.sentences}
            if level == "document":
                entities[document.doc_id] = [e for ids in document.sentence_entities.values() for e in ids]
                texts[document.doc_id] = " ".join(s.text for s in document.sentences)
                docs[document.doc_id] = document.doc_id
                continue
            for position, ids in document.sentence_entities.items():
                chunk = f"{document.doc_id}#s{position}"
                entities[chunk] = list(ids)
                texts[chunk] = by_index[position].text
                docs[chunk] = document.doc_id
        return cls(entities, texts, docs)

    def __len__(self) -> int:
        return len(self._chunks)

    def chunks_of(self, entity_id: str) -> list[str]:
        """Chunk ids mentioning an entity (empty when none)."""
        return list(self._index.get(entity_id, ()))

    def entities_of(self, chunk_id: str) -> tuple[str, ...]:
        """Entity ids of a chunk (empty when unknown)."""
        return self._chunks.get(chunk_id, ())

    def retrieve(
        self,
        entities: Sequence[str],
        *,
        graph: nx.Graph | None = None,
        neighbours: int = 5,
        neighbour_weight: float = 0.1,
        top_k: int = 10,
    ) -> EntityRetrieval:
        """Rank chunks by the query entities and their one-hop map neighbours they mention.

        Parameters
        ----------
        entities : sequence of str
            Query entity ids (Hetionet ids or NounPhrase ids), >= 1.
        graph : networkx.Graph, optional
            The literature map used for expansion (:meth:`LiteratureMap.graph`); None: no expansion.
        neighbours : int
            Strongest neighbours added per query entity, >= 0.
        neighbour_weight : float
            Score of a chunk per expansion entity at full relative weight, in [0, 1]; 0.1 keeps direct
            mentions first for up to 10 neighbours.
        top_k : int
            Chunks returned, >= 1.

        Returns
        -------
        EntityRetrieval

        Raises
        ------
        QueryError
            If ``entities`` is empty or a parameter is out of range.
        """
        if not entities:
            raise QueryError("retrieve() needs at least one query entity id (resolve the question's mentions first).")
        if neighbours < 0 or top_k < 1 or not 0.0 <= neighbour_weight <= 1.0:
            raise QueryError(f"neighbours={neighbours}, top_k={top_k}, neighbour_weight={neighbour_weight} out of "
                             "range: use neighbours >= 0, top_k >= 1, neighbour_weight in [0, 1].")
        query = tuple(dict.fromkeys(entities))
        known = tuple(e for e in query if e in self._index or (graph is not None and e in graph))
        unknown = tuple(e for e in query if e not in known)
        expansion_rows = []
        boosts: dict[str, float] = defaultdict(float)
        if graph is not None and neighbours > 0:
            for q in known:
                if q not in graph:
                    continue
                ranked = sorted(graph[q].items(), key=lambda kv: (-kv[1].get("weight", 1.0), str(kv[0])))[:neighbours]
                if not ranked:
                    continue
                top = max(d.get("weight", 1.0) for _, d in ranked)
                for n, d in ranked:
                    if n in query:
                        continue
                    relative = d.get("weight", 1.0) / top
                    boosts[n] = max(boosts[n], relative)
                    evidence = (d.get("relation_evidence") or d.get("evidence") or [None])[0]
                    expansion_rows.append({"entity": q, "neighbour": n,
                                           "neighbour_name": graph.nodes[n].get("name", n),
                                           "weight": d.get("weight", 1.0), "sentences": d.get("sentences", 0),
                                           "evidence": evidence.text if evidence is not None else ""})
        scores: dict[str, float] = defaultdict(float)
        matched_q: dict[str, list[str]] = defaultdict(list)
        matched_n: dict[str, list[str]] = defaultdict(list)
        for q in known:
            for chunk in self._index.get(q, ()):
                scores[chunk] += 1.0
                matched_q[chunk].append(q)
        for n, relative in boosts.items():
            for chunk in self._index.get(n, ()):
                scores[chunk] += neighbour_weight * relative
                matched_n[chunk].append(n)
        ranked_chunks = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
        rows = [{"chunk_id": c, "doc_id": self._docs.get(c, c.split("#", 1)[0]), "score": round(s, 6),
                 "query_entities": ", ".join(matched_q.get(c, ())), "neighbour_entities": ", ".join(matched_n.get(c, ())),
                 "text": self._texts.get(c, "")} for c, s in ranked_chunks]
        chunks = pd.DataFrame(rows, columns=["chunk_id", "doc_id", "score", "query_entities", "neighbour_entities",
                                             "text"])
        expansions = pd.DataFrame(expansion_rows, columns=["entity", "neighbour", "neighbour_name", "weight",
                                                           "sentences", "evidence"])
        return EntityRetrieval(query=known, unknown=unknown, chunks=chunks, expansions=expansions)
