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
   sidebar) are margin notes and go after the page's main text.
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
from collections import Counter
from dataclasses import dataclass

from engram_kit.errors import DataError
from engram_kit.ingestion.chunking import DocumentMetadata, MetadataField, ParsedDocument, ParsedSection

log = logging.getLogger(__name__)

#: Default size limit of an uploaded PDF, in bytes (50 MB, as the document-repository issue asks).
MAX_PDF_BYTES = 50 * 1024 * 1024
#: Default page-count limit (a 500-page upload is a book or a scan batch, not a paper).
MAX_PDF_PAGES = 500
#: Fewer extracted characters per page than this means "no text layer" (a scan).
MIN_CHARS_PER_PAGE = 20
#: Share of the page height at the top and bottom where running headers/footers live.
FURNITURE_MARGIN = 0.08
#: A heading has at most this many characters and words.
MAX_HEADING_CHARS, MAX_HEADING_WORDS = 90, 12
#: Title of the section holding the text before the first heading.
FRONT_MATTER = "Front matter"

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
    "supplementary": ("supplementary material", "supplementary information", "supplemental information",
                      "additional files", "additional file"),
}
#: Section kinds kept out of retrieval (stored, never chunked into passages).
NON_RETRIEVABLE_KINDS: frozenset[str] = frozenset({"references"})

_VARIANTS: dict[str, str] = {v: k for k, vs in {**MAIN_SECTIONS, **BACK_MATTER}.items() for v in vs}
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXivx]+\.|[A-Z]\.)\s+")
_CAPTION = re.compile(r"^(?:table|figure|fig\.?|supplementary|scheme|box|chart|panel)\s*[\dA-Z]", re.I)
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


def check_pdf_bytes(data: bytes, *, name: str = "the file", max_bytes: int = MAX_PDF_BYTES) -> None:
    """Reject empty, oversized and non-PDF content before parsing.

    Raises
    ------
    DataError
        If ``data`` is empty, larger than ``max_bytes``, or has no ``%PDF-`` header in its first KiB.
    """
    if not data:
        raise DataError(f"{name} is empty (0 bytes); upload the PDF again.")
    if len(data) > max_bytes:
        raise DataError(f"{name} is {len(data) / 1e6:.1f} MB, above the {max_bytes / 1e6:.0f} MB limit; split it or "
                        f"raise the limit (max_bytes=).")
    if b"%PDF-" not in data[:1024]:
        raise DataError(f"{name} is not a PDF (no %PDF- header; it looks like {_sniff(data)}); upload the PDF "
                        f"itself, or rename the file if it is another format.")


def open_pdf(data: bytes, *, name: str = "the file", max_pages: int = MAX_PDF_PAGES):  # noqa: ANN201 - pymupdf.Document
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
    """One text line of a page. Coordinates in PDF points, origin top-left; ``page`` is 1-based."""

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

    @property
    def style(self) -> tuple[str, float]:
        """``(font name without subset prefix/suffix, size rounded to 0.5 pt)``."""
        font = re.sub(r"^[A-Z]{6}\+", "", self.font).split("+")[0]
        return font, round(self.size * 2) / 2


def _is_bold(font: str, flags: int) -> bool:
    lowered = font.lower()
    return bool(flags & 16) or any(w in lowered for w in ("bold", "black", "heavy", "semibold")) or font.endswith(".B")


def page_lines(doc) -> tuple[list[list[Line]], list[str]]:  # noqa: ANN001 - pymupdf.Document
    """Horizontal text lines of every page, running headers/footers removed.

    Returns
    -------
    (pages, warnings)
        ``pages[i]`` are the lines of page ``i + 1`` in PyMuPDF order; ``warnings`` say what was dropped.
    """
    pages: list[list[Line]] = []
    rotated = 0
    for number, page in enumerate(doc, start=1):
        lines: list[Line] = []
        for block in page.get_text("dict")["blocks"]:
            for raw in block.get("lines", []):
                spans = [s for s in raw["spans"] if s["text"].strip()]
                if not spans:
                    continue
                if abs(raw["dir"][0]) < 0.99:  # rotated text: vertical table headers, margin stamps
                    rotated += 1
                    continue
                text = " ".join(unicodedata.normalize("NFKC", "".join(s["text"] for s in raw["spans"])).split())
                main = max(spans, key=lambda s: len(s["text"]))
                x0, y0, x1, y1 = raw["bbox"]
                lines.append(Line(number, block["number"], x0, y0, x1, y1, text, float(main["size"]), main["font"],
                                  all(_is_bold(s["font"], s["flags"]) for s in spans)))
        pages.append(lines)
    warnings = [f"dropped {rotated} lines of rotated text (e.g. vertical table headers)"] if rotated else []
    heights = [page.rect.height for page in doc]
    removed = _remove_furniture(pages, heights)
    if removed:
        warnings.append(f"removed {removed} running header/footer and page-number lines")
    return pages, warnings


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


def _remove_furniture(pages: list[list[Line]], heights: list[float]) -> int:
    """Drop lines in the top/bottom margins that repeat on >= 2 pages (digits ignored) or are page numbers."""
    def in_margin(line: Line) -> bool:
        h = heights[line.page - 1]
        return line.y1 < h * FURNITURE_MARGIN or line.y0 > h * (1 - FURNITURE_MARGIN)

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
    sizes: Counter[float] = Counter()
    for l in lines:
        sizes[round(l.size, 1)] += len(l.text)
    prevailing = sizes.most_common(1)[0][0] if sizes else 0.0
    footnotes = [l for l in lines if page_height and l.y0 > 0.75 * page_height and l.size < 0.85 * prevailing
                 and l not in margin]
    body = sorted((l for l in lines if l not in margin and l not in footnotes), key=lambda l: (l.y0, l.x0))
    ordered: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []

    def flush() -> None:
        ordered.extend(sorted(left, key=lambda l: (l.y0, l.x0)))
        ordered.extend(sorted(right, key=lambda l: (l.y0, l.x0)))
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
    """Consecutive lines of the largest font in the top 60% of page 1 (article-type labels skipped)."""
    candidates = [l for l in first_page if l.y0 < page_height * 0.6 and len(l.text) > 1
                  and not _ARTICLE_TYPE.match(l.text.strip())]
    if not candidates:
        return []
    top = max(l.size for l in candidates)
    title = [l for l in candidates if abs(l.size - top) < 0.3]
    title.sort(key=lambda l: (l.y0, l.x0))
    out = [title[0]]
    for line in title[1:]:  # keep the first contiguous run
        if line.y0 - out[-1].y1 > 2.5 * line.size:
            break
        out.append(line)
    return out


def _author_lines(first_page: list[Line], title: list[Line]) -> list[Line]:
    """The line(s) just below the title that read like a list of names."""
    if not title:
        return []
    below = sorted((l for l in first_page if l.y0 >= title[-1].y1 - 1 and l not in title), key=lambda l: (l.y0, l.x0))
    out: list[Line] = []
    for line in below[:4]:
        text = line.text
        namey = ("," in text or " and " in text or re.search(r"[A-Z][a-z]+ [A-Z]", text)) and not re.search(
            r"\b(university|department|hospital|institute|school|centre|center|abstract)\b", text, re.I)
        if not namey or len(text) > 300:
            break
        if out and line.y0 - out[-1].y1 > 1.5 * line.size:
            break
        out.append(line)
    return out


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


def extract_metadata(doc, pages: list[list[Line]], *, filename: str = "") -> tuple[DocumentMetadata, set[int]]:  # noqa: ANN001
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
    layout_authors = split_authors(" ".join(l.text for l in author_lines))
    pdf_authors = split_authors(meta.get("author") or "")
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
    plain = (0 < len(text) <= MAX_HEADING_CHARS and len(words) <= MAX_HEADING_WORDS
             and re.search(r"[A-Za-z]{3}", text) is not None and not _CAPTION.match(text)
             and text.count(",") < 2 and text[-1] not in ".,;:")
    numbered = bool(re.fullmatch(r"(?:\d+\.)+\s+\S.*", text)) and len(text) <= MAX_HEADING_CHARS  # "2. Methods"
    return plain or numbered


def _set_apart(line: Line, after: Line | None) -> bool:
    """The heading's style differs from the text after it (larger, or bold over regular)."""
    if after is None:
        return True
    return line.size >= after.size + 0.4 or (line.bold and not after.bold) or line.style[0] != after.style[0]


def detect_headings(ordered: list[Line], skip: set[int]) -> list[int]:
    """Indices (into ``ordered``) of section headings (see the module docstring, step 4)."""
    canonical: list[tuple[int, str]] = []
    for i, line in enumerate(ordered):
        if id(line) in skip or not _heading_shape(line):
            continue
        kind = canonical_section(line.text)
        if kind and _set_apart(line, ordered[i + 1] if i + 1 < len(ordered) else None):
            canonical.append((i, kind))
    main_styles = {ordered[i].style for i, kind in canonical if kind in MAIN_SECTIONS and kind != "references"}
    chosen = {i for i, _ in canonical}
    for i, line in enumerate(ordered):
        if i in chosen or id(line) in skip or line.style not in main_styles or not _heading_shape(line):
            continue
        if _set_apart(line, ordered[i + 1] if i + 1 < len(ordered) else None):
            chosen.add(i)
    return sorted(chosen)


def _join(parts: list[str], line: Line, previous: Line | None) -> None:
    """Append ``line`` to the text parts: de-hyphenate within a paragraph, newline between blocks."""
    text = line.text
    if previous is None:
        parts.append(text)
        return
    joined = "".join(parts[-1:])
    same_block = previous.page == line.page and previous.block == line.block
    if re.search(r"[a-z]-$", joined) and text[:1].islower():
        parts[-1] = joined[:-1] + text
    elif re.search(r"[a-z,;]$", joined) and text[:1].islower():  # a sentence running on into the next column
        parts.append(" " + text)
    else:
        parts.append(("\n" if not same_block else " ") + text)


def build_sections(ordered: list[Line], headings: list[int], skip: set[int]) -> list[ParsedSection]:
    """Cut the ordered lines at the headings into sections with page maps.

    Once a reference list starts, later headings that are not recognised back-matter names stay in it
    (journals print sidebars such as "Submit your next manuscript" after the references).
    """
    bounds = [(-1, FRONT_MATTER, "front_matter")]
    for i in headings:
        kind = canonical_section(ordered[i].text)
        if bounds[-1][2] == "references" and not kind:
            continue
        bounds.append((i, ordered[i].text.strip(), kind))
    sections: list[ParsedSection] = []
    for n, (start, title, kind) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(ordered)
        body = [l for l in ordered[start + 1:end] if id(l) not in skip]
        parts: list[str] = []
        page_starts: list[tuple[int, int]] = []
        previous: Line | None = None
        for line in body:
            if previous is None or line.page != previous.page:
                page_starts.append((sum(len(p) for p in parts) + (1 if parts else 0), line.page))
            _join(parts, line, previous)
            previous = line
        text = "".join(parts).strip()
        page = ordered[start].page if start >= 0 else (body[0].page if body else 1)
        if start < 0 and not text:
            continue
        sections.append(ParsedSection(title=title, kind=kind, text=text, page=page,
                                      page_starts=tuple(page_starts) or ((0, page),),
                                      retrievable=kind not in NON_RETRIEVABLE_KINDS))
    return sections


def parse_pdf(data: bytes, *, filename: str = "document.pdf", max_bytes: int = MAX_PDF_BYTES,
              max_pages: int = MAX_PDF_PAGES) -> ParsedDocument:
    """Parse PDF bytes into a :class:`ParsedDocument` (sections with pages, metadata with confidence).

    Parameters
    ----------
    data : the file's bytes.
    filename : used in messages and as the last-resort title.
    max_bytes, max_pages : limits (defaults :data:`MAX_PDF_BYTES` = 50 MB, :data:`MAX_PDF_PAGES` = 500).

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
        pages, warnings = page_lines(doc)
        chars = sum(len(l.text) for lines in pages for l in lines)
        if chars < MIN_CHARS_PER_PAGE * doc.page_count:
            raise DataError(f"{filename} has no text layer ({chars} characters on {doc.page_count} pages): it looks "
                            f"like a scan. engram-kit does not run OCR; run OCR first (e.g. `ocrmypdf in.pdf out.pdf`) "
                            f"and upload the result.")
        width = doc[0].rect.width
        main_x0 = _main_column_x0(pages, width)
        body: list[Line] = []
        margin: list[Line] = []
        for p, lines in enumerate(pages):
            page_body, page_margin = reading_order(lines, doc[p].rect.width, page_height=doc[p].rect.height,
                                                     main_x0=main_x0)
            body.extend(page_body)
            margin.extend(page_margin)
        ordered = margin + body  # margin notes join the front matter
        metadata, skip = extract_metadata(doc, pages, filename=filename)
        headings = detect_headings(ordered, skip)
        sections = build_sections(ordered, headings, skip)
        n_pages = doc.page_count
    finally:
        doc.close()
    if not headings:
        warnings.append("no section headings recognised; the whole text is one section")
    log.info("parsed %s: %d pages, %d sections", filename, n_pages, len(sections))
    return ParsedDocument("pdf", metadata, sections, n_pages, warnings)
