"""Extraction on real data: the Hetionet node table, the bundled synonym sample and real PubMed abstracts.

Expected node ids come from the sources, not from this code's output: NCBI Gene ids (TP53 = 7157,
ACHE = 43, CHAT = 1103, BRCA1 = 672, RB1 = 5925), the Disease Ontology (DOID:10652 = Alzheimer's disease),
DrugBank (DB00331 = metformin, DB00843 = donepezil), MeSH (D000647 = Amnesia) and UMLS
(C0002622 = amnesia, C0027051 = myocardial infarction).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import BackendUnavailableError, DataError
from engram_kit.extraction import (
    BUNDLED_SYNONYMS_DIR,
    GENE_STOPLIST,
    SOURCES,
    EntityExtractor,
    Gazetteer,
    Lexicon,
    LexiconEntry,
    Mention,
    load_node_table,
    ner_model_available,
)
from engram_kit.extraction.gazetteer import case_rule
from engram_kit.extraction.lexicon import FORMAT_VERSION

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
NODE_FILES = (
    REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz",
    REPO.parent / "shared" / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz",
)
SHARED_SYNONYMS = REPO.parent / "shared" / "data" / "synonyms"


def node_table() -> pd.DataFrame:
    for path in NODE_FILES:
        if path.is_file():
            return load_node_table(path)
    pytest.skip("no Hetionet node table (data/hetionet or ../shared/data/hetionet)")


@pytest.fixture(scope="module")
def nodes() -> pd.DataFrame:
    return node_table()


@pytest.fixture(scope="module")
def lexicon(nodes) -> Lexicon:
    if not BUNDLED_SYNONYMS_DIR.is_dir():
        pytest.skip("data/synonyms is missing: run scripts/make_synonym_sample.py")
    return Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR)


@pytest.fixture(scope="module")
def extractor(lexicon) -> EntityExtractor:
    return EntityExtractor(lexicon)


@pytest.fixture(scope="module")
def abstracts() -> dict[str, str]:
    with (FIXTURES / "ext_abstracts.jsonl").open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    return {r["pmid"]: f"{r.get('title', '')} {r['abstract']}".strip() for r in records}


def by_text(mentions: list[Mention], text: str) -> list[Mention]:
    return [m for m in mentions if m.text == text]


# ------------------------------------------------------------------------------------------------- lexicon
def test_node_table_is_complete(nodes):
    assert len(nodes) == 47_031
    assert list(nodes.columns) == ["id", "kind", "identifier", "name"]
    assert nodes.set_index("id").loc["Gene::7157", "identifier"] == "7157"


def test_lexicon_sources_and_provenance(lexicon):
    counts = lexicon.info["entries_by_source"]
    assert set(counts) == set(SOURCES)
    for source in ("name", "gene-synonym", "do-synonym", "drugbank-alias", "mesh"):
        assert counts[source] > 0, source
    assert all(e.source in SOURCES for _, e in lexicon.entries())


def test_do_synonym_of_non_hetionet_doid_bridges_by_name(lexicon):
    # "heart attack" is an exact synonym of DOID:5844, which is not a Hetionet Disease; the Side Effect
    # "Myocardial infarction" bears the DO term's name, so it receives the synonym.
    entries = lexicon.lookup("heart attack")
    assert ("Side Effect::C0027051", "do-synonym") in {(e.node_id, e.source) for e in entries}


def test_do_synonyms_of_hetionet_disease(lexicon):
    assert "Disease::DOID:10652" in {e.node_id for e in lexicon.lookup("Alzheimer disease")}


def test_drugbank_brand_and_gene_alias(lexicon):
    assert {e.node_id for e in lexicon.lookup("Glucophage")} == {"Compound::DB00331"}
    assert "Gene::7157" in {e.node_id for e in lexicon.lookup("p53")}


def test_lexicon_without_synonyms_has_names_only(nodes):
    small = Lexicon.build(nodes.head(500), None)
    # names, and variants generated from names (Greek letters, possessives: issue 14)
    assert {e.source for _, e in small.entries()} <= {"name", "mesh", "variant"}
    variants = [e for _, e in small.entries() if e.source == "variant"]
    assert all(small.lookup(e.surface) for e in variants)
    assert len(small.node_names) == 500


def test_lexicon_rejects_bad_input(nodes, tmp_path):
    with pytest.raises(DataError, match="identifier"):
        Lexicon.build(nodes.drop(columns=["identifier"]), None)
    with pytest.raises(DataError, match="does not exist"):
        Lexicon.build(nodes.head(10), tmp_path / "nope")


def test_lexicon_save_load_roundtrip(lexicon, tmp_path):
    path = lexicon.save(tmp_path / "lexicon.pkl")
    loaded = Lexicon.load(path)
    assert len(loaded) == len(lexicon)
    assert set(loaded.entries()) == set(lexicon.entries())
    assert loaded.lookup("heart attack") == lexicon.lookup("heart attack")
    assert loaded.node_names == lexicon.node_names
    assert loaded.info["format_version"] == FORMAT_VERSION


def test_lexicon_load_refuses_other_versions(tmp_path):
    import pickle

    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps({"format": "engram-kit-lexicon", "version": FORMAT_VERSION + 1}))
    with pytest.raises(DataError, match="format version"):
        Lexicon.load(path)
    (tmp_path / "junk.pkl").write_bytes(b"not a pickle")
    with pytest.raises(DataError):
        Lexicon.load(tmp_path / "junk.pkl")


def test_lexicon_covers_every_node_name(nodes):
    # Build time is measured in benchmarks (timed unit tests are flaky on shared machines); here: every
    # node is reachable by its own name.
    lexicon = Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR)
    sample = nodes.sample(200, random_state=0)
    missing = [n for n, i in zip(sample["name"], sample["id"]) if i not in {e.node_id for e in lexicon.lookup(n)}]
    assert len(missing) <= 4, missing  # a handful of names normalise to empty or collide with a stoplist


@pytest.mark.shared
def test_bundled_sample_gives_the_same_lexicon_as_the_full_tables(nodes, lexicon):
    if not SHARED_SYNONYMS.is_dir():
        pytest.skip("../shared/data/synonyms not available")
    full = Lexicon.build(nodes, SHARED_SYNONYMS)
    assert set(full.entries()) == set(lexicon.entries())


def test_bundled_sample_is_small():
    total = sum(p.stat().st_size for p in BUNDLED_SYNONYMS_DIR.rglob("*") if p.is_file())
    assert total <= 2_000_000
    assert (BUNDLED_SYNONYMS_DIR / "README.md").is_file()


# ----------------------------------------------------------------------------------------------- gazetteer
def test_stoplist_rules():
    for word in ("cat", "set", "max", "camp", "all", "she", "was", "can", "met", "rest"):
        assert word in GENE_STOPLIST
    assert "ace" not in GENE_STOPLIST
    assert case_rule(LexiconEntry("SET", "Gene::6418", "Gene", "name")) is None
    assert case_rule(LexiconEntry("ACE", "Gene::1636", "Gene", "name")) == "gene"
    assert case_rule(LexiconEntry("x", "Gene::1", "Gene", "name")) is None


def test_longest_match_and_offsets(extractor, abstracts):
    text = abstracts["11893059"]
    mentions = extractor.extract(text)
    assert [m.start for m in mentions] == sorted(m.start for m in mentions)
    for m in mentions:
        assert text[m.start:m.end] == m.text
        assert len(m.candidates) == len(m.kinds) and (m.candidates or m.label)  # label: typed vocabulary
    ad = by_text(mentions, "Alzheimer's disease")
    assert len(ad) == text.count("Alzheimer's disease") == 2
    assert all(m.candidates == ("Disease::DOID:10652",) for m in ad)
    assert not by_text(mentions, "disease")  # never the shorter name inside the longer one
    assert by_text(mentions, "Donepezil hydrochloride")[0].candidates == ("Compound::DB00843",)
    assert all(m.candidates == ("Gene::43",) for m in by_text(mentions, "AChE"))


def test_abbreviation_defined_in_text(extractor, abstracts):
    text = abstracts["12636181"]
    mentions = extractor.extract(text)
    short = by_text(mentions, "AD")
    assert len(short) == len(re.findall(r"\bAD\b", text)) >= 3
    for m in short:
        assert m.method == "abbreviation"
        assert m.long_form == "Alzheimer's disease"
        assert m.candidates == ("Disease::DOID:10652",)


def test_abbreviation_batches_keep_order_around_texts_without_parentheses():
    """A text without "(" and ")" is not parsed (it can define nothing; issue 18): find_many still yields one
    list per text, in order, and the texts with definitions get theirs."""
    from engram_kit.extraction.abbreviations import AbbreviationFinder

    finder = AbbreviationFinder()
    texts = ["AD is common and AD is costly.", "Alzheimer's disease (AD) is common; AD is costly.", "",
             "No definition of AD here", "Tumor necrosis factor (TNF) rose. TNF fell."]
    found = list(finder.find_many(texts))
    assert [[a.short for a in f] for f in found] == [[], ["AD", "AD"], [], [], ["TNF", "TNF"]]
    assert found[1][0].long_form == "Alzheimer's disease" and found[4][0].long_form == "Tumor necrosis factor"
    assert [finder.find(t) for t in texts] == found


def test_abbreviations_can_be_turned_off(lexicon, extractor, abstracts):
    plain = EntityExtractor(lexicon, abbreviations=False, gazetteer=extractor.gazetteer)
    assert not [m for m in plain.extract(abstracts["12636181"]) if m.method == "abbreviation"]


def test_gene_symbol_that_is_an_english_word_does_not_match_prose(extractor, abstracts):
    for pmid in ("10827109", "8605116"):
        text = abstracts[pmid]
        assert re.search(r"\bset\b", text)
        mentions = extractor.extract(text)
        assert not [m for m in mentions if m.text.lower() == "set"]
    genes = {c for m in extractor.extract(abstracts["10827109"]) for c in m.candidates}
    assert "Gene::672" in genes  # BRCA1 is still found
    assert "Gene::5925" in {c for m in extractor.extract(abstracts["8605116"]) for c in m.candidates}


def test_case_and_word_boundaries(extractor):
    text = "The cat ate. CAT and SET levels; TP53 and tp53; anti-TNF therapy."
    found = {m.text: m for m in extractor.extract(text)}
    assert "cat" not in found
    assert "CAT" not in found and "SET" not in found  # stoplisted gene symbols, even in capitals
    assert found["TP53"].candidates == ("Gene::7157",)
    assert "tp53" not in found  # gene symbols are case-sensitive
    assert found["TNF"].candidates == ("Gene::7124",)


def test_ambiguity_is_kept(extractor, abstracts):
    mentions = by_text(extractor.extract(abstracts["16428827"]), "amnesia")
    assert mentions
    assert set(mentions[0].candidates) == {"Side Effect::C0002622", "Symptom::D000647"}
    assert set(mentions[0].kinds) == {"Side Effect", "Symptom"}


def test_possessive_and_synonym_variants(extractor):
    mentions = extractor.extract("Alzheimer disease and a heart attack were treated with Glucophage.")
    found = {m.text: m.candidates for m in mentions}
    assert found["Alzheimer disease"] == ("Disease::DOID:10652",)
    assert found["heart attack"] == ("Side Effect::C0027051",)
    assert found["Glucophage"] == ("Compound::DB00331",)


def test_extract_many_matches_extract(extractor, abstracts):
    # Throughput (target >= 100 abstracts/s) is measured by benchmarks.quality --study ner, not here.
    texts = list(abstracts.values()) * 4
    batched = extractor.extract_many(texts)
    assert batched[: len(abstracts)] == [extractor.extract(t) for t in abstracts.values()]
    assert batched[len(abstracts):2 * len(abstracts)] == batched[: len(abstracts)]


def test_empty_text(extractor):
    assert extractor.extract("") == []
    assert extractor.extract_many([]) == []


def test_gazetteer_counts(lexicon, extractor):
    assert isinstance(extractor.gazetteer, Gazetteer)
    assert 50_000 < extractor.gazetteer.n_keys <= len(lexicon) + len(lexicon.vocabulary) + 10_000


# --------------------------------------------------------------------------------------------------- NER
def test_ner_requested_but_absent_is_a_clear_error(lexicon, extractor):
    if ner_model_available("en_ner_bc5cdr_md"):
        pytest.skip("en_ner_bc5cdr_md is installed")
    with pytest.raises(BackendUnavailableError, match="en_ner_bc5cdr_md"):
        EntityExtractor(lexicon, ner="en_ner_bc5cdr_md", gazetteer=extractor.gazetteer)


def test_ner_auto_skips_silently_when_absent(lexicon, extractor):
    from engram_kit.extraction.ner import BUNDLED_NER

    auto = EntityExtractor(lexicon, ner="auto", gazetteer=extractor.gazetteer)
    if not ner_model_available("en_ner_bc5cdr_md"):  # then the bundled model when present, else nothing
        assert auto.ner_model == (BUNDLED_NER if ner_model_available(BUNDLED_NER) else None)
    with pytest.raises(DataError):
        EntityExtractor(lexicon, ner="", gazetteer=extractor.gazetteer)


def test_bundled_bc5cdr_ner_adds_typed_spans(lexicon, extractor):
    """The bundled BC5CDR tagger (data/models/bc5cdr-ner): chemical and disease spans the dictionary does not
    hold come in as typed NER mentions; with ner_first its span replaces an overlapping dictionary match."""
    from engram_kit.extraction.ner import BUNDLED_NER, load_ner

    if not ner_model_available(BUNDLED_NER):
        pytest.skip("bundled NER folder not built")
    tagger = load_ner(BUNDLED_NER)
    assert tagger is not None
    text = "Naloxone reverses the antihypertensive effect of clonidine and cisplatin-induced nephrotoxicity."
    spans = {text[s:e]: label for s, e, label in tagger.spans(text)}
    assert spans["Naloxone"] == "Chemical" and spans["clonidine"] == "Chemical"
    assert spans["nephrotoxicity"] == "Disease"
    with_ner = EntityExtractor(lexicon, ner=BUNDLED_NER, gazetteer=extractor.gazetteer)
    plain = {(m.start, m.end) for m in extractor.extract(text)}
    added = [m for m in with_ner.extract(text) if m.method == "ner"]
    assert all((m.start, m.end) not in plain and m.label in ("Chemical", "Disease") for m in added)


def test_term_tagger_whole_words_longest_first_case_kept():
    """The term tagger matches whole words only, the longest term first, without overlaps, case-sensitively."""
    from engram_kit.extraction.ner import TermTagger

    tagger = TermTagger({"renal failure": "Disease", "acute renal failure": "Disease", "cocaine": "Chemical"})
    text = "Cocaine and cocaine-induced acute renal failure; cocaineX, renal failures."
    spans = [(text[s:e], label) for s, e, label in tagger.spans(text)]
    assert spans == [("cocaine", "Chemical"), ("acute renal failure", "Disease")]
    assert TermTagger({}).spans(text) == []


def test_term_tagger_missing_file_is_a_clear_error(tmp_path):
    from engram_kit.extraction.ner import TermTagger

    with pytest.raises(BackendUnavailableError, match="make_corpus_terms.py"):
        TermTagger.from_file(tmp_path / "absent.tsv.gz")


def test_ingestion_extractor_adds_bc5cdr_train_terms(lexicon, extractor):
    """The ingestion extractor (ner=INGESTION_NER, "bc5cdr-terms") adds typed spans of BC5CDR training-split names
    the lexicon lacks ("Ecstasy", "bleeding"), never where a dictionary mention already is ("hepatotoxicity");
    the default extractor (questions, literature maps) gives the dictionary mentions only."""
    from engram_kit.extraction.extractor import INGESTION_NER
    from engram_kit.extraction.ner import CORPUS_TERMS

    assert INGESTION_NER == CORPUS_TERMS and extractor.ner_model is None
    ingestion = EntityExtractor(lexicon, ner=INGESTION_NER, gazetteer=extractor.gazetteer)
    assert ingestion.ner_model == CORPUS_TERMS
    text = "Ecstasy caused severe hepatotoxicity and bleeding in two patients."
    found = {m.text: (m.method, m.label) for m in ingestion.extract(text)}
    assert found["Ecstasy"] == ("ner", "Chemical") and found["bleeding"] == ("ner", "Disease")
    assert found["hepatotoxicity"][0] == "gazetteer"
    assert [m.text for m in extractor.extract(text)] == ["hepatotoxicity"]


# ------------------------------------------------------------------------- issue 7: NER quality bug fixes
def test_defined_abbreviation_overrides_gene_match(extractor):
    # bug (a): STZ is a gene synonym (SLC2A2); defined in the text it means the long form
    mentions = extractor.extract("Streptozotocin (STZ) induced diabetes in rats given STZ.")
    stz = by_text(mentions, "STZ")
    assert len(stz) == 2
    assert all(m.method == "abbreviation" and "Gene" not in m.kinds for m in stz)
    assert stz[0].candidates == ("Compound::DB00428",)  # streptozotocin = streptozocin (INN/USAN table)
    # an unresolvable long form still drops the gene reading, leaving an unlinked short form
    mentions = extractor.extract("Sotazolamide (STZ) was given to rats given STZ.")
    stz = by_text(mentions, "STZ")
    assert len(stz) == 2
    assert all(m.method == "abbreviation" and m.candidates == () and m.long_form == "Sotazolamide" for m in stz)


def test_punctuation_next_to_a_space_matches(extractor):
    # bug (b): "graves' disease" used to become "graves  disease" (two spaces) in the matching form
    found = extractor.gazetteer.find("Patients with Graves' disease were treated.")
    assert [(m.text, m.start, m.end, m.candidates) for m in found] == [
        ("Graves' disease", 14, 29, ("Disease::DOID:12361",))]
    found = extractor.gazetteer.find("IL-6 ( interleukin 6 ) and IL -- 6")
    assert [m.text for m in found if m.text.startswith("IL")] == ["IL-6", "IL -- 6"]


def test_mixed_case_compound_name_variant(extractor):
    # bug (c): "L-dopa" for the compound named "L-DOPA"
    for text in ("L-dopa", "l-dopa", "L-DOPA", "levodopa"):
        mentions = extractor.extract(f"Patients received {text} daily.")
        assert [m.candidates for m in mentions] == [("Compound::DB01235",)], text
    assert extractor.extract("Patients received l-DoPa daily.") == []  # odd inner case stays out


def test_mention_label_field_is_optional_and_kept(lexicon):
    # bug (d): Mention.label exists, defaults to "" and positional construction still works
    old = Mention("AD", 0, 2, ("Disease::DOID:10652",), ("Disease",), "gazetteer")
    assert old.label == "" and old.long_form == ""

    class FakeNer:
        model = "fake"

        def spans(self, text):
            return [(0, 7, "CHEMICAL")]

    extractor = EntityExtractor(lexicon, abbreviations=False)
    extractor._ner = FakeNer()
    mentions = extractor.extract("Zorblax was given.")
    assert [(m.text, m.method, m.label) for m in mentions] == [("Zorblax", "ner", "CHEMICAL")]


def test_drugbank_brands_that_name_a_condition_are_not_compounds(lexicon, extractor):
    # bug (e): "Sore Throat" and "Pain Relief" are DrugBank brand names
    for phrase in ("sore throat", "pain relief"):
        assert all(e.source != "drugbank-alias" for e in lexicon.lookup(phrase)), phrase
        assert all("Compound" not in m.kinds for m in extractor.extract(f"She reported {phrase}."))


def test_singular_plural_and_spelling_variants(extractor):
    for text, node in (("seizure", "Symptom::D012640"), ("convulsions", "Side Effect::C0036572"),
                       ("haemolytic anaemia", None), ("isoproterenol", "Compound::DB01064")):
        mentions = extractor.extract(f"They had {text} yesterday.")
        assert len(mentions) == 1 and mentions[0].text == text, text
        if node is not None:
            assert node in mentions[0].candidates


def test_typed_vocabulary_and_text_stoplist(lexicon, extractor):
    assert lexicon.vocabulary["heparin"][0] == "Chemical"  # DrugBank, not a Hetionet compound
    heparin = extractor.extract("Heparin was stopped.")
    assert [(m.text, m.candidates, m.label) for m in heparin] == [("Heparin", (), "Chemical")]
    assert "surgery" in lexicon.text_stoplist
    assert extractor.extract("after surgery") == []
    assert lexicon.lookup("surgery")  # still known to the resolver


def test_chemical_prefix_extension(extractor):
    mentions = extractor.extract("d-penicillamine and D,L-sotalol and 5-fluorouracil")
    assert [m.text for m in mentions] == ["d-penicillamine", "D,L-sotalol", "5-fluorouracil"]
    assert extractor.extract("anti-penicillamine")[0].text == "penicillamine"
