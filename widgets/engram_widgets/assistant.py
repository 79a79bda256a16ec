"""The research assistant: chat, knowledge-graph and evidence panels over one workspace.

Flow of a question (each step is rendered as soon as it is known, so the answer "streams"):

1. ``Workspace.retrieve`` -> the resolved entities (PPR seeds) are shown first, then the ranked passages;
2. ``Workspace.answer_graph`` -> the graph panel (PPR heat, provenance styles, capped with "show more");
3. ``Workspace.compose_answer`` -> the cited claims, appended one by one;
4. the turn is saved to ``<workspace>/conversations/<id>.json`` (reopen it from the history list).

Clicking a graph node highlights the passages that mention it; "highlight entities" on a passage card
highlights the graph nodes it mentions. The widgets compute nothing: every number comes from the core
result objects (:class:`~engram_kit.retrieval.results.RetrievalResult`, :class:`~engram_kit.answering.Answer`,
:class:`~engram_kit.exports.AnswerGraph`).
"""

from __future__ import annotations

import html
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from engram_kit.agents.registry import spec_for_event
from engram_kit.answering import Answer
from engram_kit.errors import EngramError
from engram_kit.exports import AnswerGraph, export_answer, kind_color
from engram_kit.retrieval.results import PassageHit, RetrievalResult
from engram_widgets.conversations import Conversation, conversation_path, list_conversations
from engram_widgets.graph import graph_widget, legend_html, refit, set_highlight

log = logging.getLogger(__name__)

#: Nodes drawn at first; "show more" adds :data:`GRAPH_STEP` at a time (readability, layout time).
GRAPH_FIRST = 80
GRAPH_STEP = 50
#: Characters of passage text shown before "show text" expands it.
SNIPPET_CHARS = 260
#: CSS class of a highlighted passage card (the browser test looks for it).
CARD_HIGHLIGHT = "engram-highlight"
#: Style sheet of the workbench widgets (HTML widgets cannot carry a stylesheet of their own).
CSS = """<style>
.engram-card { border: 1px solid #ddd; border-radius: 6px; padding: 4px 8px; margin: 3px 0; background: #fff; }
.engram-card.engram-highlight { border: 2px solid #00c853; background: #e8f5e9; }
.engram-badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 10px; color: #fff; }
.engram-badge-pubmed { background: #1f6fb4; } .engram-badge-uploaded { background: #2e7d32; }
.engram-badge-literature { background: #5c6bc0; } .engram-badge-graph { background: #8d6e63; }
.engram-badge-desk { background: #00897b; }
.engram-chip { display: inline-block; margin: 2px 4px 2px 0; padding: 1px 8px; border-radius: 10px;
               font-size: 12px; border: 1px solid #bbb; background: #fafafa; }
.engram-scores { color: #666; font-size: 11px; }
.engram-banner { padding: 6px 10px; border-radius: 6px; background: #fff8e1; border: 1px solid #ffb300; }
</style>"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def entities_html(result: RetrievalResult) -> str:
    """Chips of the resolved question entities (name, kind colour, confidence, seed weight)."""
    if not result.entities:
        note = _e(result.fallback) if result.fallback else "No entity of the question resolved to the graph."
        return f'<div class="engram-entities"><b>Entities:</b> <i>{note}</i></div>'
    chips = "".join(
        f'<span class="engram-chip" title="{_e(e.node_id)} via {_e(e.method)}">'
        f'<span style="color:{kind_color(e.kind)}">&#9679;</span> <b>{_e(e.name)}</b> '
        f'<span class="engram-scores">{_e(e.kind)} &middot; conf {e.confidence:.2f} &middot; seed {e.seed_weight:.2f}'
        f'</span></span>'
        for e in result.entities)
    unresolved = (f' <span class="engram-scores">unresolved: {_e(", ".join(result.unresolved))}</span>'
                  if result.unresolved else "")
    return f'<div class="engram-entities"><b>Entities (PPR seeds):</b> {chips}{unresolved}</div>'


def claim_html(claim: Any) -> str:
    """One claim as a list item with its citation labels."""
    cites = "; ".join(_e(c.label) for c in claim.citations)
    kind = claim.citations[0].kind if claim.citations else ""
    tag = {"passage": "literature", "edge": "graph", "row": "desk"}.get(kind, kind)
    return (f'<li><span class="engram-badge engram-badge-{_e(tag)}">{_e(tag)}</span> {_e(claim.text)} '
            f'<span class="engram-scores">[{cites}]</span></li>')


# ------------------------------------------------------------------------------------- evidence panel
class PassageCard(widgets.VBox):
    """One passage: source badge, citation, scores, section/page, expandable text, "highlight entities"."""

    def __init__(self, hit: PassageHit, on_select: Callable[[str], object] | None = None) -> None:
        self.hit = hit
        page = f" &middot; p. {hit.page_start}" + (f"-{hit.page_end}" if hit.page_end and hit.page_end != hit.page_start
                                                   else "") if hit.page_start else ""
        section = f" &middot; {_e(hit.section)}" if hit.section else ""
        year = f" ({hit.year})" if hit.year else ""
        header = widgets.HTML(
            f'<span class="engram-badge engram-badge-{_e(hit.source)}">{_e(hit.source)}</span> '
            f'<b>#{hit.rank} {_e(hit.citation)}</b>{year}{section}{page}<br>'
            f'<span>{_e(hit.title)}</span><br>'
            f'<span class="engram-scores">score {hit.score:.3f} &middot; PPR {hit.ppr_score:.3f} &middot; '
            f'semantic {hit.semantic_score:.3f}</span>'
            + (f'<br><span class="engram-scores">via {_e(hit.paths[0].describe())}</span>' if hit.paths else ""))
        short = hit.text if len(hit.text) <= SNIPPET_CHARS else hit.text[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
        self.text = widgets.HTML(f'<div style="font-size:12px">{_e(short)}</div>')
        self.expand = widgets.ToggleButton(value=False, description="show text", layout=widgets.Layout(width="90px"),
                                           disabled=len(hit.text) <= SNIPPET_CHARS)
        self.expand.observe(lambda ch: self._toggle(ch["new"], short), names="value")
        self.select = widgets.Button(description="highlight entities", layout=widgets.Layout(width="130px"),
                                     tooltip="Highlight the graph entities this passage mentions")
        self.select.add_class("engram-passage-select")
        if on_select is not None:
            self.select.on_click(lambda _: on_select(hit.passage_id))
        # flex "0 0 auto": inside the scrolling list a card keeps its height instead of being squeezed
        super().__init__([header, self.text, widgets.HBox([self.expand, self.select])],
                         layout=widgets.Layout(flex="0 0 auto"))
        self.add_class("engram-card")

    def _toggle(self, expanded: bool, short: str) -> None:
        self.text.value = f'<div style="font-size:12px">{_e(self.hit.text if expanded else short)}</div>'
        self.expand.description = "hide text" if expanded else "show text"

    def set_highlight(self, on: bool) -> None:
        (self.add_class if on else self.remove_class)(CARD_HIGHLIGHT)


class EvidencePanel:
    """Passage cards (ranked) and a Sources tab grouping the passages by document."""

    def __init__(self, on_passage_select: Callable[[str], object] | None = None) -> None:
        self.on_passage_select = on_passage_select
        self.cards: dict[str, PassageCard] = {}
        self.passages = widgets.VBox(layout=widgets.Layout(max_height="640px", overflow="auto"))
        self.sources = widgets.VBox()
        self.tabs = widgets.Tab([self.passages, self.sources])
        self.tabs.set_title(0, "Passages")
        self.tabs.set_title(1, "Sources")
        self.widget = widgets.VBox([widgets.HTML("<b>Evidence</b>"), self.tabs])
        self.widget.add_class("engram-evidence")

    def show(self, result: RetrievalResult) -> None:
        self.cards = {h.passage_id: PassageCard(h, self.on_passage_select) for h in result.passages}
        self.passages.children = list(self.cards.values()) or [widgets.HTML("<i>No passage found.</i>")]
        by_doc: dict[str, list[PassageHit]] = {}
        for hit in result.passages:
            by_doc.setdefault(hit.article_id, []).append(hit)
        rows = []
        for hits in by_doc.values():
            first = hits[0]
            ranks = ", ".join(f"#{h.rank}" for h in hits)
            rows.append(widgets.HTML(
                f'<div class="engram-card"><span class="engram-badge engram-badge-{_e(first.source)}">'
                f'{_e(first.source)}</span> <b>{_e(first.citation.split(",")[0])}</b> {_e(first.title)}'
                f'{f" ({first.year})" if first.year else ""}<br><span class="engram-scores">{len(hits)} passage(s): '
                f'{ranks} &middot; best score {max(h.score for h in hits):.3f}</span></div>'))
        self.sources.children = rows
        self.tabs.set_title(1, f"Sources ({len(by_doc)})")
        self.tabs.set_title(0, f"Passages ({len(result.passages)})")

    def highlight(self, passage_ids: set[str] | tuple[str, ...]) -> int:
        """Highlight the cards of ``passage_ids`` (others un-highlighted); returns how many are highlighted."""
        wanted = set(passage_ids)
        for pid, card in self.cards.items():
            card.set_highlight(pid in wanted)
        self.tabs.selected_index = 0
        return sum(1 for pid in self.cards if pid in wanted)


# ---------------------------------------------------------------------------------------- graph panel
class GraphPanel:
    """The answer graph in ipycytoscape, capped with "show more"; node clicks go to ``on_node_click``."""

    def __init__(self, on_node_click: Callable[[str], object] | None = None, *, height: str = "480px",
                 first: int = GRAPH_FIRST, step: int = GRAPH_STEP) -> None:
        self.on_node_click = on_node_click
        self.height, self.first, self.step = height, first, step
        self.graph: AnswerGraph | None = None
        self.shown: AnswerGraph | None = None
        self.cytoscape: Any = None
        self.info = widgets.HTML("")
        self.more = widgets.Button(description=f"show more (+{step})", disabled=True,
                                   layout=widgets.Layout(width="150px"))
        self.more.on_click(lambda _: self._draw(len(self.shown or ()) + self.step))
        self.area = widgets.Box(layout=widgets.Layout(width="100%"))
        self.widget = widgets.VBox([widgets.HTML("<b>Knowledge graph</b>"), widgets.HBox([self.info, self.more]),
                                    self.area, widgets.HTML(legend_html())])
        self.widget.add_class("engram-graph-panel")

    def show(self, graph: AnswerGraph) -> None:
        self.graph = graph
        self._draw(self.first)

    def _draw(self, n: int) -> None:
        if self.graph is None:
            return
        self.shown = self.graph.top(n) if len(self.graph) else self.graph
        old = self.cytoscape
        self.cytoscape = graph_widget(self.shown.to_cytoscape(), height=self.height)
        click = self.on_node_click
        if click is not None:
            self.cytoscape.on("node", "click", lambda event: click(str(event["data"]["id"])))
        self.area.children = [self.cytoscape]
        if old is not None:
            _close_graph(old)
        counts = self.shown.edges["provenance"].value_counts().to_dict()
        edges = ", ".join(f"{v} {k}" for k, v in counts.items()) or "no edges"
        self.info.value = (f'<span class="engram-scores">{len(self.shown)} of {len(self.graph)} nodes'
                           f'{" (capped)" if self.graph.truncated else ""}; edges: {edges}. '
                           "Click a node to highlight the passages that mention it.</span>")
        self.more.disabled = len(self.shown) >= len(self.graph)

    def highlight(self, node_ids: set[str] | tuple[str, ...]) -> int:
        return set_highlight(self.cytoscape, set(node_ids)) if self.cytoscape is not None else 0

    def refit(self) -> None:
        if self.cytoscape is not None:
            refit(self.cytoscape)


def _close_graph(widget) -> None:  # noqa: ANN001
    """Close an ipycytoscape widget and its node/edge models (they are widgets too)."""
    for element in [*widget.graph.nodes, *widget.graph.edges]:
        element.close()
    widget.graph.close()
    widget.close()


# ----------------------------------------------------------------------------------------- chat panel
class ChatPanel:
    """Question box, source filter, status line, entities, streamed answer, history and export."""

    def __init__(self) -> None:
        self.question = widgets.Textarea(placeholder="Ask a biomedical question, e.g. Which genes interact with BACE1?",
                                         layout=widgets.Layout(width="100%", height="60px"))
        self.question.add_class("engram-question")
        self.source = widgets.ToggleButtons(options=[("all", "all"), ("PubMed", "pubmed"), ("uploaded", "uploaded")],
                                            value="all", description="Sources:",
                                            style={"button_width": "80px", "description_width": "60px"})
        self.ask = widgets.Button(description="Ask", button_style="primary", layout=widgets.Layout(width="90px"))
        self.ask.add_class("engram-ask")
        self.status = widgets.HTML("")
        self.status.add_class("engram-status")
        self.entities = widgets.HTML("")
        self.answer = widgets.HTML("")
        self.answer.add_class("engram-answer")
        self.history = widgets.Dropdown(description="History:", options=[("(new conversation)", "")], value="",
                                        layout=widgets.Layout(width="420px"))
        self.new = widgets.Button(description="new conversation", layout=widgets.Layout(width="150px"))
        self.export = widgets.Button(description="export answer", disabled=True, layout=widgets.Layout(width="130px"),
                                     tooltip="Cytoscape JSON, GraphML, SVG, PNG, passages/entities CSV, run bundle")
        self.exported = widgets.HTML("")
        self.widget = widgets.VBox([
            widgets.HBox([self.history, self.new]),
            self.question, widgets.HBox([self.source, self.ask, self.export]), self.status,
            self.entities, self.answer, self.exported,
        ])
        self.widget.add_class("engram-chat")


# ---------------------------------------------------------------------------------------- agents panel
def _report_markdown(report: Any) -> str:
    """Markdown of an agent report or desk result: its ``to_markdown``/``describe``, else its dict."""
    for name in ("to_markdown", "describe"):
        method = getattr(report, name, None)
        if callable(method):
            return str(method())
    to_dict = getattr(report, "to_dict", None)
    return "```\n" + str(to_dict() if callable(to_dict) else report)[:4000] + "\n```"


class AgentsPanel:
    """Agents' results (pathway, drug, synthesis) and evidence-desk claims, rendered as events arrive.

    Uses ``Workspace.agent_events`` (typed event stream of :mod:`engram_kit.agents.events`) and
    ``Workspace.evidence_desk().investigate`` (row-cited claims); both are optional: a workspace without
    them shows a note instead.
    """

    def __init__(self) -> None:
        self.run_agents = widgets.Checkbox(value=False, description="agents (pathway, drug, synthesis)", indent=False)
        self.run_desk = widgets.Checkbox(value=False, description="evidence desk (row-cited claims)", indent=False)
        self.log = widgets.HTML("")
        self.output = widgets.Output(layout=widgets.Layout(max_height="420px", overflow="auto"))
        self.events: list[dict[str, Any]] = []
        self.widget = widgets.VBox([widgets.HBox([self.run_agents, self.run_desk]), self.log, self.output])
        self.widget.add_class("engram-agents")

    @property
    def enabled(self) -> bool:
        return bool(self.run_agents.value or self.run_desk.value)

    def run(self, workspace: Any, question: str) -> None:
        from IPython.display import Markdown, display

        self.output.clear_output()
        self.events = []
        lines: list[str] = []
        if self.run_agents.value:
            stream = getattr(workspace, "agent_events", None)
            if stream is None:
                lines.append("<i>This engram-kit has no agents (Workspace.agent_events).</i>")
            else:
                for event in stream(question):
                    record = event.to_dict()
                    self.events.append(record)
                    kind = record.get("type", "")
                    if kind in ("status", "error", "agents_done", "resolved"):
                        text = record.get("message") or record.get("error_type") or ""
                        if kind == "agents_done":
                            text = f"done: {', '.join(record.get('succeeded', []))}" + (
                                f"; failed: {', '.join(record.get('failed', []))}" if record.get("failed") else "")
                        lines.append(f"<span class='engram-scores'>[{_e(record.get('agent', ''))}] {_e(kind)} "
                                     f"{_e(text)}</span>")
                        self.log.value = "<br>".join(lines[-8:])
                    elif kind == "synthesis":
                        with self.output:
                            display(Markdown("#### Synthesis agent\n\n" + _report_markdown(event.report)))
                    elif (spec := spec_for_event(kind)) is not None and kind != "done":  # registered agents' reports
                        with self.output:
                            display(Markdown(f"#### {kind.title()} agent\n\n" + spec.render(event.report)))
        if self.run_desk.value:
            desk = getattr(workspace, "evidence_desk", None)
            if desk is None:
                lines.append("<i>This engram-kit has no evidence desk.</i>")
            else:
                try:
                    result = desk().investigate(question)
                except EngramError as exc:
                    lines.append(f"<span style='color:#c62828'>evidence desk: {_e(exc)}</span>")
                else:
                    with self.output:
                        display(Markdown("#### Evidence desk\n\n" + _report_markdown(result)))
        self.log.value = "<br>".join(lines[-8:])


# --------------------------------------------------------------------------------------- the assistant
class ResearchAssistant:
    """Chat + knowledge graph + evidence over a :class:`~engram_kit.workspace.Workspace`.

    Parameters
    ----------
    workspace : an open workspace (read-only is fine: asking only reads).
    graph_height : CSS height of the graph panel.
    history_path : folder whose ``conversations/`` sub-folder keeps the history (default: the workspace; a
        read-only workspace, e.g. a dashboard beside a notebook, keeps the conversation in the page only, since
        read-only means nothing is written into the workspace folder).

    Examples
    --------
    >>> assistant = ResearchAssistant(ws)          # doctest: +SKIP
    >>> assistant                                    # displays the three panels   # doctest: +SKIP
    >>> assistant.ask("Which genes interact with BACE1?")   # also callable from code  # doctest: +SKIP
    """

    def __init__(self, workspace: Any, *, graph_height: str = "480px", history_path: str | Path | None = None) -> None:
        self.workspace = workspace
        self.history_path = Path(history_path) if history_path is not None else Path(workspace.path)
        #: False for a read-only workspace without an explicit ``history_path``: conversations are not saved.
        self.saves_history = history_path is not None or not getattr(workspace, "read_only", False)
        self.chat = ChatPanel()
        self.graph_panel = GraphPanel(self.select_node, height=graph_height)
        self.evidence = EvidencePanel(self.select_passage)
        self.agents = AgentsPanel()
        self.conversation = Conversation()
        self.answer: Answer | None = None
        self.graph: AnswerGraph | None = None
        self._busy = threading.Lock()
        self._warming = threading.Lock()
        self.chat.ask.on_click(lambda _: self.ask(self.chat.question.value, self.chat.source.value))
        self.chat.new.on_click(lambda _: self.new_conversation())
        self.chat.export.on_click(lambda _: self.export())
        self.chat.history.observe(self._on_history, names="value")
        self.refresh_history()
        body = widgets.GridBox([self.graph_panel.widget, self.evidence.widget],
                               layout=widgets.Layout(grid_template_columns="58% 41%", grid_gap="8px"))
        agents = widgets.Accordion([self.agents.widget])
        agents.set_title(0, "Agents and evidence desk")
        agents.selected_index = None
        self.widget = widgets.VBox([widgets.HTML(CSS), self.chat.widget, body, agents])
        self.widget.add_class("engram-assistant")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def warm_up(self) -> float:
        """Load the embedding model, lexicon and graph index now (the dashboard calls this in a background
        thread after the first paint); a question asked meanwhile waits for it. Returns seconds spent."""
        started = time.perf_counter()
        with self._warming:
            try:
                self.workspace.embedder.encode(["warm up"])
                _ = self.workspace.lexicon
                self.workspace.graph_index()
            except EngramError as exc:  # the first question will report the same problem to the user
                log.warning("warm-up failed: %s", exc)
        return time.perf_counter() - started

    # --- asking --------------------------------------------------------------------------------
    def ask(self, question: str, source: str = "all") -> Answer | None:
        """Answer ``question`` and render it step by step; returns the answer (None on an error shown)."""
        if not self._busy.acquire(blocking=False):
            self.chat.status.value = "<i>Still answering the previous question…</i>"
            return None
        self.chat.ask.disabled = True
        try:
            return self._ask(question, source)
        except EngramError as exc:
            self.chat.status.value = f'<span style="color:#c62828">{_e(exc)}</span>'
            return None
        finally:
            self.chat.ask.disabled = False
            self._busy.release()

    def _ask(self, question: str, source: str) -> Answer:
        started = time.perf_counter()
        self.chat.status.value = "<i>Resolving entities and ranking passages…</i>"
        with self._warming:  # wait for a warm-up in progress (it loads what retrieval needs)
            pass
        self.chat.answer.value = ""
        result = self.workspace.retrieve(question, source=source)
        self.chat.entities.value = entities_html(result)
        self.evidence.show(result)
        self.chat.status.value = "<i>Building the knowledge graph…</i>"
        self.graph = self.workspace.answer_graph(result, max_nodes=None)
        self.graph_panel.show(self.graph)
        self.chat.status.value = "<i>Composing the cited answer…</i>"
        answer = self.workspace.compose_answer(result)
        self._render_answer(answer, stream=True)
        self.answer = answer
        self.conversation.add(answer, source)
        self._save_conversation()
        timings = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.timings.items())
        self.chat.status.value = (f'<span class="engram-scores">Answered in {time.perf_counter() - started:.1f} s '
                                  f'({timings}); mode: {_e(answer.mode)}.</span>')
        self.chat.export.disabled = False
        if self.agents.enabled:
            self.agents.run(self.workspace, question)
        return answer

    def _render_answer(self, answer: Answer, *, stream: bool) -> None:
        notes = "".join(f"<p><i>{_e(n)}</i></p>" for n in answer.notes)
        head = f"<b>Q:</b> {_e(answer.question)}{notes}"
        if not answer.claims:
            self.chat.answer.value = head + "<p>No evidence was found for this question in the workspace.</p>"
            return
        items: list[str] = []
        for claim in answer.claims:
            items.append(claim_html(claim))
            if stream:  # each claim reaches the page as soon as it is rendered
                self.chat.answer.value = f"{head}<ul>{''.join(items)}</ul>"
        self.chat.answer.value = f"{head}<ul>{''.join(items)}</ul>"

    def show_answer(self, answer: Answer) -> None:
        """Render a stored answer (from the history) in all three panels, without retrieving again."""
        result = answer.retrieval
        self.chat.question.value = answer.question
        self.chat.entities.value = entities_html(result)
        self.evidence.show(result)
        from engram_kit.exports import build_answer_graph

        mentions = (self.workspace.store.passage_mentions([p.passage_id for p in result.passages])
                    if result.passages else None)
        self.graph = build_answer_graph(result, mentions, max_nodes=None)
        self.graph_panel.show(self.graph)
        self._render_answer(answer, stream=False)
        self.answer = answer
        self.chat.export.disabled = False

    # --- cross-highlighting --------------------------------------------------------------------
    def select_node(self, node_id: str) -> int:
        """Highlight the passages that mention ``node_id`` (and the node); returns the passage count."""
        if self.graph is None:
            return 0
        passages = self.graph.passages_of(node_id)
        self.graph_panel.highlight({node_id})
        n = self.evidence.highlight(passages)
        name = self.graph.nodes.loc[self.graph.nodes["id"] == node_id, "name"]
        label = name.iloc[0] if len(name) else node_id
        self.chat.status.value = (f'<span class="engram-scores"><b>{_e(label)}</b>: mentioned by {n} of the '
                                  f'retrieved passages (highlighted).</span>')
        return n

    def select_passage(self, passage_id: str) -> int:
        """Highlight the graph entities ``passage_id`` mentions (and its card); returns the node count."""
        if self.graph is None:
            return 0
        self.evidence.highlight({passage_id})
        n = self.graph_panel.highlight(set(self.graph.entities_of(passage_id)))
        self.chat.status.value = f'<span class="engram-scores">Passage mentions {n} entities of the graph.</span>'
        return n

    # --- conversations -------------------------------------------------------------------------
    def _save_conversation(self) -> None:
        if not self.saves_history:
            self.chat.status.value = ('<span class="engram-scores">Read-only workspace: this conversation is kept '
                                      'in this page only.</span>')
            return
        try:
            self.conversation.save(self.history_path)
        except OSError as exc:  # a read-only file system must not lose the answer on screen
            log.warning("could not save conversation %s: %s", self.conversation.id, exc)
            return
        self.refresh_history(select=self.conversation.id)

    def refresh_history(self, select: str | None = None) -> None:
        frame = list_conversations(self.history_path)
        options = [("(new conversation)", "")] + [
            (f"{r.updated[:16].replace('T', ' ')}  {r.title[:50]} ({r.turns})", r.id) for r in frame.itertuples()]
        self._updating = True
        try:
            self.chat.history.options = options
            self.chat.history.value = select if select in {v for _, v in options} else ""
        finally:
            self._updating = False

    def _on_history(self, change: dict[str, Any]) -> None:
        if getattr(self, "_updating", False) or not change["new"]:
            return
        self.open_conversation(change["new"])

    def open_conversation(self, conversation_id: str) -> Conversation:
        """Reopen a saved conversation and show its last answer."""
        conv = Conversation.load(conversation_path(self.history_path, conversation_id))
        self.conversation = conv
        if conv.turns:
            self.show_answer(conv.turns[-1].to_answer())
            self.chat.status.value = (f'<span class="engram-scores">Reopened "{_e(conv.title)}" '
                                      f'({len(conv.turns)} turn(s)).</span>')
        return conv

    def new_conversation(self) -> None:
        self.conversation = Conversation()
        self.refresh_history()
        self.chat.status.value = '<span class="engram-scores">New conversation.</span>'

    # --- export ----------------------------------------------------------------------------------
    def export(self) -> dict[str, Any]:
        """Export the current answer into ``<history_path>/exports/<timestamp>/``; returns format -> path."""
        if self.answer is None or self.graph is None:
            return {}
        folder = self.history_path / "exports" / datetime.now().strftime("%Y%m%d-%H%M%S")
        files = export_answer(self.answer, self.graph, folder)
        self.chat.exported.value = ('<span class="engram-scores">Exported to ' + _e(folder) + ": "
                                    + ", ".join(_e(p.name) for p in files.values()) + "</span>")
        return files

    def refit(self) -> None:
        """Re-fit the graph (call when the assistant becomes visible in a Tab)."""
        self.graph_panel.refit()
