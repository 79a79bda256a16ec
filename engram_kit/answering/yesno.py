"""Yes/no verdicts from the polarity of evidence sentences (no model).

An evidence sentence is one of the top passages' sentences that names a question entity or at least half the
question's content words; when there is none, the sentences naming a quarter of them count at half weight. Its polarity (:func:`polarity`) is negative
when it words a negated or null finding (:data:`NEGATIVE_CUE`: "no association", "did not", "failed to",
"not effective", "no significant difference", "contraindicated"), positive when it reports a finding
without one (:func:`engram_kit.answering.extractive.is_finding_sentence`, or a plain affirmative statement),
and each counts with the weight of its passage's rank (1 / (1 + rank)) and twice when it names two question
entities (the pair a yes/no question asks about). The verdict (:func:`decide`) is "no" when the negative share
of the weight reaches ``Settings.yesno_no_share``, "yes" otherwise, and None (undecided) when no evidence
sentence was found: it never guesses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engram_kit.answering.support import names_any, names_term
from engram_kit.answering.types import Citation, YesNo

__all__ = ["NEGATIVE_CUE", "Evidence", "bears_on", "decide", "evidence_weight", "polarity"]

#: Wording of a negated or null finding (case-insensitive).
NEGATIVE_CUE = re.compile(
    r"\b(no|not|nor|neither)\b[^.;]{0,40}\b(significant(ly)?|associat\w*|correlat\w*|differen\w*|effect\w*|benefit\w*"
    r"|improv\w*|evidence|increase\w*|reduc\w*|role|link\w*|relationship|change\w*|efficac\w*|impact|superior\w*"
    r"|recommended|indicated|safe|approved|useful|caused?|protect\w*|predict\w*)\b"
    r"|\b(did|does|do|was|were|is|are|could|can|has|have|had) not\b|\b(didn|doesn|don|wasn|weren|isn|aren|hasn|haven)'t\b"
    r"|\bcannot\b|\bfail(s|ed|ure)? to\b|\bunable to\b|\bineffective\b|\bcontraindicat\w*|\bnot (an? )?(option|cure)\b"
    r"|\black of (efficacy|effect|benefit|association|evidence)\b|\bunsafe\b|\bnegative (results?|trials?|study)\b"
    r"|\bwas stopped for futility\b|\bno longer\b",
    re.IGNORECASE)
#: "not only ... but also" and "whether or not" are not negations of the finding.
_NOT_NEGATION = re.compile(r"\bnot only\b|\bwhether or not\b|\bif not\b|\bnot yet\b[^.]{0,30}\bbut\b", re.IGNORECASE)


def evidence_weight(sentence: str, entity_names: Sequence[Sequence[str]], keywords: Sequence[str] = (),
                    relations: Sequence[str] = ()) -> float:
    """How much ``sentence`` bears on a yes/no question: the one rule of every answering path (the exact layer's
    verdict, :class:`~engram_kit.answering.exact.ExactAnswerer`, and the LLM composer's citation check).

    Parameters
    ----------
    entity_names : per question entity, its names (mention, graph name, synonyms).
    keywords : the question's content words (not inside an entity mention).
    relations : regular expressions wording the asked relation (:func:`~engram_kit.answering.structure.
        relation_patterns`).

    Returns 0 (not evidence), 0.5 (weak: no entity, a quarter of the keywords), 1 (one entity, or half the
    keywords) or 2 (it bears on the question: one entity and the asked relation or half the keywords, or, for a
    question about two or more entities, two of them). A question about two entities is decided only by
    sentences naming two ("Is type 2 diabetes a risk factor for Parkinson's disease?" said "Yes." from papers
    on metformin and cancer that never named Parkinson's disease).
    """
    named_entities = [terms for terms in entity_names if terms]
    if len(named_entities) >= 2:
        return 2.0 if sum(names_any(sentence, terms) for terms in named_entities) >= 2 else 0.0
    named = sum(names_term(sentence, t) for terms in named_entities for t in terms)
    share = sum(names_term(sentence, w) for w in keywords) / len(keywords) if keywords else 0.0
    worded = any(re.search(p, sentence, re.IGNORECASE) for p in relations)
    if named:
        return 2.0 if (named >= 2 or share >= 0.5 or worded) else 1.0
    if share >= 0.5 or (worded and not named_entities):
        return 1.0
    return 0.5 if share >= 0.25 else 0.0


def bears_on(sentence: str, entity_names: Sequence[Sequence[str]], keywords: Sequence[str] = (),
             relations: Sequence[str] = ()) -> bool:
    """Whether a cited sentence supports a yes/no verdict (:func:`evidence_weight` 2, or 1 for a question with
    no entity)."""
    weight = evidence_weight(sentence, entity_names, keywords, relations)
    return weight >= (2.0 if any(entity_names) else 1.0)


@dataclass(frozen=True)
class Evidence:
    """One evidence sentence: its text, citation, weight (> 0) and polarity (+1, -1 or 0)."""

    sentence: str
    citation: Citation
    weight: float
    polarity: int


def polarity(sentence: str) -> int:
    """-1 when ``sentence`` words a negated or null finding (:data:`NEGATIVE_CUE`, ignoring "not only" and
    "whether or not"), else +1 (an affirmative statement or finding)."""
    text = _NOT_NEGATION.sub(" ", sentence)
    return -1 if NEGATIVE_CUE.search(text) else 1


def decide(evidence: Sequence[Evidence], no_share: float) -> tuple[YesNo | None, tuple[Citation, ...]]:
    """The verdict and the citations it rests on (see module docstring).

    Parameters
    ----------
    evidence : the evidence sentences, any order.
    no_share : negative share of the evidence weight, in (0, 1], from which the verdict is "no".

    Returns ``(None, ())`` when there is no evidence; otherwise ``("yes" | "no", citations)`` where the
    citations are those of the sentences of the verdict's polarity, heaviest first (at most 3).
    """
    total = sum(e.weight for e in evidence)
    if not evidence or total <= 0:
        return None, ()
    negative = sum(e.weight for e in evidence if e.polarity < 0)
    verdict: YesNo = "no" if negative / total >= no_share else "yes"
    sign = -1 if verdict == "no" else 1
    chosen = sorted((e for e in evidence if e.polarity == sign), key=lambda e: -e.weight)
    citations = tuple(dict.fromkeys(e.citation for e in chosen))[:3]
    return verdict, citations
