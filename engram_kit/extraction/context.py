"""Where a mention sits: the text zone of its sentence and the context cues the resolver scores with.

Two questions decide whether a dictionary match should become a graph link, beyond the string itself:

1. **Is the sentence running prose?** Author lists ("Smith JA, Hu DSH, Brown CGB"), affiliations and
   correspondence lines, reference-list entries, and figure/table cells (axis labels, atom or substrate
   labels such as "OAF", "FRK" in a column of numbers) are not statements about entities: initials and
   labels there match gene symbols by accident. :func:`text_zone` classifies a sentence into one of
   :data:`ZONES` from surface features only (no model), and only ``"prose"`` mentions are linked.
2. **What does the sentence talk about?** :func:`context_cues` returns which of :data:`CUES` the sentence
   (``adverse``) or the whole text (the others) shows. The resolver uses them as kind priors: a gene
   *synonym* ("API", "WRS") is only read as a gene when the text talks about genes or proteins, a brand
   name ("Redux") only when it talks about drugs, a one-word GO process ("memory", "learning") only when
   the sentence is biomedical, and a Side Effect reading only wins over a Disease reading when the
   sentence describes an adverse event (SIDER side effects are adverse drug events by construction:
   Kuhn et al., Nucleic Acids Res 2016).

Features of :func:`text_zone` (each one the textbook signature of a zone; thresholds checked by reading the
front matter, reference lists and tables of the four bundled PDFs and held-out PubMed abstracts):

* ``reference``: a year in parentheses or ``year;vol:pages`` / ``vol(issue):pages`` citation patterns, a DOI
  or URL, or ``et al.`` together with a year, and few verbs of prose (:data:`_PROSE_WORDS` share < 0.25);
* ``affiliation``: an e-mail address, or institution words (University, Department, Institute, Hospital,
  School of, Faculty, Centre/Center, Laboratory) with a postal pattern or at most one prose word in five,
  or correspondence words (Correspondence, Received, Accepted, Published, Copyright, ORCID);
* ``author``: two or more person-name patterns (``Surname AB``, ``A. B. Surname``, ``Firstname Surname``
  with commas/``and``) and a low share of lower-case words (< 0.3);
* ``table``: at most 35 % of the tokens are lower-case words of >= 3 letters while >= 30 % are numbers or
  short upper-case labels (a row of cells, not a sentence);
* ``prose`` otherwise.
"""

from __future__ import annotations

import re

#: Values of :func:`text_zone`; only ``"prose"`` mentions are linked.
ZONES: tuple[str, ...] = ("prose", "author", "affiliation", "reference", "table")
#: Values of :func:`context_cues`.
CUES: tuple[str, ...] = ("adverse", "gene", "drug", "biomedical", "setting")
#: Document-level cue set by :meth:`EntityExtractor.extract_many` (``same_document=True``): most occurrences
#: of this surface in the document classify a setting noun ("trauma patients", "trauma surgery"), so the
#: document uses the word for a kind of patient or service throughout (one sense per discourse: Gale, Church &
#: Yarowsky, "One sense per discourse", HLT 1992) and its Side Effect reading is refused everywhere in it.
SETTING_CUE = "setting"
#: Cues looked for in the whole text as well as in the sentence.
TEXT_WIDE_CUES: frozenset[str] = frozenset({"gene", "drug"})

_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
_URL_DOI = re.compile(r"\b(?:https?://|www\.|doi\s*:|doi\.org/|10\.\d{4,9}/)", re.IGNORECASE)
_YEAR_CITATION = re.compile(r"\(\s*(?:19|20)\d\d[a-z]?\s*\)|\b(?:19|20)\d\d[a-z]?\s*;\s*\d+|\b\d+\s*\(\d+\)\s*:\s*\d+|"
                            r"\b\d+\s*:\s*\d+\s*[-\u2013]\s*\d+")
_ET_AL = re.compile(r"\bet al\b\.?", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_INSTITUTION = re.compile(r"\b(?:University|Universit[éàä]t?|Department|Dept\.?|Institute|Institut|Hospital|"
                          r"School of|Faculty|Cent(?:re|er) for|College|Laboratory|Clinic of|Division of)\b")
#: Correspondence and publication lines (case-sensitive: "Received 3 May" heads a line, "received" is prose).
_CORRESPONDENCE = re.compile(r"\b(?:Correspondence|Corresponding author|ORCID|Academic Editor|Open Access|"
                             r"Creative Commons|Copyright|\u00a9)|^(?:Received|Accepted|Published|Revised)\b")
#: Person names as written in by-lines and reference lists: "Hu DSH", "Smith JA", "J. A. Smith", "Jane Smith".
_PERSON = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?\s+[A-Z]{1,3}\b(?![a-z])|\b(?:[A-Z]\.\s*){1,3}[A-Z][a-z]+\b|"
                     r"\b[A-Z][a-z]+\s+(?:[A-Z]\.\s*)?[A-Z][a-z]+(?=\s*(?:,|\band\b|\d|\*|$))")
_TOKEN = re.compile(r"[^\s,;()\[\]]+")
_LOWER_WORD = re.compile(r"^[a-z][a-z-]{2,}[.:]?$")
_NUMBER_OR_LABEL = re.compile(r"^(?:[-+\u2212]?\d[\d.,%]*|[A-Z0-9]{1,4}\d*|[\u00b1=<>])$")
#: Function words of English prose: their share separates sentences from lists of names and citations.
_PROSE_WORDS = frozenset("""the a an of in on with was were is are be been to for and by that this these from as at
which we our have has had not or than into after during between may can could would should showed
found""".split())

#: The cue patterns below are written in lower case and matched against the lower-cased text
#: (:func:`sentence_cues`, :func:`text_cues`): the same matches as ``re.IGNORECASE`` on the original text (no
#: difference in the mentions of the 6,537 shared and bundled abstracts) at a third to a fifth of the CPU time, as
#: a case-folding alternation of many words is a slow path of Python's ``re``. A non-ASCII letter is written in
#: each form IGNORECASE equates ("[µμ]g": the micro sign and the Greek mu).
_ADVERSE = re.compile(
    r"\b(?:adverse|side[- ]effects?|toxicit(?:y|ies)|toxic|cardiotoxic\w*|hepatotoxic\w*|nephrotoxic\w*|"
    r"neurotoxic\w*|ototoxic\w*|drug[- ]induced|overdose|poisoning|intoxication|hypersensitivity|"
    r"(?:adverse|allergic|drug|infusion|injection[- ]site) reactions?|withdrawal|complications? of (?:the )?"
    r"(?:treatment|therapy|drug)|safety|tolerability|caused by (?:the )?(?:drug|treatment|therapy|administration)|"
    r"\w+-(?:induced|associated|related) (?!apoptosis|cell|autophagy|signal\w*|expression|activation|"
    r"phosphorylation|proliferation|differentiation|release|secretion))".lower())
_GENE = re.compile(
    r"\b(?:genes?|genetic|proteins?|expression|expressed|mRNA|transcripts?|transcription(?:al)?|mutations?|"
    r"mutants?|polymorphisms?|variants?|alleles?|knock(?:ed)?[- ]?(?:out|down)|siRNA|receptors?|kinases?|"
    r"phosphorylat\w*|enzymes?|isoforms?|ligands?|antibod(?:y|ies)|signal(?:l)?ing|promoter|"
    r"encod\w*|upregulat\w*|downregulat\w*|up-regulat\w*|down-regulat\w*|"
    r"cytokines?|interleukins?|secret\w*|oncogenes?|loci|locus|"
    r"chromosom\w*|GWAS|SNPs?|amino acids?|residues?|immunohistochemi\w*|western blot)\b".lower())
_DRUG = re.compile(
    r"\b(?:drugs?|doses?|dosage|dosing|mg|[µμ]g|mcg|tablets?|capsules?|injections?|infusions?|administ\w*|"
    r"treat\w*|therap\w*|medications?|medicines?|prescri\w*|pharmac\w*|placebo|regimens?|agents?|"
    r"inhibitors?|antagonists?|agonists?|oral(?:ly)?|intravenous(?:ly)?|i\.v\.|trials?|patients?|"
    r"anticoagula\w*|prophyla\w*|compounds?|chemicals?)\b".lower())
_BIOMEDICAL = re.compile(
    r"\b(?:patients?|clinical|disease|diseases|disorders?|syndrome|cells?|neurons?|neuronal|brain|hippocamp\w*|"
    r"cortex|cortical|mice|mouse|rats?|animals?|tissues?|genes?|proteins?|blood|plasma|serum|cognitive|"
    r"cognition|impairment|deficits?|dementia|memory loss|synaptic|learning and memory|spatial|behavio(?:u)?ral|"
    r"physiolog\w*|patholog\w*|symptoms?|diagnos\w*|therap\w*|treatment|drugs?|infections?|immune|"
    r"metabolic|metabolism|receptors?|hormones?|in vivo|in vitro|subjects|participants|children|adults|"
    r"ELISA|immunoassays?|supernatants?|cytokines?|interleukins?|intracerebroventricular\w*|depressive|"
    r"antidepressant\w*|anxiolytic\w*)\b".lower())


def _tokens(sentence: str) -> list[str]:
    return _TOKEN.findall(sentence)


def _share(tokens: list[str], pattern: re.Pattern[str]) -> float:
    return sum(1 for t in tokens if pattern.match(t)) / len(tokens) if tokens else 0.0


def _prose_share(tokens: list[str]) -> float:
    return sum(1 for t in tokens if t.lower().strip(".:") in _PROSE_WORDS) / len(tokens) if tokens else 0.0


def text_zone(sentence: str) -> str:
    """Zone of one sentence (or line) of a document: one of :data:`ZONES`.

    Parameters
    ----------
    sentence : str
        A sentence as split by :func:`engram_kit.text.sentence_spans`, or any short text.

    Returns
    -------
    str
        ``"prose"``, ``"author"``, ``"affiliation"``, ``"reference"`` or ``"table"`` (rules in the module
        docstring). ``"prose"`` for an empty string.

    Examples
    --------
    >>> text_zone("Metformin lowers blood glucose in patients with type 2 diabetes.")
    'prose'
    >>> text_zone("Smith JA, Hu DSH, Brown CGB, Lee K and Zhao Y")
    'author'
    """
    tokens = _tokens(sentence)
    if not tokens:
        return "prose"
    prose = _prose_share(tokens)
    if ("@" in sentence and _EMAIL.search(sentence)) or _CORRESPONDENCE.search(sentence):
        return "affiliation"
    if _INSTITUTION.search(sentence) and (prose < 0.2 or re.search(r"\b\d{4,6}\b|,\s*[A-Z][a-z]+\s*$", sentence)):
        return "affiliation"
    # The cheap tests of each rule go first (prose share, counts), the regex scans only when they pass: most
    # sentences are prose and fail the first test of every rule.
    if prose < 0.25 and (_URL_DOI.search(sentence) or _YEAR_CITATION.search(sentence)
                         or (_ET_AL.search(sentence) and _YEAR.search(sentence))):
        persons = len(_PERSON.findall(sentence))
        if persons >= 1:
            return "reference"
    else:
        persons = -1
    if prose < 0.15:
        if persons < 0:
            persons = len(_PERSON.findall(sentence))
        if persons >= 2 and _share(tokens, _LOWER_WORD) < 0.3:
            return "author"
    if (prose < 0.1 and len(tokens) >= 3 and _share(tokens, _LOWER_WORD) <= 0.35
            and _share(tokens, _NUMBER_OR_LABEL) >= 0.3):
        return "table"
    return "prose"


def context_cues(sentence: str, text: str = "") -> frozenset[str]:
    """Which of :data:`CUES` a mention's context shows.

    Parameters
    ----------
    sentence : str
        The mention's sentence: decides ``adverse`` and ``biomedical``.
    text : str
        The whole passage or abstract (may be ``""``): ``gene`` and ``drug`` are looked for in the sentence
        and in this text, since a paper about a gene rarely repeats "gene" in every sentence.

    Returns
    -------
    frozenset of str
    """
    return sentence_cues(sentence) | text_cues(f"{sentence}\n{text}" if text else sentence)


def sentence_cues(sentence: str) -> frozenset[str]:
    """The cues decided by the sentence alone: ``adverse`` and ``biomedical`` (see :func:`context_cues`)."""
    low = sentence.lower()
    cues = set()
    if _ADVERSE.search(low):
        cues.add("adverse")
    if _BIOMEDICAL.search(low):
        cues.add("biomedical")
    return frozenset(cues)


def text_cues(text: str, *, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    """The cues of :data:`TEXT_WIDE_CUES` (``gene``, ``drug``) that ``text`` shows; those in ``skip`` are not
    looked for (a caller that already found them in the enclosing text)."""
    low = text.lower()
    cues = set()
    if "gene" not in skip and _GENE.search(low):
        cues.add("gene")
    if "drug" not in skip and _DRUG.search(low):
        cues.add("drug")
    return frozenset(cues)
