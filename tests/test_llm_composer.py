"""LLMComposer (abstractive answers citing only retrieved evidence) and the optional LLM entity extractor,
on the bundled sample workspace."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from engram_kit.answering.llm import LLMComposer, split_cited_sentences
from engram_kit.extraction.llm_extractor import ExtractedEntities, LLMEntityExtractor
from engram_kit.llm import LLMResponse, OfflineLLM

QUESTION = "What compounds might reduce neuroinflammation in Alzheimer's disease?"


class Scripted:
    """A provider that returns fixed output (to test what the composer does with any LLM text)."""

    name = "scripted"

    def __init__(self, text: str = "", structured_value: object | None = None) -> None:
        self.text, self.value, self.prompts = text, structured_value, []

    def complete(self, messages: Sequence[dict[str, str]], **_: object) -> LLMResponse:
        self.prompts.append(messages[-1]["content"])
        return LLMResponse(self.text, self.name)

    def stream(self, messages: Sequence[dict[str, str]], **kw: object) -> Iterator[str]:
        yield self.complete(messages, **kw).text

    def structured(self, messages, schema, **_: object):
        return schema.model_validate(self.value)


@pytest.fixture(scope="module")
def result(workspace):
    return workspace.retrieve(QUESTION)


def test_offline_llm_answer_cites_only_provided_passages(result):
    composer = LLMComposer(OfflineLLM(max_sentences=3))
    answer = composer.compose(result)
    evidence = composer.evidence(result)
    assert answer.mode == "offline" and 1 <= len(answer.claims) <= 3
    passage_ids = {p.passage_id for p in result.passages}
    for claim in answer.claims:
        assert claim.citations and all(c.ref in passage_ids or c.kind == "edge" for c in claim.citations)
        # extractive: the claim text is verbatim from the evidence it cites
        label = next(k for k, (_, cit) in evidence.items() if cit == claim.citations[0])
        assert claim.text.rstrip(".") in evidence[label][0]
    assert any("0 claim(s) withheld" in note for note in answer.notes)


def test_uncited_and_unknown_citations_are_withheld(result):
    scripted = Scripted("Minocycline reduces microglial activation [P1]. Curcumin cures dementia. "
                        "Aspirin is neuroprotective [P99]. This is also supported [P2, E77].")
    answer = LLMComposer(scripted, structured=False).compose(result)  # the text protocol
    assert [c.text for c in answer.claims] == ["Minocycline reduces microglial activation.", "This is also supported."]
    assert answer.claims[0].citations[0].ref == result.passages[0].passage_id
    assert any("2 claim(s) withheld" in n for n in answer.notes)
    assert any("E77" in n and "P99" in n for n in answer.notes)
    assert "[P1]" in scripted.prompts[0] and f"Question: {QUESTION}" in scripted.prompts[0]


def test_split_cited_sentences():
    assert split_cited_sentences("A binds B [E1]. [P2] C is D. E.") == [("A binds B.", ["E1"]), ("C is D.", ["P2"]),
                                                                       ("E.", [])]


def test_llm_extractor_keeps_gazetteer_and_adds_only_verbatim_spans(workspace):
    text = "BACE1 inhibitors and the amyloid cascade in Alzheimer's disease."
    gazetteer = workspace.extractor.extract(text)
    scripted = Scripted(structured_value={"entities": [
        {"text": "amyloid cascade", "kind": "BiologicalProcess"},
        {"text": "tau tangles", "kind": "Disease"},          # not in the text: dropped
        {"text": "BACE1", "kind": "Gene"}]})                  # already a gazetteer mention: not duplicated
    mentions = LLMEntityExtractor(scripted, workspace.extractor).extract(text)
    added = [m for m in mentions if m not in gazetteer]
    assert [(m.text, m.method, m.candidates) for m in added] == [("amyloid cascade", "ner", ())]
    assert all(text[m.start:m.end] == m.text for m in mentions)
    assert ExtractedEntities.model_json_schema()["required"] == ["entities"]


def test_llm_extractor_offline_falls_back_to_gazetteer(workspace):
    text = "Donepezil treats Alzheimer's disease."
    assert LLMEntityExtractor(OfflineLLM(), workspace.extractor).extract(text) == workspace.extractor.extract(text)
