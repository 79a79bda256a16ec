"""PDF parsing with PyMuPDF: reading order, sections with their pages, metadata with confidence.

Steps (all offline, heuristics tuned on BMC, Hindawi and PeerJ layouts -- the four CC BY papers in
``data/pdfs/``):

1. **Validation** (:func:`check_pdf_bytes`): empty file, not a PDF (no ``%PDF-`` header), size above
   the limit, corrupted (PyMuPDF cannot open it), encrypted, too many pages, no text layer (a scan: OCR
   is *not* done). Each raises :class:`~engram_kit.errors.DataError` naming the problem and the fix.
2. **Lines** (:func:`page_lines`): text lines with font size, bold flag and font name; rotated text
   (vertical table headers) is dropped; running headers/footers (the same text, digits ignored, in the
   top or bottom 8% of at least two pages) and bare page numbers are removed.
3. **Reading order** (:func:`reading_order`): column-aware. Lines that cross the page's vertical
   middle are *spanning*; between two spanning lines, left-column lines come before right-column lines
   (two-column journals). In single-column layouts, narrow lines left of the main text column (PeerJ's
   sidebar) are margin notes and go after the page's main text. Footnotes (bottom quarter, smaller type:
   correspondence, affiliations) go after the page's text, or, when the page ends mid-sentence, after the
   paragraph that finishes the sentence on the next page (:func:`defer_footnotes`), so they never split a
   sentence.
4. **Sections** (:func:`detect_sections`): a line is a heading when it is short and standalone and
   either names a known section (``Abstract``, ``Introduction``/``Background``, ``Methods`` and journal
   variants, ``Results``, ``Discussion``, ``Conclusion(s)``, ``References``, back matter) in a style set
   apart from the next line, or is set in the style (font, size) of such a main-section heading.
   Numbering (``2.``, ``II.``) is ignored when matching. Text before the first heading is the
   ``Front matter`` section; the reference list is kept as a section but marked not retrievable.
5. **Metadata** (:func:`extract_metadata`), each field with a fallback chain and a confidence:

   ============  =================================================================  ==========
   field         sources, in order                                                  confidence
   ============  =================================================================  ==========
   title         largest text on page 1 (agreeing with the PDF's Title entry)      0.95
                 largest text on page 1                                             0.8
                 PDF Title entry (if it looks like a title: >= 3 words)             0.6
                 file name                                                          0.1
   authors       the line(s) under the title, split on commas and "and"            0.75 (0.9 if the
                                                                                    PDF Author agrees)
                 PDF Author entry                                                   0.5
   DOI           PDF Subject/Keywords entries                                       0.9
                 page 1 text                                                        0.85
                 "Cite this article" / last page text                              0.6
   year          "Published <date>" / "Received ... Accepted <date>" on page 1     0.85
                 copyright line (© 2010) on page 1                                  0.8
                 a year in the PDF Subject entry                                    0.7
                 the PDF CreationDate                                               0.4
   ============  =================================================================  ==========

Layout heuristics fail on some layouts (headings set in body style, scanned pages); the detected
section list is part of the document detail view so a user can see what happened.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field, replace

from engram_kit.errors import DataError
from engram_kit.files import too_large_message
from engram_kit.ingestion.chunking import (
    DocumentMetadata,
    MetadataField,
    ParsedBlock,
    ParsedDocument,
    ParsedSection,
)
from engram_kit.ingestion.repair import (
    LigatureRepair,
    clean_characters,
    fix_encoding,
    font_family,
    join_hyphenated,
    map_font_text,
    LOST_GLYPH,
    mark_lost_placeholders,
    render_superscript,
)
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

#: Words that never occur in an author list (publishing labels, institutions): "Now Published" is no author.
_NOT_NAMES = re.compile(r"\b(?:university|department|hospital|institute|school|centre|center|abstract|published|"
                        r"publish|received|accepted|journal|article|review|open access|copyright|licen[cs]e|doi|"
                        r"research|volume|editor|correspondence|email|available|online|downloaded|preprint|"
                        r"citation|cite)\b", re.I)
_NAME_PARTICLES = frozenset({"van", "von", "der", "den", "de", "da", "del", "della", "di", "du", "la", "le", "dos",
                             "das", "ter", "ten", "bin", "al", "el", "y", "e"})
#: Title of the section holding the text before the first heading.
FRONT_MATTER = "Front matter"
#: Title of the one section of a PDF in which no heading was recognised (body text, entity-linked).
BODY_TEXT = "Text"

#: Canonical section names and their journal variants (lower case, numbering and punctuation removed).
MAIN_SECTIONS: dict[str, tuple[str, ...]] = {
    "abstract": ("abstract", "summary", "synopsis"),
    "introduction": ("introduction", "background", "introduction and background", "background and aims"),
    "methods": ("methods", "method", "materials and methods", "material and methods", "methods and materials",
                "methodology", "patients and methods", "subjects and methods", "experimental procedures",
                "experimental section", "study design", "the study"),
    "results": ("results", "findings", "results and discussion"),
    "discussion": ("discussion", "general discussion", "comment"),
    "conclusion": ("conclusion", "conclusions", "concluding remarks", "summary and conclusions",
                   "conclusions and future work"),
    "references": ("references", "bibliography", "literature cited", "works cited", "reference list",
                   "references and notes"),
}
#: Back-matter headings: recognised by name in any style, but never define the main heading style.
BACK_MATTER: dict[str, tuple[str, ...]] = {
    "acknowledgements": ("acknowledgements", "acknowledgments", "acknowledgement", "acknowledgment"),
    "competing_interests": ("competing interests", "conflict of interest", "conflicts of interest",
                            "declaration of competing interest", "declaration of interests"),
    "contributions": ("authors contributions", "author contributions", "contributions"),
    "author_details": ("author details", "author information"),
    "funding": ("funding", "funding statement", "financial support"),
    "abbreviations": ("abbreviations", "list of abbreviations"),
    "data_availability": ("data availability", "availability of data and materials", "data availability statement"),
    "supplementary": ("supplementary material", "supplementary materials", "supplementary information",
                      "supplemental information", "supplementary methods", "supplementary data",
                      "supplementary text", "supplementary results", "supplemental material",
                      "electronic supplementary material", "additional files", "additional file"),
    "appendix": ("appendix", "appendices"),
}
#: Section kinds kept out of retrieval (stored, never chunked into passages).
NON_RETRIEVABLE_KINDS: frozenset[str] = frozenset({"references"})

_VARIANTS: dict[str, str] = {v: k for k, vs in {**MAIN_SECTIONS, **BACK_MATTER}.items() for v in vs}
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXivx]+\.|[A-Z]\.)\s+")
#: A caption label ("Table 2", "Fig. 3", "Supplementary Figure S1", "Box A"): the label needs a number or a
#: capital letter, so headings such as "Supplementary methods" or "Tables" are not taken for captions.
_CAPTION = re.compile(r"^(?:supplementa(?:ry|l)\s+)?(?:table|figure|fig\.?|scheme|box|chart|panel)\s*"
                      r"(?:S?\d|(?-i:[A-Z])\b)", re.I)
#: A figure/table caption at the start of a block ("Figure 2 ...", "Fig. 3.", "Table S1 ..."), not prose that
#: starts with a figure reference ("Table 2 shows ...").
_CAPTION_START = re.compile(r"^(?:Figure|FIGURE|Fig\.?|FIG\.?|Table|TABLE|Scheme|Chart)\s*S?\d+[A-Za-z]?\b(?!\s*(?:and|"
                            r"shows?|presents?|lists?|summari[sz]es|illustrates?|gives?|reports?|compares?|is|are|was|were)\b)")
_TABLE_CAPTION = re.compile(r"^(?:Table|TABLE)\s*S?\d+")
#: A word hyphenated at a line end: a letter, then an ASCII hyphen or a Unicode hyphen (U+2010; NFKC turns the
#: non-breaking U+2011 into it). Typesetters that emit U+2010 left "anti- TNF- alpha" (U+2010 hyphens) unjoined.
_LINE_END_HYPHEN = re.compile(r"[^\W\d_][-\u2010\u2011]$")
_ARTICLE_TYPE = re.compile(r"^(?:research(?: article)?|review(?: article)?|original (?:article|research)|"
                           r"open access|case report|short communication|letter|editorial|article)$", re.I)
#: A DOI (Crossref syntax: ``10.<registrant>/<suffix>``), trailing punctuation excluded.
DOI_PATTERN = re.compile(r"\b(10\.\d{4,9}/[^\s;,\"<>]+[^\s;,\"<>.)\]])", re.I)
_YEAR = r"(19[5-9]\d|20\d\d)"
_PUBLISHED = re.compile(r"(?:Published(?: online)?|Accepted)[:\s]+(?:\d{1,2}\s+)?[A-Z][a-z]+\.?\s+(?:\d{1,2},?\s+)?"
                        + _YEAR)
_COPYRIGHT = re.compile(r"(?:©|\(c\)|Copyright)\s*(?:©\s*)?" + _YEAR, re.I)
_SUPERSCRIPTS = re.compile(r"[\d*†‡§¶#,]+$")


def canonical_section(text: str) -> str:
    """Canonical kind of a heading text (``"2. Materials and Methods"`` -> ``"methods"``), or ``""``."""
    key = _NUMBERING.sub("", text).strip().lower().replace("’", "'")
    key = re.sub(r"[^a-z ]+", " ", key.replace("'s", "s"))
    return _VARIANTS.get(" ".join(key.split()), "")


# --- validation ---------------------------------------------------------------------------------------
def _sniff(data: bytes) -> str:
    """What a non-PDF file looks like, for error messages."""
    head = data[:512].lstrip()
    signatures = ((b"PK\x03\x04", "a ZIP/Office document"), (b"\x89PNG", "a PNG image"), (b"\xff\xd8", "a JPEG image"),
                  (b"GIF8", "a GIF image"), (b"{\\rtf", "an RTF document"), (b"\xd0\xcf\x11\xe0", "an old Word/Excel file"))
    for magic, what in signatures:
        if head.startswith(magic):
            return what
    if head[:15].lower().startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    try:
        head.decode("utf-8")
        return "a text file"
    except UnicodeDecodeError:
        return "binary data"


def check_pdf_bytes(data: bytes, *, name: str = "the file", max_bytes: int = Settings.max_pdf_bytes) -> None:
    """Reject empty, oversized and non-PDF content before parsing.

    Raises
    ------
    DataError
        If ``data`` is empty, larger than ``max_bytes``, or has no ``%PDF-`` header in its first KiB.
    """
    if not data:
        raise DataError(f"{name} is empty (0 bytes); upload the PDF again.")
    if len(data) > max_bytes:
        raise DataError(too_large_message(name, len(data), max_bytes))
    if b"%PDF-" not in data[:1024]:
        raise DataError(f"{name} is not a PDF (no %PDF- header; it looks like {_sniff(data)}); upload the PDF "
                        f"itself, or rename the file if it is another format.")


def open_pdf(data: bytes, *, name: str = "the file", max_pages: int = Settings.max_pdf_pages):  # pymupdf.Document
    """Open PDF bytes with PyMuPDF, refusing corrupted, encrypted and over-long documents.

    Raises
    ------
    DataError
        Corrupted (PyMuPDF fails, or zero pages), encrypted (password needed), more than ``max_pages``.
    """
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # pymupdf raises FileDataError, RuntimeError, ValueError
        raise DataError(f"{name} is a corrupted PDF that PyMuPDF cannot read ({exc}); re-export or re-download "
                        f"it.") from exc
    if doc.needs_pass or doc.is_encrypted:
        doc.close()
        raise DataError(f"{name} is encrypted (password-protected); save an unprotected copy and upload that.")
    if doc.page_count == 0:
        doc.close()
        raise DataError(f"{name} is a corrupted PDF: it has no readable pages; re-export or re-download it.")
    if doc.page_count > max_pages:
        n = doc.page_count
        doc.close()
        raise DataError(f"{name} has {n} pages, above the {max_pages}-page limit; upload the article alone or "
                        f"raise the limit (max_pages=).")
    return doc


# --- lines and reading order ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Line:
    """One text line of a page. Coordinates in PDF points, origin top-left; ``page`` is 1-based.

    ``table`` is the index (into :attr:`PageContent.tables`) when this is the placeholder of a whole table
    in the reading order, -1 for text lines.
    """

    page: int
    block: int
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    font: str
    bold: bool
    table: int = -1

    @property
    def style(self) -> tuple[str, float]:
        """``(font name without subset prefix/suffix, size rounded to 0.5 pt)``."""
        return font_family(self.font), round(self.size * 2) / 2


@dataclass
class TableBlock:
    """A table found on a page: caption, header and body rows (cell texts), bounding box in points."""

    page: int
    bbox: tuple[float, float, float, float]
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    notes: str = ""
    line_ids: set[int] = field(default_factory=set)
    columns: tuple[float, ...] = ()

    def text(self) -> str:
        """Caption, then one line per row as ``column: value; ...`` (the header names every value)."""
        lines = [self.caption] if self.caption else []
        names = [h or f"column {i + 1}" for i, h in enumerate(self.header)]
        for row in self.rows:
            cells = [f"{names[i] if i < len(names) else f'column {i + 1}'}: {c}" for i, c in enumerate(row) if c]
            if cells:
                lines.append("; ".join(cells))
        if self.notes:
            lines.append(self.notes)
        return "\n".join(lines)


@dataclass
class PageContent:
    """What :func:`page_lines` read: lines per page, tables, and what was lost or dropped."""

    pages: list[list[Line]]
    tables: list[TableBlock]
    warnings: list[str]
    problems: list[str]
    repaired_ligatures: int = 0
    markers_removed: int = 0


def _is_bold(font: str, flags: int) -> bool:
    lowered = font.lower()
    return bool(flags & 16) or any(w in lowered for w in ("bold", "black", "heavy", "semibold")) or font.endswith(".B")


def _upright_page(doc, index: int, scratch: list):  # pymupdf objects
    """The page to read text from: the page itself, or for a page with a /Rotate entry whose text runs
    vertically in page space (landscape tables), a copy shown upright on a scratch page (so lines are
    horizontal and tables can be found). ``scratch`` keeps the scratch documents alive."""
    import pymupdf

    page = doc[index]
    if not page.rotation:
        return page
    vertical = horizontal = 0
    for block in page.get_text("dict")["blocks"]:
        for raw in block.get("lines", []):
            n = sum(len(s["text"]) for s in raw["spans"])
            if abs(raw["dir"][0]) >= 0.99:
                horizontal += n
            else:
                vertical += n
    if vertical <= horizontal:
        return page
    copy = pymupdf.open()
    copy.insert_pdf(doc, from_page=index, to_page=index)
    copy[0].set_rotation(0)
    width, height = copy[0].rect.width, copy[0].rect.height
    shown = pymupdf.open()
    upright = shown.new_page(width=height, height=width)
    upright.show_pdf_page(upright.rect, copy, 0, rotate=-page.rotation)
    scratch.extend([copy, shown])
    return upright


@dataclass
class _RawLine:
    page: int
    block: int
    bbox: tuple[float, float, float, float]
    spans: list[dict]


def _raw_lines(page, number: int) -> tuple[list[_RawLine], int]:
    """Horizontal lines with their spans; the number of rotated lines dropped."""
    lines: list[_RawLine] = []
    rotated = 0
    for block in page.get_text("dict", flags=0)["blocks"]:
        for raw in block.get("lines", []):
            if not any(s["text"].strip() for s in raw["spans"]):
                continue
            if abs(raw["dir"][0]) < 0.99:  # rotated text: vertical table headers, margin stamps
                rotated += 1
                continue
            lines.append(_RawLine(number, block["number"], tuple(raw["bbox"]), raw["spans"]))
    return lines, rotated


def _line_text(raw: _RawLine, ligatures: LigatureRepair) -> tuple[str, float, str, bool, Counter[str], int]:
    """Repaired text of a line with its main size, font, bold flag, lost characters (by font family) and
    markers removed.

    A span set at most 80% of the line's main size and either flagged superscript or raised above the
    main baseline by more than 15% of the main size is a superscript: a marker (citation, affiliation,
    footnote) is dropped, an exponent is written ``^n`` (:func:`~engram_kit.ingestion.repair.render_superscript`).
    """
    spans = [s for s in raw.spans if s["text"]]
    sized: Counter[float] = Counter()
    for s in spans:
        if s["text"].strip():
            sized[round(s["size"], 1)] += len(s["text"].strip())
    main_size = sized.most_common(1)[0][0] if sized else spans[0]["size"]
    main_spans = [s for s in spans if s["text"].strip() and abs(s["size"] - main_size) < 0.15] or spans
    font_chars: Counter[str] = Counter()
    for s in main_spans:
        font_chars[s["font"]] += len(s["text"].strip())
    main_font = font_chars.most_common(1)[0][0]
    main = max((s for s in main_spans if s["font"] == main_font), key=lambda s: len(s["text"]))
    baseline = main["origin"][1]
    parts: list[str] = []
    lost: Counter[str] = Counter()  # font family -> unreadable characters (names the symbol font that lost them)
    markers = 0
    for k, s in enumerate(spans):
        if not "".join(parts).strip() and len(s["text"].strip()) == 1 and _is_glyph_bullet(s, spans[k + 1:]):
            parts.append("• ")  # a list bullet drawn from a symbol font without Unicode (e.g. "\x01")
            continue
        text = fix_encoding(ligatures.apply(map_font_text(s["text"], s["font"]), s["font"]))
        text, n_lost = clean_characters(text)
        if n_lost:
            lost[font_family(s["font"])] += n_lost
        raised = (s["flags"] & 1) or s["origin"][1] < baseline - 0.15 * main_size
        if text.strip() and s["size"] <= 0.8 * main_size and raised:
            # also at the start of a line: an affiliation or footnote marker ("1These authors contributed
            # equally", "*Correspondence") is a marker; render_superscript never makes an exponent of it
            # because there is no digit or unit before it
            rendered = render_superscript("".join(parts), text)
            if rendered is not None:
                markers += rendered == ""
                text = rendered
        parts.append(text)
    text = " ".join(unicodedata.normalize("NFKC", "".join(parts)).split())
    text = re.sub(r"\s+([,;.:)])", r"\1", text) if markers else text
    text, placeholders = mark_lost_placeholders(text)  # "IL·6": a glyph the font could not encode (issue 31)
    if placeholders:
        lost[font_family(main_font)] += placeholders
    bold = all(_is_bold(s["font"], s["flags"]) for s in spans if s["text"].strip())
    return text, float(main["size"]), main["font"], bold, lost, markers


def _is_glyph_bullet(span: dict, rest: list[dict]) -> bool:
    """A line-initial one-character span that is unreadable (control/private-use) in another font than the
    text after it: a list bullet, not a lost letter."""
    ch = span["text"].strip()
    following = [s for s in rest if s["text"].strip()]
    return bool(ch) and clean_characters(ch)[1] == 1 and bool(following) and following[0]["font"] != span["font"]


def _cell_text(page, rect) -> str:
    """Text of a table cell: the words whose centre lies in ``rect``, in reading order."""
    if rect is None:
        return ""
    x0, y0, x1, y1 = rect
    words = [w for w in page.get_text("words") if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    words.sort(key=lambda w: (w[5], w[6], w[7]))
    text, _ = clean_characters(fix_encoding(" ".join(w[4] for w in words)))
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    # superscript markers inside the cell (footnote "*", "a"): found by size and baseline like in body lines
    for block in page.get_text("dict", clip=rect, flags=0)["blocks"]:
        for raw in block.get("lines", []):
            spans = [sp for sp in raw["spans"] if sp["text"].strip()]
            if len(spans) < 2:
                continue
            main = max(spans, key=lambda sp: len(sp["text"]))
            for k, sp in enumerate(spans[1:], start=1):
                raised = (sp["flags"] & 1) or sp["origin"][1] < main["origin"][1] - 0.15 * main["size"]
                marker = sp["text"].strip()
                before = spans[k - 1]["text"].strip()
                if sp["size"] <= 0.8 * main["size"] and raised and render_superscript(before, marker) == "" and before:
                    text = text.replace(before[-12:] + marker, before[-12:], 1)
    return text


def _find_tables(page, number: int, lines: list[Line]) -> list[TableBlock]:
    """Tables of a page by PyMuPDF's table finder (ruling lines), kept when they are real tables.

    Only pages with a ``Table N`` caption line are searched (captionless tables stay prose). A candidate
    is kept when it has >= 2 rows and >= 2 columns and either a caption (a line starting
    ``Table N`` within 3 lines above it, or inside its top row), or >= 3 columns with a non-numeric first
    column (a two-column numbered list, e.g. a reference list, is not a table). Cell text is read from the
    page's words, so spacing is the page's.
    """
    if not any(_TABLE_CAPTION.match(l.text) for l in lines):
        return []  # the table finder (with pymupdf-layout's ONNX model: ~3 s a page on 2 cores) only runs on
        # pages that print a table caption
    try:
        found = page.find_tables()
    except Exception as exc:  # pymupdf raises on odd vector content; tables are then prose
        log.debug("table finder failed on page %d: %s", number, exc)
        return []
    tables = []
    for table in found.tables:
        x0, y0, x1, y1 = table.bbox
        grid = [[_cell_text(page, cell) for cell in row.cells] for row in table.rows]
        grid = [row for row in grid if any(row)]
        if len(grid) < 2 or table.col_count < 2:
            continue
        starts = [l for l in lines if _TABLE_CAPTION.match(l.text) and l.x1 > x0 and l.x0 < x1
                  and y0 - 4 * l.size <= l.y0 <= y0 + 2]
        caption_lines = sorted((l for l in lines if starts and l.block == starts[0].block and l.y0 < y0 + 2
                                and l.y0 >= starts[0].y0 - 2), key=lambda l: (round(l.y0), l.x0))
        caption = " ".join(l.text for l in caption_lines)
        if grid and _TABLE_CAPTION.match(grid[0][0] or ""):  # caption drawn inside the frame
            caption = caption or " ".join(c for c in grid[0] if c)
            grid = grid[1:]
        first_column = [row[0] for row in grid if row and row[0]]
        numbered_list = sum(bool(re.fullmatch(r"\[?\d+[.\]]?", c)) for c in first_column) >= 0.8 * max(len(first_column), 1)
        if not caption and (table.col_count < 3 or numbered_list):
            continue
        header = tuple(grid[0])
        rows = tuple(tuple(r) for r in grid[1:])
        columns = tuple(sorted({round(c[0], 1) for row in table.rows for c in row.cells if c}))
        tables.append(TableBlock(number, (x0, y0, x1, y1), header, rows, caption,
                                 line_ids={id(l) for l in caption_lines}, columns=columns))
    return tables


def _continued_table(page, number: int, lines: list[Line], previous: TableBlock) -> TableBlock | None:
    """A table continued from the previous page without ruling lines the table finder could use: the
    words under a ``Table N (continued)`` caption, cut into the previous part's columns (one row per text
    line). None when the page has no such caption."""
    starts = [l for l in lines if _TABLE_CAPTION.match(l.text) and "continued" in l.text.lower()]
    if not starts or len(previous.columns) < 2:
        return None
    caption = starts[0]
    edges = list(previous.columns)
    words = [w for w in page.get_text("words") if w[1] >= caption.y1 - 1 and w[0] >= edges[0] - 5]
    rows: list[list[tuple]] = []
    for word in sorted(words, key=lambda w: w[1]):
        if rows and word[1] - rows[-1][0][1] <= 2.5:
            rows[-1].append(word)
        else:
            rows.append([word])
    notes_at = next((k for k, row in enumerate(rows)
                     if re.fullmatch(r"Notes?\.?:?", min(row, key=lambda w: w[0])[4])), len(rows))
    notes_rows, rows = rows[notes_at:], rows[:notes_at]
    notes = " ".join(" ".join(w[4] for w in sorted(row, key=lambda w: w[0])) for row in notes_rows)
    notes = " ".join(unicodedata.normalize("NFKC", clean_characters(fix_encoding(notes))[0]).split())
    grid = []
    for row in rows:
        cells = [""] * len(edges)
        for word in sorted(row, key=lambda w: w[0]):
            k = max(bisect_right(edges, word[0] + 1) - 1, 0)
            cells[k] = f"{cells[k]} {word[4]}".strip()
        grid.append(tuple(" ".join(unicodedata.normalize("NFKC", clean_characters(fix_encoding(c))[0]).split())
                          for c in cells))
    if len(grid) < 2:
        return None
    bottom = max(w[3] for w in words)
    return TableBlock(number, (edges[0], caption.y0, page.rect.width, bottom), previous.header, tuple(grid),
                      caption.text, notes=notes, line_ids={id(caption)}, columns=previous.columns)


def page_lines(doc) -> PageContent:  # pymupdf.Document
    """Horizontal text lines of every page (repaired), tables, running headers/footers removed.

    Pages are read upright (:func:`_upright_page`). Text repair (:mod:`engram_kit.ingestion.repair`):
    ligature code points learnt per font over the whole document, encoding damage, symbol fonts, lost
    characters counted per page, superscript markers dropped by size and baseline. Lines inside a table
    become that table's cells; a placeholder :class:`Line` with ``table >= 0`` stands for the table in the
    reading order.
    """
    scratch: list = []
    raw_pages: list[list[_RawLine]] = []
    upright_pages = []
    rotated = 0
    ligatures = LigatureRepair()
    for index in range(doc.page_count):
        page = _upright_page(doc, index, scratch)
        upright_pages.append(page)
        lines, n_rotated = _raw_lines(page, index + 1)
        rotated += n_rotated
        raw_pages.append(lines)
        for line in lines:  # words read across spans: a ligature glyph may sit in a span of its own font
            ligatures.observe_line((span["text"], span["font"]) for span in line.spans)
    ligatures.fit()
    pages: list[list[Line]] = []
    lost_by_page: Counter[int] = Counter()
    lost_by_font: Counter[str] = Counter()
    markers = 0
    for number, raws in enumerate(raw_pages, start=1):
        page_text_lines: list[Line] = []
        for raw in raws:
            text, size, font, bold, lost, n_markers = _line_text(raw, ligatures)
            lost_by_page[number] += sum(lost.values())
            lost_by_font.update(lost)
            markers += n_markers
            if text:
                page_text_lines.append(Line(number, raw.block, *raw.bbox, text, size, font, bold))
        pages.append(page_text_lines)
    warnings = [f"dropped {rotated} lines of rotated text (e.g. vertical table headers)"] if rotated else []
    problems = []
    heights = [page.rect.height for page in upright_pages]
    removed = _remove_furniture(pages, heights)
    if removed:
        warnings.append(f"removed {removed} running header/footer and page-number lines")
    tables: list[TableBlock] = []
    for index, page in enumerate(upright_pages):
        page_tables = _find_tables(page, index + 1, pages[index])
        if not page_tables and tables and tables[-1].page == index:
            continued = _continued_table(page, index + 1, pages[index], tables[-1])
            page_tables = [continued] if continued else []
        pages[index] = _place_tables(pages[index], page_tables, len(tables))
        tables.extend(page_tables)
    if ligatures.mapping:
        shown = ", ".join(f"{ch!r}->{lig!r} ({font})" for (font, ch), lig in sorted(ligatures.mapping.items()))
        warnings.append(f"repaired {ligatures.repaired} mis-mapped ligature glyphs: {shown}")
    if lost_by_page:
        where = ", ".join(f"p{p}: {n}" for p, n in sorted(lost_by_page.items()) if n)
        if where:
            fonts = ", ".join(f"{font} {n}" for font, n in lost_by_font.most_common())
            symbol = any(re.search(r"symbol|math|cmsy|cmmi|greek", f, re.I) for f in lost_by_font)
            problems.append(f"{sum(lost_by_page.values())} characters could not be read (glyphs without Unicode, "
                            f"often Greek letters or symbols of a symbol font) and were removed, or shown as "
                            f"{LOST_GLYPH!r} inside a word (never linked through): {where}; "
                            f"fonts: {fonts}" + ("; Greek letters or math symbols are likely lost" if symbol else ""))
    scratch.clear()
    return PageContent(pages, tables, warnings, problems, ligatures.repaired, markers)


def _place_tables(lines: list[Line], tables: list[TableBlock], offset: int) -> list[Line]:
    """Remove the lines inside each table (and its caption/notes) and put one placeholder line per table."""
    if not tables:
        return lines
    keep = []
    placeholders = []
    for k, table in enumerate(tables):
        x0, y0, x1, y1 = table.bbox
        notes = []
        for line in lines:
            below = y1 - 2 <= line.y0 <= y1 + 40 and line.x1 > x0 and line.x0 < x1
            if below and re.match(r"^(?:notes?\b|[a-z*†‡§]\s)", line.text, re.I):
                notes.append(line)
        if notes:
            table.notes = " ".join(l.text for l in notes)
        first = lines[0] if lines else None
        placeholders.append(Line(first.page if first else table.page, -1, x0, y0, x1, y1, table.caption or "Table",
                                 0.0, "", False, offset + k))
    for line in lines:
        cx, cy = (line.x0 + line.x1) / 2, (line.y0 + line.y1) / 2
        inside = any(t.bbox[0] - 1 <= cx <= t.bbox[2] + 1 and t.bbox[1] - 1 <= cy <= t.bbox[3] + 1 for t in tables)
        caption = any(id(line) in t.line_ids for t in tables)
        note = any(t.notes and line.text in t.notes and line.y0 >= t.bbox[3] - 2 for t in tables)
        if not (inside or caption or note):
            keep.append(line)
    return keep + placeholders


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


def _remove_furniture(pages: list[list[Line]], heights: list[float]) -> int:
    """Drop lines in the top/bottom margins that repeat on >= 2 pages (digits ignored) or are page numbers."""
    def in_margin(line: Line) -> bool:
        h = heights[line.page - 1]
        return line.y1 < h * Settings.furniture_margin or line.y0 > h * (1 - Settings.furniture_margin)

    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_furniture_key(l.text) for l in lines if in_margin(l)})
    removed = 0
    for i, lines in enumerate(pages):
        keep = [l for l in lines if not (in_margin(l) and (
            (len(pages) > 1 and seen[_furniture_key(l.text)] >= 2)
            or re.fullmatch(r"(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?", l.text, re.I)))]
        removed += len(lines) - len(keep)
        pages[i] = keep
    return removed


def _in_rows(lines: list[Line], tolerance: float = 2.0) -> list[Line]:
    """Lines top to bottom, left to right within a row: lines whose tops differ by at most ``tolerance``
    points share a row (a caption label and its text set as two lines at the same height)."""
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda l: l.y0):
        if rows and line.y0 - rows[-1][0].y0 <= tolerance:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [l for row in rows for l in sorted(row, key=lambda l: l.x0)]


def page_footnotes(lines: list[Line], page_height: float | None) -> list[Line]:
    """Footnote lines of a page (correspondence, affiliations, notes): in the bottom quarter and set smaller
    than 85% of the page's prevailing font size. None without ``page_height``."""
    if not page_height:
        return []
    sizes: Counter[float] = Counter()
    for l in lines:
        sizes[round(l.size, 1)] += len(l.text)
    prevailing = sizes.most_common(1)[0][0] if sizes else 0.0
    return [l for l in lines if l.y0 > 0.75 * page_height and l.size < 0.85 * prevailing]


def _ends_paragraph(text: str) -> bool:
    """Whether a line can end a paragraph: it ends with sentence punctuation (a closing quote or bracket
    after it allowed), not mid-sentence or on a hyphen."""
    return re.search(r"[.!?:][\"'’”)\]]*$", text.rstrip()) is not None


def defer_footnotes(pages: list[tuple[list[Line], list[Line]]]) -> list[Line]:
    """Concatenate the pages' ``(body, footnotes)`` so that no footnote splits a sentence.

    A page's footnotes go after its text when that text ends a paragraph. When the page ends mid-sentence
    (the sentence goes on at the top of the next page), its footnotes are held back until the end of the
    paragraph that finishes the sentence on a following page: the block of the first line there that ends
    with sentence punctuation. Otherwise "...a sentence that *Correspondence: jane@x.org continues on the
    next page" -- the correspondence line spliced into the body sentence.
    """
    ordered: list[Line] = []
    pending: list[Line] = []
    for body, footnotes in pages:
        if pending:
            cut = len(body)  # fallback: no paragraph end on this page, after its text
            for k, line in enumerate(body):
                if line.table < 0 and _ends_paragraph(line.text):
                    cut = k + 1
                    while cut < len(body) and body[cut].block == line.block and body[cut].page == line.page:
                        cut += 1  # to the end of the paragraph's block
                    break
            body = body[:cut] + pending + body[cut:]
            pending = []
        last = next((l for l in reversed(body) if l.table < 0), None)
        if footnotes and last is not None and not _ends_paragraph(last.text):
            pending = list(footnotes)
            ordered.extend(body)
        else:
            ordered.extend(body + footnotes)
    return ordered + pending


def reading_order(lines: list[Line], page_width: float, *, page_height: float | None = None,
                  main_x0: float | None = None) -> tuple[list[Line], list[Line]]:
    """Column-aware order of one page's lines (see the module docstring, step 3).

    Parameters
    ----------
    lines : the page's lines.
    page_width : in points.
    main_x0 : left edge of the main text column in a single-column layout; lines ending left of it
        are margin notes. None for two-column layouts.
    page_height : in points; when given, footnotes (lines in the bottom quarter set smaller than 85% of
        the page's prevailing font size) go after the page's text instead of interrupting a column.

    Returns
    -------
    (body, margin)
        The main text in reading order, and the margin notes top to bottom (the parser files them
        under the front matter: PeerJ's sidebar holds dates, editor, licence).
    """
    mid = page_width / 2
    margin = [l for l in lines if main_x0 is not None and l.x1 < main_x0 - 5]
    footnotes = page_footnotes([l for l in lines if l not in margin], page_height)
    body = _in_rows([l for l in lines if l not in margin and l not in footnotes])
    ordered: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []

    def flush() -> None:
        ordered.extend(_in_rows(left))
        ordered.extend(_in_rows(right))
        left.clear()
        right.clear()

    for line in body:
        if line.x0 < mid - 10 and line.x1 > mid + 10:
            flush()
            ordered.append(line)
        elif line.x1 <= mid + 10:
            left.append(line)
        else:
            right.append(line)
    flush()
    ordered.extend(sorted(footnotes, key=lambda l: (l.y0, l.x0)))
    return ordered, sorted(margin, key=lambda l: (l.y0, l.x0))


def _main_column_x0(pages: list[list[Line]], page_width: float) -> float | None:
    """Left edge of the main column for single-column layouts; None when the document has two columns.

    Two columns: at least 25% of the text (by characters) lies entirely in each half of the page.
    """
    mid = page_width / 2
    left = right = total = 0
    starts: Counter[float] = Counter()
    for lines in pages:
        for l in lines:
            n = len(l.text)
            total += n
            if l.x1 <= mid + 10:
                left += n
            elif l.x0 >= mid - 10:
                right += n
            if n >= 40:
                starts[round(l.x0 / 5) * 5] += n
    if total and left >= 0.25 * total and right >= 0.25 * total:
        return None
    return float(starts.most_common(1)[0][0]) if starts else None


# --- metadata ---------------------------------------------------------------------------------------------
def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def _title_lines(first_page: list[Line], page_height: float) -> list[Line]:
    """Consecutive lines of the largest font in the top 60% of page 1 (article-type labels and section
    headings skipped)."""
    # a line that is a section heading ("References") is no title: taken as one, a references-only page
    # lost its heading and its reference list became retrievable front matter (issue 21)
    candidates = [l for l in first_page if l.y0 < page_height * 0.6 and len(l.text) > 1 and l.table < 0
                  and not _ARTICLE_TYPE.match(l.text.strip()) and not canonical_section(l.text)]
    if not candidates:
        return []
    sizes: Counter[float] = Counter()
    for l in first_page:
        sizes[round(l.size, 1)] += len(l.text)
    body = sizes.most_common(1)[0][0]
    top = max(l.size for l in candidates)
    if top < body + 1.0:  # nothing set larger than the text: no layout title (single-font documents)
        return []
    title = [l for l in candidates if abs(l.size - top) < 0.3]
    title.sort(key=lambda l: (l.y0, l.x0))
    out = [title[0]]
    for line in title[1:]:  # keep the first contiguous run
        if line.y0 - out[-1].y1 > 2.5 * line.size:
            break
        out.append(line)
    if sum(len(l.text) for l in out) > Settings.max_pdf_title_chars:
        return []
    return out


def _author_lines(first_page: list[Line], title: list[Line]) -> list[Line]:
    """The line(s) just below the title that read like a list of names."""
    if not title:
        return []
    below = sorted((l for l in first_page if l.y0 >= title[-1].y1 - 1 and l not in title), key=lambda l: (l.y0, l.x0))
    out: list[Line] = []
    for line in below[:4]:
        text = line.text
        namey = ("," in text or " and " in text or re.search(r"[A-Z][a-z]+ [A-Z]", text)) and not _NOT_NAMES.search(text)
        if not namey or len(text) > 300:
            break
        if out and line.y0 - out[-1].y1 > 1.5 * line.size:
            break
        out.append(line)
    return out


def _name_like(name: str) -> bool:
    """A personal name: 2-6 words, each capitalised or an initial, no publishing or institution words."""
    words = name.replace(".", ". ").split()
    return (2 <= len(words) <= 6 and all(w[:1].isupper() or w.lower() in _NAME_PARTICLES for w in words)
            and not _NOT_NAMES.search(name) and not any(ch.isdigit() for ch in name))


def split_authors(text: str) -> list[str]:
    """``"A. Webb1, T. Walsh1 and M. O'Connell1,2"`` -> ``["A. Webb", "T. Walsh", "M. O'Connell"]``."""
    text = re.sub(r"\{?et al\.?\}?", "", text)
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+|\s*&\s*|;\s*", text)
    names = []
    for part in parts:
        name = _SUPERSCRIPTS.sub("", part.strip()).strip(" *")
        if re.search(r"[A-Za-z]{2}", name) and not name.isdigit():
            names.append(name)
    return names


def _doi_field(meta: dict, first_text: str, last_text: str) -> MetadataField:
    for key in ("subject", "keywords"):
        match = DOI_PATTERN.search(meta.get(key) or "")
        if match:
            return MetadataField(match.group(1), f"pdf metadata {key}", 0.9)
    match = DOI_PATTERN.search(first_text)
    if match:
        return MetadataField(match.group(1), "page 1 text", 0.85)
    match = DOI_PATTERN.search(last_text)
    if match:
        return MetadataField(match.group(1), "last page text", 0.6)
    return MetadataField("", "none", 0.0)


def _year_field(meta: dict, first_text: str) -> MetadataField:
    match = _PUBLISHED.search(first_text)
    if match:
        return MetadataField(int(match.group(1)), "page 1 publication date", 0.85)
    match = _COPYRIGHT.search(first_text)
    if match:
        return MetadataField(int(match.group(1)), "page 1 copyright line", 0.8)
    match = re.search(_YEAR, meta.get("subject") or "")
    if match:
        return MetadataField(int(match.group(1)), "pdf metadata subject", 0.7)
    match = re.match(r"D:" + _YEAR, meta.get("creationDate") or "")
    if match:
        return MetadataField(int(match.group(1)), "pdf creation date", 0.4)
    return MetadataField(None, "none", 0.0)


def extract_metadata(doc, pages: list[list[Line]], *, filename: str = "") -> tuple[DocumentMetadata, set[int]]:
    """Title, authors, year and DOI with sources and confidences (fallback chain in the module docstring).

    Returns
    -------
    (metadata, used)
        ``used``: ``id()`` of the page-1 lines that hold the title and authors (left out of sections).
    """
    meta = doc.metadata or {}
    first = pages[0] if pages else []
    title_lines = _title_lines(first, doc[0].rect.height)
    layout_title = " ".join(l.text for l in title_lines).strip()
    pdf_title = (meta.get("title") or "").strip()
    plausible_pdf_title = len(re.findall(r"[A-Za-z]{2,}", pdf_title)) >= 3
    if layout_title and plausible_pdf_title and _norm(pdf_title)[:40] == _norm(layout_title)[:40]:
        title = MetadataField(layout_title, "first-page layout + pdf metadata", 0.95)
    elif layout_title and len(layout_title.split()) >= 2:
        title = MetadataField(layout_title, "first-page layout", 0.8)
    elif plausible_pdf_title:
        title = MetadataField(pdf_title, "pdf metadata", 0.6)
    else:
        title = MetadataField(re.sub(r"\.pdf$", "", filename, flags=re.I), "filename", 0.1)
    author_lines = _author_lines(first, title_lines)
    layout_authors = [a for a in split_authors(" ".join(l.text for l in author_lines)) if _name_like(a)]
    if not layout_authors:
        author_lines = []
    pdf_authors = [a for a in split_authors(meta.get("author") or "") if _name_like(a)]
    if layout_authors:
        agree = bool(pdf_authors) and _norm(pdf_authors[0]).split()[-1:] == _norm(layout_authors[0]).split()[-1:]
        authors = MetadataField(layout_authors, "first-page layout" + (" + pdf metadata" if agree else ""),
                                0.9 if agree else 0.75)
    elif pdf_authors:
        authors = MetadataField(pdf_authors, "pdf metadata", 0.5)
    else:
        authors = MetadataField([], "none", 0.0)
    first_text = "\n".join(l.text for l in first)
    last_text = "\n".join(l.text for l in pages[-1]) if len(pages) > 1 else ""
    metadata = DocumentMetadata(title=title, authors=authors, year=_year_field(meta, first_text),
                                doi=_doi_field(meta, first_text, last_text),
                                extra={k: str(v) for k, v in meta.items() if v and k in ("subject", "creator", "producer")})
    return metadata, {id(l) for l in title_lines + author_lines}


# --- sections ---------------------------------------------------------------------------------------------
def _heading_shape(line: Line) -> bool:
    text = line.text.strip()
    words = text.split()
    plain = (0 < len(text) <= Settings.max_heading_chars and len(words) <= Settings.max_heading_words
             and re.search(r"[A-Za-z]{3}", text) is not None and not _CAPTION.match(text)
             and text.count(",") < 2 and text[-1] not in ".,;:" and not re.match(r"^[•\-–·*]", text)
             and not re.search(r"\b(?:doi|https?|www)\b", text, re.I) and not _ARTICLE_TYPE.match(text))
    numbered = bool(re.fullmatch(r"(?:\d+\.)+\d*\s+\S.*", text)) and len(text) <= Settings.max_heading_chars  # "2. Methods"
    return (plain or numbered) and line.table < 0


def _set_apart(line: Line, after: Line | None) -> bool:
    """The heading's style differs from the text after it (larger, or bold over regular, or another font)."""
    if after is None:
        return True
    if after.table >= 0:
        return True
    return abs(line.size - after.size) >= 0.4 or (line.bold and not after.bold) or line.style[0] != after.style[0]


def numbering_depth(text: str) -> int:
    """Depth of a heading's numbering: ``"2. Methods"`` -> 1, ``"2.3.1 Data"`` -> 3, unnumbered -> 0."""
    match = re.match(r"^\s*(\d+(?:\.\d+)*)\.?\s+\S", text)
    return len(match.group(1).split(".")) if match else 0


@dataclass(frozen=True)
class Heading:
    """A detected heading: index into the ordered lines, canonical kind (or ``""``), level (1 = main)."""

    index: int
    kind: str
    level: int


def _body_style(ordered: list[Line]) -> tuple[str, float]:
    chars: Counter[tuple[str, float]] = Counter()
    for line in ordered:
        if line.table < 0:
            chars[line.style] += len(line.text)
    return chars.most_common(1)[0][0] if chars else ("", 0.0)


def detect_headings(ordered: list[Line], skip: set[int]) -> list[Heading]:
    """Headings at every level (see the module docstring, step 4).

    1. Candidates: short standalone lines (:func:`_heading_shape`) set apart from the next line
       (:func:`_set_apart`) and not in the body style.
    2. A style is a *heading style* when one of its candidates names a known section (anchor), or when at
       least two thirds of its lines are candidates, it is not smaller than the body by more than 1 pt (a
       smaller style with no anchor is a caption or table style), and it is rare (< 10% of the characters).
    3. Levels: the style of the main-section anchors (Introduction, Methods...) is level 1, as is any
       heading style at least as large; other heading styles are levels 2, 3... by decreasing size; a style
       whose headings are all back-matter names is level 1 (BMC sets them small), unless its first heading
       comes right under an empty level-1 heading (PeerJ's "Additional information and declarations").
       Numbered headings (``2.1``) take their numbering depth.
    """
    body = _body_style(ordered)
    candidates: list[int] = []
    for i, line in enumerate(ordered):
        if id(line) in skip or not _heading_shape(line) or line.style == body:
            continue
        if _set_apart(line, ordered[i + 1] if i + 1 < len(ordered) else None):
            candidates.append(i)
    by_style: dict[tuple[str, float], list[int]] = {}
    for i in candidates:
        by_style.setdefault(ordered[i].style, []).append(i)
    lines_of_style: Counter[tuple[str, float]] = Counter(l.style for l in ordered if l.table < 0 and id(l) not in skip)
    chars_of_style: Counter[tuple[str, float]] = Counter()
    for l in ordered:
        chars_of_style[l.style] += len(l.text)
    total_chars = sum(chars_of_style.values()) or 1
    kinds = {i: canonical_section(ordered[i].text) for i in candidates}
    main_sizes = [ordered[i].size for i in candidates if kinds[i] in MAIN_SECTIONS and kinds[i] != "references"]
    level1_size = max(main_sizes) if main_sizes else None
    heading_styles: dict[tuple[str, float], str] = {}  # style -> "anchor" | "main" | "back" | "other"
    for style, members in by_style.items():
        names = [kinds[i] for i in members if kinds[i]]
        main = [k for k in names if k in MAIN_SECTIONS and k != "references"]
        if main:
            heading_styles[style] = "main"
        elif names and len(names) == len(members):
            heading_styles[style] = "back"
        elif names:
            heading_styles[style] = "anchor"
        elif (len(members) >= 2 / 3 * lines_of_style[style] and style[1] >= body[1] - 1.0
              and chars_of_style[style] < 0.1 * total_chars):
            heading_styles[style] = "other"
    # a back-matter-only or other style may contain headings named like main sections in another style; only
    # names count for "back" styles: their non-name lines are not headings
    chosen = [i for i in candidates if ordered[i].style in heading_styles
              and (heading_styles[ordered[i].style] != "back" or kinds[i])]
    main_styles = {s for s, role in heading_styles.items() if role == "main"}
    level1 = max((s[1] for s in main_styles), default=level1_size or 0.0)
    lower_sizes = sorted({s[1] for s, role in heading_styles.items() if role in ("other", "anchor") and s[1] < level1 - 0.2},
                         reverse=True)
    headings: list[Heading] = []
    for i in chosen:
        line = ordered[i]
        role = heading_styles[line.style]
        depth = numbering_depth(line.text)
        if depth:
            level = depth
        elif role == "main" or line.size >= level1 - 0.2:
            level = 1
        elif role == "back":
            level = 1
            if headings and headings[-1].level == 1 and headings[-1].index == i - 1:
                level = 2  # right under an empty level-1 heading: its sub-sections
            elif headings and headings[-1].level == 2 and ordered[headings[-1].index].style == line.style:
                level = 2
        else:
            level = 2 + lower_sizes.index(line.style[1]) if line.style[1] in lower_sizes else 2
        headings.append(Heading(i, kinds[i], level))
    return headings


def _join(parts: list[str], line: Line, previous: Line | None) -> None:
    """Append ``line`` to the text parts: dictionary-aware de-hyphenation within a paragraph
    (:func:`~engram_kit.ingestion.repair.join_hyphenated`), newline between blocks."""
    text = line.text
    if previous is None or not parts:
        parts.append(text)
        return
    joined = parts[-1]
    same_block = previous.page == line.page and previous.block == line.block
    if _LINE_END_HYPHEN.search(joined) and re.match(r"[^\W_]", text):
        head, _, rest = text.partition(" ")
        fused = join_hyphenated(joined[:-1], head)
        parts[-1] = fused + ((" " + rest) if rest else "")
    elif re.search(r"[a-z,;]$", joined) and text[:1].islower():  # a sentence running on into the next column
        parts.append(" " + text)
    else:
        parts.append(("\n" if not same_block else " ") + text)


def _caption_groups(ordered: list[Line], headings: set[int]) -> dict[int, list[int]]:
    """Figure/table captions outside tables: a line starting ``Figure N``/``Fig. N``/``Table N`` at the start
    of its block (or set in another style than the body), with the following lines of the same block.
    Returns ``{first index: [indices]}``."""
    body = _body_style(ordered)
    groups: dict[int, list[int]] = {}
    taken: set[int] = set()
    for i, line in enumerate(ordered):
        if i in taken or i in headings or line.table >= 0 or not _CAPTION_START.match(line.text):
            continue
        previous = ordered[i - 1] if i else None
        starts_block = previous is None or previous.block != line.block or previous.page != line.page
        if not (starts_block or line.style != body):
            continue
        group = [i]
        j = i + 1
        while j < len(ordered) and ordered[j].block == line.block and ordered[j].page == line.page \
                and ordered[j].table < 0 and j not in headings:
            group.append(j)
            j += 1
        groups[i] = group
        taken.update(group)
    return groups


def build_sections(ordered: list[Line], headings: list[Heading], skip: set[int],
                   tables: list[TableBlock] | None = None) -> list[ParsedSection]:
    """Cut the ordered lines at the headings into nested sections with page maps, tables and captions.

    After a reference list, a heading in one of the document's heading styles starts a new section
    (supplementary methods, appendices, declarations); text in other styles (journal sidebars such as
    "Submit your next manuscript") stays in the reference list.
    """
    tables = tables or []
    first_reference = next((h.index for h in headings if h.kind == "references"), len(ordered))
    body_heading_styles = {ordered[h.index].style for h in headings if h.index < first_reference}
    bounds: list[tuple[int, str, str, int]] = [(-1, FRONT_MATTER, "front_matter", 1)]
    for h in headings:
        line = ordered[h.index]
        if h.index > first_reference and not h.kind and line.style not in body_heading_styles:
            continue  # after the references only the body's heading styles start sections
        bounds.append((h.index, line.text.strip(), h.kind, h.level))
    captions = _caption_groups(ordered, {h.index for h in headings})
    caption_lines = {j for group in captions.values() for j in group}
    sections: list[ParsedSection] = []
    stack: list[tuple[int, int]] = []  # (level, section index)
    for n, (start, title, kind, level) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(ordered)
        parts: list[str] = []
        page_starts: list[tuple[int, int]] = []
        blocks: list[ParsedBlock] = []
        previous: Line | None = None
        for i in range(start + 1, end):
            line = ordered[i]
            if id(line) in skip:
                continue
            if line.table >= 0:
                table = tables[line.table]
                blocks.append(ParsedBlock("table", table.caption, table.text(), table.page, table.header, table.rows))
                continue
            if i in captions:
                text = " ".join(ordered[j].text for j in captions[i])
                blocks.append(ParsedBlock("caption", text, text, line.page))
                continue
            if i in caption_lines:
                continue
            if previous is None or line.page != previous.page:
                page_starts.append((sum(len(p) for p in parts) + (1 if parts else 0), line.page))
            _join(parts, line, previous)
            previous = line
        text = "".join(parts).strip()
        page = ordered[start].page if start >= 0 else (ordered[start + 1].page if start + 1 < end else 1)
        if start < 0 and not text and not blocks:
            continue
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        sections.append(ParsedSection(title=title, kind=kind, text=text, page=page,
                                      page_starts=tuple(page_starts) or ((0, page),),
                                      retrievable=kind not in NON_RETRIEVABLE_KINDS, level=level, parent=parent,
                                      blocks=tuple(blocks)))
        stack.append((level, len(sections) - 1))
    return sections


def _truncation_problems(data: bytes, doc) -> list[str]:
    """Signs that the file is cut short: no ``%%EOF`` near its end, or a cross-reference table PyMuPDF had
    to rebuild."""
    problems = []
    if b"%%EOF" not in data[-2048:]:
        problems.append("suspected truncation: the file does not end with a PDF end-of-file marker (%%EOF); "
                        "the last pages may be missing - download the file again")
    elif getattr(doc, "is_repaired", False):
        problems.append("the file's cross-reference table was damaged and rebuilt by PyMuPDF; content may be "
                        "missing - download or export the file again")
    return problems


def parse_pdf(data: bytes, *, filename: str = "document.pdf", max_bytes: int = Settings.max_pdf_bytes,
              max_pages: int = Settings.max_pdf_pages) -> ParsedDocument:
    """Parse PDF bytes into a :class:`ParsedDocument` (nested sections with pages, tables, captions,
    metadata with confidence, warnings and problems).

    Parameters
    ----------
    data : the file's bytes.
    filename : used in messages and as the last-resort title.
    max_bytes, max_pages : limits (defaults ``Settings.max_pdf_bytes`` = 50 MiB, ``Settings.max_pdf_pages`` = 500).

    Raises
    ------
    DataError
        Empty, oversized, not a PDF, corrupted, encrypted, too many pages, or no text layer (a scanned PDF:
        engram-kit does not run OCR; run e.g. ``ocrmypdf`` first and upload its output).

    Examples
    --------
    >>> doc = parse_pdf(Path("data/pdfs/bmc_dvt_prophylaxis_trauma_review.pdf").read_bytes())  # doctest: +SKIP
    >>> [(s.title, s.page) for s in doc.sections][:3]                                           # doctest: +SKIP
    [('Front matter', 1), ('Abstract', 1), ('Introduction', 1)]
    """
    check_pdf_bytes(data, name=filename, max_bytes=max_bytes)
    doc = open_pdf(data, name=filename, max_pages=max_pages)
    try:
        content = page_lines(doc)
        pages = content.pages
        chars = sum(len(l.text) for lines in pages for l in lines) + sum(len(t.text()) for t in content.tables)
        if chars < Settings.min_chars_per_page * doc.page_count and not any(
                sum(len(l.text) for l in lines) >= Settings.min_chars_per_page * 5 for lines in pages):
            raise DataError(f"{filename} has no text layer ({chars} characters on {doc.page_count} pages): it looks "
                            f"like a scan. engram-kit does not run OCR; run OCR first (e.g. `ocrmypdf in.pdf out.pdf`) "
                            f"and upload the result.")
        problems = _truncation_problems(data, doc) + content.problems
        empty = [p + 1 for p, lines in enumerate(pages)
                 if sum(len(l.text) for l in lines) < Settings.min_chars_per_page and not any(t.page == p + 1 for t in content.tables)]
        if empty:
            problems.append(f"{len(empty)} of {doc.page_count} pages have no text layer (images only?): "
                            f"page{'s' if len(empty) > 1 else ''} {', '.join(map(str, empty))}; their content is not "
                            f"in the passages (run OCR, e.g. `ocrmypdf`, to include it)")
        width = doc[0].rect.width
        main_x0 = _main_column_x0(pages, width)
        by_page: list[tuple[list[Line], list[Line]]] = []
        margin: list[Line] = []
        for p, lines in enumerate(pages):
            rect = doc[p].rect  # the upright size, also for pages with a /Rotate entry
            page_body, page_margin = reading_order(lines, rect.width, page_height=rect.height,
                                                   main_x0=main_x0 if rect.width == width else None)
            notes = {id(l) for l in page_footnotes([l for l in lines if l not in page_margin], rect.height)}
            by_page.append(([l for l in page_body if id(l) not in notes], [l for l in page_body if id(l) in notes]))
            margin.extend(page_margin)
        ordered = margin + defer_footnotes(by_page)  # margin notes join the front matter
        metadata, skip = extract_metadata(doc, pages, filename=filename)
        headings = detect_headings(ordered, skip)
        sections = build_sections(ordered, headings, skip, content.tables)
        n_pages = doc.page_count
    finally:
        doc.close()
    warnings = list(content.warnings)
    if content.markers_removed:
        warnings.append(f"separated {content.markers_removed} superscript citation/affiliation markers from words")
    if not headings:
        # No heading: the text before the first heading is the whole article, not a title block. As front matter
        # it would never be entity-linked (a paper naming the question's gene scored 0 on the graph, issue 31),
        # so it becomes one body-text section; the title and author lines are already kept out (metadata).
        sections = [replace(s, title=BODY_TEXT, kind="") if s.kind == "front_matter" else s for s in sections]
        warnings.append(f"no section headings recognised; the whole text is one section ({BODY_TEXT!r}, linked as "
                        "body text)")
    log.info("parsed %s: %d pages, %d sections, %d tables", filename, n_pages, len(sections), len(content.tables))
    return ParsedDocument("pdf", metadata, sections, n_pages, warnings, problems)
