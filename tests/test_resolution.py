"""Resolution on real data (Hetionet node table + bundled synonym sample).

Expected ids come from the sources (NCBI Gene, Disease Ontology, DrugBank, MeSH, UMLS), see
tests/test_extraction.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import DataError
from engram_kit.extraction import BUNDLED_SYNONYMS_DIR, EntityExtractor, Lexicon, Mention, load_node_table
from engram_kit.resolution import (
    ALIAS_CONFIDENCE,
    RESOLUTION_METHODS,
    TFIDF_SCALE,
    Candidate,
    EntityResolver,
    normalize_name,
    nounphrase_id,
)

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
NODE_FILES = (
    REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz",
    REPO.parent / "shared" / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz",
)


@pytest.fixture(scope="module")
def nodes() -> pd.DataFrame:
    for path in NODE_FILES:
        if path.is_file():
            return load_node_table(path)
    pytest.skip("no Hetionet node table")


@pytest.fixture(scope="module")
def lexicon(nodes) -> Lexicon:
    if not BUNDLED_SYNONYMS_DIR.is_dir():
        pytest.skip("data/synonyms is missing")
    return Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR)


@pytest.fixture(scope="module")
def resolver(lexicon, nodes) -> EntityResolver:
    return EntityResolver(lexicon, nodes)


def top(candidates: list[Candidate]) -> Candidate:
    assert candidates, "no candidate"
    return candidates[0]


# ---------------------------------------------------------------------------------------------- names
@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Alzheimer's disease", "alzheimer disease"),
        ("Alzheimer\u2019s Disease", "ALZHEIMER DISEASE"),
        ("non-small-cell lung cancer", "Non small cell  lung cancer"),
        ("\uff34\uff30\uff15\uff13", "tp53"),  # full-width letters fold under NFKC
        ("  Parkinson's   disease, ", "parkinson disease"),
    ],
)
def test_normalize_name_equal_cases(left, right):
    assert normalize_name(left) == normalize_name(right)


def test_normalize_name_values():
    assert normalize_name("Alzheimer's disease") == "alzheimer disease"
    assert normalize_name("IL-6") == "il 6"
    assert normalize_name("...") == ""
    assert normalize_name("Alzheimers disease") != normalize_name("Alzheimer disease")  # only 's goes


def test_nounphrase_id():
    assert nounphrase_id("Alzheimer's disease", "Disease") == "np:Disease:alzheimer disease"
    assert nounphrase_id("ALZHEIMER DISEASE", "Disease") == nounphrase_id("Alzheimer's disease", "Disease")
    assert nounphrase_id("AD", "Disease") != nounphrase_id("AD", "Gene")
    with pytest.raises(DataError):
        nounphrase_id("--", "Disease")


# -------------------------------------------------------------------------------------------- cascade
def test_exact_name(resolver):
    best = top(resolver.resolve("Alzheimer's disease"))
    assert (best.node_id, best.method, best.confidence) == ("Disease::DOID:10652", "exact", 1.0)
    assert best.name == "Alzheimer's disease" and best.kind == "Disease"


def test_do_synonym_heart_attack(resolver):
    best = top(resolver.resolve("heart attack"))
    assert best.node_id == "Side Effect::C0027051"
    assert best.method == "alias"
    assert best.confidence == pytest.approx(ALIAS_CONFIDENCE)


def test_drugbank_brand_name(resolver):
    best = top(resolver.resolve("Glucophage"))
    assert (best.node_id, best.name, best.method) == ("Compound::DB00331", "Metformin", "alias")


def test_gene_alias(resolver):
    assert top(resolver.resolve("p53")).node_id == "Gene::7157"
    assert top(resolver.resolve("HER2")).node_id == "Gene::2064"  # ERBB2


def test_tfidf_for_misspelling(resolver):
    candidates = resolver.resolve("Alzheimers diseas")
    assert candidates[0].node_id == "Disease::DOID:10652"
    assert all(c.method == "tfidf" for c in candidates)
    assert all(0.0 < c.confidence <= TFIDF_SCALE for c in candidates)
    assert top(resolver.resolve("metformine")).node_id == "Compound::DB00331"


def test_nothing_found_is_empty(resolver):
    assert resolver.resolve("quarterly revenue report") == []  # no key shares enough 3-grams
    assert resolver.resolve("") == []
    assert resolver.resolve("!!!") == []


def test_ambiguity_lowers_confidence(resolver):
    candidates = resolver.resolve("amnesia")
    ids = [c.node_id for c in candidates]
    assert set(ids) == {"Symptom::D000647", "Side Effect::C0002622"}
    assert all(c.method == "exact" for c in candidates)
    assert all(0.5 <= c.confidence < 1.0 for c in candidates)
    assert ids[0] == "Symptom::D000647"  # kind priority: Symptom before Side Effect


def test_confidence_order_and_range(resolver):
    exact = top(resolver.resolve("metformin")).confidence
    alias = top(resolver.resolve("Glucophage")).confidence
    fuzzy = top(resolver.resolve("metformine")).confidence
    assert 1.0 == exact > alias > fuzzy > 0.0
    for query in ("ache", "amnesia", "Alzheimers diseas", "breast cancer", "brest cancer"):
        results = resolver.resolve(query)
        assert all(0.0 <= c.confidence <= 1.0 for c in results)
        assert all(c.method in RESOLUTION_METHODS for c in results)
        assert [c.confidence for c in results] == sorted((c.confidence for c in results), reverse=True)
        assert len(results) <= resolver.max_candidates


def test_resolve_mentions_from_the_extractor(lexicon, resolver):
    text = json.loads((FIXTURES / "ext_abstracts.jsonl").read_text(encoding="utf-8").splitlines()[1])["abstract"]
    mentions = EntityExtractor(lexicon).extract(text)
    abbreviation = next(m for m in mentions if m.method == "abbreviation" and m.candidates)
    best = top(resolver.resolve(abbreviation, context=text))
    assert (best.node_id, best.method) == ("Disease::DOID:10652", "abbreviation")
    long_form = top(resolver.resolve(next(m for m in mentions if m.text == "Alzheimer's disease")))
    assert best.confidence < long_form.confidence == 1.0
    ache = next(m for m in mentions if m.text == "AChE")
    assert top(resolver.resolve(ache)).node_id == "Gene::43"


def test_ner_like_mention_goes_through_the_cascade(resolver):
    mention = Mention("heart attack", 0, 12, (), (), "ner")
    assert top(resolver.resolve(mention)).node_id == "Side Effect::C0027051"


def test_resolver_validates_arguments(lexicon, nodes):
    with pytest.raises(DataError):
        EntityResolver(lexicon, nodes, max_candidates=0)
    with pytest.raises(DataError):
        EntityResolver(lexicon, nodes[["id", "name"]])


@pytest.mark.slow
def test_embedding_fallback_and_context(lexicon, nodes):
    from engram_kit.embeddings import default_embedder

    resolver = EntityResolver(lexicon, nodes, embedder=default_embedder())
    candidates = resolver.resolve("tumour suppressor p53")  # no lexicon key, weak TF-IDF neighbours
    assert candidates[0].node_id == "Gene::7157"
    assert candidates[0].method == "embedding"
    assert 0.0 < candidates[0].confidence < ALIAS_CONFIDENCE
    # exact names still win without any model call deciding them
    assert top(resolver.resolve("Alzheimer's disease")).confidence == 1.0
