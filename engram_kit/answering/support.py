"""The support rule: when does a quoted sentence support an answer?

One rule for every composer (extractive, LLM-checked, agents): a sentence supports an answer to a question
when it names a question entity (or one of its synonyms) **and** names an answer item (or its synonym) or
words the relation the question asks about. A sentence that only restates the topic is background; one
that names neither is not relevant. Names are matched as whole words, case-insensitively, plural ``s``
allowed (:func:`names_term`), so ``"brain"`` is not named by ``"forebrain"``.

With several question entities (:func:`supports_answer`), a sentence naming two of them also supports: a
yes/no or "how does X affect Y" question asks about the relation between its entities, which such a sentence
states. Synonyms include the short forms a passage defines for a question term (:func:`defined_short_forms`:
"green tea leaf extract (GTLE)" makes ``GTLE`` name green tea in that passage).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

__all__ = ["defined_short_forms", "keyword_patterns", "names_any", "names_term", "sentence_supports",
           "supports_answer"]


def names_term(sentence: str, term: str) -> bool:
    """Whether ``sentence`` names ``term`` as a whole word or its plural, case-insensitively (``"statin"`` is
    named by ``"statins"``; ``"TF"`` is not named by ``"outfit"``, nor ``"brain"`` by ``"forebrain"``); an
    empty term is never named. An eponym's possessive is optional ("Alzheimer's disease" names "Alzheimer
    disease")."""
    if not term:
        return False
    if sentence.isascii() and term.isascii():  # in ASCII, a case-insensitive literal match is a substring match
        lowered, parts = sentence.lower(), _term_parts(term)
        if not all(part in lowered for part in parts):
            return False
        if len(parts) == 1:  # no possessive: the pattern's test by hand (compiling it per term cost 1-2 s an answer)
            return _ascii_names(lowered, parts[0])
    return _term_regex(term).search(sentence) is not None


def _is_word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def _ascii_names(lowered: str, term: str) -> bool:
    """``(?<!\\w)term(e?s)?(?!\\w)`` on lower-case ASCII text, without a regex."""
    at = lowered.find(term)
    while at != -1:
        if not _is_word_char(lowered, at - 1):
            end = at + len(term)
            for suffix in ("es", "s", ""):
                if lowered.startswith(suffix, end) and not _is_word_char(lowered, end + len(suffix)):
                    return True
        at = lowered.find(term, at + 1)
    return False


@lru_cache(maxsize=65_536)
def _term_parts(term: str) -> tuple[str, ...]:
    """The literal parts of :func:`_term_pattern` (lower case): the term split at its possessives."""
    return tuple(part.lower() for part in re.split(r"['\u2019]s\b", term))


@lru_cache(maxsize=65_536)
def _term_regex(term: str) -> re.Pattern[str]:
    """The compiled whole-word regex of :func:`names_term`, kept per term: one answer tests some 9,000
    (sentence, term) pairs over about 1,500 distinct terms, more than ``re``'s own cache of 512 patterns holds, so
    without this every test compiled its pattern again (0.9 of 3.0 s of a warm compose, issue 30)."""
    return re.compile(rf"(?<!\w){_term_pattern(term)}(e?s)?(?!\w)", re.IGNORECASE)


def _term_pattern(term: str) -> str:
    """The regex of ``term``: literal, except that an eponym's possessive is optional and any apostrophe counts
    ("Alzheimer's disease" names "Alzheimer disease" and "Alzheimers disease": the nomenclature dropped the
    possessive, and papers use both)."""
    return r"(?:['\u2019]?s)?".join(re.escape(part) for part in re.split(r"['\u2019]s\b", term))


def names_any(sentence: str, terms: Iterable[str]) -> bool:
    """Whether ``sentence`` names at least one of ``terms`` (:func:`names_term`)."""
    return any(names_term(sentence, t) for t in terms)


def sentence_supports(sentence: str, question_terms: Sequence[str], answer_terms: Sequence[str] = (),
                      relation_patterns: Sequence[str] = ()) -> bool:
    """Whether ``sentence`` supports an answer (see module docstring).

    Parameters
    ----------
    sentence : the quoted sentence.
    question_terms : names and synonyms of the question's entities; with none, the rule needs only the
        answer item or the relation (a question with no resolved entity).
    answer_terms : names and synonyms of the answer items (empty for yes/no and summary questions).
    relation_patterns : regular expressions wording the asked relation (``r"\\btreat"``), case-insensitive.

    Returns True when a question term is named (or there are none) and an answer term is named or a
    relation pattern matches; False otherwise (also when there is neither an answer term nor a relation).
    """
    if question_terms and not names_any(sentence, question_terms):
        return False
    if names_any(sentence, answer_terms):
        return True
    return any(re.search(p, sentence, re.IGNORECASE) for p in relation_patterns)


def supports_answer(sentence: str, question_groups: Sequence[Sequence[str]], answer_terms: Sequence[str] = (),
                    relation_patterns: Sequence[str] = ()) -> bool:
    """:func:`sentence_supports` with the question's entities kept apart: ``question_groups`` holds one list of
    names/synonyms per question entity.

    * An answer item with a question entity (any group) supports, as in :func:`sentence_supports`.
    * Two different question entities named together support: the sentence states how the question's own
      entities relate (a yes/no or "how does X affect Y" question asks just that).
    * The asked relation with one question entity supports only when the question has one entity: with two
      ("Does green tea protect against aluminium neurotoxicity?"), "glutamate fails to protect against
      neurotoxicity" names one of them and the relation, and is background, not an answer.

    With no group (no entity resolved), an answer item, or two of the relation patterns (the question's own
    content words, :func:`keyword_patterns`, stand for the entity and the relation)."""
    terms = [t for group in question_groups for t in group]
    if not terms:  # no entity: two of the question's own words stand for an entity and the relation
        if names_any(sentence, answer_terms):
            return True
        return sum(1 for p in relation_patterns if re.search(p, sentence, re.IGNORECASE)) >= 2
    named = sum(1 for group in question_groups if names_any(sentence, group))
    if named == 0:
        return False
    if named >= 2 or names_any(sentence, answer_terms):
        return True
    return len([g for g in question_groups if g]) == 1 and sentence_supports(sentence, terms, (), relation_patterns)


#: "long form (SHORT)": a parenthesised short form of 2-10 characters with a capital letter or digit, after
#: the words it abbreviates (Schwartz & Hearst 2003 look for the long form in the words before the bracket).
_SHORT_FORM = re.compile(r"([^()]{3,120}?)\s*\(\s*([A-Za-z0-9][A-Za-z0-9\-]{0,8}[A-Za-z0-9]?)\s*\)")


def defined_short_forms(text: str, terms: Iterable[str]) -> list[str]:
    """Short forms that ``text`` defines for one of ``terms``: in ``"... green tea leaf extract (GTLE) ..."`` the
    long form before the bracket names ``"green tea"`` (:func:`names_term`), so ``"GTLE"`` is returned. The long
    form is the last 1-6 words before the bracket; a short form with no capital letter or digit (an ordinary
    word in brackets) is not one."""
    out: list[str] = []
    wanted = [t for t in terms if t]
    for match in _SHORT_FORM.finditer(text):
        short = match.group(2)
        if not any(c.isupper() or c.isdigit() for c in short) or short in out:
            continue
        long_form = " ".join(match.group(1).split()[-6:])
        if any(names_term(long_form, t) for t in wanted) and not any(names_term(short, t) for t in wanted):
            out.append(short)
    return out


def keyword_patterns(words: Iterable[str]) -> list[str]:
    """Regexes for question words as the relation the question asks in its own words (``"protect"`` also
    matches "protective", "protection"; ``"reduce"`` matches "reduces", "reduction"): the word less a final
    ``s``/``es``/``ed``/``ing``/``e``, then any word characters."""
    out = []
    for word in words:
        stem = re.sub(r"(ing|ed|es|e|s)$", "", word.lower()) if len(word) > 5 else word.lower()
        if len(stem) >= 4:
            out.append(rf"\b{re.escape(stem)}\w*")
    return list(dict.fromkeys(out))
