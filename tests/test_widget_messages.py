"""What the dashboard says where it used to say nothing (issue 31 item 6): an empty answer graph, and the
upload limits a dropped upload could never report afterwards."""

from __future__ import annotations

import pandas as pd

from engram_kit.exports import EDGE_COLUMNS, NODE_COLUMNS, AnswerGraph
from engram_widgets.assistant import GraphPanel
from engram_widgets.documents import UPLOAD_LIMITS_NOTE, DocumentRepositoryWidget


def test_an_empty_answer_graph_says_why_in_the_box():
    panel = GraphPanel()
    empty = AnswerGraph(question="q", nodes=pd.DataFrame(columns=list(NODE_COLUMNS)),
                        edges=pd.DataFrame(columns=list(EDGE_COLUMNS)), passage_entities={}, total_nodes=0)
    panel.show(empty)
    (child,) = panel.area.children
    assert "No graph to draw for this answer" in child.value  # not a blank Cytoscape box
    assert "0 of 0 nodes" in panel.info.value
    panel.show(empty, wider=lambda: empty)  # the answer's own graph, with the retrieval's to expand into
    (child,) = panel.area.children
    assert "No graph to draw for this answer" in child.value and "expand" in child.value
    assert not panel.more.disabled


def test_the_upload_limits_are_stated_before_an_upload(workspace):
    widget = DocumentRepositoryWidget(workspace)
    assert UPLOAD_LIMITS_NOTE in widget.upload_status.value.replace("&#x27;", "'")
    assert "50 MiB" in UPLOAD_LIMITS_NOTE and "--max-upload-mb" in UPLOAD_LIMITS_NOTE
