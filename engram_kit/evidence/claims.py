"""Claims that cite artifact rows (``"q2:r1"``) and the validator that withholds unsupported ones.

Validation rules (a claim is **withheld** when any applies; the reasons are kept):

* it cites nothing;
* a citation is not of the form ``q<n>:r<m>``;
* the artifact is unknown, or was refused or failed (it has no rows);
* the row is not among the artifact's kept rows: "truncated" when the artifact was cut (row or size cap)
  and the row lies beyond the cut, "unknown" otherwise;
* (``require_mention=True``, default) the claim's text names none of the text values of the rows it
  cites (case-insensitive; values of >= 3 characters), i.e. it is not about what it cites.

The run's **outcome**: ``supported`` (claims kept, none withheld), ``partial`` (some kept, some withheld),
``unsupported`` (none kept).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from engram_kit.evidence.artifacts import Artifact

#: Outcomes of a desk run.
OUTCOMES: tuple[str, ...] = ("supported", "partial", "unsupported")
_CITATION = re.compile(r"^(q\d+):(r\d+)$")


@dataclass(frozen=True)
class DeskClaim:
    """One statement and the rows it rests on (``("q1:r3", "q2:r1")``)."""

    text: str
    citations: tuple[str, ...]


@dataclass(frozen=True)
class ClaimCheck:
    """A claim and the validator's verdict: ``kept`` True, or False with the ``reasons``."""

    claim: DeskClaim
    kept: bool
    reasons: tuple[str, ...] = ()


@dataclass
class Validation:
    """Result of validating a set of claims against the run's artifacts."""

    checks: list[ClaimCheck] = field(default_factory=list)

    @property
    def kept(self) -> list[DeskClaim]:
        return [c.claim for c in self.checks if c.kept]

    @property
    def withheld(self) -> list[ClaimCheck]:
        return [c for c in self.checks if not c.kept]

    @property
    def outcome(self) -> str:
        """``supported``, ``partial`` or ``unsupported`` (see module docstring)."""
        if not self.kept:
            return "unsupported"
        return "partial" if self.withheld else "supported"

    def to_frame(self) -> pd.DataFrame:
        rows = [{"claim": c.claim.text, "citations": ", ".join(c.claim.citations), "kept": c.kept,
                 "reasons": "; ".join(c.reasons)} for c in self.checks]
        return pd.DataFrame(rows, columns=["claim", "citations", "kept", "reasons"])

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "checks": [asdict(c) for c in self.checks]}


def _text_values(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [str(v) for k, v in value.items() if k in ("name", "id") and v]
    if isinstance(value, list):
        return [s for v in value for s in _text_values(v)]
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [str(value)]
    return []


def check_citation(citation: str, artifacts: dict[str, Artifact]) -> tuple[dict[str, Any] | None, str]:
    """The cited row (column -> value) or None with the reason it cannot be cited."""
    match = _CITATION.match(citation.strip())
    if match is None:
        return None, f"{citation!r} is not a row citation of the form q<n>:r<m>"
    artifact_id, row_id = match.groups()
    artifact = artifacts.get(artifact_id)
    if artifact is None:
        return None, f"{citation}: unknown artifact {artifact_id}"
    if artifact.status != "ok":
        return None, f"{citation}: artifact {artifact_id} was {artifact.status}"
    row = artifact.row(row_id)
    if row is None:
        if artifact.truncated:
            return None, f"{citation}: row {row_id} was truncated ({artifact.truncation})"
        return None, f"{citation}: unknown row ({artifact_id} has {len(artifact.rows)} rows)"
    return row, ""


def validate_claims(claims: list[DeskClaim], artifacts: list[Artifact], *, require_mention: bool = True) -> Validation:
    """Check every claim against the artifacts (rules in the module docstring)."""
    by_id = {a.id: a for a in artifacts}
    checks: list[ClaimCheck] = []
    for claim in claims:
        reasons: list[str] = []
        rows: list[dict[str, Any]] = []
        if not claim.citations:
            reasons.append("cites no row")
        for citation in claim.citations:
            row, reason = check_citation(citation, by_id)
            if row is None:
                reasons.append(reason)
            else:
                rows.append(row)
        if not reasons and require_mention:
            text = claim.text.lower()
            values = [v for row in rows for cell in row.values() for v in _text_values(cell) if len(v) >= 3]
            if values and not any(v.lower() in text for v in values):
                reasons.append("names none of the values of the rows it cites")
        checks.append(ClaimCheck(claim, not reasons, tuple(reasons)))
    return Validation(checks)
