"""The headline: the first line of an answer, which states the answer itself or says plainly that the data
cannot answer and why.

* **list / factoid**: the names, best first: ``"Compounds that palliate Parkinson's disease: L-DOPA,
  Apomorphine, ... (28 in the graph)"``. The names are the exact answer items (``Answer.exact``, filled by the
  exact-answer layer) when there are any, else the graph facts of the asked relation (their total is said).
  When the graph had no edge of the asked relation and the profile's fallback relation answered, the headline
  says so first ("No compound treats Parkinson's disease in the graph; compounds that palliate it: ...").
* **two parts**: both, or which part cannot be answered ("Compounds that treat type 2 diabetes mellitus: ...;
  of these, linked to Alzheimer's disease: ..."); **shared**: the intersection.
* **yes/no**: ``"Yes."`` / ``"No."`` with the number of sentences the verdict rests on, or ``"Undecided: ..."``
  with the reason (no sentence states it; the sentences do not decide).
* **summary** (or no names): the best supporting literature line, cited.
* **unanswerable**: ``"The data cannot answer this: ..."`` with the reason (an entity the literature never
  mentions, no edge of the asked relation, no supporting sentence).

An entity of the question that no passage mentions is always said first (``"No passage mentions TREM2"``); a
phrase of the question that neither the graph nor any retrieved passage holds makes the whole headline "The data
cannot answer this" (``"lecanemab"`` on the bundled sample: anything else would be about the other entities).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engram_kit.answering.facts import FactsResult, _no_phrase, kind_words
from engram_kit.answering.types import Answer
from engram_kit.settings import Settings

if TYPE_CHECKING:
    from engram_kit.answering.parts import PartsResult
    from engram_kit.retrieval.results import ResolvedEntity

__all__ = ["HEADLINE_NAMES", "compose_headline", "summary_lines"]

#: Names a headline lists at most (the count says how many more there are).
HEADLINE_NAMES: int = Settings.headline_names


def _names(names: Sequence[str], total: int | None = None) -> str:
    """``"A, B, C, D, E, ... (28 in the graph)"``: at most :data:`HEADLINE_NAMES` names; ``total`` (graph items)
    is always said, otherwise the count only when names were left out."""
    shown = ", ".join(names[:HEADLINE_NAMES]) + (", ..." if len(names) > HEADLINE_NAMES else "")
    if total is not None:
        return f"{shown} ({total} in the graph)"
    return f"{shown} ({len(names)} in all)" if len(names) > HEADLINE_NAMES else shown


def _relation_phrase(facts: FactsResult) -> str:
    """``"Compounds that palliate Parkinson's disease"`` / ``"Side effects that Donepezil causes"``."""
    intent = facts.intent
    if len(intent.hops) == 1:
        phrase = _no_phrase(intent.hops[0], facts.anchor_name, intent.target_label)
    else:
        phrase = f"{kind_words(intent.target_label)} linked to {facts.anchor_name} through " \
                 f"{kind_words(intent.hops[0].to_label)}"
    return phrase[0].upper() + phrase[1:]


def compose_headline(answer: Answer, *, facts: FactsResult | None = None, parts: PartsResult | None = None,
                     unmentioned: Sequence[ResolvedEntity] = (), absent: Sequence[str] = ()) -> str:
    """The headline of ``answer`` (see the module docstring); ``facts`` are the asked relation's graph facts,
    ``parts`` the two-part answer, ``unmentioned`` the question entities no passage mentions and ``absent`` the
    question's phrases that neither the graph nor any retrieved passage holds (then the data cannot answer)."""
    if absent:
        names = " or ".join(f"'{a}'" for a in absent)
        return (f"The data cannot answer this: neither the graph nor any retrieved passage of this workspace "
                f"mentions {names}.")
    lead = ""
    if unmentioned:
        names = " or ".join(e.name for e in unmentioned)
        lead = f"No passage in this workspace mentions {names}, so the literature here cannot answer about it"
    body = _body(answer, facts, parts)
    if lead and body:
        return f"{lead}. {body}"
    if lead:
        return f"The data cannot answer this: {lead[0].lower() + lead[1:]}."
    return body or _cannot(answer)


def _body(answer: Answer, facts: FactsResult | None, parts: PartsResult | None) -> str:
    if answer.question_type == "yesno":
        return _yes_no(answer)
    if parts is not None:
        return _parts(parts)
    names = [x.text for x in answer.exact]
    if facts is not None and facts.items and facts.intent.hops:
        phrase = _relation_phrase(facts)
        listed = names or [item.name for item in facts.items]
        # the graph's own count, also beside exact items (which add literature-backed names and stop at
        # Settings.exact_list_max): "(10 in all)" read as if BACE1 had 10 partners where the graph holds 22
        total = facts.total if facts.total is not None else len(facts.items)
        head = f"{phrase}: {_names(listed, total)}"
        if facts.substituted_from is not None:
            asked = facts.substituted_from
            missing = _no_phrase(asked.hops[0], facts.anchor_name, asked.target_label)
            return f"The graph has no {missing}; it holds {head[0].lower() + head[1:]}"
        return head
    if names:
        return _names(names)
    literature = [c for c in answer.claims if c.citations and c.citations[0].kind == "passage"]
    if literature:
        best = literature[0]
        return f"From the literature: {best.text} [{best.citations[0].label}]"
    return ""


def _yes_no(answer: Answer) -> str:
    n = len(answer.yes_no_citations)
    rests = f" ({n} sentence{'s' if n != 1 else ''}: {', '.join(c.label for c in answer.yes_no_citations[:3])})" \
        if n else ""
    if answer.yes_no == "yes":
        return f"Yes.{rests}"
    if answer.yes_no == "no":
        return f"No.{rests}"
    literature = [c for c in answer.claims if c.citations and c.citations[0].kind == "passage"]
    if not literature and not n:
        return "Undecided: no sentence of the retrieved passages states it either way."
    return "Undecided: the sentences found do not decide it" + (f"{rests}." if rests else ".")


def _parts(parts: PartsResult) -> str:
    a, b = parts.names
    first = parts.first
    if parts.shape == "shared":
        target = _relation_phrase(first).split(" that ")[0].split(" linked")[0]
        if not parts.kept:
            return f"The graph holds no {target.lower()} shared by {a} and {b}."
        return f"{target} shared by {a} and {b}: {_names([i.name for i, _ in parts.kept])}"
    if not first.items:
        return (f"Part 1 cannot be answered: the graph has no {_relation_phrase(first)[0].lower()}"
                f"{_relation_phrase(first)[1:]}; so neither can part 2 ({b}).")
    head = f"{_relation_phrase(first)}: {_names([i.name for i in first.items], first.total)}"
    if not parts.kept:
        return f"{head}; none of them is linked to {b} in the graph or the literature."
    return f"{head}; of these, linked to {b}: {_names([i.name for i, _ in parts.kept])}"


def _cannot(answer: Answer) -> str:
    """``"The data cannot answer this: <the first note>"``, or that no evidence was found."""
    reasons = [n for n in answer.notes if n]
    if reasons:
        why = reasons[0].rstrip(". :")
        return f"The data cannot answer this: {why[0].lower() + why[1:]}."
    return "The data cannot answer this: no passage or graph edge of this workspace bears on the question."


def summary_lines(answer: Answer, *, max_items: int = 10) -> list[str]:
    """What a terminal shows first (``engram ask``): the headline, then the exact answer items ranked with
    their score and citation labels (at most ``max_items``), or the yes/no verdict with the sentences it rests
    on. Plain text lines, no trailing newline."""
    lines = [f"Answer: {answer.headline or '(no headline)'}"]
    if answer.question_type == "yesno":
        verdict = answer.yes_no or "undecided"
        cites = "; ".join(c.label for c in answer.yes_no_citations) or "no sentence decides"
        lines.append(f"  yes/no: {verdict}  [{cites}]")
    for i, item in enumerate(answer.exact[:max_items], 1):
        labels = "; ".join(dict.fromkeys(c.label for c in item.citations))
        synonyms = f" (also: {', '.join(item.synonyms[:3])})" if item.synonyms else ""
        lines.append(f"  {i:2}. {item.text}{synonyms}  score={item.score:.2f}  [{labels}]")
    if len(answer.exact) > max_items:
        lines.append(f"  ... {len(answer.exact) - max_items} more (--json lists all)")
    return lines
