"""Surface-form variants added to the lexicon: number, British/American spelling, Greek letters,
possessives and the protein-name case convention.

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
* **Greek letters** (:func:`greek_variants`, all kinds): a spelled letter joined to a name by a hyphen or a
  space, or at its end ("IFN-gamma", "TNF alpha", "TGF-beta1") gets the Greek-letter form ("IFN-γ",
  "IFNγ"), and the Greek form gets the spelled one; a Greek letter after a hyphen also gets its Latin
  look-alike of Symbol-font PDFs ("IFN-g", "TNF-a", "TGF-b": the Symbol font maps γ to the byte of "g", and
  text extraction without the font's ToUnicode table yields "g"). :func:`~engram_kit.extraction.normalize.normalize_name`
  spells Greek letters out, so "IFN-γ" and "IFN-gamma" are one lexicon key.
* **Possessives** (:func:`possessive_variants`): "Alzheimer's disease" also as "Alzheimers disease" (the
  apostrophe dropped, the ``s`` kept: the form written by people and in WikiPathways names); the form
  without ``'s`` is already the same key.
* **Protein case** (:func:`protein_case_variants`, genes): a gene alias ``P<digits>`` ("P21", "P53") also as
  ``p<digits>``, the way the protein is written (HGNC/UniProt convention: a lower-case ``p`` and the
  molecular mass in kDa).
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


#: Greek letter -> spelled name (the letters of biomedical names; lower case; the micro sign is mu after NFKC).
GREEK_LETTERS: dict[str, str] = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu",
    "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau",
    "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
}
#: Spelled name -> Greek letter.
_GREEK_OF: dict[str, str] = {v: k for k, v in GREEK_LETTERS.items()}
#: Greek letters whose Symbol-font byte is a Latin letter (α a, β b, γ g, δ d, κ k): the look-alikes
#: of PDF text extraction; only these five, the ones of protein names (TNF-a, TGF-b, IFN-g, PKC-d, NF-kB).
SYMBOL_FONT_LATIN: dict[str, str] = {"α": "a", "β": "b", "γ": "g", "δ": "d", "κ": "k"}
#: A spelled Greek letter as a word or a word suffix after a hyphen/space ("IFN-gamma", "TGF-beta1",
#: "NF-kappaB", "interferon gamma").
_SPELLED = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(_GREEK_OF, key=len, reverse=True)) + r")(?=\d|[A-Za-z]?\b)",
                      re.IGNORECASE)
#: A Greek letter of :data:`SYMBOL_FONT_LATIN` after a hyphen, ending the word or before a digit/capital.
_SYMBOL_SLOT = re.compile(r"(?<=-)([" + "".join(SYMBOL_FONT_LATIN) + r"])(?=\d|[A-Z]?\b|$)")
_GREEK_CHAR = re.compile("[" + "".join(GREEK_LETTERS) + "]")


def greek_variants(surface: str) -> Iterator[str]:
    """Greek-letter, spelled and Symbol-font forms of ``surface`` (rules of the module docstring).

    Examples
    --------
    >>> sorted(greek_variants("IFN-gamma"))
    ['IFN-g', 'IFN-γ', 'IFNγ']
    >>> sorted(greek_variants("TNF-α"))
    ['TNF-a', 'TNF-alpha']
    """
    out: list[str] = []
    if _SPELLED.search(surface):
        greek = _SPELLED.sub(lambda m: _GREEK_OF[m.group(1).lower()], surface)
        out += [greek, re.sub(r"(?<=[A-Za-z0-9])[- ](?=[" + "".join(GREEK_LETTERS) + "])", "", greek)]
    if _GREEK_CHAR.search(surface):
        greek = surface
    elif out:
        greek = out[0]
    else:
        greek = ""
    if greek:
        if _GREEK_CHAR.search(surface):
            out.append(_GREEK_CHAR.sub(lambda m: GREEK_LETTERS[m.group(0)], surface))
        latin = _SYMBOL_SLOT.sub(lambda m: SYMBOL_FONT_LATIN[m.group(1)], greek)
        if latin != greek and not _GREEK_CHAR.search(latin):
            out.append(latin)
    for form in dict.fromkeys(out):
        if form != surface:
            yield form


#: Latin suffix letter of a gene symbol -> the Greek letter it stands for (HGNC convention: IFNG is
#: interferon gamma, TGFB1 transforming growth factor beta 1, HIF1A hypoxia-inducible factor 1 alpha).
_SYMBOL_GREEK: dict[str, str] = {"A": "\u03b1", "B": "\u03b2", "G": "\u03b3", "D": "\u03b4", "K": "\u03ba"}
_GREEK_SUFFIX_SYMBOL = re.compile(r"^([A-Z]{2,5})(\d{0,2})([ABGDK])(\d?)$")


def symbol_greek_variants(symbol: str) -> Iterator[str]:
    """Protein-style forms of an official gene symbol whose last letter stands for a Greek letter.

    ``IFNG`` -> ``IFN-\u03b3``, ``IFN\u03b3``, ``IFN-gamma``, ``IFN-g``; ``IL1B`` -> ``IL-1\u03b2``, ``IL1\u03b2``, ``IL-1beta``...;
    ``TGFB1`` -> ``TGF-\u03b21``... (the way papers write the protein). Symbols of another shape yield nothing.

    Examples
    --------
    >>> "IFN-\u03b3" in set(symbol_greek_variants("IFNG")), "IL-1\u03b2" in set(symbol_greek_variants("IL1B"))
    (True, True)
    """
    match = _GREEK_SUFFIX_SYMBOL.match(symbol)
    if match is None:
        return
    stem, number, letter, tail = match.groups()
    greek = _SYMBOL_GREEK[letter]
    forms = [f"{stem}{number}-{greek}{tail}", f"{stem}{number}{greek}{tail}"]
    if number:
        forms.append(f"{stem}-{number}{greek}{tail}")
    out = list(forms)
    for form in forms:
        out.extend(greek_variants(form))
    yield from (f for f in dict.fromkeys(out) if f != symbol)


#: Vessel nouns and their adjectives in multi-word disease names ("deep vein thrombosis" / "deep venous
#: thrombosis", "artery occlusion" / "arterial occlusion"): the two forms are used interchangeably (MeSH lists
#: both as entry terms of Venous Thrombosis), so each is a variant of the other.
ADJECTIVE_PAIRS: tuple[tuple[str, str], ...] = (("vein", "venous"), ("artery", "arterial"))


def adjective_variants(surface: str) -> Iterator[str]:
    """Noun <-> adjective forms (:data:`ADJECTIVE_PAIRS`) of a multi-word name, lower case.

    Examples
    --------
    >>> list(adjective_variants("Deep vein thrombosis"))
    ['deep venous thrombosis']
    """
    low = surface.lower()
    words = low.split()
    if len(words) < 2:
        return
    for noun, adjective in ADJECTIVE_PAIRS:
        for a, b in ((noun, adjective), (adjective, noun)):
            if a in words:
                yield " ".join(b if w == a else w for w in words)


def possessive_variants(surface: str) -> Iterator[str]:
    """``"Alzheimer's disease"`` -> ``"Alzheimers disease"`` (straight or curly apostrophe)."""
    dropped = re.sub(r"(?<=\w)['\u2019]s\b", "s", surface)
    if dropped != surface:
        yield dropped


def protein_case_variants(surface: str) -> Iterator[str]:
    """``"P21"`` -> ``"p21"``: a gene alias ``P`` + digits (+ an optional letter) in protein case."""
    if re.fullmatch(r"P\d{2,3}[A-Z]?", surface):
        yield "p" + surface[1:]


#: British spelling -> American spelling of each pair (literal strings, for the reverse direction).
_US_OF: dict[str, str] = {
    "haem": "hem", "anaem": "anem", "aemia": "emia", "anaesth": "anesth", "paed": "ped", "oesophag": "esophag",
    "oedem": "edem", "oestr": "estr", "diarrhoea": "diarrhea", "foet": "fet", "tumour": "tumor", "sulph": "sulf",
}


_COMPILED: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), uk) for p, uk in SPELLING_PAIRS)
#: Cheap pre-checks: most surfaces contain no pattern at all.
_ANY_US = re.compile("|".join(p for p, _ in SPELLING_PAIRS))
_ANY_UK = re.compile("|".join(re.escape(uk) for uk in _US_OF))
