"""Issue 29 items 1 and 4: question types, yes/no polarity, candidate merging through node ids, the list cut-off,
``within=`` id forms, and exact answers with citations on the bundled sample."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from engram_kit.answering.exact import ExactAnswerer, abbreviations, chunks, coordination_members, guess_type
from engram_kit.answering.qtype import expected_type, question_type
from engram_kit.answering.types import Citation
from engram_kit.answering.yesno import Evidence, bears_on, decide, evidence_weight, polarity
from engram_kit.errors import QueryError
from engram_kit.retrieval.results import PassageHit, ResolvedEntity, RetrievalResult
from engram_kit.settings import Settings


# --- question type ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("question", "kind"), [
    ("Is donepezil effective for Alzheimer's disease?", "yesno"),
    ("Does green tea extract protect against aluminium neurotoxicity?", "yesno"),
    ("Can valproate be used during pregnancy?", "yesno"),
    ("Which drugs treat Parkinson's disease?", "list"),
    ("List the genes associated with asthma.", "list"),
    ("What are the side effects of metformin?", "list"),
    ("Which genes does BACE1 interact with?", "list"),
    ("What is the most common cause of dementia?", "factoid"),
    ("Which gene is mutated in cystic fibrosis?", "factoid"),
    ("What is the target of imatinib?", "factoid"),
    ("How many genes are associated with asthma?", "factoid"),  # a number
    ("What is the mechanism of action of donepezil?", "summary"),
    ("How does TREM2 affect microglia in Alzheimer's disease?", "summary"),
    ("What is prurigo nodularis?", "summary"),
    ("What is the role of APOE in Alzheimer's disease?", "summary"),
])
def test_question_type_from_wording(question, kind):
    assert question_type(question) == kind


def test_expected_type_reads_kind_words_and_literature_types():
    assert expected_type("Which drugs treat Parkinson's disease?") == "Compound"
    assert expected_type("Which genes does BACE1 interact with?") == "Gene"
    assert expected_type("Which mutation of BRAF is most common in melanoma?") == "Mutation"
    assert expected_type("How many patients relapse after surgery?") == "Number"
    assert expected_type("What is the capital of France?") == ""


def test_guess_type_of_unlinked_phrases():
    assert guess_type("V600E") == "Mutation"
    assert guess_type("0.5%") == "Number"
    assert guess_type("T cells") == "Cell"
    assert guess_type("ventriculoperitoneal shunt") == "Procedure"
    assert guess_type("pembrolizumab") == "Compound"
    assert guess_type("KRAS") == "Gene"
    assert guess_type("hepatitis") == "Disease"


# --- yes/no ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("sentence", "sign"), [
    ("Donepezil improved cognition in patients with Alzheimer's disease.", 1),
    ("There was no association between coffee intake and Parkinson's disease.", -1),
    ("Vitamin E did not slow the progression of Alzheimer's disease.", -1),
    ("The trial failed to show a benefit of the drug.", -1),
    ("No significant difference in survival was found.", -1),
    ("Statins not only lower cholesterol but also reduce inflammation.", 1),
    ("Valproate is contraindicated during pregnancy.", -1),
])
def test_polarity_of_evidence_sentences(sentence, sign):
    assert polarity(sentence) == sign


def test_decide_says_undecided_without_evidence_and_cites_the_verdict_sentences():
    assert decide([], 0.5) == (None, ())
    yes, no = Citation("passage", "p1", "PMID:1"), Citation("passage", "p2", "PMID:2")
    evidence = [Evidence("X reduced Y.", yes, 1.0, 1), Evidence("X did not reduce Y.", no, 0.5, -1)]
    assert decide(evidence, 0.5) == ("yes", (yes,))
    assert decide(evidence, 0.3) == ("no", (no,))  # a third of the weight is negative: "no" from 0.3


# --- candidates, merging through node ids, list cut-off (a fake store over two passages) --------------------
class FakeStore:
    """The three reads the exact layer makes, over fixed frames (the real store's columns)."""

    def __init__(self, mentions: pd.DataFrame, edges: pd.DataFrame | None = None) -> None:
        self.mentions = mentions
        self.edges = edges if edges is not None else pd.DataFrame(columns=["source", "target", "rel_type"])

    def passage_mentions(self, ids):
        return self.mentions[self.mentions["passage_id"].isin(ids)]

    def edges_among(self, ids, include_negated=False):
        return self.edges

    def get_nodes(self, ids):
        return pd.DataFrame({"id": list(ids), "label": "", "name": list(ids)})


def _hit(rank: int, pid: str, text: str) -> PassageHit:
    return PassageHit(rank, pid, pid.split("#")[0], "pubmed", pid.split(":")[1].split("#")[0], "", None, "", None,
                      None, text, 1.0, 0.0, 1.0, 0.0, 1.0)


def _result(question: str, hits: list[PassageHit]) -> RetrievalResult:
    ents = [ResolvedEntity("Parkinson's disease", 0, 19, "Disease::DOID:14330", "Parkinson's disease", "Disease", 1.0,
                           "exact", 1.0)]
    return RetrievalResult(question, "all", 0.05, 0.5, ents, hits, pd.DataFrame(), pd.DataFrame(), 0.0, 0,
                           graph="hetionet")


MENTIONS = pd.DataFrame([
    # two spellings of one node (levodopa / L-DOPA) in two passages: one candidate, both names
    ("pubmed:1#p0", "np:Compound:levodopa", "levodopa", "Compound::DB01235", "L-DOPA", "Compound", 0.9, "alias"),
    ("pubmed:2#p0", "np:Compound:l dopa", "L-DOPA", "Compound::DB01235", "L-DOPA", "Compound", 1.0, "exact"),
    ("pubmed:1#p0", "np:Unlinked:patients", "patients", "", "", "", float("nan"), ""),
    ("pubmed:2#p0", "np:Compound:pramipexole", "pramipexole", "Compound::DB00413", "Pramipexole", "Compound", 1.0,
     "exact"),
    ("pubmed:1#p0", "np:Disease:parkinson disease", "Parkinson's disease", "Disease::DOID:14330",
     "Parkinson's disease", "Disease", 1.0, "exact"),
], columns=["passage_id", "nounphrase_id", "mention", "entity_id", "entity_name", "entity_label", "confidence",
            "method"])
HITS = [_hit(1, "pubmed:1#p0", "Levodopa remains the most effective treatment of Parkinson's disease in patients."),
        _hit(2, "pubmed:2#p0", "L-DOPA and pramipexole are used to treat Parkinson's disease. Pramipexole is a "
                               "dopamine agonist.")]


def test_candidates_merge_synonyms_through_node_ids_and_drop_question_entities():
    answer = ExactAnswerer(FakeStore(MENTIONS)).answer(_result("Which drugs treat Parkinson's disease?", HITS))
    assert answer.question_type == "list"
    by_node = {x.node_id: x for x in answer.exact}
    levodopa = by_node["Compound::DB01235"]
    assert {levodopa.text, *levodopa.synonyms} >= {"Levodopa", "L-DOPA"}
    assert "Disease::DOID:14330" not in by_node  # the question's own entity is not an answer
    assert [c.ref for c in levodopa.citations] == ["pubmed:1#p0", "pubmed:2#p0"]  # both sentences name the disease
    assert answer.exact[0].node_id == "Compound::DB01235"  # in both passages, the top one first
    # without node ids the two spellings stay two candidates
    text_only = ExactAnswerer(FakeStore(MENTIONS), replace(Settings(), exact_list_cutoff=0.0), graph=False).answer(
        _result("Which drugs treat Parkinson's disease?", HITS))
    assert sum(1 for x in text_only.exact if x.text.lower() in {"levodopa", "l-dopa"}) == 2


def test_list_cut_off_keeps_items_above_it_and_always_the_best():
    question = _result("Which drugs treat Parkinson's disease?", HITS)
    full = ExactAnswerer(FakeStore(MENTIONS), replace(Settings(), exact_list_cutoff=0.0)).answer(question)
    scores = [x.score for x in full.exact]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
    middle = (scores[0] + scores[-1]) / 2
    cut = ExactAnswerer(FakeStore(MENTIONS), replace(Settings(), exact_list_cutoff=middle)).answer(question)
    assert [x.text for x in cut.exact] == [x.text for x in full.exact if x.score >= middle]
    top = ExactAnswerer(FakeStore(MENTIONS), replace(Settings(), exact_list_cutoff=1.0)).answer(question)
    assert [x.text for x in top.exact] == [full.exact[0].text]
    assert all(x.citations for x in full.exact)


def test_factoid_keeps_at_most_the_configured_number():
    answer = ExactAnswerer(FakeStore(MENTIONS), replace(Settings(), exact_factoid_max=1)).answer(
        _result("What is the most effective drug for Parkinson's disease?", HITS))
    assert answer.question_type == "factoid" and len(answer.exact) == 1


# --- within= and the bundled sample (end to end) --------------------------------------------------------------
@pytest.mark.parametrize("form", ["9673855", "PMID:9673855", "pubmed:9673855", "pmid: 9673855"])
def test_within_accepts_pmid_forms(workspace, form):
    result = workspace.retrieve("Which drugs treat Parkinson's disease?", within=[form])
    assert {h.pmid for h in result.passages} == {"9673855"}


def test_within_ranks_only_those_papers_and_names_unknown_ids(workspace):
    result = workspace.retrieve("Which drugs treat Parkinson's disease?", within=["33969", "pubmed:9673855", "999"])
    assert {h.pmid for h in result.passages} == {"33969", "9673855"}
    assert "999" in result.fallback
    with pytest.raises(QueryError, match="nope:1, 0"):
        workspace.retrieve("Which drugs treat Parkinson's disease?", within=["nope:1", "0"])
    with pytest.raises(QueryError, match="uploaded"):  # intersected with source=: no uploaded paper has it
        workspace.retrieve("Which drugs treat Parkinson's disease?", within=["9673855"], source="uploaded")


def test_list_question_names_drugs_with_citations(workspace):
    answer = workspace.ask("Which drugs treat Parkinson's disease?")
    assert answer.question_type == "list"
    names = {x.text.lower() for x in answer.exact} | {s.lower() for x in answer.exact for s in x.synonyms}
    assert {"levodopa", "l-dopa", "selegiline", "apomorphine"} & names, names
    kinds = {str(x.node_id).split("::")[0] for x in answer.exact if x.node_id}
    assert kinds == {"Compound"}, kinds
    for item in answer.exact:
        assert item.citations and 0.0 <= item.score <= 1.0
    passage_cites = [c for x in answer.exact for c in x.citations if c.kind == "passage"]
    assert passage_cites and all(c.label.startswith("PMID:") for c in passage_cites)
    data = answer.to_dict()
    assert data["question_type"] == "list" and data["exact"][0]["citations"]


def test_yes_no_question_gets_a_verdict_with_citations(workspace):
    answer = workspace.ask("Does green tea extract protect against aluminium neurotoxicity?")
    assert answer.question_type == "yesno" and answer.yes_no == "yes" and not answer.exact
    assert answer.yes_no_citations and all(c.kind == "passage" for c in answer.yes_no_citations)
    texts = [h.text.lower() for h in answer.retrieval.passages if h.passage_id in
             {c.ref for c in answer.yes_no_citations}]
    assert any("green tea" in t and "alumin" in t for t in texts)


def test_cli_ask_within_json_carries_the_exact_answer(workspace_path, capsys):
    import json

    from engram_kit.cli import main

    assert main(["ask", "-w", str(workspace_path), "Which drugs treat Parkinson's disease?", "--within", "9673855",
                 "PMID:33969", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["question_type"] == "list" and "yes_no" in data
    assert {p["pmid"] for p in data["retrieval"]["passages"]} <= {"9673855", "33969"}
    assert data["exact"] and all(x["citations"] for x in data["exact"])
    assert main(["ask", "-w", str(workspace_path), "Which drugs treat Parkinson's disease?", "--within", "1"]) != 0
    assert "None of the within= ids" in capsys.readouterr().err


# --- candidates: abbreviations, coordinations, names with a letter ----------------------------------------------
def test_abbreviations_defined_in_the_text():
    text = ("Obsessive-compulsive disorder (OCD) is treated with serotonin reuptake inhibitors (SRIs); "
            "platelet-rich plasma (PRP) is one source of orthobiologics (see Table 2).")
    assert abbreviations([text]) == {"OCD": "Obsessive-compulsive disorder", "SRIs": "serotonin reuptake inhibitors",
                                     "PRP": "platelet-rich plasma"}


def test_coordination_members_are_the_listed_names():
    assert coordination_members("The standard PrEP combines tenofovir and emtricitabine in one pill.") == [
        "tenofovir", "emtricitabine"]
    assert coordination_members("Complications include bronchopulmonary dysplasia, necrotizing enterocolitis, "
                                "and retinopathy of prematurity.") == [
        "bronchopulmonary dysplasia", "necrotizing enterocolitis", "retinopathy"]
    assert coordination_members("Donepezil improved cognition in mild disease.") == []


def test_chunks_keep_a_letter_after_a_name_and_split_combinations():
    assert ["hemophilia", "A"] in chunks("Concizumab prevents bleeding in hemophilia A with inhibitors.")
    assert chunks("A phase 2 study of pembrolizumab plus lenvatinib.")[-2:] == [["pembrolizumab"], ["lenvatinib"]]


def test_yes_no_evidence_rule_shared_by_both_composers():
    diabetes, parkinson = ["type 2 diabetes"], ["Parkinson's disease"]
    # a question about two entities: only a sentence naming both bears on it
    assert evidence_weight("Type 2 diabetes increases the risk of Parkinson's disease.", [diabetes, parkinson]) == 2
    assert evidence_weight("Metformin lowers cancer risk in type 2 diabetes.", [diabetes, parkinson]) == 0
    assert not bears_on("Metformin lowers cancer risk in type 2 diabetes.", [diabetes, parkinson])
    # one entity: with the asked relation or half the question's words it bears on the question
    relation = [r"\btreat\w*"]
    assert evidence_weight("Donepezil treats Alzheimer's disease.", [["donepezil"]], [], relation) == 2
    assert evidence_weight("Donepezil was well tolerated.", [["donepezil"]], [], relation) == 1
    assert bears_on("Donepezil treats Alzheimer's disease.", [["donepezil"]], [], relation)
    assert not bears_on("Donepezil was well tolerated.", [["donepezil"]], [], relation)
