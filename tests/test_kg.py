"""Knowledge-graph loading: counts on the bundled sample, property parsing, validation, download.

Expected counts are computed here from the raw files with ``gzip`` + ``csv``, independently of the
loader's pandas code path. Malformed inputs are small files written into ``tmp_path``; downloads run
against a local ``http.server`` on 127.0.0.1 serving ``tests/fixtures/kg_*`` files.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import http.server
import json
import logging
import re
import shutil
import threading
from collections import Counter
from functools import partial
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.datasets import bundled_data_dir
from engram_kit.errors import DataError, DownloadError
from engram_kit.kg import (
    KGEdge,
    KGNode,
    KnowledgeGraph,
    download_hetionet,
    file_sha256,
    is_gzip_file,
    load_hetionet,
)
from engram_kit.kg.schema import METAEDGES
from engram_kit.store.base import EDGE_COLUMNS, NODE_COLUMNS

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MINI_NODES = FIXTURES / "kg_mini_nodes.tsv"
MINI_EDGES_SIF = FIXTURES / "kg_mini_edges.sif.gz"

NODES_HEADER = "id\tname\tkind\n"
EDGES_HEADER = "source\tmetaedge\ttarget\tproperties\n"
GOOD_NODES = (
    NODES_HEADER
    + "Gene::7157\tTP53\tGene\n"
    + "Gene::23621\tBACE1\tGene\n"
    + "Compound::DB00331\tMetformin\tCompound\n"
    + "Disease::DOID:10652\tAlzheimer's disease\tDisease\n"
)


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
def _sample_files() -> tuple[Path, Path]:
    folder = bundled_data_dir() / "hetionet"
    return folder / "hetionet-v1.0-nodes.tsv.gz", folder / "hetionet-v1.0-edges-sample.tsv.gz"


def _raw_rows(path: Path) -> list[dict[str, str]]:
    """Rows of a gzip TSV read with the standard library only."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sample_kg() -> KnowledgeGraph:
    nodes, edges = _sample_files()
    return load_hetionet(nodes, edges, progress=False)


@pytest.fixture
def good_nodes(tmp_path: Path) -> Path:
    return _write(tmp_path / "nodes.tsv", GOOD_NODES)


# ------------------------------------------------------------------------------------------------
# bundled sample: counts and properties
# ------------------------------------------------------------------------------------------------
def test_sample_counts_match_raw_files(sample_kg: KnowledgeGraph) -> None:
    nodes_path, edges_path = _sample_files()
    raw_nodes = _raw_rows(nodes_path)
    raw_edges = _raw_rows(edges_path)
    # the nodes file has CRLF line ends: csv keeps them out of the fields with newline=""
    assert sample_kg.n_nodes == len(raw_nodes) == 47_031
    assert sample_kg.n_edges == len(raw_edges)
    assert sample_kg.report.nodes_per_kind == dict(Counter(r["kind"] for r in raw_nodes))
    assert sample_kg.report.edges_per_metaedge == dict(Counter(r["metaedge"] for r in raw_edges))
    assert sample_kg.report.n_skipped == 0
    assert list(sample_kg.nodes.columns) == list(NODE_COLUMNS)
    assert list(sample_kg.edges.columns) == list(EDGE_COLUMNS)
    node_ids = set(sample_kg.nodes["id"])
    assert set(sample_kg.edges["source"]) <= node_ids and set(sample_kg.edges["target"]) <= node_ids


def test_summary_has_every_metaedge_with_official_counts(sample_kg: KnowledgeGraph) -> None:
    summary = sample_kg.report.summary()
    assert list(summary["metaedge"]) == [m.abbreviation for m in METAEDGES]
    ctd = summary.set_index("metaedge").loc["CtD"]
    assert ctd["official"] == 755
    assert ctd["loaded"] == sample_kg.report.edges_per_metaedge["CtD"]
    assert ctd["coverage"] == pytest.approx(ctd["loaded"] / 755)
    assert summary.set_index("metaedge").loc["GpBP", "loaded"] == 0  # absent from the sample


@pytest.mark.parametrize("abbreviation", ["CbG", "DaG", "GpPW", "CcSE"])
def test_properties_parsed_from_real_row(sample_kg: KnowledgeGraph, abbreviation: str) -> None:
    _, edges_path = _sample_files()
    raw = next(r for r in _raw_rows(edges_path) if r["metaedge"] == abbreviation and r["properties"])
    props = json.loads(raw["properties"])
    edges = sample_kg.edges
    row = edges[(edges["source"] == raw["source"]) & (edges["metaedge"] == abbreviation)
                & (edges["target"] == raw["target"])].iloc[0]
    # GpPW and CcSE rows name their one source "source" (the bug: it was dropped, so evidence ordering saw none)
    expected = props["sources"] if "sources" in props else [props["source"]]
    assert row["sources"] == "|".join(expected) and row["sources"]
    assert row["license"] == props.get("license", "")
    unbiased = props.get("unbiased")
    assert row["unbiased"] == ("" if unbiased is None else str(unbiased).lower())
    pubmed = props.get("pubmed_ids", "")
    assert row["pubmed_ids"] == ("|".join(pubmed) if isinstance(pubmed, list) else str(pubmed))


def test_typed_records(sample_kg: KnowledgeGraph) -> None:
    node = next(n for n in sample_kg.iter_nodes() if n.kind == "Biological Process")
    assert isinstance(node, KGNode)
    assert node.label == "BiologicalProcess"
    assert node.id == f"Biological Process::{node.identifier}"
    cbg = sample_kg.edges.index[(sample_kg.edges["metaedge"] == "CbG")
                                & (sample_kg.edges["license"] != "")][0]
    edge = list(sample_kg.iter_edges())[cbg]
    assert isinstance(edge, KGEdge)
    assert edge.rel_type == "BINDS_CbG"
    assert edge.properties["license"] and isinstance(edge.properties["sources"], list)
    assert KGEdge("Gene::1", "Gr>G", "Gene::2").rel_type == "REGULATES_GrG"


def test_sample_covers_demo_questions(sample_kg: KnowledgeGraph) -> None:
    edges = sample_kg.edges
    names = dict(zip(sample_kg.nodes["id"], sample_kg.nodes["name"], strict=True))
    bace1_partners = edges[(edges["metaedge"] == "GiG") & ((edges["source"] == "Gene::23621")
                                                          | (edges["target"] == "Gene::23621"))]
    assert len(bace1_partners) > 0
    treats = edges[(edges["metaedge"] == "CtD") & (edges["source"] == "Compound::DB00331")]
    assert {names[t] for t in treats["target"]} >= {"type 2 diabetes mellitus"}
    assert ((edges["metaedge"] == "GpPW") & (edges["source"] == "Gene::7157")).any()
    assert ((edges["metaedge"] == "DaG") & (edges["source"] == "Disease::DOID:10652")).any()


# ------------------------------------------------------------------------------------------------
# formats: SIF, gzip by magic bytes, plain text
# ------------------------------------------------------------------------------------------------
def test_sif_edges_read_without_properties() -> None:
    kg = load_hetionet(MINI_NODES, MINI_EDGES_SIF, progress=False)
    with gzip.open(MINI_EDGES_SIF, "rt", encoding="utf-8") as handle:
        raw = list(csv.DictReader(handle, delimiter="\t"))
    assert kg.report.edge_format == "sif"
    assert kg.n_edges == len(raw)
    assert kg.report.edges_per_metaedge == dict(Counter(r["metaedge"] for r in raw))
    assert (kg.edges[["sources", "license", "unbiased", "pubmed_ids"]] == "").all().all()
    assert all(e.properties == {} for e in kg.iter_edges())


def test_compression_detected_by_magic_bytes(tmp_path: Path) -> None:
    plain_named_gz = tmp_path / "nodes.tsv.gz"
    shutil.copyfile(MINI_NODES, plain_named_gz)
    gz_named_tsv = tmp_path / "edges.tsv"
    shutil.copyfile(MINI_EDGES_SIF, gz_named_tsv)
    assert not is_gzip_file(plain_named_gz) and is_gzip_file(gz_named_tsv)
    kg = load_hetionet(plain_named_gz, gz_named_tsv, progress=False)
    reference = load_hetionet(MINI_NODES, MINI_EDGES_SIF, progress=False)
    pd.testing.assert_frame_equal(kg.edges, reference.edges)


def test_relationship_types_accepted_as_metaedges(tmp_path: Path, good_nodes: Path) -> None:
    edges = _write(tmp_path / "e.tsv", "source\tmetaedge\ttarget\nCompound::DB00331\tBINDS_CbG\tGene::7157\n")
    kg = load_hetionet(good_nodes, edges, progress=False)
    assert kg.edges["metaedge"].tolist() == ["CbG"]


# ------------------------------------------------------------------------------------------------
# validation errors (errors="raise")
# ------------------------------------------------------------------------------------------------
def _edges_file(tmp_path: Path, *rows: str) -> Path:
    return _write(tmp_path / "edges.tsv", EDGES_HEADER + "".join(r + "\n" for r in rows))


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("id\tname\n", "missing column(s) ['kind']"),
        ("id\tname\tkind\tdescription\n", "unexpected column(s) ['description']"),
    ],
)
def test_node_header_errors(tmp_path: Path, good_nodes: Path, header: str, expected: str) -> None:
    nodes = _write(tmp_path / "bad_nodes.tsv", header)
    edges = _edges_file(tmp_path)
    with pytest.raises(DataError) as info:
        load_hetionet(nodes, edges, progress=False)
    message = str(info.value)
    assert "bad_nodes.tsv, line 1" in message and expected in message and "Fix:" in message


def test_edge_header_error(tmp_path: Path, good_nodes: Path) -> None:
    edges = _write(tmp_path / "edges.tsv", "from\tmetaedge\ttarget\n")
    with pytest.raises(DataError, match=r"edges.tsv, line 1: .*missing column\(s\) \['source'\]"):
        load_hetionet(good_nodes, edges, progress=False)


@pytest.mark.parametrize(
    ("node_rows", "line", "problem"),
    [
        ("Gene::1\tA1BG\n", 2, "malformed row: 2 tab-separated field(s), expected 3"),
        ("Gene::1\tA1BG\tGene\textra\n", 2, "malformed row: 4 tab-separated field(s), expected 3"),
        ("Gene::1\tA1BG\tGene\nProtein::P1\tp\tProtein\n", 3, "unknown node kind 'Protein'"),
        ("Gene::1\tA1BG\tGene\nCompound::2\tx\tGene\n", 3, "node id 'Compound::2' does not match its kind 'Gene'"),
        ("Gene7157\tTP53\tGene\n", 2, "node id 'Gene7157' does not match"),
        ("Gene::1\tA1BG\tGene\nGene::1\tA1BG again\tGene\n", 3, "duplicate node id 'Gene::1' (first on line 2)"),
    ],
)
def test_node_row_errors(tmp_path: Path, node_rows: str, line: int, problem: str) -> None:
    nodes = _write(tmp_path / "nodes.tsv", NODES_HEADER + node_rows)
    with pytest.raises(DataError) as info:
        load_hetionet(nodes, _edges_file(tmp_path), progress=False)
    message = str(info.value)
    assert f"nodes.tsv, line {line}: " in message
    assert problem in message
    assert "Fix:" in message


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("Compound::DB00331\tCbG\tGene::7157", "malformed row: 3 tab-separated field(s), expected 4"),
        ("Compound::DB00331\tXyZ\tGene::7157\t", "unknown metaedge 'XyZ'"),
        ("Compound::DB00331\tCbG\tGene::999999\t", "target node 'Gene::999999' is not in the node table"),
        ("Compound::DB99999\tCbG\tGene::7157\t", "source node 'Compound::DB99999' is not in the node table"),
        ("Gene::7157\tCbG\tCompound::DB00331\t",
         "source node 'Gene::7157' is a Gene but metaedge CbG needs a Compound"),
        ("Compound::DB00331\tCtD\tGene::7157\t", "target node 'Gene::7157' is a Gene but metaedge CtD needs a Disease"),
        ("Compound::DB00331\tCbG\tGene::7157\t{not json", "properties is not a JSON object"),
        ("Compound::DB00331\tCbG\tGene::7157\t[1, 2]", "properties is not a JSON object"),
    ],
)
def test_edge_row_errors(tmp_path: Path, good_nodes: Path, row: str, problem: str) -> None:
    edges = _edges_file(tmp_path, "Compound::DB00331\tCbG\tGene::23621\t", row)
    with pytest.raises(DataError) as info:
        load_hetionet(good_nodes, edges, progress=False)
    message = str(info.value)
    assert "edges.tsv, line 3: " in message
    assert problem in message
    assert "Fix:" in message


def test_first_problem_by_line_is_raised_and_others_counted(tmp_path: Path, good_nodes: Path) -> None:
    edges = _edges_file(tmp_path, "Compound::DB00331\tCbG\tGene::1\t", "Compound::DB00331\tXyZ\tGene::7157\t")
    with pytest.raises(DataError, match=r"line 2: target node 'Gene::1'.*1 more problem line"):
        load_hetionet(good_nodes, edges, progress=False)


def test_missing_file_and_bad_errors_argument(tmp_path: Path, good_nodes: Path) -> None:
    with pytest.raises(DataError, match="does not exist"):
        load_hetionet(good_nodes, tmp_path / "nope.tsv", progress=False)
    with pytest.raises(DataError, match="errors='raise' or errors='skip'"):
        load_hetionet(good_nodes, _edges_file(tmp_path), errors="ignore", progress=False)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------
# errors="skip": skipped, counted, reported, warned
# ------------------------------------------------------------------------------------------------
def test_skip_mode_counts_and_reports(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    nodes = _write(tmp_path / "nodes.tsv", GOOD_NODES + "Protein::P1\tp\tProtein\n" + "Gene::7157\tdup\tGene\n"
                   + "\n" + "Gene::1\tA1BG\tGene\n")
    edges = _edges_file(
        tmp_path,
        "Compound::DB00331\tCbG\tGene::7157\t{\"sources\": [\"DrugBank\"], \"license\": \"CC BY-NC 4.0\"}",  # 2 ok
        "Compound::DB00331\tCbG\tGene::1\t",  # 3 ok
        "Compound::DB00331\tCbG\tProtein::P1\t",  # 4 endpoint was a skipped node -> dangling
        "Compound::DB00331\tCbG",  # 5 malformed
        "Compound::DB00331\tXyZ\tGene::7157\t",  # 6 unknown metaedge
        "",  # 7 blank: ignored
        "Disease::DOID:10652\tDaG\tGene::23621\t",  # 8 ok
    )
    with caplog.at_level(logging.WARNING, logger="engram_kit.kg.hetionet"):
        kg = load_hetionet(nodes, edges, errors="skip", progress=False)
    assert kg.n_nodes == 5
    assert kg.n_edges == 3
    assert kg.report.nodes_per_kind == {"Compound": 1, "Disease": 1, "Gene": 3}
    assert kg.report.edges_per_metaedge == {"CbG": 2, "DaG": 1}
    skipped = kg.report.to_frame()
    assert list(skipped.columns) == ["file", "table", "line", "reason"]
    assert skipped[["table", "line"]].values.tolist() == [
        ["nodes", 6], ["nodes", 7], ["edges", 4], ["edges", 5], ["edges", 6]]
    assert "unknown node kind" in skipped["reason"].iloc[0]
    assert "duplicate node id" in skipped["reason"].iloc[1]
    assert kg.report.n_skipped == 5
    assert any("Skipped 5 invalid line(s)" in r.getMessage() for r in caplog.records)
    assert kg.edges.iloc[0]["sources"] == "DrugBank" and kg.edges.iloc[0]["license"] == "CC BY-NC 4.0"


# ------------------------------------------------------------------------------------------------
# download against a local HTTP server
# ------------------------------------------------------------------------------------------------
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # stdlib signature
        pass


@pytest.fixture(scope="module")
def fixture_server():
    handler = partial(_QuietHandler, directory=str(FIXTURES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


MINI_FILES = {"nodes": MINI_NODES.name, "edges": MINI_EDGES_SIF.name}


def test_download_success_verifies_and_records_checksums(tmp_path: Path, fixture_server: str) -> None:
    expected = {MINI_EDGES_SIF.name: hashlib.sha256(MINI_EDGES_SIF.read_bytes()).hexdigest()}
    got = download_hetionet(tmp_path, base_url=fixture_server, files=MINI_FILES, expected_sha256=expected,
                            progress=False)
    assert got.nodes.read_bytes() == MINI_NODES.read_bytes()
    assert got.edges.read_bytes() == MINI_EDGES_SIF.read_bytes()
    for path in (got.nodes, got.edges):
        recorded = (tmp_path / f"{path.name}.sha256").read_text().split()
        assert recorded == [file_sha256(path), path.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [MINI_NODES.name, MINI_EDGES_SIF.name, MINI_NODES.name + ".sha256", MINI_EDGES_SIF.name + ".sha256"])
    assert load_hetionet(got.nodes, got.edges, progress=False).n_edges > 0


def test_download_reuses_verified_copy_and_replaces_tampered_one(tmp_path: Path, fixture_server: str) -> None:
    first = download_hetionet(tmp_path, base_url=fixture_server, files=MINI_FILES, expected_sha256=None,
                              progress=False)
    first.nodes.write_text("tampered")  # trust on first use: the recorded digest no longer matches
    again = download_hetionet(tmp_path, base_url=fixture_server, files=MINI_FILES, expected_sha256=None,
                              progress=False)
    assert again.nodes.read_bytes() == MINI_NODES.read_bytes()
    assert again.sha256 == first.sha256


def test_download_checksum_mismatch_leaves_no_file(tmp_path: Path, fixture_server: str) -> None:
    wrong = {MINI_NODES.name: "0" * 64}
    with pytest.raises(DownloadError) as info:
        download_hetionet(tmp_path, base_url=fixture_server, files=MINI_FILES, expected_sha256=wrong,
                          progress=False)
    message = str(info.value)
    assert fixture_server + MINI_NODES.name in message and "does not match" in message and "Fix:" in message
    assert list(tmp_path.iterdir()) == []


def test_download_404_raises_download_error(tmp_path: Path, fixture_server: str) -> None:
    files = {"nodes": "kg_absent_nodes.tsv", "edges": MINI_EDGES_SIF.name}
    with pytest.raises(DownloadError, match=r"kg_absent_nodes\.tsv failed: 404.*Fix:"):
        download_hetionet(tmp_path, base_url=fixture_server, files=files, expected_sha256=None, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_download_connection_refused(tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match=re.escape("http://127.0.0.1:9/")):
        download_hetionet(tmp_path, base_url="http://127.0.0.1:9/", files=MINI_FILES, progress=False, timeout=2)
    assert list(tmp_path.iterdir()) == []
