"""The workbench widgets driven from Python on real data (no browser; see test_dashboard_browser.py for that)."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import ipywidgets as widgets
import pytest

from engram_widgets.assistant import CARD_HIGHLIGHT, GRAPH_FIRST, ResearchAssistant
from engram_widgets.conversations import Conversation, answer_from_dict, list_conversations
from engram_widgets.cypher import CypherPanel, parse_parameters
from engram_widgets.explorer import GraphExplorer
from engram_widgets.graph import HIGHLIGHT, graph_widget, refit, refit_on_select

QUESTION = "What compounds might reduce neuroinflammation in Alzheimer's disease?"


@pytest.fixture(scope="module")
def assistant(workspace, tmp_path_factory):
    history = tmp_path_factory.mktemp("history")
    a = ResearchAssistant(workspace, history_path=history)
    assert a.ask(QUESTION) is not None
    return a


def _highlighted_cards(assistant) -> set[str]:
    return {pid for pid, card in assistant.evidence.cards.items() if CARD_HIGHLIGHT in card._dom_classes}


def test_answer_renders_entities_passages_graph_and_claims(assistant):
    result = assistant.answer.retrieval
    assert "Alzheimer" in assistant.chat.entities.value and "PPR seeds" in assistant.chat.entities.value
    assert list(assistant.evidence.cards) == [p.passage_id for p in result.passages]
    assert assistant.chat.answer.value.count("<li>") == len(assistant.answer.claims) > 0
    shown = assistant.graph_panel.shown
    # the answer's own graph (issue 29): at most 40 nodes, the seeds in it, no node without an edge except seeds
    assert 0 < len(shown) <= len(assistant.graph) <= GRAPH_FIRST == 40
    assert set(assistant.graph.nodes["id"]) <= set(assistant.workspace.answer_graph(assistant.answer).nodes["id"])
    assert set(shown.nodes.loc[shown.nodes["is_seed"], "id"]) == {e.node_id for e in result.entities}
    ends = set(shown.edges["source"]) | set(shown.edges["target"])
    assert all(n in ends or seed for n, seed in zip(shown.nodes["id"], shown.nodes["is_seed"]))
    widget = assistant.graph_panel.cytoscape
    # multiple_edges=True: parallel typed edges are all drawn, none merged
    assert len(widget.graph.edges) == len(shown.edges) and len(widget.graph.nodes) == len(shown)
    # relation names in words on the edges, never Hetionet's metaedge codes
    assert not any(re.search(r"_[A-Z][a-z]+[A-Z]", e.data["label"]) for e in widget.graph.edges)
    # the legend counts the kinds of the focused view
    legend = {b.description for b in assistant.graph_panel.kinds.children}
    assert legend == {f"{k} {n}" for k, n in shown.kind_counts().items()}
    steps = assistant.chat.status.value
    assert "Answered in" in steps and "resolve entities and rank passages" in steps and " s" in steps


def test_every_citation_is_a_link_to_its_card_and_pubmed(assistant):
    answer_html = assistant.chat.answer.value
    cites = re.findall(r'<a class="engram-cite" href="#" data-card="(engram-card-\d+)"', answer_html)
    n_passage_citations = sum(1 for c in assistant.answer.claims for x in c.citations if x.kind == "passage")
    assert len(cites) == n_passage_citations > 0
    card_classes = {cls for card in assistant.evidence.cards.values() for cls in card._dom_classes}
    assert set(cites) <= card_classes
    pmids = {h.pmid for h in assistant.answer.retrieval.passages if h.pmid}
    links = set(re.findall(r'href="https://pubmed\.ncbi\.nlm\.nih\.gov/(\d+)/"', answer_html))
    assert links and links <= pmids


def test_legend_button_hides_a_kind_and_brings_it_back(assistant):
    panel = assistant.graph_panel
    kind, count = next(iter(panel.shown.kind_counts().items()))
    before = len(panel.shown)
    button = next(b for b in panel.kinds.children if b.description == f"{kind} {count}")
    button.value = False
    assert kind not in set(panel.shown.nodes["kind"]) and len(panel.shown) <= before - count
    next(b for b in panel.kinds.children if b.description.startswith(kind)).value = True
    assert len(panel.shown) == before


def test_node_click_highlights_exactly_the_passages_mentioning_it(assistant):
    graph = assistant.graph
    node = graph.nodes[graph.nodes["passages"].map(len) > 0].iloc[0]
    n = assistant.select_node(node["id"])
    assert n == len(node["passages"]) and _highlighted_cards(assistant) == set(node["passages"])
    highlighted_nodes = [x.data["id"] for x in assistant.graph_panel.cytoscape.graph.nodes if HIGHLIGHT in x.classes]
    assert highlighted_nodes == [node["id"]]
    assistant.select_node("Gene::0")  # a node no passage mentions clears the highlight
    assert _highlighted_cards(assistant) == set()


def test_passage_click_highlights_its_entities(assistant):
    pid = next(p for p, ids in assistant.graph.passage_entities.items()
               if set(ids) & set(assistant.graph_panel.shown.nodes["id"]))
    assistant.evidence.cards[pid].select.click()
    expected = set(assistant.graph.entities_of(pid)) & set(assistant.graph_panel.shown.nodes["id"])
    drawn = {x.data["id"] for x in assistant.graph_panel.cytoscape.graph.nodes if HIGHLIGHT in x.classes}
    assert drawn == expected and _highlighted_cards(assistant) == {pid}


def test_expand_grows_the_view_and_focus_returns(assistant):
    panel = assistant.graph_panel
    before = set(panel.shown.nodes["id"])
    assert not panel.more.disabled  # the answer's graph grows into the retrieval's whole graph
    panel.more.click()
    after = set(panel.shown.nodes["id"])
    seeds = {e.node_id for e in assistant.answer.retrieval.entities}
    assert len(after) > len(before) and seeds <= after and len(after) <= GRAPH_FIRST + panel.step
    assert len(panel.cytoscape.graph.nodes) == len(panel.shown)
    panel.focus_button.click()
    assert set(panel.shown.nodes["id"]) == before


def test_headline_and_exact_items_sit_above_the_evidence_and_show_their_sentences(workspace, tmp_path):
    """Issue 29 item 3: the headline and the exact answer (score, citations) come before the cited claims;
    clicking an item shows the cited sentences naming it, highlights its button, cards and graph node."""
    a = ResearchAssistant(workspace, history_path=tmp_path)
    answer = a.ask("Which genes interact with BACE1?")
    assert answer is not None and answer.question_type == "list" and answer.exact
    box = a.chat.answer_box.children
    assert box.index(a.chat.headline) < box.index(a.chat.exact) < box.index(a.chat.answer)
    assert answer.headline and html.escape(answer.headline, quote=True) in a.chat.headline.value
    first = answer.exact[0]
    assert first.text in answer.headline.split(":", 1)[1]  # the headline names the items
    assert [b.description for b in a.exact_buttons] == [x.text for x in answer.exact]
    detail = a.chat.exact.children[0].children[-1].value
    assert f"score {first.score:.2f}" in detail
    from engram_kit.exports import citation_link

    labels = [citation_link(c, answer.retrieval, a.graph).label for c in first.citations]
    assert all(f">{html.escape(label, quote=True)}</a>" in detail for label in labels)
    n = a.select_exact(0)
    support = a.chat.support.value
    assert n > 0 and f"<b>{html.escape(first.text)}</b>" in support
    assert f'<mark class="engram-mark">{html.escape(first.text)}</mark>' in support
    # the marked sentence is a sentence of a cited passage (its claim or its text)
    cited = [h for h in answer.retrieval.passages if h.passage_id in {c.ref for c in first.citations}]
    sentence = re.search(r"<li>(.*?) <span", support).group(1)
    plain = html.unescape(re.sub(r"</?mark[^>]*>", "", sentence))
    assert any(plain in h.text for h in cited) or any(plain == c.text for c in answer.claims)
    rows = a.chat.exact.children
    assert rows.index(a.chat.support) == 1 and a.exact_buttons[0] in rows[0].children  # under its row
    assert "engram-exact-selected" in a.exact_buttons[0]._dom_classes
    assert "engram-exact-selected" not in a.exact_buttons[1]._dom_classes
    assert _highlighted_cards(a) == {c.ref for c in first.citations if c.kind == "passage"} & set(a.evidence.cards)
    drawn = {x.data["id"] for x in a.graph_panel.cytoscape.graph.nodes if HIGHLIGHT in x.classes}
    assert first.node_id in drawn


def test_yes_no_question_shows_its_verdict_and_its_sentences(workspace, tmp_path):
    a = ResearchAssistant(workspace, history_path=tmp_path)
    answer = a.ask("Does levodopa treat Parkinson's disease?")
    assert answer is not None and answer.question_type == "yesno"
    verdict = {"yes": "Yes", "no": "No"}.get(answer.yes_no or "", "Undecided")
    assert [b.description for b in a.exact_buttons] == [verdict]
    assert a.chat.headline.value.count("<b>A:</b>") == 1 and verdict in a.chat.headline.value
    if answer.yes_no_citations:
        assert a.select_exact(0) > 0 and "levodopa" in a.chat.support.value.lower()


def test_downloads_hold_the_graph_as_shown(assistant):
    import networkx as nx

    files = assistant.export()
    graphml = next(data for name, data in files.items() if name.endswith(".graphml"))
    graph = nx.read_graphml(__import__("io").BytesIO(graphml))
    shown = assistant.graph_panel.shown
    assert graph.is_directed() and graph.number_of_nodes() == len(shown)
    assert graph.number_of_edges() == len(shown.edges)
    edge = shown.edges.iloc[0]
    assert graph.has_edge(edge["source"], edge["target"])  # subject -> object kept
    assert assistant.chat.exported.value.count("download=") == len(files) == 7


def test_conversation_is_saved_and_reopens(assistant, workspace):
    frame = list_conversations(assistant.history_path)
    assert frame["id"].tolist() == [assistant.conversation.id] and frame["turns"].iloc[0] == 1
    other = ResearchAssistant(workspace, history_path=assistant.history_path)
    other.chat.history.value = assistant.conversation.id  # choosing it in the history list reopens it
    assert other.answer is not None and other.answer.question == QUESTION
    assert list(other.evidence.cards) == list(assistant.evidence.cards)
    assert other.graph.nodes["id"].tolist() == assistant.graph.nodes["id"].tolist()
    # the headline and the exact items come back too (issue 29)
    assert other.chat.headline.value == assistant.chat.headline.value and assistant.answer.headline
    assert [b.description for b in other.exact_buttons] == [x.text for x in assistant.answer.exact] != []
    rebuilt = answer_from_dict(assistant.answer.to_dict())
    assert rebuilt.to_dict() == assistant.answer.to_dict()


def test_corrupt_conversation_file_is_skipped(tmp_path):
    (tmp_path / "conversations").mkdir()
    (tmp_path / "conversations" / "bad.json").write_text("{not json")
    Conversation(title="ok").save(tmp_path)
    assert list_conversations(tmp_path)["title"].tolist() == ["ok"]


def test_refit_nudges_size_and_relayouts_on_tab_select(monkeypatch):
    import ipywidgets as widgets

    widget = graph_widget({"nodes": [{"data": {"id": "a", "label": "a"}}, {"data": {"id": "b", "label": "b"}}],
                           "edges": [{"data": {"id": "e1", "source": "a", "target": "b", "label": "X"}},
                                     {"data": {"id": "e2", "source": "a", "target": "b", "label": "Y"}}]})
    assert len(widget.graph.edges) == 2  # parallel edges kept
    calls = []
    monkeypatch.setattr(widget, "relayout", lambda: calls.append("relayout"))
    heights = []
    widget.layout.observe(lambda ch: heights.append(ch["new"]), names="height")
    refit(widget)
    assert heights == ["461px", "460px"] and calls == ["relayout"]
    tabs = widgets.Tab([widgets.HTML("a"), widgets.VBox([widget])])
    refit_on_select(tabs, {1: widget})
    tabs.selected_index = 1
    assert calls == ["relayout", "relayout"]


def test_explorer_search_expand_and_provenance(workspace):
    explorer = GraphExplorer(workspace)
    labels = explorer.suggest("bace")
    assert labels[0].endswith("BACE1 (Gene)")
    explorer.search.value = labels[0]  # picking a suggestion starts from that entity
    assert explorer.expanded == ["Gene::23621"]
    drawn = {n.data["id"] for n in explorer.cytoscape.graph.nodes}
    assert "Gene::351" in drawn and len(drawn) <= 1 + 40
    explorer.rel_types.value = ("INTERACTS_GiG",)
    explorer.expand("Gene::351")
    assert {e.data["label"] for e in explorer.cytoscape.graph.edges} == {"interacts with"}
    assert "interacts with (" in explorer.rel_types.options[0][0] or any(
        label.startswith("interacts with") for label, _ in explorer.rel_types.options)
    details = explorer.select("Gene::351")
    assert "APP" in details and "Edges with BACE1" in details and "INTERACTS_GiG" not in details.split("title=")[0]
    # selecting highlights the node without hiding the rest (no class that fades labels away)
    classes = {n.data["id"]: n.classes for n in explorer.cytoscape.graph.nodes}
    assert "highlight" in classes["Gene::351"] and "PPR" not in explorer.legend.value


@pytest.mark.slow  # e2e: builds a sample workspace in another process: 50 s on a loaded 2-core machine (issue 15)
def test_dashboard_opens_read_only_when_another_process_holds_the_workspace(tmp_path, sample_paths):
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace
    from engram_widgets.dashboard import Dashboard

    path = tmp_path / "ws"
    Workspace.create(path, data=sample_paths, settings=Settings(progress=False)).close()
    app = Dashboard(path, background=False)
    assert not app.workspace.read_only and "read-write" in app.status.value and app.banner.value == ""
    docs = app.documents
    assert docs is not None and not docs.upload.disabled
    text = (b"BACE1 and amyloid precursor protein in Alzheimer's disease.\n\n"
            b"BACE1 cleaves APP; inhibitors of BACE1 such as verubecestat were tested in Alzheimer's disease. " * 5)
    reports = docs.process_uploads([("bace-note.txt", text)])
    assert [r.status for r in reports] == ["complete"] and docs.progress.value == docs.progress.max == 1
    doc_id = reports[0].id
    assert [v for _, v in docs.select.options] == [doc_id]
    docs.select.value = doc_id
    assert "BACE1" in docs.detail.value and not docs.delete_button.disabled
    docs.status_filter.value = "error"
    assert docs.select.options == ()
    docs.status_filter.value = "all"
    docs.select.value = doc_id
    docs.delete_button.click()  # asks first
    assert "Delete" in docs.confirm.children[0].value and docs.listing()["id"].tolist() == [doc_id]
    docs.confirm.children[1].click()  # "yes, delete"
    assert docs.listing().empty and "Deleted" in docs.upload_status.value
    app.workspace.close()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom engram_kit.workspace import Workspace\n"
                               f"ws = Workspace.open({str(path)!r})\nprint('open', flush=True)\ntime.sleep(120)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        app = Dashboard(path, background=False)
        assert app.workspace.read_only and "read-only" in app.status.value
        assert "open for writing" in app.banner.value and "uploads" in app.banner.value
        assert "pid" not in app.banner.value.lower() and "Error" not in app.banner.value
        assert app.retry.layout.display != "none"
        assert app.try_writable() is False and app.workspace.read_only  # still held: stays read-only
        assert app.documents.upload.disabled
        app.workspace.close()
    finally:
        holder.kill()
        holder.wait()


def test_dashboard_shows_a_missing_workspace_in_the_page(tmp_path):
    from engram_widgets.dashboard import Dashboard

    app = Dashboard(tmp_path / "nothing", background=False)
    assert app.workspace is None and "engram init" in app.status.value and app.ready.is_set()


def test_cli_dashboard_binds_localhost_with_large_websocket_messages(capsys, workspace_path, tmp_path):
    from engram_kit.cli import main

    assert main(["dashboard", "-w", str(workspace_path), "--print-command"]) == 0
    command = capsys.readouterr().out
    assert "--Voila.ip=127.0.0.1" in command and "--template=engram" in command
    assert '"websocket_max_message_size": 104857600' in command and "dashboard.ipynb" in command
    assert main(["dashboard", "-w", str(workspace_path), "--print-command", "--max-upload-mb", "200",
                 "--host", "0.0.0.0"]) == 0
    assert "209715200" in capsys.readouterr().out
    assert re.search(r"--token=\S{20,}", command)  # a token by default, as Jupyter
    assert "--MappingKernelManager.cull_idle_timeout=" in command  # closed pages' kernels are culled
    assert main(["dashboard", "-w", str(workspace_path), "--print-command", "--no-token"]) == 0
    assert "--token" not in capsys.readouterr().out
    assert main(["dashboard", "-w", str(tmp_path / "none"), "--print-command"]) == 2
    assert "engram init" in capsys.readouterr().err


def test_read_only_assistant_writes_nothing_into_the_workspace(workspace_path):
    """A dashboard's assistant on a read-only workspace keeps conversations in the page: read-only means the
    workspace folder is not written (bug: it used to save conversations/<id>.json there)."""
    from engram_kit.workspace import Workspace

    before = sorted(p.relative_to(workspace_path) for p in workspace_path.rglob("*") if "conversations" in p.parts)
    with Workspace.open(workspace_path, read_only=True) as ro:
        assistant = ResearchAssistant(ro)
        assert not assistant.saves_history
        assert "page only" in assistant._save_conversation()
    after = sorted(p.relative_to(workspace_path) for p in workspace_path.rglob("*") if "conversations" in p.parts)
    assert after == before


def test_relation_labels_read_as_words():
    from engram_kit.exports import relation_label

    assert relation_label("EXPRESSES_AeG") == "expresses"
    assert relation_label("REGULATES_Gr>G") == "regulates"
    assert relation_label("INTERACTS_GiG") == "interacts with"
    assert relation_label("PARTICIPATES_GpBP") == "participates in"
    assert relation_label("CO_MENTIONED") == "co-mentioned"
    assert relation_label("biolink:treats_or_applied_or_studied_to_treat") == "treats or applied or studied to treat"
    assert relation_label("NOT biolink:treats") == "NOT treats"


def test_focus_keeps_seeds_answer_nodes_and_the_path_between(workspace):
    """A chain seed - a - b - answer plus unrelated nodes: the focus holds the chain, drops isolated nodes."""
    import pandas as pd

    from engram_kit.exports import NODE_COLUMNS, AnswerGraph

    ids = ["s", "a", "b", "t", "x", "lonely"]
    nodes = pd.DataFrame({"id": ids, "name": ids, "kind": ["Gene"] * 6, "ppr": [0.5, 0.1, 0.09, 0.01, 0.3, 0.2],
                          "heat": [1.0] * 6, "heat_color": ["#fff"] * 6, "is_seed": [True] + [False] * 5,
                          "in_subgraph": [True] * 6, "passages": [()] * 6}, columns=list(NODE_COLUMNS))
    edges = pd.DataFrame({"id": ["1", "2", "3", "4"], "source": ["s", "a", "b", "s"], "target": ["a", "b", "t", "x"],
                          "rel_type": ["INTERACTS_GiG"] * 4, "provenance": ["curated"] * 4, "passages": [()] * 4})
    graph = AnswerGraph("q", nodes, edges, {}, 6)
    view = graph.focus(["t"], max_nodes=4)
    assert set(view.nodes["id"]) == {"s", "a", "b", "t"}  # the path, not the higher-PPR neighbour x
    assert set(graph.focus([], max_nodes=5).nodes["id"]) == {"s", "a", "b", "t", "x"}  # "lonely" has no edge
    assert set(graph.focus(["lonely"], max_nodes=6).nodes["id"]) == {"s", "a", "b", "t", "x"}
    assert len(graph.without_kinds({"Gene"})) == 0 and graph.kind_counts() == {"Gene": 6}


def test_citation_link_names_documents_by_title_and_page(workspace):
    from engram_kit.answering.types import Citation
    from engram_kit.exports import citation_link
    from engram_kit.retrieval.results import PassageHit

    result = workspace.retrieve("Which genes interact with BACE1?")
    hit = result.passages[0]
    link = citation_link(Citation("passage", hit.passage_id, hit.citation), result)
    assert link.url == f"https://pubmed.ncbi.nlm.nih.gov/{hit.pmid}/" and link.passage_id == hit.passage_id
    doc = PassageHit(rank=1, passage_id="p1", article_id="doc:6bd27e25d026b2d4", source="uploaded", pmid="",
                     title="Amyloid processing review (doi 10.1000/xyz123)", year=None, section="", page_start=2,
                     page_end=3, text="t", score=1.0, ppr_score=0.0, semantic_score=1.0, ppr_raw=0.0,
                     semantic_raw=1.0)
    result.passages = [doc]
    link = citation_link(Citation("passage", "p1", "doc:6bd27e25d026b2d4, p. 2"), result)
    assert link.label == "Amyloid processing review (doi 10.1000/xyz123), p. 2-3" and "doc:" not in link.label
    assert link.url == "https://doi.org/10.1000/xyz123)" or link.url.startswith("https://doi.org/10.1000/xyz123")
    edge = citation_link(Citation("edge", "Gene::1 -[INTERACTS_GiG]-> Gene::2", "Hetionet INTERACTS_GiG"), result)
    assert edge.label == "Hetionet interacts with" and edge.node_ids == ("Gene::1", "Gene::2")


def test_agent_reports_render_as_markdown_tables():
    from engram_widgets.assistant import dict_markdown

    text = dict_markdown({"agent": "drug", "findings": [{"compound": "A|B", "score": 0.5}, {"compound": "C"}]})
    assert "- **agent**: drug" in text and "| compound | score |" in text and "A\\|B" in text
    assert "{" not in text


def test_provenance_table_hides_empty_columns():
    import pandas as pd

    from engram_widgets.explorer import provenance_table

    rows = pd.DataFrame({"rel_type": ["EXPRESSES_AeG"], "direction": ["out"], "neighbour_name": ["APP"],
                         "sources": ["Bgee"], "license": [""], "pubmed_ids": [None]})
    table = provenance_table(rows)
    assert "expresses" in table and "Bgee" in table and "licence" not in table and "PubMed" not in table


def _wait(condition, timeout: float = 600.0) -> None:
    """Poll ``condition()`` every 50 ms until true (generous timeout: a loaded CI machine; no speed asserted)."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def test_interpretation_panel_drops_a_seed_pins_a_searched_node_and_answers_again(workspace, tmp_path):
    """The reader corrects how the question was read: the chip's x drops a seed, "search the graph for..."
    pins another node; each change answers the question again with the corrected seeds."""
    a = ResearchAssistant(workspace, history_path=tmp_path)
    first = a.ask(QUESTION)
    seeds = [e.node_id for e in first.retrieval.entities]
    panel = a.interpretation
    assert seeds and panel.can_exclude and panel.pin_parameter == "seeds"
    assert [c.children[0].value.count("conf ") for c in panel.chips.children] == [1] * len(seeds)
    dropped = seeds[0]
    remove = panel.chips.children[0].children[1]
    assert "drop" in remove.tooltip and not remove.disabled
    remove.click()
    second = a.answer
    assert second is not first and second.question == first.question
    assert dropped not in {e.node_id for e in second.retrieval.entities}
    assert panel.excluded == {dropped} and f"dropped: {dropped}" in panel.notes.value
    assert len(panel.chips.children) == len(second.retrieval.entities)
    # search the graph for a node and pick it: it becomes a seed, drawn as one in the graph
    panel.search.value = "BACE1"
    label = next(o for o in panel.search.options if "BACE1" in o)
    node = panel._choices[label]
    panel.search.value = label
    third = a.answer
    assert third is not second and panel.pinned == {node: label} and panel.search.value == ""
    assert node in {e.node_id for e in third.retrieval.entities} and dropped not in {
        e.node_id for e in third.retrieval.entities}
    shown = a.graph_panel.shown.nodes
    assert bool(shown.loc[shown["id"] == node, "is_seed"].all()) and node in set(shown["id"])
    # a new question forgets the corrections
    a.ask("Which genes interact with BACE1?")
    assert panel.pinned == {} and panel.excluded == set()


def test_warm_up_is_named_and_a_question_asked_meanwhile_waits_for_it(workspace, tmp_path, monkeypatch):
    """Honest progress: the warm-up says what it loads while it loads; a question asked meanwhile shows the
    warm-up as its first step (with its time) instead of a silent wait, then answers."""
    import threading

    from engram_widgets.assistant import WARMUP_MESSAGE

    a = ResearchAssistant(workspace, history_path=tmp_path)
    gate, entered = threading.Event(), threading.Event()
    encode = workspace.embedder.encode

    def slow_encode(texts, *args, **kwargs):  # holds the warm-up until the test lets go
        if texts == ["warm up"]:
            entered.set()
            assert gate.wait(600)
        return encode(texts, *args, **kwargs)

    monkeypatch.setattr(workspace.embedder, "encode", slow_encode)
    warming = threading.Thread(target=a.warm_up)
    warming.start()
    assert entered.wait(600)
    assert f"{WARMUP_MESSAGE} in the background" in a.chat.status.value
    asking = threading.Thread(target=a.ask, args=(QUESTION,))
    asking.start()
    _wait(lambda: f"<b>&#8230; {WARMUP_MESSAGE}</b>" in a.chat.status.value)
    assert a.answer is None  # waits for the model
    gate.set()
    warming.join(600)
    asking.join(900)
    assert a.answer is not None and a.warmup_seconds is not None
    status = a.chat.status.value
    assert re.search(rf"&#10003; {re.escape(WARMUP_MESSAGE)} \d+\.\d s", status) and "Answered in" in status
    monkeypatch.undo()
    assert a.warm_up() >= 0 and "Language model loaded in" in a.chat.status.value


def test_dashboard_warms_the_model_up_in_the_background_after_the_page_is_ready(workspace_path, tmp_path):
    import shutil

    from engram_widgets.dashboard import Dashboard

    copy = tmp_path / "ws"
    shutil.copytree(workspace_path, copy, ignore=shutil.ignore_patterns("conversations", "exports"))
    app = Dashboard(copy, background=True)
    try:
        assert app.ready.wait(600) and app.error == "" and not app.workspace.read_only
        _wait(lambda: "warmup" in app.timings)
        assert app.assistant.warmup_seconds == app.timings["warmup"]
        assert "Language model loaded in" in app.assistant.chat.status.value
    finally:
        _wait(lambda: "warmup" in app.timings or app.error != "")
        app.workspace.close()


def test_literature_map_tab_draws_communities_with_legible_labels(workspace):
    """The dashboard's literature-map tab (read-only path: builds without writing a cache into the workspace)."""
    from engram_widgets.dashboard import TABS
    from engram_widgets.litmap import COMMUNITY_COLORS, LiteratureMapTab

    class ReadOnly:  # the session workspace, seen as a read-only dashboard sees it (nothing written)
        read_only = True

        def __getattr__(self, name: str):
            return getattr(workspace, name)

    assert "Literature map" in TABS
    tab = LiteratureMapTab(ReadOnly(), max_nodes=30)
    assert tab.area.children == ()
    view = tab.build()
    assert view is not None and "Built in" in tab.status.value and not tab.build_button.disabled
    header, legend, graph, evidence = view.children
    assert 0 < len(graph.graph.nodes) <= 30
    # labels: 13 px in the style, zoom floor 0.85 -> >= 11 px on screen; the wheel scrolls the page until a click
    node_style = next(s["style"] for s in graph.get_style() if s["selector"] == "node")
    assert float(node_style["font-size"].rstrip("px")) * graph.min_zoom >= 11.0
    assert graph.user_zooming_enabled is False
    # the community legend: one entry per drawn community, in its colour, with its most central members
    communities = {n.data["community"] for n in graph.graph.nodes}
    assert "Communities" in legend.value and legend.value.count("border-radius:50%") == len(communities)
    for c in communities:
        colour = COMMUNITY_COLORS[c] if c < len(COMMUNITY_COLORS) else "#bbbbbb"
        assert colour in legend.value
    assert all(n.data["color"] for n in graph.graph.nodes)


# --- the evidence desk's Cypher mode (issue 34 item 8) ---------------------------------------------------------
CYPHER_OK = "MATCH (g:Gene {name: 'BACE1'})-[:INTERACTS_GiG]-(x:Gene) RETURN x.name AS name ORDER BY name LIMIT 5"


def test_cypher_mode_shows_rows_with_their_citations(workspace, tmp_path):
    """A valid query typed into the assistant's Cypher mode runs through the desk and shows each row cited
    q1:r1..q1:r5 beside the names the graph itself holds (asked of the store directly, unguarded)."""
    a = ResearchAssistant(workspace, history_path=tmp_path)
    accordion = next(w for w in a.widget.children[1].children[0].children if isinstance(w, widgets.Accordion))
    assert accordion.children[1] is a.cypher.widget and "Cypher" in accordion.get_title(1)
    panel = a.cypher
    panel.query.value = CYPHER_OK
    panel.run_button.click()
    artifact = panel.artifact
    expected = workspace.store.query(CYPHER_OK)["name"].tolist()
    assert artifact is not None and artifact.status == "ok" and len(expected) == 5
    shown = re.findall(r'<code class="engram-row-cite">(q1:r\d+)</code></td><td[^>]*>([^<]*)</td>', panel.result.value)
    assert shown == [(f"q1:r{i}", html.escape(name, quote=True)) for i, name in enumerate(expected, 1)]
    assert "engram-cypher-error" not in panel.result.value and not panel.run_button.disabled
    # parameters from the box are passed to the query as $name
    panel.parameters.value = '{"name": "BACE1"}'
    artifact = panel.run("MATCH (g:Gene {name: $name}) RETURN g.name AS gene, g AS node")
    assert artifact is not None and [row[0] for row in artifact.rows] == ["BACE1"] and "q1:r1" in panel.result.value
    # a node cell shows its name, its label and id on hover
    node_id = workspace.nodes.loc[(workspace.nodes["kind"] == "Gene") & (workspace.nodes["name"] == "BACE1"), "id"]
    assert len(node_id) == 1 and f'title="Gene {html.escape(node_id.iloc[0])}">BACE1</td>' in panel.result.value


@pytest.mark.parametrize(("query", "rule", "fix"), [
    ("CREATE (n:X) RETURN n", "not a read", "Start with MATCH"),
    ("LOAD FROM '/etc/passwd' RETURN *", "not a read", "Start with MATCH"),
    ("MATCH (n:Gene) WITH n LIMIT 1 LOAD FROM '/etc/passwd' RETURN *", "write or admin keyword", "read-only"),
])
def test_cypher_mode_shows_a_refusal_naming_the_rule_and_no_file_content(workspace, query, rule, fix):
    panel = CypherPanel(workspace)
    panel.query.value = query
    panel.run_button.click()
    page = panel.result.value
    assert panel.artifact is not None and panel.artifact.status == "refused" and panel.artifact.rows == []
    assert "Query refused" in page and rule in page and fix in page and html.escape(panel.artifact.error) in page
    assert "engram-row-cite" not in page and "Traceback" not in page
    passwd = [line for line in open("/etc/passwd", encoding="utf-8").read().splitlines() if line.strip()]
    assert passwd and not any(html.escape(line) in page for line in passwd) and "root:x:" not in page


def test_cypher_mode_says_why_a_query_failed_or_did_not_run(workspace):
    panel = CypherPanel(workspace)
    artifact = panel.run("MATCH (n:Gene RETURN n")  # a syntax error: the engine's parser message, no traceback
    assert artifact is not None and artifact.status == "failed"
    assert "Query failed" in panel.result.value and "Parser exception" in panel.result.value
    assert "Traceback" not in panel.result.value
    assert panel.run("   ") is None and "Type a Cypher query" in panel.result.value
    panel.parameters.value = "{name: APP}"
    assert panel.run(CYPHER_OK) is None and panel.artifact is None
    assert "not JSON" in panel.result.value and html.escape('{"name": "APP"}') in panel.result.value


def test_cypher_parameters_must_be_a_json_object():
    assert parse_parameters("") == {} and parse_parameters('{"name": "APP", "n": 3}') == {"name": "APP", "n": 3}
    with pytest.raises(ValueError, match="JSON object"):
        parse_parameters('["APP"]')
    with pytest.raises(ValueError, match="not JSON"):
        parse_parameters("name=APP")
