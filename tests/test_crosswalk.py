"""Cross-walks between a Biolink KGX graph and Hetionet (engram_kit.kg.crosswalk) on the real samples.

KGX: biolink/kgx's ``graph_nodes.tsv`` (``data/kgx/``, else the shared copy); Hetionet: the bundled node
table (all 47,031 nodes). The HGNC -> Entrez map (``gene/xrefs-human.tsv``) is only in the shared full
synonym tables, so the tests that need it skip without them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import DataError
from engram_kit.extraction.lexicon import BUNDLED_SYNONYMS_DIR, load_node_table
from engram_kit.kg.crosswalk import NAMESPACE_COLUMNS, PAIR_COLUMNS, canonical_curies, crosswalk, node_curies

REPO = Path(__file__).resolve().parents[1]
KGX_DIRS = (REPO / "data" / "kgx", REPO.parent / "shared" / "data" / "kgx")
SHARED_SYNONYMS = REPO.parent / "shared" / "data" / "synonyms"


def kgx_file(name: str) -> Path:
    for folder in KGX_DIRS:
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"KGX sample {name} is not available under {[str(d) for d in KGX_DIRS]}")


@pytest.fixture(scope="module")
def raw_kgx() -> pd.DataFrame:
    """graph_nodes.tsv as written (id = CURIE; 534 rows, 22 repeated)."""
    return pd.read_csv(kgx_file("graph_nodes.tsv"), sep="\t", dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def kgx_nodes(raw_kgx) -> pd.DataFrame:
    """The same nodes in the store's KGX shape: id = '<Label>::<CURIE>', identifier = the CURIE."""
    label = raw_kgx["category"].str.replace("biolink:", "", regex=False)
    return pd.DataFrame({"id": label + "::" + raw_kgx["id"], "kind": label, "identifier": raw_kgx["id"],
                         "name": raw_kgx["name"]})


@pytest.fixture(scope="module")
def hetionet_nodes(sample_paths) -> pd.DataFrame:
    return load_node_table(sample_paths.nodes)


@pytest.fixture(scope="module")
def gene_xrefs() -> Path:
    path = SHARED_SYNONYMS / "gene" / "xrefs-human.tsv"
    if not path.is_file():
        pytest.skip(f"{path} (HGNC -> Entrez map) is not available")
    return path


@pytest.fixture(scope="module")
def report(kgx_nodes, hetionet_nodes):
    return crosswalk(kgx_nodes, hetionet_nodes)


def pair(report, kgx_id: str) -> list[tuple[str, str, str]]:
    rows = report.pairs[report.pairs["kgx_id"] == kgx_id]
    return sorted(zip(rows["hetionet_id"], rows["hetionet_name"], rows["via"]))


def test_canonical_curies():
    values = pd.Series(["hgnc:10848", " MSH:D000006", "http://purl.obolibrary.org/obo/GO_0007224",
                        "Reactome:R-HSA-1", "no-prefix", ":x", None, "DRUGBANK:DB00331"])
    assert canonical_curies(values).tolist() == ["HGNC:10848", "MESH:D000006", "GO:0007224", "REACT:R-HSA-1",
                                                 "", "", "", "DRUGBANK:DB00331"]


def test_hetionet_identifiers_become_curies(hetionet_nodes):
    ids = ["Gene::6469", "Disease::DOID:1612", "Symptom::D000006", "Compound::DB00331", "Side Effect::C0000727",
           "Pathway::WP100_r74146", "Pathway::PC7_7786", "Biological Process::GO:0007224"]
    sample = hetionet_nodes.set_index("id").loc[ids].reset_index()
    assert node_curies(sample).tolist() == ["NCBIGENE:6469", "DOID:1612", "MESH:D000006", "DRUGBANK:DB00331",
                                            "UMLS:C0000727", "WIKIPATHWAYS:WP100", "", "GO:0007224"]


def test_shared_go_terms_and_ncbigene(report, kgx_nodes, hetionet_nodes):
    assert list(report.pairs.columns) == list(PAIR_COLUMNS)
    assert pair(report, "BiologicalProcess::GO:0007224") == [
        ("Biological Process::GO:0007224", "smoothened signaling pathway", "id")]
    assert pair(report, "Gene::NCBIGene:6469") == [("Gene::6469", "SHH", "id")]
    # without the HGNC map, HGNC genes have no partner
    assert pair(report, "Gene::HGNC:10848") == []
    # every GO id the two tables share, counted with a set intersection
    kgx_go = set(kgx_nodes.loc[kgx_nodes["identifier"].str.startswith("GO:"), "identifier"])
    shared = kgx_go & set(hetionet_nodes["identifier"])
    go = report.namespaces.set_index("namespace").loc["GO"]
    assert go["matched"] == len(shared) == 137
    assert go["kgx_nodes"] == len(kgx_go) == 159
    assert go["hetionet_kind"] == "Biological Process|Cellular Component|Molecular Function"


def test_namespace_table(report, kgx_nodes):
    table = report.namespaces.set_index("namespace")
    assert list(report.namespaces.columns) == list(NAMESPACE_COLUMNS)
    assert table["kgx_nodes"].sum() == report.kgx_nodes == kgx_nodes["id"].nunique() == 512
    assert table["share"].between(0, 1).all()
    assert table.loc["HGNC", ["kgx_nodes", "matched"]].tolist() == [164, 0]
    # Hetionet's Reactome pathways carry Pathway Commons ids only, and its UBERON terms miss these 20
    assert table.loc["REACT", "matched"] == 0 and table.loc["UBERON", "matched"] == 0
    assert report.matched_kgx == 138 and report.matched_hetionet == 138
    assert report.summary().splitlines()[0].startswith("138 of 512 KGX nodes share an identifier")
    assert "<table" in report._repr_html_()


def test_hgnc_map_links_hgnc_genes(kgx_nodes, hetionet_nodes, gene_xrefs):
    report = crosswalk(kgx_nodes, hetionet_nodes, gene_xrefs=gene_xrefs)
    assert pair(report, "Gene::HGNC:10848") == [("Gene::6469", "SHH", "hgnc-map")]
    assert pair(report, "Gene::HGNC:1069") == [("Gene::650", "BMP2", "hgnc-map")]
    # both SHH nodes of the KGX graph (HGNC and NCBIGene) meet the one Hetionet SHH
    assert sorted(report.pairs.loc[report.pairs["hetionet_id"] == "Gene::6469", "kgx_id"]) == [
        "Gene::HGNC:10848", "Gene::NCBIGene:6469"]
    table = report.namespaces.set_index("namespace")
    assert table.loc["HGNC", ["kgx_nodes", "matched", "hetionet_kind"]].tolist() == [164, 164, "Gene"]
    assert report.matched_kgx == 302 and report.matched_hetionet == 301


def test_raw_kgx_file_and_xrefs(raw_kgx, hetionet_nodes):
    """A raw KGX table (id = CURIE, no kind) works; xrefs and the disease xref table add links."""
    nodes = pd.DataFrame({
        "id": ["MONDO:0007254", "MONDO:0000001", "HP:0000001", "MONDO:0005015"],
        "name": ["breast cancer", "a MeSH-only disease", "abdominal pain", "diabetes mellitus"],
        "xrefs": ["DOID:1612|MESH:D001943|UMLS:C0006142", "MSH:D001943", "MESH:D000006|", ""],
    })
    report = crosswalk(nodes, hetionet_nodes,
                       disease_xrefs=BUNDLED_SYNONYMS_DIR / "disease" / "xrefs-slim.tsv")
    # the UMLS xref is also a SIDER side effect: one KGX node, two Hetionet partners
    assert pair(report, "MONDO:0007254") == [("Disease::DOID:1612", "breast cancer", "xref"),
                                             ("Side Effect::C0006142", "Breast cancer", "xref")]
    assert pair(report, "MONDO:0000001") == [("Disease::DOID:1612", "breast cancer", "disease-xref")]
    assert pair(report, "HP:0000001") == [("Symptom::D000006", "Abdomen, Acute", "xref")]
    assert pair(report, "MONDO:0005015") == []
    assert report.namespaces.set_index("namespace").loc["MONDO", ["kgx_nodes", "matched"]].tolist() == [3, 2]
    # the raw sample file, duplicates and all, gives the same counts as the store-shaped table
    assert crosswalk(raw_kgx, hetionet_nodes).matched_kgx == 138


def test_bad_input_is_a_data_error(kgx_nodes, hetionet_nodes, tmp_path):
    with pytest.raises(DataError, match="lacks columns"):
        crosswalk(kgx_nodes, hetionet_nodes.drop(columns="kind"))
    with pytest.raises(DataError, match="gene xref"):
        crosswalk(kgx_nodes, hetionet_nodes, gene_xrefs=pd.DataFrame({"GeneID": ["1"]}))
    with pytest.raises(DataError, match="Cannot read"):
        crosswalk(kgx_nodes, hetionet_nodes, disease_xrefs=tmp_path / "missing.tsv")
