"""Question -> seeds (issue 13): variants entity search finds, kind priors, specificity, pins and drops,
hub control and the absolute relevance signal."""

from __future__ import annotations

import numpy as np
import pytest

from engram_kit.errors import QueryError
from engram_kit.retrieval.question import SeedCandidate, biomedical_terms, choose_readings, seed_weights
from engram_kit.retrieval.ranking import blend, graph_evidence, order_of, ranks_of, rrf, text_scores


@pytest.fixture(scope="module")
def resolve(workspace):
    retriever, index = workspace.retriever(), workspace.graph_index()
    return lambda q, **kw: retriever.resolve_question(q, index, **kw)


@pytest.mark.parametrize(("question", "mention", "kind", "name"), [
    ("What drugs treat type 2 diabetes?", "type 2 diabetes", "Disease", "type 2 diabetes mellitus"),
    ("Which genes are linked to AD?", "AD", "Disease", "Alzheimer's disease"),
    ("How is high blood pressure treated?", "high blood pressure", "Disease", "hypertension"),
    # "penicillin" in lay use names the drug class (curated lay synonym, issue 14): Hetionet's class node includes
    # every penicillin compound, which is a better seed than one of them; the bug was a Side Effect reading.
    ("Is penicillin effective against syphilis?", "penicillin", "Pharmacologic Class", "Penicillins"),
    # Hetionet's only node for myocardial infarction is a SIDER Side Effect; what matters is that the lay
    # name reaches it and not the Anatomy node "heart".
    ("What causes a heart attack?", "heart attack", "Side Effect", "Myocardial infarction"),
])
def test_question_terms_resolve_like_entity_search(resolve, workspace, question, mention, kind, name):
    entities, _ = resolve(question)
    readings = [e for e in entities if e.mention == mention]
    assert readings, f"{mention!r} did not resolve: {[(e.mention, e.name) for e in entities]}"
    assert {e.kind for e in readings} == {kind}
    if name is not None:
        assert name in {e.name for e in readings}
    assert not any(e.kind == "Anatomy" for e in entities), "a word inside a longer name seeded an Anatomy node"
    # the same node entity search lists for that term
    searched = {m.node_id for m in workspace.search_entities(mention, limit=20).matches}
    assert {e.node_id for e in readings} & searched


def test_kind_prior_prefers_disease_and_records_why():
    disease = SeedCandidate("colorectal cancer", 0, 17, "Disease::X", "colorectal cancer", "Disease", 0.9, "exact")
    side = SeedCandidate("colorectal cancer", 0, 17, "Side Effect::Y", "Colorectal cancer", "Side Effect", 0.9, "exact")
    chosen = choose_readings([side, disease])
    assert [c.node_id for c, _ in chosen] == ["Disease::X"]
    assert "Disease preferred over Side Effect" in chosen[0][1]
    both = choose_readings([side, disease], use_kind_priors=False)
    assert {c.node_id for c, _ in both} == {"Disease::X", "Side Effect::Y"}


def test_specificity_discounts_hub_seeds():
    w = seed_weights(np.array([1.0, 1.0]), np.array([15_000.0, 150.0]), 0.5)
    assert w.sum() == pytest.approx(1.0)
    assert w[1] / w[0] == pytest.approx(10.0)  # sqrt(15000 / 150)
    assert seed_weights(np.array([1.0, 1.0]), np.array([15_000.0, 150.0]), 0.0).tolist() == [0.5, 0.5]


def test_generic_anatomy_cannot_dominate_a_question(resolve):
    entities, _ = resolve("Is BRCA1 expressed in blood?")
    weights = {e.kind: e.seed_weight for e in entities}
    # specificity by corpus frequency: "blood" is mentioned by many more of the bundled abstracts than BRCA1
    assert weights["Gene"] > weights["Anatomy"]


@pytest.mark.parametrize(("question", "short", "wrong"), [
    # the question defines the short form: its letters must not be read as a lexicon alias
    ("What is the relationship between Electroporation (EP) and DNA vaccines?", "EP", {"Gene::2056"}),  # EPO
    ("Which are the two main active ingredients of the standard PrEP (Pre-Exposure Prophylaxis)?", "PrEP",
     {"Gene::5550"}),  # PREP, prolyl endopeptidase
    ("What is Oculopharyngeal Muscular Dystrophy (OPMD)?", "OPMD", {"Gene::8106"}),  # PABPN1's alias
])
def test_a_short_form_the_question_defines_means_its_long_form(resolve, question, short, wrong):
    entities, unresolved = resolve(question)
    assert not {e.node_id for e in entities} & wrong, [(e.mention, e.name) for e in entities]
    assert short in unresolved  # its long form is not in the graph, and the user is told


def test_a_glued_definition_is_still_a_definition(resolve):
    # "Disease(IBD)" without a space: IBD is the inflammatory bowel disease just named, not the alias of
    # irritable bowel syndrome
    entities, _ = resolve("Please list the Janus Kinase inhibitors used to treat Inflammatory Bowel Disease(IBD)")
    names = {e.name.casefold() for e in entities}
    assert "inflammatory bowel disease" in names and "irritable bowel syndrome" not in names


def test_a_setting_word_is_not_the_side_effect_in_questions(resolve, workspace):
    """'trauma patients' seeded the Side Effect Trauma at 1.0 in retrieval and in the desk (issue 14: then
    'Dexamethasone causes Trauma' reached answers through the question); with an adverse cue it still reads."""
    from engram_kit.evidence.search import question_entities

    question = "How should deep vein thrombosis be prevented in trauma patients?"
    entities, _ = resolve(question)
    assert "Deep vein thrombosis" in {e.name for e in entities}
    assert not any(e.name == "Trauma" and e.kind == "Side Effect" for e in entities)
    desk = question_entities(question, workspace.extractor, workspace.resolver)
    assert desk and not any(m.name == "Trauma" and m.kind == "Side Effect" for m in desk)
    adverse, _ = resolve("Is trauma a side effect of dexamethasone?")
    assert any(e.name == "Trauma" and e.kind == "Side Effect" for e in adverse)


def test_biomedical_words_that_did_not_resolve_are_reported():
    assert biomedical_terms("Is IL-6 raised by concizumab in DNA repair?", []) == ["IL-6", "concizumab"]
    assert biomedical_terms("Is IL-6 raised by concizumab?", [(3, 7)]) == ["concizumab"]


def test_pin_and_drop_seeds(workspace):
    q = "Which genes are linked to Alzheimer's disease?"
    base = workspace.retrieve(q, top_k=3)
    assert "Disease::DOID:10652" in {e.node_id for e in base.entities}
    dropped = workspace.retrieve(q, top_k=3, exclude=["Disease::DOID:10652"])
    assert "Disease::DOID:10652" not in {e.node_id for e in dropped.entities}
    pinned = workspace.retrieve(q, top_k=3, seeds={"Gene::54209": 2.0})  # TREM2
    trem2 = [e for e in pinned.entities if e.node_id == "Gene::54209"]
    assert trem2 and trem2[0].method == "pinned" and trem2[0].reason == "pinned by the user"
    assert sum(e.seed_weight for e in pinned.entities) == pytest.approx(1.0)
    with pytest.raises(QueryError, match="not a node"):
        workspace.retrieve(q, seeds=["Gene::no-such-gene"])
    with pytest.raises(QueryError, match="negative"):
        workspace.retrieve(q, seeds={"Gene::54209": -1.0})


def test_off_topic_question_reports_low_relevance(workspace):
    off = workspace.retrieve("How do I write a grant proposal?")
    assert not off.on_topic
    assert off.relevance < workspace.settings.min_relevance
    assert "Low relevance" in off.fallback
    on = workspace.retrieve("What compounds might reduce neuroinflammation in Alzheimer's disease?")
    assert on.on_topic and on.relevance > off.relevance


def test_hub_control_divides_the_walk_by_passage_degree():
    ppr = np.array([0.30, 0.30, 0.0])
    degree = np.array([1.0, 100.0, 50.0])
    assert graph_evidence(ppr, degree, 0.0).tolist() == pytest.approx([1.0, 1.0, 0.0])
    # a passage with 100 noun-phrase mentions keeps a tenth of its mass at exponent 0.5
    assert graph_evidence(ppr, degree, 0.5).tolist() == pytest.approx([1.0, 0.1, 0.0])
    assert graph_evidence(np.zeros(3), degree, 0.5).tolist() == [0.0, 0.0, 0.0]


def test_text_score_is_a_convex_combination_of_normalised_cosine_and_bm25():
    cosine = np.array([0.8, 0.4, 0.6])
    bm25 = np.array([0.0, 10.0, 5.0])
    assert text_scores(cosine, bm25, 1.0).tolist() == pytest.approx([1.0, 0.0, 0.5])
    assert text_scores(cosine, bm25, 0.0).tolist() == pytest.approx([0.0, 1.0, 0.5])
    # 0.6 * [1, 0, 0.5] + 0.4 * [0, 1, 0.5]: the passage both signals like best wins
    mixed = text_scores(cosine, bm25, 0.6)
    assert mixed.tolist() == pytest.approx([0.6, 0.4, 0.5])
    with pytest.raises(QueryError, match="dense_weight"):
        text_scores(cosine, bm25, 1.5)
    with pytest.raises(QueryError, match="aligned"):
        text_scores(cosine, bm25[:2], 0.5)


def test_graph_weight_bounds_what_the_graph_can_move():
    text = np.array([1.0, 0.96, 0.2])
    graph = np.array([0.0, 1.0, 1.0])
    final = blend(text, graph, 0.05)
    # the graph reorders a near-tie (0.96 with evidence passes 1.0 without it) ...
    assert order_of(final, np.array([0.5, 0.5, 0.5]), 3).tolist() == [1, 0, 2]
    # ... but cannot lift a weak text match over a strong one: the gain is at most graph_weight
    assert final[2] < final[0] and (final - (1 - 0.05) * text).max() <= 0.05 + 1e-12
    assert blend(text, graph, 0.0).tolist() == pytest.approx(text.tolist())
    with pytest.raises(QueryError, match="graph_weight"):
        blend(text, graph, -0.1)


def test_order_breaks_ties_by_cosine():
    assert order_of(np.array([0.5, 0.5, 0.7]), np.array([0.1, 0.9, 0.0]), 3).tolist() == [2, 1, 0]


def test_rrf_keeps_a_passage_only_one_signal_found():
    dense = ranks_of(np.array([0.9, 0.1, 0.5]))
    bm25 = ranks_of(np.array([0.0, 7.0, 0.0]), present=np.array([False, True, False]))
    fused = rrf([dense, bm25])
    assert fused.tolist() == pytest.approx([1 / 61, 1 / 63 + 1 / 61, 1 / 62])
