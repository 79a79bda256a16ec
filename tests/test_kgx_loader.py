"""Biolink KGX loading on the real samples copied from biolink/kgx (``data/kgx``), offline.

Expected counts are computed here from the raw files with the ``csv`` module, independently of the
loader's pandas code path. Malformed, negated, gzip and JSON Lines inputs are small files written into
``tmp_path`` from real sample rows.
"""

from __future__ import annotations

import csv
import gzip
import json
import socket
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import DataError
from engram_kit.kg import KnowledgeGraph, LoadReport
from engram_kit.kg import biolink
from engram_kit.kg.kgx import KGX_EDGE_COLUMNS, KGX_NODE_COLUMNS, KGXLoadReport, load_kgx
from engram_kit.kg.schema import GraphSchema

KGX = Path(__file__).resolve().parents[1] / "data" / "kgx"
GRAPH_NODES = KGX / "graph_nodes.tsv"
GRAPH_EDGES = KGX / "graph_edges.tsv"
MONARCH_EDGES = KGX / "monarch-tiny_edges.tsv"
CHEBI_NODES = KGX / "chebi_kgx_tsv_nodes.tsv"
CHEBI_EDGES = KGX / "chebi_kgx_tsv_edges.tsv"

#: KGX fields that are lists in KGX JSON Lines (``|``-joined in TSV).
MULTIVALUED = {"category", "synonym", "xref", "has_db_xref", "provided_by", "publications",
               "aggregator_knowledge_source", "qualifiers"}


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a KGX TSV with the csv module (short rows padded with "")."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        rows = [dict(zip(header, row + [""] * (len(header) - len(row)), strict=True)) for row in reader if row]
    return header, rows


def write_tsv(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    path.write_text("\n".join(["\t".join(header)] + ["\t".join(r.get(c, "") for c in header) for r in rows])
                    + "\n", encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    """KGX JSON Lines as KGX writes it: multi-valued fields as lists, empty fields left out."""
    def record(row: dict[str, str]) -> dict[str, object]:
        return {k: (v.split("|") if k in MULTIVALUED else v) for k, v in row.items() if v}

    path.write_text("".join(json.dumps(record(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return load_kgx(GRAPH_NODES, GRAPH_EDGES, name="kgx-test-graph", version="02b5f979", progress=False)


@pytest.fixture(scope="module")
def monarch() -> KnowledgeGraph:
    return load_kgx(None, MONARCH_EDGES, missing_nodes="stub", progress=False)


# ------------------------------------------------------------------------------------------------
# The SHH / holoprosencephaly graph
# ------------------------------------------------------------------------------------------------
def test_graph_counts_match_the_raw_files(graph):
    _, node_rows = read_rows(GRAPH_NODES)
    _, edge_rows = read_rows(GRAPH_EDGES)
    unique_ids = {r["id"] for r in node_rows}
    unique_edges = {tuple(r.values()) for r in edge_rows}
    # The sample repeats 22 node rows and 8 edge rows verbatim: they are merged, not loaded twice.
    assert (len(node_rows), len(unique_ids), len(edge_rows), len(unique_edges)) == (534, 512, 539, 531)
    assert graph.n_nodes == len(unique_ids)
    assert graph.n_edges == len(unique_edges)
    assert graph.report.n_duplicate_nodes == len(node_rows) - len(unique_ids)
    assert graph.report.n_duplicate_edges == len(edge_rows) - len(unique_edges)
    assert graph.report.n_skipped == 0
    assert (graph.name, graph.version) == ("kgx-test-graph", "02b5f979")


def test_graph_nodes_keep_curies_and_label_by_category(graph):
    nodes = graph.nodes
    assert list(nodes.columns) == list(KGX_NODE_COLUMNS)
    assert nodes["id"].is_unique
    assert {"Gene", "Disease", "PhenotypicFeature"} <= set(nodes["kind"])
    shh = nodes.set_index("identifier").loc["HGNC:10848"]
    assert (shh["id"], shh["kind"], shh["name"]) == ("Gene::HGNC:10848", "Gene", "SHH (human)")
    assert (shh["category"], shh["in_taxon"]) == ("biolink:Gene", "NCBITaxon:9606")  # from the `taxon` column
    assert (nodes["id"] == nodes["kind"] + "::" + nodes["identifier"]).all()
    assert nodes.set_index("identifier").loc["MONDO:0010011", "id"] == "Disease::MONDO:0010011"
    assert all(isinstance(v, str) for v in nodes.to_numpy().ravel())
    assert graph.report.nodes_per_kind["Gene"] == 178


def test_graph_edges_and_schema(graph):
    edges, schema = graph.edges, graph.schema
    assert list(edges.columns) == list(KGX_EDGE_COLUMNS)
    assert set(edges["source"]) | set(edges["target"]) <= set(graph.nodes["id"])
    assert edges["edge_id"].is_unique
    assert edges["negated"].map(type).eq(bool).all() and not edges["negated"].any()
    first = edges.iloc[0]
    assert (first["source"], first["rel_type"], first["target"]) == (
        "Gene::HGNC:10848", "INTERACTS_WITH", "Gene::NCBIGene:6469")
    assert first["aggregator_knowledge_source"] == "string|biogrid"
    assert json.loads(first["properties"]) == {"relation": "RO:0002434"}  # unknown column kept
    assert (first["knowledge_level"], first["agent_type"]) == ("not_provided", "manual_agent")

    assert isinstance(schema, GraphSchema) and schema.name == "kgx" and schema.negation_property == "negated"
    has_phenotype = schema.rel_spec("HAS_PHENOTYPE")
    assert has_phenotype.predicate == "biolink:has_phenotype" and has_phenotype.directed
    assert {("Gene", "PhenotypicFeature"), ("Disease", "PhenotypicFeature")} <= set(has_phenotype.pairs)
    assert schema.rel_spec("biolink:interacts_with").directed is False  # symmetric in Biolink
    assert sum(spec.count for spec in schema.rel_specs) == graph.n_edges
    assert set(schema.labels) == set(graph.nodes["kind"])
    assert GraphSchema.from_dict(json.loads(json.dumps(schema.to_dict()))) == schema


def test_graph_has_gene_disease_phenotype_path(graph):
    edges = graph.edges
    gene_disease = edges[edges["source"].str.startswith("Gene::") & edges["target"].str.startswith("Disease::")]
    disease_phenotype = edges[(edges["rel_type"] == "HAS_PHENOTYPE") & edges["source"].str.startswith("Disease::")]
    paths = gene_disease.merge(disease_phenotype, left_on="target", right_on="source")
    assert len(paths)
    assert ("Gene::HGNC:10848", "Disease::MONDO:0010011") in set(zip(paths["source_x"], paths["target_x"],
                                                                      strict=True))


def test_report_is_a_load_report(graph):
    report = graph.report
    assert isinstance(report, KGXLoadReport) and isinstance(report, LoadReport)
    assert list(report.to_frame().columns) == ["file", "table", "line", "reason"]
    assert report.biolink_model_version == "4.4.6"
    assert report.edge_format == report.node_format == "tsv"
    assert report.unknown_columns == {"nodes": (), "edges": ("relation",)}
    summary = report.summary().set_index("rel_type")
    assert list(summary.columns) == ["predicate", "directed", "pairs", "edges", "negated",
                                     "primary_knowledge_sources"]
    assert summary.loc["HAS_PHENOTYPE", "edges"] == report.edges_per_predicate["biolink:has_phenotype"] == 124
    assert summary["edges"].sum() == graph.n_edges
    assert report.unknown_categories == {} and report.unknown_predicates == {}


# ------------------------------------------------------------------------------------------------
# Monarch gene-to-phenotype slice (edges only)
# ------------------------------------------------------------------------------------------------
def test_monarch_stubs_are_inferred_from_the_association(monarch):
    _, rows = read_rows(MONARCH_EDGES)
    assert monarch.n_edges == len(rows) == 500
    nodes = monarch.nodes.set_index("identifier")
    subjects, objects = {r["subject"] for r in rows}, {r["object"] for r in rows}
    assert set(nodes.index) == subjects | objects
    assert set(nodes.loc[sorted(subjects), "kind"]) == {"Gene"}
    assert set(nodes.loc[sorted(objects), "kind"]) == {"PhenotypicFeature"}
    assert nodes.loc["PomBase:SPAC6G9.11", "name"] == "PomBase:SPAC6G9.11"
    assert json.loads(nodes.loc["FYPO:0002150", "properties"]) == {"stub": "true"}
    assert monarch.report.n_stubs == len(subjects) + len(objects)
    assert monarch.report.stubs_per_label == {"Gene": len(subjects), "PhenotypicFeature": len(objects)}
    assert monarch.schema.rel_spec("HAS_PHENOTYPE").pairs == (("Gene", "PhenotypicFeature"),)


def test_monarch_edge_properties(monarch):
    edges = monarch.edges
    first = edges.iloc[0]
    assert first["edge_id"] == "uuid:7739dc2c-45f8-11ed-b722-f133c15addd7"
    assert (first["source"], first["target"]) == ("Gene::PomBase:SPAC6G9.11", "PhenotypicFeature::FYPO:0002150")
    assert first["publications"] == "PMID:12565827"
    assert first["primary_knowledge_source"] == "infores:pombase"
    assert first["aggregator_knowledge_source"] == "infores:monarchinitiative"
    assert first["category"] == "biolink:GeneToPhenotypicFeatureAssociation"
    assert json.loads(first["properties"]) == {"provided_by": "pombase_gene_to_phenotype_edges"}
    assert json.loads(edges.iloc[1]["qualifiers"]) == {"qualifiers": ["FYECO:0000005", "FYECO:0000137"]}
    _, rows = read_rows(MONARCH_EDGES)
    with_list = [r["qualifiers"].split("|") for r in rows if r["qualifiers"]]
    parsed = [json.loads(q)["qualifiers"] for q in edges["qualifiers"] if q]
    assert parsed == with_list
    assert set(edges["primary_knowledge_source"]) == {"infores:pombase"}
    summary = monarch.report.summary()
    assert summary.loc[0, "primary_knowledge_sources"] == "infores:pombase"


def test_monarch_without_nodes_counts_missing_endpoints():
    with pytest.raises(DataError, match=r"monarch-tiny_edges\.tsv, line 2: subject 'PomBase:SPAC6G9\.11' is not "
                                        r"in any nodes file.*missing_nodes='stub'"):
        load_kgx(None, MONARCH_EDGES, progress=False)
    kg = load_kgx(None, MONARCH_EDGES, errors="skip", progress=False)
    assert kg.n_edges == 0 and kg.report.n_skipped == 500
    assert kg.report.skipped["line"].tolist() == list(range(2, 502))


# ------------------------------------------------------------------------------------------------
# ChEBI: synonyms, descriptions, unknown columns, legacy knowledge_source
# ------------------------------------------------------------------------------------------------
def test_chebi_keeps_synonyms_and_unknown_columns():
    kg = load_kgx(CHEBI_NODES, CHEBI_EDGES, missing_nodes="stub", progress=False)
    node = kg.nodes.set_index("identifier").loc["CHEBI:101257"]
    assert node["synonyms"].split("|") == [
        "N-[4-{[(1H-imidazol-4-yl)methyl]amino}-2-(naphthalen-1-yl)benzoyl]-L-leucine", "GGTI 2133 free base"]
    assert node["description"].startswith("An N-acyl-L-amino acid")
    assert node["xrefs"].split("|")[:2] == ["PMID:25882623", "Reaxys:25113814"]  # from has_db_xref
    assert node["provided_by"] == "chebiasc66dwf"
    properties = json.loads(node["properties"])
    assert properties[":http://purl.obolibrary.org/obo/chebi/formula"] == "C27H28N4O3"
    assert properties["type"] == "owl:Class"
    assert "" not in properties.values()
    assert ":http://purl.obolibrary.org/obo/chebi/formula" in kg.report.unknown_columns["nodes"]
    edges = kg.edges
    assert set(edges["primary_knowledge_source"]) == {"chebiasc66dwf"}  # legacy `knowledge_source` column
    attribute = edges.set_index("edge_id").loc["urn:uuid:6c0781c9-a64a-4750-be57-5c352a3b93fd"]
    assert json.loads(attribute["properties"]) == {"logical_interpretation": "owlstar:AllSomeInterpretation",
                                                   "relation": "RO:0000087"}
    # biolink:has_attribute is a node property in Biolink 4, not a predicate: kept, counted, directed.
    assert kg.report.unknown_predicates == {"biolink:has_attribute": 1}
    assert kg.schema.rel_spec("HAS_ATTRIBUTE").directed


# ------------------------------------------------------------------------------------------------
# Negation and qualifiers
# ------------------------------------------------------------------------------------------------
def test_negated_edge_and_frequency_qualifier(tmp_path):
    header, rows = read_rows(MONARCH_EDGES)
    rows = [dict(r) for r in rows[:5]]
    rows[2]["negated"] = "True"
    rows[2]["frequency_qualifier"] = "HP:0040283"
    rows[3]["negated"] = "false"
    kg = load_kgx(None, write_tsv(tmp_path / "edges.tsv", header, rows), missing_nodes="stub", progress=False)
    assert kg.edges["negated"].tolist() == [False, False, True, False, False]
    qualifiers = json.loads(kg.edges.iloc[2]["qualifiers"])
    assert qualifiers["frequency_qualifier"] == "HP:0040283"
    assert qualifiers["qualifiers"] == rows[2]["qualifiers"].split("|")
    assert kg.report.n_negated == 1
    assert kg.report.summary().loc[0, "negated"] == 1


# ------------------------------------------------------------------------------------------------
# Malformed input
# ------------------------------------------------------------------------------------------------
def malformed_edges(tmp_path: Path) -> Path:
    header, rows = read_rows(MONARCH_EDGES)
    rows = [dict(r) for r in rows[:6]]
    rows[1]["subject"] = ""                      # line 3
    rows[3]["negated"] = "maybe"                 # line 5
    rows[4]["predicate"] = "has phenotype"       # line 6
    path = write_tsv(tmp_path / "edges.tsv", header, rows)
    with open(path, "a", encoding="utf-8") as handle:  # line 8: one field too many
        handle.write("\t".join(rows[0][c] for c in header) + "\textra\n")
    return path


def test_malformed_rows_raise_with_file_and_line(tmp_path):
    path = malformed_edges(tmp_path)
    with pytest.raises(DataError, match=r"edges\.tsv, line 3: subject is empty\. Fix: every KGX edge needs "
                                        r"subject, predicate and object CURIEs.*3 more problem line"):
        load_kgx(None, path, missing_nodes="stub", progress=False)


def test_malformed_rows_skipped_and_counted(tmp_path):
    kg = load_kgx(None, malformed_edges(tmp_path), errors="skip", missing_nodes="stub", progress=False)
    skipped = kg.report.to_frame()
    assert skipped["line"].tolist() == [3, 5, 6, 8]
    reasons = skipped["reason"].tolist()
    assert reasons[0] == "subject is empty"
    assert reasons[1] == "negated value 'maybe' is not a boolean"
    assert reasons[2] == "predicate 'has phenotype' is not a CURIE (prefix:local)"
    assert reasons[3].startswith("malformed row: 21 tab-separated fields but the header has 20")
    assert set(skipped["table"]) == {"edges"} and kg.n_edges == 3


def test_missing_required_columns_are_listed(tmp_path):
    path = tmp_path / "edges.tsv"
    path.write_text("id\tsubj\tpredicate\nx:1\tHGNC:1\tbiolink:related_to\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"lacks required column\(s\) \['subject', 'object'\]"):
        load_kgx(None, path, progress=False)
    nodes = tmp_path / "nodes.tsv"
    nodes.write_text("name\tcategory\nSHH\tbiolink:Gene\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"nodes\.tsv, line 1: the KGX nodes header lacks required column\(s\) "
                                        r"\['id'\]"):
        load_kgx(nodes, GRAPH_EDGES, progress=False)


def test_bad_node_id_and_missing_node_file_endpoint(tmp_path):
    header, rows = read_rows(GRAPH_NODES)
    rows[4]["id"] = "not a curie"
    nodes = write_tsv(tmp_path / "nodes.tsv", header, rows)
    with pytest.raises(DataError, match=r"nodes\.tsv, line 6: id 'not a curie' is not a CURIE"):
        load_kgx(nodes, GRAPH_EDGES, progress=False)
    kg = load_kgx(nodes, GRAPH_EDGES, errors="skip", progress=False)
    skipped = kg.report.to_frame()
    assert skipped.iloc[0][["table", "line"]].tolist() == ["nodes", 6]
    dropped = read_rows(GRAPH_NODES)[1][4]["id"]  # its edges now point at a node that is not loaded
    distinct_edges = {tuple(r.values()): r for r in read_rows(GRAPH_EDGES)[1]}.values()
    n_dangling = sum(dropped in (r["subject"], r["object"]) for r in distinct_edges)
    assert n_dangling and (skipped["table"] == "edges").sum() == n_dangling
    assert skipped["reason"].str.contains(f"'{dropped}' is not in the nodes file nodes.tsv").iloc[1:].all()


def test_repeated_edge_id_with_other_content_is_an_error(tmp_path):
    header, rows = read_rows(MONARCH_EDGES)
    rows = [dict(r) for r in rows[:3]] + [dict(rows[0])]  # line 5 repeats line 2 exactly: merged
    rows.append(dict(rows[1], publications="PMID:1"))     # line 6 reuses line 3's id with other content
    path = write_tsv(tmp_path / "edges.tsv", header, rows)
    with pytest.raises(DataError, match=r"line 6: edge id 'uuid:7739dc2d-45f8-11ed-b722-f133c15addd7' repeats "
                                        r"line 3 with different content"):
        load_kgx(None, path, missing_nodes="stub", progress=False)
    kg = load_kgx(None, path, errors="skip", missing_nodes="stub", progress=False)
    assert kg.n_edges == 3 and kg.report.n_duplicate_edges == 1 and kg.report.n_skipped == 1


# ------------------------------------------------------------------------------------------------
# Formats: gzip and JSON Lines read the same graph
# ------------------------------------------------------------------------------------------------
def test_gzip_and_jsonl_read_the_same_graph(tmp_path, graph):
    nodes_gz, edges_gz = tmp_path / "nodes.tsv.gz", tmp_path / "edges.tsv.gz"
    nodes_gz.write_bytes(gzip.compress(GRAPH_NODES.read_bytes()))
    edges_gz.write_bytes(gzip.compress(GRAPH_EDGES.read_bytes()))
    from_gz = load_kgx(nodes_gz, edges_gz, progress=False)
    pd.testing.assert_frame_equal(from_gz.nodes, graph.nodes)
    pd.testing.assert_frame_equal(from_gz.edges, graph.edges)

    crlf = tmp_path / "edges_crlf.tsv"  # Windows line ends and a blank line read the same
    crlf.write_bytes(GRAPH_EDGES.read_bytes().replace(b"\n", b"\r\n").replace(b"\r\n", b"\r\n\r\n", 1))
    pd.testing.assert_frame_equal(load_kgx(GRAPH_NODES, crlf, progress=False).edges, graph.edges)

    nodes_jsonl = write_jsonl(tmp_path / "nodes.jsonl", read_rows(GRAPH_NODES)[1])
    edges_jsonl = tmp_path / "edges.jsonl.gz"  # gzip detected from the bytes, JSON Lines from the name
    plain_jsonl = write_jsonl(tmp_path / "e.jsonl", read_rows(GRAPH_EDGES)[1])
    edges_jsonl.write_bytes(gzip.compress(plain_jsonl.read_bytes()))
    from_jsonl = load_kgx(nodes_jsonl, edges_jsonl, progress=False)
    assert (from_jsonl.report.node_format, from_jsonl.report.edge_format) == ("jsonl", "jsonl")
    pd.testing.assert_frame_equal(from_jsonl.nodes, graph.nodes)
    pd.testing.assert_frame_equal(from_jsonl.edges, graph.edges)
    assert from_jsonl.schema == graph.schema


def test_jsonl_monarch_with_negation_and_bad_line(tmp_path, monarch):
    rows = read_rows(MONARCH_EDGES)[1]
    path = write_jsonl(tmp_path / "edges.jsonl", rows)
    kg = load_kgx(None, path, missing_nodes="stub", progress=False)
    pd.testing.assert_frame_equal(kg.edges, monarch.edges)
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[0]) | {"negated": True}
    path.write_text(json.dumps(record) + "\n[1, 2]\n{not json\n", encoding="utf-8")
    kg = load_kgx(None, path, errors="skip", missing_nodes="stub", progress=False)
    assert kg.edges["negated"].tolist() == [True]
    assert kg.report.to_frame()["line"].tolist() == [2, 3]


# ------------------------------------------------------------------------------------------------
# Categories, predicates and the Biolink helpers
# ------------------------------------------------------------------------------------------------
def test_multiple_and_unknown_categories(tmp_path):
    nodes = tmp_path / "nodes.tsv"
    nodes.write_text(
        "id\tname\tcategory\n"
        "HGNC:10848\tSHH\tbiolink:NamedThing|biolink:Gene\n"
        "MONDO:0010011\tschizencephaly\tbiolink:Disease\n"
        "MONDO:0010011\t\tbiolink:DiseaseOrPhenotypicFeature|biolink:Disease\n"  # merged into line 3
        "EX:1\tthing\tex:Widget-Type\n"
        "EX:2\tbare\t\n", encoding="utf-8")
    edges = tmp_path / "edges.tsv"
    edges.write_text("subject\tpredicate\tobject\n"
                     "HGNC:10848\tbiolink:positivelyRegulates\tEX:1\n"  # not a Biolink predicate
                     "HGNC:10848\tex:regulates-positively\tMONDO:0010011\n", encoding="utf-8")
    kg = load_kgx(nodes, edges, progress=False)
    by_curie = kg.nodes.set_index("identifier")
    assert by_curie.loc["HGNC:10848", ["kind", "category", "categories"]].tolist() == [
        "Gene", "biolink:Gene", "biolink:NamedThing|biolink:Gene"]
    assert by_curie.loc["MONDO:0010011", ["name", "categories"]].tolist() == [
        "schizencephaly", "biolink:Disease|biolink:DiseaseOrPhenotypicFeature"]
    assert by_curie.loc["EX:1", "kind"] == "ex_Widget_Type"
    assert by_curie.loc["EX:2", "category"] == "biolink:NamedThing"
    report = kg.report
    assert (report.n_duplicate_nodes, report.n_nodes_without_category) == (1, 1)
    assert report.unknown_categories == {"ex:Widget-Type": 1}
    assert report.unknown_predicates == {"biolink:positivelyRegulates": 1, "ex:regulates-positively": 1}
    assert set(kg.schema.rel_types) == {"POSITIVELY_REGULATES", "EX_REGULATES_POSITIVELY"}
    assert all(spec.directed for spec in kg.schema.rel_specs)


def test_biolink_helpers():
    assert biolink.most_specific_category(["biolink:NamedThing", "biolink:Gene"]) == "biolink:Gene"
    assert biolink.most_specific_category(["biolink:BiologicalEntity", "biolink:Gene", "biolink:NamedThing"]) \
        == "biolink:Gene"
    assert biolink.most_specific_category([]) == biolink.NAMED_THING
    assert biolink.most_specific_category(["ex:A", "ex:B"]) == "ex:A"
    assert biolink.predicate_rel_type("biolink:has_phenotype") == "HAS_PHENOTYPE"
    assert biolink.predicate_rel_type("RO:0002434") == "RO_0002434"
    assert biolink.predicate_rel_type("biolink:3d_thing") == "R_3D_THING"
    assert biolink.category_label("biolink:PhenotypicFeature") == "PhenotypicFeature"
    assert biolink.is_symmetric_predicate("biolink:interacts_with")
    assert not biolink.is_symmetric_predicate("biolink:has_phenotype")
    assert not biolink.is_known_category("biolink:gene")  # aliases/case variants are not the model's CURIE
    association = "biolink:GeneToPhenotypicFeatureAssociation"
    assert biolink.association_range(association, "subject") == "biolink:GeneOrGeneProduct"
    assert biolink.infer_endpoint_category("PomBase:SPAC6G9.11", association, "subject") == "biolink:Gene"
    assert biolink.infer_endpoint_category("FYPO:0002150", association, "object") == "biolink:PhenotypicFeature"
    assert biolink.infer_endpoint_category("FOO:1", "", "subject") == biolink.NAMED_THING
    assert biolink.is_curie("urn:uuid:6c0781c9") and not biolink.is_curie("HGNC 1884")


def test_toolkit_loads_offline(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    biolink.biolink_toolkit.cache_clear()
    assert biolink.biolink_model_version() == "4.4.6"
    assert biolink.biolink_toolkit().is_predicate("biolink:has_phenotype")
