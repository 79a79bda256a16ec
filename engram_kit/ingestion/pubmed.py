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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engram_kit.errors import DataError, UnknownFileTypeError

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

    @property
    def text(self) -> str:
        """Title and abstract as one passage text (title first, as PubMed displays it)."""
        return f"{self.title}\n{self.abstract}" if self.title else self.abstract


def _open_text(path: Path) -> io.TextIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="strict")
    return open(path, encoding="utf-8", errors="strict")


def _open_binary(path: Path) -> io.BufferedIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")  # type: ignore[return-value]


def _clean_pmid(value: object, where: str) -> str:
    pmid = str(value).strip() if value is not None else ""
    if not pmid.isdigit():
        raise DataError(f"{where}: PMID {value!r} is not a positive integer; fix or remove the record.")
    return pmid


def _clean_year(value: object) -> int | None:
    if value is None or value == "":
        return None
    match = _YEAR.search(str(value))
    return int(match.group(1)) if match else None


def read_jsonl(path: str | Path) -> Iterator[PubMedRecord]:
    """Yield records from a JSON Lines file (plain or gzip).

    Raises
    ------
    DataError
        On invalid JSON, a missing ``pmid``/``abstract``, or text that is not UTF-8; the message
        gives the file and line number.
    """
    path = Path(path)
    try:
        with _open_text(path) as fh:
            for line_no, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{path.name}:{line_no}"
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{where}: not valid JSON ({exc.msg}); each line must be one JSON object.") from exc
                if not isinstance(obj, dict):
                    raise DataError(f"{where}: expected a JSON object with 'pmid' and 'abstract'.")
                abstract = (obj.get("abstract") or "").strip()
                if not abstract:
                    raise DataError(f"{where}: record {obj.get('pmid')!r} has no 'abstract' text; remove it or add one.")
                authors = obj.get("authors") or ()
                yield PubMedRecord(
                    pmid=_clean_pmid(obj.get("pmid"), where),
                    title=(obj.get("title") or "").strip(),
                    abstract=abstract,
                    year=_clean_year(obj.get("year")),
                    journal=(obj.get("journal") or "").strip(),
                    authors=tuple(authors) if isinstance(authors, list) else (),
                    doi=(obj.get("doi") or "").strip(),
                )
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: text is not UTF-8 ({exc.reason}); re-encode the file as UTF-8.") from exc


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


def read_medline(path: str | Path) -> Iterator[PubMedRecord]:
    """Yield records from a MEDLINE tagged-text file (records separated by blank lines).

    Raises
    ------
    DataError
        If a record has no ``PMID-`` line.
    """
    path = Path(path)
    fields: dict[str, list[str]] = {}
    last_tag = ""

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

    with _open_text(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line.strip():
                yield from flush()
                fields, last_tag = {}, ""
                continue
            match = _MEDLINE_TAG.match(line)
            if match and not line.startswith("      "):
                last_tag = match.group(1)
                fields.setdefault(last_tag, []).append(match.group(2).strip())
            elif last_tag:
                # Continuation lines are indented by six spaces and extend the previous field value.
                fields[last_tag][-1] += " " + line.strip()
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
            f"{supported} (optionally gzipped). PDFs and web pages come with the document repository."
        )
    return reader(path)
