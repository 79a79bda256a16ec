"""The evidence desk and the agents state their answer in the shared structure (issue 29 item 3): question type,
exact items, yes/no and a headline drawn from their own evidence, on the bundled sample workspace. Expected names
are read from the bundled Hetionet files (``data/hetionet``), not typed in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.agents import Investigator
from engram_kit.llm import ReplayLLM

DATA = Path(__file__).parents[1] / "data" / "hetionet"
ALZHEIMERS, BACE1, METFORMIN, T2D = "Disease::DOID:10652", "Gene::23621", "Compound::DB00331", "Disease::DOID:9352"


@pytest.fixture(scope="module")
def hetionet() -> tuple[pd.DataFrame, pd.DataFrame]:
    nodes = pd.read_csv(DATA / "hetionet-v1.0-nodes.tsv.gz", sep="\t")
    edges = pd.read_csv(DATA / "hetionet-v1.0-edges-sample.tsv.gz", sep="\t")
    return nodes, edges


def _names(nodes: pd.DataFrame, ids) -> list[str]:
    return list(nodes.set_index("id").loc[list(ids), "name"])


@pytest.fixture(scope="module")
def desk(workspace):
    return workspace.evidence_desk()


# --- the evidence desk ----------------------------------------------------------------------------------------------
def test_desk_list_answer_names_the_rows_it_cites(desk, hetionet):
    nodes, edges = hetionet
    treated = edges[(edges.source == METFORMIN) & (edges.metaedge == "CtD")].target
    result = desk.investigate("What does metformin treat?")
    assert result.question_type == "list" and result.outcome == "supported"
    assert sorted(x.text for x in result.exact) == sorted(_names(nodes, treated))
    assert {x.node_id for x in result.exact} == set(treated)
    for item in result.exact:  # each item cites the listing row that holds it
        (citation,) = item.citations
        assert citation.kind == "row" and citation.label == citation.ref
        artifact, row = citation.ref.split(":")
        assert next(a for a in result.artifacts if a.id == artifact).row(row)["target_id"] == item.node_id
    assert result.headline == ", ".join(x.text for x in result.exact) + "."
    assert result.to_markdown().splitlines()[2] == f"**A:** {result.headline}"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["question_type"] == "list" and data["exact"][0]["citations"][0]["kind"] == "row"


def test_desk_yes_no_rests_on_the_row_linking_both_entities(desk):
    yes = desk.investigate("Does metformin treat type 2 diabetes mellitus?")
    assert yes.question_type == "yesno" and yes.yes_no == "yes" and yes.headline == "Yes."
    (citation,) = yes.yes_no_citations
    artifact, row = citation.ref.split(":")
    assert next(a for a in yes.artifacts if a.id == artifact).row(row)["target_id"] == T2D
    undecided = desk.investigate("Does metformin treat Alzheimer's disease?")
    assert undecided.yes_no is None and undecided.yes_no_citations == ()
    assert undecided.headline == "Undecided: no row found links Metformin and Alzheimer's disease."


def _bace1_partners(edges: pd.DataFrame) -> set[str]:
    gig = edges[(edges.metaedge == "GiG") & ((edges.source == BACE1) | (edges.target == BACE1))]
    return (set(gig.source) | set(gig.target)) - {BACE1}


def test_desk_count_question_answers_with_the_count(desk, hetionet):
    n = len(_bace1_partners(hetionet[1]))
    result = desk.investigate("How many genes does BACE1 interact with?")
    assert result.question_type == "factoid" and [x.text for x in result.exact] == [str(n)]
    assert result.headline.startswith(f"{n}: BACE1 has {n} Gene node(s)")


def test_synthesis_count_question_states_the_total_not_a_few_names(workspace, hetionet):
    n = len(_bace1_partners(hetionet[1]))
    synthesis = Investigator(workspace).run("How many genes does BACE1 interact with?").synthesis
    assert synthesis.question_type == "factoid" and synthesis.exact == []
    assert synthesis.headline.startswith(f"BACE1 interacts with {n} genes")


def test_desk_without_an_answer_says_why_first(desk):
    result = desk.investigate("Which drugs treat Parkinson's disease?")
    assert result.exact == [] and result.question_type == "list"
    assert result.headline == "The graph has no compounds that treat Parkinson's disease (no TREATS_CtD edge)."


def test_llm_desk_items_come_from_the_rows_its_kept_claims_cite(workspace):
    from test_evidence_desk import CASSETTE, LLM_QUESTION

    result = workspace.evidence_desk(ReplayLLM(CASSETTE)).investigate(LLM_QUESTION)
    assert result.outcome == "supported" and result.question_type == "list"
    assert [x.text for x in result.exact] == ["APP", "PSEN1"]  # Alzheimer's disease is the question's own entity
    app = result.exact[0]
    assert app.node_id == "Gene::351" and [c.ref for c in app.citations] == ["q1:r1", "q2:r1"]
    assert result.headline == "APP, PSEN1."


# --- the agents -------------------------------------------------------------------------------------------------------
def test_synthesis_lists_the_treatments_the_agents_cite(workspace, hetionet):
    nodes, edges = hetionet
    treats = edges[(edges.target == ALZHEIMERS) & (edges.metaedge == "CtD")].source
    result = Investigator(workspace).run("Which drugs treat Alzheimer's disease?")
    synthesis = result.synthesis
    assert synthesis.question_type == "list"
    assert sorted(x.text for x in synthesis.exact) == sorted(_names(nodes, treats))
    for item in synthesis.exact:
        assert [c.ref for c in item.citations] == [f"{item.node_id} -[TREATS_CtD]-> {ALZHEIMERS}"]
    assert synthesis.headline == ", ".join(x.text for x in synthesis.exact) + "."
    lines = result.to_markdown().splitlines()
    assert lines[2] == f"**Answer:** {synthesis.headline}" and lines[4].startswith(f"- {synthesis.exact[0].text} (1.00)")
    assert synthesis.text.startswith(f"**Answer:** {synthesis.headline}")
    assert result.to_dict()["synthesis"]["exact"][0]["text"] == synthesis.exact[0].text


def test_synthesis_yes_no_rests_on_the_edge_between_the_entities(workspace, hetionet):
    _, edges = hetionet
    result = Investigator(workspace).run("Is BACE1 associated with Alzheimer's disease?")
    synthesis = result.synthesis
    assert synthesis.question_type == "yesno" and synthesis.yes_no == "yes" and synthesis.headline == "Yes."
    stored = {f"Disease::{s.split('::', 1)[1]} -[ASSOCIATES_DaG]-> {t}" for s, t in
              zip(edges[edges.metaedge == "DaG"].source, edges[edges.metaedge == "DaG"].target)}
    assert [c.ref for c in synthesis.yes_no_citations] == [f"{ALZHEIMERS} -[ASSOCIATES_DaG]-> {BACE1}"]
    assert synthesis.yes_no_citations[0].ref in stored


def test_synthesis_does_not_repeat_findings_and_keeps_the_graph_spelling(workspace):
    """Issue 34 item 12: the deterministic synthesis repeated every agent's text and printed cross-links
    lower-cased ("alzheimer's disease, bace1")."""
    result = Investigator(workspace).run("Which compounds target BACE1 in Alzheimer's disease?")
    synthesis = result.synthesis
    for finding in synthesis.findings:
        assert finding.claim.text.rstrip(".") not in synthesis.text
    assert re.search(r"\*\*From the literature:\*\* \d+ finding\(s\), F1", synthesis.text)
    assert {"BACE1", "Alzheimer's disease"} <= set(synthesis.cross_links)
    graph_texts = " ".join(c.text for agent, c in result.agent_claims() if agent not in ("literature", "synthesis"))
    assert all(link in graph_texts for link in synthesis.cross_links)  # spelled as the graph findings spell it
    assert "alzheimer's disease" not in synthesis.text and "bace1" not in synthesis.text
    assert synthesis.headline.startswith("The graph has no compounds that bind BACE1")
