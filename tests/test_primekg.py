"""PrimeKG as a third graph format (issue 33): one module (engram_kit/kg/primekg.py) and one registration line.

The sample is the bundled Hetionet rows converted to PrimeKG's columns, types and relations
(data/primekg/convert_hetionet_sample.py; not PrimeKG data). End to end: ``engram init --graph primekg``, ingest of a
few bundled abstracts, ask, the evidence desk and an agent run.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from engram_kit import plugins
from engram_kit.agents import Investigator
from engram_kit.cli import main
from engram_kit.errors import DataError
from engram_kit.kg.formats import get_format
from engram_kit.kg.primekg import (
    PRIMEKG_PROFILE,
    PRIMEKG_SCHEMA,
    NEGATED_RELATIONS,
    RELATIONS,
    SAMPLE_PATH,
    download_primekg,
    load_primekg,
)
from engram_kit.settings import Settings
from engram_kit.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
ABSTRACTS = REPO / "data" / "pubmed" / "abstracts-sample.jsonl.gz"
ALZHEIMERS = "Disease::DOID:10652"
METFORMIN = "Drug::DrugBank:DB00331"


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    """The bundled kg.csv read with pandas alone (independent of the loader)."""
    return pd.read_csv(SAMPLE_PATH, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def primekg_ws(tmp_path_factory):
    """``engram init --graph primekg`` on the bundled sample, plus the bundled abstracts naming Alzheimer's disease
    or metformin (44 records), ingested in one process."""
    path = tmp_path_factory.mktemp("primekg") / "ws"
    assert main(["init", "-w", str(path), "--graph", "primekg", "--embedder", "static"]) == 0
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    few = [r for r in records if "alzheimer" in (r["title"] + r["abstract"]).lower()
           or "metformin" in (r["title"] + r["abstract"]).lower()][:44]
    abstracts = path.parent / "few.jsonl"
    abstracts.write_text("".join(json.dumps(r) + "\n" for r in few), encoding="utf-8")
    assert main(["ingest", str(abstracts), "-w", str(path), "--workers", "1"]) == 0
    ws = Workspace.open(path)
    yield ws
    ws.close()


def test_the_format_is_one_lazy_registration_with_its_profile():
    assert "primekg" in plugins.formats.names() and plugins.formats.describe("primekg") == "PrimeKG (its kg.csv)"
    fmt = get_format("primekg")
    assert fmt.profile is PRIMEKG_PROFILE and fmt.schema is PRIMEKG_SCHEMA and PRIMEKG_SCHEMA.profile is PRIMEKG_PROFILE
    assert len(PRIMEKG_SCHEMA.labels) == 10 and len(PRIMEKG_SCHEMA.rel_types) == len(RELATIONS) == 30
    assert PRIMEKG_SCHEMA.rel_spec("off-label use").rel_type == "OFF_LABEL_USE"  # by PrimeKG's name too
    # no module outside the plugin (and its registration line) names PrimeKG
    found = subprocess.run(["git", "grep", "-il", "primekg", "--", "engram_kit"], capture_output=True, text=True,
                           cwd=REPO).stdout.split()
    assert sorted(found) == ["engram_kit/kg/primekg.py", "engram_kit/plugins.py"]


def test_loader_merges_the_two_listings_of_each_edge(sample):
    kg = load_primekg(SAMPLE_PATH, progress=False)
    assert kg.report.n_skipped == 0 and kg.n_edges * 2 == len(sample) and kg.report.n_reverse_rows == kg.n_edges
    ends = pd.concat([sample[["x_type", "x_source", "x_id"]].set_axis(["t", "s", "i"], axis=1),
                      sample[["y_type", "y_source", "y_id"]].set_axis(["t", "s", "i"], axis=1)]).drop_duplicates()
    assert kg.n_nodes == len(ends) == 2527
    indication = kg.edges[kg.edges["rel_type"] == "INDICATION"]
    assert indication["source"].str.startswith("Drug::").all() and indication["target"].str.startswith("Disease::").all()
    metformin = kg.nodes.set_index("id").loc[METFORMIN]
    assert (metformin["name"], metformin["node_type"], metformin["kind"]) == ("Metformin", "drug", "Drug")
    assert not kg.edges["predicate"].isin(list(NEGATED_RELATIONS)).any()  # the sample has no absence relation
    assert PRIMEKG_SCHEMA.rel_spec("disease_phenotype_negative").rel_type == "DISEASE_PHENOTYPE_NEGATIVE"


def test_loader_names_the_row_and_the_fix(tmp_path):
    rows = SAMPLE_PATH.read_bytes()
    text = gzip.decompress(rows).decode().splitlines()
    bad = text[:3] + ["treats" + text[3][text[3].index(","):]]
    (tmp_path / "kg.csv").write_text("\n".join(bad) + "\n")
    with pytest.raises(DataError, match=r"kg.csv, line 4: unknown PrimeKG relation 'treats'"):
        load_primekg(tmp_path / "kg.csv")
    (tmp_path / "bad.csv").write_text("relation,x_id\nindication,1\n")
    with pytest.raises(DataError, match="lacks PrimeKG column"):
        load_primekg(tmp_path / "bad.csv")


def test_download_is_never_implicit_and_reports_a_failure(tmp_path):
    from engram_kit.errors import DownloadError

    with pytest.raises(DownloadError, match="Fix: .*load_primekg"):
        download_primekg(tmp_path, url="http://127.0.0.1:9/kg.csv", timeout=2, progress=False)
    assert not list(tmp_path.iterdir())  # the partial file was removed


def test_init_records_the_format(primekg_ws):
    kg = primekg_ws.manifest["knowledge_graph"]
    assert (kg["format"], kg["schema"], kg["n_edges"], kg["n_nodes"]) == ("primekg", "primekg", 5647, 2527)
    assert kg["name"] == "PrimeKG sample (converted from Hetionet)"
    assert primekg_ws.store.schema.profile is PRIMEKG_PROFILE


def test_ask_answers_from_indication_edges(primekg_ws, sample):
    answer = primekg_ws.ask("Which drugs treat Alzheimer's disease?")
    expected = set(sample.loc[(sample.relation == "indication") & (sample.x_id == "10652") & (sample.x_source == "DOID"),
                              "y_name"])
    assert {"Donepezil", "Galantamine", "Memantine", "Rivastigmine"} <= expected
    cited = [c for claim in answer.claims for c in claim.citations if c.kind == "edge"]
    assert cited and all(c.label == "PrimeKG INDICATION" and c.ref.endswith(f"-[INDICATION]-> {ALZHEIMERS}")
                         for c in cited)
    named = " ".join(claim.text for claim in answer.claims)
    assert sum(drug in named for drug in expected) >= 3
    assert answer.retrieval.graph == "primekg" and answer.retrieval.passages  # the ingested abstracts are searched


def test_desk_answers_offline_from_the_schema(primekg_ws, sample):
    desk = primekg_ws.evidence_desk()
    assert desk.search("DrugBank:DB00331")[0].node_id == METFORMIN
    result = desk.investigate("Which proteins does metformin target?")
    assert result.outcome == "supported" and result.template == "intent:Drug -> [DRUG_PROTEIN] GeneProtein"
    listing, count = result.artifacts
    rows = [listing.row(r) for r in listing.row_ids]
    targets = set(sample.loc[(sample.relation == "drug_protein") & (sample.x_name == "Metformin"), "y_name"])
    assert count.row(count.row_ids[0])["n"] == len(targets) > 10  # counted in the graph: every stored target
    assert len(rows) == 10 and {r["target"] for r in rows} <= targets  # listed up to the desk's limit
    assert all(r["anchor"] == "Metformin" and r["target_id"].startswith("GeneProtein::") for r in rows)
    listed = [c for c in result.claims if c.text.startswith("Metformin drug protein ")]
    assert len(listed) == 10 and result.headline.endswith("(top 10 of 56).")


def test_an_agent_run_works_and_hetionet_agents_say_they_do_not_apply(primekg_ws):
    result = Investigator(primekg_ws).run("Which drugs treat Alzheimer's disease?")
    assert not result.errors and result.routing.agents == ["literature", "phenotype", "synthesis"] or \
        result.routing.agents == ["literature", "synthesis"]
    assert result.routing.route("drug").reasons[0].startswith("not applicable to a PrimeKG")
    assert result.synthesis is not None and result.synthesis.text
    assert not result.claims_frame()["label"].str.startswith("Hetionet").any()  # no Hetionet citation wording


def test_workspace_create_by_format_name(tmp_path):
    ws = Workspace.create(tmp_path / "ws", graph="primekg", settings=Settings(embedding_model="static", progress=False))
    try:
        assert ws.manifest["knowledge_graph"]["format"] == "primekg" and ws.store.counts()["Drug"] == 552
    finally:
        ws.close()
