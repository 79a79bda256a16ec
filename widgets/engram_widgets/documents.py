"""Document repository widget: upload, per-document status, search/filter, detail, delete/reprocess.

Renders ``Workspace.documents`` (:class:`~engram_kit.ingestion.documents.DocumentRepository`): uploads go
through ``add_bytes`` one file at a time (each file's status is shown as it moves from queued to processing
to complete/error, with an overall progress bar); the listing is ``list(search, status)``; the detail
panel is ``detail(doc_id)`` (metadata, sections with summaries, entities with confidence, statistics).
Delete and reprocess ask for confirmation first. On a read-only workspace the write controls are disabled
and say why.
"""

from __future__ import annotations

import html
import os
from typing import Any

import ipywidgets as widgets
import pandas as pd

from engram_kit.errors import EngramError

#: Largest websocket message Voila accepts, in MB (``engram dashboard --max-upload-mb``). Tornado's default is 10 MiB
#: and a larger message closes the kernel websocket without an error in the page: ipywidgets' FileUpload sends each
#: file in one message, so 40 MB uploads need more (the document repository refuses files above 50 MB anyway).
#: Defined here, beside the upload box that states it; :mod:`engram_widgets.dashboard` serves with it.
DEFAULT_MAX_MESSAGE_MB = 100
#: The dashboard's websocket message cap in MB (``engram dashboard --max-upload-mb``), for the kernel's upload box.
MAX_UPLOAD_ENV = "ENGRAM_DASHBOARD_MAX_UPLOAD_MB"

#: Status filter options (the repository's statuses, plus "all").
STATUS_OPTIONS: tuple[str, ...] = ("all", "pending", "processing", "complete", "error")
#: Shown under the upload button: a file above the websocket cap never reaches the kernel, so nothing could
#: report it afterwards (issue 31 item 6).
UPLOAD_LIMITS_NOTE = ("Files up to 50 MiB each are ingested. A file above the dashboard's upload cap (100 MB unless "
                      "started with `engram dashboard --max-upload-mb N`) cannot arrive: the browser connection drops "
                      "it without a message. Ingest such a file with `engram ingest FILE`.")
#: What the page shows instead of sending an upload above the cap (the template's script fills ``{names}``,
#: ``{total}`` and ``{cap}``; issue 31 item 6: before, such an upload was lost with no message at all).
UPLOAD_TOO_LARGE = ("Not uploaded: {names} ({total} MB together) exceed the dashboard's upload cap of {cap} MB, and the "
                    "browser connection would drop them without a message. Upload fewer or smaller files, ingest it "
                    "with `engram ingest FILE`, or restart with `engram dashboard --max-upload-mb N`.")


def upload_cap_bytes() -> int:
    """The websocket cap the page checks uploads against, in bytes: ``$ENGRAM_DASHBOARD_MAX_UPLOAD_MB`` (set by
    ``engram dashboard``) or 100 MB, less 64 KiB for the message's own fields."""
    try:
        mb = int(os.environ.get(MAX_UPLOAD_ENV, DEFAULT_MAX_MESSAGE_MB))
    except ValueError:
        mb = DEFAULT_MAX_MESSAGE_MB
    return max(1, mb) * 1024 * 1024 - 64 * 1024

#: File types the repository accepts (for the FileUpload ``accept`` filter).
ACCEPT = ".pdf,.html,.htm,.txt,.md"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _uploaded_files(value: Any) -> list[tuple[str, bytes]]:
    """(name, bytes) of a FileUpload value (ipywidgets 8: a tuple of dicts with ``name`` and ``content``)."""
    files = []
    for item in value or ():
        content = item["content"]
        files.append((str(item["name"]), content.tobytes() if hasattr(content, "tobytes") else bytes(content)))
    return files


def detail_html(detail: Any) -> str:
    """HTML of a :class:`~engram_kit.ingestion.documents.DocumentDetail`."""
    meta = detail.metadata
    authors = ", ".join(meta.authors.value or []) if meta.authors.value else "?"
    rows = [f"<p><b>{_e(meta.title.value or detail.info.get('filename', detail.id))}</b> "
            f"<span class='engram-scores'>[{_e(detail.status)}] {_e(detail.id)}</span><br>"
            f"<span class='engram-scores'>{_e(authors)} &middot; {_e(meta.year.value or '?')} &middot; "
            f"DOI {_e(meta.doi.value or '?')} &middot; title from {_e(meta.title.source)} "
            f"(conf {meta.title.confidence:.2f})</span></p>"]
    if detail.error:
        rows.append(f"<p style='color:#c62828'>{_e(detail.error)}</p>")
    if detail.summary:
        rows.append(f"<p><i>{_e(detail.summary)}</i></p>")
    if detail.stats:
        rows.append("<p class='engram-scores'>" + ", ".join(f"{_e(k)}={_e(v)}" for k, v in detail.stats.items())
                    + "</p>")
    if not detail.sections.empty:
        body = "".join(f"<tr><td>{'' if pd.isna(r.page) else int(r.page)}</td><td>{_e(r.title)}</td>"
                       f"<td>{r.passages}</td><td>{_e((r.summary or '')[:200])}</td></tr>"
                       for r in detail.sections.itertuples())
        rows.append("<b>Sections</b><table style='font-size:11px'><tr><th>page</th><th>title</th><th>passages</th>"
                    f"<th>summary</th></tr>{body}</table>")
    if not detail.entities.empty:
        top = detail.entities.head(30)
        body = "".join(f"<tr><td>{_e(r.name)}</td><td>{_e(r.entity_name or '—')}</td><td>{_e(r.entity_type)}</td>"
                       f"<td>{r.count}</td><td>{'' if pd.isna(r.confidence) else f'{float(r.confidence):.2f}'}</td></tr>"
                       for r in top.itertuples())
        rows.append("<b>Entities</b><table style='font-size:11px'><tr><th>mention</th><th>entity</th><th>type</th>"
                    f"<th>count</th><th>confidence</th></tr>{body}</table>")
    return "".join(rows)


class DocumentRepositoryWidget:
    """Upload and manage the workspace's uploaded documents (see the module docstring).

    Parameters
    ----------
    workspace : an open workspace; uploads, delete and reprocess need it writable.
    """

    def __init__(self, workspace: Any) -> None:
        self.workspace = workspace
        self.repository = workspace.documents
        writable = not workspace.read_only
        why = "" if writable else "The workspace is open read-only (another process holds it): uploads are disabled."
        self.upload = widgets.FileUpload(accept=ACCEPT, multiple=True, description="Upload", disabled=not writable)
        self.upload.add_class("engram-upload")
        self.upload.observe(lambda ch: self.process_uploads(_uploaded_files(ch["new"])), names="value")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="", layout=widgets.Layout(width="300px"))
        # the browser sends an upload over the kernel's websocket, which drops a message above its cap (100 MB in
        # Jupyter Server and Voila) without telling the kernel: say the limits before the upload, not after
        why = why or UPLOAD_LIMITS_NOTE
        self.upload_status = widgets.HTML(f"<i>{_e(why)}</i>" if why else "")
        # read by the page's script, which refuses an upload above the cap and says so in the status line; a widget
        # of its own, since the status line is rewritten while files are processed
        self.upload_cap = widgets.HTML(f'<span class="engram-upload-cap" data-cap="{upload_cap_bytes()}" '
                                       f'data-message="{_e(UPLOAD_TOO_LARGE)}"></span>')
        self.upload_status.add_class("engram-upload-status")
        self.search = widgets.Text(placeholder="search title or file name", continuous_update=False)
        self.status_filter = widgets.Dropdown(options=STATUS_OPTIONS, value="all", description="Status:")
        self.search.observe(lambda _: self.refresh(), names="value")
        self.status_filter.observe(lambda _: self.refresh(), names="value")
        self.select = widgets.Select(rows=10, layout=widgets.Layout(width="100%"))
        self.select.observe(lambda ch: self.show_detail(ch["new"]) if ch["new"] else None, names="value")
        self.detail = widgets.HTML("<i>Select a document.</i>", layout=widgets.Layout(max_height="520px",
                                                                                     overflow="auto"))
        self.delete_button = widgets.Button(description="delete", button_style="danger", disabled=True)
        self.reprocess_button = widgets.Button(description="reprocess", disabled=True)
        self.confirm = widgets.HBox([])
        self.delete_button.on_click(lambda _: self._ask_confirmation("delete"))
        self.reprocess_button.on_click(lambda _: self._ask_confirmation("reprocess"))
        self._writable = writable
        left = widgets.VBox([widgets.HBox([self.search, self.status_filter]), self.select],
                            layout=widgets.Layout(width="45%"))
        right = widgets.VBox([widgets.HBox([self.delete_button, self.reprocess_button]), self.confirm, self.detail],
                             layout=widgets.Layout(width="54%"))
        self.widget = widgets.VBox([widgets.HBox([self.upload, self.progress, self.upload_cap]), self.upload_status,
                                    widgets.HBox([left, right])])
        self.widget.add_class("engram-documents")
        self.refresh()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def listing(self) -> Any:
        """The current listing (``DocumentRepository.list`` with the search and status filters)."""
        status = None if self.status_filter.value == "all" else self.status_filter.value
        return self.repository.list(search=self.search.value or None, status=status)

    def refresh(self) -> None:
        frame = self.listing()
        current = self.select.value
        self.select.options = [(f"[{r.status}] {(r.title or r.filename)[:60]} ({r.passages} passages)", r.id)
                               for r in frame.itertuples()]
        if current in set(frame["id"]):
            self.select.value = current

    def process_uploads(self, files: list[tuple[str, bytes]]) -> list[Any]:
        """Add each (name, bytes) file in turn, showing its status; returns the DocumentReports."""
        if not files:
            return []
        reports, lines = [], {name: "queued" for name, _ in files}

        def show() -> None:
            self.upload_status.value = "<br>".join(f"{_e(n)}: {_e(s)}" for n, s in lines.items())

        self.progress.max, self.progress.value = len(files), 0
        for name, data in files:
            lines[name] = f"processing ({len(data) / 1e6:.1f} MB)…"
            show()
            try:
                report = self.repository.add_bytes(data, name, raise_on_error=False)
            except EngramError as exc:
                lines[name] = f"error: {exc}"
            else:
                reports.append(report)
                lines[name] = str(report).split(": ", 1)[-1]
            self.progress.value += 1
            show()
        self.refresh()
        return reports

    def show_detail(self, doc_id: str) -> str:
        try:
            self.detail.value = detail_html(self.repository.detail(doc_id))
        except EngramError as exc:
            self.detail.value = f"<span style='color:#c62828'>{_e(exc)}</span>"
        self.delete_button.disabled = self.reprocess_button.disabled = not self._writable
        self.confirm.children = []
        return self.detail.value

    def _ask_confirmation(self, action: str) -> None:
        doc_id = self.select.value
        if not doc_id:
            return
        yes = widgets.Button(description=f"yes, {action}", button_style="danger" if action == "delete" else "warning")
        no = widgets.Button(description="cancel")
        yes.on_click(lambda _: self.apply(action, doc_id))
        no.on_click(lambda _: setattr(self.confirm, "children", []))
        self.confirm.children = [widgets.HTML(f"{_e(action.title())} {_e(doc_id)}? "), yes, no]

    def apply(self, action: str, doc_id: str) -> str:
        """Run a confirmed ``delete`` or ``reprocess`` and report the outcome."""
        self.confirm.children = []
        try:
            if action == "delete":
                removed = self.repository.delete(doc_id)
                message = f"Deleted {doc_id} ({removed} passages)."
                self.detail.value = f"<i>{_e(message)}</i>"
            else:
                message = str(self.repository.reprocess(doc_id, raise_on_error=False))
                self.show_detail(doc_id)
        except EngramError as exc:
            message = f"error: {exc}"
        self.upload_status.value = _e(message)
        self.refresh()
        return message
