"""Entity search over a Biolink KGX graph: synonyms and Biolink kinds in the lexicon, CURIE look-up in
EntitySearch, and the optional EMBL-EBI OLS4 look-up (served from a local fixture, never the real service).

KGX data: the biolink/kgx test resources (``data/kgx/`` of this repository, else the shared development copy).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pandas as pd
import pytest

from engram_kit.errors import QueryError
from engram_kit.exploration import EntitySearch, identifier_index
from engram_kit.extraction.gazetteer import Gazetteer
from engram_kit.extraction.lexicon import Lexicon, load_node_table, node_synonym_entries
from engram_kit.resolution.ols import check_against_graph, ols_candidates, parse_search_response
from engram_kit.resolution.resolver import EntityResolver

REPO = Path(__file__).resolve().parents[1]
KGX_DIRS = (REPO / "data" / "kgx", REPO.parent / "shared" / "data" / "kgx")
OLS_FIXTURE = Path(__file__).parent / "data" / "ols_search_holoprosencephaly.json"


# --------------------------------------------------------------------------------------------- fixtures
def kgx_file(name: str) -> Path:
    """A biolink/kgx sample file from data/kgx (preferred) or the shared data; the test skips without it."""
    for folder in KGX_DIRS:
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"KGX sample {name} is not available under {[str(d) for d in KGX_DIRS]}")


def kgx_node_frame(path: Path) -> pd.DataFrame:
    """A KGX node table in the store's shape (id = '<Label>::<CURIE>'), built directly with pandas.

    Kept independent of ``engram_kit.kg.kgx`` so these tests exercise search, not the loader: label = the
    first category without ``biolink:``, ``synonyms`` from the KGX ``synonym`` column, ``xrefs`` from
    ``xref`` or ChEBI's ``has_db_xref``.
    """
    raw = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    label = raw["category"].str.split("|").str[0].str.replace("biolink:", "", regex=False)
    empty = pd.Series("", index=raw.index)
    frame = pd.DataFrame({
        "id": label + "::" + raw["id"], "kind": label, "identifier": raw["id"], "name": raw.get("name", empty),
        "category": raw["category"], "synonyms": raw.get("synonym", empty),
        "xrefs": raw.get("xref", raw.get("has_db_xref", empty)),
    })
    return frame.drop_duplicates("id", ignore_index=True)


@pytest.fixture(scope="module")
def kgx_nodes() -> pd.DataFrame:
    """graph_nodes.tsv (534 rows, 512 distinct: HGNC genes, MONDO, HP, GO, REACT, UBERON...) + the ChEBI sample."""
    return pd.concat([kgx_node_frame(kgx_file("graph_nodes.tsv")), kgx_node_frame(kgx_file("chebi_kgx_tsv_nodes.tsv"))],
                     ignore_index=True)


@pytest.fixture(scope="module")
def kgx_lexicon(kgx_nodes) -> Lexicon:
    return Lexicon.build(kgx_nodes)  # no synonyms_dir: the Hetionet synonym tables do not apply to CURIEs


@pytest.fixture(scope="module")
def hetionet_nodes(sample_paths) -> pd.DataFrame:
    return load_node_table(sample_paths.nodes)


@pytest.fixture(scope="module")
def hetionet_names_lexicon(hetionet_nodes) -> Lexicon:
    return Lexicon.build(hetionet_nodes)


# ------------------------------------------------------------------------------------- lexicon, search
def test_kgx_synonyms_become_synonym_entries(kgx_lexicon):
    # ChEBI's KGX sample lists "remdesivir triphosphate" among the synonyms of CHEBI:150869 "GS-443902"
    entries = kgx_lexicon.lookup("Remdesivir triphosphate")
    assert [(e.node_id, e.surface, e.source) for e in entries] == [
        ("NamedThing::CHEBI:150869", "remdesivir triphosphate", "synonym")]
    assert kgx_lexicon.info["entries_by_source"]["synonym"] >= 15
    frame = pd.DataFrame({"id": ["Disease::X:1"], "kind": ["Disease"], "synonyms": [" a b | |c d|"]})
    assert node_synonym_entries(frame) == [("a b", "Disease::X:1", "Disease", "synonym"),
                                           ("c d", "Disease::X:1", "Disease", "synonym")]


def test_hetionet_lexicon_unchanged_by_the_synonyms_column(hetionet_nodes, hetionet_names_lexicon):
    """Hetionet's node table has no synonyms column; an empty one changes nothing either."""
    assert node_synonym_entries(hetionet_nodes) == []
    assert hetionet_names_lexicon.count_by_source()["synonym"] == 0
    with_column = Lexicon.build(hetionet_nodes.assign(synonyms=""))
    assert dict(with_column.entries()) == dict(hetionet_names_lexicon.entries())
    assert len(with_column) == len(hetionet_names_lexicon)


def test_biolink_labels_work_as_kinds(kgx_lexicon):
    # PhenotypicFeature is disease-like: the HP term "Seizures" gets its singular as a variant
    assert {(e.node_id, e.kind, e.source) for e in kgx_lexicon.lookup("seizure")} == {
        ("PhenotypicFeature::HP:0001250", "PhenotypicFeature", "variant")}
    kinds = {e.kind for e in kgx_lexicon.lookup("holoprosencephaly")}
    assert kinds == {"Disease", "PhenotypicFeature"}


def test_search_by_curie_ranks_the_exact_id_first(kgx_lexicon):
    search = EntitySearch(kgx_lexicon)
    for text in ("HGNC:10848", "hgnc:10848", " Gene::HGNC:10848 "):
        first = search.search(text).matches[0]
        assert (first.node_id, first.name, first.kind, first.match, first.source) == (
            "Gene::HGNC:10848", "SHH (human)", "Gene", "id", "identifier"), text
    first = search.search("mondo:0010011").matches[0]
    assert (first.node_id, first.name, first.surface) == ("Disease::MONDO:0010011", "schizencephaly", "MONDO:0010011")
    assert search.search("MONDO:0010011", kinds={"Gene"}).matches == []
    # a prefix of a CURIE is not an identifier match
    assert all(m.match != "id" for m in search.search("HGNC:1084").matches)


def test_search_by_name_and_kind_over_kgx(kgx_lexicon):
    search = EntitySearch(kgx_lexicon)
    exact = [m for m in search.search("holoprosencephaly").matches if m.match == "exact"]
    assert {m.node_id for m in exact} == {"Disease::MONDO:0016296", "PhenotypicFeature::HP:0001360"}
    only_phenotypes = search.search("holoprosencephaly", kinds={"PhenotypicFeature"}).matches
    assert only_phenotypes[0].node_id == "PhenotypicFeature::HP:0001360"
    assert {m.kind for m in only_phenotypes} == {"PhenotypicFeature"}
    synonym = search.search("xcytrin").matches[0]
    assert (synonym.node_id, synonym.name, synonym.source, synonym.match) == (
        "NamedThing::CHEBI:50161", "motexafin gadolinium", "synonym", "exact")
    assert synonym.label == "Xcytrin → motexafin gadolinium (NamedThing)"


def test_search_by_hetionet_identifier(hetionet_names_lexicon):
    search = EntitySearch(hetionet_names_lexicon)
    assert search.search("DOID:1612").matches[0].node_id == "Disease::DOID:1612"
    assert search.search("doid:1612").matches[0].name == "breast cancer"
    tp53 = search.search("7157").matches[0]
    assert (tp53.node_id, tp53.name, tp53.match) == ("Gene::7157", "TP53", "id")
    assert search.search("Gene::7157").matches[0].node_id == "Gene::7157"
    assert search.search("GO:0007224").matches[0].node_id == "Biological Process::GO:0007224"
    # names still work and come after no id match
    assert search.search("TP53").matches[0].match == "exact"


def test_identifier_index_drops_ambiguous_bare_ids():
    index = identifier_index(["Gene::1", "Compound::1", "Disease::DOID:1", "Anatomy::DOID:1"])
    assert "1" not in index                     # a bare number naming two nodes is no identifier match
    assert index["gene::1"] == ("Gene::1",)     # the whole node id still is
    assert index["doid:1"] == ("Disease::DOID:1", "Anatomy::DOID:1")  # prefixed ids keep every node


def test_kgx_lexicon_feeds_the_gazetteer_and_the_resolver(kgx_lexicon, kgx_nodes):
    text = "Holoprosencephaly and seizures were seen in carriers of SHH variants."
    found = {(m.text, m.candidates[0]) for m in Gazetteer(kgx_lexicon).find(text) if m.candidates}
    assert ("Holoprosencephaly", "Disease::MONDO:0016296") in found or \
        ("Holoprosencephaly", "PhenotypicFeature::HP:0001360") in found
    assert ("seizures", "PhenotypicFeature::HP:0001250") in found
    resolver = EntityResolver(kgx_lexicon, kgx_nodes)
    best = resolver.resolve("global developmental delay")[0]
    assert (best.node_id, best.kind, best.method, best.confidence) == (
        "PhenotypicFeature::HP:0001263", "PhenotypicFeature", "exact", 1.0)
    # MONDO and HP both name "schizencephaly": two exact candidates, the disease first (kind priority)
    assert [(c.node_id, c.method) for c in resolver.resolve("schizencephaly")] == [
        ("Disease::MONDO:0010011", "exact"), ("PhenotypicFeature::HP:0010636", "exact")]


# ------------------------------------------------------------------------------------------------- OLS
class _Handler(BaseHTTPRequestHandler):
    """Serves the recorded-shape OLS4 search body; ``/slow`` never answers in time; ``/broken`` is not JSON."""

    requests: list[str] = []

    def do_GET(self) -> None:  # http.server API
        type(self).requests.append(self.path)
        if self.path.startswith("/slow/"):
            time.sleep(3)
        if self.path.startswith("/error/"):
            self.send_response(500)
            self.end_headers()
            return
        body = b"<html>maintenance</html>" if self.path.startswith("/broken/") else OLS_FIXTURE.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def ols_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ols_fixture_parses_in_the_real_response_shape():
    payload = json.loads(OLS_FIXTURE.read_text())
    assert set(payload) == {"responseHeader", "response", "facet_counts"}
    frame = parse_search_response(payload)
    assert len(frame) == 10 and frame.attrs["num_found"] == 48
    assert frame.iloc[0][["curie", "label", "ontology", "rank"]].tolist() == [
        "MONDO:0016296", "holoprosencephaly", "mondo", 1]
    assert frame["score"].is_monotonic_decreasing
    with pytest.raises(ValueError):
        parse_search_response({"elements": []})


def test_ols_candidates_from_a_local_server(ols_server):
    _Handler.requests.clear()
    frame = ols_candidates("holoprosencephaly", ontologies=("mondo", "hp"), rows=10, base_url=ols_server)
    assert frame.attrs["reason"] == ""
    assert frame["curie"].tolist()[:2] == ["MONDO:0016296", "HP:0001360"]
    assert frame.loc[frame["curie"] == "MONDO:0016296", "synonyms"].item() == "HPE|holoprosencephaly sequence"
    (path,) = _Handler.requests
    query = parse_qs(urlparse(path).query)
    assert urlparse(path).path == "/search"
    assert query["q"] == ["holoprosencephaly"] and query["ontology"] == ["mondo,hp"] and query["rows"] == ["10"]
    assert query["queryFields"] == ["label,synonym"] and "score" in query["fieldList"][0].split(",")


def test_ols_hits_count_only_when_in_the_graph(ols_server, kgx_nodes, hetionet_nodes):
    candidates = ols_candidates("holoprosencephaly", ontologies=("mondo", "hp"), base_url=ols_server)
    kept = check_against_graph(candidates, kgx_nodes)
    assert kept["in_graph"].all()
    assert kept["curie"].tolist() == ["MONDO:0016296", "HP:0001360", "MONDO:0019757", "MONDO:0016355",
                                      "MONDO:0019756", "MONDO:0017219", "MONDO:0007733"]
    assert kept.loc[0, ["node_id", "node_name"]].tolist() == ["Disease::MONDO:0016296", "holoprosencephaly"]
    flagged = check_against_graph(candidates, kgx_nodes, only_in_graph=False)
    assert flagged.loc[~flagged["in_graph"], "curie"].tolist() == ["HP:0006988", "HP:0002507", "HP:0006870"]
    assert (flagged.loc[~flagged["in_graph"], "node_id"] == "").all()
    # Hetionet holds neither MONDO nor HP terms: nothing counts there
    assert check_against_graph(candidates, hetionet_nodes).empty
    # ... but a GO hit is a Hetionet node, and a lower-case prefix still matches
    go = pd.DataFrame({"curie": ["go:0007224", "NCBIGene:6469"], "label": ["", ""]})
    assert check_against_graph(go, hetionet_nodes)["node_id"].tolist() == [
        "Biological Process::GO:0007224", "Gene::6469"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_ols_offline_returns_empty_with_a_reason_quickly(ols_server, caplog):
    started = time.monotonic()
    frame = ols_candidates("holoprosencephaly", base_url=f"http://127.0.0.1:{_closed_port()}", timeout=2)
    assert time.monotonic() - started < 2
    assert frame.empty and list(frame.columns)[:3] == ["curie", "label", "ontology"]
    assert "unreachable" in frame.attrs["reason"]
    assert "OLS look-up gave nothing" in caplog.text
    assert check_against_graph(frame, pd.DataFrame({"id": ["Gene::1"], "kind": ["Gene"]})).empty

    started = time.monotonic()
    slow = ols_candidates("holoprosencephaly", base_url=f"{ols_server}/slow", timeout=0.5)
    assert time.monotonic() - started < 2.0
    assert slow.empty and "within 0.5 s" in slow.attrs["reason"]

    assert "HTTP 500" in ols_candidates("x", base_url=f"{ols_server}/error").attrs["reason"]
    assert "unreadable" in ols_candidates("x", base_url=f"{ols_server}/broken").attrs["reason"]


def test_ols_refuses_bad_arguments():
    for kwargs in ({"text": "  "}, {"text": "x", "rows": 0}, {"text": "x", "timeout": 0}):
        with pytest.raises(QueryError):
            ols_candidates(**kwargs)


def test_ols_is_opt_in():
    """Nothing the workspace, CLI or pipeline imports loads the OLS module (so nothing can call it)."""
    code = ("import sys, engram_kit.workspace, engram_kit.cli, engram_kit.resolution, engram_kit.extraction; "
            "print('engram_kit.resolution.ols' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip() == "False"


def test_loaded_kgx_graph_is_searchable(hetionet_nodes):
    """The node table of engram_kit.kg.kgx.load_kgx feeds the same lexicon, search and cross-walk."""
    kgx = pytest.importorskip("engram_kit.kg.kgx")
    from engram_kit.kg.crosswalk import crosswalk

    graph = kgx.load_kgx(kgx_file("chebi_kgx_tsv_nodes.tsv"), kgx_file("chebi_kgx_tsv_edges.tsv"),
                          missing_nodes="stub", progress=False)  # its edges reach ChEBI terms it does not list
    search = EntitySearch(Lexicon.build(graph.nodes))
    assert search.search("chebi:50161").matches[0].name == "motexafin gadolinium"
    assert search.search("Gd-Tex").matches[0].node_id == "NamedThing::CHEBI:50161"
    graph = kgx.load_kgx(kgx_file("graph_nodes.tsv"), kgx_file("graph_edges.tsv"), progress=False)
    assert EntitySearch(Lexicon.build(graph.nodes)).search("HGNC:10848").matches[0].node_id == "Gene::HGNC:10848"
    assert crosswalk(graph, hetionet_nodes).matched_kgx == 138


def test_cross_species_symbol_resolves_to_the_human_gene():
    """'SHH' names the human gene and its orthologues in the Monarch sample; a tie leans human (resolver)."""
    from engram_kit.extraction.lexicon import Lexicon
    from engram_kit.kg.kgx import load_kgx
    from engram_kit.resolution.resolver import EntityResolver

    kgx = Path(__file__).parents[1] / "data" / "kgx"
    kg = load_kgx(kgx / "graph_nodes.tsv", kgx / "graph_edges.tsv", progress=False)
    shh = kg.nodes[kg.nodes["name"].str.fullmatch(r"SHH( \(human\))?|Shh|shha", case=False)]
    assert len(shh) >= 2 and (shh["in_taxon"] == "NCBITaxon:9606").any()
    resolver = EntityResolver(Lexicon.build(kg.nodes), kg.nodes)
    best = resolver.resolve("SHH")[0]
    assert kg.nodes.set_index("id").loc[best.node_id, "in_taxon"] == "NCBITaxon:9606"


def test_workspace_ontology_lookup_is_checked_against_the_graph_and_quiet_offline(kgx_workspace):
    """Workspace.ontology_lookup: an unreachable OLS gives an empty frame with the reason, quickly."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    out = kgx_workspace.ontology_lookup("holoprosencephaly", base_url=f"http://127.0.0.1:{closed_port}/api",
                                        timeout=2)
    assert out.empty and out.attrs["reason"]


def test_search_lists_human_genes_before_orthologues(kgx_workspace):
    """'SHH' names the human gene and a dozen orthologues in the Monarch sample: the human nodes come first."""
    hits = kgx_workspace.search_entities("SHH", limit=4).matches
    taxon = kgx_workspace.nodes.set_index("id")["in_taxon"]
    assert [taxon[m.node_id] for m in hits[:2]] == ["NCBITaxon:9606", "NCBITaxon:9606"]
    assert {m.node_id for m in hits[:2]} == {"Gene::NCBIGene:6469", "Gene::HGNC:10848"}
