"""Issue 15, items 4 and 5: the chunking and desk tunables are Settings fields read where the code runs, and the
validators split LLM replies with the shared statement splitter of engram_kit.text. Tiny inputs, no workspace."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from engram_kit.errors import DataError, QueryError, QueryGuardError
from engram_kit.evidence import DeskLimits, check_query
from engram_kit.evidence.templates import TEMPLATES, template_cypher
from engram_kit.ingestion.chunking import MAX_PASSAGE_TOKENS, OVERLAP_TOKENS, TARGET_PASSAGE_TOKENS, chunk_text
from engram_kit.settings import Settings
from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS
from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS
from engram_kit.text import split_sentences, split_statements


class WhitespaceCounter:
    """One token per white-space separated word (a tokenizer-free TokenCounter)."""

    def count_many(self, texts: Any) -> list[int]:
        return [len(t.split()) for t in texts]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(r"\S+", text)]


# --- the sections ---------------------------------------------------------------------------------------------
def test_chunking_and_desk_sections_have_documented_fields_with_the_old_values():
    table = Settings.describe().set_index("name")
    chunking, desk = Settings().chunking.to_dict(), Settings().desk.to_dict()
    assert chunking == {"target_passage_tokens": 200, "max_passage_tokens": 254, "passage_overlap_tokens": 40,
                        "min_tail_tokens": 50}
    assert (TARGET_PASSAGE_TOKENS, MAX_PASSAGE_TOKENS, OVERLAP_TOKENS) == (200, 254, 40)
    assert desk == {"desk_query_timeout_s": 10.0, "desk_max_rows": 100, "desk_max_bytes": 128 * 1024,
                    "desk_run_seconds": 120.0, "desk_run_queries": 12, "desk_repair_turns": 2,
                    "desk_max_memory_mb": 1024, "desk_list_limit": 25, "desk_path_limit": 50, "desk_top_n": 10,
                    "desk_via_shown": 3, "desk_max_hops": 4, "desk_max_query_chars": 8_000, "desk_max_nesting": 32,
                    "desk_memory_headroom": 0.125}
    for name in [*chunking, *desk]:
        row = table.loc[name]
        assert row["unit"] and row["range"] and row["source"] and row["help"], name


def test_old_manifests_open_with_the_new_fields_at_their_defaults_and_new_ones_round_trip():
    old = {"retrieval": {"damping": 0.5}, "memory": {"memory_seed_weight": 0.5}, "removed_field": 3}
    assert Settings.from_dict(old).chunking.to_dict() == Settings().chunking.to_dict()
    assert Settings.from_dict({"damping": 0.5, "top_k": 10}).desk_top_n == 10  # the flat layout before sections
    changed = Settings(max_passage_tokens=126, target_passage_tokens=100, desk_list_limit=7, desk_max_hops=2)
    stored = changed.to_dict()
    assert stored["chunking"]["max_passage_tokens"] == 126 and stored["desk"]["desk_list_limit"] == 7
    assert Settings.from_dict(stored) == changed


def test_chunk_sizes_are_range_checked_against_each_other():
    with pytest.raises(DataError, match="target_passage_tokens"):
        Settings(target_passage_tokens=300)  # above max_passage_tokens (254)
    with pytest.raises(DataError, match="passage_overlap_tokens"):
        Settings(passage_overlap_tokens=200)  # not below the target
    with pytest.raises(DataError, match="desk_repair_turns"):
        Settings(desk_repair_turns=3)
    settings = Settings()
    with pytest.raises(DataError, match="target_passage_tokens"):
        settings.chunking.max_passage_tokens = 150  # the section view validates the whole object


# --- chunking reads the workspace's sizes --------------------------------------------------------------------
def test_the_document_pipeline_chunks_with_its_settings(monkeypatch):
    from engram_kit.ingestion import documents

    seen: list[dict[str, Any]] = []

    class Stop(Exception):
        pass

    def record(text: str, **kwargs: Any) -> list[Any]:
        seen.append(kwargs)
        raise Stop

    monkeypatch.setattr(documents, "chunk_text", record)
    settings = Settings(max_passage_tokens=120, target_passage_tokens=90, passage_overlap_tokens=10)
    pipeline = documents.DocumentPipeline.__new__(documents.DocumentPipeline)  # only build()'s chunking runs
    pipeline.settings, pipeline.counter = settings, WhitespaceCounter()
    parsed = documents.parse_plain_text(b"# Methods\nWe measured it. It rose.")
    with pytest.raises(Stop):
        pipeline.build("doc:1", parsed, content_hash="x", fallback_title="t")
    assert seen and seen[0]["target_tokens"] == 90 and seen[0]["max_tokens"] == 120
    assert seen[0]["overlap_tokens"] == 10


def test_smaller_chunk_settings_give_smaller_passages():
    text = " ".join(f"Sentence {i} has five words." for i in range(40))
    counter = WhitespaceCounter()
    default = chunk_text(text, counter=counter)
    small = Settings(max_passage_tokens=30, target_passage_tokens=20, passage_overlap_tokens=5)
    cut = chunk_text(text, counter=counter, target_tokens=small.target_passage_tokens,
                     max_tokens=small.max_passage_tokens, overlap_tokens=small.passage_overlap_tokens)
    assert len(default) == 1 and len(cut) > 5 and max(c.tokens for c in cut) <= 30


# --- the desk reads the workspace's limits -------------------------------------------------------------------
def test_desk_limits_come_from_the_settings():
    assert DeskLimits() == DeskLimits.from_settings(Settings())
    limits = DeskLimits.from_settings(Settings(desk_max_rows=5, desk_list_limit=7, desk_top_n=3, desk_max_hops=2,
                                               desk_query_timeout_s=1.5))
    assert (limits.max_rows, limits.list_limit, limits.top_n, limits.max_hops, limits.query_timeout_s) == \
        (5, 7, 3, 2, 1.5)
    with pytest.raises(QueryError, match="out of range"):
        DeskLimits(list_limit=0)


def test_workspace_desk_uses_the_workspace_settings():
    from engram_kit.workspace import Workspace

    ws = SimpleNamespace(store=None, extractor=None, resolver=None, nodes=None,
                         settings=Settings(desk_list_limit=7, desk_run_queries=3),
                         _graph_display_name=lambda: "Hetionet v1.0")
    desk = Workspace.evidence_desk(ws)  # a stand-in with only the attributes it reads
    assert desk.limits.list_limit == 7 and desk.limits.run_queries == 3
    assert Workspace.evidence_desk(ws, limits=DeskLimits(list_limit=2)).limits.list_limit == 2


def test_the_guard_and_templates_take_the_limits():
    from engram_kit.kg.schema import HETIONET_SCHEMA

    query = "MATCH (g:Gene)-[:INTERACTS_GiG*1..3]-(o) RETURN o.name"
    assert check_query(query).max_hops == 3
    with pytest.raises(QueryGuardError, match="at most 2"):
        check_query(query, max_hops=2)
    name = TEMPLATES[0].name
    schema = HETIONET_SCHEMA
    assert template_cypher(name, "list", LADYBUG_STATEMENTS, schema=schema).endswith("LIMIT 25")
    assert template_cypher(name, "list", LADYBUG_STATEMENTS, schema=schema, limit=7).endswith("LIMIT 7")
    assert template_cypher(name, "count", NEO4J_STATEMENTS, schema=schema, limit=7) == \
        template_cypher(name, "count", NEO4J_STATEMENTS, schema=schema)


def test_plans_take_top_n():
    from engram_kit.answering.intent import parse_intent
    from engram_kit.evidence.plans import plan_queries
    from engram_kit.kg.schema import HETIONET_SCHEMA

    intent = parse_intent("What treats type 2 diabetes?", [("type 2 diabetes", "Disease")], HETIONET_SCHEMA)
    assert intent.known
    listing, _ = plan_queries(intent, "Disease::DOID:9352", "type 2 diabetes", HETIONET_SCHEMA, LADYBUG_STATEMENTS, 3)
    assert listing.cypher.rstrip().endswith("LIMIT 3")


# --- statements of LLM replies ----------------------------------------------------------------------------------
def test_statements_split_where_prose_sentences_would_merge_an_uncited_one():
    """Why the validators do not use split_sentences: its abbreviation/initial rules would keep "E." (cited by
    nothing) inside the [P2] statement, so an uncited sentence would pass the validator."""
    text = "A binds B [E1]. [P2] C is D. E. It binds\n  F [P3]."
    assert [s.text for s in split_sentences(text)][1].startswith("[P2] C is D. E.")
    statements = split_statements(text)
    assert [s.text for s in statements] == ["A binds B [E1].", "[P2] C is D.", "E.", "It binds\n  F [P3]."]
    assert all(text[s.start:s.end] == s.text for s in statements)
    assert [s.text for s in split_statements("Risk fell vs. placebo [E1]. p = 0.05 [E2].")] == [
        "Risk fell vs. placebo [E1]. p = 0.05 [E2]."]  # only an upper-case letter, digit, bracket or quote starts one


def test_the_three_llm_splitters_share_the_statement_rule():
    from engram_kit.agents.synthesis import AgentFinding, validate_paragraph
    from engram_kit.answering import Citation, Claim
    from engram_kit.answering.llm import split_cited_sentences
    from engram_kit.llm.offline import context_sentences

    assert split_cited_sentences("A binds B [E1]. [P2] C is D. E.") == [("A binds B.", ["E1"]), ("C is D.", ["P2"]),
                                                                       ("E.", [])]
    findings = [AgentFinding("F1", "drug", Claim("x", (Citation("edge", "x", "Hetionet BINDS_CbG"),)))]
    claims, withheld = validate_paragraph("Donepezil binds ACHE [F1]. Shown by Smith et al. \"It cures\" all.",
                                          findings)
    assert [c.text for c in claims] == ["Donepezil binds ACHE."] and withheld == 2
    context = "[P1] Metformin lowers glucose (Smith et al. 2001). Rain is wet.\n[E2] BACE1 binds APP."
    # The offline LLM's sentences are exactly the statements the validators will find again in its reply.
    assert [(s.label, s.text) for s in context_sentences(context)] == [
        ("[P1]", "Metformin lowers glucose (Smith et al."), ("[P1]", "2001)."), ("[P1]", "Rain is wet."),
        ("[E2]", "BACE1 binds APP.")]
