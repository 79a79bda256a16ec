"""Markdown rendering of agent reports (notebooks, the dashboard, ``engram investigate``).

Every report renders as readable Markdown (``to_markdown()``, and ``_repr_markdown_`` so Jupyter shows it
instead of a raw dataclass repr); tables go through pandas' ``DataFrame.to_markdown`` (tabulate).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from engram_kit.answering import Claim
from engram_kit.settings import Settings

#: Rows of a table shown before "... and N more rows".
TABLE_ROWS: int = Settings.agent_table_rows


def frame_markdown(frame: pd.DataFrame, rows: int = TABLE_ROWS) -> str:
    """``frame`` as a GitHub Markdown table (first ``rows`` rows, floats to 4 significant digits), followed by
    ``"... and N more rows"`` when cut; ``"(none)"`` when empty."""
    if frame is None or frame.empty:
        return "(none)"
    shown = frame.head(rows)
    text = shown.to_markdown(index=False, floatfmt=".4g")
    more = len(frame) - len(shown)
    return text + (f"\n\n... and {more} more rows" if more > 0 else "")


def claims_markdown(claims: Sequence[Claim]) -> list[str]:
    """One bullet per claim with its citation labels."""
    return [f"- {c.text} [{'; '.join(x.label for x in c.citations)}]" for c in claims]


def section(title: str, body: Sequence[str]) -> list[str]:
    """``**title**`` then the body lines (nothing when the body is empty)."""
    return ["", f"**{title}**", "", *body] if body else []
