"""The evidence desk's Cypher mode: a researcher's own read-only query, from the dashboard.

The query goes through ``Workspace.evidence_desk().query`` -- the same public call as ``engram cypher`` --
so it meets the same guard (writes, file loaders and unbounded patterns refused by name), the same budgets
(timeout, row, byte and memory caps of the workspace's ``desk`` settings) and the same isolated query
process. Kept rows are shown as a table cited ``q1:r1``, ``q1:r2``...; a refused or failed query shows the
artifact's error text (the rule and how to fix the query), never a traceback. The widget computes nothing.
"""

from __future__ import annotations

import html
import json
import logging
from typing import Any

import ipywidgets as widgets

from engram_kit.errors import EngramError
from engram_kit.evidence.artifacts import Artifact, compact

log = logging.getLogger(__name__)

#: The query box's placeholder (a query of the bundled Hetionet sample).
EXAMPLE_QUERY = "MATCH (g:Gene {name: 'BACE1'})-[:INTERACTS_GiG]-(x:Gene) RETURN x.name AS name LIMIT 5"
#: What the mode says about itself above the box.
INTRO = ("Read-only Cypher through the evidence desk's guard and query process (the budgets of the workspace's "
         "desk settings): writes and file loaders are refused with the rule and how to fix the query. "
         "Rows are cited <code>q1:r1</code>, <code>q1:r2</code>...")
#: Characters of one table cell before it is cut (a long list or text would widen the table past the panel).
CELL_CHARS = 200
#: CSS height of the rows table before it scrolls (about 15 rows).
TABLE_MAX_HEIGHT = "360px"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def rows_table_html(artifact: Artifact) -> str:
    """HTML of an ``ok`` artifact: a header line (rows, milliseconds, the cut when truncated) and a table whose
    first column is each row's citation ``<artifact id>:r<n>`` (e.g. ``q1:r1``); cells as
    :func:`~engram_kit.evidence.artifacts.compact` shows them (a node as its name), HTML-escaped, at most
    :data:`CELL_CHARS` characters."""
    head = f"<b>{_e(artifact.id)}</b>: {len(artifact.rows)} row(s), {artifact.seconds * 1000:.0f} ms"
    if artifact.truncated:
        head += (f" &middot; <b>cut at the {_e(artifact.truncation)}</b> ({artifact.rows_seen} seen; desk settings)"
                 f"; ask <code>count(*)</code> for totals")
    if not artifact.rows:
        return f'<div class="engram-scores">{head}</div><p><i>The query ran and returned no rows.</i></p>'
    cell = "padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top"
    header = "".join(f'<th style="{cell}">{_e(c)}</th>' for c in ["row", *artifact.columns])
    body = "".join(
        f'<tr><td style="{cell}"><code class="engram-row-cite">{_e(artifact.id)}:{_e(row_id)}</code></td>'
        + "".join(f'<td style="{cell}"{_node_title(v)}>{_e(compact(v)[:CELL_CHARS])}</td>' for v in row) + "</tr>"
        for row_id, row in zip(artifact.row_ids, artifact.rows))
    # the row cap (desk settings, 100 by default) and wide rows scroll inside the panel
    return (f'<div class="engram-scores">{head}</div><div style="max-height:{TABLE_MAX_HEIGHT};overflow:auto">'
            f'<table class="engram-cypher-rows" style="border-collapse:collapse;font-size:12px">'
            f"<thead><tr>{header}</tr></thead><tbody>{body}</tbody></table></div>")


def _node_title(value: Any) -> str:
    """A tooltip attribute with a graph node's label and id (the cell shows its name), else ""."""
    if isinstance(value, dict) and "label" in value:
        return f' title="{_e(value["label"])} {_e(value.get("id", ""))}"'
    return ""


def error_html(title: str, message: str) -> str:
    """A refusal or failure as a banner: ``title`` in bold, then ``message`` as written (line breaks kept, so a
    parser's caret line stays under the query), HTML-escaped."""
    return (f'<div class="engram-banner engram-cypher-error"><b>{_e(title)}</b>'
            f'<div style="white-space:pre-wrap;font-family:monospace;font-size:12px">{_e(message)}</div></div>')


def artifact_html(artifact: Artifact) -> str:
    """The result of one query: the rows table when ``ok``, else the refusal or failure message."""
    if artifact.status == "ok":
        return rows_table_html(artifact)
    title = "Query refused" if artifact.status == "refused" else "Query failed"
    return error_html(title, artifact.error)


def parse_parameters(text: str) -> dict[str, Any]:
    """Query parameters from the parameters box: empty -> ``{}``, else a JSON object such as
    ``{"name": "APP"}`` (used as ``$name`` in the query).

    Raises
    ------
    ValueError
        If ``text`` is not a JSON object; the message shows the expected form.
    """
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"The parameters are not JSON ({exc.msg}); write an object, e.g. "
                         '{"name": "APP"}, and use $name in the query.') from exc
    if not isinstance(value, dict):
        raise ValueError('The parameters must be a JSON object, e.g. {"name": "APP"} (used as $name in the query).')
    return value


class CypherPanel:
    """Cypher mode of the evidence desk: a query box, optional JSON parameters, "Run query", and the rows (cited
    ``q1:r1``...) or the refusal.

    Parameters
    ----------
    workspace : an open workspace (read-only is fine: the desk always queries read-only); only its public
        ``evidence_desk()`` is called, once, on the first query.

    Attributes
    ----------
    artifact : the last query's :class:`~engram_kit.evidence.artifacts.Artifact` (None before any, or when
        the desk itself could not be opened).
    """

    def __init__(self, workspace: Any) -> None:
        self.workspace = workspace
        self.artifact: Artifact | None = None
        self._desk: Any = None
        self.query = widgets.Textarea(placeholder=EXAMPLE_QUERY, rows=3,
                                      layout=widgets.Layout(width="100%"))
        self.parameters = widgets.Text(placeholder='parameters (optional JSON), e.g. {"name": "APP"}',
                                       layout=widgets.Layout(width="100%"))
        self.run_button = widgets.Button(description="Run query", button_style="primary",
                                         tooltip="run the query read-only through the evidence desk's guard")
        self.run_button.on_click(lambda _: self.run())
        self.result = widgets.HTML("")
        self.widget = widgets.VBox([widgets.HTML(f'<div class="engram-scores">{INTRO}</div>'), self.query,
                                    self.parameters, self.run_button, self.result])
        self.widget.add_class("engram-cypher")

    def run(self, text: str | None = None, parameters: dict[str, Any] | None = None) -> Artifact | None:
        """Run ``text`` (default: the query box) with ``parameters`` (default: the parameters box) and show the
        result; returns the artifact, or None when nothing ran (empty box, bad parameters, no desk), which the
        panel then says in words."""
        if text is not None:
            self.query.value = text
        cypher = self.query.value.strip()
        self.artifact = None
        if not cypher:
            self.result.value = error_html("No query", f"Type a Cypher query, e.g. {EXAMPLE_QUERY}")
            return None
        try:
            params = parameters if parameters is not None else parse_parameters(self.parameters.value)
        except ValueError as exc:
            self.result.value = error_html("Parameters not understood", str(exc))
            return None
        self.run_button.disabled = True
        self.result.value = '<span class="engram-steps">&#8230; running the query (read-only)</span>'
        try:
            if self._desk is None:
                self._desk = self.workspace.evidence_desk()
            self.artifact = self._desk.query(cypher, params)
        except EngramError as exc:  # the desk could not open (e.g. no graph store): its message names the fix
            self.result.value = error_html("The evidence desk could not run the query", str(exc))
            return None
        finally:
            self.run_button.disabled = False
        self.result.value = artifact_html(self.artifact)
        return self.artifact
