"""The research assistant: question and answer beside the knowledge graph and the evidence.

Flow of a question (each step is rendered as soon as it is known, with its elapsed time):

1. ``Workspace.retrieve`` -> how the question was read (the resolved seeds as chips the reader can remove or
   replace, the unresolved terms) and the ranked passages;
2. ``Workspace.compose_answer`` -> the headline (the answer's first line), the exact answer above the
   evidence (each item a button showing the sentences that support it, with its score and citations; a
   yes/no question shows its verdict) and the cited claims; every citation links to PubMed/DOI when it has
   an address and to its evidence card and graph nodes (:func:`engram_kit.exports.citation_link`);
3. ``Workspace.answer_graph(answer)`` -> the graph panel: the answer's own graph (question entities, answer
   items, the edges and passages supporting them, <= 40 nodes) that "expand" grows into the retrieval's
   whole graph, a legend with counts per kind that filters;
4. the turn is saved to ``<workspace>/conversations/<id>.json`` (reopen it from the history list).

Below them, the evidence desk: agents' reports and row-cited claims for the question, and a Cypher mode
(:class:`~engram_widgets.cypher.CypherPanel`) for a researcher's own read-only query, rows cited ``q1:r1``...

Clicking a graph node highlights the passages that mention it; "highlight entities" on a passage card
highlights the graph nodes it mentions. The widgets compute nothing: every number comes from the core
result objects (:class:`~engram_kit.retrieval.results.RetrievalResult`, :class:`~engram_kit.answering.Answer`,
:class:`~engram_kit.exports.AnswerGraph`).

Layout: a CSS container query puts question, answer and evidence (answer and evidence list each scrolling in
a bounded box) beside the graph when the assistant is at least :data:`SIDE_BY_SIDE_PX` wide, so all of it is
on the first screen at 1400x900. Below that width the panels stack in reading order: the question bar, the
graph, the answer (a bounded box), the evidence, so the graph starts on the first screen at 1000x700.
"""

from __future__ import annotations

import base64
import html
import inspect
import logging
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from engram_kit.agents.registry import spec_for_event
from engram_kit.answering import Answer
from engram_kit.errors import EngramError
from engram_kit.exports import (FOCUS_NODES, KIND_COLORS, KIND_TEXT_COLORS, AnswerGraph, CitationLink, citation_link,
                                export_bytes, kind_color)
from engram_kit.retrieval.results import PassageHit, RetrievalResult
from engram_widgets.conversations import Conversation, conversation_path, list_conversations
from engram_widgets.cypher import CypherPanel
from engram_widgets.graph import graph_widget, legend_html, refit, set_highlight

log = logging.getLogger(__name__)

#: Nodes of the focused first view; "expand" adds :data:`GRAPH_STEP` at a time (readability, layout time).
GRAPH_FIRST = FOCUS_NODES
GRAPH_STEP = 20
#: Characters of passage text shown before "show text" expands it.
SNIPPET_CHARS = 260
#: Width (px) of the assistant from which question/answer/evidence sit beside the graph (the issue asks for
#: side by side at >= 1200 px wide and stacked below).
SIDE_BY_SIDE_PX = 1200
#: CSS height of the answer graph's drawing side by side: the window's height less what sits above it (page
#: header, tabs, the panel's toolbar and legend: the drawing starts ~190 px down at 1400x900) and the legend
#: below it, between 440 and 680 px (600 px at 1400x900). The page script fits the graph at the legible zoom
#: floor in this box.
GRAPH_CSS_HEIGHT = "clamp(440px, calc(100vh - 300px), 680px)"
#: The same, stacked (below :data:`SIDE_BY_SIDE_PX`): the panel comes right after the question bar, so the
#: drawing starts ~440 px down at 1000x700; 420 px there, 360 px at the least.
GRAPH_CSS_HEIGHT_STACKED = "clamp(360px, calc(100vh - 280px), 560px)"
#: CSS of the answer box and the evidence list side by side: both scroll inside the left column so that the
#: question, the answer and the first evidence cards are on the first screen at 1400x900 (answer <= 270 px,
#: evidence list <= 250 px there).
ANSWER_CSS_MAX = "calc(45vh - 135px)"
PASSAGES_CSS_MAX = "calc(55vh - 245px)"
#: CSS class of a highlighted passage card (the browser test looks for it).
CARD_HIGHLIGHT = "engram-highlight"
#: Style sheet of the workbench widgets (HTML widgets cannot carry a stylesheet of their own).
#: Stacked (narrow): the question bar, the graph, the answer, the evidence, history, agents, in that order
#: (the left/right columns are ``display: contents`` and ``order`` sorts their children). Side by side: the
#: left column holds question, answer and evidence (answer and evidence lists scroll in bounded boxes), the
#: right column the graph.
CSS = """<style>
.engram-assistant { container-type: inline-size; }
/* ipywidgets' HTML widgets use the 28 px control height as line height: text reads (and packs) better at 1.4 */
.engram-assistant .widget-html-content { line-height: 1.4; }
.engram-answer ul { margin: 4px 0; padding-left: 20px; } .engram-answer p { margin: 4px 0; }
.engram-body { display: flex !important; flex-direction: column; gap: 8px; width: 100%; }
.engram-body > .engram-left, .engram-body > .engram-right { display: contents !important; }
.engram-chat { order: 1; } .engram-graph-panel { order: 2; } .engram-answer-box { order: 3; }
.engram-evidence { order: 4; } .engram-history-row { order: 5; } .engram-agents-box { order: 6; }
.engram-answer-box { max-height: 260px; overflow: auto; flex: 0 0 auto; }
/* the box scrolls: its parts keep their own height (a flex column would squash them onto each other) */
.engram-answer-box > * { flex: 0 0 auto !important; }
.engram-assistant .engram-graph-panel .engram-graph { height: GRAPH_CSS_HEIGHT_STACKED !important; }
.engram-evidence .engram-passages { max-height: 520px; overflow: auto; }
@container (min-width: SIDE_PXpx) {
  .engram-body { display: grid !important; grid-template-columns: minmax(420px, 38%) minmax(0, 1fr);
                 align-items: start; column-gap: 16px; }
  .engram-body > .engram-left, .engram-body > .engram-right { display: flex !important; flex-direction: column;
                                                              gap: 6px; min-width: 0; }
  .engram-answer-box { max-height: ANSWER_CSS_MAX !important; min-height: 120px; }
  .engram-evidence .engram-passages { max-height: PASSAGES_CSS_MAX !important; min-height: 170px; }
  .engram-assistant .engram-graph-panel .engram-graph { height: GRAPH_CSS_HEIGHT !important; }
}
.engram-card { border: 1px solid #ddd; border-radius: 6px; padding: 4px 8px; margin: 3px 0; background: #fff; }
.engram-card.engram-highlight { border: 2px solid #00c853; background: #e8f5e9; }
.engram-badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; color: #fff; }
.engram-badge-pubmed { background: #1f6fb4; } .engram-badge-uploaded { background: #2e7d32; }
.engram-badge-literature { background: #5c6bc0; } .engram-badge-graph { background: #8d6e63; }
.engram-badge-desk { background: #00897b; }
.engram-chip { display: inline-block; margin: 2px 4px 2px 0; padding: 1px 8px; border-radius: 10px;
               font-size: 12px; border: 1px solid #bbb; background: #fafafa; }
.engram-scores { color: #555; font-size: 12px; }
.engram-banner { padding: 6px 10px; border-radius: 6px; background: #fff8e1; border: 1px solid #ffb300; }
.engram-answer li { margin-bottom: 4px; }
.engram-headline { font-size: 14px; } .engram-headline p { margin: 2px 0; }
.engram-exact-row { align-items: center; flex-wrap: wrap; }
.engram-exact-row button.engram-exact-item { width: auto; height: 24px; font-weight: bold; }
.engram-exact-row button.engram-exact-selected { background: #00c853; color: #fff; }
.engram-support { border-left: 3px solid #00c853; padding-left: 6px; }
.engram-support:empty { display: none; } .engram-support ul { margin: 2px 0; padding-left: 18px; }
mark.engram-mark { background: #c8f7c5; padding: 0 1px; }
a.engram-cite { color: #0b57d0; text-decoration: underline; cursor: pointer; }
a.engram-ext { text-decoration: none; margin-left: 2px; }
.engram-zoom-btn { display: none !important; }
.engram-steps { font-size: 12px; color: #444; }
.engram-seed-chip button { min-width: 0; }
.engram-kind-toggle { font-size: 12px !important; }
.engram-kind-toggle.engram-kind-off { background: #eeeeee !important; color: #777777 !important; }
KIND_RULES
</style>""".replace("SIDE_PX", str(SIDE_BY_SIDE_PX)).replace("GRAPH_CSS_HEIGHT_STACKED", GRAPH_CSS_HEIGHT_STACKED).replace(
    "GRAPH_CSS_HEIGHT", GRAPH_CSS_HEIGHT).replace("ANSWER_CSS_MAX", ANSWER_CSS_MAX).replace(
    "PASSAGES_CSS_MAX", PASSAGES_CSS_MAX).replace("KIND_RULES", "\n".join(
    f".engram-kind-toggle.engram-kind-{re.sub('[^a-z]+', '-', kind.lower())} {{ background: {color} !important; "
    f"color: {KIND_TEXT_COLORS.get(kind, '#ffffff')} !important; }}" for kind, color in KIND_COLORS.items()))

#: Retrieval steps as the status line names them (keys of ``RetrievalResult.timings``).
STEP_NAMES: dict[str, str] = {"resolve": "resolve entities", "ppr": "rank the graph (PPR)",
                              "semantic": "semantic search", "rank": "rank passages", "paths": "evidence paths"}


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def card_class(index: int) -> str:
    """CSS class of the ``index``-th evidence card (what a citation link scrolls to)."""
    return f"engram-card-{index}"


def entities_html(result: RetrievalResult) -> str:
    """Chips of the resolved question entities (name, kind colour, confidence, how resolved, seed weight) and
    the terms that did not resolve."""
    unresolved = (f'<div class="engram-scores"><b>Not found in the graph:</b> '
                  f'{_e(", ".join(result.unresolved))}</div>' if result.unresolved else "")
    if not result.entities:
        note = _e(result.fallback) if result.fallback else "No entity of the question resolved to the graph."
        return f'<div class="engram-entities"><b>Read as:</b> <i>{note}</i>{unresolved}</div>'
    chips = "".join(seed_chip_html(e) for e in result.entities)
    return f'<div class="engram-entities"><b>Read as (PPR seeds):</b> {chips}{unresolved}</div>'


def seed_chip_html(entity: Any) -> str:
    """One resolved entity: name, kind colour, kind, confidence and how it was resolved."""
    mention = f' for "{_e(entity.mention)}"' if getattr(entity, "mention", "") else ""
    return (f'<span class="engram-chip" title="{_e(entity.node_id)}{mention}">'
            f'<span style="color:{kind_color(entity.kind)}">&#9679;</span> <b>{_e(entity.name)}</b> '
            f'<span class="engram-scores">{_e(entity.kind)} &middot; conf {entity.confidence:.2f} &middot; '
            f'{_e(entity.method)}</span></span>')


def citation_html(link: CitationLink, card_index: int | None) -> str:
    """A citation: a link that jumps to its evidence card and graph nodes, plus an outside link (PubMed/DOI)."""
    attrs = f' data-card="{card_class(card_index)}"' if card_index is not None else ""
    attrs += f' data-nodes="{_e(" ".join(link.node_ids))}"'
    jump = f'<a class="engram-cite" href="#"{attrs} title="show the evidence">{_e(link.label)}</a>'
    if link.url:
        jump += (f'<a class="engram-ext" href="{_e(link.url)}" target="_blank" rel="noopener noreferrer" '
                 f'title="open {_e(link.url)}">&#8599;</a>')
    return jump


def claim_html(claim: Any, result: RetrievalResult | None = None, graph: AnswerGraph | None = None,
               cards: dict[str, int] | None = None) -> str:
    """One claim as a list item with its citations (links when ``result`` is given)."""
    kind = claim.citations[0].kind if claim.citations else ""
    tag = {"passage": "literature", "edge": "graph", "row": "desk"}.get(kind, kind)
    if result is None:
        cites = "; ".join(_e(c.label) for c in claim.citations)
    else:
        links = [citation_link(c, result, graph) for c in claim.citations]
        cites = "; ".join(citation_html(link, (cards or {}).get(link.passage_id)) for link in links)
    return (f'<li><span class="engram-badge engram-badge-{_e(tag)}">{_e(tag)}</span> {_e(claim.text)} '
            f'<span class="engram-scores">[{cites}]</span></li>')


def answer_nodes(answer: Answer, graph: AnswerGraph) -> list[str]:
    """Graph nodes the answer rests on, in citation order: the entities of each cited passage and both ends
    of each cited edge (the focus of the graph view)."""
    out: list[str] = []
    for claim in answer.claims:
        for citation in claim.citations:
            out += citation_link(citation, answer.retrieval, graph).node_ids
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------------------------- exact answer
#: Supporting sentences shown per exact item at most (the cited passages' lines naming it, then edges).
SUPPORT_SENTENCES = 6


def headline_html(answer: Answer) -> str:
    """The question and the headline (``Answer.headline``: names, yes/no, or why the data cannot answer), as
    HTML."""
    head = f"<p><b>A:</b> {_e(answer.headline)}</p>" if answer.headline else ""
    return f"<p><b>Q:</b> {_e(answer.question)}</p>{head}"


def _mark(text: str, names: tuple[str, ...]) -> str:
    """``text`` escaped, each occurrence of one of ``names`` (case-insensitive, whole words) in ``<mark>``."""
    wanted = sorted({n for n in names if n.strip()}, key=len, reverse=True)
    if not wanted:
        return _e(text)
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in wanted) + r")(?!\w)", re.IGNORECASE)
    out, last = [], 0
    for match in pattern.finditer(text):
        out += [_e(text[last:match.start()]), f'<mark class="engram-mark">{_e(match.group(0))}</mark>']
        last = match.end()
    return "".join(out) + _e(text[last:])


def _names_in(sentence: str, names: tuple[str, ...]) -> bool:
    low = sentence.lower()
    return any(re.search(r"(?<!\w)" + re.escape(n.lower()) + r"(?!\w)", low) for n in names if n.strip())


def support_sentences(answer: Answer, citations: tuple[Any, ...], names: tuple[str, ...] = (),
                      graph: AnswerGraph | None = None, limit: int = SUPPORT_SENTENCES) -> list[tuple[Any, str]]:
    """The sentences behind an exact answer item (or the yes/no verdict): ``(citation, sentence)`` pairs.

    A passage citation gives the answer's claim texts citing that passage that name the item (one of
    ``names``: its text and synonyms), else the sentences of the passage text naming it (split with
    :func:`engram_kit.text.sentence_texts`), else the passage's first claim; an edge citation gives the edge in
    words ("APP interacts with BACE1"), its ends named from ``graph`` when drawn there. At most ``limit``
    pairs, in citation order; a passage that is no longer in the retrieval and has no claim gives nothing.
    """
    from engram_kit.answering.parts import edge_ends
    from engram_kit.exports import relation_label
    from engram_kit.text import sentence_texts

    hits = {h.passage_id: h for h in answer.retrieval.passages}
    node_names: dict[str, str] = {}
    if graph is not None and len(graph):
        node_names = dict(zip(graph.nodes["id"].astype(str), graph.nodes["name"].astype(str)))
    out: list[tuple[Any, str]] = []
    for cite in citations:
        found: list[str] = []
        if cite.kind == "passage":
            claims = [c.text for c in answer.claims if any(x.kind == "passage" and x.ref == cite.ref
                                                             for x in c.citations)]
            found = [t for t in claims if _names_in(t, names)]
            if not found and cite.ref in hits:
                found = [t for t in sentence_texts(hits[cite.ref].text) if _names_in(t, names)][:2]
            if not found:
                found = claims[:1]
        elif cite.kind == "edge":
            try:
                source, rel, target = edge_ends(cite.ref)
            except ValueError:
                found = [cite.ref]
            else:
                found = [f"{node_names.get(source, source)} {relation_label(rel)} {node_names.get(target, target)}"]
        else:
            found = [cite.ref]
        out += [(cite, text) for text in dict.fromkeys(found)]
    return out[:limit]


def support_html(title: str, pairs: list[tuple[Any, str]], names: tuple[str, ...], result: RetrievalResult,
                 graph: AnswerGraph | None, cards: dict[str, int]) -> str:
    """The supporting sentences of ``title`` as a list, each with its citation link, the item's names marked."""
    if not pairs:
        return f"<p><b>{_e(title)}</b>: no sentence of the retrieved passages names it.</p>"
    items = "".join(f'<li>{_mark(text, names)} <span class="engram-scores">['
                    f'{citation_html(citation_link(cite, result, graph), cards.get(cite.ref))}]</span></li>'
                    for cite, text in pairs)
    return f'<p><b>{_e(title)}</b> rests on:</p><ul>{items}</ul>'


# ------------------------------------------------------------------------------------- evidence panel
class PassageCard(widgets.VBox):
    """One passage: source badge, linked citation, scores, section/page, expandable text, "highlight entities".

    ``index`` is its position in the ranking; the card carries :func:`card_class` ``(index)`` so a citation
    in the answer can scroll to it.
    """

    def __init__(self, hit: PassageHit, on_select: Callable[[str], object] | None = None, *, index: int = 0,
                 link: CitationLink | None = None) -> None:
        self.hit = hit
        link = link or CitationLink(hit.citation, "", hit.passage_id, ())
        section = f" &middot; {_e(hit.section)}" if hit.section else ""
        year = f" ({hit.year})" if hit.year else ""
        cite = (f'<a href="{_e(link.url)}" target="_blank" rel="noopener noreferrer">{_e(link.label)} &#8599;</a>'
                if link.url else _e(link.label))
        title = f'<br><span>{_e(hit.title)}</span>' if hit.pmid else ""  # a document's label is its title already
        header = widgets.HTML(
            f'<span class="engram-badge engram-badge-{_e(hit.source)}">{_e(hit.source)}</span> '
            f'<b>#{hit.rank} {cite}</b>{year}{section}{title}<br>'
            f'<span class="engram-scores">score {hit.score:.3f} &middot; text {hit.text_score:.3f} &middot; '
            f'graph {hit.ppr_score:.3f} &middot; cosine {hit.semantic_raw:.2f}</span>'
            + (f'<br><span class="engram-scores">via {_e(hit.paths[0].describe())}</span>' if hit.paths else ""))
        short = hit.text if len(hit.text) <= SNIPPET_CHARS else hit.text[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
        self.text = widgets.HTML(f'<div style="font-size:13px">{_e(short)}</div>')
        self.expand = widgets.ToggleButton(value=False, description="show text", layout=widgets.Layout(width="auto"),
                                           disabled=len(hit.text) <= SNIPPET_CHARS)
        self.expand.observe(lambda ch: self._toggle(ch["new"], short), names="value")
        self.select = widgets.Button(description="highlight entities", layout=widgets.Layout(width="auto"),
                                     tooltip="Highlight the graph entities this passage mentions")
        self.select.add_class("engram-passage-select")
        if on_select is not None:
            self.select.on_click(lambda _: on_select(hit.passage_id))
        # flex "0 0 auto": inside the scrolling list a card keeps its height instead of being squeezed
        super().__init__([header, self.text, widgets.HBox([self.expand, self.select])],
                         layout=widgets.Layout(flex="0 0 auto"))
        self.add_class("engram-card")
        self.add_class(card_class(index))

    def _toggle(self, expanded: bool, short: str) -> None:
        self.text.value = f'<div style="font-size:13px">{_e(self.hit.text if expanded else short)}</div>'
        self.expand.description = "hide text" if expanded else "show text"

    def set_highlight(self, on: bool) -> None:
        (self.add_class if on else self.remove_class)(CARD_HIGHLIGHT)


class EvidencePanel:
    """Passage cards (ranked) and a Sources tab grouping the passages by document."""

    def __init__(self, on_passage_select: Callable[[str], object] | None = None) -> None:
        self.on_passage_select = on_passage_select
        self.cards: dict[str, PassageCard] = {}
        self.passages = widgets.VBox()
        self.passages.add_class("engram-passages")
        self.sources = widgets.VBox()
        self.tabs = widgets.Tab([self.passages, self.sources])
        self.tabs.set_title(0, "Passages")
        self.tabs.set_title(1, "Sources")
        self.widget = widgets.VBox([widgets.HTML("<b>Evidence</b>"), self.tabs])
        self.widget.add_class("engram-evidence")

    def card_index(self) -> dict[str, int]:
        """Passage id -> position of its card (for citation links)."""
        return {pid: i for i, pid in enumerate(self.cards)}

    def show(self, result: RetrievalResult, graph: AnswerGraph | None = None) -> None:
        links = {h.passage_id: citation_link(_passage_citation(h), result, graph) for h in result.passages}
        self.cards = {h.passage_id: PassageCard(h, self.on_passage_select, index=i, link=links[h.passage_id])
                      for i, h in enumerate(result.passages)}
        self.passages.children = list(self.cards.values()) or [widgets.HTML("<i>No passage found.</i>")]
        by_doc: dict[str, list[PassageHit]] = {}
        for hit in result.passages:
            by_doc.setdefault(hit.article_id, []).append(hit)
        rows = []
        for hits in by_doc.values():
            first = hits[0]
            link = links[first.passage_id]
            name = (f'<a href="{_e(link.url)}" target="_blank" rel="noopener noreferrer">{_e(link.label.split(",")[0])}'
                    f'</a>' if link.url else _e(link.label.split(", p.")[0]))
            ranks = ", ".join(f"#{h.rank}" for h in hits)
            rows.append(widgets.HTML(
                f'<div class="engram-card"><span class="engram-badge engram-badge-{_e(first.source)}">'
                f'{_e(first.source)}</span> <b>{name}</b> {_e(first.title) if first.pmid else ""}'
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


def _passage_citation(hit: PassageHit) -> Any:
    from engram_kit.answering.types import Citation

    return Citation("passage", hit.passage_id, hit.citation)


# ---------------------------------------------------------------------------------------- graph panel
class GraphPanel:
    """The answer graph: focused view, toolbar (fit, zoom, wheel zoom, expand, full graph), legend per kind
    with counts whose buttons hide/show a kind; node clicks go to ``on_node_click``."""

    def __init__(self, on_node_click: Callable[[str], object] | None = None, *, height: str = "440px",
                 first: int = GRAPH_FIRST, step: int = GRAPH_STEP) -> None:
        self.on_node_click = on_node_click
        self.height, self.first, self.step = height, first, step
        self.graph: AnswerGraph | None = None
        #: the graph the drawn view is cut from: :attr:`graph`, or the wider one after "expand"
        self.source: AnswerGraph | None = None
        self._wider_factory: Callable[[], AnswerGraph] | None = None
        self._wider: AnswerGraph | None = None
        self.focus_nodes: list[str] = []
        self.size = first
        self.hidden_kinds: set[str] = set()
        self.shown: AnswerGraph | None = None
        self.cytoscape: Any = None
        self.info = widgets.HTML("")
        self.info.add_class("engram-graph-info")
        lay = widgets.Layout(width="auto")
        self.fit = widgets.Button(description="fit", tooltip="Fit the graph to the panel", layout=lay)
        self.fit.on_click(lambda _: self.refit())
        self.zoom_in = widgets.Button(description="+", tooltip="Zoom in", layout=widgets.Layout(width="34px"))
        self.zoom_out = widgets.Button(description="−", tooltip="Zoom out", layout=widgets.Layout(width="34px"))
        for button, name in ((self.zoom_in, "engram-zoom-in"), (self.zoom_out, "engram-zoom-out")):
            button.add_class("engram-zoom-btn")  # the dashboard's page script zooms (ipycytoscape cannot)
            button.add_class(name)
        self.wheel = widgets.ToggleButton(value=False, description="wheel zoom", layout=lay,
                                          tooltip="Let the mouse wheel zoom the graph (off: it scrolls the page)")
        self.wheel.observe(self._on_wheel, names="value")
        self.more = widgets.Button(description=f"expand (+{step})", disabled=True, layout=lay,
                                   tooltip="Add the next highest-ranked connected nodes")
        self.more.add_class("engram-expand")
        self.more.on_click(lambda _: self._draw(self.size + self.step))
        self.focus_button = widgets.Button(description="focus", layout=lay, disabled=True,
                                           tooltip="Back to the focused view (seeds, answer entities, paths)")
        self.focus_button.on_click(lambda _: self._draw(self.first))
        self.kinds = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self.kinds.add_class("engram-kind-legend")
        self.area = widgets.Box(layout=widgets.Layout(width="100%"))
        title = widgets.HTML("<b>Knowledge graph</b>", layout=widgets.Layout(margin="0 8px 0 0"))
        toolbar = widgets.HBox([title, self.fit, self.zoom_out, self.zoom_in, self.wheel, self.more, self.focus_button],
                               layout=widgets.Layout(flex_flow="row wrap", align_items="center"))
        self.widget = widgets.VBox([toolbar, self.info, self.kinds,
                                    self.area, widgets.HTML(legend_html([]))])
        self.widget.add_class("engram-graph-panel")

    def show(self, graph: AnswerGraph, answer_nodes: list[str] | None = None,
             wider: Callable[[], AnswerGraph] | None = None) -> None:
        """Draw the focused view of ``graph`` around the seeds and ``answer_nodes``.

        ``wider`` builds the larger graph "expand" grows into (the retrieval's whole answer graph: PPR subgraph
        and every entity of the top passages) when ``graph`` is the answer's own graph
        (``Workspace.answer_graph(answer)``, <= 40 nodes); it is called on the first "expand" only."""
        self.graph = graph
        self.source = graph
        self.focus_nodes = list(answer_nodes or [])
        self._wider_factory = wider
        self._wider = None
        self.hidden_kinds = set()
        self._draw(self.first)

    def _base(self, n: int) -> AnswerGraph:
        """The graph a view of ``n`` nodes is cut from: the answer's graph, or the wider one past it."""
        assert self.graph is not None
        factory = self._wider_factory
        if n <= self.first or factory is None:
            return self.graph
        if self._wider is None:
            self._wider = factory()
        return self._wider

    def _focus_ids(self) -> list[str]:
        assert self.graph is not None
        return list(dict.fromkeys([*self.focus_nodes, *self.graph.nodes["id"].astype(str)]))

    def _view(self, n: int) -> AnswerGraph:
        base = self._base(n)
        view = base.focus(self._focus_ids(), max_nodes=n) if len(base) else base
        return view.without_kinds(self.hidden_kinds) if self.hidden_kinds else view

    def _draw(self, n: int) -> None:
        if self.graph is None:
            return
        self.size = n
        base = self._base(n)
        #: the graph the drawn view is cut from (node and passage look-ups of the cross-highlighting)
        self.source = base
        full = base.focus(self._focus_ids(), max_nodes=n) if len(base) else base
        self.shown = self._view(n)
        old = self.cytoscape
        self.cytoscape = graph_widget(self.shown.to_cytoscape(), height=self.height)
        self.cytoscape.user_zooming_enabled = self.wheel.value
        click = self.on_node_click
        if click is not None:
            self.cytoscape.on("node", "click", lambda event: click(str(event["data"]["id"])))
        # an empty drawing is a blank box: say why in the box itself (issue 31 item 6)
        widen = (" &quot;expand&quot; draws the graph of the retrieved passages."
                 if base is self.graph and self._wider_factory is not None else "")
        self.area.children = [self.cytoscape] if len(self.shown) else [widgets.HTML(
            f"<div class='engram-graph-empty' style='height:{self.height};display:flex;align-items:center;"
            "justify-content:center;color:#555'>No graph to draw for this answer: the question resolved to no "
            f"graph node and no answer item is a graph node.{widen}</div>")]
        if old is not None:
            _close_graph(old)
        self._legend(full)
        counts = self.shown.edges["provenance"].value_counts().to_dict()
        edges = ", ".join(f"{v} {k}" for k, v in counts.items()) or "no edges"
        hidden = len(base) - len(full)
        if len(self.shown) == 0:
            note = ("No connected entity to draw: the question resolved to no graph node and the passages share "
                    "no edges. Pick a node under \"search the graph for…\".")
        else:
            note = "Click a node to highlight the passages that mention it."
        self.info.value = (f'<span class="engram-scores">{len(self.shown)} of {len(base)} nodes '
                           f'({hidden} unconnected or lower-ranked hidden); edges: {edges}. {note}</span>')
        can_widen = base is self.graph and self._wider_factory is not None
        self.more.disabled = not can_widen and (len(full) >= len(base) or n >= len(base))
        self.focus_button.disabled = n <= self.first

    def _legend(self, full: AnswerGraph) -> None:
        buttons = []
        for kind, count in full.kind_counts().items():
            toggle = widgets.ToggleButton(value=kind not in self.hidden_kinds, description=f"{kind} {count}",
                                          tooltip=f"show/hide the {count} {kind} node(s)",
                                          layout=widgets.Layout(width="auto", height="26px"))
            toggle.add_class("engram-kind-toggle")  # colours: CSS rules per kind (ToggleButton has no colour style)
            toggle.add_class(f"engram-kind-{re.sub('[^a-z]+', '-', kind.lower())}")
            if kind in self.hidden_kinds:
                toggle.add_class("engram-kind-off")
            toggle.observe(lambda ch, k=kind: self.toggle_kind(k, ch["new"]), names="value")
            buttons.append(toggle)
        self.kinds.children = buttons

    def toggle_kind(self, kind: str, visible: bool) -> None:
        """Show or hide the nodes of ``kind`` (the legend's buttons)."""
        (self.hidden_kinds.discard if visible else self.hidden_kinds.add)(kind)
        self._draw(self.size)

    def _on_wheel(self, change: dict[str, Any]) -> None:
        if self.cytoscape is not None:
            self.cytoscape.user_zooming_enabled = bool(change["new"])

    def highlight(self, node_ids: set[str] | tuple[str, ...]) -> int:
        return set_highlight(self.cytoscape, set(node_ids)) if self.cytoscape is not None else 0

    def refit(self) -> None:
        if self.cytoscape is not None:
            refit(self.cytoscape)


def _close_graph(widget) -> None:
    """Close an ipycytoscape widget and its node/edge models (they are widgets too)."""
    for element in [*widget.graph.nodes, *widget.graph.edges]:
        element.close()
    widget.graph.close()
    widget.close()


# ----------------------------------------------------------------------------------- interpretation
class InterpretationPanel:
    """How the question was read: seed chips with remove, unresolved terms, "search the graph for…" to pin
    the right node. Every change calls ``on_change()`` (the assistant re-runs the question).

    ``pinned`` (node id -> label) and ``excluded`` (node ids) are what the next retrieval passes as
    ``seeds=`` / ``exclude=``; :attr:`can_exclude` is False on an engram-kit whose retriever has no
    ``exclude`` parameter (removing a seed is then disabled, with the reason as tooltip).
    """

    def __init__(self, workspace: Any, on_change: Callable[[], object]) -> None:
        self.workspace = workspace
        self.on_change = on_change
        self.pinned: dict[str, str] = {}
        self.excluded: set[str] = set()
        self._choices: dict[str, str] = {}
        params = _retrieve_parameters(workspace)
        self.can_exclude = "exclude" in params
        self.pin_parameter = "seeds" if "seeds" in params else "extra_seeds" if "extra_seeds" in params else ""
        self.chips = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap", flex="0 1 auto"))
        self.chips.add_class("engram-seeds")
        self.notes = widgets.HTML("")
        self.search = widgets.Combobox(placeholder="search the graph for… (pin the right node)", ensure_option=False,
                                       layout=widgets.Layout(width="auto", flex="1 1 240px", min_width="200px"))
        self.search.add_class("engram-seed-search")
        self.search.observe(self._on_type, names="value")
        # chips and the search box share a row when it is wide enough (the question bar stays short)
        self.widget = widgets.VBox([widgets.HBox([self.chips, self.search], layout=widgets.Layout(
            flex_flow="row wrap", align_items="center")), self.notes])
        self.widget.add_class("engram-interpretation")

    def reset(self) -> None:
        """Forget pins and exclusions (a new question)."""
        self.pinned.clear()
        self.excluded.clear()

    def retrieve_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``Workspace.retrieve`` carrying the reader's corrections."""
        out: dict[str, Any] = {}
        if self.pinned and self.pin_parameter:
            out[self.pin_parameter] = {node: 1.0 for node in self.pinned}
        if self.excluded and self.can_exclude:
            out["exclude"] = set(self.excluded)
        return out

    def show(self, result: RetrievalResult) -> None:
        chips = []
        for entity in result.entities:
            chip = widgets.HTML(seed_chip_html(entity))
            remove = widgets.Button(description="×", tooltip=(f"drop {entity.name} as a seed and answer again"
                                                              if self.can_exclude else
                                                              "this engram-kit cannot drop a seed "
                                                              "(Workspace.retrieve has no exclude=)"),
                                    disabled=not self.can_exclude, layout=widgets.Layout(width="28px", height="24px"))
            remove.add_class("engram-seed-remove")
            remove.on_click(lambda _, n=entity.node_id: self.remove(n))
            box = widgets.HBox([chip, remove], layout=widgets.Layout(margin="0 6px 0 0", align_items="center"))
            box.add_class("engram-seed-chip")
            chips.append(box)
        self.chips.children = chips
        parts = []
        if not result.entities:
            parts.append(f"<i>{_e(result.fallback) or 'No entity of the question resolved to the graph.'}</i>")
        if result.unresolved:
            parts.append(f"<b>Not found in the graph:</b> {_e(', '.join(result.unresolved))}")
        if self.excluded:
            parts.append(f"dropped: {_e(', '.join(sorted(self.excluded)))}")
        self.notes.value = f'<div class="engram-scores">{" &middot; ".join(parts)}</div>' if parts else ""

    def remove(self, node_id: str) -> None:
        """Drop ``node_id`` as a seed and re-run."""
        self.excluded.add(node_id)
        self.pinned.pop(node_id, None)
        self.on_change()

    def pin(self, node_id: str, label: str = "") -> None:
        """Add ``node_id`` as a seed and re-run."""
        self.pinned[node_id] = label or node_id
        self.excluded.discard(node_id)
        self.on_change()

    def suggest(self, text: str) -> list[str]:
        matches = self.workspace.search_entities(text, limit=12).matches if text.strip() else []
        self._choices = {m.label: m.node_id for m in matches}
        self.search.options = list(self._choices)
        return list(self._choices)

    def _on_type(self, change: dict[str, Any]) -> None:
        text = change["new"]
        if text in self._choices:
            node = self._choices[text]
            self.search.value = ""
            self.pin(node, text)
        elif len(text.strip()) >= 2:
            self.suggest(text)


def _retrieve_parameters(workspace: Any) -> set[str]:
    """Keyword parameters the workspace's retriever accepts (``seeds``, ``exclude``, ``extra_seeds``...)."""
    try:
        return set(inspect.signature(workspace.retriever().retrieve).parameters)
    except (AttributeError, TypeError, ValueError, EngramError):
        return set()


# ----------------------------------------------------------------------------------------- chat panel
class ChatPanel:
    """Question box, source filter, step-by-step status, interpretation, the answer, history and downloads."""

    def __init__(self) -> None:
        self.question = widgets.Textarea(placeholder="Ask a biomedical question, e.g. Which genes interact with BACE1?",
                                         layout=widgets.Layout(width="100%", height="56px"))
        self.question.add_class("engram-question")
        self.source = widgets.ToggleButtons(options=[("all", "all"), ("PubMed", "pubmed"), ("uploaded", "uploaded")],
                                            value="all", style={"button_width": "auto"})
        self.ask = widgets.Button(description="Ask", button_style="primary", layout=widgets.Layout(width="80px"))
        self.ask.add_class("engram-ask")
        self.status = widgets.HTML("")
        self.status.add_class("engram-status")
        self.entities = widgets.HTML("")  # kept for callers; the interpretation panel shows the chips
        #: the question and the headline (the answer's first line: names, yes/no, or why the data cannot answer)
        self.headline = widgets.HTML("")
        self.headline.add_class("engram-headline")
        #: the exact answer: one row per item (a button that shows its sentences, score, citations)
        self.exact = widgets.VBox()
        self.exact.add_class("engram-exact")
        #: the sentences supporting the exact item last clicked (shown right under its row)
        self.support = widgets.HTML("")
        self.support.add_class("engram-support")
        self.answer = widgets.HTML("")
        self.answer.add_class("engram-answer")
        #: the answer in a box that scrolls (bounded height: the graph and evidence stay on the first screen):
        #: headline and exact answer first, then the answer's notes and the cited claims
        self.answer_box = widgets.VBox([self.headline, self.exact, self.answer])
        self.answer_box.add_class("engram-answer-box")
        self.history = widgets.Dropdown(options=[("(new conversation)", "")], value="",
                                        layout=widgets.Layout(width="auto", flex="1 1 auto", min_width="0"))
        # flex "0 0 auto": the buttons keep their full labels beside the (shrinking) history list
        self.new = widgets.Button(description="new conversation", layout=widgets.Layout(width="auto", flex="0 0 auto"))
        self.export = widgets.Button(description="downloads", disabled=True,
                                     layout=widgets.Layout(width="auto", flex="0 0 auto"),
                                     tooltip="Prepare the graph shown (Cytoscape JSON, GraphML, SVG, PNG), passages and "
                                             "entities CSV and the run bundle as browser downloads")
        self.export.add_class("engram-export")
        self.exported = widgets.HTML("")
        self.exported.add_class("engram-downloads")
        self.interpretation: widgets.Widget = widgets.HTML("")
        #: the question bar: question, Ask and source, step-by-step status, how the question was read
        self.question_bar = widgets.VBox([
            self.question, widgets.HBox([self.ask, self.source], layout=widgets.Layout(flex_flow="row wrap")),
            self.status, self.interpretation])
        self.question_bar.add_class("engram-chat")
        #: conversation history and downloads
        self.history_row = widgets.VBox([widgets.HBox([self.history, self.new, self.export]), self.exported])
        self.history_row.add_class("engram-history-row")
        #: all of it in one column (a notebook cell); the assistant places the three parts itself
        self.widget = widgets.VBox([self.question_bar, self.answer_box, self.history_row])

    def set_interpretation(self, panel: widgets.Widget) -> None:
        self.interpretation = panel
        children = list(self.question_bar.children)
        children[3] = panel
        self.question_bar.children = children


class Steps:
    """The status line: each step with its elapsed time, the running one marked (honest progress)."""

    def __init__(self, target: widgets.HTML) -> None:
        self.target = target
        self.done: list[tuple[str, float]] = []
        self.current = ""
        self.started = time.perf_counter()

    def start(self, name: str) -> None:
        self.current = name
        self.started = time.perf_counter()
        self._render()

    def finish(self) -> float:
        elapsed = time.perf_counter() - self.started
        if self.current:
            self.done.append((self.current, elapsed))
        self.current = ""
        self._render()
        return elapsed

    def _render(self, extra: str = "") -> None:
        items = [f"&#10003; {_e(n)} {s:.1f} s" for n, s in self.done]
        if self.current:
            items.append(f"<b>&#8230; {_e(self.current)}</b>")
        self.target.value = f'<div class="engram-steps">{" &middot; ".join(items)}{extra}</div>'

    def summary(self, extra: str) -> None:
        self._render(extra)


# ---------------------------------------------------------------------------------------- agents panel
def _report_markdown(report: Any) -> str:
    """Markdown of an agent report or desk result: its ``to_markdown``/``describe``, else its ``to_dict``
    rendered as Markdown (lists of records as tables), never a raw Python repr."""
    for name in ("to_markdown", "describe"):
        method = getattr(report, name, None)
        if callable(method):
            return str(method())
    to_dict = getattr(report, "to_dict", None)
    return dict_markdown(to_dict() if callable(to_dict) else report)


def dict_markdown(value: Any, *, depth: int = 0, max_rows: int = 15) -> str:
    """Markdown of a JSON-like value: a dict as a bullet list, a list of dicts as a table (first ``max_rows``
    rows), scalars as text. Pipes and newlines inside cells are escaped so tables stay tables."""
    def cell(x: Any) -> str:
        text = x if isinstance(x, str) else ", ".join(map(str, x)) if isinstance(x, (list, tuple)) else str(x)
        return text.replace("|", "\\|").replace("\n", " ")[:160]

    indent = "  " * depth
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if item in (None, "", [], {}):
                continue
            label = str(key).replace("_", " ")
            if isinstance(item, (dict, list)) and item and not all(isinstance(x, (str, int, float)) for x in item):
                lines.append(f"{indent}- **{label}**:\n\n{dict_markdown(item, depth=depth + 1, max_rows=max_rows)}")
            else:
                lines.append(f"{indent}- **{label}**: {cell(item)}")
        return "\n".join(lines)
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        columns = list(dict.fromkeys(k for row in value[:max_rows] for k in row))
        head = "| " + " | ".join(c.replace("_", " ") for c in columns) + " |\n|" + "---|" * len(columns)
        rows = ["| " + " | ".join(cell(row.get(c, "")) for c in columns) + " |" for row in value[:max_rows]]
        more = [f"\n*… {len(value) - max_rows} more*"] if len(value) > max_rows else []
        return "\n".join([head, *rows, *more])
    if isinstance(value, list):
        return "\n".join(f"{indent}- {cell(x)}" for x in value[:max_rows])
    return cell(value)


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
#: What the status line says while the embedding model loads (the first question of a kernel only).
WARMUP_MESSAGE = "Loading the language model (first question only)"


class ResearchAssistant:
    """Question and answer beside the knowledge graph and the evidence, over a
    :class:`~engram_kit.workspace.Workspace`.

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
    >>> assistant                                    # displays the panels   # doctest: +SKIP
    >>> assistant.ask("Which genes interact with BACE1?")   # also callable from code  # doctest: +SKIP
    """

    def __init__(self, workspace: Any, *, graph_height: str = "440px", history_path: str | Path | None = None) -> None:
        self.workspace = workspace
        self.history_path = Path(history_path) if history_path is not None else Path(workspace.path)
        #: False for a read-only workspace without an explicit ``history_path``: conversations are not saved.
        self.saves_history = history_path is not None or not getattr(workspace, "read_only", False)
        self.chat = ChatPanel()
        self.interpretation = InterpretationPanel(workspace, self.rerun)
        self.chat.set_interpretation(self.interpretation.widget)
        self.graph_panel = GraphPanel(self.select_node, height=graph_height)
        self.evidence = EvidencePanel(self.select_passage)
        self.agents = AgentsPanel()
        #: the evidence desk's Cypher mode (a researcher's own read-only query, :mod:`engram_widgets.cypher`)
        self.cypher = CypherPanel(workspace)
        self.conversation = Conversation()
        self.answer: Answer | None = None
        self.graph: AnswerGraph | None = None
        self.exact_buttons: list[widgets.Button] = []
        self.exact_rows: list[widgets.Widget] = []
        self.question = ""
        self.source = "all"
        #: Seconds the last warm-up took (None before any).
        self.warmup_seconds: float | None = None
        self._busy = threading.Lock()
        self._warming = threading.Lock()
        self.chat.ask.on_click(lambda _: self.ask(self.chat.question.value, self.chat.source.value))
        self.chat.new.on_click(lambda _: self.new_conversation())
        self.chat.export.on_click(lambda _: self.export())
        self.chat.history.observe(self._on_history, names="value")
        self.refresh_history()
        agents = widgets.Accordion([self.agents.widget, self.cypher.widget])
        agents.set_title(0, "Agents and evidence desk")
        agents.set_title(1, "Evidence desk: Cypher (read-only)")
        agents.selected_index = None
        agents.add_class("engram-agents-box")
        # side by side: question, answer and evidence left, the graph right; stacked: question bar, graph,
        # answer, evidence (CSS ``order``, see :data:`CSS`)
        left = widgets.VBox([self.chat.question_bar, self.chat.answer_box, self.evidence.widget,
                             self.chat.history_row, agents], layout=widgets.Layout(min_width="0"))
        left.add_class("engram-left")
        right = widgets.VBox([self.graph_panel.widget], layout=widgets.Layout(min_width="0"))
        right.add_class("engram-right")
        body = widgets.Box([left, right])
        body.add_class("engram-body")
        self.widget = widgets.VBox([widgets.HTML(CSS), body])
        self.widget.add_class("engram-assistant")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def warm_up(self) -> float:
        """Load the embedding model, lexicon and graph index now (the dashboard calls this in a background
        thread on page load, and the status line names it); a question asked meanwhile waits for it and says
        so. Returns seconds spent."""
        started = time.perf_counter()
        with self._warming:
            if not self._busy.locked():
                self.chat.status.value = (f'<span class="engram-steps">&#8230; {WARMUP_MESSAGE} in the background; '
                                          "you can type your question.</span>")
            try:
                self.workspace.embedder.encode(["warm up"])
                _ = self.workspace.lexicon
                self.workspace.graph_index()
            except EngramError as exc:  # the first question will report the same problem to the user
                log.warning("warm-up failed: %s", exc)
            self.warmup_seconds = time.perf_counter() - started
            if not self._busy.locked():
                self.chat.status.value = (f'<span class="engram-steps">&#10003; Language model loaded in '
                                          f"{self.warmup_seconds:.1f} s; ready.</span>")
        return self.warmup_seconds

    # --- asking --------------------------------------------------------------------------------
    def ask(self, question: str, source: str = "all") -> Answer | None:
        """Answer ``question`` and render it step by step; returns the answer (None on an error shown).

        A new question forgets the seed corrections of the previous one; :meth:`rerun` keeps them.
        """
        if question.strip() != self.question:
            self.interpretation.reset()
        return self._run(question, source)

    def rerun(self) -> Answer | None:
        """Answer the current question again with the reader's seed corrections (pins, drops)."""
        if not self.question:
            return None
        return self._run(self.question, self.source)

    def _run(self, question: str, source: str) -> Answer | None:
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
        self.question, self.source = question.strip(), source
        steps = Steps(self.chat.status)
        if self._warming.locked():  # a warm-up is loading the model: say so instead of a silent wait
            steps.start(WARMUP_MESSAGE)
            with self._warming:
                pass
            steps.finish()
        steps.start("resolve entities and rank passages")
        self.chat.answer.value = self.chat.headline.value = self.chat.support.value = ""
        self.chat.exact.children = []
        self.chat.exported.value = ""
        result = self.workspace.retrieve(question, source=source, **self.interpretation.retrieve_kwargs())
        steps.finish()
        self.chat.entities.value = entities_html(result)
        self.interpretation.show(result)
        self.evidence.show(result)
        steps.start("compose the cited answer")
        answer = self.workspace.compose_answer(result)
        steps.finish()
        steps.start("build the knowledge graph")
        self._show_graph(answer)
        steps.finish()
        self.answer = answer
        self._render_answer(answer)
        self.conversation.add(answer, source)
        saved = self._save_conversation()
        detail = ", ".join(f"{STEP_NAMES.get(k, k)} {v * 1000:.0f} ms" for k, v in result.timings.items())
        steps.summary(f'<br><span class="engram-scores">Answered in {time.perf_counter() - started:.1f} s '
                      f'(retrieval: {_e(detail)}); mode: {_e(answer.mode)}.{saved}</span>')
        self.chat.export.disabled = False
        if self.agents.enabled:
            self.agents.run(self.workspace, question)
        return answer

    def _render_answer(self, answer: Answer) -> None:
        self.chat.headline.value = headline_html(answer)
        self.chat.support.value = ""
        self._render_exact(answer)
        notes = "".join(f"<p><i>{_e(n)}</i></p>" for n in answer.notes)
        if not answer.claims:
            self.chat.answer.value = notes + "<p>No evidence was found for this question in the workspace.</p>"
            return
        cards = self.evidence.card_index()
        items = "".join(claim_html(c, answer.retrieval, self.graph, cards) for c in answer.claims)
        self.chat.answer.value = f"{notes}<b>Evidence lines</b><ul>{items}</ul>"

    def _exact_entries(self, answer: Answer) -> list[tuple[str, str, tuple[Any, ...], tuple[str, ...], str | None]]:
        """``(button label, score text, citations, names, node id)`` per exact item, or one for the yes/no
        verdict (a yes/no question)."""
        if answer.question_type == "yesno":
            verdict = {"yes": "Yes", "no": "No"}.get(answer.yes_no or "", "Undecided")
            # its sentences are those naming a question entity (as resolved, or as the question wrote it)
            entities = tuple(n for e in answer.retrieval.entities for n in (e.name, getattr(e, "mention", "")) if n)
            return [(verdict, "", tuple(answer.yes_no_citations), entities, None)]
        return [(x.text, f"score {x.score:.2f}", tuple(x.citations), (x.text, *x.synonyms), x.node_id)
                for x in answer.exact]

    def _render_exact(self, answer: Answer) -> None:
        """One row per exact item: a button showing its sentences, its score and its citation links."""
        cards = self.evidence.card_index()
        rows: list[widgets.Widget] = []
        self.exact_buttons = []
        for i, (label, score, cites, _names, _node) in enumerate(self._exact_entries(answer)):
            button = widgets.Button(description=label, tooltip=f"show the sentences supporting {label}",
                                    layout=widgets.Layout(width="auto"))
            button.add_class("engram-exact-item")
            button.on_click(lambda _, k=i: self.select_exact(k))
            links = "; ".join(citation_html(citation_link(c, answer.retrieval, self.graph), cards.get(c.ref))
                              for c in cites)
            detail = widgets.HTML(f'<span class="engram-scores">{_e(score)}{" &middot; " if score and links else ""}'
                                  f'{links or "no sentence decides it"}</span>')
            row = widgets.HBox([widgets.HTML(f"<b>{i + 1}.</b>"), button, detail]) if score else \
                widgets.HBox([button, detail])
            row.add_class("engram-exact-row")
            rows.append(row)
            self.exact_buttons.append(button)
        self.exact_rows = rows
        self.chat.exact.children = rows

    def select_exact(self, index: int) -> int:
        """Show the sentences supporting the ``index``-th exact item (or the yes/no verdict), highlight its
        button, its cited passage cards and its graph node; returns the number of sentences shown."""
        if self.answer is None:
            return 0
        entries = self._exact_entries(self.answer)
        if not 0 <= index < len(entries):
            return 0
        label, _score, cites, names, node = entries[index]
        graph = self.graph_panel.source or self.graph
        pairs = support_sentences(self.answer, cites, names, graph)
        self.chat.support.value = support_html(label, pairs, names, self.answer.retrieval, graph,
                                               self.evidence.card_index())
        for i, button in enumerate(self.exact_buttons):
            (button.add_class if i == index else button.remove_class)("engram-exact-selected")
        # right under the clicked row, so the sentences show where the reader looks
        rows = self.exact_rows
        self.chat.exact.children = [*rows[:index + 1], self.chat.support, *rows[index + 1:]]
        self.evidence.highlight({c.ref for c in cites if c.kind == "passage"})
        nodes = {node} if node else set()
        for cite in cites:
            if cite.kind == "edge":
                nodes |= set(citation_link(cite, self.answer.retrieval, graph).node_ids)
        self.graph_panel.highlight(nodes)
        return len(pairs)

    def show_answer(self, answer: Answer) -> None:
        """Render a stored answer (from the history) in all panels, without retrieving again."""
        result = answer.retrieval
        self.chat.question.value = answer.question
        self.question = answer.question.strip()
        self.chat.entities.value = entities_html(result)
        self.interpretation.show(result)
        self._show_graph(answer)
        self.evidence.show(result, self.graph)
        self.answer = answer
        self._render_answer(answer)
        self.chat.export.disabled = False

    def _show_graph(self, answer: Answer) -> None:
        """The graph panel: the answer's own graph (``Workspace.answer_graph(answer)``: question entities,
        answer items, the edges and passages supporting them, <= 40 nodes); "expand" grows into the retrieval's
        whole graph (built on the first "expand")."""
        self.graph = self.workspace.answer_graph(answer)
        result = answer.retrieval
        focus = answer_nodes(answer, self.graph) + [x.node_id for x in answer.exact if x.node_id]
        self.graph_panel.show(self.graph, list(dict.fromkeys(focus)),
                              wider=lambda: self.workspace.answer_graph(result, max_nodes=None))

    # --- cross-highlighting --------------------------------------------------------------------
    def select_node(self, node_id: str) -> int:
        """Highlight the passages that mention ``node_id`` (and the node); returns the passage count."""
        graph = self.graph_panel.source or self.graph
        if graph is None:
            return 0
        passages = graph.passages_of(node_id)
        self.graph_panel.highlight({node_id})
        n = self.evidence.highlight(passages)
        name = graph.nodes.loc[graph.nodes["id"] == node_id, "name"]
        label = name.iloc[0] if len(name) else node_id
        self.chat.status.value = (f'<span class="engram-scores"><b>{_e(label)}</b>: mentioned by {n} of the '
                                  f'retrieved passages (highlighted).</span>')
        return n

    def select_passage(self, passage_id: str) -> int:
        """Highlight the graph entities ``passage_id`` mentions (and its card); returns the node count."""
        graph = self.graph_panel.source or self.graph
        if graph is None:
            return 0
        self.evidence.highlight({passage_id})
        n = self.graph_panel.highlight(set(graph.entities_of(passage_id)))
        self.chat.status.value = f'<span class="engram-scores">Passage mentions {n} entities of the graph.</span>'
        return n

    # --- conversations -------------------------------------------------------------------------
    def _save_conversation(self) -> str:
        """Save the conversation; returns a note for the status line ("" when saved)."""
        if not self.saves_history:
            return " Read-only workspace: this conversation is kept in this page only."
        try:
            self.conversation.save(self.history_path)
        except OSError as exc:  # a read-only file system must not lose the answer on screen
            log.warning("could not save conversation %s: %s", self.conversation.id, exc)
            return " (The conversation could not be saved.)"
        self.refresh_history(select=self.conversation.id)
        return ""

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

    # --- downloads -------------------------------------------------------------------------------
    def export(self) -> dict[str, bytes]:
        """Browser downloads of the current answer and of the graph as shown (same nodes and edges): file
        name -> bytes; the links appear under the answer. Nothing is written on the server."""
        if self.answer is None or self.graph_panel.shown is None:
            return {}
        files = export_bytes(self.answer, self.graph_panel.shown, stem=_file_stem(self.answer.question))
        self.chat.exported.value = '<span class="engram-scores">Download: ' + " &middot; ".join(
            f'<a download="{_e(name)}" href="data:{_mime(name)};base64,{base64.b64encode(data).decode()}">'
            f'{_e(name.split(".", 1)[-1] if "-" not in name else name.rsplit("-", 1)[-1])}</a>'
            for name, data in files.items()) + f" ({len(self.graph_panel.shown)} nodes as shown)</span>"
        return files

    def refit(self) -> None:
        """Re-fit the graph (call when the assistant becomes visible in a Tab)."""
        self.graph_panel.refit()


def _file_stem(question: str) -> str:
    """A file-name stem from a question: lower-case words joined by dashes, at most 40 characters."""
    stem = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40].strip("-")
    return stem or "answer"


def _mime(name: str) -> str:
    return {"svg": "image/svg+xml", "png": "image/png", "csv": "text/csv", "graphml": "application/xml",
            "json": "application/json"}.get(name.rsplit(".", 1)[-1], "application/octet-stream")
