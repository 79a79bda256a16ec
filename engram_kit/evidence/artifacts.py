"""Query artifacts of the evidence desk: every query a run sends becomes ``q1``, ``q2``, ... with its rows.

An artifact keeps the query text and parameters, the column names, the rows (ids ``r1..rn``, values made
JSON-safe), the time taken, whether and why rows were cut (row cap or size cap), the graph nodes and
relationships returned as values (``RETURN n``), and, for a refused or failed query, the error. A claim
cites a row as ``"q2:r1"`` (see :mod:`engram_kit.evidence.claims`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

#: Artifact statuses: ``ok`` (ran), ``refused`` (by the guard or a budget), ``failed`` (the database failed).
ARTIFACT_STATUSES: tuple[str, ...] = ("ok", "refused", "failed")


@dataclass
class Artifact:
    """One query of a desk run and its result.

    Attributes
    ----------
    id : str
        ``"q1"``, ``"q2"``, ... in the order the run sent them.
    text : str
        The Cypher text as sent (after the guard).
    parameters : dict
        Query parameters (JSON-safe values).
    purpose : str
        Why the query was sent (template name or the planner's stated purpose).
    status : str
        One of :data:`ARTIFACT_STATUSES`.
    columns : list of str
    rows : list of list
        At most the row cap; values JSON-safe (graph nodes as ``{"label", "id", "name", ...}`` dicts).
    seconds : float
        Wall-clock time of the query, in seconds.
    truncated : bool
        True when rows were cut; ``truncation`` says why (``"row cap 100"``, ``"size cap 131072 bytes"``).
    rows_seen : int
        Rows the database returned before the cut (>= ``len(rows)``).
    nodes, relationships : list of dict
        Distinct graph nodes / relationships that appeared as values in the kept rows.
    error : str
        Why the query was refused or failed ("" when ``ok``).
    """

    id: str
    text: str
    parameters: dict[str, Any] = field(default_factory=dict)
    purpose: str = ""
    status: str = "ok"
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    seconds: float = 0.0
    truncated: bool = False
    truncation: str = ""
    rows_seen: int = 0
    nodes: list[dict[str, Any]] = field(default_factory=list)
    relationships: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""

    @property
    def row_ids(self) -> list[str]:
        """``["r1", ..., "rn"]`` for the kept rows."""
        return [f"r{i}" for i in range(1, len(self.rows) + 1)]

    def row(self, row_id: str) -> dict[str, Any] | None:
        """The kept row ``"r3"`` as a column -> value dict, or None if there is no such kept row."""
        if not row_id.startswith("r") or not row_id[1:].isdigit():
            return None
        index = int(row_id[1:]) - 1
        if 0 <= index < len(self.rows):
            return dict(zip(self.columns, self.rows[index]))
        return None

    def to_frame(self) -> pd.DataFrame:
        """Kept rows as a DataFrame indexed by row id (``r1``...)."""
        return pd.DataFrame(self.rows, columns=self.columns, index=pd.Index(self.row_ids, name="row"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def render(self, max_rows: int | None = None, *, timing: bool = True) -> str:
        """Plain-text form for the CLI and prompts: header line, then ``q1:r1 {col: value, ...}`` lines.

        ``timing=False`` leaves out the milliseconds, so a prompt built from it is the same on every run
        (LLM cassettes key requests by their exact text)."""
        head = f"{self.id} [{self.status}] {self.purpose}".rstrip()
        lines = [head, f"  cypher: {' '.join(self.text.split())}"]
        if self.parameters:
            lines.append(f"  parameters: {json.dumps(self.parameters, ensure_ascii=False)}")
        if self.status != "ok":
            lines.append(f"  error: {self.error}")
            return "\n".join(lines)
        lines.append(f"  {len(self.rows)} row(s)" + (f", {self.seconds * 1000:.0f} ms" if timing else "")
                     + (f", TRUNCATED ({self.truncation}; {self.rows_seen} seen)" if self.truncated else ""))
        shown = self.rows if max_rows is None else self.rows[:max_rows]
        for row_id, row in zip(self.row_ids, shown):
            cells = ", ".join(f"{c}: {compact(v)}" for c, v in zip(self.columns, row))
            lines.append(f"  {self.id}:{row_id} {{{cells}}}")
        if len(shown) < len(self.rows):
            lines.append(f"  ... {len(self.rows) - len(shown)} more row(s)")
        return "\n".join(lines)


def compact(value: Any) -> str:
    """Short display of a cell: a node as its name (or id), other values as JSON."""
    if isinstance(value, dict) and "label" in value:
        return str(value.get("name") or value.get("id") or value["label"])
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def json_safe(value: Any) -> Any:
    """A database value as plain JSON: NaN/NA -> None, numpy scalars -> Python, nodes/rels -> dicts."""
    if value is None:
        return None
    if isinstance(value, dict):
        if "_LABEL" in value:
            return graph_value(value)
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            return str(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def graph_value(value: dict[str, Any]) -> dict[str, Any]:
    """A LadybugDB node or relationship value as ``{"label"| "type", properties...}`` (internal ids dropped)."""
    properties = {str(k): json_safe(v) for k, v in value.items() if not str(k).startswith("_")}
    if "_SRC" in value:
        return {"type": value["_LABEL"], **properties}
    return {"label": value["_LABEL"], **properties}
