"""Answer, claim and citation records, and the composer protocol (the seam for LLM composers)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

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


@dataclass
class Answer:
    """A composed answer. ``mode`` is ``"extractive"`` (offline) or the LLM provider's name."""

    question: str
    claims: list[Claim]
    mode: str
    retrieval: RetrievalResult
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The answer as Markdown: one bullet per claim with its citations."""
        return self.to_markdown()

    def to_markdown(self) -> str:
        lines = [f"**Q:** {self.question}", ""]
        for note in self.notes:
            lines.append(f"> {note}")
        if self.notes:
            lines.append("")
        literature = [c for c in self.claims if c.citations and c.citations[0].kind == "passage"]
        graph = [c for c in self.claims if c.citations and c.citations[0].kind == "edge"]
        if literature:
            lines.append("**From the literature**")
            lines += [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]" for c in literature]
        if graph:
            lines.append("")
            lines.append("**From the knowledge graph**")
            lines += [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]" for c in graph]
        if not self.claims:
            lines.append("No evidence was found for this question in the workspace.")
        return "\n".join(lines).strip()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_frame(self) -> pd.DataFrame:
        """Claims with their citations (= :meth:`claims_frame`)."""
        return self.claims_frame()

    def claims_frame(self) -> pd.DataFrame:
        """Claims with their citations, one row per (claim, citation)."""
        rows = [{"claim": c.text, "kind": x.kind, "label": x.label, "ref": x.ref} for c in self.claims for x in c.citations]
        return pd.DataFrame(rows, columns=["claim", "kind", "label", "ref"])

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "mode": self.mode, "notes": self.notes,
                "claims": [asdict(c) for c in self.claims], "retrieval": self.retrieval.to_dict()}


class AnswerComposer(Protocol):
    """Anything that composes an :class:`Answer` from a :class:`RetrievalResult`."""

    def compose(self, result: RetrievalResult) -> Answer:
        ...
