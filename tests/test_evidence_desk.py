"""Evidence desk on the bundled sample workspace: schema and search tools, offline templates, the claim
validator, the LLM path replayed from a committed cassette, and ``engram desk``.

The session ``workspace`` is only read: every desk query runs in a READ ONLY transaction.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engram_kit.errors import LLMError, QueryError
from engram_kit.evidence import Artifact, DeskClaim, DeskLimits, validate_claims
from engram_kit.llm import OfflineLLM, ReplayLLM

CASSETTE = Path(__file__).parent / "cassettes" / "evidence_desk_bace1.json"
LLM_QUESTION = "Which genes does BACE1 interact with, and which of them are associated with Alzheimer's disease?"


# --- how the cassette was made ---------------------------------------------------------------------------
SCRIPTED_PLAN = {"queries": [
    {"purpose": "genes that interact with BACE1",
     "cypher": "MATCH (g:Gene {id: $id})-[:INTERACTS_GiG]-(o:Gene) "
               "RETURN DISTINCT o.name AS gene ORDER BY gene LIMIT 50",
     "parameters": [{"name": "id", "value": "Gene::23621"}]},
    {"purpose": "BACE1 interactors associated with Alzheimer's disease",
     "cypher": "MATCH (d:Disease {id: $d})-[:ASSOCIATES_DaG]->(o:Gene)-[:INTERACTS_GiG]-(g:Gene {id: $id}) "
               "RETURN DISTINCT o.name AS gene ORDER BY gene LIMIT 50",
     "parameters": [{"name": "d", "value": "Disease::DOID:10652"}, {"name": "id", "value": "Gene::23621"}]},
    {"purpose": "clean up", "cypher": "MATCH (n) DETACH DELETE n", "parameters": []},
]}
SCRIPTED_DRAFTS = [
    {"claims": [{"text": "BACE1 interacts with APP", "citations": ["q1:r1"]},
                {"text": "APP interacts with BACE1 and is associated with Alzheimer's disease", "citations": ["q2:r1"]},
                {"text": "The graph was cleaned", "citations": ["q3:r1"]},
                {"text": "BACE1 interacts with MAPT", "citations": ["q1:r90"]}]},
    {"claims": [{"text": "BACE1 interacts with APP", "citations": ["q1:r1"]},
                {"text": "APP interacts with BACE1 and is associated with Alzheimer's disease", "citations": ["q2:r1"]},
                {"text": "BACE1 interacts with MAPT", "citations": ["q1:r2"]}]},
    {"claims": [{"text": "BACE1 interacts with APP", "citations": ["q1:r1"]},
                {"text": "APP interacts with BACE1 and is associated with Alzheimer's disease", "citations": ["q2:r1"]},
                {"text": "PSEN1 interacts with BACE1 and is associated with Alzheimer's disease",
                 "citations": ["q2:r4"]}]},
]


@pytest.mark.skipif(os.environ.get("ENGRAM_RECORD_CASSETTES") != "1",
                    reason="set ENGRAM_RECORD_CASSETTES=1 to re-record")
def test_record_desk_cassette(workspace):
    """Re-record ``evidence_desk_bace1.json``: scripted Messages API responses (not real Claude output) served
    by the local stub, through the real anthropic SDK path (AnthropicLLM) wrapped in RecordingLLM."""
    from test_llm_providers import FAKE_KEY, message, messages_api_stub

    from engram_kit.llm import AnthropicLLM, RecordingLLM

    with messages_api_stub() as (state, url):
        state.reply_json(message(json.dumps(SCRIPTED_PLAN), input_tokens=2400, output_tokens=260))
        for draft in SCRIPTED_DRAFTS:
            state.reply_json(message(json.dumps(draft), input_tokens=1800, output_tokens=180))
        CASSETTE.unlink(missing_ok=True)
        llm = RecordingLLM(AnthropicLLM(api_key=FAKE_KEY, base_url=url), CASSETTE,
                           note="Scripted responses (tests/test_evidence_desk.py SCRIPTED_*) served by a local "
                                "Messages API stub through the real anthropic SDK; not real Claude output.")
        result = workspace.evidence_desk(llm).investigate(LLM_QUESTION)
    assert result.repair_turns == 2 and result.outcome == "supported"


@pytest.fixture(scope="module")
def desk(workspace):
    return workspace.evidence_desk()


def test_schema_counts_are_live(desk, workspace):
    schema = desk.schema()
    counts = workspace.store.counts()
    by_label = {x.label: x.count for x in schema.labels}
    assert by_label["Gene"] == counts["Gene"] > 0 and by_label["Passage"] == counts["Passage"] > 0
    frame = schema.to_frame()
    assert set(frame["kind"]) == {"label", "relationship"} and len(frame) == 15 + 29
    assert "(:Gene)-[:INTERACTS_GiG]->(:Gene)" in schema.describe()


def test_search_by_id_and_by_name(desk):
    assert desk.search("Gene::23621")[0].name == "BACE1"
    hit = desk.search("alzheimer's disease")[0]
    assert hit.node_id == "Disease::DOID:10652" and hit.label == "Disease" and 0 < hit.confidence <= 1
    with pytest.raises(QueryError):
        desk.search("  ")


@pytest.mark.parametrize(("question", "rel_type", "entity"), [
    ("Which pathways does TP53 participate in?", "PARTICIPATES_GpPW", "Gene::7157"),
    ("What does metformin treat?", "TREATS_CtD", "Compound::DB00331"),
    ("Which genes does BACE1 interact with?", "INTERACTS_GiG", "Gene::23621"),
    ("What are the side effects of donepezil?", "CAUSES_CcSE", "Compound::DB00843"),
    ("Which diseases resemble Alzheimer's disease?", "RESEMBLES_DrD", "Disease::DOID:10652"),
    ("Which genes are associated with Alzheimer's disease?", "ASSOCIATES_DaG", "Disease::DOID:10652"),
    ("What palliates Alzheimer's disease?", "PALLIATES_CpD", "Disease::DOID:10652"),
])
def test_offline_intent_plans_cite_real_rows(desk, workspace, question, rel_type, entity):
    result = desk.investigate(question)
    assert result.template.startswith("intent:") and f"[{rel_type}]" in result.template
    assert result.mode == "offline-template" and result.outcome == "supported" and result.withheld_count == 0
    listing, count = result.artifacts
    assert listing.parameters == {"id": entity} and listing.status == count.status == "ok"
    # every claim cites a kept row and names that row's target
    for claim in result.claims[:-1]:
        (citation,) = claim.citations
        row = listing.row(citation.split(":")[1])
        assert row is not None and row["target"] in claim.text
    # the count claim agrees with the number of distinct targets; at most 10 listed, best evidence first
    total = count.row("r1")["n"]
    assert str(total) in result.claims[-1].text and result.claims[-1].citations == ("q2:r1",)
    assert len(listing.rows) == min(total, 10)
    keys = [(r["n_sources"], r["n_publications"], r["unbiased"]) for r in (listing.row(i) for i in listing.row_ids)]
    assert keys == sorted(keys, reverse=True)


def test_tp53_pathway_count_matches_the_graph(desk, workspace):
    result = desk.investigate("Which pathways does TP53 participate in?")
    direct = workspace.store.query("MATCH (g:Gene {id: 'Gene::7157'})-[:PARTICIPATES_GpPW]->(p:Pathway) "
                                   "RETURN count(DISTINCT p) AS n")["n"].iloc[0]
    assert result.artifacts[1].row("r1")["n"] == direct > 10
    assert any(f"{direct} pathways in total; top 10 shown" in note for note in result.notes)
    assert "TP53 participates in " in result.to_markdown()


def _evidence_key(sources, pubmed_ids, unbiased) -> tuple[int, int, int]:
    """The plans' evidence rule, recomputed in Python from the stored edge properties."""
    def count(value) -> int:
        return len(str(value).split("|")) if isinstance(value, str) and value else 0
    return count(sources), count(pubmed_ids), int(unbiased == "true")


def test_keyword_template_listing_is_evidence_ordered_with_total(desk, workspace):
    """Asking for negated assertions bypasses the intent plans on Hetionet, so the keyword template
    disease_genes answers: its 25 rows are the 25 best-supported of Parkinson's disease's genes, not the first
    25 by name, and every claim still cites its row."""
    pd_id = "Disease::DOID:14330"
    result = desk.investigate("Which genes are associated with Parkinson's disease?", include_negated=True)
    assert result.template == "disease_genes" and result.outcome == "supported" and result.withheld_count == 0
    listing, count = result.artifacts
    edges = workspace.store.read_only_query(
        "MATCH (d:Disease {id: $d})-[r:ASSOCIATES_DaG]->(g:Gene) RETURN g.name AS gene, r.sources AS sources, "
        "r.pubmed_ids AS pubmed_ids, r.unbiased AS unbiased", {"d": pd_id})
    expected = sorted(((*_evidence_key(r.sources, r.pubmed_ids, r.unbiased), r.gene) for r in edges.itertuples()),
                      key=lambda k: (-k[0], -k[1], -k[2], k[3]))
    rows = [listing.row(rid) for rid in listing.row_ids]
    assert [(r["n_sources"], r["n_publications"], r["unbiased"], r["target"]) for r in rows] == expected[:25]
    assert {"SNCA", "LRRK2", "GBA"} <= {r["target"] for r in rows[:4]}
    assert "SNCA" not in sorted(edges["gene"])[:25]  # the former ORDER BY target LIMIT 25 left it out
    assert count.row("r1")["n"] == len(edges) == 143
    assert f"Listing the first 25 of {len(edges)}, ordered by evidence" in result.notes[-1]
    for claim, row in zip(result.claims, rows):
        assert row["target"] in claim.text and f"{row['n_sources']} source" in claim.text
    assert result.claims[-1].citations == ("q2:r1",) and "143" in result.claims[-1].text


def test_unknown_intent_falls_back_to_an_evidence_ordered_template(desk, workspace):
    result = desk.investigate("What are the members of Benzodiazepines?")
    assert "not recognised offline" in result.notes[0] and result.template == "class_members"
    assert result.outcome == "supported" and result.withheld_count == 0
    listing, count = result.artifacts
    members = workspace.store.read_only_query(
        "MATCH (p:PharmacologicClass {name: 'Benzodiazepines'})-[:INCLUDES_PCiC]->(c:Compound) RETURN c.name AS name")
    assert count.row("r1")["n"] == len(members) and {listing.row(r)["target"] for r in listing.row_ids} <= \
        set(members["name"])
    assert {"n_sources", "n_publications", "unbiased"} <= set(listing.columns)


def test_unmatched_question_is_unsupported_with_a_note(desk):
    result = desk.investigate("What is the meaning of life?")
    assert result.outcome == "unsupported" and not result.artifacts
    assert "not recognised offline" in result.notes[0] and "No offline template" in result.notes[1]
    with pytest.raises(QueryError):
        desk.investigate(" ")


def test_offline_llm_uses_templates(workspace):
    result = workspace.evidence_desk(OfflineLLM()).investigate("What does metformin treat?")
    assert result.template == "intent:Compound -> [TREATS_CtD] Disease" and result.outcome == "supported"
    assert result.repair_turns == 0


# --- validator -------------------------------------------------------------------------------------------
def _artifacts() -> list[Artifact]:
    ok = Artifact("q1", "MATCH ...", columns=["gene"], rows=[["APP"], ["PSEN1"]])
    cut = Artifact("q2", "MATCH ...", columns=["gene"], rows=[["A2M"]], truncated=True, truncation="row cap 1",
                   rows_seen=5)
    refused = Artifact("q3", "MATCH (n) DELETE n", status="refused", error="Query refused")
    return [ok, cut, refused]


@pytest.mark.parametrize(("claim", "reason"), [
    (DeskClaim("BACE1 interacts with APP", ()), "cites no row"),
    (DeskClaim("BACE1 interacts with APP", ("q9:r1",)), "unknown artifact q9"),
    (DeskClaim("BACE1 interacts with APP", ("q1:r7",)), "unknown row"),
    (DeskClaim("A2M is associated", ("q2:r4",)), "truncated (row cap 1)"),
    (DeskClaim("Everything was deleted", ("q3:r1",)), "was refused"),
    (DeskClaim("BACE1 interacts with APP", ("row 1",)), "not a row citation"),
    (DeskClaim("BACE1 is a protease", ("q1:r1",)), "names none of the values"),
])
def test_validator_withholds(claim, reason):
    validation = validate_claims([claim], _artifacts())
    assert validation.outcome == "unsupported" and reason in validation.withheld[0].reasons[0]


def test_validator_outcomes():
    good = DeskClaim("BACE1 interacts with APP", ("q1:r1",))
    bad = DeskClaim("BACE1 interacts with MAPT", ("q1:r5",))
    assert validate_claims([good], _artifacts()).outcome == "supported"
    partial = validate_claims([good, bad], _artifacts())
    assert partial.outcome == "partial" and len(partial.kept) == 1 and len(partial.withheld) == 1
    assert list(partial.to_frame()["kept"]) == [True, False]


# --- the LLM path, replayed -----------------------------------------------------------------------------
# The recorded plan's prompt carries the live schema's row counts (NounPhrase, MENTIONS, MAPS_TO), so a change to
# extraction or linking changes the prompt and replay refuses it ("Unrecorded LLM request"). Re-recording needs
# no key, since the responses are scripted above: ENGRAM_RECORD_CASSETTES=1 pytest tests/test_evidence_desk.py -k record


def test_llm_desk_replays_plan_guard_and_repairs(workspace):
    """Recorded run: the plan holds a write the guard refuses; two repair turns fix the withheld claims."""
    result = workspace.evidence_desk(ReplayLLM(CASSETTE)).investigate(LLM_QUESTION)
    statuses = [a.status for a in result.artifacts]
    assert statuses == ["ok", "ok", "refused"] and "DETACH" in result.artifacts[2].error
    assert result.artifacts[1].row("r1") == {"gene": "APP"}
    assert result.repair_turns == 2 and result.outcome == "supported" and result.withheld_count == 0
    assert {c.text for c in result.claims} >= {"BACE1 interacts with APP"}
    assert all(c.citations for c in result.claims)


def test_llm_desk_without_repair_reports_withheld(workspace):
    result = workspace.evidence_desk(ReplayLLM(CASSETTE), DeskLimits(repair_turns=0)).investigate(LLM_QUESTION)
    assert result.repair_turns == 0 and result.outcome == "partial" and result.withheld_count == 2
    assert "withheld" in result.to_markdown() and "2 withheld" in result.to_markdown()


def test_replay_of_another_question_fails_loudly(workspace):
    with pytest.raises(LLMError, match="Unrecorded LLM request"):
        workspace.evidence_desk(ReplayLLM(CASSETTE)).investigate("Which genes does APP interact with?")


# --- CLI -------------------------------------------------------------------------------------------------
def test_cli_desk_prints_claims_outcome_and_withheld(workspace_path, capsys):
    from engram_kit.cli import main

    assert main(["desk", "What does metformin treat?", "-w", str(workspace_path), "--rows", "2"]) == 0
    out = capsys.readouterr().out
    assert "Metformin treats" in out and "[q1:r1]" in out and "outcome supported" in out
    assert "0 claim(s) withheld" in out and "q1:r2 {" in out
    assert main(["desk", "What does metformin treat?", "-w", str(workspace_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "supported" and data["withheld"] == 0 and data["artifacts"][0]["id"] == "q1"
