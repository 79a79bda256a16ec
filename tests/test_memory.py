"""Session memory: decay, consolidation into memory.json, memory-biased PPR on a TREM2 session."""

from __future__ import annotations

import json

import pytest

from engram_kit.errors import DataError
from engram_kit.memory import LongTermMemory, MemoryFinding, WorkingMemory

TREM2 = "Gene::54209"


def test_working_memory_decays_with_the_documented_half_life():
    memory = WorkingMemory(half_life_turns=2)
    memory.observe([(TREM2, "TREM2", "Gene")])
    memory.observe([])
    memory.observe([])
    assert memory.entities[TREM2].strength == pytest.approx(0.5)  # two turns later: half
    memory.observe([(TREM2, "TREM2", "Gene")], [MemoryFinding("TREM2 is expressed in microglia", [], "literature")])
    assert memory.entities[TREM2].turns == 2 and memory.entities[TREM2].strength == pytest.approx(1 + 0.5 ** 1.5)
    seeds = memory.seeds(0.5)
    assert sum(seeds.values()) == pytest.approx(0.5) and list(seeds) == [TREM2]
    for _ in range(20):
        memory.observe([])
    assert not memory.entities and not memory.findings  # forgotten below the floor
    with pytest.raises(DataError, match="half_life_turns"):
        WorkingMemory(half_life_turns=0)


def test_consolidation_rule_and_long_term_file(tmp_path):
    memory = WorkingMemory()
    long_term = LongTermMemory.load(tmp_path)
    for turn in range(3):
        memory.observe([(TREM2, "TREM2", "Gene"), ("Gene::351", "APP", "Gene")][: 2 if turn < 2 else 1])
        long_term.consolidate(memory)
    assert set(long_term.entities) == {TREM2}  # APP was named in only 2 turns
    assert long_term.entities[TREM2]["reason"] == "consolidated"
    long_term.keep_finding("TREM2 participates in DAP12 interactions",
                           [{"kind": "edge", "ref": "Gene::54209 -[PARTICIPATES_GpPW]-> x", "label": "Hetionet"}])
    reloaded = LongTermMemory.load(tmp_path)
    assert set(reloaded.entities) == {TREM2} and len(reloaded.findings) == 1
    assert json.loads((tmp_path / "memory.json").read_text())["entities"][TREM2]["name"] == "TREM2"
    reloaded.clear()
    assert not (tmp_path / "memory.json").exists() and LongTermMemory.load(tmp_path).entities == {}
    (tmp_path / "memory.json").write_text("{not json")
    with pytest.raises(DataError, match="memory file"):
        LongTermMemory.load(tmp_path)


def _trem2_paths(result) -> int:
    """Top-10 passages whose evidence path starts at TREM2."""
    return sum(any(p.nodes[0] == TREM2 for p in hit.paths) for hit in result.literature.retrieval.passages[:10])


def test_follow_up_question_stays_on_trem2(workspace):
    session = workspace.session(consolidate_after=10**6)  # never writes memory.json of the shared workspace
    first = session.investigate("What is known about TREM2 in microglia?")
    assert TREM2 in {e.node_id for e in first.entities}
    assert list(session.show_memory()["node_id"]) == [TREM2]
    follow_up = session.investigate("Which drugs target it?")
    assert not follow_up.entities  # the question names nothing ...
    assert follow_up.memory_seeds == {TREM2: pytest.approx(0.5)}  # ... memory seeds PPR instead
    assert "from memory" in " ".join(follow_up.routing.route("pathway").reasons)
    assert follow_up.pathway is not None and follow_up.pathway.genes == [TREM2]
    assert _trem2_paths(follow_up) >= 5
    # Without memory the same question has no graph anchor at all.
    fresh = workspace.session(memory_weight=0.0).investigate("Which drugs target it?")
    assert not fresh.memory_seeds and _trem2_paths(fresh) == 0 and fresh.literature.retrieval.fallback
    session.clear_memory()
    assert session.show_memory().empty and session.memory_seeds() == {}
