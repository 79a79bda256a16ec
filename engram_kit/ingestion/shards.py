"""Parquet shards of prepared PubMed batches, their reduce, and the load into a workspace.

The map stage of a distributed ingest (:mod:`engram_kit.ingestion.ray_engine`) writes one **shard** per batch
of input records: the :class:`~engram_kit.records.LiteratureBatch` tables of that batch (articles, sections,
passages, NounPhrases, MENTIONS, MAPS_TO) and its passage vectors, each a Parquet file, every row keyed by
PMID (``pubmed:<pmid>`` ids) and the article's content hash. This module has no Ray in it: it writes and
reads shards, reduces a shard set and loads it, so the same reduce and load serve any engine that writes
shards.

Layout::

    <root>/<file key>/<shard:07d>/{articles,sections,passages,nounphrases,mentions,maps_to,vectors}.parquet
    <root>/<file key>/_DONE        every shard of that input file is written (JSON: shard count, records)

A shard directory is written under a temporary name and renamed into place (atomic on POSIX), so it is
either complete or absent: a worker killed mid-shard leaves no partial shard, a retry of a finished shard
finds it in place and keeps it, and a stopped run resumes from the shards that exist.

Reduce (Arrow, in one process): NounPhrases are de-duplicated on id (first occurrence in input order wins,
as ``MERGE ... ON CREATE SET`` of the one-batch-at-a-time path keeps the first), MAPS_TO on (NounPhrase,
entity) with the *last* shard's confidence and method winning (each batch's ``SET`` overwrites the previous
one; within a shard the first, as :meth:`~engram_kit.records.LiteratureBatch.deduplicated`). Why Arrow and not
a Ray ``groupby`` or DuckDB: pyarrow is already a dependency of the default install; the keys are tiny (a
NounPhrase is ~4 short strings; 26 M abstracts give some 10^7 distinct phrases, a few GB); a hash
``group_by`` on one machine does that in seconds; a Ray shuffle would move the same rows over the network for
a reduce that the single-writer load after it serialises anyway. (DuckDB would add a dependency for the
same hash aggregate; it would spill to disk past RAM, which is where to go beyond ~10^8 phrases.)

Load: the reduced tables are written in chunks of articles (in shard order) through the store's literature
write (LadybugDB scans Arrow tables with ``LOAD FROM``; Neo4j gets ``UNWIND`` batches) and the vector store,
each chunk with the commit protocol of :func:`~engram_kit.ingestion.pipeline.commit_batch` (graph pending ->
vectors -> complete). Each NounPhrase and its MAPS_TO edges go with the first chunk that mentions it.
Articles already ``complete`` with the same content hash are skipped, so loading a loaded shard set writes
nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from engram_kit.errors import DataError
from engram_kit.records import (
    ArticleRecord,
    LiteratureBatch,
    MapsToEdge,
    MentionEdge,
    NounPhraseRecord,
    PassageRecord,
    SectionRecord,
)
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.ingestion.pipeline import PreparedBatch
    from engram_kit.store.base import GraphStore
    from engram_kit.store.vectors import VectorStore

log = logging.getLogger(__name__)

#: Graph tables of a shard -> the record type of its rows.
GRAPH_TABLES: dict[str, type] = {
    "articles": ArticleRecord, "sections": SectionRecord, "passages": PassageRecord,
    "nounphrases": NounPhraseRecord, "mentions": MentionEdge, "maps_to": MapsToEdge,
}
#: Every Parquet file of a finished shard.
SHARD_FILES: tuple[str, ...] = (*GRAPH_TABLES, "vectors")
#: Marker file of an input file whose every shard is written.
DONE = "_DONE"

_ARROW_TYPES = {"str": pa.string(), "int": pa.int64(), "int | None": pa.int64(), "float": pa.float64()}


def _schema(record_type: type) -> pa.Schema:
    """Arrow schema of a record dataclass (explicit, so an empty shard table concatenates with full ones)."""
    return pa.schema([(f.name, _ARROW_TYPES[str(f.type)]) for f in dataclasses.fields(record_type)])


SCHEMAS: dict[str, pa.Schema] = {name: _schema(cls) for name, cls in GRAPH_TABLES.items()}


def vectors_schema(dimension: int) -> pa.Schema:
    """Schema of a shard's vectors table: passage id, PMID, content hash and the float32 unit vector."""
    return pa.schema([("passage_id", pa.string()), ("pmid", pa.string()), ("content_hash", pa.string()),
                      ("vector", pa.list_(pa.float32(), dimension))])


def file_key(path: Path, recipe: str) -> str:
    """Folder name of one input file's shards: its stem plus a digest of its name, size, modification time and
    ``recipe`` (the embedder name and batch size): a changed file or another model never reuses old shards."""
    import hashlib

    stat = path.stat()
    digest = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{recipe}".encode()).hexdigest()
    stem = path.name.split(".")[0]
    return f"{stem}-{digest[:12]}"


def shard_dir(root: Path, key: str, index: int) -> Path:
    """Directory of shard ``index`` (0-based, in input order) of the file with ``key``."""
    return root / key / f"{index:07d}"


def is_finished(path: Path) -> bool:
    """Whether the shard at ``path`` is complete (written whole and renamed into place)."""
    return (path / "vectors.parquet").is_file()


def write_shard(path: Path, prepared: PreparedBatch) -> dict[str, int]:
    """Write one prepared batch (with its embeddings) as the shard at ``path``, atomically.

    The files go to a temporary sibling directory that is renamed to ``path`` at the end; if ``path`` exists
    already (a retried task whose first attempt finished), the new copy is dropped and the existing one kept
    (both hold the same rows: the map is deterministic).

    Returns
    -------
    dict
        Rows written per table.

    Raises
    ------
    DataError
        If the batch was not embedded (``prepared.embeddings`` is None).
    """
    if prepared.embeddings is None:
        raise DataError("write_shard needs an embedded batch (BatchPreparer.prepare(..., embed=True)).")
    batch = prepared.batch.deduplicated()
    tmp = path.parent / f".tmp-{path.name}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir(parents=True)
    counts: dict[str, int] = {}
    try:
        for name, schema in SCHEMAS.items():
            rows = [dataclasses.asdict(r) for r in getattr(batch, name)]
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp / f"{name}.parquet")
            counts[name] = len(rows)
        embeddings = np.ascontiguousarray(prepared.embeddings, dtype=np.float32)
        dim = int(embeddings.shape[1])
        vectors = pa.table({
            "passage_id": [f"pubmed:{r.pmid}#p0" for r in prepared.records],
            "pmid": [r.pmid for r in prepared.records],
            "content_hash": [a.content_hash for a in batch.articles],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(embeddings.reshape(-1)), dim),
        }, schema=vectors_schema(dim))
        pq.write_table(vectors, tmp / "vectors.parquet")  # last: its presence marks the shard finished
        counts["vectors"] = len(prepared.records)
        try:
            os.rename(tmp, path)
        except OSError:
            if not is_finished(path):
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # a retry of a finished shard: keep the first copy
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return counts


def mark_file_done(root: Path, key: str, shards: int, records: int) -> None:
    """Write ``_DONE`` of a file's shard folder (after every shard of it is written)."""
    folder = root / key
    folder.mkdir(parents=True, exist_ok=True)
    (folder / DONE).write_text(json.dumps({"shards": shards, "records": records}))


def file_done(root: Path, key: str) -> dict[str, int] | None:
    """The ``_DONE`` record of a file's shards (``{"shards", "records"}``), or None if not every shard is written."""
    marker = root / key / DONE
    return json.loads(marker.read_text()) if marker.is_file() else None


def shard_paths(root: Path, keys: Iterable[str]) -> list[Path]:
    """Finished shards of the files with ``keys``, in input order (file order, then shard index)."""
    out: list[Path] = []
    for key in keys:
        folder = root / key
        if folder.is_dir():
            out += sorted(p for p in folder.iterdir() if p.name.isdigit() and is_finished(p))
    return out


@dataclass
class ReducedShards:
    """A shard set reduced to one table per kind, in input order (see the module docstring).

    ``vectors`` holds ``passage_id, pmid, content_hash, vector``; the graph tables hold the record fields.
    ``order`` of an article is its position in input order; ``nounphrase_chunk`` and ``maps_to`` are
    resolved to the article chunk that first mentions each NounPhrase at load time.
    """

    tables: dict[str, pa.Table]
    shards: int
    #: Rows before de-duplication per table (NounPhrases and MAPS_TO shrink in the reduce).
    rows_in: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _dedupe(table: pa.Table, keys: list[str], *, keep: str) -> pa.Table:
    """Rows of ``table`` unique on ``keys``, keeping the first (``keep="first"``) or last occurrence, in the
    order of the kept rows' positions."""
    indexed = table.append_column("_row", pa.array(np.arange(len(table), dtype=np.int64)))
    agg = "min" if keep == "first" else "max"
    kept = indexed.group_by(keys, use_threads=False).aggregate([("_row", agg)])[f"_row_{agg}"]
    return table.take(pa.array(np.sort(kept.to_numpy())))


def reduce_shards(paths: list[Path]) -> ReducedShards:
    """Read the shards at ``paths`` (in input order) and reduce them (module docstring).

    A PMID that occurs in several shards (listed in two input files) keeps its last shard's copy, as
    ingesting the files one after the other does.

    Raises
    ------
    DataError
        If a shard file cannot be read (the message names it; delete that shard folder and re-run).
    """
    t0 = time.perf_counter()
    parts: dict[str, list[pa.Table]] = {name: [] for name in SHARD_FILES}
    for ordinal, path in enumerate(paths):
        for name in SHARD_FILES:
            try:
                table = pq.read_table(path / f"{name}.parquet")
            except (OSError, pa.ArrowInvalid) as exc:
                raise DataError(f"shard {path} is unreadable ({exc}); delete that folder and run the ingest "
                                "again (it re-maps only the missing shards).") from exc
            parts[name].append(table.append_column("_shard", pa.array(np.full(len(table), ordinal, np.int64))))
    tables: dict[str, pa.Table] = {}
    rows_in: dict[str, int] = {}
    for name in SHARD_FILES:
        schema = SCHEMAS[name] if name in SCHEMAS else vectors_schema(1)
        tables[name] = (pa.concat_tables(parts[name]) if parts[name]
                        else schema.append(pa.field("_shard", pa.int64())).empty_table())
        rows_in[name] = len(tables[name])
    # A PMID in two shards (two input files): the later shard wins, as when the files are ingested in turn.
    arts = tables["articles"]
    if len(set(arts["id"].to_pylist())) != len(arts):
        winner = dict(zip(arts["id"].to_pylist(), arts["_shard"].to_pylist()))  # later rows overwrite
        for name, article_of in (("articles", lambda t: t["id"].to_pylist()),
                                 ("sections", lambda t: t["article_id"].to_pylist()),
                                 ("passages", lambda t: t["article_id"].to_pylist()),
                                 ("mentions", lambda t: [s.split("#", 1)[0] for s in t["source_id"].to_pylist()]),
                                 ("vectors", lambda t: [f"pubmed:{p}" for p in t["pmid"].to_pylist()])):
            table = tables[name]
            keep = [winner.get(a) == sh for a, sh in zip(article_of(table), table["_shard"].to_pylist())]
            tables[name] = table.filter(pa.array(keep, type=pa.bool_()))
    tables["nounphrases"] = _dedupe(tables["nounphrases"], ["id"], keep="first")
    tables["maps_to"] = _dedupe(tables["maps_to"], ["nounphrase_id", "entity_id"], keep="last")
    return ReducedShards(tables, len(paths), rows_in, time.perf_counter() - t0)


@dataclass
class LoadReport:
    """What a load of reduced shards did: articles written and skipped, chunks, seconds per part."""

    loaded: int = 0
    unchanged: int = 0
    deleted: int = 0
    chunks: int = 0
    graph_seconds: float = 0.0
    vector_seconds: float = 0.0
    seconds: float = 0.0


def _records(table: pa.Table, record_type: type) -> list[Any]:
    names = [f.name for f in dataclasses.fields(record_type)]
    columns = [table[n].to_pylist() for n in names]
    return [record_type(*values) for values in zip(*columns)]


def load_reduced(reduced: ReducedShards, store: GraphStore, vectors: VectorStore, *,
                 chunk_articles: int = Settings.load_chunk_articles,
                 fault_hook: Callable[[str], None] | None = None) -> LoadReport:
    """Load ``reduced`` into ``store`` and ``vectors`` in chunks of ``chunk_articles`` articles (>= 1), each
    committed graph -> vectors -> complete (:func:`~engram_kit.ingestion.pipeline.commit_batch`).

    Articles already stored ``complete`` with the same content hash are skipped (a loaded shard set loads as
    nothing); a stored article with another hash is replaced.

    Raises
    ------
    IngestionError, EngramError
        From the store or vector store; the chunks before the failing one stay committed, the failing one is
        rolled back (graph) or left ``pending`` (a crash), and loading again completes it.
    """
    from engram_kit.ingestion.pipeline import commit_batch

    t0 = time.perf_counter()
    report = LoadReport()
    tables = reduced.tables
    existing = store.articles(source="pubmed")
    known = (dict(zip(existing["id"], zip(existing["content_hash"], existing["status"])))
             if not existing.empty else {})
    articles = _records(tables["articles"], ArticleRecord)
    todo = [a for a in articles if known.get(a.id) != (a.content_hash, "complete")]
    report.unchanged = len(articles) - len(todo)
    if not todo:
        report.seconds = time.perf_counter() - t0
        return report
    todo_ids = {a.id for a in todo}
    sections = [s for s in _records(tables["sections"], SectionRecord) if s.article_id in todo_ids]
    passages = [p for p in _records(tables["passages"], PassageRecord) if p.article_id in todo_ids]
    mentions = [m for m in _records(tables["mentions"], MentionEdge)
                if m.source_id.split("#", 1)[0] in todo_ids]
    vec = tables["vectors"]
    vec_row = {pid: i for i, pid in enumerate(vec["passage_id"].to_pylist())}
    matrix = (np.asarray(vec["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False),
                         dtype=np.float32).reshape(len(vec), -1) if len(vec) else np.zeros((0, 0), np.float32))
    nounphrases = {n.id: n for n in _records(tables["nounphrases"], NounPhraseRecord)}
    maps_by_np: dict[str, list[MapsToEdge]] = {}
    for edge in _records(tables["maps_to"], MapsToEdge):
        maps_by_np.setdefault(edge.nounphrase_id, []).append(edge)

    def by_article(items: list[Any], key: Callable[[Any], str]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for item in items:
            out.setdefault(key(item), []).append(item)
        return out

    sections_of = by_article(sections, lambda s: s.article_id)
    passages_of = by_article(passages, lambda p: p.article_id)
    mentions_of = by_article(mentions, lambda m: m.source_id.split("#", 1)[0])
    placed: set[str] = set()
    for start in range(0, len(todo), max(1, chunk_articles)):
        chunk = todo[start : start + max(1, chunk_articles)]
        batch = LiteratureBatch(articles=chunk)
        for article in chunk:
            batch.sections.extend(sections_of.get(article.id, []))
            batch.passages.extend(passages_of.get(article.id, []))
            for mention in mentions_of.get(article.id, []):
                batch.mentions.append(mention)
                if mention.nounphrase_id not in placed:
                    placed.add(mention.nounphrase_id)
                    batch.nounphrases.append(nounphrases[mention.nounphrase_id])
                    batch.maps_to.extend(maps_by_np.get(mention.nounphrase_id, []))
        pmids = [a.pmid for a in chunk]
        rows = [vec_row[f"pubmed:{p}#p0"] for p in pmids]
        t1 = time.perf_counter()
        commit_batch(store, vectors, batch, pmids, matrix[rows], fault_hook or (lambda boundary: None))
        report.graph_seconds += time.perf_counter() - t1
        report.loaded += len(chunk)
        report.chunks += 1
    report.seconds = time.perf_counter() - t0
    return report


def delete_pmids(store: GraphStore, vectors: VectorStore, pmids: Iterable[str]) -> int:
    """Delete the articles of ``pmids`` (a PubMed update file's ``DeleteCitation`` list) from the store and their
    passage vectors; absent PMIDs are ignored (so applying a file twice is harmless). Returns articles deleted."""
    deleted = 0
    for pmid in pmids:
        article_id = f"pubmed:{pmid}"
        passages = store.query("MATCH (a:Article {id: $id}) RETURN a.id AS id", {"id": article_id})
        if passages.empty:
            continue
        store.delete_article(article_id)
        vectors.delete([f"{article_id}#p0"])
        deleted += 1
    return deleted


#: Labels and relationship types :func:`compare_literature` counts.
COMPARED_COUNTS: tuple[str, ...] = ("Article", "Section", "Passage", "NounPhrase", "MENTIONS", "MAPS_TO")


def compare_literature(a: Any, b: Any) -> dict[str, Any]:
    """Compare the literature layers of two workspaces (``Workspace`` objects) built by two engines.

    Returns
    -------
    dict
        ``counts`` (label -> (a, b)), ``articles_equal`` (same article ids and content hashes),
        ``mentions_equal`` and ``maps_to_equal`` (same edges; MENTIONS with the same counts, MAPS_TO with
        confidences within 1e-6), ``nounphrases_equal`` (same ids), and ``min_cosine`` of each passage's vectors
        in the two vector stores (1.0 for identical vectors; NaN when a passage lacks one), ``vectors`` (a, b).
    """
    ca, cb = a.store.counts(), b.store.counts()
    arts_a, arts_b = a.store.articles(), b.store.articles()
    key = ["id", "content_hash", "status"]
    out: dict[str, Any] = {"counts": {k: (ca.get(k, 0), cb.get(k, 0)) for k in COMPARED_COUNTS}}
    out["articles_equal"] = (arts_a[key].sort_values("id").reset_index(drop=True)
                             .equals(arts_b[key].sort_values("id").reset_index(drop=True)))
    ea, eb = a.store.literature_edges(), b.store.literature_edges()
    for rel, name in (("MENTIONS", "mentions_equal"), ("MAPS_TO", "maps_to_equal")):
        fa = ea[ea["rel_type"] == rel].sort_values(["source", "target"]).reset_index(drop=True)
        fb = eb[eb["rel_type"] == rel].sort_values(["source", "target"]).reset_index(drop=True)
        out[name] = (len(fa) == len(fb) and (fa["source"] == fb["source"]).all()
                     and (fa["target"] == fb["target"]).all()
                     and bool(np.allclose(fa["weight"].to_numpy(), fb["weight"].to_numpy(), atol=1e-6)))
    na = set(a.store.query("MATCH (n:NounPhrase) RETURN n.id AS id")["id"])
    nb = set(b.store.query("MATCH (n:NounPhrase) RETURN n.id AS id")["id"])
    out["nounphrases_equal"] = na == nb
    ids = sorted(set(a.vectors.ids()) | set(b.vectors.ids()))
    va, vb = a.vectors.get_embeddings(ids), b.vectors.get_embeddings(ids)
    cosines = [float(np.dot(va[i], vb[i]) / (np.linalg.norm(va[i]) * np.linalg.norm(vb[i])))
               if i in va and i in vb else float("nan") for i in ids]
    out["min_cosine"] = float(np.min(cosines)) if cosines else float("nan")
    out["vectors"] = (a.vectors.count(), b.vectors.count())
    return out
