"""The LLM composer's structured answers (issue 29 item 5), replayed from a committed cassette: no key, no network.

The evidence is real and fixed: bundled PubMed abstracts (``data/pubmed``) and bundled Hetionet nodes and edges
(``data/hetionet``) around the question's entity, assembled into a :class:`RetrievalResult` here rather than
retrieved, so the recorded prompts do not move when ranking changes. The model's replies are scripted
(:data:`SCRIPTED`, not real Claude output) and were recorded through the real anthropic SDK path against the
local Messages API stub of ``tests/test_llm_providers.py``. Re-record (no key needed)::

    ENGRAM_RECORD_CASSETTES=1 pytest tests/test_llm_answers.py -k record
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.answering.llm import (
    STRUCTURED_SYSTEM_PROMPT,
    LLMComposer,
    MalformedReplyError,
    parse_reply,
)
from engram_kit.answering.qtype import question_type
from engram_kit.answering.structure import detect_question_type
from engram_kit.datasets import resolve_data_paths
from engram_kit.errors import LLMError
from engram_kit.ingestion.pubmed import read_pubmed
from engram_kit.llm import ReplayLLM
from engram_kit.retrieval.results import PassageHit, ResolvedEntity, RetrievalResult

CASSETTE = Path(__file__).parent / "cassettes" / "llm_answers.json"
DATA = Path(__file__).parents[1] / "data"

PD = "Disease::DOID:14330"
LIST_QUESTION = "Which drugs treat Parkinson's disease?"
#: PubMed abstracts of the bundled sample about Parkinson's drugs (selegiline, rasagiline, entacapone, apomorphine)
LIST_PMIDS = ("9673855", "20517484", "10439935", "11009181")
LIST_DRUGS = ("Compound::DB01037", "Compound::DB01367", "Compound::DB00494", "Compound::DB00714", "Compound::DB01235")
YESNO_QUESTION = "Does fluoxetine improve levodopa-induced dyskinesias?"
YESNO_PMIDS = ("7477981", "8106150")


@lru_cache(maxsize=1)
def _records() -> dict[str, object]:
    return {r.pmid: r for r in read_pubmed(resolve_data_paths().abstracts)}


@lru_cache(maxsize=1)
def _graph() -> tuple[pd.DataFrame, pd.DataFrame]:
    nodes = pd.read_csv(DATA / "hetionet" / "hetionet-v1.0-nodes.tsv.gz", sep="\t")
    edges = pd.read_csv(DATA / "hetionet" / "hetionet-v1.0-edges-sample.tsv.gz", sep="\t")
    return nodes, edges


def _hit(rank: int, pmid: str, entities: tuple[str, ...]) -> PassageHit:
    record = _records()[pmid]
    return PassageHit(rank, f"pubmed:{pmid}#p0", f"pubmed:{pmid}", "pubmed", pmid, record.title, record.year, "",
                      None, None, record.text, 1.0 - 0.1 * rank, 0.5, 0.5, 0.0, 0.5, entities)


def _entity(mention: str, node_id: str) -> ResolvedEntity:
    nodes, _ = _graph()
    row = nodes[nodes.id == node_id].iloc[0]
    return ResolvedEntity(mention, 0, 0, node_id, str(row["name"]), str(row["kind"]), 1.0, "exact", 1.0)


def _result(question: str, entities: list[ResolvedEntity], pmids: tuple[str, ...], others: tuple[str, ...],
            metaedges: tuple[str, ...], hit_entities: tuple[str, ...]) -> RetrievalResult:
    """A retrieval result over real sample data: the abstracts ``pmids`` ranked in order, and the bundled graph's
    ``metaedges`` edges between the question entities and ``others`` as the subgraph."""
    nodes, edges = _graph()
    seeds = [e.node_id for e in entities]
    ids = seeds + list(others)
    keep = edges[edges.source.isin(ids) & edges.target.isin(ids) & edges.metaedge.isin(metaedges)]
    rel = {"CpD": "PALLIATES_CpD", "CtD": "TREATS_CtD", "CbG": "BINDS_CbG"}
    sub_edges = pd.DataFrame({"source": keep.source, "target": keep.target,
                              "rel_type": [rel[m] for m in keep.metaedge], "predicate": list(keep.metaedge),
                              "directed": True, "negated": False, "primary_knowledge_source": "",
                              "aggregator_knowledge_source": "", "publications": "", "qualifiers": ""})
    sub_nodes = nodes[nodes.id.isin(ids)].assign(ppr=lambda f: [1.0 if i in seeds else 0.01 for i in f.id],
                                                 is_seed=lambda f: f.id.isin(seeds))
    passages = [_hit(i, pmid, hit_entities) for i, pmid in enumerate(pmids)]
    return RetrievalResult(question, "all", 0.5, 0.5, entities, passages, sub_nodes.reset_index(drop=True),
                           sub_edges.reset_index(drop=True), 0.1, 20, graph="hetionet")


def list_result() -> RetrievalResult:
    return _result(LIST_QUESTION, [_entity("Parkinson's disease", PD)], LIST_PMIDS, LIST_DRUGS, ("CpD", "CtD"),
                   ("Parkinson's disease", "selegiline", "rasagiline", "entacapone", "apomorphine"))


def yesno_result() -> RetrievalResult:
    entities = [_entity("fluoxetine", "Compound::DB00472"), _entity("levodopa", "Compound::DB01235")]
    return _result(YESNO_QUESTION, entities, YESNO_PMIDS, (), (), ("fluoxetine", "levodopa", "dyskinesia"))


# --- the scripted replies, in the order the record test asks for them -------------------------------------------
SUPPORTED = {
    "question_type": "list",
    "exact": [{"text": "selegiline", "cites": ["P1.2", "E3"]}, {"text": "rasagiline", "cites": ["P2.1", "E5"]},
              {"text": "entacapone", "cites": ["P3.13", "E1"]}, {"text": "apomorphine", "cites": ["P4.2", "E2"]}],
    "yes_no": None, "yes_no_cites": [],
    "claims": [{"text": "Selegiline, an MAO-B inhibitor, is widely used to treat Parkinson's disease.",
                "cites": ["P1.2"]},
               {"text": "Rasagiline, a newer MAO-B inhibitor, is used in the treatment of Parkinson's disease.",
                "cites": ["P2.1", "P2.4"]},
               {"text": "Entacapone is used as an adjunct to levodopa in Parkinson's disease.", "cites": ["P3.13"]},
               {"text": "Apomorphine was the first dopaminergic drug used to treat Parkinson's disease.",
                "cites": ["P4.2", "E2"]}]}
#: one claim whose sentence never names Parkinson's disease, one exact item resting on such a sentence, one unknown id
ONE_UNSUPPORTED = {
    "question_type": "list",
    "exact": [{"text": "selegiline", "cites": ["P1.2"]}, {"text": "pethidine", "cites": ["P1.12"]},
              {"text": "entacapone", "cites": ["P3.13", "P9.1"]}],
    "yes_no": None, "yes_no_cites": [],
    "claims": [{"text": "Selegiline is widely used in the treatment of Parkinson's disease.", "cites": ["P1.2"]},
               {"text": "Entacapone causes urine discolouration.", "cites": ["P3.10"]},
               {"text": "Entacapone is an adjunct to levodopa in Parkinson's disease.", "cites": ["P3.13"]}]}
#: not the JSON object asked for: prose with labels, as a model that ignored the format would write
MALFORMED = "Selegiline and rasagiline treat Parkinson's disease [P1.2, P2.1]."
YES = {
    "question_type": "yesno", "exact": [], "yes_no": "yes", "yes_no_cites": ["P1.1", "P1.5"],
    "claims": [{"text": "In patients with Parkinson's disease, fluoxetine improved levodopa-induced dyskinesias.",
                "cites": ["P1.1"]},
               {"text": "After fluoxetine, apomorphine-induced dyskinesias improved by 47%.", "cites": ["P1.3"]}]}


def _runs():
    """(name, result factory, composer options, scripted reply text) of every recorded exchange."""
    return [("supported", list_result, {}, json.dumps(SUPPORTED)),
            ("one unsupported", list_result, {"max_passages": 3}, json.dumps(ONE_UNSUPPORTED)),
            ("malformed", list_result, {"max_passages": 2}, MALFORMED),
            ("yes/no", yesno_result, {}, json.dumps(YES))]


@pytest.mark.skipif(os.environ.get("ENGRAM_RECORD_CASSETTES") != "1",
                    reason="set ENGRAM_RECORD_CASSETTES=1 to re-record")
def test_record_llm_answers_cassette():
    """Re-record ``llm_answers.json``: the scripted replies above served by the local Messages API stub through
    the real anthropic SDK path (AnthropicLLM) wrapped in RecordingLLM."""
    from test_llm_providers import FAKE_KEY, message, messages_api_stub

    from engram_kit.llm import AnthropicLLM, RecordingLLM

    CASSETTE.unlink(missing_ok=True)
    with messages_api_stub() as (state, url):
        llm = RecordingLLM(AnthropicLLM(api_key=FAKE_KEY, base_url=url), CASSETTE,
                           note="Scripted replies (tests/test_llm_answers.py) served by a local Messages API stub "
                                "through the real anthropic SDK; not real Claude output.")
        for _, make, options, reply in _runs():
            state.reply_json(message(reply, input_tokens=3000, output_tokens=300))
            LLMComposer(llm, **options).compose(make())
    assert len(ReplayLLM(CASSETTE).cassette) == len(_runs())


def _replayed(make, **options):
    return LLMComposer(ReplayLLM(CASSETTE), **options).compose(make())


# --- replayed ------------------------------------------------------------------------------------------------------
def test_supported_list_answer_states_cited_names():
    answer = _replayed(list_result)
    assert answer.question_type == "list" and answer.mode == "anthropic:claude-sonnet-5-5"
    assert [x.text for x in answer.exact] == ["selegiline", "rasagiline", "entacapone", "apomorphine"]
    assert answer.headline == "selegiline, rasagiline, entacapone, apomorphine."
    selegiline = answer.exact[0]
    # a linked item carries its graph node and name; its citations are the sentence's passage and the graph edge
    assert selegiline.node_id == "Compound::DB01037" and selegiline.synonyms == ("Selegiline",)
    assert [c.label for c in selegiline.citations] == ["PMID:9673855", "Hetionet PALLIATES_CpD"]
    assert selegiline.citations[1].ref == f"Compound::DB01037 -[PALLIATES_CpD]-> {PD}"
    assert [x.score for x in answer.exact] == [1.0, 0.5, 0.3333, 0.25]
    assert len(answer.claims) == 4 and answer.unsupported == []
    assert answer.claims[1].citations == (answer.exact[1].citations[0],)  # two sentences of P2: one citation
    assert "0 claim(s) withheld by the citation check (no provided evidence cited)." in answer.notes
    assert not any("unsupported" in n for n in answer.notes) and "unsupported" not in answer.to_markdown()
    assert answer.to_markdown().splitlines()[2] == "**A:** selegiline, rasagiline, entacapone, apomorphine."


def test_one_unsupported_claim_is_kept_and_flagged():
    answer = _replayed(list_result, max_passages=3)
    texts = [c.text for c in answer.claims]
    assert texts == ["Selegiline is widely used in the treatment of Parkinson's disease.",
                     "Entacapone causes urine discolouration.",
                     "Entacapone is an adjunct to levodopa in Parkinson's disease."]
    assert [c.text for c in answer.unsupported] == ["Entacapone causes urine discolouration."]
    # pethidine's only sentence does not name Parkinson's disease: dropped; the unknown id is named
    assert [x.text for x in answer.exact] == ["selegiline", "entacapone"]
    assert any("Dropped exact answer item(s)" in n and "pethidine" in n for n in answer.notes)
    assert any("not in the evidence: P9.1" in n for n in answer.notes)
    assert any(n.startswith("1 claim(s) flagged unsupported") for n in answer.notes)
    markdown = answer.to_markdown()
    assert "- Entacapone causes urine discolouration. [PMID:10439935] *(unsupported" in markdown
    assert markdown.count("*(unsupported") == 1
    data = json.loads(json.dumps(answer.to_dict()))
    assert [c["text"] for c in data["unsupported"]] == ["Entacapone causes urine discolouration."]
    assert [x["text"] for x in data["exact"]] == ["selegiline", "entacapone"] and data["question_type"] == "list"


def test_malformed_reply_falls_back_offline_with_a_note():
    answer = _replayed(list_result, max_passages=2)
    assert answer.exact == [] and answer.question_type == "list" and answer.mode == "anthropic:claude-sonnet-5-5"
    problem = next(n for n in answer.notes if "did not return the structured JSON answer" in n)
    assert "Selegiline and rasagiline" in problem and "Answered offline instead" in problem
    # the offline fallback quotes evidence verbatim, each sentence citing one of the two passages shown or an edge
    shown = {f"pubmed:{p}#p0" for p in LIST_PMIDS[:2]}
    assert answer.claims and all(x.ref in shown or x.kind == "edge" for c in answer.claims for x in c.citations)
    assert answer.headline.startswith("No exact answer")
    with pytest.raises(MalformedReplyError, match="did not return the structured JSON"):
        _replayed(list_result, max_passages=2, on_malformed="raise")


def test_yes_no_answer_rests_on_sentences_naming_both_entities():
    answer = _replayed(yesno_result)
    assert answer.question_type == "yesno" and answer.yes_no == "yes" and answer.headline == "Yes."
    assert [c.label for c in answer.yes_no_citations] == ["PMID:7477981"]
    assert answer.exact == [] and answer.unsupported == [] and len(answer.claims) == 2
    assert answer.to_dict()["yes_no"] == "yes"


def test_replay_of_changed_evidence_fails_loudly():
    with pytest.raises(LLMError, match="Unrecorded LLM request"):
        _replayed(list_result, max_passages=1)


# --- parsing and checks without a cassette --------------------------------------------------------------------------
class Scripted:
    """A provider returning one fixed reply (what the composer does with any model text)."""

    name = "scripted"

    def __init__(self, text: str) -> None:
        self.text, self.systems, self.prompts = text, [], []

    def complete(self, messages, *, system="", **_):
        from engram_kit.llm import LLMResponse

        self.systems.append(system)
        self.prompts.append(messages[-1]["content"])
        return LLMResponse(self.text, self.name)


@pytest.mark.parametrize(("text", "problem"), [
    ("not json at all", "Invalid JSON"),
    ('{"question_type": "list", "claims": [], "answer": "x"}', "answer: Extra inputs are not permitted"),
    ('{"question_type": "maybe", "claims": []}', "question_type"),
    ('{"claims": []}', "question_type: Field required"),
    ('{"question_type": "list", "exact": [{"text": "", "cites": []}]}', "exact.0.text"),
])
def test_parse_reply_is_strict(text, problem):
    with pytest.raises(MalformedReplyError, match="did not return the structured JSON") as err:
        parse_reply(text, source="Claude")
    assert problem in str(err.value) and str(err.value).startswith("Claude ")


def test_parse_reply_accepts_a_fenced_object():
    reply = parse_reply("```json\n" + json.dumps(YES) + "\n```")
    assert reply.yes_no == "yes" and reply.yes_no_cites == ["P1.1", "P1.5"]


def test_prompt_numbers_sentences_and_states_the_detected_type():
    scripted = Scripted(json.dumps(SUPPORTED))
    LLMComposer(scripted).compose(list_result())
    prompt = scripted.prompts[0]
    assert scripted.systems[0] == STRUCTURED_SYSTEM_PROMPT
    assert "[P1] PMID:9673855\n  [P1.1] Safety of selegiline (deprenyl) in the treatment of Parkinson's disease." in prompt
    assert "[E3] Selegiline palliates Parkinson's disease (Hetionet PALLIATES_CpD)." in prompt
    assert prompt.endswith("Question type: list\nQuestion: Which drugs treat Parkinson's disease?")


def test_yes_without_a_backing_sentence_is_undecided():
    reply = dict(YES, yes_no_cites=["P2.4"])  # "all animals manifested dyskinesia": neither drug named
    answer = LLMComposer(Scripted(json.dumps(reply))).compose(yesno_result())
    assert answer.yes_no is None and answer.headline.startswith("Undecided")
    assert any("answered 'yes'" in n and "undecided" in n for n in answer.notes)


def test_an_exact_item_never_rests_on_a_negated_edge():
    result = list_result()
    result.subgraph_edges.loc[result.subgraph_edges.source == "Compound::DB01037", "negated"] = True
    label = next(k for k, v in LLMComposer(Scripted("")).structured_evidence(result).items()
                 if k.startswith("E") and "Selegiline" in v.text)
    assert result.subgraph_edges.negated.any()
    reply = dict(SUPPORTED, exact=[{"text": "selegiline", "cites": [label]}])
    answer = LLMComposer(Scripted(json.dumps(reply))).compose(result)
    assert answer.exact == [] and any("selegiline" in n for n in answer.notes if n.startswith("Dropped exact"))


@pytest.mark.parametrize(("question", "kind"), [
    ("Does metformin treat type 2 diabetes?", "yesno"), ("Is APOE associated with Alzheimer's disease?", "yesno"),
    ("Which genes does BACE1 interact with?", "list"), ("What are the side effects of donepezil?", "list"),
    ("List the drugs that palliate Parkinson's disease.", "list"), ("What does metformin treat?", "list"),
    ("Which gene is mutated in cystic fibrosis?", "factoid"), ("How many genes does BACE1 interact with?", "factoid"),
    ("What is the most common mutation in cystic fibrosis?", "factoid"),
    ("How does TREM2 affect microglia?", "summary"), ("What is the role of BACE1 in Alzheimer's disease?", "summary"),
    ("What is Alzheimer's disease?", "summary"), ("Which diseases is SHH associated with?", "list"),
    ("What does BACE1 do in Alzheimer's disease?", "summary"), ("What does capnography measure?", "factoid"),
])
def test_question_type_cues(question, kind):
    """Every answering path types a question with the one detector (qtype), the composer's."""
    assert question_type(question) == kind == detect_question_type(question)


def test_synthesis_takes_the_literature_answers_exact_items():
    """The agents' answer structure starts from the literature agent's exact items when its composer (here the
    replayed LLM answer) gives them; their citations stay those of the supporting sentences and edges."""
    from engram_kit.agents.synthesis import answer_structure

    literature = _replayed(list_result)
    question_type, exact, yes_no, _, line = answer_structure(LIST_QUESTION, literature.retrieval.entities,
                                                             {"literature": literature})
    assert question_type == "list" and yes_no is None
    assert [(x.text, x.citations) for x in exact] == [(x.text, x.citations) for x in literature.exact]
    assert line == literature.headline == "selegiline, rasagiline, entacapone, apomorphine."
    yes = _replayed(yesno_result)
    question_type, exact, yes_no, citations, line = answer_structure(YESNO_QUESTION, yes.retrieval.entities,
                                                                     {"literature": yes})
    assert (question_type, yes_no, line, exact) == ("yesno", "yes", "Yes.", []) and citations == yes.yes_no_citations


def test_a_reply_cut_at_max_tokens_says_so():
    class Cut(Scripted):
        def complete(self, messages, *, system="", **_):
            from engram_kit.llm import LLMResponse

            return LLMResponse(json.dumps(SUPPORTED)[:200], self.name, stop_reason="max_tokens")

    with pytest.raises(MalformedReplyError, match="cut at max_tokens=1200: raise it"):
        LLMComposer(Cut(""), on_malformed="raise").compose(list_result())


def test_a_sentence_may_name_the_entity_by_an_abbreviation_its_abstract_defines():
    """P2.4 says "approved for treatment of PD"; the same abstract defines "Parkinson's disease (PD)"."""
    from engram_kit.answering.structure import defined_abbreviations

    result = list_result()
    assert defined_abbreviations(["Parkinson's disease"], [h.text for h in result.passages]) == ["PD"]
    reply = dict(SUPPORTED, exact=[{"text": "rasagiline", "cites": ["P2.4"]}],
                 claims=[{"text": "Rasagiline is approved for the treatment of PD.", "cites": ["P2.4"]}])
    answer = LLMComposer(Scripted(json.dumps(reply))).compose(result)
    assert [x.text for x in answer.exact] == ["rasagiline"] and answer.unsupported == []
    assert defined_abbreviations(["Parkinson's disease"], ["Parkinson's disease (see below) is common."]) == []
