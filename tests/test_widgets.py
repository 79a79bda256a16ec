"""The workbench widgets driven from Python on real data (no browser; see test_dashboard_browser.py for that)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from engram_widgets.assistant import CARD_HIGHLIGHT, GRAPH_FIRST, ResearchAssistant
from engram_widgets.conversations import Conversation, answer_from_dict, list_conversations
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
    assert len(shown) == min(GRAPH_FIRST, len(assistant.graph))
    widget = assistant.graph_panel.cytoscape
    # multiple_edges=True: parallel typed edges are all drawn, none merged
    assert len(widget.graph.edges) == len(shown.edges) and len(widget.graph.nodes) == len(shown)
    assert "Answered in" in assistant.chat.status.value


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


def test_show_more_adds_nodes(assistant):
    panel = assistant.graph_panel
    if len(assistant.graph) <= GRAPH_FIRST:
        pytest.skip(f"graph has only {len(assistant.graph)} nodes")
    before = len(panel.shown)
    panel.more.click()
    assert len(panel.shown) == min(before + panel.step, len(assistant.graph))
    assert len(panel.cytoscape.graph.nodes) == len(panel.shown)


def test_conversation_is_saved_and_reopens(assistant, workspace):
    frame = list_conversations(assistant.history_path)
    assert frame["id"].tolist() == [assistant.conversation.id] and frame["turns"].iloc[0] == 1
    other = ResearchAssistant(workspace, history_path=assistant.history_path)
    other.chat.history.value = assistant.conversation.id  # choosing it in the history list reopens it
    assert other.answer is not None and other.answer.question == QUESTION
    assert list(other.evidence.cards) == list(assistant.evidence.cards)
    assert other.graph.nodes["id"].tolist() == assistant.graph.nodes["id"].tolist()
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
    assert {e.data["label"] for e in explorer.cytoscape.graph.edges} == {"INTERACTS_GiG"}
    details = explorer.select("Gene::351")
    assert "APP" in details and "Edges with BACE1" in details and "licence" in details


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
        started = time.perf_counter()
        app = Dashboard(path, background=False)
        assert app.workspace.read_only and "read-only" in app.status.value
        assert "another process" in app.banner.value and "uploads" in app.banner.value
        assert app.documents.upload.disabled
        assert time.perf_counter() - started < 30
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
        assistant._save_conversation()
        assert "page only" in assistant.chat.status.value
    after = sorted(p.relative_to(workspace_path) for p in workspace_path.rglob("*") if "conversations" in p.parts)
    assert after == before
