"""Name normalisation shared by the lexicon, the gazetteer and the resolver.

Two forms exist because they serve two purposes:

* :func:`normalize_name` is the *lookup key* of a name: Unicode NFKC, case-folded, possessive ``'s``
  removed, punctuation turned into spaces, whitespace collapsed. ``"Alzheimer's disease"``,
  ``"ALZHEIMER DISEASE"`` and ``"Alzheimer’s  disease"`` all give ``"alzheimer disease"``. The lexicon is
  keyed by it, the resolver looks names up with it and NounPhrase ids are built from it.
* :func:`match_text` is the *matching form* of a whole text for the gazetteer: lower-cased and every
  non-alphanumeric character replaced by one space, **character for character**, so that an offset in
  the matching form is the same offset in the original text (no NFKC, no deletion).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: A possessive ``'s`` after a word character (straight, curly or backtick apostrophe).
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019\u2018`\u00b4]s\b")
#: Greek letters spelled out by :func:`normalize_name` (as in :data:`engram_kit.extraction.variants.GREEK_LETTERS`;
#: final sigma folds to sigma).
_GREEK_NAMES: dict[str, str] = dict(zip("αβγδεζηθικλμνξπρσςτφχψω",
                                        ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi "
                                         "pi rho sigma sigma tau phi chi psi omega").split()))
_GREEK = re.compile("[" + "".join(_GREEK_NAMES) + "]")
#: Runs of characters that are neither letters nor digits (``_`` counts as punctuation here).
_NON_ALNUM_RUN = re.compile(r"[\W_]+")
#: One character that is neither a letter nor a digit.
_NON_ALNUM_CHAR = re.compile(r"[\W_]")
#: Distinct names :func:`normalize_name` remembers. Ingestion asks for the same few thousand node names and
#: surfaces again and again (89,000 calls per 1,024 abstracts, most repeats); a cached call costs a dict look-up.
NORMALIZE_CACHE_SIZE = 1 << 17


@lru_cache(maxsize=NORMALIZE_CACHE_SIZE)
def normalize_name(text: str) -> str:
    """Lookup key of an entity name.

    Steps: Unicode NFKC; case-fold; Greek letters spelled out (``γ`` -> ``gamma``); drop a possessive ``'s`` (``Alzheimer's`` -> ``alzheimer``); turn every
    run of punctuation/symbols into one space; collapse and strip whitespace.

    Parameters
    ----------
    text : str
        Any name or surface form.

    Returns
    -------
    str
        The key; ``""`` when ``text`` has no letter or digit.

    Examples
    --------
    >>> normalize_name("Alzheimer's disease") == normalize_name("alzheimer disease")
    True
    >>> normalize_name("  Non-small-cell  lung CANCER ")
    'non small cell lung cancer'
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    if _GREEK.search(folded):  # "IFN-γ" and "IFN-gamma" are one key (variants.greek_variants)
        folded = _GREEK.sub(lambda m: _GREEK_NAMES[m.group(0)], folded)
    folded = _POSSESSIVE.sub("", folded)
    return " ".join(_NON_ALNUM_RUN.sub(" ", folded).split())


def lower_same_length(text: str) -> str:
    """Lower-case ``text`` without changing its length (characters whose lower case is longer stay as is)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def match_text(text: str, *, lower: bool = True) -> str:
    """Matching form of a text for the gazetteer, of exactly ``len(text)`` characters.

    Parameters
    ----------
    text : str
        Raw text (an abstract, a title).
    lower : bool
        Lower-case as well (case-insensitive matching); ``False`` keeps the case for the case-sensitive
        check of gene symbols.

    Returns
    -------
    str
        ``text`` with every non-alphanumeric character replaced by a space, lower-cased if asked; the
        offsets are those of ``text``.
    """
    if lower:
        text = lower_same_length(text)
    return _NON_ALNUM_CHAR.sub(" ", text)


def match_key(surface: str, *, lower: bool = True) -> str:
    """Gazetteer key of a surface form: :func:`match_text` with whitespace collapsed and stripped."""
    return " ".join(match_text(surface, lower=lower).split())
