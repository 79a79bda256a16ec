"""Surface-form variants added to the lexicon: English singular/plural and British/American spelling.

Biomedical text writes "seizure" where the Hetionet Symptom is "Seizures", "convulsions" where the side
effect is "Convulsion", and "anaemia", "oedema", "sulphate" where the vocabularies (MeSH, Disease
Ontology, DrugBank) use US spelling. These rules generate the other form of a surface; the lexicon adds
it with source ``variant`` to the same node (see :meth:`engram_kit.extraction.Lexicon.build`). They are
applied to disease-like kinds and compounds only: gene symbols and synonyms are never inflected.

Rules (English morphology; spelling pairs as in the Oxford/Merriam-Webster medical spelling conventions
and NLM's SPECIALIST lexicon "spelling variants"):

* **Number**, last word only, words of at least 4 letters: ``-ies`` <-> ``-y`` ("arrhythmias" is the
  plain ``-s`` rule), ``-ses``/``-xes``/``-ches``/``-shes`` -> drop ``es``, ``-s`` -> drop ``s``; the
  reverse adds ``s`` (``es`` after s/x/ch/sh, ``ies`` after a consonant + y). Words ending in ``-ss``,
  ``-us``, ``-is``, ``-ous``, ``-sis`` (Latin/Greek singulars: "sepsis", "arthritis", "nodosus"), a few
  plural-looking singulars ("diabetes", "herpes", "rabies", "caries", "feces") and adjectival endings
  (``-ic``, ``-al``, ``-ous``, ...) are left alone.
* **Spelling**, word-anchored (:data:`SPELLING_PAIRS`): ``hem-``/``haem-``, ``anem-``/``anaem-``,
  ``-emia``/``-aemia``, ``anesth-``/``anaesth-``, ``pediatr-``/``paediatr-``, ``esophag-``/``oesophag-``,
  ``edem-``/``oedem-``, ``estr-``/``oestr-``, ``diarrhea``/``diarrhoea``, ``fet-``/``foet-``,
  ``tumor``/``tumour``, ``sulf-``/``sulph-``; all pairs at once, in each direction.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: (American pattern, British replacement) pairs, word-anchored so "chem" or "stopped" never change;
#: applied in both directions (the British pattern is the replacement with the group kept).
SPELLING_PAIRS: tuple[tuple[str, str], ...] = (
    (r"\bhem(?=[aoy])", "haem"),          # hemolytic, hematoma, hemorrhage
    (r"\banem", "anaem"),                 # anemia
    (r"(?<=[b-z])emia\b", "aemia"),       # leukemia, hypokalemia, ischemia
    (r"\banesth", "anaesth"),             # anesthesia
    (r"\bped(?=iatr)", "paed"),           # pediatric
    (r"\besophag", "oesophag"),
    (r"\bedem", "oedem"),
    (r"\bestr(?=[aoi])", "oestr"),        # estrogen, estradiol
    (r"diarrhea", "diarrhoea"),
    (r"\bfet(?=(?:al|us|o)\b)", "foet"),
    (r"\btumor", "tumour"),
    (r"sulf(?=[aiou])", "sulph"),          # sulfate, sulfonamide
)
#: Word endings that are singular already (Latin/Greek) and must not lose their final ``s``.
_SINGULAR_S = ("ss", "us", "is", "ous", "sis", "xis", "ics", "aids", "betes", "herpes", "abies", "aries", "ces")
_ALPHA_WORD = re.compile(r"^[a-z]+$")


def number_variants(surface: str) -> Iterator[str]:
    """Singular or plural of the last word of ``surface`` (lower case), by the rules of the module docstring.

    Parameters
    ----------
    surface : str
        A name such as ``"Seizures"`` or ``"convulsion"``.

    Yields
    ------
    str
        Zero or one variant, lower case (``"seizure"``, ``"convulsions"``).

    Examples
    --------
    >>> list(number_variants("Seizures")), list(number_variants("Convulsion")), list(number_variants("Sepsis"))
    (['seizure'], ['convulsions'], [])
    """
    low = surface.lower().strip()
    head, _, last = low.rpartition(" ")
    if len(last) < 4 or not _ALPHA_WORD.match(last):
        return
    prefix = f"{head} " if head else ""
    if last.endswith(_SINGULAR_S):
        return
    if last.endswith("ies") and len(last) > 4:
        yield prefix + last[:-3] + "y"
    elif last.endswith(("ses", "xes", "ches", "shes")) and not last.endswith("sses"):
        yield prefix + last[:-2]
    elif last.endswith("s"):
        if not last.endswith(_SINGULAR_S):
            yield prefix + last[:-1]
    elif last.endswith("y") and last[-2] not in "aeiou":
        yield prefix + last[:-1] + "ies"
    elif last.endswith(("x", "ch", "sh")):
        yield prefix + last + "es"
    elif not last.endswith(("ic", "al", "ed", "ing", "ive", "ar", "ary", "ous", "oid")):  # adjectives/verbs
        yield prefix + last + "s"


def spelling_variants(surface: str) -> Iterator[str]:
    """British <-> American spellings of ``surface`` (lower case): all pairs applied in one direction.

    Examples
    --------
    >>> list(spelling_variants("Hemolytic anemia")), list(spelling_variants("Haemolytic anaemia"))
    (['haemolytic anaemia'], ['hemolytic anemia'])
    """
    low = surface.lower()
    british, american = low, low
    if _ANY_US.search(low):
        for pattern, uk in _COMPILED:
            british = pattern.sub(uk, british)
    if _ANY_UK.search(low):
        for uk, us in _US_OF.items():
            american = american.replace(uk, us)
    for form in dict.fromkeys((british, american)):
        if form != low:
            yield form


#: British spelling -> American spelling of each pair (literal strings, for the reverse direction).
_US_OF: dict[str, str] = {
    "haem": "hem", "anaem": "anem", "aemia": "emia", "anaesth": "anesth", "paed": "ped", "oesophag": "esophag",
    "oedem": "edem", "oestr": "estr", "diarrhoea": "diarrhea", "foet": "fet", "tumour": "tumor", "sulph": "sulf",
}


_COMPILED: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), uk) for p, uk in SPELLING_PAIRS)
#: Cheap pre-checks: most surfaces contain no pattern at all.
_ANY_US = re.compile("|".join(p for p, _ in SPELLING_PAIRS))
_ANY_UK = re.compile("|".join(re.escape(uk) for uk in _US_OF))
