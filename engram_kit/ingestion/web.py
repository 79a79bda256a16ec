"""Web pages: fetch (requests), strip boilerplate (BeautifulSoup), read meta tags, split at headings.

:func:`fetch_url` downloads a page, following redirects (the final URL is recorded), refusing HTTP errors
(404...), non-HTML content types (PDFs are handed to the PDF parser by the document repository) and pages
above ``Settings.max_page_bytes``. It downloads only when called: nothing in engram-kit fetches on its own.

:func:`parse_html` keeps the main content (the largest ``<article>``, else ``<main>``, else the body),
drops navigation, headers, footers, sidebars, forms, scripts and elements whose class or id names such
boilerplate, and splits the text into sections at ``<h1>``-``<h4>`` headings (section kinds as for PDFs,
so a "References" section is kept out of retrieval). Metadata fallback chains (confidence in brackets):

* title: ``citation_title`` (0.95), ``og:title`` (0.85), ``<title>`` (0.7), first ``<h1>`` (0.6), URL (0.1);
* authors: ``citation_author`` (0.9), ``author`` / ``article:author`` / ``dc.creator`` (0.7);
* year: ``citation_publication_date``/``citation_date`` (0.9), ``article:published_time`` (0.85),
  ``date``/``dc.date`` (0.75), first ``<time datetime>`` (0.5);
* DOI: ``citation_doi`` (0.95), ``dc.identifier`` (0.85), a DOI in the text (0.5).

Highwire ``citation_*`` tags are what Google Scholar reads, so publishers set them reliably.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

from engram_kit.version import __version__
from engram_kit.errors import DataError, IngestionError
from engram_kit.ingestion.chunking import DocumentMetadata, MetadataField, ParsedDocument, ParsedSection
from engram_kit.ingestion.pdf import DOI_PATTERN, NON_RETRIEVABLE_KINDS, canonical_section, split_authors
from engram_kit.ingestion.repair import expand_ligatures
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

#: Content types parsed as HTML; ``application/pdf`` is accepted too and parsed as a PDF.
HTML_TYPES: tuple[str, ...] = ("text/html", "application/xhtml+xml")
PDF_TYPE = "application/pdf"
USER_AGENT = f"engram-kit/{__version__} (document repository)"

_BOILERPLATE_TAGS = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe", "svg",
                     "button", "template", "select", "input", "canvas")
_BOILERPLATE_WORDS = re.compile(r"(?:^|[-_ ])(nav|navbar|menu|footer|header|sidebar|cookie|banner|advert|ads|share|"
                                r"social|breadcrumbs?|related|comments?|newsletter|popup|skip)(?:$|[-_ ])", re.I)
_BLOCK_TAGS = frozenset("p div li ul ol blockquote pre table tr td th dd dt dl figcaption section article br hr "
                        "h5 h6".split())
_HEADING_TAGS = ("h1", "h2", "h3", "h4")


@dataclass(frozen=True)
class FetchedPage:
    """A downloaded page. ``redirects``: the URLs passed through before ``final_url``."""

    url: str
    final_url: str
    status: int
    content_type: str
    content: bytes
    charset: str = ""
    redirects: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_pdf(self) -> bool:
        return self.content_type == PDF_TYPE


def fetch_url(url: str, *, timeout: float = Settings.fetch_timeout_s, max_bytes: int = Settings.max_page_bytes) -> FetchedPage:
    """Download ``url`` (http or https), following redirects.

    Raises
    ------
    DataError
        Not an http(s) URL; the server answered an HTTP error (the status is named); the content type is
        neither HTML nor PDF; the page is larger than ``max_bytes``.
    IngestionError
        The server could not be reached or timed out (network problem: retry later).
    """
    import requests

    if urlparse(url).scheme not in ("http", "https") or not urlparse(url).netloc:
        raise DataError(f"{url!r} is not an http(s) URL; give a full address such as https://example.org/page.")
    try:
        response = requests.get(url, timeout=timeout, stream=True, allow_redirects=True,
                                headers={"User-Agent": USER_AGENT, "Accept": "text/html,application/pdf;q=0.9"})
    except requests.RequestException as exc:
        raise IngestionError(f"Could not fetch {url}: {type(exc).__name__}: {exc}. Check the address and the "
                             f"network, then retry.") from exc
    with response:
        if response.status_code >= 400:
            raise DataError(f"{url} answered HTTP {response.status_code} {response.reason}; check the address "
                            f"(the page may have moved or need a login).")
        content_type, _, params = (response.headers.get("Content-Type") or "").partition(";")
        content_type = content_type.strip().lower()
        if content_type not in HTML_TYPES and content_type != PDF_TYPE:
            raise DataError(f"{url} is {content_type or 'of no declared type'}, not a web page (HTML) or a PDF; "
                            f"download it and ingest the file if engram-kit supports its format.")
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_content(64 * 1024):
            size += len(chunk)
            if size > max_bytes:
                raise DataError(f"{url} is larger than {max_bytes / 2**20:.0f} MB; save the page and ingest the file.")
            chunks.append(chunk)
        charset = re.search(r"charset=([\w-]+)", params, re.I)
        return FetchedPage(url, response.url, response.status_code, content_type, b"".join(chunks),
                           charset.group(1) if charset else "", tuple(r.url for r in response.history))


def decode_html(content: bytes, *, charset: str = "", name: str = "the page") -> str:
    """Decode HTML bytes: the HTTP charset, else a ``<meta charset>``, else strict UTF-8; ligature characters
    are written as letters (:func:`~engram_kit.ingestion.repair.expand_ligatures`).

    Raises
    ------
    DataError
        If the page declares no charset and is not valid UTF-8, or declares one Python does not know.
    """
    declared = charset or (re.search(rb"<meta[^>]+charset=[\"']?([\w-]+)", content[:4096], re.I) or [b"", b""])[1].decode()
    try:  # ligature characters ("ﬁ") as letters, like every text path (repair.expand_ligatures)
        return expand_ligatures(content.decode(declared or "utf-8", errors="strict" if not declared else "replace"))
    except LookupError as exc:
        raise DataError(f"{name} declares the unknown charset {declared!r}; save it as UTF-8 and ingest the file.") from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"{name} is not UTF-8 (byte {content[exc.start]:#04x} at position {exc.start}) and declares no "
                        f"charset; save it as UTF-8 or add <meta charset=...>.") from exc


def _meta(soup, *names: str) -> list[str]:  # BeautifulSoup
    """Contents of ``<meta name|property=...>`` tags, in document order, for any of ``names`` (case-insensitive)."""
    wanted = {n.lower() for n in names}
    return [m["content"].strip() for m in soup.find_all("meta")
            if (m.get("name") or m.get("property") or "").lower() in wanted and (m.get("content") or "").strip()]


def _first(candidates: list[tuple[list[str], str, float]], default: MetadataField) -> MetadataField:
    for values, source, confidence in candidates:
        if values:
            return MetadataField(values[0], source, confidence)
    return default


def html_metadata(soup, *, url: str = "") -> DocumentMetadata:
    """Title, authors, year and DOI from meta tags (fallback chains in the module docstring)."""
    title_tag = soup.title.get_text(" ", strip=True) if soup.title else ""
    h1 = soup.find("h1")
    title = _first([(_meta(soup, "citation_title"), "meta citation_title", 0.95),
                    (_meta(soup, "og:title"), "meta og:title", 0.85),
                    ([title_tag] if title_tag else [], "<title>", 0.7),
                    ([h1.get_text(" ", strip=True)] if h1 else [], "first <h1>", 0.6)],
                   MetadataField(url, "url", 0.1))
    cited = _meta(soup, "citation_author")
    other = [a for v in _meta(soup, "author", "article:author", "dc.creator") for a in split_authors(v)]
    authors = (MetadataField(cited, "meta citation_author", 0.9) if cited
               else MetadataField(other, "meta author", 0.7) if other else MetadataField([], "none", 0.0))
    time_tag = soup.find("time", attrs={"datetime": True})
    dates = _first([(_meta(soup, "citation_publication_date", "citation_date"), "meta citation_publication_date", 0.9),
                    (_meta(soup, "article:published_time"), "meta article:published_time", 0.85),
                    (_meta(soup, "date", "dc.date", "dc.date.issued"), "meta date", 0.75),
                    ([time_tag["datetime"]] if time_tag else [], "<time datetime>", 0.5)], MetadataField(None))
    year_match = re.search(r"(19[5-9]\d|20\d\d)", str(dates.value or ""))
    year = MetadataField(int(year_match.group(1)), dates.source, dates.confidence) if year_match else MetadataField(None)
    text_doi = DOI_PATTERN.search(soup.get_text(" ", strip=True)[:20000])
    dc_ids = [v for v in _meta(soup, "dc.identifier") if DOI_PATTERN.search(v)]
    doi = _first([(_meta(soup, "citation_doi"), "meta citation_doi", 0.95),
                  ([m.group(1) for v in dc_ids if (m := DOI_PATTERN.search(v))], "meta dc.identifier", 0.85),
                  ([text_doi.group(1)] if text_doi else [], "page text", 0.5)], MetadataField(""))
    if doi.value:
        doi = MetadataField(re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", doi.value, flags=re.I), doi.source,
                            doi.confidence)
    return DocumentMetadata(title=title, authors=authors, year=year, doi=doi, extra={"url": url} if url else {})


def _is_boilerplate(tag) -> bool:
    attrs = " ".join([tag.get("id") or "", *(tag.get("class") or []), tag.get("role") or ""])
    return bool(attrs.strip()) and bool(_BOILERPLATE_WORDS.search(attrs) or tag.get("role") in (
        "navigation", "banner", "contentinfo", "complementary"))


def main_content(soup):
    """The content root: the largest ``<article>``, else ``<main>``/``[role=main]``, else ``<body>``; boilerplate removed."""
    for tag in soup.find_all(_BOILERPLATE_TAGS):
        tag.decompose()
    for tag in [t for t in soup.find_all(True) if t.attrs is not None and _is_boilerplate(t)]:
        if tag.name not in ("body", "html", "article", "main"):
            tag.decompose()
    articles = soup.find_all("article")
    if articles:
        return max(articles, key=lambda a: len(a.get_text(" ", strip=True)))
    return soup.find("main") or soup.find(attrs={"role": "main"}) or soup.body or soup


def html_sections(root, *, title: str = "") -> list[ParsedSection]:
    """Split the content root into sections at ``<h1>``-``<h4>``; an ``<h1>`` equal to the title is skipped."""
    from bs4 import NavigableString, Tag
    from bs4.element import Comment

    sections: list[tuple[str, list[str]]] = [("Front matter", [])]
    for node in root.descendants:
        if isinstance(node, Tag):
            if node.name in _HEADING_TAGS:
                heading = node.get_text(" ", strip=True)
                if heading and not (node.name == "h1" and " ".join(heading.split()) == " ".join(title.split())):
                    sections.append((heading, []))
            elif node.name in _BLOCK_TAGS:
                sections[-1][1].append("\n")
        elif isinstance(node, NavigableString) and not isinstance(node, Comment):
            if node.find_parent(_HEADING_TAGS) is None:
                sections[-1][1].append(str(node))
    out = []
    for heading, parts in sections:
        paragraphs = [" ".join(p.split()) for p in "".join(parts).split("\n")]
        text = "\n".join(p for p in paragraphs if p)
        kind = "front_matter" if heading == "Front matter" else canonical_section(heading)
        if text or heading != "Front matter":
            out.append(ParsedSection(heading, kind, text, None, (), kind not in NON_RETRIEVABLE_KINDS))
    return out


def parse_html(content: bytes, *, url: str = "", charset: str = "") -> ParsedDocument:
    """Parse an HTML page into a :class:`ParsedDocument` (boilerplate removed, sections at headings).

    Raises
    ------
    DataError
        Undecodable bytes (see :func:`decode_html`), or no text left after boilerplate removal.
    """
    from bs4 import BeautifulSoup

    html = decode_html(content, charset=charset, name=url or "the page")
    soup = BeautifulSoup(html, "lxml")
    metadata = html_metadata(soup, url=url)
    sections = html_sections(main_content(soup), title=str(metadata.title.value or ""))
    if not any(s.text.strip() for s in sections):
        raise DataError(f"{url or 'the page'} has no text after removing navigation and scripts (a page rendered by "
                        f"JavaScript?); save the rendered page as HTML or PDF and ingest that.")
    return ParsedDocument("html", metadata, sections, 1, [])
