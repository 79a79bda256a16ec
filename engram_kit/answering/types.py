"""Answer, claim and citation records, and the composer protocol (the seam for LLM composers)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import pandas as pd

from engram_kit.retrieval.results import RetrievalResult


@dataclass(frozen=True)
class Citation:
    """Pointer to inspectable evidence.

    ``kind`` is ``"passage"`` (``ref`` = passage id), ``"edge"`` (``ref`` =
    ``"<source id> -[<REL_TYPE>]-> <target id>"``) or ``"row"`` (``ref`` = ``"q2:r1"``, evidence desk).
    ``label`` is what a reader sees (``"PMID:123"``, ``"Hetionet TREATS_CtD"``).
    """

    kind: str
    ref: str
    label: str


@dataclass(frozen=True)
class Claim:
    """One statement of the answer and the evidence it rests on (never empty)."""

    text: str
    citations: tuple[Citation, ...]


#: The kinds of question (BioASQ's four): a yes/no question, a factoid (one entity, a name or a number), a list
#: (several entities) or a summary (a mechanism, a role, a "what is known": answered by sentences alone).
QuestionType = Literal["yesno", "factoid", "list", "summary"]
#: The yes/no verdict; None = the evidence does not decide (the answer says "undecided", it never guesses).
YesNo = Literal["yes", "no"]


@dataclass(frozen=True)
class ExactAnswer:
    """One exact answer item (a factoid candidate or a list item), ranked by ``score``.

    ``text`` is the item as the literature spells it (the graph's name when only the graph names it);
    ``synonyms`` its other names (graph name and aliases where it is a node; surface variants seen in the
    passages); ``node_id`` the graph node it links to, or None for an unlinked phrase (a mutation, a procedure,
    a number); ``score`` in [0, 1] (comparable within one answer, not across answers); ``citations`` the
    sentences (``kind="passage"``) and/or edges (``kind="edge"``) that support it, never empty.
    """

    text: str
    synonyms: tuple[str, ...]
    node_id: str | None
    score: float
    citations: tuple[Citation, ...]

    def __post_init__(self) -> None:
        if not self.citations:
            raise ValueError(f"ExactAnswer {self.text!r} has no citation; every answer item must cite its evidence")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"ExactAnswer {self.text!r} score {self.score} is outside [0, 1]")


@dataclass
class Answer:
    """A composed answer. ``mode`` is ``"extractive"`` (offline) or the LLM provider's name.

    ``question_type`` is detected from the question (:data:`QuestionType`); ``exact`` the ranked exact answer
    items (factoid: at most 5; list: the items above the list cut-off; empty for yes/no and summary questions
    or when nothing qualifies); ``yes_no`` the verdict of a yes/no question (None = undecided or not a yes/no
    question) and ``yes_no_citations`` the sentences it rests on. ``headline`` is the first line a reader sees:
    the answer itself (names or yes/no), or a plain statement that the data cannot answer and why.
    ``unsupported`` holds the claims (also in ``claims``: kept, not hidden) whose cited sentences fail the
    support rule (:mod:`engram_kit.answering.support`); they are marked in :meth:`to_markdown` and listed in
    :meth:`to_dict`.
    """

    question: str
    claims: list[Claim]
    mode: str
    retrieval: RetrievalResult
    notes: list[str] = field(default_factory=list)
    question_type: QuestionType = "summary"
    exact: list[ExactAnswer] = field(default_factory=list)
    yes_no: YesNo | None = None
    yes_no_citations: tuple[Citation, ...] = ()
    headline: str = ""
    unsupported: list[Claim] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The answer as Markdown: one bullet per claim with its citations."""
        return self.to_markdown()

    def to_markdown(self) -> str:
        lines = [f"**Q:** {self.question}", ""]
        if self.headline:
            lines += [f"**A:** {self.headline}", ""]
        for note in self.notes:
            lines.append(f"> {note}")
        if self.notes:
            lines.append("")
        literature = [c for c in self.claims if c.citations and c.citations[0].kind == "passage"]
        graph = [c for c in self.claims if c.citations and c.citations[0].kind == "edge"]
        if literature:
            lines.append("**From the literature**")
            lines += [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]{self._flag(c)}" for c in literature]
        if graph:
            lines.append("")
            lines.append("**From the knowledge graph**")
            lines += [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]{self._flag(c)}" for c in graph]
        if not self.claims:
            lines.append("No evidence was found for this question in the workspace.")
        return "\n".join(lines).strip()

    def _flag(self, claim: Claim) -> str:
        return " *(unsupported: its cited evidence does not state it)*" if claim in self.unsupported else ""

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_frame(self) -> pd.DataFrame:
        """Claims with their citations (= :meth:`claims_frame`)."""
        return self.claims_frame()

    def claims_frame(self) -> pd.DataFrame:
        """Claims with their citations, one row per (claim, citation)."""
        rows = [{"claim": c.text, "kind": x.kind, "label": x.label, "ref": x.ref} for c in self.claims for x in c.citations]
        return pd.DataFrame(rows, columns=["claim", "kind", "label", "ref"])

    def exact_frame(self) -> pd.DataFrame:
        """The exact answer items, one row each: rank, text, node id, score, synonyms and citation labels."""
        rows = [{"rank": i, "text": x.text, "node_id": x.node_id, "score": x.score,
                 "synonyms": "; ".join(x.synonyms), "citations": "; ".join(c.label for c in x.citations)}
                for i, x in enumerate(self.exact, 1)]
        return pd.DataFrame(rows, columns=["rank", "text", "node_id", "score", "synonyms", "citations"])

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "mode": self.mode, "question_type": self.question_type,
                "headline": self.headline, "yes_no": self.yes_no,
                "yes_no_citations": [asdict(c) for c in self.yes_no_citations],
                "exact": [asdict(x) for x in self.exact], "notes": self.notes,
                "claims": [asdict(c) for c in self.claims], "unsupported": [asdict(c) for c in self.unsupported],
                "retrieval": self.retrieval.to_dict()}


class AnswerComposer(Protocol):
    """Anything that composes an :class:`Answer` from a :class:`RetrievalResult`."""

    def compose(self, result: RetrievalResult) -> Answer:
        ...
