"""The answer structure every answering path shares: question type, exact items, yes/no and the headline.

The extractive composer, the LLM composer (:mod:`engram_kit.answering.llm`), the synthesis agent and the
evidence desk all state their answer the same way (:class:`~engram_kit.answering.types.Answer` fields
``question_type``, ``exact``, ``yes_no``, ``headline``), each from its own evidence. This module holds the
pieces they share:

* :func:`detect_question_type` -- the question's type from the offline detector
  (:func:`engram_kit.answering.qtype.question_type`, :data:`QUESTION_TYPE_DETECTOR`), the same for every path.
* :func:`question_terms`, :func:`defined_abbreviations`, :func:`relation_patterns` -- the inputs of the shared support
  rule (:func:`~engram_kit.answering.support.sentence_supports`) for a question's resolved entities.
* :func:`headline` -- the first line a reader sees: the names, or yes / no / undecided, or why there is none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from engram_kit.answering.intent import RELATION_WORDS, parse_intent
from engram_kit.answering.qtype import question_type
from engram_kit.answering.types import ExactAnswer, QuestionType, YesNo
from engram_kit.kg.schema import GraphSchema
from engram_kit.retrieval.results import ResolvedEntity

__all__ = ["QUESTION_TYPE_DETECTOR", "defined_abbreviations", "detect_question_type", "headline",
           "question_terms", "relation_patterns"]

#: The detector every answering path calls (:func:`detect_question_type`): the offline detector of
#: :mod:`engram_kit.answering.qtype`, the one the extractive composer uses, so every path types a question alike.
QUESTION_TYPE_DETECTOR: Callable[[str], QuestionType] = question_type


def detect_question_type(question: str) -> QuestionType:
    """The question's type, ``"yesno" | "factoid" | "list" | "summary"``, from :data:`QUESTION_TYPE_DETECTOR`.

    Examples
    --------
    >>> [detect_question_type(q) for q in ("Does metformin treat type 2 diabetes?", "Which genes does BACE1 bind?",
    ...  "Which gene is mutated in cystic fibrosis?", "How does TREM2 affect microglia?")]
    ['yesno', 'list', 'factoid', 'summary']
    """
    return QUESTION_TYPE_DETECTOR(question)


def question_terms(entities: Sequence[ResolvedEntity]) -> list[str]:
    """Names of the question's entities a supporting sentence may use: each entity's mention in the question
    and its graph name (distinct, in entity order)."""
    return list(dict.fromkeys(t for e in entities for t in (e.mention, e.name) if t))


def defined_abbreviations(terms: Sequence[str], texts: Sequence[str]) -> list[str]:
    """Abbreviations the ``texts`` define for ``terms``: ``"Parkinson's disease (PD)"`` defines ``PD`` (the
    long-form-then-parenthesis pattern of Schwartz & Hearst, PSB 2003, restricted to a known long form). A
    supporting sentence may name a question entity by such an abbreviation ("approved for treatment of PD")."""
    found: list[str] = []
    for term in terms:
        if len(term) < 4:
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(term)}\s*\(\s*([A-Za-z][A-Za-z0-9-]{{1,9}})\s*\)", re.IGNORECASE)
        for text in texts:
            found += [m.group(1) for m in pattern.finditer(text) if any(c.isupper() for c in m.group(1))]
    return list(dict.fromkeys(found))


def relation_patterns(question: str, entities: Sequence[ResolvedEntity] = (), schema: GraphSchema | None = None
                      ) -> list[str]:
    """Regular expressions wording the relation(s) the question asks about (the format's relation words and
    :data:`~engram_kit.answering.intent.RELATION_WORDS` of the verbs :func:`~engram_kit.answering.intent.parse_intent`
    reads against ``schema``, entity mentions left out): ``"Which drugs treat X?"`` -> the ``treats`` pattern.
    No schema: no relation is read (``[]``)."""
    if schema is None:
        return []
    verbs = set(parse_intent(question, [(e.mention, e.kind.replace(" ", "")) for e in entities], schema).verbs)
    return [pattern for pattern, verb in schema.profile.relation_words + RELATION_WORDS if verb in verbs]


def headline(question_type: QuestionType, exact: Sequence[ExactAnswer] = (), yes_no: YesNo | None = None, *,
             empty: str = "", max_names: int = 10) -> str:
    """The first line of an answer: the answer itself, or ``empty`` (why there is none).

    yes/no: ``"Yes."`` / ``"No."``, or ``"Undecided: ..."`` when ``yes_no`` is None. Factoid: the best item,
    then the other candidates. List: the item names in rank order (at most ``max_names``, then "and N more").
    Summary: ``empty`` (a summary is answered by its sentences).
    """
    if question_type == "yesno":
        if yes_no == "yes":
            return "Yes."
        if yes_no == "no":
            return "No."
        return empty or "Undecided: the cited evidence does not say yes or no."
    if not exact:
        return empty
    names = [x.text for x in exact]
    if question_type == "factoid":
        others = f" (other candidates: {', '.join(names[1:max_names])})" if len(names) > 1 else ""
        return f"{names[0]}{others}."
    shown = ", ".join(names[:max_names])
    more = f", and {len(names) - max_names} more" if len(names) > max_names else ""
    return f"{shown}{more}."
