"""Abbreviation definitions found in the text itself ("Alzheimer's disease (AD)").

Uses scispaCy's ``AbbreviationDetector`` (the Schwartz & Hearst algorithm: "A simple algorithm for
identifying abbreviation definitions in biomedical text", PSB 2003) on a blank English pipeline
(``spacy.blank("en")`` + sentencizer), so no model is needed or downloaded. The detector reports the
definition and every later occurrence of each short form in the same text (whole tokens, same case).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import spacy

from engram_kit.errors import BackendUnavailableError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Abbreviation:
    """One occurrence of a short form, with the long form defined in the same text.

    Attributes
    ----------
    short : str
        The short form as written (``"AD"``).
    start, end : int
        Character offsets of this occurrence (end exclusive).
    long_form : str
        The long form as written at its definition (``"Alzheimer's disease"``).
    long_start, long_end : int
        Character offsets of the long form at its definition.
    """

    short: str
    start: int
    end: int
    long_form: str
    long_start: int
    long_end: int


class AbbreviationFinder:
    """Find abbreviation definitions and their occurrences; batchable with :meth:`find_many`.

    Raises
    ------
    BackendUnavailableError
        If scispaCy is not installed.
    """

    def __init__(self) -> None:
        try:
            import scispacy.abbreviation  # noqa: F401 - registers the "abbreviation_detector" factory
        except ImportError as exc:  # pragma: no cover - core dependency
            raise BackendUnavailableError("scispaCy is not installed: pip install scispacy") from exc
        self._nlp = spacy.blank("en")
        self._nlp.add_pipe("sentencizer")
        self._nlp.add_pipe("abbreviation_detector")

    @staticmethod
    def _collect(doc: spacy.tokens.Doc) -> list[Abbreviation]:
        found: dict[int, Abbreviation] = {}
        for short in doc._.abbreviations:
            long = short._.long_form
            if long is None or short.start_char in found:
                continue
            found[short.start_char] = Abbreviation(
                short.text, short.start_char, short.end_char, long.text, long.start_char, long.end_char
            )
        return sorted(found.values(), key=lambda a: a.start)

    def find(self, text: str) -> list[Abbreviation]:
        """Abbreviation occurrences in one text, sorted by start."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*\[W036\]")  # empty global matcher: harmless
            return self._collect(self._nlp(text))

    def find_many(self, texts: Iterable[str], *, batch_size: int = 64) -> Iterator[list[Abbreviation]]:
        """Like :meth:`find` for many texts via ``nlp.pipe`` (one list per text, in order)."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*\[W036\]")  # empty global matcher: harmless
            for doc in self._nlp.pipe(texts, batch_size=batch_size):
                yield self._collect(doc)
