"""The document repository: uploaded PDFs, web pages and text files in the same graph as PubMed.

Lifecycle of a document (id ``doc:<first 16 hex of its SHA-256>``, so the same bytes are one document):

1. **Checks** -- the file name must be a bare name (``../../x.pdf`` is refused), the size at most
   ``max_bytes`` (default ``Settings.max_pdf_bytes``, 50 MB). Identical content that is
   already ``complete`` is not processed again (SHA-256 dedup).
2. **Original kept** in the workspace object folder, laid out like an S3 bucket (:class:`ObjectStore`):
   ``objects/documents/sha256/<2 hex>/<64 hex>/original.<ext>`` plus ``document.json`` (file name, kind,
   URL, metadata with confidences, summary, statistics, stage timings, status and error).
3. **Status** ``pending`` (Article node written) -> ``processing`` -> ``complete`` | ``error`` (message stored
   on the Article node and in ``document.json``).
4. **Pipeline** (:class:`DocumentPipeline`): parse -> sections -> token-aware passages -> extractive section
   and document summaries -> entity extraction at passage, section-summary and document-summary level
   -> linking -> embedding -> one atomic graph write -> vectors -> SAME_AS alias hubs.
5. **Failure anywhere** leaves no partial graph: the graph write is one transaction, and a failure after
   it (vectors, alias hubs) is compensated by deleting the document's passages, sections, vectors and
   orphaned NounPhrases; only the Article node remains, in status ``error``.

``delete`` removes the original, the nodes and edges, the vectors and the NounPhrases no other document
uses; ``reprocess`` reruns the pipeline on the stored original (idempotent: same ids, same counts).
"""

from __future__ import annotations

import builtins
import hashlib
import json
import logging
import re
import shutil
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from engram_kit.files import too_large_message, write_atomic
from engram_kit.embeddings import Embedder
from engram_kit.errors import DataError, EngramError, IngestionError, UnknownFileTypeError
from engram_kit.extraction import EntityExtractor
from engram_kit.extraction.tables import table_mentions
from engram_kit.ingestion.chunking import (
    MAX_PASSAGE_TOKENS,
    NO_LINK_PASSAGE_KINDS,
    DocumentMetadata,
    MetadataField,
    ParsedBlock,
    ParsedDocument,
    ParsedSection,
    TokenCounter,
    chunk_text,
    default_token_counter,
)
from engram_kit.ingestion.pdf import NON_RETRIEVABLE_KINDS, canonical_section, parse_pdf
from engram_kit.ingestion.pipeline import MentionLinker
from engram_kit.ingestion.repair import LOST_GLYPH, expand_ligatures
from engram_kit.ingestion.summaries import ExtractiveSummarizer, Summarizer
from engram_kit.ingestion.web import fetch_url, parse_html
from engram_kit.records import COMPLETE_STATUSES, ArticleRecord, LiteratureBatch, PassageRecord, SectionRecord
from engram_kit.resolution import EntityResolver
from engram_kit.resolution.aliases import AliasHubBuilder, maps_to_evidence
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore

if TYPE_CHECKING:
    from engram_kit.store.vectors import VectorStore  # chromadb: imported where vectors are read or written

log = logging.getLogger(__name__)

#: Source value of uploaded documents (Article.source, vector metadata, retrieval filter).
UPLOADED = "uploaded"
#: File kinds by extension.
KINDS_BY_EXTENSION: dict[str, str] = {".pdf": "pdf", ".html": "html", ".htm": "html", ".xhtml": "html",
                                      ".txt": "text", ".text": "text", ".md": "text", ".markdown": "text"}
#: Section kinds left out of the document summary (back matter says little about the content).
BACK_MATTER_KINDS: frozenset[str] = frozenset({
    "references", "acknowledgements", "competing_interests", "contributions", "author_details", "funding",
    "abbreviations", "data_availability", "supplementary"})
#: Columns of :meth:`DocumentRepository.list`.
LISTING_COLUMNS: tuple[str, ...] = ("id", "title", "authors", "year", "status", "passages", "entities", "seconds",
                                    "filename", "kind", "pages", "added", "error", "noun_phrases")
#: What "entities" counts wherever a document's entities are counted (the ingest report, ``engram docs``, the
#: listing): distinct knowledge-graph nodes that the document's noun phrases link to (MAPS_TO). The distinct
#: noun phrases it mentions, linked or not, are ``noun_phrases`` (the listing once showed those as "entities":
#: 29 beside the report's 17 for one PDF, issue 34).
ENTITIES_DEFINITION = "distinct knowledge-graph entities the document's noun phrases link to (MAPS_TO)"


#: Section kinds whose prose passages are ``back_matter`` (declarations, not content).
BACK_MATTER_PASSAGE_SECTIONS: frozenset[str] = BACK_MATTER_KINDS - {"references", "supplementary"}


#: A numbered reference entry's start: "12. ", "[12] " or "12) " at the start or after a sentence end.
_ENTRY_START = re.compile(r"(?:^|(?<=[.\s]))(?:\[\d{1,4}\]|\d{1,4}[.)])\s+(?=[A-Z])")
#: What a bibliographic entry holds beside a year: volume:pages, ";volume", a DOI, a PMID or "et al".
_BIBLIOGRAPHIC = re.compile(r"\d+\s*(?:\(\d+\))?\s*:\s*\d+|;\s*\d+|\bdoi\b|\bPMID\b|\bet al\b", re.I)
_YEAR = re.compile(r"\b(?:1[89]|20)\d{2}\b")


def reads_as_reference_list(text: str) -> bool:
    """True when ``text`` is a numbered reference list and little else.

    The text must split into at least ``Settings.reference_list_min_entries`` numbered entries ("1. ", "[1] ")
    covering 90% of its characters, and at least ``Settings.reference_list_min_share`` of the entries must hold
    a year and a bibliographic mark (volume:pages, ";volume", DOI, PMID or "et al"). Used only for a document
    whose whole text is front matter or sections of no known kind (no heading was found: the PDF's one
    :data:`~engram_kit.ingestion.pdf.BODY_TEXT` section), where a reference list set in one font cannot be
    told from body text by layout (issue 21: such a PDF must end ``error``, never ``complete``).
    """
    starts = [m.start() for m in _ENTRY_START.finditer(text)]
    if len(starts) < Settings.reference_list_min_entries:
        return False
    entries = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]
    if sum(len(e) for e in entries) < 0.9 * len(text.strip()):
        return False
    bibliographic = sum(1 for e in entries if _YEAR.search(e) and _BIBLIOGRAPHIC.search(e))
    return bibliographic >= Settings.reference_list_min_share * len(entries)


def linked_entity_counts(store: GraphStore, mentions: pd.DataFrame) -> dict[str, int]:
    """Entities per article by :data:`ENTITIES_DEFINITION`: ``mentions`` is
    :meth:`~engram_kit.store.base.GraphStore.article_mentions` (``article_id, nounphrase_id, ...``); returns
    article id -> number of distinct entities its noun phrases link to (articles without links are absent)."""
    if mentions.empty:
        return {}
    links = store.nounphrase_links(mentions["nounphrase_id"].unique().tolist())
    if links.empty:
        return {}
    pairs = mentions[["article_id", "nounphrase_id"]].drop_duplicates().merge(
        links[["nounphrase_id", "entity_id"]], on="nounphrase_id")
    return {str(k): int(v) for k, v in pairs.groupby("article_id")["entity_id"].nunique().items()}


def clear_of_lost_glyphs(text: str, mentions: list[Any]) -> list[Any]:
    """``mentions`` (objects with ``start``/``end`` offsets into ``text``) without those that hold or touch
    :data:`~engram_kit.ingestion.repair.LOST_GLYPH` (the character before or after the span included): a word
    with a glyph the font could not encode ("IL\ufffd6", "\ufffd-amyloid") is never linked through the gap."""
    if LOST_GLYPH not in text:
        return mentions
    return [m for m in mentions if LOST_GLYPH not in text[max(0, m.start - 1):m.end + 1]
            and not text[max(0, m.start - 2):m.start] == LOST_GLYPH + "-"]


def passage_kind(section: ParsedSection) -> str:
    """Kind of the prose passages of a section (:data:`~engram_kit.ingestion.chunking.PASSAGE_KINDS`):
    ``front_matter`` for the text before the first heading (title block, authors, affiliations,
    correspondence), ``back_matter`` for declarations (funding, contributions, competing interests, author
    details, acknowledgements, abbreviations, data availability), ``references`` for a reference list, else
    ``text``."""
    if section.kind == "front_matter":
        return "front_matter"
    if section.kind == "references":
        return "references"
    if section.kind in BACK_MATTER_PASSAGE_SECTIONS:
        return "back_matter"
    return "text"


def block_passages(block: ParsedBlock, counter: TokenCounter,
                   max_tokens: int = MAX_PASSAGE_TOKENS) -> list[tuple[str, int]]:
    """Passages of a table or caption block as ``(text, tokens)``.

    A caption is one passage (cut at token boundaries if longer than ``max_tokens``, which captions rarely
    are). A table is one passage when it fits; otherwise consecutive rows are grouped, each group repeating
    the caption, so every passage says which table it comes from (rows are ``header: value; ...``).
    """
    whole = block.text.strip()
    if not whole:
        return []
    n = counter.count_many([whole])[0]
    if n <= max_tokens:
        return [(whole, n)]
    if block.kind != "table":
        return [(c.text, c.tokens) for c in chunk_text(whole, counter=counter, target_tokens=max_tokens - 1,
                                                       max_tokens=max_tokens, overlap_tokens=0)]
    lines = whole.split("\n")
    head = [block.title] if block.title and lines and lines[0] == block.title else []
    rows = lines[len(head):]
    out: list[tuple[str, int]] = []
    group: list[str] = []
    for row in rows:
        candidate = "\n".join(head + group + [row])
        if group and counter.count_many([candidate])[0] > max_tokens:
            text = "\n".join(head + group)
            out.append((text, counter.count_many([text])[0]))
            group = []
        group.append(row)
    if group:
        text = "\n".join(head + group)
        out.append((text, counter.count_many([text])[0]))
    final = []
    for text, tokens in out:  # a single row longer than a passage: cut it
        if tokens > max_tokens:
            final += [(c.text, c.tokens) for c in chunk_text(text, counter=counter, target_tokens=max_tokens - 1,
                                                            max_tokens=max_tokens, overlap_tokens=0)]
        else:
            final.append((text, tokens))
    return final


def file_url_path(url: str) -> Path:
    """The local path of a ``file://`` URL (``file:///tmp/a%20b.pdf`` -> ``/tmp/a b.pdf``).

    Raises
    ------
    DataError
        If the URL names another host (``file://server/share/x.pdf``): only local files can be read.
    """
    from urllib.parse import unquote, urlparse
    from urllib.request import url2pathname

    parsed = urlparse(url)
    if parsed.netloc not in ("", "localhost"):
        raise DataError(f"{url!r} names the host {parsed.netloc!r}; file:// URLs must be local "
                        f"(file:///path/to/paper.pdf). Copy the file here first.")
    return Path(url2pathname(unquote(parsed.path)) if parsed.path else "")


def document_id(content_hash: str) -> str:
    """``doc:<first 16 hex digits of the SHA-256>`` (see :mod:`engram_kit.records`)."""
    return f"doc:{content_hash[:16]}"


#: Unicode bidirectional controls (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI, LRM, RLM, ALM): in a file name
#: they make "gpj.exe" display as "exe.jpg" (Trojan Source, CVE-2021-42574), so names holding them are refused.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def printable_name(filename: str) -> str:
    """``filename`` safe to store and show: undecodable bytes, controls and bidi controls escaped."""
    text = filename.encode("utf-8", "backslashreplace").decode("utf-8")
    text = "".join(f"\\u{ord(c):04x}" if c in BIDI_CONTROLS or unicodedata.category(c) in ("Cc", "Cf") else c
                   for c in text)
    return text if len(text) <= 255 else text[:252] + "..."


def check_filename(filename: str) -> str:
    """Return ``filename`` normalised to Unicode NFC if it is a usable bare file name.

    Raises
    ------
    DataError
        If it is empty, not valid UTF-8 (undecodable bytes from the file system), has path components (``/``,
        ``\\``, ``..``, a drive), NUL or other control characters, bidirectional controls (right-to-left
        override...), or more than 255 characters.
    """
    if any("\udc80" <= c <= "\udcff" for c in filename):
        raise DataError(f"File name {printable_name(filename)!r} is not valid UTF-8; rename the file with a UTF-8 name "
                        f"(e.g. `convmv -f latin1 -t utf-8`).")
    filename = unicodedata.normalize("NFC", filename)
    if not filename or filename in (".", "..") or len(filename) > 255:
        raise DataError(f"File name {printable_name(filename)!r} is not usable; give a plain name such as 'paper.pdf'.")
    if any(c in BIDI_CONTROLS for c in filename):
        raise DataError(f"File name {printable_name(filename)!r} has bidirectional control characters (they make a "
                        f"name display differently from what it is); rename the file without them.")
    if re.search(r"[/\\\x00-\x1f\x7f]", filename) or re.match(r"^[A-Za-z]:", filename) or any(
            unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") for c in filename):
        raise DataError(f"File name {printable_name(filename)!r} has path components or control characters; upload it "
                        f"under its plain name (e.g. {printable_name(Path(filename.replace(chr(92), '/')).name)!r}).")
    return filename


def source_key(*, source_url: str = "", path: str | Path | None = None, filename: str = "") -> str:
    """Where an upload came from: the URL (fragment dropped), else the absolute path of a local file, else the
    bare file name of uploaded bytes. One of the keys of :func:`same_source`."""
    if source_url:
        return "url:" + source_url.split("#")[0]
    if path is not None:
        return "path:" + str(Path(path).resolve())
    return "name:" + filename


# --- versions: which uploads are "the same source" ---------------------------------------------------------


def content_fingerprint(text: str) -> list[int]:
    """Bottom-k sketch of ``text``: the ``Settings.fingerprint_size`` smallest 64-bit hashes (BLAKE2b) of its
    lower-cased word ``Settings.shingle_words``-grams, sorted. Layout, case and punctuation do not change it; an
    edited sentence changes only the shingles it covers. Empty text gives ``[]``."""
    words = re.findall(r"\w+", text.lower())
    n = Settings.shingle_words
    grams = {" ".join(words[i:i + n]) for i in range(max(1, len(words) - n + 1))} if words else set()
    hashes = {int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big") >> 1 for g in grams}
    return sorted(hashes)[:Settings.fingerprint_size]


def fingerprint_similarity(a: list[int], b: list[int]) -> float:
    """Jaccard similarity of two texts estimated from their :func:`content_fingerprint` sketches, in [0, 1]:
    the share of the ``k`` smallest hashes of the union that both sketches hold (0 when either is empty)."""
    if not a or not b:
        return 0.0
    k = min(Settings.fingerprint_size, len(set(a) | set(b)))
    union = sorted(set(a) | set(b))[:k]
    both = set(a) & set(b)
    return sum(1 for h in union if h in both) / len(union)


def _doi_of(info: dict[str, Any]) -> str:
    doi = (info.get("metadata") or {}).get("doi") or {}
    confident = float(doi.get("confidence") or 0) >= Settings.doi_confidence
    return str(doi.get("value") or "").lower() if confident else ""


def same_source(new: dict[str, Any], old: dict[str, Any]) -> str:
    """Why two document records are versions of one source, or ``""`` when they are not. The keys, in order:

    1. **URL** -- both fetched from URLs: the same URL (fragment ignored) is one source, two URLs are two.
    2. **DOI** -- both carry a DOI read with confidence >= ``Settings.doi_confidence``: equal DOIs are one source
       (whatever the file names), different DOIs two.
    3. **path** -- the same absolute path of a local file (a file edited in place).
    4. **file name + content** -- the same bare file name and content fingerprints with Jaccard similarity >=
       ``Settings.same_source_similarity`` (:func:`fingerprint_similarity`): a revised copy from another folder or
       uploaded as bytes. A paper that merely shares a file name ("paper.pdf", "main.pdf") is another source,
       and so is a record without a fingerprint (made before fingerprints: never superseded by name alone).

    Returns
    -------
    str
        ``"URL"``, ``"DOI"``, ``"path"``, ``"file name + content"`` or ``""``.
    """
    new_url, old_url = str(new.get("source_url") or ""), str(old.get("source_url") or "")
    if new_url and old_url:
        return "URL" if new_url.split("#")[0] == old_url.split("#")[0] else ""
    new_doi, old_doi = _doi_of(new), _doi_of(old)
    if new_doi and old_doi:
        return "DOI" if new_doi == old_doi else ""
    new_source, old_source = str(new.get("source") or ""), str(old.get("source") or "")
    if new_source.startswith("path:") and new_source == old_source:
        return "path"
    if new.get("filename") and new.get("filename") == old.get("filename") and \
            fingerprint_similarity(new.get("fingerprint") or [], old.get("fingerprint") or []) \
            >= Settings.same_source_similarity:
        return "file name + content"
    return ""


def kind_of(filename: str) -> str:
    """Document kind (``pdf``, ``html``, ``text``) from the file extension.

    Raises
    ------
    UnknownFileTypeError
        For any other extension (the message lists the supported ones).
    """
    kind = KINDS_BY_EXTENSION.get(Path(filename).suffix.lower())
    if kind is None:
        raise UnknownFileTypeError(f"{filename!r}: unsupported document type; the repository takes "
                                   f"{', '.join(sorted(KINDS_BY_EXTENSION))} files and http(s) URLs.")
    return kind


def parse_plain_text(data: bytes, *, filename: str = "document.txt") -> ParsedDocument:
    """A UTF-8 text or Markdown file as a document; ``#`` headings start sections. Ligature characters are
    written as letters (:func:`~engram_kit.ingestion.repair.expand_ligatures`, as on every text path).

    Raises
    ------
    DataError
        If the bytes are empty or not UTF-8 (the message gives the first bad byte and its position).
    """
    try:
        text = expand_ligatures(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise DataError(f"{filename} is not UTF-8 text (byte {data[exc.start]:#04x} at position {exc.start}); "
                        f"re-encode it as UTF-8 (e.g. `iconv -f latin1 -t utf-8`).") from exc
    if not text.strip():
        raise DataError(f"{filename} has no text; upload a file with content.")
    sections: list[tuple[str, list[str]]] = [("Text", [])]
    for line in text.splitlines():
        heading = re.match(r"^#{1,4}\s+(.+?)\s*#*$", line)
        if heading:
            sections.append((heading.group(1), []))
        else:
            sections[-1][1].append(line)
    parsed = []
    for title, lines in sections:
        body = "\n".join(lines).strip()
        kind = canonical_section(title)
        if body or title != "Text":
            parsed.append(ParsedSection(title, kind, body, None, (), kind not in NON_RETRIEVABLE_KINDS))
    first = next((l.strip() for l in text.splitlines() if l.strip()), filename)
    metadata = DocumentMetadata(title=MetadataField(first.lstrip("# ")[:200], "first line", 0.3))
    return ParsedDocument("text", metadata, parsed, 1, [])


# --- object store -----------------------------------------------------------------------------------------
class ObjectStore:
    """Local files in an S3-shaped layout: ``<root>/<bucket>/<key>``, keys of ``/``-separated parts.

    Writes are atomic (temporary file + rename). Keys never contain ``..`` or absolute parts, so an object
    cannot land outside its bucket. The same keys work as S3 object keys if the folder is synced to a bucket.
    """

    def __init__(self, root: str | Path, bucket: str = "documents") -> None:
        self.root = Path(root)
        self.bucket = bucket

    def path(self, key: str) -> Path:
        """Local path of ``key``.

        Raises
        ------
        DataError
            If the key is empty, absolute or has ``.``/``..`` parts.
        """
        parts = key.split("/")
        if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise DataError(f"Object key {key!r} is not valid: use relative '/'-separated parts without '..'.")
        return self.root / self.bucket / Path(*parts)

    def put(self, key: str, data: bytes) -> Path:
        """Store ``data`` under ``key`` (replacing it); returns the local path."""
        return write_atomic(self.path(key), data)

    def get(self, key: str) -> bytes:
        """The bytes of ``key``.

        Raises
        ------
        DataError
            If there is no such object.
        """
        target = self.path(key)
        if not target.is_file():
            raise DataError(f"No object {key!r} in {self.root / self.bucket}; was the document deleted?")
        return target.read_bytes()

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def put_json(self, key: str, obj: dict[str, Any]) -> None:
        self.put(key, json.dumps(obj, indent=2, sort_keys=True, default=str).encode())

    def get_json(self, key: str) -> dict[str, Any]:
        return json.loads(self.get(key))

    def delete_prefix(self, prefix: str) -> None:
        """Delete every object under ``prefix`` (a folder of keys); absent prefixes are ignored."""
        target = self.path(prefix.rstrip("/"))
        if target.is_dir():
            shutil.rmtree(target)
        elif target.is_file():
            target.unlink()

    def keys(self, prefix: str = "") -> list[str]:
        """All keys under ``prefix``, sorted."""
        base = self.root / self.bucket
        start = self.path(prefix.rstrip("/")) if prefix else base
        if not start.exists():
            return []
        return sorted(p.relative_to(base).as_posix() for p in start.rglob("*") if p.is_file() and
                      not p.name.endswith(".tmp"))


def document_prefix(content_hash: str) -> str:
    """Key prefix of a document's objects: ``sha256/<2 hex>/<64 hex>``."""
    return f"sha256/{content_hash[:2]}/{content_hash}"


# --- results ----------------------------------------------------------------------------------------------
@dataclass
class DocumentReport:
    """Outcome of adding or reprocessing one document. ``timings``: seconds per pipeline stage."""

    id: str
    filename: str
    status: str
    duplicate: bool = False
    error: str = ""
    title: str = ""
    pages: int = 0
    sections: int = 0
    passages: int = 0
    mentions: int = 0
    linked_mentions: int = 0
    entities: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_frame(self) -> pd.DataFrame:
        """One-row summary (timings as ``t_<stage>`` columns)."""
        row = {k: v for k, v in self.to_dict().items() if k != "timings"}
        row.update({f"t_{k}": v for k, v in self.timings.items()})
        return pd.DataFrame([row])

    def __str__(self) -> str:
        if self.status == "error":
            return f"{self.filename}: error: {self.error}"
        dup = " (already ingested)" if self.duplicate else ""
        return (f"{self.filename}: {self.id} {self.status}{dup}: {self.pages} pages, {self.sections} sections, "
                f"{self.passages} passages, {self.mentions} mentions ({self.linked_mentions} linked to {self.entities} "
                f"graph entities) in {self.seconds:.1f} s")


@dataclass
class DocumentDetail:
    """Everything known about one document (the detail view renders this).

    Attributes
    ----------
    info : the ``document.json`` record (file name, kind, URL, status, statistics, timings, warnings).
    metadata : title, authors, year, DOI with their sources and confidences.
    summary : the document summary (extractive offline).
    sections : one row per section: ``index, id, title, page, passages, retrievable, summary``.
    entities : one row per (NounPhrase, linked entity): ``name, entity_type, levels, count, entity_id,
        entity_name, confidence`` (resolver), ``method``, ``documents`` (documents using the NounPhrase),
        ``aggregated`` (cross-document confidence, :func:`~engram_kit.resolution.aliases.aggregate_confidence`).
    """

    id: str
    status: str
    error: str
    info: dict[str, Any]
    metadata: DocumentMetadata
    summary: str
    sections: pd.DataFrame
    entities: pd.DataFrame

    @property
    def stats(self) -> dict[str, Any]:
        """Extraction statistics (sections, passages, tokens, mentions per level, linked, entities)."""
        return dict(self.info.get("stats", {}))

    def to_frame(self) -> pd.DataFrame:
        """The sections table."""
        return self.sections

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "error": self.error, "info": self.info,
                "metadata": self.metadata.to_dict(), "summary": self.summary,
                "sections": self.sections.to_dict("records"), "entities": self.entities.to_dict("records")}

    def __str__(self) -> str:
        meta = self.metadata
        authors = ", ".join(meta.authors.value or []) or "?"
        lines = [f"{self.id}  [{self.status}]  {self.info.get('filename', '')}",
                 f"title:   {meta.title.value}  ({meta.title.source}, conf {meta.title.confidence:.2f})",
                 f"authors: {authors}  ({meta.authors.source}, conf {meta.authors.confidence:.2f})",
                 f"year:    {meta.year.value}  ({meta.year.source}, conf {meta.year.confidence:.2f})",
                 f"doi:     {meta.doi.value or '?'}  ({meta.doi.source}, conf {meta.doi.confidence:.2f})"]
        if self.error:
            lines.append(f"error:   {self.error}")
        for problem in self.info.get("problems", []):
            lines.append(f"warning: {problem}")
        if self.summary:
            lines.append(f"summary: {self.summary}")
        if not self.sections.empty:
            lines.append("sections:")
            levels = self.info.get("section_levels", [])
            lines += [f"  {'  ' * (levels[r.index] - 1 if r.index < len(levels) else 0)}"
                      f"p{'' if pd.isna(r.page) else int(r.page)}  {r.title}  ({r.passages} passages"
                      f"{'' if r.retrievable else ', not retrieved'})" for r in self.sections.itertuples()]
        if self.stats:
            lines.append("stats:   " + ", ".join(f"{k}={v}" for k, v in self.stats.items()))
        return "\n".join(lines)


# --- the pipeline -----------------------------------------------------------------------------------------
@dataclass
class ProcessedDocument:
    """What :meth:`DocumentPipeline.build` produced, before anything is written."""

    batch: LiteratureBatch
    embeddings: np.ndarray
    summary: str
    stats: dict[str, int]
    timings: dict[str, float]
    entity_ids: list[str]


class DocumentPipeline:
    """Turns a :class:`ParsedDocument` into literature records and embeddings (no writes).

    Parameters
    ----------
    extractor, resolver : entity extraction and resolution (shared with PubMed ingestion).
    embedder : passage embedder.
    settings : ``min_link_confidence``, ``max_candidates``, ``batch_size`` and the passage sizes of section
        ``chunking`` (``target_passage_tokens``, ``max_passage_tokens``, ``passage_overlap_tokens``).
    summarizer : the summariser seam (default :class:`ExtractiveSummarizer`).
    counter : token counter for chunking (default: the embedder's WordPiece tokenizer).
    """

    def __init__(self, *, extractor: EntityExtractor, resolver: EntityResolver, embedder: Embedder,
                 settings: Settings, summarizer: Summarizer | None = None, counter: TokenCounter | None = None) -> None:
        self.extractor = extractor
        self.embedder = embedder
        self.settings = settings
        self.summarizer = summarizer or ExtractiveSummarizer()
        self.counter = counter
        self.linker = MentionLinker(resolver, min_confidence=settings.min_link_confidence,
                                    max_candidates=settings.max_candidates)

    def build(self, doc_id: str, parsed: ParsedDocument, *, content_hash: str, fallback_title: str) -> ProcessedDocument:
        """Sections, passages, summaries, mentions at three levels, links and passage embeddings."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        meta = parsed.metadata
        title = str(meta.title.value or fallback_title)
        year = meta.year.value if isinstance(meta.year.value, int) else None
        batch = LiteratureBatch(articles=[ArticleRecord(
            id=doc_id, source=UPLOADED, title=title, year=year, doi=str(meta.doi.value or ""),
            authors="; ".join(meta.authors.value or []), status="processing", content_hash=content_hash)])
        counter = self.counter or default_token_counter()
        chunking = self.settings.chunking  # passage sizes of this workspace (Settings, section "chunking")
        tokens = 0
        for s_index, section in enumerate(parsed.sections):
            section_id = f"{doc_id}#s{s_index}"
            kind = passage_kind(section)
            pieces: list[tuple[str, int, int, int | None, int | None, int, str]] = []
            if section.retrievable and section.text:
                for chunk in chunk_text(section.text, counter=counter, target_tokens=chunking.target_passage_tokens,
                                        max_tokens=chunking.max_passage_tokens,
                                        overlap_tokens=chunking.passage_overlap_tokens):
                    pieces.append((chunk.text, chunk.char_start, chunk.char_end, section.page_at(chunk.char_start),
                                   section.page_at(max(chunk.char_end - 1, 0)), chunk.tokens, kind))
            if section.retrievable:
                for block in section.blocks:
                    for text, n_tokens in block_passages(block, counter, chunking.max_passage_tokens):
                        pieces.append((text, 0, len(text), block.page, block.page, n_tokens, block.kind))
            for text, start, end, page_start, page_end, n_tokens, piece_kind in pieces:
                p_index = len(batch.passages)
                batch.passages.append(PassageRecord(
                    id=f"{doc_id}#p{p_index}", article_id=doc_id, section_id=section_id, text=text,
                    source=UPLOADED, index=p_index, title=title, year=year, section_title=section.title,
                    page_start=page_start, page_end=page_end, char_start=start, char_end=end, kind=piece_kind))
                tokens += n_tokens
            batch.sections.append(SectionRecord(section_id, doc_id, section.title, s_index))
        timings["chunk"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        summaries = [self._section_summary(s) for s in parsed.sections]
        batch.sections = [SectionRecord(s.id, s.article_id, s.title, s.index, summary)
                          for s, summary in zip(batch.sections, summaries)]
        has_body = any(s.kind in ("abstract", "introduction") for s in parsed.sections)
        main = " ".join(summary for s, summary in zip(parsed.sections, summaries)
                        if s.retrievable and s.kind not in BACK_MATTER_KINDS and summary
                        and not (has_body and s.kind == "front_matter"))
        summary = self.summarizer.summarize(main, title=title, max_sentences=Settings.document_summary_sentences)
        timings["summarise"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        # author lists, affiliations, correspondence, references, tables and captions are no claims: their
        # passages (and the summaries of such sections) are never sent to the prose entity extraction
        texts = [p.text if p.kind not in NO_LINK_PASSAGE_KINDS else "" for p in batch.passages]
        texts += [summary_text if passage_kind(section) not in NO_LINK_PASSAGE_KINDS else ""
                  for section, summary_text in zip(parsed.sections, summaries)]
        texts.append(summary)
        wanted = [i for i, t in enumerate(texts) if t]
        # One document: a short form defined in one passage keeps its meaning in the others (issue 14).
        extracted = self.extractor.extract_many([texts[i] for i in wanted], batch_size=self.settings.batch_size,
                                                same_document=True)
        found: list[list] = [[] for _ in texts]
        for i, mentions in zip(wanted, extracted):
            found[i] = clear_of_lost_glyphs(texts[i], mentions)
        # table passages: only whole cells that are official gene symbols (in a gene column) or full
        # Disease/Compound names are linked (engram_kit.extraction.tables); never atom labels or codes
        for i, passage in enumerate(batch.passages):
            if passage.kind == "table":
                found[i] = table_mentions(passage.text, self.extractor.lexicon)
        timings["extract"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        n_passages = len(batch.passages)
        stats = {"sections": len(batch.sections), "passages": n_passages, "tokens": tokens,
                 "mentions_passage": 0, "mentions_section": 0, "mentions_document": 0, "linked_mentions": 0}
        for passage, mentions in zip(batch.passages, found[:n_passages]):
            n, linked = self.linker.add_mentions(batch, passage.id, mentions, source_label="Passage")
            stats["mentions_passage"] += n
            stats["linked_mentions"] += linked
        for record, mentions in zip(batch.sections, found[n_passages:-1]):
            n, linked = self.linker.add_mentions(batch, record.id, mentions, source_label="Section")
            stats["mentions_section"] += n
            stats["linked_mentions"] += linked
        n, linked = self.linker.add_mentions(batch, doc_id, found[-1], source_label="Article")
        stats["mentions_document"] += n
        stats["linked_mentions"] += linked
        batch = batch.deduplicated()
        entity_ids = sorted({m.entity_id for m in batch.maps_to})
        stats["nounphrases"] = len(batch.nounphrases)
        stats["entities"] = len(entity_ids)  # ENTITIES_DEFINITION, as the listing counts them
        timings["link"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        embeddings = self.embedder.encode([p.text for p in batch.passages], batch_size=self.settings.batch_size)
        timings["embed"] = time.perf_counter() - t0
        return ProcessedDocument(batch, embeddings, summary, stats, timings, entity_ids)

    def _section_summary(self, section: ParsedSection) -> str:
        if not section.retrievable:
            entries = len([l for l in section.text.split("\n") if l.strip()])
            return f"Reference list ({entries} lines), kept out of retrieval."
        return self.summarizer.summarize(section.text, title=section.title) if section.text else ""


# --- the repository ---------------------------------------------------------------------------------------
class DocumentRepository:
    """Add, list, inspect, delete and reprocess uploaded documents of one workspace.

    Parameters
    ----------
    root : the workspace's object folder (``<workspace>/objects``).
    store : the graph store.
    vectors : zero-argument callable returning the passage vector store (opened on first need).
    pipeline : zero-argument callable returning a :class:`DocumentPipeline` (loads extraction models).
    on_change : called after the literature changed (the workspace bumps its literature version).
    max_bytes, max_pages : limits of an uploaded file (defaults: 50 MB, 500 pages).

    Examples
    --------
    >>> report = ws.documents.add_file("data/pdfs/bmc_dvt_prophylaxis_trauma_review.pdf")  # doctest: +SKIP
    >>> ws.documents.list()                                                                # doctest: +SKIP
    """

    def __init__(self, root: str | Path, store: GraphStore, *, vectors: Callable[[], VectorStore],
                 pipeline: Callable[[], DocumentPipeline], on_change: Callable[[], None] | None = None,
                 max_bytes: int = Settings.max_pdf_bytes, max_pages: int = Settings.max_pdf_pages) -> None:
        self.objects = ObjectStore(root)
        self.store = store
        self._vectors = vectors
        self._pipeline_factory = pipeline
        self._pipeline: DocumentPipeline | None = None
        self._on_change = on_change or (lambda: None)
        self.max_bytes = max_bytes
        self.max_pages = max_pages

    @property
    def pipeline(self) -> DocumentPipeline:
        if self._pipeline is None:
            self._pipeline = self._pipeline_factory()
        return self._pipeline

    # --- adding ------------------------------------------------------------------------------------------
    def add_file(self, path: str | Path, *, raise_on_error: bool = True, as_new: bool = False) -> DocumentReport:
        """Add a local ``.pdf``, ``.html``/``.htm`` or ``.txt``/``.md`` file (see :meth:`add_bytes`); the same
        path added again with new content replaces the old version unless ``as_new``, and so does a file of the
        same name and similar content from another folder (:func:`same_source`).

        Raises
        ------
        DataError
            If the file does not exist.
        UnknownFileTypeError
            For an unsupported extension (nothing is stored).
        IngestionError
            If the document ends in status ``error`` and ``raise_on_error`` (the message says why).
        """
        path = Path(path)
        if not path.is_file():
            raise DataError(f"No such file: {printable_name(str(path))}; check the path.")
        kind_of(path.name)
        source = source_key(path=path)
        size = path.stat().st_size
        if size > self.max_bytes:  # hash without reading the whole file into memory
            digest = hashlib.sha256()
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            message = too_large_message(path.name, size, self.max_bytes)
            return self._reject(digest.hexdigest(), path.name, message, raise_on_error, source=source)
        return self.add_bytes(path.read_bytes(), path.name, raise_on_error=raise_on_error, source=source,
                              as_new=as_new)

    def add_bytes(self, data: bytes, filename: str, *, source_url: str = "", charset: str = "",
                  raise_on_error: bool = True, source: str = "", as_new: bool = False) -> DocumentReport:
        """Add a document from its bytes; ``filename`` (a bare name) decides the kind by its extension.

        Versions: when the document completes, earlier current documents of the same source (:func:`same_source`:
        the same URL, DOI or path, or the same file name with similar content) become ``superseded``: their
        passages, vectors and mentions are removed (never cited again), their original and record stay as
        history (:meth:`versions`). ``as_new=True`` keeps both as separate documents.

        Returns
        -------
        DocumentReport
            Status ``complete`` (``duplicate=True`` when the same content was already complete), or
            ``error`` with the message when ``raise_on_error`` is False.

        Raises
        ------
        UnknownFileTypeError
            For an unsupported extension (nothing is stored).
        IngestionError
            If the document ends in status ``error`` and ``raise_on_error``: bad name, too large, empty,
            corrupted, encrypted, scanned, not a PDF, too many pages, not UTF-8, or a pipeline failure.
        """
        content_hash = hashlib.sha256(data).hexdigest()
        doc_id = document_id(content_hash)
        kind = kind_of(filename)
        try:
            filename = check_filename(filename)
            if not data:  # recorded per source: two different empty files must not share one error record
                raise DataError(f"{filename} is empty (0 bytes); upload the file again.")
            if len(data) > self.max_bytes:
                raise DataError(too_large_message(filename, len(data), self.max_bytes))
        except DataError as exc:
            return self._reject(content_hash, filename, str(exc), raise_on_error,
                                source=source or source_key(source_url=source_url, filename=filename))
        source = source or source_key(source_url=source_url, filename=filename)
        previous = self._article(doc_id)
        # Already ingested only when document.json agrees: a crash after the graph's status was set but before
        # the record was saved leaves it "processing" with no statistics, so that document is processed again.
        if (previous is not None and previous["status"] in COMPLETE_STATUSES
                and self._info_or_empty(doc_id).get("status") in COMPLETE_STATUSES):
            log.info("%s (%s) is already ingested", filename, doc_id)
            info = self._info(doc_id)
            if not as_new and not info.get("as_new"):
                self._supersede_previous(info)  # finishes a replacement a crash interrupted
            return self._report(self._info(doc_id), duplicate=True)
        prefix = document_prefix(content_hash)
        extension = Path(filename).suffix.lower()
        self.objects.put(f"{prefix}/original{extension}", data)
        info = {"id": doc_id, "filename": filename, "kind": kind, "content_hash": content_hash, "bytes": len(data),
                "original": f"{prefix}/original{extension}", "source_url": source_url, "charset": charset,
                "source": source, "as_new": as_new,
                "added": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        self._save_info(content_hash, info)
        return self._process(info, raise_on_error=raise_on_error)

    def add_url(self, url: str, *, raise_on_error: bool = True, as_new: bool = False) -> DocumentReport:
        """Fetch a web page (or a PDF) and add it as a document; a ``file://`` URL adds the local file.

        Raises
        ------
        DataError
            Bad URL, HTTP error status (404...), a content type that is neither HTML nor PDF, or too large:
            nothing is stored (there is no document to record).
        IngestionError
            Network failure; or the document ends in status ``error`` and ``raise_on_error``.
        """
        if url.lower().startswith("file://"):
            return self.add_file(file_url_path(url), raise_on_error=raise_on_error, as_new=as_new)
        page = fetch_url(url, max_bytes=self.max_bytes)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(page.final_url.split("?")[0].rstrip("/")).name or "page")
        stem = re.sub(r"\.(pdf|html?|xhtml)$", "", stem, flags=re.I)[:80] or "page"
        filename = f"{stem}.pdf" if page.is_pdf else f"{stem}.html"
        return self.add_bytes(page.content, filename, source_url=page.final_url, charset=page.charset,
                              raise_on_error=raise_on_error, as_new=as_new)

    # --- lifecycle ---------------------------------------------------------------------------------------
    def reprocess(self, doc_id: str, *, raise_on_error: bool = True) -> DocumentReport:
        """Run the pipeline again on the stored original (idempotent: same ids, same counts).

        Raises
        ------
        DataError
            Unknown document, or no original stored (it was refused before being kept: upload it again).
        """
        info = self._info(doc_id)
        if not info.get("original") or not self.objects.exists(info["original"]):
            raise DataError(f"Document {doc_id} has no stored original ({info.get('error', '')}); upload the file "
                            f"again instead of reprocessing it.")
        return self._process(info, raise_on_error=raise_on_error)

    def delete(self, doc_id: str) -> int:
        """Delete a document: its original and record, its graph nodes and edges, its vectors, and the
        NounPhrases no other document mentions (alias hubs of the affected entities are re-elected).

        Returns
        -------
        int
            Number of passages removed.

        Raises
        ------
        DataError
            If no such document exists.
        """
        info = self._info(doc_id)
        mentioned = self.store.article_mentions([doc_id])["nounphrase_id"].unique().tolist()
        entities = self.store.nounphrase_links(mentioned)["entity_id"].unique().tolist() if mentioned else []
        self._delete_vectors(doc_id)
        removed = self.store.delete_article(doc_id)
        if entities or mentioned:
            AliasHubBuilder(self.store).update(entities, extra_nounphrases=mentioned)
        self.objects.delete_prefix(document_prefix(info["content_hash"]))
        self._on_change()
        log.info("deleted %s (%d passages)", doc_id, removed)
        return removed

    def versions(self, doc_id: str) -> pd.DataFrame:
        """Every version of the source of ``doc_id``, newest first: ``id, status, added, filename, superseded_by,
        same`` (the current one has status ``complete``/``complete_with_warnings``; older ones ``superseded``;
        ``same``: the key of :func:`same_source` that made it a version, e.g. ``"DOI"``).

        Raises
        ------
        DataError
            If no such document exists.
        """
        self._info(doc_id)
        infos = {info["id"]: info for info in self._all_infos()}
        linked: dict[str, set[str]] = {}
        for info in infos.values():  # versions are the documents joined by "superseded_by", either way
            if info.get("superseded_by") in infos:
                linked.setdefault(info["id"], set()).add(info["superseded_by"])
                linked.setdefault(info["superseded_by"], set()).add(info["id"])
        chain, todo = {doc_id}, [doc_id]
        while todo:
            for other in linked.get(todo.pop(), set()) - chain:
                chain.add(other)
                todo.append(other)
        def hops(i: str) -> int:  # steps along "superseded_by" to the current version: the newest first
            seen = 0
            while infos[i].get("superseded_by") in chain and seen < len(chain):
                i, seen = infos[i]["superseded_by"], seen + 1
            return seen

        rows = [{"id": i, "status": infos[i].get("status", ""), "added": infos[i].get("added", ""),
                 "filename": infos[i].get("filename", ""), "superseded_by": infos[i].get("superseded_by", ""),
                 "same": infos[i].get("superseded_because", ""), "_hops": hops(i)} for i in chain if i in infos]
        frame = pd.DataFrame(rows, columns=["id", "status", "added", "filename", "superseded_by", "same", "_hops"])
        frame = frame.sort_values(["_hops", "added"], ascending=[True, False], kind="stable")
        return frame.drop(columns="_hops").reset_index(drop=True)

    def drop_history(self) -> int:
        """Delete superseded versions for good (originals, records, Article nodes); returns how many."""
        superseded = [i["id"] for i in self._all_infos() if i.get("status") == "superseded"]
        for doc_id in superseded:
            self.delete(doc_id)
        return len(superseded)

    def _all_infos(self) -> list[dict[str, Any]]:
        return [self.objects.get_json(k) for k in self.objects.keys("sha256") if k.endswith("/document.json")]

    def _supersede_previous(self, info: dict[str, Any]) -> list[str]:
        """Make earlier current versions of ``info``'s source (:func:`same_source`: URL, DOI, path, or file name
        with similar content) ``superseded``: content, vectors and mentions removed, record and original kept."""
        doc_id = info["id"]
        replaced = []
        for other in self._all_infos():
            if other["id"] == doc_id or other.get("status") not in COMPLETE_STATUSES or other.get("as_new"):
                continue
            why = same_source(info, other)
            if not why:
                continue
            mentioned = self.store.article_mentions([other["id"]])["nounphrase_id"].unique().tolist()
            entities = self.store.nounphrase_links(mentioned)["entity_id"].unique().tolist() if mentioned else []
            self._delete_vectors(other["id"])
            self._write_stub(other["id"], other.get("filename", ""), other["content_hash"], "superseded")
            if entities or mentioned:
                AliasHubBuilder(self.store).update(entities, extra_nounphrases=mentioned)
            other.update(status="superseded", superseded_by=doc_id, superseded_because=why)
            self._save_info(other["content_hash"], other)
            replaced.append(other["id"])
            log.info("%s supersedes %s (same %s)", doc_id, other["id"], why)
        if replaced:
            info["replaces"] = sorted(set(info.get("replaces", [])) | set(replaced))
            self._save_info(info["content_hash"], info)
            self._on_change()
        return replaced

    # --- reading -----------------------------------------------------------------------------------------
    def resolve_id(self, text: str) -> str:
        """The document id that ``text`` names: a full ``doc:...`` id or a unique prefix of its hex part.

        Raises
        ------
        DataError
            If no document, or several, match.
        """
        articles = self.store.articles(source=UPLOADED)
        ids = articles["id"].tolist() if not articles.empty else []
        wanted = text if text.startswith("doc:") else f"doc:{text}"
        matches = [i for i in ids if i == wanted] or [i for i in ids if i.startswith(wanted)]
        if len(matches) != 1:
            problem = "matches no document" if not matches else f"matches {len(matches)} documents"
            raise DataError(f"{text!r} {problem}; list the ids with `engram docs`.")
        return matches[0]

    def list(self, search: str | None = None, status: str | None = None) -> pd.DataFrame:
        """Uploaded documents as a DataFrame (columns :data:`LISTING_COLUMNS`), newest first.

        Parameters
        ----------
        search : case-insensitive text searched in the title and the file name.
        status : keep one status (:data:`~engram_kit.records.STATUSES`); superseded versions are listed only
            with ``status="superseded"``.
        """
        articles = self.store.articles(source=UPLOADED)
        if articles.empty:
            return pd.DataFrame(columns=list(LISTING_COLUMNS))
        mentions = self.store.article_mentions(articles["id"].tolist())
        nounphrases = mentions.groupby("article_id")["nounphrase_id"].nunique()
        entities = linked_entity_counts(self.store, mentions)
        rows = []
        for row in articles.itertuples():
            key = self._info_key(row.content_hash) if row.content_hash else ""
            info = self.objects.get_json(key) if key and self.objects.exists(key) else {}
            rows.append({"id": row.id, "title": row.title, "authors": row.authors, "year": row.year,
                         "status": row.status, "passages": int(row.passages), "entities": int(entities.get(row.id, 0)),
                         "noun_phrases": int(nounphrases.get(row.id, 0)),
                         "seconds": info.get("seconds"), "filename": info.get("filename", ""),
                         "kind": info.get("kind", ""), "pages": info.get("pages"), "added": info.get("added", ""),
                         "error": row.error or ""})
        frame = pd.DataFrame(rows, columns=list(LISTING_COLUMNS))
        if search:
            needle = search.lower()
            frame = frame[frame["title"].fillna("").str.lower().str.contains(needle, regex=False)
                          | frame["filename"].str.lower().str.contains(needle, regex=False)]
        if status:
            frame = frame[frame["status"] == status]
        else:
            frame = frame[frame["status"] != "superseded"]
        frame["year"] = frame["year"].astype("Int64")
        return frame.sort_values(["added", "id"], ascending=[False, True]).reset_index(drop=True)

    def detail(self, doc_id: str) -> DocumentDetail:
        """The detail view of one document: metadata, sections with summaries, entities with confidence.

        Raises
        ------
        DataError
            If no such document exists.
        """
        info = self._info(doc_id)
        article = self._article(doc_id)
        sections = self.store.article_sections(doc_id)
        passages = self.store.article_passages(doc_id)
        per_section = passages.groupby("section_id")["id"].count() if not passages.empty else pd.Series(dtype=int)
        pages = info.get("section_pages", [])
        kinds = info.get("section_retrievable", [])
        sections_frame = pd.DataFrame({
            "index": sections["index"].astype(int) if not sections.empty else [],
            "id": sections["id"] if not sections.empty else [],
            "title": sections["title"] if not sections.empty else [],
            "page": pd.array([pages[i] if i < len(pages) else None for i in sections["index"]], dtype="Int64")
            if not sections.empty else pd.array([], dtype="Int64"),
            "passages": [int(per_section.get(s, 0)) for s in sections["id"]] if not sections.empty else [],
            "retrievable": [bool(kinds[i]) if i < len(kinds) else True for i in sections["index"]]
            if not sections.empty else [],
            "summary": sections["summary"] if not sections.empty else [],
        })
        return DocumentDetail(doc_id, article["status"] if article is not None else info.get("status", "?"),
                              (article["error"] if article is not None else info.get("error", "")) or "",
                              info, DocumentMetadata.from_dict(info["metadata"]) if info.get("metadata")
                              else DocumentMetadata(title=MetadataField(info.get("filename", ""), "filename", 0.1)),
                              info.get("summary", ""), sections_frame, self.entities(doc_id))

    def entities(self, doc_id: str) -> pd.DataFrame:
        """Entities of a document with the levels they were found at and their link confidences.

        Returns
        -------
        DataFrame
            ``name, entity_type, levels, count, entity_id, entity_name, confidence, method, documents,
            aggregated`` sorted by ``count`` (entity columns empty for unlinked NounPhrases).
        """
        mentions = self.store.article_mentions([doc_id])
        columns = ["nounphrase_id", "name", "entity_type", "levels", "count", "entity_id", "entity_name", "confidence",
                   "method", "documents", "aggregated"]
        if mentions.empty:
            return pd.DataFrame(columns=columns)
        per_np = mentions.groupby(["nounphrase_id", "name", "entity_type"], as_index=False).agg(
            levels=("level", lambda s: ",".join(sorted(set(s)))), count=("count", "sum"))
        evidence = maps_to_evidence(self.store, per_np["nounphrase_id"].tolist())
        merged = per_np.merge(evidence.drop(columns=["name", "entity_type"]), on="nounphrase_id", how="left")
        for column in ("entity_id", "entity_name", "method"):
            merged[column] = merged[column].fillna("")
        return merged.sort_values(["count", "aggregated"], ascending=False)[columns].reset_index(drop=True)

    # --- internals ---------------------------------------------------------------------------------------
    def _process(self, info: dict[str, Any], *, raise_on_error: bool) -> DocumentReport:
        """pending -> processing -> complete | error, with compensating cleanup on failure."""
        started = time.perf_counter()
        doc_id, content_hash, filename = info["id"], info["content_hash"], info["filename"]
        self._write_stub(doc_id, filename, content_hash, "pending")
        self._delete_vectors(doc_id)
        self.store.set_article_status(doc_id, "processing")
        info.update(status="processing", error="")
        self._save_info(content_hash, info)
        written = False
        processed: ProcessedDocument | None = None
        try:
            t0 = time.perf_counter()
            parsed = self._parse(info)
            parse_seconds = time.perf_counter() - t0
            retrievable = [x for x in parsed.sections if x.retrievable]
            if retrievable and all(x.kind in ("front_matter", "") for x in retrievable) \
                    and reads_as_reference_list(" ".join(x.text for x in retrievable)):
                raise DataError(f"{filename} yields no passages: its text is only a numbered reference list "
                                f"({sum(len(x.text) for x in retrievable)} characters, no heading or body text); "
                                "nothing could be cited from it. Upload the article itself.")
            processed = self.pipeline.build(doc_id, parsed, content_hash=content_hash,
                                            fallback_title=Path(filename).stem)
            processed.timings = {"parse": parse_seconds, **processed.timings}
            if not processed.batch.passages:
                raise DataError(f"{filename} yields no passages ({sum(len(x.text) for x in parsed.sections)} characters "
                                f"in {len(parsed.sections)} sections, none retrievable text); nothing could be cited "
                                f"from it. Check the file (a scan needs OCR, e.g. `ocrmypdf`).")
            t0 = time.perf_counter()
            written = True
            self.store.write_literature(processed.batch)
            passages = processed.batch.passages
            self._vectors().upsert([p.id for p in passages], processed.embeddings,
                                   [{"source": UPLOADED, "article_id": doc_id} for _ in passages])
            processed.timings["write"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            AliasHubBuilder(self.store).update(processed.entity_ids)
            processed.timings["alias_hubs"] = time.perf_counter() - t0
            status = "complete_with_warnings" if parsed.problems else "complete"
            self.store.set_article_status(doc_id, status)
            # counted from the store as the listing counts it: the batch holds only the MAPS_TO edges it writes, so
            # a noun phrase already linked by earlier abstracts was missing (17 in the report, 18 in `engram docs`)
            processed.stats["entities"] = linked_entity_counts(
                self.store, self.store.article_mentions([doc_id])).get(doc_id, 0)
        except Exception as exc:  # compensate on any failure, then report it as an ingestion error
            message = str(exc) if isinstance(exc, EngramError) else f"unexpected {type(exc).__name__}: {exc}"
            self._fail(doc_id, content_hash, info, message, processed.entity_ids if processed and written else [])
            if raise_on_error:
                raise IngestionError(f"{filename} ({doc_id}) was not ingested: {message}") from exc
            return self._report(info)
        kinds = Counter(p.kind for p in processed.batch.passages)
        info.update(fingerprint=content_fingerprint("\n".join(x.text for x in parsed.sections)))
        info.update(status=status, error="", pages=parsed.pages, metadata=parsed.metadata.to_dict(),
                    summary=processed.summary, stats={**processed.stats, "tables": kinds.get("table", 0),
                                                      "captions": kinds.get("caption", 0)},
                    warnings=parsed.warnings, problems=parsed.problems,
                    section_levels=[s.level for s in parsed.sections],
                    section_parents=[s.parent for s in parsed.sections],
                    section_kinds=[s.kind for s in parsed.sections],
                    passage_kinds={p.id: p.kind for p in processed.batch.passages},
                    timings={k: round(v, 4) for k, v in processed.timings.items()},
                    seconds=round(time.perf_counter() - started, 3),
                    section_pages=[s.page for s in parsed.sections],
                    section_retrievable=[s.retrievable for s in parsed.sections])
        self._save_info(content_hash, info)
        if not info.get("as_new"):
            self._supersede_previous(info)
        self._on_change()
        return self._report(info)

    def _parse(self, info: dict[str, Any]) -> ParsedDocument:
        data = self.objects.get(info["original"])
        if info["kind"] == "pdf":
            return parse_pdf(data, filename=info["filename"], max_bytes=self.max_bytes, max_pages=self.max_pages)
        if info["kind"] == "html":
            return parse_html(data, url=info.get("source_url", ""), charset=info.get("charset", ""))
        return parse_plain_text(data, filename=info["filename"])

    def _fail(self, doc_id: str, content_hash: str, info: dict[str, Any], message: str,
              entity_ids: builtins.list[str]) -> None:  # builtins: this class has a method named ``list``
        """Compensating cleanup: remove whatever of the document was written, keep an ``error`` Article."""
        log.warning("%s failed: %s", doc_id, message)
        mentioned: list[str] = []
        try:  # the content first: vectors, then nodes and edges (orphaned NounPhrases go with them)
            mentioned = self.store.article_mentions([doc_id])["nounphrase_id"].unique().tolist()
            self._delete_vectors(doc_id)
            self._write_stub(doc_id, info["filename"], content_hash, "error", message)  # replaces the content
        except EngramError:
            log.exception("cleanup after the failure of %s failed", doc_id)
        try:  # then the alias hubs of the entities it touched (best effort: hubs are an index)
            if entity_ids or mentioned:
                AliasHubBuilder(self.store).update(entity_ids, extra_nounphrases=mentioned)
        except EngramError:
            log.exception("alias hubs were not updated after the failure of %s", doc_id)
        info.update(status="error", error=message)
        self._save_info(content_hash, info)
        self._on_change()

    def _reject(self, content_hash: str, filename: str, message: str, raise_on_error: bool, *,
                source: str = "") -> DocumentReport:
        """Record a document refused before its original is kept (bad name, too large).

        The record's id is derived from the content *and* the source, so two different sources with the same
        bytes (two empty files) keep their own error records; the shown name is escaped
        (:func:`printable_name`) so nothing undecodable or deceptive is written.
        """
        shown = printable_name(filename)
        record_hash = hashlib.sha256(f"rejected\0{printable_name(source)}\0{content_hash}".encode()).hexdigest()
        doc_id = document_id(record_hash)
        info = {"id": doc_id, "filename": shown, "kind": "", "content_hash": record_hash, "original": "",
                "bytes_sha256": content_hash, "source": printable_name(source), "status": "error", "error": message,
                "added": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        self._save_info(record_hash, info)
        self._write_stub(doc_id, shown, record_hash, "error", message)
        self._on_change()
        if raise_on_error:
            raise IngestionError(f"{shown} ({doc_id}) was not ingested: {message}")
        return self._report(info)

    def _write_stub(self, doc_id: str, filename: str, content_hash: str, status: str, error: str = "") -> None:
        """An Article node with no sections (replaces any content of ``doc_id``)."""
        self.store.write_literature(LiteratureBatch(articles=[ArticleRecord(
            id=doc_id, source=UPLOADED, title=Path(filename).stem if "/" not in filename else filename, status=status,
            error=error[:2000], content_hash=content_hash)]))

    def _delete_vectors(self, doc_id: str) -> None:
        """Remove the document's passage vectors (ids ``<doc_id>#p<k>``), whatever the graph holds."""
        vectors = self._vectors()
        ids = [i for i in vectors.ids(source=UPLOADED) if i.startswith(doc_id + "#")]
        if ids:
            vectors.delete(ids)

    def _article(self, doc_id: str) -> dict[str, Any] | None:
        articles = self.store.articles(source=UPLOADED)
        match = articles[articles["id"] == doc_id] if not articles.empty else articles
        return None if match.empty else match.iloc[0].to_dict()

    def _info_key(self, content_hash: str) -> str:
        return f"{document_prefix(content_hash)}/document.json"

    def _save_info(self, content_hash: str, info: dict[str, Any]) -> None:
        self.objects.put_json(self._info_key(content_hash), info)

    def _info_or_empty(self, doc_id: str) -> dict[str, Any]:
        article = self._article_hash(doc_id)
        if article and self.objects.exists(self._info_key(article)):
            return self.objects.get_json(self._info_key(article))
        return {}

    def _article_hash(self, doc_id: str) -> str:
        article = self._article(doc_id)
        return str(article["content_hash"]) if article is not None else ""

    def _info(self, doc_id: str) -> dict[str, Any]:
        info = self._info_or_empty(doc_id)
        if not info:
            raise DataError(f"No document {doc_id!r} in this workspace; list them with `engram docs` "
                            f"(or ws.documents.list()).")
        return info

    @staticmethod
    def _report(info: dict[str, Any], *, duplicate: bool = False) -> DocumentReport:
        doc_id = info["id"]
        stats = info.get("stats", {})
        title = ((info.get("metadata") or {}).get("title") or {}).get("value") or info.get("filename", "")
        return DocumentReport(
            id=doc_id, filename=info.get("filename", ""), status=info.get("status", "?"), duplicate=duplicate,
            error=info.get("error", ""), title=str(title), pages=int(info.get("pages") or 0),
            sections=stats.get("sections", 0), passages=stats.get("passages", 0),
            mentions=stats.get("mentions_passage", 0) + stats.get("mentions_section", 0)
            + stats.get("mentions_document", 0), linked_mentions=stats.get("linked_mentions", 0),
            entities=stats.get("entities", 0), seconds=float(info.get("seconds") or 0.0),
            timings=dict(info.get("timings", {})))
