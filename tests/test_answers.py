"""Answers that answer the question (issue 16): offline intent, evidence-ranked graph facts with totals,
query-focused literature sentences, and the desk's intent plans (two hops, aggregates, declines).

Desk and graph-fact tests run on a graph-only workspace of the bundled sample (no ingest: fast); every
expected number is checked against an independent query of the same store.
"""

from __future__ import annotations

from engram_kit.kg.schema import HETIONET_SCHEMA

import dataclasses

import numpy as np
import pandas as pd
import pytest

from engram_kit.answering.facts import GraphFacts, kind_words
from engram_kit.answering.parts import edge_ends
from engram_kit.answering.intent import parse_intent

T2DM, PD, AD, HTN = "Disease::DOID:9352", "Disease::DOID:14330", "Disease::DOID:10652", "Disease::DOID:10763"
METFORMIN, BACE1 = "Compound::DB00331", "Gene::23621"


# --- intent (no workspace) -------------------------------------------------------------------------------
@pytest.mark.parametrize(("question", "anchor", "chain", "aggregate"), [
    ("What treats type 2 diabetes mellitus?", ("type 2 diabetes mellitus", "Disease"), ["TREATS_CtD"], ""),
    ("What are the side effects of metformin?", ("metformin", "Compound"), ["CAUSES_CcSE"], ""),
    ("Which drugs target BACE1?", ("BACE1", "Gene"), ["BINDS_CbG"], ""),
    ("Which genes are associated with Parkinson's disease?", ("Parkinson's disease", "Disease"), ["ASSOCIATES_DaG"], ""),
    ("Where is BACE1 expressed?", ("BACE1", "Gene"), ["EXPRESSES_AeG"], ""),
    ("What side effects are caused by compounds that treat hypertension?", ("hypertension", "Disease"),
     ["TREATS_CtD", "CAUSES_CcSE"], ""),
    ("What drug classes do drugs that treat epilepsy belong to?", ("epilepsy", "Disease"),
     ["TREATS_CtD", "INCLUDES_PCiC"], ""),
    ("Which diseases share genes with multiple sclerosis?", ("multiple sclerosis", "Disease"),
     ["ASSOCIATES_DaG", "ASSOCIATES_DaG"], ""),
    ("How many diseases does metformin treat?", ("metformin", "Compound"), ["TREATS_CtD"], "count"),
])
def test_intent_reads_relation_and_asked_kind(question, anchor, chain, aggregate):
    intent = parse_intent(question, [anchor], HETIONET_SCHEMA)
    assert intent.known and [h.rel_type for h in intent.hops] == chain and intent.aggregate == aggregate
    assert intent.anchor_label == anchor[1]


def test_intent_aggregates_without_an_entity_and_unknown_intent_says_so():
    rank = parse_intent("Which compounds treat the most diseases?", [], HETIONET_SCHEMA)
    assert rank.aggregate == "rank" and rank.target_label == "Compound" and rank.hops[0].rel_type == "TREATS_CtD"
    count = parse_intent("How many pathways are there?", [], HETIONET_SCHEMA)
    assert count.known and count.aggregate == "count" and count.target_label == "Pathway" and not count.hops
    unknown = parse_intent("What is the mechanism of action of metformin?", [("metformin", "Compound")], HETIONET_SCHEMA)
    assert not unknown.known and "Could not tell which relation" in unknown.explanation
    # a kind word in apposition names the entity's own kind, not the asked one
    assert not parse_intent("When was the gene TP53 first described?", [("TP53", "Gene")], HETIONET_SCHEMA).known


def test_intent_direction_follows_the_schema():
    (hop,) = parse_intent("What treats type 2 diabetes mellitus?", [("type 2 diabetes mellitus", "Disease")], HETIONET_SCHEMA).hops
    assert (hop.from_label, hop.to_label, hop.forward) == ("Disease", "Compound", False)  # stored Compound -> Disease
    (hop,) = parse_intent("What does metformin treat?", [("metformin", "Compound")], HETIONET_SCHEMA).hops
    assert hop.forward


# --- a graph-only workspace of the bundled sample ------------------------------------------------------
@pytest.fixture(scope="module")
def graph_ws(tmp_path_factory, sample_paths):
    from engram_kit.workspace import Workspace

    ws = Workspace.create(tmp_path_factory.mktemp("answers") / "ws", data=sample_paths)
    ws.settings.progress = False
    yield ws
    ws.close()


def _ids(store, cypher: str, **params) -> set[str]:
    return set(store.read_only_query(cypher, params)["id"])


def test_t2dm_lists_treats_edges_with_total(graph_ws):
    facts = GraphFacts(graph_ws.store).answer("What treats type 2 diabetes mellitus?",
                                              [("type 2 diabetes mellitus", "Disease", T2DM, "type 2 diabetes mellitus")])
    treating = _ids(graph_ws.store, "MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN c.id AS id", d=T2DM)
    assert len(treating) == 22 and len(facts.claims) == 10 and facts.total == 22
    for claim in facts.claims:
        (cite,) = claim.citations
        source, rel, target = cite.ref.split(" ")
        assert rel == "-[TREATS_CtD]->" and target == T2DM and source in treating
        assert cite.label == "Hetionet TREATS_CtD" and "treats type 2 diabetes mellitus" in claim.text
    # Hetionet's TREATS_CtD edges carry no per-edge sources or publications, so the ten shown tie and the
    # note says what orders them (issue 29: literature support, then degree; never the name alone)
    assert facts.notes == ["22 compounds treat type 2 diabetes mellitus; top 10 shown (12 more not shown), ranked "
                           "by evidence (sources, publications, unbiased); the ones shown tie on that, so they "
                           "are ordered by the passages mentioning them, then degree."]
    assert_tie_order(graph_ws.store, "Compound", [edge_ends(c.citations[0].ref)[0] for c in facts.claims])


def assert_tie_order(store, label, ids):
    """The listed nodes (tied on edge evidence) come in order of passages mentioning them, then degree, each
    counted by an independent query; an order by name alone fails this whenever the counts differ."""
    keys = []
    for node in ids:
        lit = store.read_only_query(f"MATCH (p:Passage)-[:MENTIONS]->(:NounPhrase)-[:MAPS_TO]->(t:{label} {{id: $id}}) "
                                    "RETURN count(DISTINCT p) AS n", {"id": node})["n"].iloc[0]
        deg = store.read_only_query(f"MATCH (t:{label} {{id: $id}})-[r]-(o) WHERE label(o) <> \"NounPhrase\" RETURN count(r) AS n",
                                    {"id": node})["n"].iloc[0]
        keys.append((int(lit), int(deg)))
    assert keys == sorted(keys, reverse=True), keys
    assert len(set(keys)) > 1  # the counts do decide here


def test_parkinson_genes_ranked_by_evidence(graph_ws):
    facts = GraphFacts(graph_ws.store).answer("Which genes are associated with Parkinson's disease?",
                                              [("Parkinson's disease", "Disease", PD, "Parkinson's disease")])
    top = [c.text.split(" is associated with ")[1].split(" (")[0] for c in facts.claims]
    assert {"SNCA", "LRRK2", "GBA"} <= set(top[:4])  # four sources each, incl. GWAS (unbiased)
    edges = graph_ws.store.read_only_query(
        "MATCH (d:Disease {id: $d})-[r:ASSOCIATES_DaG]->(g:Gene) RETURN g.name AS gene, r.sources AS sources", {"d": PD})
    n_sources = {row.gene: len(row.sources.split("|")) for row in edges.itertuples()}
    ranked = [n_sources[g] for g in top]
    assert ranked == sorted(ranked, reverse=True) and ranked[0] == max(n_sources.values()) == 4
    assert facts.total == len(edges) == 143 and "(133 more not shown)" in facts.notes[0]


def test_metformin_side_effects_say_how_many_more(graph_ws):
    facts = GraphFacts(graph_ws.store).answer("What are the side effects of metformin?",
                                              [("metformin", "Compound", METFORMIN, "Metformin")])
    assert len(facts.claims) == 10 and all(c.citations[0].label == "Hetionet CAUSES_CcSE" for c in facts.claims)
    assert facts.notes[0].startswith("Metformin causes 139 side effects;") and "(129 more not shown)" in facts.notes[0]
    # every CcSE edge has the one SIDER source: 'ranked by evidence' would hide that the list is by name
    sources = graph_ws.store.read_only_query(
        "MATCH (:Compound {id: $c})-[r:CAUSES_CcSE]->(:SideEffect) RETURN count(DISTINCT r.sources) AS n",
        {"c": METFORMIN})["n"].iloc[0]
    assert sources == 1 and "tie on that, so they are ordered by the passages mentioning them, then degree" in \
        facts.notes[0]
    assert_tie_order(graph_ws.store, "SideEffect", [edge_ends(c.citations[0].ref)[2] for c in facts.claims])
    treats = GraphFacts(graph_ws.store).answer("What does metformin treat?",
                                               [("metformin", "Compound", METFORMIN, "Metformin")])
    assert not any("tie on evidence" in note for note in treats.notes)


def test_a_treat_question_answered_with_another_relation_says_so(graph_ws):
    """Bug (issue 20's screenshots): "heart failure" resolves to the side effect Cardiac failure, which no
    compound treats in Hetionet; the plan lists the compounds causing it, and the answer read "28 compounds
    cause Cardiac failure" as if that answered a question about treating it."""
    facts = GraphFacts(graph_ws.store).answer("Which drugs are used to treat heart failure?",
                                              [("heart failure", "SideEffect", "Side Effect::C0018801",
                                                "Cardiac failure")])
    assert [h.rel_type for h in facts.intent.hops] == ["CAUSES_CcSE"] and facts.claims
    assert facts.notes[0] == ("The graph has no 'treats' relation between compounds and Cardiac failure "
                              "(a side effect); what it holds instead:")
    assert facts.notes[1].startswith(f"{facts.total} compounds cause Cardiac failure;")
    # a question whose relation the plan uses gets no such note
    metformin = GraphFacts(graph_ws.store).answer("What are the side effects of metformin?",
                                                  [("metformin", "Compound", METFORMIN, "Metformin")])
    assert not any("no 'causes' relation" in n or "holds instead" in n for n in metformin.notes)


def test_drugs_that_target_bace1_say_the_graph_has_none(graph_ws):
    facts = GraphFacts(graph_ws.store).answer("Which drugs target BACE1?", [("BACE1", "Gene", BACE1, "BACE1")])
    assert facts.claims == [] and facts.notes == ["The graph has no compounds that bind BACE1 (no BINDS_CbG edge)."]
    result = graph_ws.evidence_desk().investigate("Which drugs target BACE1?")
    assert result.outcome == "unsupported" and "The graph has no compounds that bind BACE1 (no BINDS_CbG edge)." in result.notes


def test_two_hop_side_effects_of_drugs_that_treat_a_disease(graph_ws):
    desk = graph_ws.evidence_desk()
    # the sample keeps side effects for 3 of the 22 compounds treating type 2 diabetes (none for hypertension's)
    empty = desk.investigate("What side effects are caused by compounds that treat hypertension?")
    assert empty.outcome == "unsupported" and empty.notes[-1].startswith("The graph has no side effects linked to")
    result = desk.investigate("What side effects are caused by compounds that treat type 2 diabetes mellitus?")
    assert result.template.startswith("intent:Disease -> [TREATS_CtD] Compound -> [CAUSES_CcSE]")
    assert result.outcome == "supported" and result.withheld_count == 0
    listing, total = result.artifacts
    treating = _ids(graph_ws.store, "MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN c.id AS id", d=T2DM)
    supports = []
    for rid in listing.row_ids:
        row = listing.row(rid)
        supports.append(row["support"])
        causing = _ids(graph_ws.store, "MATCH (c:Compound)-[:CAUSES_CcSE]->(s:SideEffect {id: $s}) RETURN c.id AS id",
                       s=row["target_id"])
        assert row["support"] == len(causing & treating) > 0  # the side effect's causers that treat hypertension
        assert all(pair[0] in treating & causing for pair in row["via"])
    assert supports == sorted(supports, reverse=True)
    independent = graph_ws.store.read_only_query(
        "MATCH (d:Disease {id: $d})<-[:TREATS_CtD]-(:Compound)-[:CAUSES_CcSE]->(s:SideEffect) "
        "RETURN count(DISTINCT s) AS n", {"d": T2DM})["n"].iloc[0]
    assert total.row("r1")["n"] == independent
    assert any(f"{independent} side effects in total; top 10 shown" in n for n in result.notes)


def test_desk_aggregates_match_the_store(graph_ws):
    desk = graph_ws.evidence_desk()
    count = desk.investigate("How many diseases does metformin treat?")
    n = graph_ws.store.read_only_query("MATCH (c:Compound {id: $c})-[:TREATS_CtD]->(d:Disease) "
                                       "RETURN count(DISTINCT d) AS n", {"c": METFORMIN})["n"].iloc[0]
    assert count.outcome == "supported" and any(f"has {n} disease" in c.text.lower() or f"has {n} " in c.text
                                                for c in count.claims)
    rank = desk.investigate("Which compounds treat the most diseases?")
    counts = graph_ws.store.read_only_query("MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease) "
                                            "RETURN c.name AS name, count(DISTINCT d) AS n")
    best = set(counts.loc[counts["n"] == counts["n"].max(), "name"])
    assert rank.outcome == "supported" and rank.claims[0].text.split(":")[0] in best


def test_unknown_intent_falls_back_and_says_so(graph_ws):
    result = graph_ws.evidence_desk().investigate("What is the mechanism of action of metformin?")
    assert result.outcome == "unsupported" and "not recognised offline" in result.notes[0]


def test_unread_relation_with_no_entity_promises_no_graph_facts(graph_ws):
    """An off-topic question's answer said 'the graph facts below are the edges nearest the question's
    entities' above no facts and no entities (newcomer run)."""
    from engram_kit.answering.facts import GraphFacts

    facts = GraphFacts(graph_ws.store)
    none = facts.answer("What is the best recipe for sourdough bread?", [])
    assert none.notes and "no graph facts are shown" in none.notes[0] and "nearest" not in none.notes[0]
    assert ".)" not in none.notes[0]  # the explanation's own full stop is not kept inside the brackets
    some = facts.answer("What is the mechanism of action of metformin?",
                        [("metformin", "Compound", METFORMIN, "Metformin")])
    assert not some.notes or "nearest the question's entities" in some.notes[0]


def test_kind_words():
    assert kind_words("SideEffect") == "side effects" and kind_words("Compound", 1) == "compound"
    assert kind_words("PharmacologicClass") == "pharmacologic classes"


# --- literature sentences ------------------------------------------------------------------------------
class _BagOfWords:
    """A deterministic embedder for the sentence-choice tests: hashed word counts, L2-normalised."""

    name, dimension = "bag-of-words", 256

    def encode(self, texts, *, batch_size=64, progress=False):
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, hash(word.strip(".,:;()")) % self.dimension] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


class _Flat:
    """An embedder under which every text is equally similar to every other: only the score bonuses decide."""

    name, dimension = "flat", 4

    def encode(self, texts, *, batch_size=64, progress=False):
        return np.full((len(texts), self.dimension), 0.5, dtype=np.float32)


def _hit(rank, pid, text, *, page=None, page_end=None, pmid="", section=""):
    from engram_kit.retrieval.results import PassageHit

    return PassageHit(rank, pid, "doc1" if not pmid else f"PMID:{pmid}", "pdf" if not pmid else "pubmed", pmid, "t",
                      None, section, page, page_end if page_end is not None else page, text, 1.0, 1.0, 1.0, 1.0, 1.0)


def _result(question, hits):
    from engram_kit.retrieval.results import RetrievalResult

    return RetrievalResult(question, "all", 0.4, 0.5, [], hits, pd.DataFrame(), pd.DataFrame(), 0.0, 0,
                           graph="hetionet")


def test_literature_sentences_are_whole_focused_deduplicated_and_cite_their_page():
    from engram_kit.answering import ExtractiveComposer
    from engram_kit.answering.extractive import is_boilerplate, is_whole_sentence

    assert is_boilerplate("Materials & methods: DNA from brain tissue of 71 AD cases was genotyped.")
    assert is_boilerplate("SEARCH STRATEGY: The Cochrane Dementia Group register was searched.")
    assert is_boilerplate("Department of Neurology, University of Kentucky, Lexington, KY 40536, USA.")
    assert not is_boilerplate("Donepezil improved cognition in patients with Alzheimer's disease.")
    assert not is_whole_sentence("+)-Posiphen lowered APP levels in mice.")
    assert is_whole_sentence("(+)-Posiphen lowered APP levels in mice.")
    shared = "Donepezil treats the cognitive symptoms of Alzheimer's disease in many patients."
    hits = [
        _hit(1, "p1", "Methods: we recruited 71 patients from two clinics. " + shared, page=1, page_end=2),
        _hit(2, "p2", shared + " Other drugs were not studied in this cohort of patients.", page=2),
        _hit(3, "p3", "SEARCH STRATEGY: The Cochrane Dementia Group register was searched for all trials. "
                      "+)-Posiphen treats nothing in this review of Alzheimer's disease", page=3),
    ]
    answer = ExtractiveComposer(_BagOfWords()).compose(_result("What treats Alzheimer's disease?", hits))
    texts = [c.text for c in answer.claims]
    assert texts.count(shared) == 1 and len(texts) == 1  # once; p3 holds only boilerplate and a clipped fragment
    assert answer.claims[0].citations[0].ref == "p2" and answer.claims[0].citations[0].label == "doc1, p. 2"


def test_findings_before_aims_and_methods_and_off_topic_results_cite_no_sentence():
    """A newcomer's bullets quoted how studies were run; PubMedQA showed 69% of cited sentences were the
    background or aim, which restates the question (benchmarks/results/answer_sentences.md)."""
    import dataclasses

    from engram_kit.answering import ExtractiveComposer
    from engram_kit.answering.extractive import is_methods_sentence

    assert is_methods_sentence("Patients were randomised to metformin or placebo for 12 weeks.")
    assert is_methods_sentence("We enrolled 120 patients with type 2 diabetes from two clinics.")
    assert is_methods_sentence("To assess whether metformin lowers weight, 40 adults were followed.")
    assert is_methods_sentence("This study aimed to determine whether metformin reduces mortality.")
    assert not is_methods_sentence("We found that metformin reduced body weight in obese adults.")
    assert not is_methods_sentence("Metformin use was associated with lower mortality in heart failure.")
    aim = "This study aimed to determine whether metformin reduces mortality in patients with heart failure."
    finding = "Metformin use was associated with lower mortality in patients with heart failure."
    hits = [_hit(1, "p1", f"{aim} {finding}", pmid="1")]
    result = _result("Does metformin reduce mortality in patients with heart failure?", hits)
    composer = ExtractiveComposer(_BagOfWords())
    assert [c.text for c in composer.compose(result).claims] == [finding]
    off_topic = dataclasses.replace(result, on_topic=False, fallback="Low relevance: ...")
    answer = composer.compose(off_topic)
    assert answer.claims == [] and answer.notes == ["Low relevance: ..."]


def _bundled_abstract(pmid: str) -> tuple[str, list[str]]:
    """Title + abstract of a bundled PubMed record (as ingestion joins them) and its answer sentences."""
    import gzip
    import json
    from pathlib import Path

    from engram_kit.answering.extractive import answer_sentences

    path = Path(__file__).resolve().parents[1] / "data" / "pubmed" / "abstracts-sample.jsonl.gz"
    with gzip.open(path, "rt") as handle:
        record = next(r for r in map(json.loads, handle) if r["pmid"] == pmid)
    text = f"{record['title']} {record['abstract']}"
    return text, answer_sentences(text)


#: Real sentences of two bundled abstracts the demo cited wrongly (PMID 23494944, green tea extract and
#: aluminium neurotoxicity in rats; PMID 11467664, a case of metformin-associated cholestatic jaundice).
GREEN_TEA_MEASURED = ("We measured the performance of active avoidance (AA) tasks, various enzyme activities and total "
                      "glutathione content (TGC) in the forebrain cortex (FbC), striatum, basal forebrain (BFb), "
                      "hippocampus, brain stem and cerebellum.")
GREEN_TEA_FINDING = "Our results suggest that green tea might be beneficial in Alzheimer's disease."
METFORMIN_NARRATIVE = ("Metformin hydrochloride was discontinued, and the patient's jaundice resolved slowly over a "
                       "period of several months.")
METFORMIN_CONCLUSION = ("Given the onset of his jaundice 2 wk after the initiation of metformin, we believe that this "
                        "case represents an example of metformin-associated hepatotoxicity, the first such case "
                        "reported.")


def test_methods_and_finding_cues_on_bundled_abstract_sentences():
    """Study steps in the passive or mid-sentence ("All solutions were injected ...", "..., we evaluated ...")
    are methods; an author's reading ("we believe that this case represents ..."), a significance or a p-value is
    a finding, unless it only sets the threshold ("P < 0.05 was considered significant")."""
    from engram_kit.answering.extractive import is_finding_sentence, is_methods_sentence, names_term

    _, green_tea = _bundled_abstract("23494944")
    _, case = _bundled_abstract("11467664")
    assert GREEN_TEA_MEASURED in green_tea and GREEN_TEA_FINDING in green_tea
    assert METFORMIN_NARRATIVE in case and METFORMIN_CONCLUSION in case
    injected = "All solutions were injected into the cornu ammonis region 1 hippocampal region."
    evaluated = next(s for s in green_tea if s.startswith("Because green tea"))
    assert injected in green_tea
    assert is_methods_sentence(GREEN_TEA_MEASURED) and not is_finding_sentence(GREEN_TEA_MEASURED)
    assert is_methods_sentence(injected) and is_methods_sentence(evaluated)
    assert is_finding_sentence(GREEN_TEA_FINDING) and not is_methods_sentence(GREEN_TEA_FINDING)
    assert is_finding_sentence(METFORMIN_CONCLUSION)
    assert not is_finding_sentence(METFORMIN_NARRATIVE)
    # result language of a results section, and a statistics step that only names significance
    assert is_finding_sentence("The duration of anesthesia did not differ in the 2 groups (P>0.05).")
    assert is_finding_sentence("No significant difference in survival was seen between the two arms.")
    assert is_finding_sentence("Mortality was 12% (95% CI 8-16%) after one year.")
    assert is_methods_sentence("A P value < 0.05 was considered statistically significant.")
    assert not is_finding_sentence("A P value < 0.05 was considered statistically significant.")
    assert is_methods_sentence("Stepwise logistic regression was used to calculate the odds ratio.")
    assert is_methods_sentence("Prospective cohort study.")
    # an entity counts only when named as a word (its plural too)
    assert not names_term("It decreased TGC in the FbC, striatum and BFb.", "TF") and names_term(GREEN_TEA_MEASURED, "striatum")
    assert not names_term("AChE was lower in the basal forebrain.", "brain")
    assert not names_term("A new outfit.", "TF") and names_term("Statins lower LDL.", "statin")


def test_composer_cites_the_finding_not_the_measurement_list_or_case_narrative():
    """The demo cited the measurement list of PMID 23494944 for an Alzheimer's question and the case narrative of
    PMID 11467664 for "What does metformin treat?": every entity the passage mentions earned a bonus, and the
    list names many. Only question and evidence-path entities count now, and the finding in the same passage
    is cited. Hits carry the passage mentions and evidence paths the demo workspace gave them; every sentence is
    equally similar to the question (:class:`_Flat`), so the bonuses alone decide (the demo's MiniLM answer now
    cites "Our results suggest ..." and "... we believe that this case represents ...")."""
    from engram_kit.answering import ExtractiveComposer
    from engram_kit.answering.extractive import is_methods_sentence
    from engram_kit.retrieval.results import EvidencePath

    text, _ = _bundled_abstract("23494944")
    hit = dataclasses.replace(
        _hit(1, "p1", text, pmid="23494944"),
        entities=("pathogenesis", "neurotoxicity", "green tea", "Aluminium", "Alzheimer's disease",
                  "central nervous system", "green tea leaf extract", "avoidance", "glutathione",
                  "total glutathione content", "forebrain", "forebrain cortex", "basal forebrain", "brain",
                  "cerebellum", "c oxidase", "AChE", "superoxide dismutase activity", "(-)-epigallocatechin"),
        paths=(EvidencePath(("Disease::DOID:10652", "Gene::7018", "Compound::DB01370"),
                            ("Alzheimer's disease", "TF", "Aluminium"), ("ASSOCIATES_DaG", "BINDS_CbG"), "Aluminium"),))
    composer = ExtractiveComposer(_Flat())
    question = "What compounds might reduce neuroinflammation in Alzheimer's disease?"
    (claim,) = composer.compose(_result(question, [hit])).claims
    # issue 29: only a sentence that words the asked relation ("reduce") or names two question terms supports an
    # answer; the background sentence naming the path entities no longer qualifies, the finding that says
    # GTLE *reduces* neurotoxicity does
    assert claim.text.startswith("GTLE reduces AlCl3 neurotoxicity probably via antioxidative effects")
    assert not is_methods_sentence(claim.text)

    text, _ = _bundled_abstract("11467664")
    hit = dataclasses.replace(
        _hit(1, "p1", text, pmid="11467664"),
        entities=("edema", "liver", "inflammation", "hepatotoxicity", "Cholestatic jaundice", "metformin",
                  "metformin hydrochloride", "cholestasis", "jaundice"),
        paths=(EvidencePath((METFORMIN,), ("Metformin",), (), "metformin"),
               EvidencePath((METFORMIN, T2DM, "Anatomy::UBERON:0002107"),
                            ("Metformin", "type 2 diabetes mellitus", "liver"), ("TREATS_CtD", "LOCALIZES_DlA"),
                            "liver")))
    answer = composer.compose(_result("What does metformin treat?", [hit]))
    # issue 29: the conclusion names metformin but neither what it treats nor "treat": background for this
    # question, so no line is quoted and a note says why (the narrative is not quoted either)
    assert answer.claims == [] and answer.notes[-1].startswith("No sentence of the top 1 passages names")


def test_kind_words_plurals():
    """'70 pathwaies in total' reached the desk's notes (a vowel before the final y keeps it)."""
    from engram_kit.answering.facts import kind_words

    assert [kind_words(k) for k in ("Pathway", "Anatomy", "SideEffect", "PharmacologicClass", "Compound")] == \
        ["pathways", "anatomy terms", "side effects", "pharmacologic classes", "compounds"]
    assert kind_words("Pathway", 1) == "pathway"


# --- the two-hop examples, answered (desk on the sample graph; every value from an independent query) -
MS, EPILEPSY = "Disease::DOID:2377", "Disease::DOID:1826"
#: question -> (anchor id, independent Cypher pattern anchor a -> via v -> target t, the plan's chain, via label)
TWO_HOP = {
    "What side effects are caused by compounds that treat multiple sclerosis?":
        (MS, "(a:Disease {id: $a})<-[:TREATS_CtD]-(v:Compound)-[:CAUSES_CcSE]->(t:SideEffect)",
         "TREATS_CtD] Compound -> [CAUSES_CcSE] SideEffect", "Compound"),
    "Which compounds bind genes associated with Parkinson's disease?":
        (PD, "(a:Disease {id: $a})-[:ASSOCIATES_DaG]->(v:Gene)<-[:BINDS_CbG]-(t:Compound)",
         "ASSOCIATES_DaG] Gene -> [BINDS_CbG] Compound", "Gene"),
    "What drug classes do drugs that treat epilepsy belong to?":
        (EPILEPSY, "(a:Disease {id: $a})<-[:TREATS_CtD]-(v:Compound)<-[:INCLUDES_PCiC]-(t:PharmacologicClass)",
         "TREATS_CtD] Compound -> [INCLUDES_PCiC] PharmacologicClass", "Compound"),
    "Which diseases share genes with multiple sclerosis?":
        (MS, "(a:Disease {id: $a})-[:ASSOCIATES_DaG]->(v:Gene)<-[:ASSOCIATES_DaG]-(t:Disease)",
         "ASSOCIATES_DaG] Gene -> [ASSOCIATES_DaG] Disease", "Gene"),
}


def _supports(store, anchor: str, pattern: str) -> dict[str, int]:
    """Target id -> number of distinct middle nodes linking it to the anchor, computed independently."""
    frame = store.read_only_query(f"MATCH {pattern} WHERE t.id <> a.id RETURN t.id AS id, count(DISTINCT v) AS n",
                                  {"a": anchor})
    return dict(zip(frame["id"], frame["n"].astype(int)))


@pytest.mark.parametrize("question", list(TWO_HOP))
def test_desk_answers_the_two_hop_examples(graph_ws, question):
    anchor, pattern, chain, _ = TWO_HOP[question]
    result = graph_ws.evidence_desk().investigate(question)
    assert result.template.startswith("intent:Disease -> [" + chain)
    assert result.outcome == "supported" and result.withheld_count == 0
    listing, total = result.artifacts
    assert listing.parameters == {"id": anchor}
    supports = _supports(graph_ws.store, anchor, pattern)
    assert supports and anchor not in supports
    rows = [listing.row(rid) for rid in listing.row_ids]
    assert len(rows) == min(10, len(supports))
    # each listed answer is linked through as many middle nodes as the row says; best supported first
    assert [r["support"] for r in rows] == [supports[r["target_id"]] for r in rows]
    assert rows[0]["support"] == max(supports.values())
    assert [r["support"] for r in rows] == sorted((r["support"] for r in rows), reverse=True)
    assert total.row("r1")["n"] == len(supports)
    assert any(f"{len(supports)} {kind_words(rows[0]['target_id'].split('::')[0].replace(' ', ''))} in total"
               in note for note in result.notes)
    # every listing claim cites one listing row and names its answer; the last claim is the total
    for claim in result.claims[:-1]:
        (cite,) = claim.citations
        assert claim.text.startswith(listing.row(cite.split(":")[1])["target"]) or \
            listing.row(cite.split(":")[1])["target"] in claim.text
    assert result.claims[-1].citations == (f"{total.id}:r1",) and str(len(supports)) in result.claims[-1].text


def test_side_effects_of_drugs_that_treat_hypertension_are_not_those_causing_it(graph_ws):
    """The issue's example: the sample holds 68 compounds treating hypertension (none with side effects) and
    47 compounds causing the side effect Hypertension; the answer is about the first, so it is empty."""
    store = graph_ws.store
    n = store.read_only_query
    treating = n("MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN count(c) AS n", {"d": HTN})["n"][0]
    causing = n("MATCH (c:Compound)-[:CAUSES_CcSE]->(s:SideEffect {name: 'Hypertension'}) RETURN count(c) AS n")["n"][0]
    answer = n("MATCH (d:Disease {id: $d})<-[:TREATS_CtD]-(:Compound)-[:CAUSES_CcSE]->(s:SideEffect) "
               "RETURN count(DISTINCT s) AS n", {"d": HTN})["n"][0]
    assert treating > 0 and causing > 0 and answer == 0
    result = graph_ws.evidence_desk().investigate("What side effects are caused by compounds that treat hypertension?")
    assert "[TREATS_CtD] Compound -> [CAUSES_CcSE] SideEffect" in result.template
    assert result.artifacts[0].parameters == {"id": HTN} and result.claims == []
    assert "The graph has no side effects linked to hypertension through compounds (TREATS_CtD, then CAUSES_CcSE)." \
        in result.notes


# --- end to end: ws.ask (retrieval, entity resolution, graph facts) on the session workspace ----------------
def _graph_claims(answer):
    return [c for c in answer.claims if c.citations[0].kind == "edge"]


def test_ask_what_treats_t2dm_lists_treats_edges_first_with_the_total(workspace):
    answer = workspace.ask("What treats type 2 diabetes mellitus?")
    treating = _ids(workspace.store, "MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN c.id AS id", d=T2DM)
    graph = _graph_claims(answer)
    assert len(treating) == 22 and len(graph) == 10
    for claim in graph:  # the asked relation only (the issue saw five RESEMBLES_DrD edges here)
        (cite,) = claim.citations
        source, rel, target = cite.ref.split(" ")
        assert rel == "-[TREATS_CtD]->" and target == T2DM and source in treating
    assert f"{len(treating)} compounds treat type 2 diabetes mellitus; top 10 shown" in answer.notes[-1]
    assert f"({len(treating) - 10} more not shown)" in answer.notes[-1]


def test_ask_side_effects_of_drugs_that_treat_hypertension(workspace):
    """Retrieval reads 'hypertension' as the side effect; the graph facts add the disease reading of the same
    name, so the answer is about drugs that treat hypertension, not drugs that cause it (none here)."""
    answer = workspace.ask("What side effects are caused by compounds that treat hypertension?")
    assert _graph_claims(answer) == []
    assert "The graph has no side effects linked to hypertension through compounds (TREATS_CtD, then CAUSES_CcSE)." \
        in answer.notes
    hypertension_se = workspace.store.read_only_query(
        "MATCH (s:SideEffect {name: 'Hypertension'}) RETURN s.id AS id")["id"][0]
    assert not any(hypertension_se in x.ref for c in answer.claims for x in c.citations)


@pytest.mark.parametrize("question", ["Which compounds bind genes associated with Parkinson's disease?",
                                      "What drug classes do drugs that treat epilepsy belong to?",
                                      "Which diseases share genes with multiple sclerosis?"])
def test_ask_answers_two_hop_examples_with_supported_edges(workspace, question):
    import re

    anchor, pattern, _, via_label = TWO_HOP[question]
    answer = workspace.ask(question)
    supports = _supports(workspace.store, anchor, pattern)
    graph = _graph_claims(answer)
    assert len(graph) == min(10, len(supports))
    counts = []
    for claim in graph:
        # citations alternate first hop (anchor - via) and second hop (via - target) for up to two via nodes
        first, second = (re.fullmatch(r"(.+) -\[\w+\]-> (.+)", c.ref).groups() for c in claim.citations[:2])
        assert anchor in first
        via = first[1] if first[0] == anchor else first[0]
        assert via.startswith(via_label + "::") and via in second
        target = second[1] if second[0] == via else second[0]
        n = int(re.search(r"\b(\d+) (?:compound|gene)s? that", claim.text).group(1))
        assert n == supports[target]
        counts.append(n)
    assert counts == sorted(counts, reverse=True) and counts[0] == max(supports.values())
    assert answer.notes[-1].startswith(f"{len(supports)} ") and f"({len(supports) - 10} more not shown)" in answer.notes[-1]


# --- lay names (issue 16 dev-set misses d54, d56): the desk reads name variants and leftover words -------------
def test_name_variants_and_leftover_words():
    from engram_kit.evidence.search import name_variants, residual_spans

    assert "breast cancer" in name_variants("breast carcinoma")
    assert "breast cancer" in name_variants("carcinoma of the breast")
    assert "type 2 diabetes" in name_variants("diabetes type 2") and "type 2 diabetes" in name_variants("diabetes type II")
    assert name_variants("Alzheimer's disease") == []
    assert residual_spans("Which pills treat diabetes type 2?", schema=HETIONET_SCHEMA) == ["diabetes type 2"]
    # aggregates name no entity: nothing is left to read as one
    assert residual_spans("Which compounds treat the most diseases?", schema=HETIONET_SCHEMA) == []
    assert residual_spans("Top pharmacologic classes by number of compounds?", schema=HETIONET_SCHEMA) == []
    assert residual_spans("How many diseases are in the graph?", schema=HETIONET_SCHEMA) == []


def test_desk_reads_diabetes_type_2_as_t2dm(graph_ws):
    result = graph_ws.evidence_desk().investigate("Which pills treat diabetes type 2?")
    assert result.template == "intent:Disease -> [TREATS_CtD] Compound" and result.outcome == "supported"
    listing, total = result.artifacts
    treating = _ids(graph_ws.store, "MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN c.id AS id", d=T2DM)
    assert listing.parameters == {"id": T2DM} and total.row("r1")["n"] == len(treating) == 22
    assert {listing.row(r)["target_id"] for r in listing.row_ids} <= treating
    assert result.notes[0].startswith("Read 'diabetes type 2' as type 2 diabetes mellitus (Disease")


def test_desk_reads_breast_carcinoma_as_the_disease_breast_cancer(graph_ws):
    result = graph_ws.evidence_desk().investigate("Which genes are involved in breast carcinoma?")
    breast_cancer = graph_ws.store.read_only_query(
        "MATCH (d:Disease {name: 'breast cancer'}) RETURN d.id AS id")["id"][0]
    assert result.template == "intent:Disease -> [ASSOCIATES_DaG] Gene" and result.outcome == "supported"
    listing, total = result.artifacts
    genes = _ids(graph_ws.store, "MATCH (d:Disease {id: $d})-[:ASSOCIATES_DaG]->(g:Gene) RETURN g.id AS id",
                 d=breast_cancer)
    assert listing.parameters == {"id": breast_cancer} and total.row("r1")["n"] == len(genes) > 10
    assert {listing.row(r)["target_id"] for r in listing.row_ids} <= genes
    assert result.notes[0].startswith("Read 'breast carcinoma' as breast cancer (Disease")


def test_desk_falls_back_to_the_best_reading_and_says_so(graph_ws):
    """'heart disease' reads as coronary artery disease below the desk's floor (0.7, calibrated on document
    mentions); with no other entity the desk keeps its best reading and says so."""
    result = graph_ws.evidence_desk().investigate(
        "Which drugs are used against heart disease caused by clogged arteries?")
    cad = graph_ws.store.read_only_query("MATCH (d:Disease {name: 'coronary artery disease'}) RETURN d.id AS id")["id"][0]
    assert result.artifacts[0].parameters == {"id": cad} and "[TREATS_CtD] Compound" in result.template
    assert result.notes[0].startswith("No name in the question matched at confidence 0.7; read 'heart disease' as "
                                      "coronary artery disease")
    n = graph_ws.store.read_only_query("MATCH (c:Compound)-[:TREATS_CtD]->(d:Disease {id: $d}) RETURN count(c) AS n",
                                       {"d": cad})["n"][0]
    assert result.artifacts[1].row("r1")["n"] == n
