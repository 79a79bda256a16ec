"""The support rule: when does a quoted sentence support an answer?

One rule for every composer (extractive, LLM-checked, agents): a sentence supports an answer to a question
when it names a question entity (or one of its synonyms) **and** names an answer item (or its synonym) or
words the relation the question asks about. A sentence that only restates the topic is background; one
that names neither is not relevant. Names are matched as whole words, case-insensitively, plural ``s``
allowed (:func:`names_term`), so ``"brain"`` is not named by ``"forebrain"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["names_any", "names_term", "sentence_supports"]


def names_term(sentence: str, term: str) -> bool:
    """Whether ``sentence`` names ``term`` as a whole word or its plural, case-insensitively (``"statin"`` is
    named by ``"statins"``; ``"TF"`` is not named by ``"outfit"``, nor ``"brain"`` by ``"forebrain"``); an
    empty term is never named."""
    return bool(term) and re.search(rf"(?<!\w){re.escape(term)}(e?s)?(?!\w)", sentence, re.IGNORECASE) is not None


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
