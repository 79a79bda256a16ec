"""Run bundles: save, load, export and offline replay (with and without a recorded LLM)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest

from engram_kit.agents import Investigator
from engram_kit.errors import DataError, LLMError
from engram_kit.llm import LLMResponse, RecordingLLM, ReplayLLM
from engram_kit.runs import RunBundle, replay

QUESTION = "Which compounds bind the targets of donepezil?"


class ScriptedLLM:
    """A stand-in provider with fixed replies (the real SDK path is tested by the LLM layer)."""

    name = "scripted:test"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                 temperature: float = 0.0) -> LLMResponse:
        self.calls += 1
        return LLMResponse("The first passage bears on the question [P1]. Nothing else is known.", self.name)

    def stream(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
               temperature: float = 0.0) -> Iterator[str]:
        self.calls += 1
        yield from ["Donepezil's targets are listed by the drug agent [F2]. ", "It is a miracle cure. ",
                    "A trial confirmed it [F99]."]

    def structured(self, messages, schema, *, system: str = "", max_tokens: int = 1024):
        raise LLMError("not scripted")


@pytest.fixture(scope="module")
def offline_bundle(workspace):
    result = Investigator(workspace).run(QUESTION)
    return result, RunBundle.from_result(result, workspace)


def test_bundle_holds_the_trail_and_round_trips(offline_bundle, workspace, tmp_path):
    result, bundle = offline_bundle
    assert bundle.question == QUESTION and bundle.llm is None
    assert bundle.versions["knowledge_graph"]["n_edges"] == workspace.manifest["knowledge_graph"]["n_edges"]
    assert bundle.versions["embedding_model"]["name"] == workspace.manifest["embedding_model"]["name"]
    assert bundle.seeds and "Compound::DB00843" in bundle.seeds
    assert bundle.queries and all(q["rows"] is not None and q["id"].startswith("q") for q in bundle.queries)
    assert bundle.claims and all(c["citations"] for c in bundle.claims)
    assert bundle.settings["retrieval"]["damping"] == workspace.settings.damping  # stored by section
    path = bundle.save(tmp_path / "run.json")
    loaded = RunBundle.load(path)
    assert loaded.to_dict() == json.loads(bundle.to_json())
    markdown = loaded.to_markdown()
    assert markdown.startswith("## " + QUESTION) and "Hetionet" in markdown and "graph queries" in markdown
    assert len(loaded.claims_frame()) >= len(loaded.claims) and not loaded.queries_frame().empty


def test_offline_replay_reproduces_the_answer(offline_bundle, workspace, tmp_path):
    _, bundle = offline_bundle
    outcome = replay(bundle.save(tmp_path / "run.json"), workspace)
    assert outcome.matches, outcome.claim_differences[:5]
    assert outcome.version_differences == []
    assert outcome.replayed.answer == bundle.answer


def test_llm_run_replays_from_its_cassette_with_no_provider(workspace, tmp_path):
    scripted = ScriptedLLM()
    recording = RecordingLLM(scripted, tmp_path / "cassette.json")
    result = Investigator(workspace, llm=recording).run(QUESTION)
    assert result.synthesis.mode == "scripted:test"
    assert result.synthesis.withheld == 2  # the uncited sentence and the one citing an unknown finding
    assert [c.text for c in result.synthesis.claims] == ["Donepezil's targets are listed by the drug agent."]
    bundle = RunBundle.from_result(result, workspace, llm=recording)
    assert bundle.llm["cassette"]["exchanges"] and bundle.llm["name"] == "scripted:test"
    calls = scripted.calls
    outcome = replay(bundle, workspace)  # ReplayLLM over the embedded cassette: no provider involved
    assert scripted.calls == calls and outcome.matches, outcome.claim_differences[:5]
    assert outcome.result.synthesis.withheld == 2


def test_bundle_refuses_an_unrecorded_llm_and_bad_files(workspace, tmp_path):
    result = Investigator(workspace, llm=ScriptedLLM()).run(QUESTION)
    with pytest.raises(DataError, match="RecordingLLM"):
        RunBundle.from_result(result, workspace, llm=ScriptedLLM())
    bad = tmp_path / "not-a-bundle.json"
    bad.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(DataError, match="not an engram-kit run bundle"):
        RunBundle.load(bad)


def test_replay_fails_loudly_on_an_unrecorded_request(workspace, tmp_path):
    recording = RecordingLLM(ScriptedLLM(), tmp_path / "c.json")
    bundle = RunBundle.from_result(Investigator(workspace, llm=recording).run(QUESTION), workspace, llm=recording)
    bundle.question = "Which compounds bind the targets of memantine?"  # a request the cassette never saw
    with pytest.raises(LLMError):
        replay(bundle, workspace)
    assert ReplayLLM  # the replay provider comes from the LLM layer


def test_cli_investigate_saves_and_replays_a_bundle(workspace, workspace_path, tmp_path, capsys):
    from engram_kit.cli import main

    bundle = tmp_path / "cli-run.json"
    assert main(["investigate", "-w", str(workspace_path), "What pathways involve TREM2 and APP?",
                 "--bundle", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "**Routing**" in out and "Pathway agent" in out and "Synthesis" in out and bundle.exists()
    assert main(["investigate", "-w", str(workspace_path), "--replay", str(bundle)]) == 0
    assert "replay matches" in capsys.readouterr().out
