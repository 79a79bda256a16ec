"""Entity linking a researcher can trust (issue 14): every wrong link reported in the issue, with the right value.

Each case is a sentence of the same *kind* as the one the link was seen in (a by-line, a software paper,
a table row, a review...), written here; the expected values are the right entity or "no link". The
texts go through the product path: :class:`EntityExtractor` -> :meth:`EntityResolver.link`.
"""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.extraction import BUNDLED_SYNONYMS_DIR, EntityExtractor, Lexicon, load_node_table
from engram_kit.extraction.context import context_cues, text_zone
from engram_kit.extraction.normalize import normalize_name
from engram_kit.extraction.variants import greek_variants, possessive_variants, symbol_greek_variants
from engram_kit.resolution import EntityResolver
from engram_kit.resolution.policy import LinkPolicy

REPO = Path(__file__).resolve().parents[1]
NODES = REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz"
EDGES = REPO / "data" / "hetionet" / "hetionet-v1.0-edges-sample.tsv.gz"


@pytest.fixture(scope="module")
def nodes() -> pd.DataFrame:
    if not NODES.is_file():
        pytest.skip("bundled node table missing")
    return load_node_table(NODES)


@pytest.fixture(scope="module")
def lexicon(nodes) -> Lexicon:
    return Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR)


@pytest.fixture(scope="module")
def extractor(lexicon) -> EntityExtractor:
    return EntityExtractor(lexicon)


@pytest.fixture(scope="module")
def resolver(lexicon, nodes) -> EntityResolver:
    degree: Counter[str] = Counter()
    with gzip.open(EDGES, "rt", encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            source, _, target = line.rstrip("\n").split("\t")[:3]
            degree[source] += 1
            degree[target] += 1
    return EntityResolver(lexicon, nodes, node_prior=dict(degree))


def links(extractor, resolver, text: str) -> dict[str, list[str]]:
    """Mention text -> linked node ids (top first) of every mention of ``text`` (last occurrence wins)."""
    return {m.text: [c.node_id for c in resolver.link(m)] for m in extractor.extract(text)}


def top(extractor, resolver, text: str, mention: str) -> str | None:
    found = links(extractor, resolver, text)
    assert mention in found, f"{mention!r} not found as a mention in {text!r}: {sorted(found)}"
    return found[mention][0] if found[mention] else None


# ------------------------------------------------------------------------------------- zones: no links
def test_author_initials_are_not_genes(extractor, resolver):
    text = "Xu L, Hu DSH, Brown CGB and Smith J"
    assert top(extractor, resolver, text, "DSH") is None  # was ADAR, confidence 0.9
    assert top(extractor, resolver, text, "CGB") is None  # was the CGB gene, confidence 1.0


def test_atom_and_substrate_labels_in_table_rows_are_not_genes(extractor, resolver):
    text = "OAF 1.23 0.45 0.91\nFRK 2.10 0.33 0.87"
    assert top(extractor, resolver, text, "OAF") is None
    assert top(extractor, resolver, text, "FRK") is None


def _table_links(lexicon, resolver, text: str) -> dict[str, str]:
    """Cell text -> top linked node id of each table mention (the document pipeline's table path)."""
    from engram_kit.extraction.tables import table_mentions

    out = {}
    for m in table_mentions(text, lexicon):
        linked = resolver.link(m)
        if linked:
            out[m.text] = linked[0].node_id
    return out


def test_table_gene_column_links_official_symbols_only(lexicon, resolver):
    """A table listing genes (the PeerJ paper's Table 3 shape): each whole cell of the gene column that is an
    official HGNC symbol links that gene (ODC1 = Entrez 4953, PASK = 23178, C12orf43 = 64897, a footnote star
    dropped); nothing inside other cells links ("HP" in "Yes (HP)" is the haptoglobin symbol, not linked)."""
    text = ("Table 3 Comparison of the results from gene families.\n"
            "column 1: ODC1; Original masked alignment: Yes (HPGPoN) Matched; column 4: Matched\n"
            "column 1: PASK*; Original masked alignment: Yes (HP) Matched; column 4: Matched 2/3 (434)\n"
            "column 1: C12orf43; Original masked alignment: Yes (HPG) Matched; column 4: Matched\n"
            "column 1: HUS1; Original masked alignment: Yes (HP); column 4: HP")
    assert _table_links(lexicon, resolver, text) == {
        "ODC1": "Gene::4953", "PASK": "Gene::23178", "C12orf43": "Gene::64897", "HUS1": "Gene::3364"}


def test_table_atom_labels_codes_and_lone_symbols_are_not_linked(lexicon, resolver):
    """Atom/substrate labels, axis labels, numbers and a lone symbol-like cell in a column of codes are never
    linked: OAF and FRK (FRK is an official symbol) in a substrate column that is mostly not genes, "HP" (two
    letters), "CAT" among model codes, "Yes"/"No" answers."""
    substrates = ("Table 2 Binding energies.\nSubstrate: OAF; Energy (kcal/mol): -7.1; Fit: Yes\n"
                  "Substrate: FRK; Energy (kcal/mol): -6.4; Fit: No\nSubstrate: OAB2; Energy (kcal/mol): 1.23; Fit: Yes\n"
                  "Substrate: HP; Energy (kcal/mol): 0.91; Fit: No\nSubstrate: m0; Energy (kcal/mol): 2.1; Fit: No")
    assert _table_links(lexicon, resolver, substrates) == {}
    codes = "Table 1 Models.\nModel: CAT; p: 1\nModel: m1Neutral; p: 2\nModel: modelA; p: 3\nModel: M8; p: 4"
    assert _table_links(lexicon, resolver, codes) == {}


def test_table_full_disease_and_compound_names_link(lexicon, resolver):
    """A whole cell that is the full primary name of a Disease or Compound links it (Metformin = DB00331);
    a short or partial name ("Pain", "heart failure clinic") does not."""
    text = ("Table 1 Drugs and conditions.\nDrug: Metformin; Condition: Pain; Setting: heart failure clinic\n"
            "Drug: 12.5 mg; Condition: -; Setting: ward")
    assert _table_links(lexicon, resolver, text) == {"Metformin": "Compound::DB00331"}


#: The 18 gene families of the PeerJ VESPA paper's Table 3 (HGNC symbols, Entrez ids of Hetionet's Gene nodes).
PEERJ_TABLE3_GENES = {"ATG16L1": 55054, "ATP5SL": 55101, "AZGP1": 563, "C12orf43": 64897, "CACNA1I": 8911,
                      "CASP1": 834, "CD151": 977, "COBLL1": 22837, "HUS1": 3364, "IDH3B": 3420, "IFIT2": 3433,
                      "INTS7": 25896, "ODC1": 4953, "PASK": 23178, "RRP8": 23378, "RTP2": 344892, "SLC8A1": 6546,
                      "TRIM40": 135644}


def test_document_pipeline_links_the_gene_table_of_the_peerj_pdf(extractor, resolver):
    """The document pipeline links table passages by the cell rules: in the bundled PeerJ PDF the table passages
    link exactly the 18 genes of Table 3 (before, table passages were never extracted and linked nothing)."""
    from benchmarks.quality.linking_audit import PDF_DIR
    from engram_kit.embeddings.static import StaticEmbedder
    from engram_kit.ingestion.documents import DocumentPipeline
    from engram_kit.ingestion.pdf import parse_pdf
    from engram_kit.settings import Settings

    pdf = PDF_DIR / "peerjcs_vespa_evolutionary_analyses.pdf"
    if not pdf.is_file():
        pytest.skip("bundled PDF missing")
    pipeline = DocumentPipeline(extractor=extractor, resolver=resolver, embedder=StaticEmbedder(), settings=Settings())
    done = pipeline.build("doc:peerj", parse_pdf(pdf.read_bytes(), filename=pdf.name), content_hash="t",
                          fallback_title="VESPA")
    tables = {p.id for p in done.batch.passages if p.kind == "table"}
    assert len(tables) >= 4  # Tables 1-3 (Table 2 over three passages)
    table_nps = {m.nounphrase_id for m in done.batch.mentions if m.source_id in tables}
    linked = {e.entity_id for e in done.batch.maps_to if e.nounphrase_id in table_nps}
    assert linked == {f"Gene::{entrez}" for entrez in PEERJ_TABLE3_GENES.values()}


def test_table_cells_offsets(lexicon):
    """Cell offsets point at the value in the passage text (footnote markers excluded, caption skipped)."""
    from engram_kit.extraction.tables import table_cells

    text = "Table 3 Genes.\ncolumn 1: PASK*; b: Yes (HP)\nc: 7"
    cells = table_cells(text)
    assert [(col, val) for col, val, _, _ in cells] == [("column 1", "PASK"), ("b", "Yes (HP)"), ("c", "7")]
    assert all(text[s:e] == val for _, val, s, e in cells)


def test_ner_span_labelled_chemical_is_not_a_gene_alias(resolver):
    """A NER/term span labelled Chemical ("ATP") is not linked to the gene whose alias it is (ATP8A2, Entrez
    51761: the resolver's only candidate); unlabelled, the same span would be."""
    from engram_kit.extraction.mention import Mention

    sentence = "The ATP-binding cassette transporter and ATP release from platelets were measured."
    start = sentence.index("ATP release")
    labelled = Mention("ATP", start, start + 3, (), (), "ner", label="Chemical", sentence=sentence,
                       cues=frozenset({"biomedical"}))
    assert [c.node_id for c in resolver.resolve(labelled)][:1] == ["Gene::51761"]
    assert resolver.link(labelled) == []
    unlabelled = Mention("ATP", start, start + 3, (), (), "ner", sentence=sentence, cues=frozenset({"biomedical"}))
    assert [c.node_id for c in resolver.link(unlabelled)] == ["Gene::51761"]


def test_reference_and_affiliation_lines_are_not_linked(extractor, resolver):
    reference = ("12. Geerts WH, Code KI, Jay RM. A prospective study of venous thromboembolism after major "
                 "trauma. N Engl J Med. 1994;331:1601-6.")
    assert all(not ids for ids in links(extractor, resolver, reference).values())
    affiliation = "Department of Cardiology, University Hospital of Heidelberg, 69120 Heidelberg, Germany"
    assert all(not ids for ids in links(extractor, resolver, affiliation).values())


def test_zone_rules():
    assert text_zone("Metformin lowers blood glucose in patients with type 2 diabetes.") == "prose"
    assert text_zone("Patients received heparin for thromboprophylaxis.") == "prose"
    assert text_zone("Received: 3 May 2020; Accepted: 5 June 2020") == "affiliation"
    assert text_zone("Smith JA, Hu DSH, Brown CGB, Lee K and Zhao Y") == "author"


# ------------------------------------------------------------------------------ software/method words
def test_software_words_are_not_drugs_genes_or_go_terms(extractor, resolver):
    text = ("We manage application state with Redux and expose a REST API to clients. Learning rate and "
            "memory usage of the program depend on its caching behavior.")
    found = links(extractor, resolver, text)
    for word in ("Redux", "API", "Learning", "memory", "behavior"):
        assert word in found and found[word] == [], f"{word} linked to {found[word]}"


def test_go_term_and_brand_still_link_in_biomedical_text(extractor, resolver):
    assert top(extractor, resolver, "Spatial memory of the rats was impaired in the water maze.",
               "memory") == "Biological Process::GO:0007613"
    assert top(extractor, resolver, "Obese patients were treated with Glucophage at a dose of 500 mg.",
               "Glucophage") == "Compound::DB00331"


def test_gene_synonym_needs_a_gene_context(extractor, resolver):
    assert top(extractor, resolver, "The WRS score was recorded by the nurses at admission.", "WRS") is None


# ------------------------------------------------------------------------------------ name variants
def test_greek_letter_forms_of_gene_names(extractor, resolver):
    text = "Activated T cells secreted IFN-\u03b3 and IL-1\u03b2, and IFN-gamma levels rose."
    found = links(extractor, resolver, text)
    assert found["IFN-\u03b3"][:1] == ["Gene::3458"]  # IFNG, was IFNA1 through "IFN"
    assert found["IFN-gamma"][:1] == ["Gene::3458"]
    assert found["IL-1\u03b2"][:1] == ["Gene::3553"]  # IL1B
    assert normalize_name("IFN-\u03b3") == normalize_name("IFN-gamma")


def test_p21_is_cdkn1a(extractor, resolver):
    text = "DNA damage induced p53 and expression of the cell-cycle inhibitor p21 in fibroblasts."
    assert top(extractor, resolver, text, "p21") == "Gene::1026"  # CDKN1A, was TCEAL1


def test_possessive_without_apostrophe_is_the_disease(extractor, resolver):
    text = "Alzheimers disease is the most common cause of dementia in elderly patients."
    assert top(extractor, resolver, text, "Alzheimers disease") == "Disease::DOID:10652"  # was a Pathway


def test_variant_generators():
    assert "IFN-\u03b3" in set(symbol_greek_variants("IFNG"))
    assert "TGF-\u03b21" in set(symbol_greek_variants("TGFB1"))
    assert list(symbol_greek_variants("TNF")) == []
    assert set(greek_variants("TNF-\u03b1")) == {"TNF-alpha", "TNF-a"}
    assert list(possessive_variants("Alzheimer's disease")) == ["Alzheimers disease"]


def test_lay_synonyms_for_questions(lexicon, resolver):
    expected = {"high blood pressure": "Disease::DOID:10763", "type 2 diabetes": "Disease::DOID:9352",
                "penicillin": "Pharmacologic Class::N0000011281", "heart attack": "Side Effect::C0027051"}
    for text, node in expected.items():
        assert resolver.resolve(text)[0].node_id == node, text


# ---------------------------------------------------------------------- fuzzy links and known terms
def test_known_terms_without_a_node_are_not_fuzzy_linked(extractor, resolver):
    text = "Patients received heparin for thromboprophylaxis and insulin for hyperglycaemia."
    found = links(extractor, resolver, text)
    assert found["heparin"] == []  # was Tolnaftate (0.53)
    assert found["insulin"] == []  # was Insulin Coma; the drug given is no graph node (Hetionet has no insulin)
    mentions = {m.text: m for m in extractor.extract(text)}
    assert mentions["heparin"].label == "Chemical"  # stays a typed, unlinked NounPhrase
    assert mentions["insulin"].label == "Chemical"


def test_insulin_in_a_gene_or_protein_context_is_the_gene_ins(extractor, resolver):
    text = "Glucose-stimulated insulin secretion fell, and insulin mRNA was reduced in beta cells."
    found = links(extractor, resolver, text)
    assert found["insulin"][:1] == ["Gene::3630"]  # INS, never Insulin Coma (Symptom::D007331)
    assert all("Symptom::D007331" not in ids for ids in found.values())


def test_general_disease_words_are_not_a_more_specific_disease(extractor, resolver):
    text = ("Cancer is a leading cause of death, and malignant neoplasms of the lung are common. "
            "Neurodegenerative disease is a growing burden in ageing patients.")
    found = links(extractor, resolver, text)
    assert found["Cancer"] == []  # was bone cancer (0.61)
    assert found["malignant neoplasms"] == []  # was bone cancer (0.72)
    assert found["Neurodegenerative disease"] == []  # was degenerative disc disease


def test_fuzzy_words_rule():
    assert LinkPolicy.fuzzy_words_agree("Alzheimers diseas", "Alzheimer's disease")
    assert not LinkPolicy.fuzzy_words_agree("cancer", "bone cancer")
    assert not LinkPolicy.fuzzy_words_agree("neurodegenerative disease", "degenerative disc disease")


# --------------------------------------------------------------------------------------- kind priors
def test_trauma_in_a_surgical_review_is_not_the_side_effect(extractor, resolver):
    text = "This review of trauma surgery discusses thromboprophylaxis in trauma patients."
    assert top(extractor, resolver, text, "trauma") is None  # was Side Effect "Trauma"


def test_trauma_review_pdf_links_no_trauma_side_effect(extractor, resolver):
    """The bundled trauma-surgery review, passage by passage as the document pipeline extracts them: no mention
    links to the Side Effect "Trauma" (its MENTIONS edges let PPR reach Hetionet's "Dexamethasone causes Trauma"
    and put that claim into answers), while the review's diseases still link."""
    from benchmarks.quality.linking_audit import PDF_DIR, pdf_units

    if not (PDF_DIR / "bmc_dvt_prophylaxis_trauma_review.pdf").is_file():
        pytest.skip("bundled PDF missing")
    texts = [u.text for u in pdf_units() if u.doc == "bmc_dvt_prophylaxis_trauma_review" and not u.table]
    linked = Counter(c.node_id for mentions in extractor.extract_many(texts, same_document=True)
                     for m in mentions for c in resolver.link(m)[:1])
    trauma_mentions = sum(m.text.lower() == "trauma" for mentions in extractor.extract_many(texts) for m in mentions)
    assert trauma_mentions >= 10  # the word is everywhere in the review
    assert linked["Side Effect::C0043251"] == 0
    assert linked["Side Effect::C0034065"] >= 3  # pulmonary embolism


#: Hetionet's nodes named "Apoptosis": Reactome (via Pathway Commons) and WikiPathways pathways, and a SIDER Side
#: Effect. Hetionet has no GO "apoptotic process" (GO:0006915) Biological Process, so the pathway is the right kind.
APOPTOSIS_PATHWAYS = {"Pathway::PC7_1684", "Pathway::WP254_r84652"}


def test_apoptosis_is_the_pathway_not_the_side_effect(extractor, resolver, nodes):
    named = set(nodes.loc[nodes["name"].str.lower() == "apoptosis", "id"])
    assert named == APOPTOSIS_PATHWAYS | {"Side Effect::C0162638"}
    assert not (nodes["name"] == "apoptotic process").any()
    linked = top(extractor, resolver, "Curcumin induced apoptosis in cancer cells.", "apoptosis")
    assert linked in APOPTOSIS_PATHWAYS  # was Side Effect::C0162638


def test_disease_before_side_effect_unless_adverse_event(extractor, resolver):
    plain = "Hypertension is a major risk factor for stroke in the elderly."
    assert top(extractor, resolver, plain, "Hypertension") == "Disease::DOID:10763"
    adverse = "Cisplatin toxicity included nephrotoxicity and hypertension as adverse events."
    assert top(extractor, resolver, adverse, "hypertension") == "Side Effect::C0020538"


def test_a_disease_name_without_an_adverse_cue_links_the_disease_only(extractor, resolver):
    """'Parkinson's disease' was linked to the Disease (0.96) and to SIDER's Side Effect of the same name
    (0.92), so PPR paths read 'Bromocriptine -[CAUSES_CcSE]- Parkinson's disease' (newcomer run)."""
    plain = "Bromocriptine is a dopamine agonist used in Parkinson's disease and hyperprolactinaemia."
    assert links(extractor, resolver, plain)["Parkinson's disease"] == ["Disease::DOID:14330"]
    hypertension = links(extractor, resolver, "Hypertension is a major risk factor for stroke in the elderly.")
    assert hypertension["Hypertension"] == ["Disease::DOID:10763"]
    adverse = "Cisplatin toxicity included nephrotoxicity and hypertension as adverse events."
    assert links(extractor, resolver, adverse)["hypertension"][:1] == ["Side Effect::C0020538"]


def test_adverse_cue_must_be_near_the_mention(extractor, resolver):
    text = ("Levodopa-induced dyskinesias (LIDs) present a major problem for the long-term management of "
            "Parkinson's disease (PD) patients.")
    found = links(extractor, resolver, text)
    assert found["dyskinesias"][:1] == ["Side Effect::C0013384"]  # the drug-induced event
    assert found["Parkinson's disease"][:1] == ["Disease::DOID:14330"]  # was the Side Effect reading
    assert found["PD"][:1] == ["Disease::DOID:14330"]
    epilepsy = "Valproic acid-induced dementia was documented in a 21-year-old man with epilepsy."
    assert top(extractor, resolver, epilepsy, "epilepsy") == "Disease::DOID:1826"


def test_words_inside_a_protein_name_are_not_linked(extractor, resolver):
    text = ("Metformin regulates AMP-activated protein kinase, lowers tumor necrosis factor-alpha and "
            "PGC-1a, and focal adhesion kinase signaling.")
    found = links(extractor, resolver, text)
    assert found["Metformin"][:1] == ["Compound::DB00331"]
    assert found["AMP"] == []  # was APRT (a gene alias)
    assert found["tumor necrosis"] == []  # was the Side Effect "Tumour necrosis"
    assert found["PGC"] == []  # PGC-1a is PPARGC1A, not the gene PGC
    assert found["focal adhesion"] == []  # was the Pathway "Focal Adhesion"


def test_official_gene_symbol_beats_an_alias_of_another_gene(extractor, resolver):
    text = "Positively selected sites differed in five genes (C12orf43, CACNA1I, PASK, SLC8A1, and TRIM40)."
    assert top(extractor, resolver, text, "PASK") == "Gene::23178"  # PASK, was STK39 (PASK is its alias)


def test_numbered_gene_alias_and_laboratory_sentences(extractor, resolver):
    text = "The ability of PDGF/JNK-1 to induce the promoter is independent of p53."
    assert top(extractor, resolver, text, "JNK") == "Gene::5599"  # MAPK8: "JNK-1" is a gene symbol form
    elisa = "Secretion of IL-2 and IL-6 was quantified in the culture supernatants by ELISA."
    assert top(extractor, resolver, elisa, "Secretion") == "Biological Process::GO:0046903"
    assert "biomedical" not in context_cues("Memory usage of the program depends on its caching behavior.")


def test_cell_death_is_not_the_side_effect_death(extractor, resolver):
    cells = "Dopamine D2 receptor signaling controls neuronal cell death induced by muscarinic drugs."
    assert top(extractor, resolver, cells, "death") is None  # was Side Effect "Death"
    patients = "The leading causes of death were pneumonia and bronchitis."
    assert top(extractor, resolver, patients, "death") == "Side Effect::C1306577"


def test_cues():
    assert "adverse" in context_cues("Cisplatin-induced nephrotoxicity was seen.")
    assert "adverse" not in context_cues("Curcumin-induced apoptosis in cancer cells.")


def test_cues_are_case_blind_as_written():
    """The cue patterns are matched in lower case (issue 18, a third of the CPU time): every case still matches,
    and the dose unit in either micro sign (U+00B5 and the Greek mu U+03BC, which the old IGNORECASE patterns
    equated and a plain lower() does not: PMID 4636 of the shared set writes "μg") is a drug cue."""
    for dose in ("Rats received 5 \u00b5g/kg.", "Rats received 5 \u03bcg/kg.", "Rats received 5 \u039cG/kg."):
        assert "drug" in context_cues(dose), dose
    assert context_cues("WESTERN BLOT of MRNA showed SIDE EFFECTS in PATIENTS") == \
        {"gene", "adverse", "biomedical", "drug"}
    assert context_cues("The committee met on Tuesday.") == frozenset()
    # a gene or drug word anywhere in the text holds for every sentence of it
    assert context_cues("It was raised.", "Expression of the gene was measured.") == {"gene"}


# ----------------------------------------------------------------------------------- abbreviations
def test_short_form_defined_elsewhere_in_the_document(extractor, resolver):
    passages = ["We call this technique mindful memoization (MM) and apply it to caches.",
                "With MM the hit rate doubled on all workloads."]
    mentions = extractor.extract_many(passages, same_document=True)
    short = [m for m in mentions[1] if m.text == "MM"]
    assert short and short[0].long_form.endswith("memoization")  # Schwartz-Hearst keeps the shortest long form
    assert resolver.link(short[0]) == []  # was multiple myeloma


def test_answer_words_are_not_gene_aliases(extractor, resolver):
    text = "Participants answered Yes or No to each item of the questionnaire."
    assert top(extractor, resolver, text, "Yes") is None  # was YES1 (a gene alias) in a survey paper


def test_defined_abbreviation_still_links(extractor, resolver):
    text = "Alzheimer's disease (AD) is common. AD affects memory in elderly patients."
    assert top(extractor, resolver, text, "AD") == "Disease::DOID:10652"
