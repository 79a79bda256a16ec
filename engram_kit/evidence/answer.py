"""How the evidence desk states its answer: question type, exact items, yes/no and a headline, from cited rows.

The desk answers in the structure every answering path shares (:mod:`engram_kit.answering.structure`), drawn
only from its own evidence: the result rows its **kept** claims cite (a withheld claim gives nothing). Each
answer item is cited as ``Citation(kind="row", ref="q1:r3", label="q1:r3")``.

* **Exact items** (factoid and list questions): the names a kept claim states that are values of the rows it
  cites, other than the question's own entities (``"Metformin treats type 2 diabetes mellitus [q1:r3]"`` gives
  *type 2 diabetes mellitus*, node ``target_id``), in claim order (the desk's listings are ordered by evidence),
  score = reciprocal rank (1, 1/2, 1/3, ...: comparable within one answer), one item per node (two pathways
  both named "Apoptosis" stay two items). Factoid: at most five. A count
  question ("How many ...") is answered by the count row's ``n``.
* **Yes/no**: "yes" when a kept claim cites a row naming two of the question's entities (an edge between them
  in the graph); otherwise undecided -- a graph that lacks an edge does not say the answer is no.
* **Headline**: the names (with "top k of n" when the listing was cut), the count with what was counted,
  "Yes." / "Undecided: ...", or the note
  that says why there is no answer ("The graph has no compounds that treat ...").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engram_kit.answering.structure import detect_question_type, headline
from engram_kit.answering.support import names_term
from engram_kit.answering.types import Citation, ExactAnswer, QuestionType, YesNo
from engram_kit.evidence.artifacts import Artifact
from engram_kit.evidence.claims import DeskClaim, check_citation
from engram_kit.evidence.search import EntityMatch
from engram_kit.settings import Settings

__all__ = ["DeskAnswer", "desk_answer"]

#: Factoid answers keep at most this many ranked candidates (BioASQ scores the first five):
#: ``Settings.exact_factoid_max``.
FACTOID_CANDIDATES: int = Settings.exact_factoid_max
_COUNT_QUESTION = re.compile(r"\bhow many\b|\bnumber of\b", re.IGNORECASE)
#: Row columns that carry provenance or scores, never an answer name.
_NOT_NAMES = re.compile(r"(^|_)(id|ids|sources?|publications?|predicate|qualifiers?|negated|directed|unbiased|n"
                        r"|support|knowledge_level|rel_type|type)$", re.IGNORECASE)
_NO_ANSWER_NOTE = re.compile(r"^(Nothing found|The graph has no|No offline template)", re.IGNORECASE)


@dataclass(frozen=True)
class DeskAnswer:
    """The desk's answer in the shared structure (see the module docstring)."""

    question_type: QuestionType
    exact: list[ExactAnswer]
    yes_no: YesNo | None
    yes_no_citations: tuple[Citation, ...]
    headline: str


def _row_citation(ref: str) -> Citation:
    return Citation("row", ref, ref)


def _cited_rows(claim: DeskClaim, artifacts: Mapping[str, Artifact]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for ref in claim.citations:
        row, _ = check_citation(ref, dict(artifacts))
        if row is not None:
            out.append((ref, row))
    return out


def _names(row: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(name, node id or None) of a row's name-valued columns (``target`` with ``target_id``, ``name`` with
    ``id``, any other text column), provenance and score columns left out."""
    out = []
    for column, value in row.items():
        if not isinstance(value, str) or len(value) < 3 or _NOT_NAMES.search(column):
            continue
        node_id = row.get(f"{column}_id") if f"{column}_id" in row else row.get("id") if column == "name" else None
        out.append((value, str(node_id) if node_id else None))
    return out


def desk_answer(question: str, entities: Sequence[EntityMatch], claims: Sequence[DeskClaim],
                artifacts: Sequence[Artifact], notes: Sequence[str] = (),
                node_ids: Mapping[str, str] | None = None) -> DeskAnswer:
    """The desk's answer to ``question`` from its kept ``claims`` and the ``artifacts`` they cite.

    Parameters
    ----------
    entities : the question's entities (their names and ids are never answer items).
    claims : the validator's kept claims, in order.
    artifacts : every artifact of the run.
    notes : the run's notes (the headline of an answerless run quotes the one that says why).
    node_ids : lower-cased node name -> node id, for names a row gives without an id column (LLM-planned queries).
    """
    question_type = detect_question_type(question)
    by_id = {a.id: a for a in artifacts}
    own = {t.lower() for e in entities for t in (e.name, e.mention, e.node_id) if t}
    node_ids = node_ids or {}
    items: dict[str, tuple[str, str | None, list[Citation]]] = {}
    count: tuple[str, Citation, str] | None = None
    total: int | None = None
    yes_citations: list[Citation] = []
    for claim in claims:
        for ref, row in _cited_rows(claim, by_id):
            if "n" in row and isinstance(row["n"], int) and not isinstance(row["n"], bool):
                count = count or (str(row["n"]), _row_citation(ref), claim.text)
                total = total if total is not None else int(row["n"])
            values = {str(v).lower() for v in row.values() if isinstance(v, str)}
            linked = {e.node_id for e in entities if e.name.lower() in values or e.node_id.lower() in values}
            if len(linked) >= 2:  # the row links two of the question's entities
                yes_citations.append(_row_citation(ref))
            for name, node_id in _names(row):
                if name.lower() in own or not names_term(claim.text, name):
                    continue
                node_id = node_id or node_ids.get(name.lower())
                cited = items.setdefault(node_id or name.lower(), (name, node_id, []))[2]  # one item per node
                if _row_citation(ref) not in cited:
                    cited.append(_row_citation(ref))
    exact: list[ExactAnswer] = []
    if question_type in ("factoid", "list"):
        if _COUNT_QUESTION.search(question) and count is not None:
            exact = [ExactAnswer(count[0], (), None, 1.0, (count[1],))]
        else:
            ranked = list(items.values())[: FACTOID_CANDIDATES if question_type == "factoid" else None]
            exact = [ExactAnswer(text, (), node_id, round(1.0 / rank, 4), tuple(cited))
                     for rank, (text, node_id, cited) in enumerate(ranked, start=1)]
    yes_no: YesNo | None = "yes" if question_type == "yesno" and yes_citations else None
    why = next((n for n in notes if _NO_ANSWER_NOTE.search(n)), "")
    if question_type == "yesno" and yes_no is None:
        named = " and ".join(dict.fromkeys(e.name for e in entities)) or "the question's entities"
        empty = f"Undecided: no row found links {named}" + (f" ({why})" if why else ".")
    else:
        empty = why or ("No exact answer: no kept claim names an answer item." if question_type in ("factoid", "list")
                        else "")
    line = headline(question_type, exact, yes_no, empty=empty)
    if count is not None and exact and exact[0].citations[0] == count[1]:
        line = f"{count[0]}: {count[2].rstrip('.')}."  # the count with what was counted
    if exact and question_type == "list" and total is not None and total > len(exact):
        line = f"{line[:-1]} (top {len(exact)} of {total})."
    return DeskAnswer(question_type, exact, yes_no, tuple(dict.fromkeys(yes_citations)), line)
