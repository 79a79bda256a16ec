"""Sentence splitting for literature maps: fast, offline, with character offsets.

Co-occurrence is counted per sentence, so the splitter decides what "together" means. A rule-based
splitter is used instead of a spaCy parser: it is ~100x faster, deterministic, and good enough for
PubMed abstracts, where sentences end with ``.``, ``?`` or ``!`` followed by white space and an upper-case
letter, a digit, an opening bracket or a gene-style token ("aFGF", "p53", "mRNA"). It does **not** split after

* common abbreviations (``e.g.``, ``i.e.``, ``et al.``, ``vs.``, ``Fig.``, ``approx.``, ``ca.``, ``Dr.``,
  ``No.``), nor after a single capital initial (``J. Smith``);
* a decimal point (``0.05``), since the next character is not white space.

A newline always ends a sentence (PubMed titles are separated from abstracts by ``\\n`` in
:attr:`engram_kit.ingestion.pubmed.PubMedRecord.text`; PDF text keeps its line structure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Sentence", "split_sentences"]

#: Lower-cased tokens (without the final period) after which a period does not end a sentence.
ABBREVIATIONS: frozenset[str] = frozenset(
    "e.g i.e al vs cf fig figs approx ca dr no nos ref refs eq eqs resp sp spp var etc incl max min mr "
    "mrs ms st vol p pp".split()
)

_END = re.compile(r"[.!?]+[\"')\]]*\s+(?=[\"'(\[]?(?:[A-Z0-9]|[a-z]+[A-Z0-9]))|\n+")
_TOKEN_BEFORE = re.compile(r"(\S+)$")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a document.

    Attributes
    ----------
    index : int
        Position of the sentence in its document, 0-based.
    start, end : int
        Character offsets into the document text, ``end`` exclusive; ``text == doc[start:end]``.
    text : str
        The sentence, without surrounding white space.
    """

    index: int
    start: int
    end: int
    text: str


def _is_abbreviation(text: str, period_at: int) -> bool:
    match = _TOKEN_BEFORE.search(text, 0, period_at)
    if match is None:
        return False
    token = match.group(1).lower().lstrip("([\"'")
    if token in ABBREVIATIONS:
        return True
    return len(token) == 1 and token.isalpha() and text[match.start(1)].isupper()  # initial "J."


def split_sentences(text: str) -> list[Sentence]:
    """Split a text into sentences with character offsets.

    Parameters
    ----------
    text : str
        A document (title + abstract, a PDF section...).

    Returns
    -------
    list of Sentence
        In text order, indexed 0..n-1; empty strings produce an empty list. Offsets point into ``text``.

    Examples
    --------
    >>> [s.text for s in split_sentences("Aspirin (e.g. 100 mg) helps. Et al. works. P = 0.05 here.")]
    ['Aspirin (e.g. 100 mg) helps.', 'Et al. works.', 'P = 0.05 here.']
    """
    sentences: list[Sentence] = []
    start = 0
    for match in _END.finditer(text):
        if match.group(0)[0] == "." and _is_abbreviation(text, match.start()):
            continue
        _append(sentences, text, start, match.end())
        start = match.end()
    _append(sentences, text, start, len(text))
    return sentences


def _append(sentences: list[Sentence], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return
    lead = len(chunk) - len(chunk.lstrip())
    s = start + lead
    sentences.append(Sentence(len(sentences), s, s + len(stripped), stripped))
