"""Per-document sentence co-occurrence graphs with evidence and typed relations.

For every sentence of a document the recognised entities are paired; an edge is keyed on the sorted
pair of entity ids, its weight is the number of sentences the pair shares, and it keeps up to
:data:`MAX_EVIDENCE` evidence sentences (document id, sentence position, character offsets). Counting is
per sentence: an entity named three times in one sentence counts once there.

Entity ids are the resolved Hetionet node ids (``"Compound::DB00988"``) when the resolver links a
mention with confidence >= ``min_link_confidence``, otherwise the NounPhrase id of the mention
(``"np:Unlinked:<normalised name>"``, as :mod:`engram_kit.ingestion` names unlinked phrases), so a
literature map and the knowledge graph share node ids.

When a typed verb pattern (:mod:`engram_kit.analysis.relations`) links two entities of a sentence, the
pair's edge keeps its co-occurrence count and evidence and additionally records the typed relation, its
direction and its own evidence sentences. How much that adds to the edge weight is decided when maps
are merged (:attr:`MapConfig.relation_bonus <engram_kit.analysis.literature_map.MapConfig>`), so it can be
changed without reprocessing.

The result of a document, :class:`DocumentGraph`, is self-contained; :class:`LiteratureMap` merges any
selection of them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import networkx as nx
import pandas as pd
from engram_kit.progress import tqdm

from engram_kit.analysis.noise import boilerplate_reason, cut_reference_section
from engram_kit.analysis.relations import DEFAULT_PATTERNS, RELATION_TYPES, RelationPattern, find_relations
from engram_kit.analysis.sentences import Sentence, split_sentences
from engram_kit.errors import DataError
from engram_kit.extraction.extractor import EntityExtractor
from engram_kit.extraction.mention import Mention
from engram_kit.extraction.normalize import normalize_name
from engram_kit.resolution.names import nounphrase_id
from engram_kit.resolution.resolver import Candidate, EntityResolver
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

__all__ = [
    "MAX_EVIDENCE",
    "UNLINKED",
    "DocumentGraph",
    "EdgeStats",
    "EntityInfo",
    "Evidence",
    "LiteratureMapBuilder",
    "pair_key",
]

#: Evidence sentences kept per edge (and, separately, per typed relation of an edge).
MAX_EVIDENCE: int = Settings.map_max_evidence
#: Entity type of NounPhrases the resolver could not link (same word as the ingestion stage).
UNLINKED = "Unlinked"


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The undirected edge key of two entity ids: the sorted pair."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Evidence:
    """A sentence supporting an edge.

    Attributes
    ----------
    doc_id : str
        Document the sentence comes from.
    sentence : int
        0-based position of the sentence in the document.
    start, end : int
        Character offsets of the sentence in the document text (``end`` exclusive).
    text : str
        The sentence.
    kind : str
        ``"cooccurrence"`` or ``"pattern"`` (a typed verb pattern matched).
    relation : str
        For pattern evidence, the relation (``"CAUSES"``); ``""`` otherwise.
    source, target : str
        For pattern evidence, the entity ids in the relation's direction; ``""`` otherwise.
    """

    doc_id: str
    sentence: int
    start: int
    end: int
    text: str
    kind: str = "cooccurrence"
    relation: str = ""
    source: str = ""
    target: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form."""
        return asdict(self)


@dataclass(frozen=True)
class EntityInfo:
    """A node of a literature map.

    Attributes
    ----------
    id : str
        Hetionet node id when resolved, else the NounPhrase id ``np:Unlinked:<normalised>``.
    name : str
        Hetionet name, or the surface form (long form for abbreviations) when unlinked.
    kind : str
        Hetionet kind, or :data:`UNLINKED`.
    normalized : str
        ``normalize_name(name)``; what the generic-entity stoplist is matched against.
    surface : str
        Normalised surface form of the first mention (``"ad"`` for an Alzheimer's disease written AD),
        also matched against the stoplist.
    """

    id: str
    name: str
    kind: str
    normalized: str
    surface: str = ""

    @property
    def resolved(self) -> bool:
        """True when the entity is a knowledge-graph node (not an unlinked NounPhrase)."""
        return self.kind != UNLINKED


@dataclass
class EdgeStats:
    """Co-occurrence statistics of one entity pair in one document (or merged over documents).

    Attributes
    ----------
    sentences : int
        Sentences in which both entities occur, >= 1.
    evidence : list of Evidence
        Up to :data:`MAX_EVIDENCE` co-occurrence sentences, in document order.
    relations : Counter of (relation, source, target)
        Sentences in which each directed typed relation matched.
    relation_evidence : list of Evidence
        Up to :data:`MAX_EVIDENCE` pattern sentences (kind ``"pattern"``).
    """

    sentences: int = 0
    evidence: list[Evidence] = field(default_factory=list)
    relations: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    relation_evidence: list[Evidence] = field(default_factory=list)

    @property
    def pattern_sentences(self) -> int:
        """Sentences with at least one typed relation (<= ``sentences``; counts one relation per sentence)."""
        return sum(self.relations.values())

    def top_relation(self) -> tuple[str, str, str] | None:
        """The most frequent (relation, source, target), ties broken by relation order; None if untyped."""
        if not self.relations:
            return None
        order = {r: i for i, r in enumerate(RELATION_TYPES)}
        return max(self.relations.items(), key=lambda kv: (kv[1], -order.get(kv[0][0], 99)))[0]


@dataclass
class DocumentGraph:
    """The co-occurrence graph of one document, with provenance.

    Attributes
    ----------
    doc_id : str
    entities : dict of str to EntityInfo
        Every entity found in a kept sentence (also those that co-occur with nothing).
    entity_sentences : Counter of str
        Sentences mentioning each entity (per-sentence counting).
    edges : dict of (str, str) to EdgeStats
        Keyed on :func:`pair_key`.
    sentences : list of Sentence
        Kept sentences (boilerplate removed), with their original positions.
    sentence_entities : dict of int to tuple of str
        Sentence position -> entity ids it mentions (first-mention order); only sentences with entities.
    excluded : list of (int, str)
        (sentence position, reason) of sentences dropped as boilerplate (see
        :func:`engram_kit.analysis.noise.boilerplate_reason`); ``reason = "references"`` for the cut-off
        reference list.
    n_mentions : int
        Mentions in kept sentences.
    """

    doc_id: str
    entities: dict[str, EntityInfo] = field(default_factory=dict)
    entity_sentences: Counter[str] = field(default_factory=Counter)
    edges: dict[tuple[str, str], EdgeStats] = field(default_factory=dict)
    sentences: list[Sentence] = field(default_factory=list)
    sentence_entities: dict[int, tuple[str, ...]] = field(default_factory=dict)
    excluded: list[tuple[int, str]] = field(default_factory=list)
    n_mentions: int = 0

    def to_frame(self) -> pd.DataFrame:
        """Edges as a DataFrame: ``source, target, source_name, target_name, sentences, relation, evidence``."""
        rows = []
        for (a, b), stats in self.edges.items():
            top = stats.top_relation()
            rows.append({
                "source": a, "target": b,
                "source_name": self.entities[a].name, "target_name": self.entities[b].name,
                "sentences": stats.sentences,
                "relation": f"{self.entities[top[1]].name} {top[0]} {self.entities[top[2]].name}" if top else "",
                "evidence": stats.evidence[0].text if stats.evidence else "",
            })
        columns = ["source", "target", "source_name", "target_name", "sentences", "relation", "evidence"]
        return pd.DataFrame(rows, columns=columns).sort_values("sentences", ascending=False, kind="stable",
                                                               ignore_index=True)

    def to_networkx(self) -> nx.Graph:
        """Undirected graph; node attributes ``name, kind, sentences``; edge attribute ``sentences``."""
        graph = nx.Graph(doc_id=self.doc_id)
        for entity_id, info in self.entities.items():
            graph.add_node(entity_id, name=info.name, kind=info.kind, sentences=self.entity_sentences[entity_id])
        for (a, b), stats in self.edges.items():
            graph.add_edge(a, b, sentences=stats.sentences)
        return graph


class LiteratureMapBuilder:
    """Turn documents into :class:`DocumentGraph` objects: split, clean, extract, resolve, pair.

    Parameters
    ----------
    extractor : EntityExtractor
        Finds mentions (the one the workspace ingests with).
    resolver : EntityResolver
        Links mentions to Hetionet nodes.
    min_link_confidence : float
        Lowest resolver confidence in [0, 1] at which a mention takes its Hetionet id; below it the
        mention keeps its NounPhrase id. 0.5 as ``Settings.min_link_confidence``.
    patterns : sequence of RelationPattern or None
        Typed relation patterns; None disables them. Default
        :data:`engram_kit.analysis.relations.DEFAULT_PATTERNS`.
    include_unlinked : bool
        Keep unlinked (NounPhrase) mentions as nodes. They only arise from NER mentions, since gazetteer
        mentions always carry candidates.
    remove_boilerplate : bool
        Drop journal names, affiliations, copyright lines and reference lists before pairing.
    max_evidence : int
        Evidence sentences kept per edge, >= 1 (:data:`MAX_EVIDENCE`).

    Raises
    ------
    DataError
        If ``min_link_confidence`` is outside [0, 1] or ``max_evidence`` < 1.

    Examples
    --------
    >>> builder = LiteratureMapBuilder(extractor, resolver)                        # doctest: +SKIP
    >>> graphs = builder.build_many({"pubmed:1": "Levodopa-induced dyskinesia ..."})  # doctest: +SKIP
    """

    def __init__(
        self,
        extractor: EntityExtractor,
        resolver: EntityResolver,
        *,
        min_link_confidence: float = 0.5,
        patterns: Sequence[RelationPattern] | None = DEFAULT_PATTERNS,
        include_unlinked: bool = True,
        remove_boilerplate: bool = True,
        max_evidence: int = MAX_EVIDENCE,
    ) -> None:
        if not 0.0 <= min_link_confidence <= 1.0:
            raise DataError(f"min_link_confidence={min_link_confidence!r} is out of range: use a value in [0, 1].")
        if max_evidence < 1:
            raise DataError(f"max_evidence={max_evidence!r} is out of range: use an integer >= 1.")
        self.extractor = extractor
        self.resolver = resolver
        self.min_link_confidence = min_link_confidence
        self.patterns = tuple(patterns) if patterns is not None else ()
        self.include_unlinked = include_unlinked
        self.remove_boilerplate = remove_boilerplate
        self.max_evidence = max_evidence
        self._link_cache: dict[tuple[str, tuple[str, ...], str], EntityInfo | None] = {}

    # ------------------------------------------------------------------------------------------ public
    def build_document(
        self, doc_id: str, text: str, *, mentions: Sequence[Mention] | None = None,
        journal_names: Iterable[str] = (),
    ) -> DocumentGraph:
        """The co-occurrence graph of one document.

        Parameters
        ----------
        doc_id : str
            Stable document id (``"pubmed:33969"``), recorded in every evidence sentence.
        text : str
            Document text (title and abstract, or a PDF's text).
        mentions : sequence of Mention, optional
            Mentions of ``text`` already found by the extractor (character offsets into ``text``);
            extracted here when None.
        journal_names : iterable of str
            Journal titles whose sentences are boilerplate (see :func:`boilerplate_reason`).

        Returns
        -------
        DocumentGraph

        Raises
        ------
        DataError
            If ``doc_id`` is empty.
        """
        if not doc_id:
            raise DataError("A document needs a non-empty id (e.g. 'pubmed:33969') for provenance.")
        if mentions is None:
            mentions = self.extractor.extract(text)
        return self._graph(doc_id, text, mentions, tuple(journal_names))

    def build_many(
        self,
        documents: Mapping[str, str] | Iterable[tuple[str, str]],
        *,
        journal_names: Iterable[str] = (),
        progress: bool = False,
    ) -> list[DocumentGraph]:
        """Graphs of many documents, in input order; extraction is batched.

        Parameters
        ----------
        documents : mapping doc_id -> text, or iterable of (doc_id, text)
        journal_names : iterable of str
            Journal titles of the corpus, treated as boilerplate in every document.
        progress : bool
            Show a tqdm progress bar.

        Returns
        -------
        list of DocumentGraph

        Raises
        ------
        DataError
            If a document id is empty or repeated.
        """
        items = list(documents.items()) if isinstance(documents, Mapping) else list(documents)
        ids = [doc_id for doc_id, _ in items]
        if len(set(ids)) != len(ids):
            repeated = sorted({i for i in ids if ids.count(i) > 1})[:5]
            raise DataError(f"Document ids must be unique; repeated: {repeated}.")
        started = time.perf_counter()
        all_mentions = self.extractor.extract_many([t for _, t in items])
        journals = tuple(journal_names)
        graphs = [self.build_document(doc_id, text, mentions=mentions, journal_names=journals)
                  for (doc_id, text), mentions in tqdm(list(zip(items, all_mentions)), desc="literature map",
                                                       unit="doc", disable=not progress)]
        log.info("built %d document graphs in %.2f s", len(graphs), time.perf_counter() - started)
        return graphs

    def link(self, mention: Mention) -> EntityInfo | None:
        """The map node of a mention: its Hetionet entity, its NounPhrase, or None when unusable."""
        key = (mention.text, mention.candidates, mention.long_form)
        if key not in self._link_cache:
            self._link_cache[key] = self._link(mention)
        return self._link_cache[key]

    # --------------------------------------------------------------------------------------- internals
    def _link(self, mention: Mention) -> EntityInfo | None:
        candidates: list[Candidate] = self.resolver.resolve(mention)
        surface = normalize_name(mention.long_form or mention.text)
        if candidates and candidates[0].confidence >= self.min_link_confidence:
            best = candidates[0]
            return EntityInfo(best.node_id, best.name, best.kind, normalize_name(best.name), surface)
        if not self.include_unlinked or not surface:
            return None
        name = mention.long_form or mention.text
        return EntityInfo(nounphrase_id(name, UNLINKED), name, UNLINKED, surface, surface)

    def _graph(self, doc_id: str, text: str, mentions: Sequence[Mention], journals: tuple[str, ...]) -> DocumentGraph:
        graph = DocumentGraph(doc_id)
        limit = cut_reference_section(text) if self.remove_boilerplate else len(text)
        sentences = split_sentences(text)
        ordered = sorted(mentions, key=lambda m: m.start)
        cursor = 0
        for sentence in sentences:
            if sentence.start >= limit:
                graph.excluded.append((sentence.index, "references"))
                continue
            reason = boilerplate_reason(sentence.text, journals) if self.remove_boilerplate else None
            while cursor < len(ordered) and ordered[cursor].start < sentence.start:
                cursor += 1
            inside: list[Mention] = []
            while cursor < len(ordered) and ordered[cursor].start < sentence.end:
                if ordered[cursor].end <= sentence.end:
                    inside.append(ordered[cursor])
                cursor += 1
            if reason is not None:
                graph.excluded.append((sentence.index, reason))
                continue
            graph.sentences.append(sentence)
            self._add_sentence(graph, sentence, inside)
        return graph

    def _add_sentence(self, graph: DocumentGraph, sentence: Sentence, mentions: list[Mention]) -> None:
        linked: list[tuple[Mention, EntityInfo]] = []
        for mention in mentions:
            info = self.link(mention)
            if info is not None:
                linked.append((mention, info))
        if not linked:
            return
        graph.n_mentions += len(linked)
        ids = tuple(dict.fromkeys(info.id for _, info in linked))
        for _, info in linked:
            graph.entities.setdefault(info.id, info)
        graph.entity_sentences.update(ids)
        graph.sentence_entities[sentence.index] = ids
        evidence = Evidence(graph.doc_id, sentence.index, sentence.start, sentence.end, sentence.text)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                stats = graph.edges.setdefault(pair_key(a, b), EdgeStats())
                stats.sentences += 1
                if len(stats.evidence) < self.max_evidence:
                    stats.evidence.append(evidence)
        if self.patterns and len(ids) > 1:
            self._add_relations(graph, sentence, linked)

    def _add_relations(self, graph: DocumentGraph, sentence: Sentence,
                       linked: list[tuple[Mention, EntityInfo]]) -> None:
        spans = [(m.start - sentence.start, m.end - sentence.start) for m, _ in linked]
        ids = [info.id for _, info in linked]
        seen: set[tuple[str, str, str]] = set()
        for hit in find_relations(sentence.text, spans, ids, self.patterns):
            source, target = ids[hit.source], ids[hit.target]
            key = (hit.relation, source, target)
            if key in seen:
                continue
            seen.add(key)
            stats = graph.edges[pair_key(source, target)]
            stats.relations[key] += 1
            if len(stats.relation_evidence) < self.max_evidence:
                stats.relation_evidence.append(Evidence(graph.doc_id, sentence.index, sentence.start, sentence.end,
                                                        sentence.text, "pattern", hit.relation, source, target))
