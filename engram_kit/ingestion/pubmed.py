"""Readers for PubMed records: JSON Lines, PubMed XML (efetch ``PubmedArticleSet``) and MEDLINE text.

Each reader yields :class:`PubMedRecord` objects and raises :class:`~engram_kit.errors.DataError` naming
the file and the record (line number or PMID) when a record is unusable, so that a bad file never
half-ingests silently. Files may be gzip-compressed (detected by magic bytes).

Formats
-------
* JSON Lines: one object per line with ``pmid`` and ``abstract`` (required), ``title``, ``year``
  (optional); other keys are ignored. This is the shape of the bundled sample.
* PubMed XML: the ``PubmedArticleSet`` documents returned by NCBI E-utilities ``efetch`` (DTD
  ``pubmed_250101.dtd`` and earlier); structured abstracts keep their section labels.
* MEDLINE text: the tagged ``PMID- / TI  - / AB  - / DP  -`` format (``.nbib``, ``.medline``, ``.txt``).
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engram_kit.errors import DataError, UnknownFileTypeError
from engram_kit.ingestion.repair import expand_ligatures
from engram_kit.settings import Settings

_YEAR = re.compile(r"(1[89]\d\d|20\d\d)")



@dataclass(frozen=True)
class PubMedRecord:
    """One PubMed citation. ``year`` is None when the source gives none."""

    pmid: str
    title: str
    abstract: str
    year: int | None = None
    journal: str = ""
    authors: tuple[str, ...] = field(default_factory=tuple)
    doi: str = ""

    def __post_init__(self) -> None:
        """Typed validation, so the API refuses what the file readers refuse (``pmid="abc"``, an empty or
        non-string abstract, oversized text); ligature characters of the title and abstract are written as
        letters (:func:`~engram_kit.ingestion.repair.expand_ligatures`)."""
        where = f"record {self.pmid!r}"
        if not isinstance(self.pmid, str) or not self.pmid.isdigit() or self.pmid.startswith("0"):
            raise DataError(f"{where}: PMID must be a positive integer written as digits (e.g. '31452104'); "
                            "fix or remove the record.")
        for name, value, limit in (("title", self.title, Settings.max_title_chars),
                                   ("abstract", self.abstract, Settings.max_abstract_chars)):
            if not isinstance(value, str):
                raise DataError(f"{where}: '{name}' must be text, got {type(value).__name__}; fix the record.")
            if len(value) > limit:
                raise DataError(f"{where}: '{name}' has {len(value):,} characters, more than the {limit:,} "
                                "allowed; this is not one PubMed record (split or fix it).")
        # ligature characters ("ﬁbrosis") as letters, the map every text path applies (repair.expand_ligatures)
        object.__setattr__(self, "title", expand_ligatures(self.title))
        object.__setattr__(self, "abstract", expand_ligatures(self.abstract))
        if not self.abstract.strip():
            raise DataError(f"{where}: the abstract is empty; there is nothing to retrieve. Remove the record.")
        if self.year is not None and not isinstance(self.year, int):
            raise DataError(f"{where}: 'year' must be an integer or None, got {type(self.year).__name__}.")
        if not isinstance(self.journal, str) or not isinstance(self.doi, str) \
                or not all(isinstance(a, str) for a in self.authors):
            raise DataError(f"{where}: 'journal', 'doi' and each author must be text; fix the record.")

    @property
    def text(self) -> str:
        """Title and abstract as one passage text (title first, as PubMed displays it)."""
        return f"{self.title}\n{self.abstract}" if self.title else self.abstract


def _open_text(path: Path) -> io.TextIOBase:
    """The file as text, gzip or plain by its magic bytes (not its name); ``utf-8-sig`` drops a leading
    UTF-8 byte-order mark (Windows editors write one; it made line 1 "not valid JSON"), else strict UTF-8."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", errors="strict")
    return open(path, encoding="utf-8-sig", errors="strict")


def _open_binary(path: Path) -> io.BufferedIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")  # type: ignore[return-value]


def _clean_pmid(value: object, where: str) -> str:
    pmid = str(value).strip() if value is not None else ""
    if value is None or not pmid:
        raise DataError(f"{where}: the record has no PMID (no 'pmid' field, or it is empty); add it or remove the "
                        "record.")
    if not pmid.isdigit():
        raise DataError(f"{where}: PMID {value!r} is not a positive integer; fix or remove the record.")
    return pmid


def _clean_year(value: object) -> int | None:
    if value is None or value == "":
        return None
    match = _YEAR.search(str(value))
    return int(match.group(1)) if match else None


def _bounded_lines(fh: io.TextIOBase, path: Path) -> Iterator[tuple[int, str]]:
    """``(line_no, line)`` pairs, refusing a line longer than ``Settings.max_line_chars`` as soon as the limit
    is passed (the rest of the line is never read into memory)."""
    line_no = 0
    while True:
        line = fh.readline(Settings.max_line_chars + 1)
        if not line:
            return
        line_no += 1
        if len(line) > Settings.max_line_chars and not line.endswith("\n"):
            raise DataError(f"{path.name}:{line_no}: the line is longer than {Settings.max_line_chars:,} characters (read "
                            "stopped there); one PubMed record is far shorter. Check the file (a corrupt or "
                            "concatenated export?) and split it into one JSON object per line.")
        yield line_no, line


def _text_field(obj: dict[str, object], name: str, where: str) -> str:
    value = obj.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DataError(f"{where}: '{name}' must be a JSON string, got {type(value).__name__} ({str(value)[:40]!r}); "
                        "fix the record.")
    return value.strip()


def _record_from_line(line: str, where: str) -> PubMedRecord:
    """One JSON Lines record, validated; ``where`` (``file:line``) starts every error message."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"{where}: not valid JSON ({exc.msg}); each line must be one JSON object.") from exc
    except RecursionError as exc:
        raise DataError(f"{where}: the JSON is nested too deeply; each line must be one flat record.") from exc
    if not isinstance(obj, dict):
        raise DataError(f"{where}: expected a JSON object with 'pmid' and 'abstract'.")
    abstract = _text_field(obj, "abstract", where)
    if not abstract:
        raise DataError(f"{where}: record {obj.get('pmid')!r} has no 'abstract' text; remove it or add one.")
    authors = obj.get("authors") or ()
    if not isinstance(authors, (list, tuple)) or not all(isinstance(a, str) for a in authors):
        raise DataError(f"{where}: 'authors' must be a list of strings; fix the record.")
    try:
        return PubMedRecord(pmid=_clean_pmid(obj.get("pmid"), where), title=_text_field(obj, "title", where),
                            abstract=abstract, year=_clean_year(obj.get("year")),
                            journal=_text_field(obj, "journal", where), authors=tuple(authors),
                            doi=_text_field(obj, "doi", where))
    except DataError as exc:
        message = str(exc)
        raise DataError(message if message.startswith(where) else f"{where}: {message}") from None


def _jsonl_lines(path: Path) -> Iterator[tuple[str, str]]:
    """``(where, line)`` for the non-blank lines of a JSON Lines file, with bounded line length."""
    try:
        with _open_text(path) as fh:
            for line_no, line in _bounded_lines(fh, path):
                if line.strip():
                    yield f"{path.name}:{line_no}", line
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: text is not UTF-8 ({exc.reason}); re-encode the file as UTF-8.") from exc
    except (OSError, EOFError) as exc:  # gzip: truncated or corrupt stream
        raise DataError(f"{path}: the file could not be read to its end ({exc}); download or copy it again.") from exc


def read_jsonl(path: str | Path) -> Iterator[PubMedRecord]:
    """Yield records from a JSON Lines file (plain or gzip), streaming with bounded line sizes.

    Raises
    ------
    DataError
        On invalid JSON, a line over ``Settings.max_line_chars``, a missing or mistyped field (``"abstract":
        12345``), a missing ``pmid``/``abstract``, or text that is not UTF-8; the message gives the file and
        line number.
    """
    for where, line in _jsonl_lines(Path(path)):
        yield _record_from_line(line, where)


@dataclass(frozen=True)
class FileCheck:
    """What one streaming pass over a PubMed file found, before anything is written.

    Attributes
    ----------
    records : int
        Valid records (duplicates counted once).
    duplicates : dict of str to list of int
        PMIDs that occur more than once in the file -> the record numbers (1-based, in file order) of
        every occurrence; the first occurrence is ingested.
    bad : list of str
        Error messages of invalid records (only filled with ``skip_bad=True``; otherwise the first raises).
    """

    records: int
    duplicates: dict[str, list[int]]
    bad: list[str]


def check_pubmed_file(path: str | Path, *, skip_bad: bool = False) -> FileCheck:
    """Validate a whole PubMed file in one streaming pass (bounded memory: PMIDs only), so that ingestion is
    all-or-nothing per file: a bad record at line 71 is found before record 1 is written.

    Parameters
    ----------
    path : str or Path
        A file :func:`read_pubmed` reads.
    skip_bad : bool
        With False (the default) the first invalid record raises; with True invalid records are counted in
        ``bad`` and skipped (JSON Lines only: one line is one record; an XML or MEDLINE syntax error still
        raises, since the records after it cannot be trusted).

    Raises
    ------
    DataError, UnknownFileTypeError
        As :func:`read_pubmed`, naming the file and line.
    """
    seen: dict[str, list[int]] = {}
    bad: list[str] = []
    for number, record in enumerate(read_pubmed_skipping(Path(path), bad) if skip_bad else read_pubmed(path), 1):
        seen.setdefault(record.pmid, []).append(number)
    duplicates = {pmid: numbers for pmid, numbers in seen.items() if len(numbers) > 1}
    return FileCheck(records=len(seen), duplicates=duplicates, bad=bad)


def read_pubmed_skipping(path: Path, bad: list[str]) -> Iterator[PubMedRecord]:
    """Records of ``path`` (as :func:`read_pubmed`) with invalid JSON Lines records skipped and their
    errors (``file:line: problem``) appended to ``bad``; other formats raise on a bad record as usual."""
    if not path.name.lower().removesuffix(".gz").endswith(".jsonl"):
        yield from read_pubmed(path)
        return
    for where, line in _jsonl_lines(path):
        try:
            record = _record_from_line(line, where)
        except DataError as exc:
            bad.append(str(exc))
            continue
        yield record


def unique_records(records: Iterable[PubMedRecord]) -> Iterator[PubMedRecord]:
    """``records`` with a PMID's later occurrences dropped (a file listing a PMID twice ingests it once)."""
    seen: set[str] = set()
    for record in records:
        if record.pmid not in seen:
            seen.add(record.pmid)
            yield record


def read_pubmed_xml(path: str | Path) -> Iterator[PubMedRecord]:
    """Yield records from a PubMed XML ``PubmedArticleSet`` file (plain or gzip), streaming.

    Records without abstract text are skipped (PubMed has many title-only citations; there is nothing
    to retrieve from them) and logged at debug level by the caller's count.

    Raises
    ------
    DataError
        If the XML is not well-formed or a citation has no PMID.
    """
    from lxml import etree

    path = Path(path)
    try:
        with _open_binary(path) as fh:
            for _, elem in etree.iterparse(fh, events=("end",), tag="PubmedArticle", recover=False):
                record = _xml_record(elem, path)
                elem.clear()
                if record is not None:
                    yield record
    except etree.XMLSyntaxError as exc:
        raise DataError(f"{path}: not well-formed PubMed XML ({exc}); download it again from PubMed.") from exc


def read_deleted_pmids(path: str | Path) -> list[str]:
    """PMIDs listed in the ``DeleteCitation`` elements of a PubMed XML file (plain or gzip), in file order.

    NLM's daily update files (``pubmedNNnNNNN.xml.gz`` after the baseline) end with a ``DeleteCitation``
    element naming the citations withdrawn since; a baseline file has none. Non-XML files have none either.

    Raises
    ------
    DataError
        If the XML is not well-formed, or a listed PMID is not a positive integer.
    """
    from lxml import etree

    path = Path(path)
    if not path.name.lower().removesuffix(".gz").endswith(".xml"):
        return []
    pmids: list[str] = []
    try:
        with _open_binary(path) as fh:
            for _, elem in etree.iterparse(fh, events=("end",), tag="DeleteCitation", recover=False):
                pmids += [_clean_pmid(p.text, f"{path.name} DeleteCitation") for p in elem.findall("PMID")]
                elem.clear()
    except etree.XMLSyntaxError as exc:
        raise DataError(f"{path}: not well-formed PubMed XML ({exc}); download it again from PubMed.") from exc
    return pmids


def _xml_text(elem: object) -> str:
    from lxml import etree

    return " ".join("".join(etree.ElementBase.itertext(elem)).split()) if elem is not None else ""  # type: ignore[arg-type]


def _xml_record(elem: object, path: Path) -> PubMedRecord | None:
    citation = elem.find("MedlineCitation")  # type: ignore[attr-defined]
    pmid_el = citation.find("PMID") if citation is not None else None
    if pmid_el is None or not (pmid_el.text or "").strip():
        raise DataError(f"{path}: a PubmedArticle has no PMID; the file is not a PubMed efetch export.")
    pmid = _clean_pmid(pmid_el.text, f"{path.name} PubmedArticle")
    article = citation.find("Article")
    title = _xml_text(article.find("ArticleTitle")) if article is not None else ""
    parts = []
    for node in article.findall("Abstract/AbstractText") if article is not None else []:
        text = _xml_text(node)
        label = node.get("Label")
        parts.append(f"{label}: {text}" if label and text else text)
    abstract = " ".join(p for p in parts if p)
    if not abstract:
        return None
    year = None
    if article is not None:
        pub = article.find("Journal/JournalIssue/PubDate")
        if pub is not None:
            year = _clean_year(pub.findtext("Year") or pub.findtext("MedlineDate"))
    authors = []
    for author in article.findall("AuthorList/Author") if article is not None else []:
        last, initials = author.findtext("LastName") or "", author.findtext("Initials") or ""
        name = f"{last} {initials}".strip() or (author.findtext("CollectiveName") or "")
        if name:
            authors.append(name)
    doi = ""
    for eloc in article.findall("ELocationID") if article is not None else []:
        if eloc.get("EIdType") == "doi":
            doi = (eloc.text or "").strip()
    journal = _xml_text(article.find("Journal/Title")) if article is not None else ""
    return PubMedRecord(pmid, title, abstract, year, journal, tuple(authors), doi)


_MEDLINE_TAG = re.compile(r"^([A-Z]{2,4})\s*-\s?(.*)$")
#: The line that opens every MEDLINE record ("PMID- 31452104").
_MEDLINE_PMID = re.compile(r"^PMID\s*-\s*\d+\s*$", re.M)
#: How much of a file :func:`holds_medline` reads (a MEDLINE export's first record starts on its first line).
MEDLINE_SNIFF_CHARS = 64 * 1024


def holds_medline(path: str | Path) -> bool:
    """Whether a text file (plain or gzipped) holds a MEDLINE record: a ``PMID- <digits>`` line in its first
    :data:`MEDLINE_SNIFF_CHARS` characters. ``.txt`` is both PubMed's MEDLINE export and a plain note, so the
    content decides (``engram ingest`` sends a ``.txt`` without one to the document repository). False for an
    unreadable or non-UTF-8 file (the document path then reports what is wrong with it)."""
    try:
        with _open_text(Path(path)) as fh:
            head = fh.read(MEDLINE_SNIFF_CHARS)
    except (OSError, UnicodeDecodeError, EOFError):
        return False
    return _MEDLINE_PMID.search(head) is not None



def read_medline(path: str | Path) -> Iterator[PubMedRecord]:
    """Yield records from a MEDLINE tagged-text file (records separated by blank lines).

    Raises
    ------
    DataError
        If a record has no ``PMID-`` line, the text is not UTF-8, or the file holds text but no MEDLINE tag
        line at all (a plain note named ``.txt``: it is a document, see :func:`holds_medline`).
    """
    path = Path(path)
    fields: dict[str, list[str]] = {}
    last_tag = ""
    tagged = prose = False

    def flush() -> Iterator[PubMedRecord]:
        if not fields:
            return
        if "PMID" not in fields:
            raise DataError(f"{path}: a MEDLINE record has no 'PMID-' line; is this a MEDLINE export?")
        abstract = " ".join(fields.get("AB", []))
        if abstract:
            doi = next((v.split(" ")[0] for v in fields.get("LID", []) + fields.get("AID", []) if "[doi]" in v), "")
            yield PubMedRecord(
                pmid=_clean_pmid(fields["PMID"][0], f"{path.name} record"),
                title=" ".join(fields.get("TI", [])),
                abstract=abstract,
                year=_clean_year(" ".join(fields.get("DP", []))),
                journal=" ".join(fields.get("JT", [])),
                authors=tuple(fields.get("AU", [])),
                doi=doi,
            )

    try:
        with _open_text(path) as fh:
            for line in fh:
                line = line.rstrip("\n")
                if not line.strip():
                    yield from flush()
                    fields, last_tag = {}, ""
                    continue
                match = _MEDLINE_TAG.match(line)
                if not tagged and not match:
                    prose = True
                    continue
                if match and not line.startswith("      "):
                    tagged = True
                    last_tag = match.group(1)
                    fields.setdefault(last_tag, []).append(match.group(2).strip())
                elif last_tag:
                    # Continuation lines are indented by six spaces and extend the previous field value.
                    fields[last_tag][-1] += " " + line.strip()
    except UnicodeDecodeError as exc:  # was an uncaught traceback (bad-input probe: a Latin-1 .txt)
        raise DataError(f"{path}: text is not UTF-8 ({exc.reason}); re-encode the file as UTF-8 (e.g. "
                        "`iconv -f latin1 -t utf-8`).") from exc
    if prose and not tagged:  # a plain note named .txt: nothing would be ingested, say so instead of reading 0
        raise DataError(f"{path.name} holds no MEDLINE record (no 'PMID- ' line): it reads as plain text. Ingest "
                        "it as a document: `engram ingest` does so for a .txt without MEDLINE records, and "
                        "ws.ingest_pdf(path) takes .txt/.md files.")
    yield from flush()


#: File suffix (after stripping ``.gz``) -> reader.
READERS = {
    ".jsonl": read_jsonl,
    ".ndjson": read_jsonl,
    ".xml": read_pubmed_xml,
    ".medline": read_medline,
    ".nbib": read_medline,
    ".txt": read_medline,
}


def read_pubmed(path: str | Path) -> Iterator[PubMedRecord]:
    """Pick the reader from the file name (``.jsonl``, ``.xml``, ``.nbib``/``.medline``/``.txt``, each
    optionally ``.gz``) and yield its records.

    Raises
    ------
    DataError
        If the file does not exist.
    UnknownFileTypeError
        If the suffix is not one of the supported ones (the message lists them).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file; check the path.")
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    reader = READERS.get(suffix)
    if reader is None:
        supported = ", ".join(sorted(READERS))
        raise UnknownFileTypeError(
            f"{path.name}: cannot ingest files of type {suffix or '(none)'!r}; supported PubMed formats: "
            f"{supported} (optionally gzipped). Documents (.pdf, .html, .htm, .xhtml, .md, .markdown) and web pages "
            "go to the document repository: engram ingest takes them too, or Workspace.ingest_pdf / ingest_url."
        )
    return reader(path)
