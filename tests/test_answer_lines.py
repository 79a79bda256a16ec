"""Issue 29: answers that say the answer, and literature lines that support it (the issue's examples on the
bundled sample, each checked against an independent query of the store or the abstract's own text)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from engram_kit.answering.parts import edge_ends
from engram_kit.answering.support import defined_short_forms, keyword_patterns, names_term, supports_answer

PD, AD, T2D = "Disease::DOID:14330", "Disease::DOID:10652", "Disease::DOID:9352"
BACE1, TREM2, APOE = "Gene::23621", "Gene::54209", "Gene::348"


def _literature(answer):
    return [c for c in answer.claims if c.citations[0].kind == "passage"]


def _ids(ws, cypher: str, **params) -> set[str]:
    return {str(x) for x in ws.store.read_only_query(cypher, params)["id"]}


def _passage_text(ws, passage_id: str) -> str:
    return str(ws.store.get_passages([passage_id])["text"].iloc[0])


# --- the support rule -------------------------------------------------------------------------------------
def test_support_rule_needs_a_question_entity_and_an_answer_or_the_relation():
    groups = [("BACE1", "BACE")]
    assert supports_answer("BACE1 cleaves APP at the beta site.", groups, ["APP"], [r"\binteract"])
    assert supports_answer("BACE interacts with GGA1 in the Golgi.", groups, [], [r"\binteract"])
    assert not supports_answer("APP is cleaved by secretases.", groups, ["APP"], [r"\binteract"])  # no entity
    assert not supports_answer("BACE1 inhibitors were described.", groups, ["APP"], [r"\binteract"])  # background
    # two question entities: one entity + the relation is background, the two together support
    two = [("green tea", "GTLE"), ("aluminium", "AlCl3")]
    assert not supports_answer("Glutamate fails to protect against aluminium toxicity.", two, [], [r"\bprotect\w*"])
    assert supports_answer("GTLE reduces AlCl3 neurotoxicity.", two, [], [])
    assert defined_short_forms("effects of green tea leaf extract (GTLE) on aluminium chloride (AlCl3 ) in rats",
                               ["green tea", "aluminium"]) == ["GTLE", "AlCl3"]
    assert defined_short_forms("in the brain (n = 12) of rats (RATS)", ["brain"]) == []  # no capital in "n = 12"
    assert re.search(keyword_patterns(["protect"])[0], "a protective effect") and not names_term("forebrain", "brain")


def test_prefix_variants_add_one_qualifier_and_alleles_read_as_their_gene(workspace):
    from engram_kit.retrieval.question import _variant_tail

    assert _variant_tail(" mellitus") and not _variant_tail(" antibacterial hand sanitizer")
    assert not _variant_tail(" antagonists") and not _variant_tail(" allergy")
    green = workspace.retrieve("Does green tea extract protect against aluminium neurotoxicity?")
    assert "Compound::DB00898" not in {e.node_id for e in green.entities}  # Ethanol, by prefix, at 0.85 before
    assert {e.name for e in green.entities} >= {"Aluminium"}
    d2 = workspace.retrieve("Which drugs bind the dopamine D2 receptor?")
    assert not any(e.kind == "Pharmacologic Class" for e in d2.entities)  # not "Dopamine D2 Antagonists"
    t2d = workspace.retrieve("What drugs treat type 2 diabetes?")
    assert [e.node_id for e in t2d.entities] == [T2D]  # a one-word qualifier still completes
    for question in ("Is APOE E4 a risk factor for Alzheimer disease?", "What does ApoE4 do in the brain?",
                     "Is APOE ε4 linked to dementia?", "Is APOE epsilon 4 a risk for AD?"):
        result = workspace.retrieve(question)
        genes = [e for e in result.entities if e.kind == "Gene"]
        assert [e.node_id for e in genes] == [APOE], (question, genes)
        assert not any(re.fullmatch(r"(E|ε|epsilon ?)?4", u) for u in result.unresolved)


# --- the examples, on the bundled sample -----------------------------------------------------------
def test_bace1_partners_lines_name_bace1_and_headline_lists_its_interactors(workspace):
    answer = workspace.ask("Which genes does BACE1 interact with?")
    partners = _ids(workspace, "MATCH (a:Gene {id: $g})-[:INTERACTS_GiG]-(t:Gene) RETURN t.id AS id", g=BACE1)
    assert len(partners) == 22 and answer.headline.startswith("Genes that BACE1 interacts with: APP")
    assert "(22 in the graph)" in answer.headline
    for claim in _literature(answer):  # the DBH/IL1A, ABC-transporter and UCHL1 lines are gone
        assert re.search(r"\bBACE-?1?\b", claim.text), claim.text
        assert not re.search(r"UCHL1|IL1A|superfamily", claim.text)
    if not _literature(answer):
        assert any(n.startswith("No sentence of the top") for n in answer.notes)
    # the answer graph is the answer's: BACE1, its partners, their edges; not the UCHL1 passage's GDF15 cluster
    graph = workspace.answer_graph(answer)
    names = set(graph.nodes["name"])
    assert len(graph.nodes) <= 40 and {"BACE1", "APP", "PSEN1"} <= names and "GDF15" not in names
    assert set(graph.nodes["id"]) - {BACE1} <= partners
    assert "GDF15" in set(workspace.answer_graph(answer.retrieval).nodes["name"])  # what the old graph drew


def test_parkinson_drugs_say_no_treats_edge_and_list_what_palliates_it(workspace):
    answer = workspace.ask("Which drugs treat Parkinson's disease?")
    palliating = workspace.store.read_only_query(
        "MATCH (c:Compound)-[:PALLIATES_CpD]->(d:Disease {id: $d}) RETURN c.name AS name", {"d": PD})["name"]
    treating = _ids(workspace, "MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN c.id AS id", d=PD)
    assert len(palliating) == 28 and not treating and {"L-DOPA", "Pramipexole", "Selegiline"} <= set(palliating)
    assert answer.headline.startswith("The graph has no compounds that treat Parkinson's disease; it holds "
                                      "compounds that palliate Parkinson's disease: levodopa, ")
    assert "(28 in the graph)" in answer.headline
    # the exact items: the palliating drugs as the literature spells them (levodopa, L-DOPA as its synonym), each
    # cited by its edge; an item outside the graph's 28 must be a linked compound named beside the disease
    top = {x.text.lower(): x for x in answer.exact[:4]}
    assert {"levodopa", "apomorphine", "selegiline"} <= set(top) and "L-DOPA" in top["levodopa"].synonyms
    assert all(any(c.label == "Hetionet PALLIATES_CpD" for c in x.citations) for x in top.values())
    # an item is a compound node, or a drug the sample's graph lacks (benztropine, benserazide: unlinked phrases)
    # named in a sentence beside the disease; never a gene, disease or side effect
    assert all(x.node_id is None or x.node_id.startswith("Compound::") for x in answer.exact)
    texts = {h.passage_id: h.text for h in answer.retrieval.passages}
    for x in (x for x in answer.exact if x.node_id is None):
        cited = [texts[c.ref] for c in x.citations if c.kind == "passage"]
        assert cited and all(x.text.lower() in t.lower() and re.search(r"[Pp]arkinson|\bPD\b", t) for t in cited), x
    assert answer.notes[0].endswith("what it holds instead:") and answer.notes[1].startswith("28 compounds palliate")
    graph = [c for c in answer.claims if c.citations[0].kind == "edge"]
    assert len(graph) == 10 and all(c.citations[0].label == "Hetionet PALLIATES_CpD" for c in graph)
    for claim in _literature(answer):  # the disease, or the short form its abstract defines ("... disease (PD)")
        assert re.search(r"Parkinson|\bPD\b", claim.text), claim.text


def test_green_tea_quotes_the_finding_not_the_title(workspace):
    answer = workspace.ask("Does green tea extract protect against aluminium neurotoxicity?")
    lines = _literature(answer)
    assert lines and lines[0].citations[0].label == "PMID:23494944"
    assert lines[0].text.startswith("GTLE reduces AlCl3 neurotoxicity")
    title = "Influence of the Green Tea Leaf Extract on Neurotoxicity of Aluminium Chloride in Rats."
    assert all(c.text != title for c in lines)
    assert all("Ethanol" not in c.text for c in answer.claims)


def test_two_part_question_answers_both_parts(workspace):
    answer = workspace.ask("Which drugs that treat type 2 diabetes might also help Alzheimer's disease?")
    t2d_drugs = _ids(workspace, "MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN c.id AS id", d=T2D)
    assert len(t2d_drugs) == 22
    assert answer.headline.startswith("Compounds that treat type 2 diabetes mellitus: Metformin")
    assert "; of these, linked to Alzheimer's disease: " in answer.headline
    part2 = [c for c in answer.claims if " is also linked to Alzheimer's disease" in c.text]
    assert part2
    for claim in part2:  # each cited edge is in the graph (a drug's direct edge, or a path through a neighbour)
        for cite in claim.citations:
            if cite.kind == "edge":
                source, rel, target = edge_ends(cite.ref)
                found = workspace.store.read_only_query(
                    f"MATCH (a {{id: $s}})-[r:{rel}]-(b {{id: $t}}) RETURN count(r) AS n",  # RESEMBLES: undirected
                    {"s": source, "t": target})["n"].iloc[0]
                assert found == 1, cite.ref
    names = {c.text.split(" is also linked")[0] for c in part2}
    ids = _ids(workspace, "MATCH (c:Compound) WHERE c.name IN $n RETURN c.id AS id", n=sorted(names))
    assert ids <= t2d_drugs  # part 2 only keeps part 1's drugs


def test_shared_by_two_diseases_intersects_their_rows(workspace):
    answer = workspace.ask("Which genes are shared by Alzheimer's disease and type 2 diabetes?")
    ad = _ids(workspace, "MATCH (d:Disease {id: $d})-[:ASSOCIATES_DaG]->(g:Gene) RETURN g.id AS id", d=AD)
    t2d = _ids(workspace, "MATCH (d:Disease {id: $d})-[:ASSOCIATES_DaG]->(g:Gene) RETURN g.id AS id", d=T2D)
    shared = workspace.store.read_only_query("MATCH (g:Gene) WHERE g.id IN $ids RETURN g.name AS name",
                                             {"ids": sorted(ad & t2d)})["name"]
    assert answer.headline.startswith("Genes shared by Alzheimer's disease and type 2 diabetes mellitus: ")
    assert f"({len(ad & t2d)} in all)" in answer.headline
    listed = [c.text.split(":")[0] for c in answer.claims if c.text.endswith("type 2 diabetes mellitus")
              and c.citations[0].kind == "edge"]
    assert listed and set(listed) <= set(shared)


def test_entity_the_corpus_never_mentions_is_said_first(workspace):
    answer = workspace.ask("How does TREM2 affect microglia in Alzheimer's disease?")
    mentions = workspace.store.read_only_query(
        "MATCH (p:Passage)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(g:Gene {id: $g}) RETURN count(p) AS n",
        {"g": TREM2})["n"].iloc[0]
    assert TREM2 in {e.node_id for e in answer.retrieval.entities} and mentions == 0
    assert answer.headline.startswith("No passage in this workspace mentions TREM2")
    assert answer.notes[0].startswith("No passage of this workspace mentions TREM2")
    assert all("TREM2" not in c.text for c in _literature(answer))


@pytest.mark.parametrize("question, label, side", [
    ("What are the side effects of Donepezil?", "SideEffect", -1),
    ("Which pathways does APP participate in?", "Pathway", -1),
])
def test_tied_evidence_is_ordered_by_literature_then_degree(workspace, question, label, side):
    answer = workspace.ask(question)
    ids = [edge_ends(c.citations[0].ref)[side] for c in answer.claims if c.citations[0].kind == "edge"]
    keys = []
    for node in ids:
        lit = workspace.store.read_only_query(
            f"MATCH (p:Passage)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(t:{label} {{id: $id}}) "
            "RETURN count(DISTINCT p) AS n", {"id": node})["n"].iloc[0]
        deg = workspace.store.read_only_query(
            f"MATCH (t:{label} {{id: $id}})-[r]-(o) WHERE label(o) <> \"NounPhrase\" RETURN count(r) AS n",
            {"id": node})["n"].iloc[0]
        keys.append((int(lit), int(deg)))
    assert len(ids) == 10 and keys == sorted(keys, reverse=True) and keys[0][0] > 0
    names = [c.text for c in answer.claims if c.citations[0].kind == "edge"]
    assert names != sorted(names)  # no longer A to Z


# --- the headline and the terminal's first lines, on answers built with the exact fields set ------------------
def _answer(question_type="summary", **fields):
    from engram_kit.answering.types import Answer, Citation, Claim
    from engram_kit.retrieval.results import RetrievalResult

    result = RetrievalResult("q?", "all", 0.4, 0.5, [], [], pd.DataFrame(), pd.DataFrame(), 0.0, 0, graph="hetionet")
    claims = [Claim("Metformin lowered weight in obese adults.", (Citation("passage", "p1", "PMID:1"),))]
    return Answer("q?", claims, "extractive", result, question_type=question_type, **fields)


def test_headline_states_yes_no_names_or_why_not():
    from engram_kit.answering.headline import compose_headline, summary_lines
    from engram_kit.answering.types import Citation, ExactAnswer

    cite = Citation("passage", "p1", "PMID:1")
    yes = _answer("yesno", yes_no="yes", yes_no_citations=(cite,))
    assert compose_headline(yes) == "Yes. (1 sentence: PMID:1)"
    assert compose_headline(_answer("yesno", yes_no="no", yes_no_citations=(cite, cite))).startswith("No. (2 sentences")
    assert compose_headline(_answer("yesno")).startswith("Undecided: the sentences found do not decide it")
    items = [ExactAnswer(n, (), None, s, (cite,)) for n, s in (("metformin", 0.9), ("insulin", 0.5))]
    listed = _answer("list", exact=items)
    assert compose_headline(listed) == "metformin, insulin"
    listed.headline = compose_headline(listed)
    lines = summary_lines(listed)
    assert lines[0] == "Answer: metformin, insulin" and lines[1].strip().startswith("1. metformin  score=0.90")
    assert "[PMID:1]" in lines[1]
    empty = _answer()
    empty.claims, empty.notes = [], ["The graph has no compounds that bind X (no BINDS_CbG edge)."]
    assert compose_headline(empty) == "The data cannot answer this: the graph has no compounds that bind X (no " \
                                      "BINDS_CbG edge)."


def test_engram_ask_prints_the_answer_first(workspace_path, workspace, capsys):
    from engram_kit.cli import main

    assert main(["ask", "-w", str(workspace_path), "Which drugs treat Parkinson's disease?", "--top-k", "3"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("Answer: The graph has no compounds that treat Parkinson's disease; it holds compounds "
                             "that palliate Parkinson's disease: ")
    assert "levodopa" in out[0] and "(28 in the graph)" in out[0]
    # then the ranked exact items, each with its score and citation labels, before the evidence
    assert re.match(r"\s+1\. \S.*score=\d\.\d\d\s+\[.*Hetionet PALLIATES_CpD\]", out[1]), out[1]
    assert out.index(next(line for line in out if line.startswith("Resolved entities"))) > 0  # evidence after


def test_a_question_about_something_the_workspace_never_mentions_says_the_data_cannot_answer(workspace):
    # "lecanemab" is neither a node of the sample's graph nor in any abstract: the answer listed the side effects of
    # Alzheimer's drugs ("dementia, psychosis, diarrhoea, ...") as if they were the trial's outcome
    answer = workspace.ask("What was the outcome of the lecanemab phase 3 trial in early Alzheimer's disease?")
    assert "lecanemab" in answer.retrieval.unresolved
    assert answer.headline.startswith("The data cannot answer this") and "lecanemab" in answer.headline
    assert answer.exact == [] and answer.yes_no is None
    assert "lecanemab" in answer.notes[0] and "Alzheimer's disease only" in answer.notes[0]
    # a question whose every phrase the workspace holds is answered as before
    named = workspace.ask("Which drugs treat Parkinson's disease?")
    assert named.exact and not named.headline.startswith("The data cannot answer")


def test_unlinked_words_do_not_join_a_list_the_graph_answers(workspace):
    # within two papers, the palliating drugs were listed with "concerns" and "daily" (chunks of words of no type)
    answer = workspace.ask("Which drugs treat Parkinson's disease?", within=["PMID:9673855", "PMID:1549199"])
    texts = [x.text.lower() for x in answer.exact]
    assert {"levodopa", "selegiline"} <= set(texts)
    assert "concerns" not in texts and "daily" not in texts
