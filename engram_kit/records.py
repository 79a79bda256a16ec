"""Typed records that flow between stages: ingestion builds them, the store writes them.

Ids are stable strings so that re-ingesting the same input is idempotent:

* Article  ``pubmed:<PMID>`` for PubMed records, ``doc:<sha256 prefix>`` for uploaded files;
* Section  ``<article id>#s<index>``;
* Passage  ``<article id>#p<index>``;
* NounPhrase ``np:<entity type>:<normalised name>`` -- merged across documents on (normalised name, type).

Graph-entity ids are Hetionet node ids (``Gene::7157``, ``Disease::DOID:10652``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Where a document came from; the retrieval source filter uses the same words.
SOURCES: tuple[str, ...] = ("pubmed", "uploaded")
#: Lifecycle of a document in the store. ``complete_with_warnings``: ingested, but pages without text, suspected
#: truncation or unreadable characters were found (listed in ``engram doc``); ``superseded``: an older version
#: of a re-ingested source, kept as history without passages or vectors (never cited).
STATUSES: tuple[str, ...] = ("pending", "processing", "complete", "complete_with_warnings", "error", "superseded")
#: Statuses whose passages are in the store and retrievable.
COMPLETE_STATUSES: tuple[str, ...] = ("complete", "complete_with_warnings")


@dataclass(frozen=True)
class ArticleRecord:
    """One document (a PubMed record or an uploaded file). ``year`` is None when unknown."""

    id: str
    source: str
    title: str
    pmid: str = ""
    year: int | None = None
    doi: str = ""
    authors: str = ""
    status: str = "complete"
    error: str = ""
    content_hash: str = ""


@dataclass(frozen=True)
class SectionRecord:
    """A section of an article (PubMed abstracts have one section, ``"Abstract"``)."""

    id: str
    article_id: str
    title: str
    index: int
    summary: str = ""


@dataclass(frozen=True)
class PassageRecord:
    """A retrievable chunk of text. Offsets are character offsets into the section text."""

    id: str
    article_id: str
    section_id: str
    text: str
    source: str
    index: int
    pmid: str = ""
    title: str = ""
    year: int | None = None
    section_title: str = ""
    page_start: int | None = None
    page_end: int | None = None
    char_start: int = 0
    char_end: int = 0
    #: ``text`` (prose), ``table``, ``caption``, ``front_matter`` (title block, authors, affiliations,
    #: correspondence), ``back_matter`` (declarations, contributions, funding, author details) or
    #: ``references``; see :data:`engram_kit.ingestion.chunking.NO_LINK_PASSAGE_KINDS`. Not a store column.
    kind: str = "text"


@dataclass(frozen=True)
class NounPhraseRecord:
    """An entity surface form, merged on (``normalized``, ``entity_type``) across documents."""

    id: str
    name: str
    normalized: str
    entity_type: str


@dataclass(frozen=True)
class MentionEdge:
    """``(Passage|Section|Article)-[:MENTIONS {count}]->(NounPhrase)``; ``count`` >= 1 occurrences."""

    source_id: str
    nounphrase_id: str
    count: int = 1
    source_label: str = "Passage"


@dataclass(frozen=True)
class MapsToEdge:
    """``(NounPhrase)-[:MAPS_TO {confidence, method}]->(entity)``; confidence in [0, 1]."""

    nounphrase_id: str
    entity_id: str
    confidence: float
    method: str


@dataclass(frozen=True)
class SameAsEdge:
    """``(NounPhrase)-[:SAME_AS]->(hub NounPhrase)``: alias hub pattern, no O(n^2) edges."""

    nounphrase_id: str
    hub_id: str


@dataclass
class LiteratureBatch:
    """Everything one ingestion transaction writes. The store writes a batch atomically."""

    articles: list[ArticleRecord] = field(default_factory=list)
    sections: list[SectionRecord] = field(default_factory=list)
    passages: list[PassageRecord] = field(default_factory=list)
    nounphrases: list[NounPhraseRecord] = field(default_factory=list)
    mentions: list[MentionEdge] = field(default_factory=list)
    maps_to: list[MapsToEdge] = field(default_factory=list)
    same_as: list[SameAsEdge] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.articles)

    def extend(self, other: LiteratureBatch) -> None:
        """Append all records of ``other`` to this batch."""
        for name in ("articles", "sections", "passages", "nounphrases", "mentions", "maps_to", "same_as"):
            getattr(self, name).extend(getattr(other, name))

    def deduplicated(self) -> LiteratureBatch:
        """A copy with NounPhrases, MAPS_TO and SAME_AS edges de-duplicated on their keys (first wins).

        Several records of one batch often mention the same NounPhrase; the store merges on ids, but
        handing it each key once keeps the write a pure upsert.
        """
        def unique(items: list, key) -> list:
            seen: dict = {}
            for item in items:
                seen.setdefault(key(item), item)
            return list(seen.values())

        return LiteratureBatch(
            articles=list(self.articles),
            sections=list(self.sections),
            passages=list(self.passages),
            nounphrases=unique(self.nounphrases, lambda n: n.id),
            mentions=list(self.mentions),
            maps_to=unique(self.maps_to, lambda m: (m.nounphrase_id, m.entity_id)),
            same_as=unique(self.same_as, lambda s: (s.nounphrase_id, s.hub_id)),
        )
