"""Abbreviation definitions found in the text itself ("Alzheimer's disease (AD)").

Uses scispaCy's ``AbbreviationDetector`` (the Schwartz & Hearst algorithm: "A simple algorithm for
identifying abbreviation definitions in biomedical text", PSB 2003) on a blank English pipeline
(``spacy.blank("en")``, tokenizer only: the detector reads token windows, not sentences, so a sentencizer
changed nothing on the 6,107 shared abstracts and cost a fifth of the time), so no model is needed or
downloaded. The detector reports the definition and every later occurrence of each short form in the same text
(whole tokens, same case). A text without a parenthesis defines nothing and is not parsed (one in ten abstracts).

The detector's long form can stop short: it matches the short form's letters right to left *inside* words, so
the second "M" of "MM" matches the inner "m" of "myeloma" and "Multiple myeloma (MM)" gives "myeloma" (a known
scispaCy behaviour). :func:`extend_long_form` then widens the long form to the whole phrase before the
parenthesis when the phrase's word initials spell the short form (Schwartz & Hearst's first-letter rule at word
starts, function words such as "of" optional), so "MM" and "Multiple myeloma" link together.

spaCy and scispaCy are imported, and the blank pipeline built, on the first text that may define an
abbreviation, not when the finder is made: most questions have no parenthesis, and importing spaCy (thinc, and
torch through it) was half of a cold ``engram ask`` (issue 30).
"""

from __future__ import annotations

import logging
import warnings
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from engram_kit.errors import BackendUnavailableError
from engram_kit.settings import Settings

if TYPE_CHECKING:
    import spacy.tokens

log = logging.getLogger(__name__)

#: A parenthesis glued to the word before it ("Inflammatory Bowel Disease(IBD)"): spaCy keeps "Disease(IBD" as
#: one token, so Schwartz & Hearst never sees the short form. A space is inserted before such a "(" for the
#: detector and offsets are mapped back to the original text.
_GLUED_PAREN = re.compile(r"(?<=[A-Za-z0-9])\((?=[A-Za-z][A-Za-z0-9\-]{0,9}\))")


def _unglue(text: str) -> tuple[str, list[int] | None]:
    """``text`` with a space before every glued "(" of a short form, and the map from new to old offsets
    (``None`` when nothing changed)."""
    cuts = [m.start() for m in _GLUED_PAREN.finditer(text)]
    if not cuts:
        return text, None
    parts: list[str] = []
    old_of: list[int] = []
    last = 0
    for cut in cuts:
        parts.append(text[last:cut] + " ")
        old_of.extend(range(last, cut))
        old_of.append(cut)  # the inserted space stands where the "(" is
        last = cut
    parts.append(text[last:])
    old_of.extend(range(last, len(text) + 1))
    return "".join(parts), old_of


def _may_define(text: str) -> bool:
    """Whether ``text`` can hold a definition: Schwartz & Hearst only reads "long form (short form)" and "short
    form (long form)", so a text without "(" and ")" defines nothing and its short forms are not abbreviations."""
    return "(" in text and ")" in text


#: Words a long form may hold without a letter in the short form ("Ministry of Health (MOH)" spells M-H with "of").
FUNCTION_WORDS: frozenset[str] = frozenset("of and the in for to with on by from at or a an".split())
_PHRASE_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def initials_start(text: str, end: int, short: str) -> int | None:
    """Start offset of the shortest phrase ending at ``end`` whose word initials spell ``short``, else None.

    The short form's letters and digits (case-insensitive; "T2DM" -> ``t 2 d m``) are matched right to left
    against the first character of each word before ``end`` (words split at white space and hyphens, so
    "non-small cell lung cancer" gives n s c l c); a word of :data:`FUNCTION_WORDS` may be skipped. The first
    word of the phrase must give the short form's first letter. Schwartz & Hearst (PSB 2003) require the first
    letter at a word start; requiring *every* letter at a word start is what makes widening safe.

    Examples
    --------
    >>> text = "Multiple myeloma (MM)"
    >>> text[initials_start(text, 16, "MM"):16]
    'Multiple myeloma'
    """
    letters = [c.lower() for c in short if c.isalnum()]
    if len(letters) < 2:
        return None
    window = text[max(0, end - 40 * (len(letters) + Settings.abbreviation_spare_words)):end]
    offset = end - len(window)
    words = list(_PHRASE_WORD.finditer(window))[-(len(letters) + Settings.abbreviation_spare_words):]
    need = len(letters) - 1
    for word in reversed(words):
        token = word.group(0)
        if token[0].lower() == letters[need]:
            need -= 1
            if need < 0:
                return offset + word.start()
        elif token.lower() not in FUNCTION_WORDS:
            return None
    return None


def extend_long_form(text: str, found: list[Abbreviation]) -> list[Abbreviation]:
    """``found`` with each long form that stops inside its phrase widened to the whole phrase (see the module
    docstring): only a long form written just before the parenthesis of its short form ("long (SF)") is
    widened, and only when the widened phrase's initials spell the short form."""
    out: list[Abbreviation] = []
    for a in found:
        if a.long_start >= 0 and re.match(r"\s*\(", text[a.long_end:a.long_end + 3]):
            start = initials_start(text, a.long_end, a.short)
            if start is not None and start < a.long_start:
                a = replace(a, long_form=text[start:a.long_end], long_start=start)
        out.append(a)
    return out


def _map_back(found: list[Abbreviation], old_of: list[int] | None) -> list[Abbreviation]:
    if old_of is None:
        return found
    return [replace(a, start=old_of[a.start], end=old_of[a.end], long_start=old_of[a.long_start],
                    long_end=old_of[a.long_end]) for a in found]


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
        if find_spec("scispacy") is None:  # pragma: no cover - core dependency; checked without importing it
            raise BackendUnavailableError("scispaCy is not installed: pip install scispacy")
        self._pipeline: Any = None  # the spaCy Language, built by _nlp on first use

    @property
    def _nlp(self) -> Any:  # spacy.language.Language (spaCy is imported here, not at module load)
        """The blank English pipeline with scispaCy's detector, built once on first use."""
        if self._pipeline is None:
            from engram_kit.extraction._spacy_import import import_spacy

            spacy = import_spacy()  # first: spaCy without torch (scispaCy imports spaCy too)
            import scispacy.abbreviation  # noqa: F401 - registers the "abbreviation_detector" factory

            nlp = spacy.blank("en")
            nlp.add_pipe("abbreviation_detector")
            self._pipeline = nlp
        return self._pipeline

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
        """Abbreviation occurrences in one text, sorted by start (offsets into ``text``)."""
        if not _may_define(text):
            return []
        spaced, old_of = _unglue(text)
        # the pipeline (and spaCy) loads first, outside the filter: spaCy's import puts its own "once" filters for
        # its warnings in front of ours, and the W036 line was printed on every ingest once loading became lazy
        nlp = self._nlp
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*\[W036\]")  # empty global matcher: harmless
            return extend_long_form(text, _map_back(self._collect(nlp(spaced)), old_of))

    def find_many(self, texts: Iterable[str], *, batch_size: int = 64) -> Iterator[list[Abbreviation]]:
        """Like :meth:`find` for many texts via ``nlp.pipe`` (one list per text, in order)."""
        texts = list(texts)
        parsed = [i for i, t in enumerate(texts) if _may_define(t)]
        prepared = [_unglue(texts[i]) for i in parsed]
        found: dict[int, list[Abbreviation]] = {}
        if not prepared:  # nothing can define an abbreviation: do not load the pipeline
            yield from ([] for _ in texts)
            return
        nlp = self._nlp  # loaded outside the filter (see find)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*\[W036\]")  # empty global matcher: harmless
            docs = nlp.pipe((spaced for spaced, _ in prepared), batch_size=batch_size)
            for i, doc, (_, old_of) in zip(parsed, docs, prepared):
                found[i] = extend_long_form(texts[i], _map_back(self._collect(doc), old_of))
        for i in range(len(texts)):
            yield found.get(i, [])
