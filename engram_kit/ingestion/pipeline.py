"""PubMed ingestion: records -> passages, mentions, NounPhrases and links -> store and vectors.

Per batch of ``Settings.batch_size`` records: extract mentions (gazetteer + abbreviations), resolve
each distinct mention once (cached across the run), build the literature records, embed the passage
texts, write the graph batch in one store transaction, then upsert the vectors. A batch that fails to
write is retried record by record so one bad record cannot block the others; a record that still
fails is stored as an article with status ``error`` and its message (re-ingesting retries it).
Re-ingesting a PMID whose content hash is unchanged is skipped (idempotent); a changed record replaces
the old one.
"""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice

import pandas as pd
from tqdm.auto import tqdm

from engram_kit.embeddings import Embedder
from engram_kit.errors import EngramError
from engram_kit.extraction import EntityExtractor, Mention
from engram_kit.ingestion.pubmed import PubMedRecord
from engram_kit.records import (
    ArticleRecord,
    LiteratureBatch,
    MapsToEdge,
    MentionEdge,
    NounPhraseRecord,
    PassageRecord,
    SectionRecord,
)
from engram_kit.resolution import Candidate, EntityResolver, normalize_name, nounphrase_id
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore

if TYPE_CHECKING:  # chromadb is slow to import; only needed for type hints here
    from engram_kit.store.vectors import VectorStore

log = logging.getLogger(__name__)

#: NounPhrase entity type for mentions no candidate links with enough confidence.
UNLINKED = "Unlinked"


@dataclass
class IngestReport:
    """What an ingestion run did. Times in seconds."""

    read: int = 0
    ingested: int = 0
    unchanged: int = 0
    failed: int = 0
    passages: int = 0
    mentions: int = 0
    linked_mentions: int = 0
    seconds: float = 0.0
    errors: list[tuple[str, str]] = field(default_factory=list)
    #: PMIDs listed more than once in the source file -> record numbers; ingested once (the first).
    duplicates: dict[str, list[int]] = field(default_factory=dict)
    #: Invalid records skipped with ``skip_bad=True`` (file:line and the problem).
    skipped: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """One-row summary (errors, duplicates and skipped records listed separately)."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("errors", "duplicates", "skipped")}
        data["duplicates"], data["skipped"] = len(self.duplicates), len(self.skipped)
        return pd.DataFrame([data])

    def __str__(self) -> str:
        rate = self.ingested / self.seconds if self.seconds else 0.0
        return (f"read {self.read}, ingested {self.ingested}, unchanged {self.unchanged}, failed {self.failed}; "
                f"{self.passages} passages, {self.mentions} mentions ({self.linked_mentions} linked) "
                f"in {self.seconds:.1f} s ({rate:.1f} docs/s)"
                + (f"; {len(self.duplicates)} PMIDs listed more than once (ingested once)" if self.duplicates else "")
                + (f"; {len(self.skipped)} invalid records skipped" if self.skipped else ""))


def content_hash(record: PubMedRecord) -> str:
    """SHA-256 of the record's title and abstract (what retrieval sees), hex."""
    return hashlib.sha256(f"{record.title}\n{record.abstract}".encode()).hexdigest()


class MentionLinker:
    """Resolve mentions (each distinct surface once, cached) and turn them into literature records.

    Shared by PubMed and document ingestion so that both build NounPhrases the same way: one NounPhrase
    per (normalised name, entity type), the type being the kind of the best candidate (or
    :data:`UNLINKED`), and one ``MAPS_TO`` per kept candidate with the resolver's confidence.

    Parameters
    ----------
    resolver : the entity resolver.
    min_confidence : candidates below this confidence in [0, 1] are not linked (``Settings.min_link_confidence``).
    max_candidates : at most this many MAPS_TO edges per NounPhrase (``Settings.max_candidates``).
    """

    def __init__(self, resolver: EntityResolver, *, min_confidence: float, max_candidates: int) -> None:
        self.resolver = resolver
        self.min_confidence = min_confidence
        self.max_candidates = max_candidates
        self._cache: dict[tuple[str, tuple[str, ...], str], list[Candidate]] = {}

    def link(self, mention: Mention) -> list[Candidate]:
        """Candidates of ``mention`` at or above ``min_confidence``, best first, at most ``max_candidates``."""
        key = (mention.text, mention.candidates, mention.long_form)
        if key not in self._cache:
            candidates = self.resolver.resolve(mention)
            self._cache[key] = [c for c in candidates if c.confidence >= self.min_confidence][: self.max_candidates]
        return self._cache[key]

    def add_mentions(self, batch: LiteratureBatch, source_id: str, mentions: Iterable[Mention], *,
                     source_label: str = "Passage") -> tuple[int, int]:
        """Append the NounPhrases, ``MENTIONS {count}`` edges from ``source_id`` (a Passage, Section or
        Article) and ``MAPS_TO`` edges of ``mentions`` to ``batch``.

        Returns
        -------
        (mentions, linked)
            Number of mentions, and of those that linked to at least one graph entity.
        """
        counts: Counter[str] = Counter()
        seen_np: dict[str, NounPhraseRecord] = {}
        links: dict[tuple[str, str], MapsToEdge] = {}
        found = linked = 0
        for mention in mentions:
            candidates = self.link(mention)
            name = mention.long_form or mention.text
            entity_type = candidates[0].kind if candidates else UNLINKED
            np_id = nounphrase_id(name, entity_type)
            seen_np.setdefault(np_id, NounPhraseRecord(np_id, name, normalize_name(name), entity_type))
            counts[np_id] += 1
            found += 1
            linked += bool(candidates)
            for cand in candidates:
                links.setdefault((np_id, cand.node_id),
                                 MapsToEdge(np_id, cand.node_id, round(float(cand.confidence), 4), cand.method))
        batch.nounphrases.extend(seen_np.values())
        batch.mentions.extend(MentionEdge(source_id, np_id, n, source_label) for np_id, n in counts.items())
        batch.maps_to.extend(links.values())
        return found, linked


def _batched(items: Iterable[PubMedRecord], size: int) -> Iterator[list[PubMedRecord]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


class PubMedIngestor:
    """Writes PubMed records into a workspace's store and vector store (see module docstring).

    Parameters
    ----------
    store, vectors : destination graph store and vector store (both writable).
    extractor, resolver : entity extraction and resolution.
    embedder : passage embedder (the vector store's model).
    settings : ``batch_size``, ``min_link_confidence``, ``max_candidates``, ``progress``.
    """

    def __init__(self, *, store: GraphStore, vectors: VectorStore, extractor: EntityExtractor,
                 resolver: EntityResolver, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.vectors = vectors
        self.extractor = extractor
        self.resolver = resolver
        self.embedder = embedder
        self.settings = settings
        self.linker = MentionLinker(resolver, min_confidence=settings.min_link_confidence,
                                    max_candidates=settings.max_candidates)

    def ingest(self, records: Iterable[PubMedRecord], *, total: int | None = None) -> IngestReport:
        """Ingest ``records`` (any iterable; streamed in batches). Returns the run's report."""
        start = time.perf_counter()
        report = IngestReport()
        existing = self.store.articles(source="pubmed")
        known = dict(zip(existing["id"], zip(existing["content_hash"], existing["status"]))) if not existing.empty else {}
        bar = tqdm(total=total, desc="ingest PubMed", unit="doc", disable=not self.settings.progress)
        for chunk in _batched(records, self.settings.batch_size):
            report.read += len(chunk)
            todo = []
            for record in chunk:
                previous = known.get(f"pubmed:{record.pmid}")
                if previous and previous[0] == content_hash(record) and previous[1] == "complete":
                    report.unchanged += 1
                else:
                    todo.append(record)
            if todo:
                self._ingest_chunk(todo, report)
            bar.update(len(chunk))
        bar.close()
        report.seconds = time.perf_counter() - start
        log.info("PubMed ingestion: %s", report)
        return report

    # ------------------------------------------------------------------------------------------
    def _ingest_chunk(self, records: list[PubMedRecord], report: IngestReport) -> None:
        texts = [r.text for r in records]
        mentions = self.extractor.extract_many(texts)
        batch = LiteratureBatch()
        for record, found in zip(records, mentions):
            self._add_record(batch, record, found, report)
        embeddings = self.embedder.encode(texts, batch_size=self.settings.batch_size)
        try:
            self._write(batch, records, embeddings)
            report.ingested += len(records)
            report.passages += len(records)
        except EngramError as exc:
            log.warning("batch of %d records failed (%s); retrying one by one", len(records), exc)
            for i, record in enumerate(records):
                single = LiteratureBatch()
                self._add_record(single, record, mentions[i], IngestReport())
                try:
                    self._write(single, [record], embeddings[i : i + 1])
                    report.ingested += 1
                    report.passages += 1
                except EngramError as exc_one:
                    self._mark_error(record, str(exc_one))
                    report.failed += 1
                    report.errors.append((record.pmid, str(exc_one)))

    def _write(self, batch: LiteratureBatch, records: list[PubMedRecord], embeddings) -> None:  # noqa: ANN001
        self.store.write_literature(batch.deduplicated())
        ids = [f"pubmed:{r.pmid}#p0" for r in records]
        metadata = [{"source": "pubmed", "article_id": f"pubmed:{r.pmid}", "pmid": r.pmid} for r in records]
        try:
            self.vectors.upsert(ids, embeddings, metadata)
        except Exception:
            # Compensate: the graph write committed but its vectors did not; remove the articles so
            # the store never holds passages that semantic ranking cannot see.
            for record in records:
                self.store.delete_article(f"pubmed:{record.pmid}")
            raise

    def _mark_error(self, record: PubMedRecord, message: str) -> None:
        article = ArticleRecord(id=f"pubmed:{record.pmid}", source="pubmed", title=record.title,
                                pmid=record.pmid, year=record.year, status="error", error=message[:2000])
        try:
            self.store.write_literature(LiteratureBatch(articles=[article]))
        except EngramError:
            log.exception("could not record the error status of PMID %s", record.pmid)

    def _add_record(self, batch: LiteratureBatch, record: PubMedRecord, mentions: list[Mention],
                    report: IngestReport) -> None:
        article_id = f"pubmed:{record.pmid}"
        section_id, passage_id = f"{article_id}#s0", f"{article_id}#p0"
        batch.articles.append(ArticleRecord(
            id=article_id, source="pubmed", title=record.title, pmid=record.pmid, year=record.year,
            doi=record.doi, authors="; ".join(record.authors), status="complete",
            content_hash=content_hash(record)))
        batch.sections.append(SectionRecord(id=section_id, article_id=article_id, title="Abstract", index=0))
        batch.passages.append(PassageRecord(
            id=passage_id, article_id=article_id, section_id=section_id, text=record.text, source="pubmed",
            index=0, pmid=record.pmid, title=record.title, year=record.year, section_title="Abstract",
            char_start=0, char_end=len(record.text)))
        found, linked = self.linker.add_mentions(batch, passage_id, mentions)
        report.mentions += found
        report.linked_mentions += linked
