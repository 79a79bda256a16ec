"""Lay, historical and MeSH entry-term names of Hetionet diseases (issue 34.6): they reach the Disease, in the
resolver, in `ask` and in the desk, and a name shared with a Side Effect ranks the Disease first.

The names come from ``data/synonyms/vocabulary/lay-disease-names.tsv`` (built by scripts/make_lay_names.py);
the cases below are our own, beyond the issue's "shaking palsy".
"""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.extraction import BUNDLED_SYNONYMS_DIR, EntityExtractor, Lexicon, load_node_table
from engram_kit.resolution import EntityResolver

REPO = Path(__file__).resolve().parents[1]
TABLE = BUNDLED_SYNONYMS_DIR / "vocabulary" / "lay-disease-names.tsv"

#: Names that resolved to nothing or to another node before (old top candidate in the comment).
LAY_NAMES = {
    "shaking palsy": "Disease::DOID:14330",  # was Side Effect Shakiness (tfidf 0.45)
    "falling sickness": "Disease::DOID:1826",  # was Side Effect Sickness
    "tooth decay": "Disease::DOID:216",  # was Side Effect Tooth loss
    "Hansen's disease": "Disease::DOID:1024",  # was the Pathway "Disease"
    "underactive thyroid": "Disease::DOID:1459",  # was Side Effect Hyperthyroidism: the opposite
    "hardening of the arteries": "Disease::DOID:1936",  # was nothing
    "dementia praecox": "Disease::DOID:5419",
    "gum disease": "Disease::DOID:824",  # was the gene OTULIN
    "senile dementia": "Disease::DOID:10652",  # was Side Effect Dementia
    "seizure disorder": "Disease::DOID:1826",  # was Symptom Seizures
}
#: Names that are also a Side Effect's name or synonym: the Disease first, the Side Effect kept as a reading.
SHARED_NAMES = {
    "gastric cancer": ("Disease::DOID:10534", "Side Effect::C0024623"),  # was the Side Effect only
    "lupus": ("Disease::DOID:9074", "Side Effect::C0409974"),  # was the Side Effect only
    "Tourette disorder": ("Disease::DOID:11119", "Side Effect::C0040517"),
}


@pytest.fixture(scope="module")
def resolver() -> EntityResolver:
    nodes = load_node_table(REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz")
    return EntityResolver(Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR), nodes)


@pytest.mark.parametrize(("name", "node"), sorted(LAY_NAMES.items()))
def test_lay_and_historical_names_reach_the_disease(resolver: EntityResolver, name: str, node: str) -> None:
    best = resolver.resolve(name)[0]
    assert (best.node_id, best.method, best.confidence) == (node, "alias", pytest.approx(0.9))


@pytest.mark.parametrize(("name", "nodes"), sorted(SHARED_NAMES.items()))
def test_a_name_shared_with_a_side_effect_prefers_the_disease(resolver: EntityResolver, name: str,
                                                              nodes: tuple[str, str]) -> None:
    candidates = resolver.resolve(name)
    ranked = [c.node_id for c in candidates]
    assert ranked[0] == nodes[0] and nodes[1] in ranked
    assert candidates[0].confidence > candidates[ranked.index(nodes[1])].confidence


def test_the_gazetteer_finds_lay_names_in_text(resolver: EntityResolver) -> None:
    extractor = EntityExtractor(resolver.lexicon)
    mentions = {m.text: m.candidates for m in extractor.extract(
        "Patients with shaking palsy and tooth decay were compared with Hansen's disease controls.")}
    assert "Disease::DOID:14330" in mentions["shaking palsy"]
    assert "Disease::DOID:216" in mentions["tooth decay"]
    assert "Disease::DOID:1024" in mentions["Hansen's disease"]


def test_the_table_is_what_its_script_builds_and_every_row_has_source_and_licence() -> None:
    spec = importlib.util.spec_from_file_location("make_lay_names", REPO / "scripts" / "make_lay_names.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rows, _ = script.build(BUNDLED_SYNONYMS_DIR, REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz")
    table = pd.read_csv(TABLE, sep="\t", dtype=str, keep_default_na=False)
    assert table.to_dict("records") == rows
    assert (table["source"] != "").all() and (table["licence"] != "").all() and (table["kind"] == "Disease").all()
    with TABLE.open(encoding="utf-8") as handle:
        assert next(csv.reader(handle, delimiter="\t")) == list(script.COLUMNS)
    # a MeSH citation names a descriptor Disease Ontology cross-references for that disease (checked by build)
    assert set(table.loc[table["mesh"] != "", "licence"]) == {script.MESH}


@pytest.mark.parametrize(("question", "node"), [
    ("Which genes are associated with shaking palsy?", "Disease::DOID:14330"),
    ("Which genes are associated with Hansen's disease?", "Disease::DOID:1024"),
    ("What drugs are used for gastric cancer?", "Disease::DOID:10534"),
])
def test_ask_and_the_desk_seed_the_disease(workspace, question: str, node: str) -> None:
    asked = workspace.ask(question, top_k=3)
    assert asked.retrieval.entities[0].node_id == node
    desk = workspace.run_desk(question)
    assert desk.entities[0].node_id == node
    assert all(a.parameters.get("id") == node for a in desk.artifacts if "id" in a.parameters)
