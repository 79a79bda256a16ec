"""Reader for PubTator-format gold corpora (BC5CDR, NCBI-disease).

Format (one document per blank-line-separated block)::

    <pmid>|t|<title>
    <pmid>|a|<abstract>
    <pmid>\t<start>\t<end>\t<mention text>\t<type>\t<ids>[\t<component mentions>]
    <pmid>\t<relation type>\t<id 1>\t<id 2>          (BC5CDR: CID = chemical-induced disease)

Offsets are character offsets into ``title + " " + abstract`` (end exclusive). ``ids`` holds MeSH
descriptor (``D...``) or supplementary-concept (``C...``) ids, OMIM ids (``OMIM:...``, NCBI-disease) or
``-1`` when the annotators found none; composite mentions ("end-stage or malignant liver disease") list
several ids joined by ``|`` (BC5CDR, with the component mentions in a 7th column) or ``|``/``+``
(NCBI-disease).

References
----------
* Li et al., "BioCreative V CDR task corpus: a resource for chemical disease relation extraction",
  Database 2016 (BC5CDR).
* Doğan, Leaman & Lu, "NCBI disease corpus: a resource for disease name recognition and concept
  normalization", J Biomed Inform 2014 (types SpecificDisease, DiseaseClass, Modifier, CompositeMention).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Separators between several concept ids of one mention.
_ID_SEPARATORS = re.compile(r"[|+]")


class PubTatorError(ValueError):
    """A PubTator file is malformed (the message names the file, the line and the problem)."""


@dataclass(frozen=True)
class GoldMention:
    """One annotated mention.

    Attributes
    ----------
    start, end : int
        Character offsets into :attr:`PubTatorDocument.text`, end exclusive.
    text : str
        The mention as annotated; equals ``document.text[start:end]`` (checked on reading).
    type : str
        The corpus's type (``Chemical``, ``Disease``; NCBI-disease: ``SpecificDisease``, ``DiseaseClass``,
        ``Modifier``, ``CompositeMention``).
    ids : tuple of str
        Concept ids (MeSH ``D...``/``C...``, ``OMIM:...``); empty when the corpus gives ``-1`` or nothing.
    components : tuple of str
        Component mentions of a composite mention (BC5CDR's 7th column); usually empty.
    """

    start: int
    end: int
    text: str
    type: str
    ids: tuple[str, ...]
    components: tuple[str, ...] = ()


@dataclass(frozen=True)
class Relation:
    """One document-level relation, e.g. BC5CDR ``CID`` (chemical MeSH id, disease MeSH id)."""

    type: str
    arg1: str
    arg2: str


@dataclass(frozen=True)
class PubTatorDocument:
    """A title + abstract with its gold mentions and relations."""

    pmid: str
    title: str
    abstract: str
    mentions: tuple[GoldMention, ...] = field(default_factory=tuple)
    relations: tuple[Relation, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        """``title + " " + abstract``: the string the offsets refer to."""
        return f"{self.title} {self.abstract}"


def _split_ids(raw: str) -> tuple[str, ...]:
    ids = [part.strip() for part in _ID_SEPARATORS.split(raw.strip())]
    return tuple(i for i in ids if i and i != "-1" and i != "-")


def _blocks(path: Path) -> Iterator[list[tuple[int, str]]]:
    block: list[tuple[int, str]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n").rstrip("\r")
            if line.strip():
                block.append((number, line))
            elif block:
                yield block
                block = []
    if block:
        yield block


def _parse_block(path: Path, block: list[tuple[int, str]]) -> PubTatorDocument:
    title = abstract = None
    pmid = ""
    mentions: list[GoldMention] = []
    relations: list[Relation] = []
    for number, line in block:
        if "|t|" in line[:40] and "\t" not in line.partition("|t|")[0]:
            pmid, _, title = line.partition("|t|")
            continue
        if "|a|" in line[:40] and "\t" not in line.partition("|a|")[0]:
            abstract = line.partition("|a|")[2]
            continue
        fields = line.split("\t")
        if title is None or abstract is None:
            raise PubTatorError(f"{path}:{number}: annotation before the |t| and |a| lines of its document.")
        if fields[0] != pmid:
            raise PubTatorError(f"{path}:{number}: PMID {fields[0]!r} differs from the document's {pmid!r}.")
        if len(fields) == 4 and not fields[1].isdigit():
            relations.append(Relation(fields[1], fields[2], fields[3]))
            continue
        if len(fields) < 5:
            raise PubTatorError(f"{path}:{number}: expected 'pmid start end text type [ids]', got {line!r}.")
        try:
            start, end = int(fields[1]), int(fields[2])
        except ValueError:
            raise PubTatorError(f"{path}:{number}: offsets {fields[1]!r}, {fields[2]!r} are not integers.") from None
        text = f"{title} {abstract}"
        if text[start:end] != fields[3]:
            raise PubTatorError(f"{path}:{number}: mention {fields[3]!r} does not match the text at "
                                f"{start}:{end} ({text[start:end]!r}).")
        ids = _split_ids(fields[5]) if len(fields) > 5 else ()
        components = tuple(c for c in fields[6].split("|") if c) if len(fields) > 6 else ()
        mentions.append(GoldMention(start, end, fields[3], fields[4], ids, components))
    if title is None or abstract is None:
        raise PubTatorError(f"{path}:{block[0][0]}: document without a |t| or |a| line.")
    mentions.sort(key=lambda m: (m.start, m.end))
    return PubTatorDocument(pmid, title, abstract, tuple(mentions), tuple(relations))


def read_pubtator(path: Path | str, *, limit: int | None = None) -> list[PubTatorDocument]:
    """Read a PubTator file.

    Parameters
    ----------
    path : Path or str
        A PubTator text file (BC5CDR ``CDR_TestSet.PubTator.txt``, NCBI-disease ``NCBItestset_corpus.txt``).
    limit : int, optional
        Read only the first ``limit`` documents (file order).

    Returns
    -------
    list of PubTatorDocument
        In file order; mentions sorted by start.

    Raises
    ------
    PubTatorError
        If a line is malformed or a mention's text differs from the document text at its offsets.
    FileNotFoundError
        If ``path`` does not exist.

    Examples
    --------
    >>> docs = read_pubtator("CDR_TestSet.PubTator.txt", limit=1)  # doctest: +SKIP
    >>> docs[0].mentions[0].text, docs[0].mentions[0].type, docs[0].mentions[0].ids  # doctest: +SKIP
    ('Famotidine', 'Chemical', ('D015738',))
    """
    path = Path(path)
    documents: list[PubTatorDocument] = []
    for block in _blocks(path):
        documents.append(_parse_block(path, block))
        if limit is not None and len(documents) >= limit:
            break
    return documents
