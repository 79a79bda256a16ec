"""Graph/vector agreement: find and repair what an interrupted ingest left (issue 21).

The ingest commit protocol (:mod:`engram_kit.ingestion.pipeline`) writes a batch's graph with its articles
``pending``, then its vectors, then sets the articles ``complete``. After a crash the workspace can
therefore hold:

* **pending articles**: graph written, vectors maybe partly written, ``complete`` not yet set;
* **passages without vectors**: e.g. a vector write that died half-way (or older versions of engram-kit,
  which set ``complete`` before writing vectors);
* **vectors without passages**: vectors whose passages were replaced or deleted in the graph.

:func:`check_consistency` reports all three; with ``repair=True`` it embeds the missing passages from
their stored text (the graph holds each passage's full text), deletes orphan vectors and marks pending
PubMed articles ``complete`` once all their passages have vectors (documents left ``processing`` get their
vectors but stay pending: ``engram reprocess`` rebuilds them whole). Re-running the same ingest also completes
pending articles (they are not skipped as unchanged).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd
from engram_kit.progress import tqdm

from engram_kit.ingestion.pipeline import mark_complete
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.embeddings import Embedder
    from engram_kit.store.base import GraphStore
    from engram_kit.store.vectors import VectorStore

log = logging.getLogger(__name__)

#: Article statuses of an ingest that did not finish: ``pending`` (a PubMed batch in the graph before its
#: vectors) and ``processing`` (a document ingest interrupted half-way). ``complete_with_warnings``,
#: ``superseded`` and ``error`` are finished states, never drift.
UNFINISHED_STATUSES: tuple[str, ...] = ("pending", "processing")


@dataclass
class ConsistencyReport:
    """What :func:`check_consistency` found (and, with repair, fixed).

    Attributes
    ----------
    articles, passages, vectors : counts in the graph and the vector store.
    pending : ids of articles in :data:`UNFINISHED_STATUSES` (an interrupted batch or document ingest).
    missing_vectors : passage ids (of any status but ``error``) with no vector.
    orphan_vectors : vector ids with no passage in the graph.
    repaired : True when repair ran and changed something.
    """

    articles: int = 0
    passages: int = 0
    vectors: int = 0
    pending: list[str] = field(default_factory=list)
    missing_vectors: list[str] = field(default_factory=list)
    orphan_vectors: list[str] = field(default_factory=list)
    repaired: bool = False

    @property
    def consistent(self) -> bool:
        """True when every passage has a vector, every vector a passage, and no article is pending."""
        return not (self.pending or self.missing_vectors or self.orphan_vectors)

    def to_dict(self) -> dict[str, Any]:
        return {"articles": self.articles, "passages": self.passages, "vectors": self.vectors,
                "pending_articles": len(self.pending), "passages_without_vectors": len(self.missing_vectors),
                "vectors_without_passages": len(self.orphan_vectors), "consistent": self.consistent,
                "repaired": self.repaired}

    def __str__(self) -> str:
        state = "consistent" if self.consistent else "DRIFT"
        return (f"{state}: {self.articles} articles, {self.passages} passages, {self.vectors} vectors; "
                f"{len(self.pending)} pending articles, {len(self.missing_vectors)} passages without vectors, "
                f"{len(self.orphan_vectors)} vectors without passages" + (" (repaired)" if self.repaired else ""))


def _scan(store: GraphStore, vectors: VectorStore) -> tuple[ConsistencyReport, pd.DataFrame]:
    rows = store.run_statement("passages_with_status")  # passage ids, their article's id, status and source
    vector_ids = set(vectors.ids())
    passages = rows.dropna(subset=["passage_id"])
    passage_ids = set(passages["passage_id"])
    live = passages[passages["status"] != "error"]
    report = ConsistencyReport(
        articles=int(rows["article_id"].nunique()), passages=len(passage_ids), vectors=len(vector_ids),
        pending=sorted(set(rows.loc[rows["status"].isin(UNFINISHED_STATUSES), "article_id"])),
        missing_vectors=sorted(set(live["passage_id"]) - vector_ids),
        orphan_vectors=sorted(vector_ids - passage_ids))
    return report, passages


def check_consistency(store: GraphStore, vectors: VectorStore, embedder: Embedder | None = None, *,
                      repair: bool = False, progress: bool = False, batch_size: int = Settings.repair_batch) -> ConsistencyReport:
    """Report (and with ``repair`` fix) disagreement between the graph's passages and the vectors.

    Parameters
    ----------
    store, vectors : the workspace's graph store and vector store (writable for ``repair``).
    embedder : the workspace's embedder; required for ``repair``.
    repair : embed missing passages, delete orphan vectors, mark pending articles complete.

    Returns
    -------
    ConsistencyReport
        Without repair: the drift found. With repair: the drift found, ``repaired`` set, and a re-check
        after repairing must be :attr:`ConsistencyReport.consistent`.

    Raises
    ------
    ValueError
        If ``repair`` is asked without an embedder.
    """
    report, passages = _scan(store, vectors)
    if not repair or report.consistent:
        return report
    if embedder is None:
        raise ValueError("check_consistency(repair=True) needs the workspace's embedder.")
    if report.orphan_vectors:
        vectors.delete(report.orphan_vectors)
    missing = report.missing_vectors
    bar = tqdm(total=len(missing), desc="re-embed passages", unit="passage", disable=not progress)
    for start in range(0, len(missing), batch_size):
        ids = missing[start: start + batch_size]
        frame = store.get_passages(ids).set_index("id").loc[ids]
        embeddings = embedder.encode(frame["text"].tolist(), batch_size=64)
        metadata = [{"source": str(src), "article_id": str(art), **({"pmid": str(pm)} if pd.notna(pm) and pm else {})}
                    for src, art, pm in zip(frame["source"], frame["article_id"], frame.get("pmid", [None] * len(ids)))]
        vectors.upsert(ids, embeddings, metadata)
        bar.update(len(ids))
    bar.close()
    # PubMed articles are complete once their passages have vectors. Documents left ``processing`` also
    # need their alias hubs rebuilt: they are re-embedded here but stay pending for `engram reprocess`.
    pubmed = set(passages.loc[passages["source"] == "pubmed", "article_id"])
    finished = [a for a in report.pending if a in pubmed]
    if finished:
        mark_complete(store, finished)
    report.repaired = True
    log.info("repaired: %s", report)
    return report
