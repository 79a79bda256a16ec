"""PubMed ingestion: records -> passages, mentions, NounPhrases and links -> store and vectors.

Stages per batch of ``Settings.batch_size`` records:

1. **prepare** (CPU, parallel with ``workers > 1``): extract mentions (gazetteer + abbreviations), resolve
   each distinct mention once (cached per process), build the :class:`~engram_kit.records.LiteratureBatch`.
   Worker processes are forked once per run and fed a bounded number of batches ahead of the writer.
2. **embed** (in the same worker as its prepare stage when ``workers > 1``, else in this process): all
   passages of the batch in one call of the workspace's embedder, which batches across documents (model
   batches of at most ``Settings.embed_batch``, or the backend's own smaller batch) and embeds long abstracts
   whole (windows pooled). Embedding in the workers, each single-threaded, leaves this process only the
   writes: on the 6,107 shared abstracts with the int8 default that took the end-to-end rate from 23.2 to
   the figure in ``benchmarks/results/ingest.md`` (one thread per process avoids onnxruntime's
   thread synchronisation, and the writer no longer waits for the model).
3. **commit**, one protocol for graph and vectors (issue 21): (a) the graph batch is written in one
   transaction with every article ``status = "pending"``; (b) the passage vectors are upserted (by passage
   id, so a repeat overwrites, never duplicates); (c) the articles are set ``complete`` in one statement.
   ``complete`` is therefore written last: a crash at any point leaves the batch's articles absent
   (transaction rolled back) or ``pending``, and a re-run re-ingests every article that is not
   ``complete`` with its content hash unchanged. :meth:`engram_kit.workspace.Workspace.check` finds and
   repairs what a crash left (pending articles, passages without vectors, vectors without passages).

A batch that fails to write is retried record by record so one bad record cannot block the others; a
record that still fails is stored as an article with status ``error`` and its message (re-ingesting
retries it). Re-ingesting a PMID whose content hash is unchanged and status ``complete`` is skipped
(idempotent); a changed record replaces the old one.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import multiprocessing
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from engram_kit.progress import tqdm

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
    #: Seconds per stage (prepare = extraction + linking + records, summed over workers when parallel).
    stage_seconds: dict[str, float] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)
    #: PMIDs listed more than once in the source file -> record numbers; ingested once (the first).
    duplicates: dict[str, list[int]] = field(default_factory=dict)
    #: Invalid records skipped with ``skip_bad=True`` (file:line and the problem).
    skipped: list[str] = field(default_factory=list)
    #: Engine-specific figures (``engine="ray"``: shards mapped/total, NounPhrase and MAPS_TO rows before and
    #: after the reduce, deletions); not in :meth:`to_frame`.
    engine_details: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One-row summary (errors, duplicates and skipped records listed separately; stage seconds as
        ``<stage>_s`` columns)."""
        data = {k: v for k, v in self.__dict__.items()
                if k not in ("errors", "duplicates", "skipped", "stage_seconds", "engine_details")}
        data["duplicates"], data["skipped"] = len(self.duplicates), len(self.skipped)
        data.update({f"{k}_s": round(v, 3) for k, v in self.stage_seconds.items()})
        return pd.DataFrame([data])

    def __str__(self) -> str:
        rate = self.ingested / self.seconds if self.seconds else 0.0
        return (f"read {self.read}, ingested {self.ingested}, unchanged {self.unchanged}, failed {self.failed}; "
                # occurrences in text: `engram info` counts MENTIONS edges (distinct phrase per passage), fewer
                f"{self.passages} passages, {self.mentions} mention occurrences ({self.linked_mentions} linked) "
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
        self._cache: dict[tuple, list[Candidate]] = {}

    def link(self, mention: Mention) -> list[Candidate]:
        """Candidates of ``mention`` at or above ``min_confidence``, best first, at most ``max_candidates``."""
        # The resolver's link() scores kinds with the mention's sentence, zone and context cues (issue 14).
        key = (mention.text, mention.candidates, mention.long_form, mention.sentence, mention.zone, mention.cues)
        if key not in self._cache:
            candidates = self.resolver.link(mention, min_confidence=self.min_confidence)
            self._cache[key] = candidates[: self.max_candidates]
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


#: The write boundaries of one batch, in order (see the module docstring). A fault hook is called with each
#: name; the fault-injection tests stop the process there and check that one re-run repairs everything.
WRITE_BOUNDARIES: tuple[str, ...] = ("before_graph", "after_graph", "mid_vectors", "after_vectors", "after_status")


@dataclass
class PreparedBatch:
    """Output of the prepare stage for one batch: the records, their graph batch and counts."""

    records: list[PubMedRecord]
    mentions: list[list[Mention]]
    batch: LiteratureBatch
    found: int
    linked: int
    seconds: float
    #: ``(len(records), dimension)`` unit vectors when the worker embedded the batch too, else None.
    embeddings: np.ndarray | None = None
    #: Wall seconds of that embedding (0 when not embedded here).
    embed_seconds: float = 0.0




def auto_workers() -> int:
    """Worker processes for ``workers=0``: one per usable core, at most ``Settings.max_auto_workers``; 1 where
    ``fork`` is unavailable (Windows)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(Settings.max_auto_workers, cores))


class BatchPreparer:
    """The per-batch work of every ingestion engine: extraction, linking, the graph batch and (with ``embed``)
    the passage vectors of a list of records. Writes nothing.

    The local engine runs it in this process or in forked workers (:class:`PubMedIngestor`); the Ray engine
    (:mod:`engram_kit.ingestion.ray_engine`) runs the same object in each actor of its pool, so both engines
    build the same graph and the same vectors from the same code.

    Parameters
    ----------
    extractor, resolver, embedder : the workspace's ingestion extractor, resolver and passage embedder.
    settings : ``batch_size`` (bounds the model batch with ``Settings.embed_batch``), ``min_link_confidence``,
        ``max_candidates``.
    """

    def __init__(self, *, extractor: EntityExtractor, resolver: EntityResolver, embedder: Embedder,
                 settings: Settings) -> None:
        self.extractor = extractor
        self.resolver = resolver
        self.embedder = embedder
        self.settings = settings
        self.linker = MentionLinker(resolver, min_confidence=settings.min_link_confidence,
                                    max_candidates=settings.max_candidates)

    def single_threaded(self) -> None:
        """Give the embedders fresh single-threaded runtime state: in a forked worker (the parent's thread pools
        do not survive ``fork``) and in a Ray actor (one core per worker; N workers x 2 threads would
        oversubscribe the cores)."""
        for embedder in {id(e): e for e in (self.embedder, self.resolver.embedder)}.values():
            after_fork = getattr(embedder, "after_fork", None)
            if after_fork is not None:
                after_fork()

    def prepare(self, records: list[PubMedRecord], *, embed: bool = False) -> PreparedBatch:
        """The prepare stage of one batch: mentions, links and the graph batch (articles ``pending``); with
        ``embed`` also the ``(len(records), dimension)`` float32 unit passage vectors (what a worker does)."""
        t0 = time.perf_counter()
        mentions = self.extractor.extract_many([r.text for r in records])
        batch = LiteratureBatch()
        counts = IngestReport()
        for record, found in zip(records, mentions):
            self.add_record(batch, record, found, counts)
        prepared = PreparedBatch(records, mentions, batch, counts.mentions, counts.linked_mentions,
                                 time.perf_counter() - t0)
        if embed:
            t1 = time.perf_counter()
            prepared.embeddings = self.embed(records)
            prepared.embed_seconds = time.perf_counter() - t1
        return prepared

    def embed(self, records: list[PubMedRecord]) -> np.ndarray:
        """Passage vectors of ``records`` (one per record, its whole text), float32 ``(n, dimension)``."""
        return self.embedder.encode([r.text for r in records],
                                    batch_size=min(self.settings.batch_size, self.settings.embed_batch))

    def add_record(self, batch: LiteratureBatch, record: PubMedRecord, mentions: list[Mention],
                   report: IngestReport) -> None:
        """Append ``record``'s article, section, passage and its mentions' layer to ``batch``."""
        article_id = f"pubmed:{record.pmid}"
        section_id, passage_id = f"{article_id}#s0", f"{article_id}#p0"
        batch.articles.append(ArticleRecord(
            id=article_id, source="pubmed", title=record.title, pmid=record.pmid, year=record.year,
            doi=record.doi, authors="; ".join(record.authors), status="pending",
            content_hash=content_hash(record)))
        batch.sections.append(SectionRecord(id=section_id, article_id=article_id, title="Abstract", index=0))
        batch.passages.append(PassageRecord(
            id=passage_id, article_id=article_id, section_id=section_id, text=record.text, source="pubmed",
            index=0, pmid=record.pmid, title=record.title, year=record.year, section_title="Abstract",
            char_start=0, char_end=len(record.text)))
        found, linked = self.linker.add_mentions(batch, passage_id, mentions)
        report.mentions += found
        report.linked_mentions += linked


#: The preparer a forked worker uses (set in the parent just before the fork; workers inherit it).
_WORKER_PREPARER: BatchPreparer | None = None


def _start_worker() -> None:
    """Initializer of a forked prepare worker (see :meth:`BatchPreparer.single_threaded`)."""
    assert _WORKER_PREPARER is not None, "worker started without a preparer"
    _WORKER_PREPARER.single_threaded()


def _prepare_in_worker(records: list[PubMedRecord]) -> PreparedBatch:
    assert _WORKER_PREPARER is not None, "worker started without a preparer"
    return _WORKER_PREPARER.prepare(records, embed=True)


class PubMedIngestor:
    """Writes PubMed records into a workspace's store and vector store (see module docstring).

    Parameters
    ----------
    store, vectors : destination graph store and vector store (both writable).
    extractor, resolver : entity extraction and resolution.
    embedder : passage embedder (the vector store's model).
    settings : ``batch_size``, ``min_link_confidence``, ``max_candidates``, ``progress``.
    workers : processes for the prepare and embed stages, >= 0. 1 = all in this process. N > 1 forks N
        worker processes (Linux/macOS ``fork``; elsewhere falls back to 1) that extract, link and embed
        (each single-threaded) while this process writes. 0 = :func:`auto_workers` (one per core, at most
        4). An input of a single batch is always prepared in this process (forking would only add start-up).
    fault_hook : called with each name of :data:`WRITE_BOUNDARIES` during a commit; for fault-injection tests.
    """

    def __init__(self, *, store: GraphStore, vectors: VectorStore, extractor: EntityExtractor,
                 resolver: EntityResolver, embedder: Embedder, settings: Settings, workers: int = 1,
                 fault_hook: Callable[[str], None] | None = None) -> None:
        if workers < 0:
            raise EngramError(f"workers={workers} is out of range: use an integer >= 1, or 0 for one per core.")
        workers = workers or auto_workers()
        self.store = store
        self.vectors = vectors
        self.extractor = extractor
        self.resolver = resolver
        self.embedder = embedder
        self.settings = settings
        self.workers = workers
        self.fault_hook = fault_hook or (lambda boundary: None)
        self.preparer = BatchPreparer(extractor=extractor, resolver=resolver, embedder=embedder, settings=settings)
        self.linker = self.preparer.linker

    def ingest(self, records: Iterable[PubMedRecord], *, total: int | None = None) -> IngestReport:
        """Ingest ``records`` (any iterable; streamed in batches). Returns the run's report."""
        start = time.perf_counter()
        report = IngestReport()
        report.stage_seconds = {"prepare": 0.0, "embed": 0.0, "write": 0.0}
        existing = self.store.articles(source="pubmed")
        known = dict(zip(existing["id"], zip(existing["content_hash"], existing["status"]))) if not existing.empty else {}
        bar = tqdm(total=total, desc="ingest PubMed", unit="doc", disable=not self.settings.progress,
                   smoothing=0.1, dynamic_ncols=True)
        seen: set[str] = set()

        def todo_batches() -> Iterator[list[PubMedRecord]]:
            for chunk in _batched(records, self.settings.batch_size):
                report.read += len(chunk)
                todo = []
                for record in chunk:
                    previous = known.get(f"pubmed:{record.pmid}")
                    if record.pmid in seen or (previous and previous[0] == content_hash(record)
                                               and previous[1] == "complete"):
                        report.unchanged += 1  # a PMID repeated in the input counts once
                    else:
                        seen.add(record.pmid)
                        todo.append(record)
                bar.update(len(chunk) - len(todo))
                if todo:
                    yield todo

        for prepared in self._prepared(todo_batches()):
            report.stage_seconds["prepare"] += prepared.seconds
            report.stage_seconds["embed"] += prepared.embed_seconds
            report.mentions += prepared.found
            report.linked_mentions += prepared.linked
            self._embed_and_commit(prepared, report)
            bar.update(len(prepared.records))
        bar.close()
        report.seconds = time.perf_counter() - start
        log.info("PubMed ingestion: %s", report)
        return report

    # ------------------------------------------------------------------------------------------
    def prepare(self, records: list[PubMedRecord], *, embed: bool = False) -> PreparedBatch:
        """The prepare stage of one batch (:meth:`BatchPreparer.prepare`)."""
        return self.preparer.prepare(records, embed=embed)

    def _embed(self, records: list[PubMedRecord]) -> np.ndarray:
        return self.preparer.embed(records)

    def _prepared(self, batches: Iterator[list[PubMedRecord]]) -> Iterator[PreparedBatch]:
        """Prepared batches in input order: in this process, or from forked workers kept ``2 * workers``
        batches ahead of the writer (bounded memory, unlike ``Pool.imap`` which drains its input)."""
        peeked = list(islice(batches, 2))  # one batch only: forking would add start-up and nothing else
        batches = chain(peeked, batches)
        if self.workers == 1 or len(peeked) < 2 or "fork" not in multiprocessing.get_all_start_methods():
            for records in batches:
                yield self.prepare(records)
            return
        global _WORKER_PREPARER
        _WORKER_PREPARER = self.preparer
        ctx = multiprocessing.get_context("fork")
        # The parent's objects (lexicon, gazetteer, resolver: ~770,000 tracked by the GC) go to the permanent
        # generation before the fork, so a full collection in a worker does not write the GC header of each one
        # and copy every page they sit on (copy-on-write). Measured on the 6,107 shared abstracts, static
        # embedder, 2 workers: worker CPU 35.7 -> 30.6 s, minor page faults 161k -> 103k, wall 24.2 -> 20.7 s.
        gc.freeze()
        try:
            with ctx.Pool(self.workers, initializer=_start_worker) as pool:
                pending: deque[Any] = deque()
                for records in batches:
                    pending.append(pool.apply_async(_prepare_in_worker, (records,)))
                    if len(pending) >= 2 * self.workers:
                        yield pending.popleft().get()
                while pending:
                    yield pending.popleft().get()
        finally:
            gc.unfreeze()
            _WORKER_PREPARER = None

    def _embed_and_commit(self, prepared: PreparedBatch, report: IngestReport) -> None:
        records = prepared.records
        embeddings = prepared.embeddings  # a worker embedded it (timed there) ...
        if embeddings is None:  # ... or this process does
            t0 = time.perf_counter()
            embeddings = self._embed(records)
            report.stage_seconds["embed"] += time.perf_counter() - t0
        t1 = time.perf_counter()
        try:
            self._commit(prepared.batch, records, embeddings)
            report.ingested += len(records)
            report.passages += len(records)
        except EngramError as exc:
            log.warning("batch of %d records failed (%s); retrying one by one", len(records), exc)
            for i, record in enumerate(records):
                single = LiteratureBatch()
                self._add_record(single, record, prepared.mentions[i], IngestReport())
                try:
                    self._commit(single, [record], embeddings[i : i + 1])
                    report.ingested += 1
                    report.passages += 1
                except EngramError as exc_one:
                    self._mark_error(record, str(exc_one))
                    report.failed += 1
                    report.errors.append((record.pmid, str(exc_one)))
        report.stage_seconds["write"] += time.perf_counter() - t1

    def _commit(self, batch: LiteratureBatch, records: list[PubMedRecord], embeddings: Any) -> None:
        """Graph (articles pending) -> vectors -> status complete; see the module docstring."""
        commit_batch(self.store, self.vectors, batch, [r.pmid for r in records], embeddings, self.fault_hook)

    def _mark_error(self, record: PubMedRecord, message: str) -> None:
        article = ArticleRecord(id=f"pubmed:{record.pmid}", source="pubmed", title=record.title,
                                pmid=record.pmid, year=record.year, status="error", error=message[:2000])
        try:
            self.store.write_literature(LiteratureBatch(articles=[article]))
        except EngramError:
            log.exception("could not record the error status of PMID %s", record.pmid)

    def _add_record(self, batch: LiteratureBatch, record: PubMedRecord, mentions: list[Mention],
                    report: IngestReport) -> None:
        self.preparer.add_record(batch, record, mentions, report)


def commit_batch(store: GraphStore, vectors: VectorStore, batch: LiteratureBatch, pmids: list[str],
                 embeddings: Any, hook: Callable[[str], None] = lambda boundary: None) -> None:
    """Commit one batch of PubMed articles, the protocol of the module docstring: the graph batch (articles
    ``pending``) in one transaction, then the passage vectors (``embeddings[i]`` of ``pubmed:<pmids[i]>#p0``,
    float32 ``(len(pmids), dimension)``), then ``complete``. Both engines commit through it.

    Raises
    ------
    EngramError
        If the graph or vector write fails; a failed vector write removes the batch's articles again.
    """
    hook("before_graph")
    store.write_literature(batch.deduplicated())
    hook("after_graph")
    ids = [f"pubmed:{p}#p0" for p in pmids]
    metadata = [{"source": "pubmed", "article_id": f"pubmed:{p}", "pmid": p} for p in pmids]
    half = max(1, len(ids) // 2)
    try:
        vectors.upsert(ids[:half], embeddings[:half], metadata[:half])
        hook("mid_vectors")
        if ids[half:]:
            vectors.upsert(ids[half:], embeddings[half:], metadata[half:])
    except EngramError:
        # Compensate: the graph write committed but its vectors did not; remove the articles so the
        # store never holds passages semantic ranking cannot see (a crash instead leaves them pending).
        for pmid in pmids:
            store.delete_article(f"pubmed:{pmid}")
        raise
    hook("after_vectors")
    mark_complete(store, [f"pubmed:{p}" for p in pmids])
    hook("after_status")


def mark_complete(store: GraphStore, article_ids: list[str]) -> int:
    """Set ``status = "complete"`` on ``article_ids`` in one statement (the commit point of a batch).

    Returns the number of articles updated.
    """
    if not article_ids:
        return 0
    frame = store.run_statement("mark_articles_complete", {"ids": list(article_ids)})
    return int(frame.iloc[0, 0]) if not frame.empty else 0
