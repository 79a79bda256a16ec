"""Dictionary matching of lexicon surface forms in text with an Aho-Corasick automaton.

The gazetteer finds every lexicon surface form in a text in one pass (pyahocorasick; Aho & Corasick,
CACM 1975) and keeps the leftmost-longest, non-overlapping matches. "Alzheimer's disease" is one mention,
not "disease" inside it. Each :class:`~engram_kit.extraction.mention.Mention` keeps **all** the nodes its
surface denotes.

Matching rules
--------------
* **Word boundaries.** Text and keys are put in a matching form (lower case, every run of
  non-alphanumeric characters -> one space; an offset table maps each word back to the text) and keys
  are padded with a space on both sides, so a match always starts and ends at a word boundary: "TNF"
  matches in "anti-TNF" but "cat" never matches inside "catalase". Punctuation inside a name is loose:
  "IL-6" also matches "IL 6", and "Graves' disease" matches "Graves' disease" and "Graves disease".
* **Typed vocabulary.** Terms of :attr:`Lexicon.vocabulary` (Disease Ontology, DrugBank and MeSH terms
  without a Hetionet node) are keys too; a match on one gives a mention without candidates whose
  ``label`` is the term's type ("Chemical", "Disease"). Where the same key also names Hetionet nodes,
  the mention has those candidates and the label.
* **Possessives.** A surface with ``'s`` ("Alzheimer's disease") also gets a key without it, so the text
  "Alzheimer disease" matches too.
* **Case.** Multi-word names and synonyms match case-insensitively. A single-token surface is matched
  with a case rule depending on what it is:

  - ``gene``: single-token official gene symbols (the Hetionet name of a Gene node) match
    case-sensitively ("SET" but not "set"), or with another case when the text span looks like a symbol
    itself (at least two upper-case letters and no more lower- than upper-case ones: "AChE" matches the
    symbol ACHE, "ChAT" matches CHAT, "Set" does not match SET);
  - ``gene-synonym``: single-token gene synonyms match case-sensitively only ("ACh", acetylcholine, does
    not match ACH, a synonym of FGFR3);
  - ``acronym``: other single tokens of at most 5 characters with two or more capitals ("AIDS", "COPD",
    "IgG") match case-sensitively;
  - ``word``: other single tokens ("metformin", "Glucophage", "Ache") match in lower case, title case, as
    written, or in all capitals when at least 6 characters long ("HYPERTENSION" in a capitalised title),
    so the side effect "Ache" does not match the enzyme abbreviation "AChE" or "ACHE". A token with
    inner punctuation is also checked part by part, each part as written, lower or title case: "L-dopa"
    matches the compound name "L-DOPA".
* **Length.** Keys of fewer than 2 characters, or without a letter, are skipped. Two-character keys
  are kept only for official gene symbols (the Hetionet name of a Gene node, "AR", "TH"), matched by the
  ``gene`` rule.
* **Stoplists.** A key that is an English stop word (spaCy's ``STOP_WORDS`` union scikit-learn's
  ``ENGLISH_STOP_WORDS``, 353 words) is never a gazetteer key ("was", "can", "she"). For gene symbols and
  synonyms :data:`GENE_STOPLIST` adds English words that are gene symbols (CAT, SET, MAX, ...) and common
  biomedical abbreviations that are gene synonyms (CI confidence interval, HR hazard ratio, MRI, ...).
  Gene synonyms written as all-lower-case words ("armadillo", "jerky", "slim") are skipped as well: no
  full English dictionary ships with the dependencies, and these are mostly fly-gene-style words.
  Single tokens of other kinds are checked against :data:`CURATED_WORD_STOPLIST` (DrugBank brand
  names that are English words such as "Care" or "Equal", and generic names such as the pathway
  "Disease"), built by reading the most frequent lower-case hits in the 6,107 shared PubMed abstracts.
  Surfaces of other kinds whose key is in :attr:`Lexicon.text_stoplist` (terms learned from the BC5CDR
  training split to be almost never a chemical or disease mention: "surgery", "role", "syndrome") are
  skipped too. None of this removes anything from the lexicon: the resolver still finds "MET" or
  "cofilin" when asked.

Known limits: ``ACE`` is kept (angiotensin-converting enzyme is by far its usual meaning in abstracts and
the case rule already rejects "ace"); ``MET`` and ``REST`` are stoplisted as the brief of the project
asks, so the genes MET and REST are only found through abbreviations, NER or the resolver.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable

import ahocorasick

from engram_kit.extraction.lexicon import Lexicon, LexiconEntry
from engram_kit.extraction.mention import Mention
from engram_kit.extraction.normalize import lower_same_length, match_key, match_text, normalize_name
from engram_kit.extraction.stopwords import ENGLISH_STOPWORDS  # a frozen copy: neither spaCy nor sklearn imported

log = logging.getLogger(__name__)


#: Curated, lower case. Gene symbols/synonyms that are English words, and biomedical abbreviations that
#: are gene synonyms in NCBI Gene but usually mean something else in an abstract. Checked against the
#: gene surfaces of Hetionet v1.0 + dhimmel/entrez-gene (each entry below is one of them or a plausible one).
CURATED_GENE_STOPLIST: frozenset[str] = frozenset(
    """
    all aim max camp set cat impact she he was can fat tank gap met rest cell top map not and
    clock cap caps card core dock elf era gem hand help hip large mark mask net pal pig pigs
    ring sex spring star tap ten time war wars wave wise coil crop kid mass mice rat rats
    bad best big cage cut damage dark death fish fit fog gain ham hit host hot lamp lag mad
    man mars mom nice pan pen plan ray rim rod sat sky soft spin stop tall tau wasp wing
    ci hr sd pc ct mri atp iv ii iii ros er uk rt ms als hd cad mi copd icd se lps csf cr pr os
    dm bp pd ad hiv dna rna pcr elisa ecg eeg bmi icu cns gc hp cs si tg fh cp kd ph ca
    """.split()
)

#: Everything a gene surface is checked against (lower case): English stop words + the curated list.
GENE_STOPLIST: frozenset[str] = ENGLISH_STOPWORDS | CURATED_GENE_STOPLIST

#: Curated, lower case. Single-token surfaces of other kinds that are ordinary words in an abstract:
#: DrugBank brand names and synonyms that are English words ("Care", "Equal", "Body", "Success"), found by
#: matching all DrugBank aliases of Hetionet compounds against the 6,107 shared PubMed abstracts and
#: reading every lower-case hit seen at least twice; plus generic Hetionet names that are not useful
#: entities in running text (the Pathway Commons pathways "Disease", "Metabolism", "Transcription"; the
#: side effects "Fall" and "Mass", mostly a verb and a physical quantity in abstracts).
CURATED_WORD_STOPLIST: frozenset[str] = frozenset(
    """
    care muscle body better advanced prevent solution hand regimen fast equal mucosa uterine success
    analgesic band anesthetic perform gradient antimicrobial allergy easy antibacterial cough allergen
    luminal alert acne nodular antifungal awake pin renewal ice dilate comfort modal antimigraine
    antiseptic fleet princeps pain-relieving acid-relief
    fall falls mass
    disease diseases metabolism transcription translation development transport signaling signalling
    """.split()
)

#: Case rules of a gazetteer entry (see the module docstring).
CASE_RULES: tuple[str, ...] = ("phrase", "word", "acronym", "gene", "gene-synonym")

#: One automaton entry: (case rule, surface in case-preserving matching form, node id, kind); a typed
#: vocabulary term has node id ``""`` and its label as kind.
_Target = tuple[str, str, str, str]
#: ``LexiconEntry.source`` given to typed vocabulary terms when their case rule is computed.
VOCABULARY_SOURCE = "vocabulary"
#: A word of the matching form: a maximal run of letters and digits.
_WORD = re.compile(r"[^ ]+")


def _uppercase_count(text: str) -> int:
    return sum(1 for c in text if c.isupper())


def case_rule(entry: LexiconEntry) -> str | None:
    """Case rule of a lexicon entry for the gazetteer, or None when the entry is not matched in text.

    Parameters
    ----------
    entry : LexiconEntry

    Returns
    -------
    str or None
        One of :data:`CASE_RULES`; None when the surface is too short, a stop word, stoplisted (genes) or
        an all-lower-case gene synonym.
    """
    surface = entry.surface.strip()
    key = match_key(surface)
    compact = key.replace(" ", "")
    if len(compact) < 2 or not any(c.isalpha() for c in compact) or key in ENGLISH_STOPWORDS:
        return None
    single = not any(c.isspace() for c in surface)
    if len(compact) == 2 and not (entry.kind == "Gene" and entry.source == "name" and single):
        return None
    if entry.kind == "Gene" and single:
        if key in GENE_STOPLIST or key.replace(" ", "-") in GENE_STOPLIST:
            return None
        if entry.source == "gene-name":  # "insulin": an everyday word, matched as one (the link policy decides)
            return "word"
        if entry.source != "name":
            return None if surface.isalpha() and surface.islower() else "gene-synonym"
        return "gene"
    if not single:
        return "phrase"
    if key in CURATED_WORD_STOPLIST or key.replace(" ", "-") in CURATED_WORD_STOPLIST:
        return None
    if len(surface) <= 5 and _uppercase_count(surface) >= 2:
        return "acronym"
    return "word"


def _word_tokens_ok(case_form: str, span: str) -> bool:
    """Token-wise case check of a punctuated single token ("L-dopa" for "L-DOPA"): each token of the span
    is as written in the surface, lower case, or title case (a lone upper-case letter counts as title)."""
    tokens, expected = span.split(" "), case_form.split(" ")
    if len(tokens) != len(expected) or len(tokens) < 2:
        return False
    return all(t == e or t.islower() or t.istitle() for t, e in zip(tokens, expected))


def _case_ok(rule: str, case_form: str, span: str) -> bool:
    """Whether a text span (case-preserving matching form) may match an entry with this rule."""
    if rule == "phrase" or span == case_form:
        return True
    if rule == "acronym":
        return False
    if rule == "gene":  # another case: official symbols only, and only if the span looks like a symbol
        upper = _uppercase_count(span)
        return upper >= 2 and upper >= sum(1 for c in span if c.islower())
    if rule == "gene-synonym":
        return False
    # word
    return (span.islower() or span.istitle() or (span.isupper() and len(span) >= 6)
            or _word_tokens_ok(case_form, span))


class Gazetteer:
    """Aho-Corasick matcher over the surface forms of a :class:`Lexicon`.

    Parameters
    ----------
    lexicon : Lexicon
        The surfaces to find; every entry passes :func:`case_rule` first.

    Attributes
    ----------
    n_keys : int
        Number of distinct automaton keys.
    build_seconds : float
        Wall time of the construction.
    """

    def __init__(self, lexicon: Lexicon) -> None:
        started = time.perf_counter()
        grouped: dict[str, list[_Target]] = {}
        vocabulary = [LexiconEntry(surface, "", label, VOCABULARY_SOURCE)
                      for surface, label in (v[::-1] for v in lexicon.vocabulary.values())]
        stoplist = lexicon.text_stoplist
        for entry in (*(e for _, e in lexicon.entries()), *vocabulary):
            rule = case_rule(entry)
            if rule is None or (entry.kind != "Gene" and normalize_name(entry.surface) in stoplist):
                continue
            for surface in self._variants(entry.surface.strip()):
                key = match_key(surface)
                if len(key) < 2:
                    continue
                target = (rule, match_key(surface, lower=False), entry.node_id, entry.kind)
                group = grouped.setdefault(key, [])
                if target not in group:
                    group.append(target)
        self._automaton = ahocorasick.Automaton()
        self._groups: list[tuple[_Target, ...]] = []
        for key, group in grouped.items():
            padded = f" {key} "
            self._automaton.add_word(padded, (len(padded), len(self._groups)))
            self._groups.append(tuple(sorted(group, key=lambda t: t[2] == "")))  # Hetionet targets first
        self._automaton.make_automaton()
        self.n_keys = len(self._groups)
        self.build_seconds = time.perf_counter() - started
        log.info("gazetteer built: %d keys in %.2f s", self.n_keys, self.build_seconds)

    @staticmethod
    def _variants(surface: str) -> Iterable[str]:
        """The surface, plus its form without possessive ``'s`` when it has one."""
        yield surface
        for apostrophe in ("'s ", "\u2019s "):
            if apostrophe in f"{surface} ":
                yield f"{surface} ".replace(apostrophe, " ").strip()

    def find(self, text: str) -> list[Mention]:
        """Leftmost-longest, non-overlapping lexicon matches in ``text``.

        Parameters
        ----------
        text : str

        Returns
        -------
        list of Mention
            Sorted by ``start``; ``method="gazetteer"``; candidates in source order (names first), each
            node once; ``label`` set for typed-vocabulary matches (candidates may then be empty).
        """
        if not text:
            return []
        words = [(m.start(), m.end()) for m in _WORD.finditer(match_text(text))]
        if not words:
            return []
        lowered_text = lower_same_length(text)
        # collapsed matching form " w1 w2 ... wn ": word i starts at offsets[i] (1 + sum of previous lengths)
        pieces = [lowered_text[a:b] for a, b in words]
        collapsed = " " + " ".join(pieces) + " "
        word_at: dict[int, int] = {}
        end_at: dict[int, int] = {}
        position = 1
        for index, piece in enumerate(pieces):
            word_at[position] = index
            end_at[position + len(piece)] = index
            position += len(piece) + 1
        hits: list[tuple[int, int, tuple[str, ...], tuple[str, ...], str]] = []
        for last, (length, group) in self._automaton.iter(collapsed):
            first_word = word_at[last - length + 2]
            last_word = end_at[last]
            start, end = words[first_word][0], words[last_word][1]
            span = " ".join(text[a:b] for a, b in words[first_word:last_word + 1])
            nodes: list[str] = []
            kinds: list[str] = []
            label = ""
            for rule, case_form, node_id, kind in self._groups[group]:
                if not _case_ok(rule, case_form, span):
                    continue
                if not node_id:
                    label = label or kind
                elif node_id not in nodes:
                    nodes.append(node_id)
                    kinds.append(kind)
            if nodes or label:
                hits.append((start, end, tuple(nodes), tuple(kinds), label))
        hits.sort(key=lambda h: (h[0], -h[1]))
        mentions: list[Mention] = []
        last_end = -1
        for start, end, nodes_t, kinds_t, label in hits:
            if start >= last_end:
                mentions.append(Mention(text[start:end], start, end, nodes_t, kinds_t, "gazetteer", label=label))
                last_end = end
        return mentions
