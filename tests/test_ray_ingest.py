"""The Ray ingestion engine (issue 32): same graph as the local path, faults, resume, update files.

The Ray tests start one local Ray for the module (``ray.init(num_cpus=2)``) and stop it at the end; they need
the ``scale`` extra (``pip install 'engram-kit[scale]'``) and skip without it, except under ``CI=true``
where a missing Ray fails (scripts/test.sh installs the extra). Workspaces use the bundled Hetionet sample and
the ``static`` embedder (the int8 default is compared on the 6,107 shared abstracts by
``benchmarks/ingest.py --engine ray``); ``tests/../data/pubmed/abstracts-1000.jsonl.gz`` holds the 1,000
abstracts of the equality test.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import pyarrow as pa
import pytest

from engram_kit.ingestion import shards as shardlib
from engram_kit.ingestion.pubmed import PubMedRecord, read_deleted_pmids, read_pubmed

REPO = Path(__file__).resolve().parents[1]
ABSTRACTS_1000 = REPO / "data" / "pubmed" / "abstracts-1000.jsonl.gz"
SAMPLE = REPO / "data" / "pubmed" / "abstracts-sample.jsonl.gz"


def _ray_or_skip():
    try:
        import ray
        import ray.data
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("Ray is not installed under CI: scripts/test.sh installs the 'scale' extra")
        pytest.skip("Ray is not installed (pip install 'engram-kit[scale]')")
    return ray


# --------------------------------------------------------------------------------------------- no Ray
def _xml_article(record: PubMedRecord) -> str:
    return (f"<PubmedArticle><MedlineCitation><PMID Version=\"1\">{record.pmid}</PMID><Article>"
            f"<Journal><JournalIssue><PubDate><Year>{record.year or 2020}</Year></PubDate></JournalIssue></Journal>"
            f"<ArticleTitle>{escape(record.title)}</ArticleTitle><Abstract><AbstractText>{escape(record.abstract)}"
            "</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>")


def write_update_xml(path: Path, records: list[PubMedRecord], deleted: list[str]) -> Path:
    """A PubMed update file (``PubmedArticleSet`` with ``DeleteCitation``), gzipped like NLM's."""
    body = "".join(_xml_article(r) for r in records)
    dels = "".join(f"<PMID Version=\"1\">{p}</PMID>" for p in deleted)
    text = f"<?xml version=\"1.0\"?><PubmedArticleSet>{body}<DeleteCitation>{dels}</DeleteCitation></PubmedArticleSet>"
    path.write_bytes(gzip.compress(text.encode()))
    return path


def test_delete_citations_are_read_from_an_update_file(tmp_path):
    records = list(read_pubmed(SAMPLE))[:2]
    path = write_update_xml(tmp_path / "pubmed25n1300.xml.gz", records, ["123", "456"])
    assert read_deleted_pmids(path) == ["123", "456"]
    assert [r.pmid for r in read_pubmed(path)] == [r.pmid for r in records]
    assert read_deleted_pmids(SAMPLE) == []  # JSON Lines: no deletions


def _shard(tmp_path: Path, name: str, nounphrases: list[tuple[str, str]], maps_to: list[tuple[str, str, float]],
           pmids: list[str]) -> Path:
    """A hand-made shard folder (graph tables only matter to the reduce)."""
    folder = tmp_path / name
    folder.mkdir()
    import pyarrow.parquet as pq

    tables = {
        "articles": [{"id": f"pubmed:{p}", "source": "pubmed", "title": name, "pmid": p, "year": None, "doi": "",
                      "authors": "", "status": "pending", "error": "", "content_hash": name} for p in pmids],
        "sections": [], "passages": [], "mentions": [],
        "nounphrases": [{"id": i, "name": n, "normalized": n.lower(), "entity_type": "Gene"} for i, n in nounphrases],
        "maps_to": [{"nounphrase_id": n, "entity_id": e, "confidence": c, "method": name} for n, e, c in maps_to],
    }
    for table, rows in tables.items():
        pq.write_table(pa.Table.from_pylist(rows, schema=shardlib.SCHEMAS[table]), folder / f"{table}.parquet")
    vectors = pa.table({"passage_id": [f"pubmed:{p}#p0" for p in pmids], "pmid": pmids,
                        "content_hash": [name] * len(pmids),
                        "vector": pa.FixedSizeListArray.from_arrays(pa.array(np.ones(2 * len(pmids), np.float32)), 2)},
                       schema=shardlib.vectors_schema(2))
    pq.write_table(vectors, folder / "vectors.parquet")
    return folder


def test_reduce_keeps_first_nounphrase_last_maps_to_and_the_later_copy_of_a_repeated_pmid(tmp_path):
    one = _shard(tmp_path, "0000000", [("np:a", "Aspirin"), ("np:b", "B")], [("np:a", "C1", 0.5)], ["1", "2"])
    two = _shard(tmp_path, "0000001", [("np:a", "aspirin"), ("np:c", "C")],
                 [("np:a", "C1", 0.9), ("np:c", "C2", 0.7)], ["2", "3"])
    reduced = shardlib.reduce_shards([one, two])
    nps = reduced.tables["nounphrases"]
    assert nps["id"].to_pylist() == ["np:a", "np:b", "np:c"]
    assert nps["name"].to_pylist()[0] == "Aspirin"  # first occurrence, as MERGE ... ON CREATE SET keeps it
    maps = {(r["nounphrase_id"], r["entity_id"]): r["confidence"] for r in reduced.tables["maps_to"].to_pylist()}
    assert maps == {("np:a", "C1"): 0.9, ("np:c", "C2"): 0.7}  # the later batch's SET wins
    arts = reduced.tables["articles"]
    assert sorted(zip(arts["pmid"].to_pylist(), arts["content_hash"].to_pylist())) == [
        ("1", "0000000"), ("2", "0000001"), ("3", "0000001")]
    assert sorted(reduced.tables["vectors"]["pmid"].to_pylist()) == ["1", "2", "3"]
    assert reduced.rows_in["nounphrases"] == 4 and reduced.rows_in["maps_to"] == 3


def test_the_default_install_does_not_import_ray():
    code = ("import sys, engram_kit.workspace, engram_kit.cli, engram_kit.ingestion.shards; "
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------------------ with Ray
@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module, 2 logical CPUs; stopped at the end."""
    from engram_kit.ingestion.ray_engine import _init_with_retry

    ray = _ray_or_skip()
    # retried like the engine's own start: Ray waits a fixed 30 s for its raylet, which a loaded machine misses
    _init_with_retry(ray, None, dict(num_cpus=2, include_dashboard=False, log_to_driver=False,
                                     configure_logging=False))
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def base_workspace(tmp_path_factory) -> Path:
    """An empty workspace on the bundled Hetionet sample with the static embedder and batch size 64 (so the 430
    bundled abstracts make 7 shards); copied by each test."""
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = tmp_path_factory.mktemp("ray") / "base"
    Workspace.create(path, graph="hetionet", settings=Settings(embedding_model="static", batch_size=64, progress=False)).close()
    return path


def _copy(base: Path, tmp_path: Path, name: str):
    from engram_kit.workspace import Workspace

    dest = tmp_path / name
    shutil.copytree(base, dest)
    ws = Workspace.open(dest)
    ws.settings.progress = False
    return ws


def _literature_counts(ws) -> dict[str, int]:
    counts = ws.store.counts()
    return {k: counts[k] for k in shardlib.COMPARED_COUNTS} | {"vectors": ws.vectors.count()}


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_ray_engine_builds_the_same_graph_as_the_local_path(local_ray, base_workspace, tmp_path):
    local, ray_ws = _copy(base_workspace, tmp_path, "local"), _copy(base_workspace, tmp_path, "ray")
    ray_ws.settings.batch_size = local.settings.batch_size = 256
    try:
        local_report = local.ingest(ABSTRACTS_1000, workers=2)
        report = ray_ws.ingest(ABSTRACTS_1000, engine="ray", workers=2)
        assert local_report.ingested == report.ingested == 1000
        assert report.engine_details["shards_mapped"] == 4  # 1,000 records in batches of 256
        assert report.mentions == local_report.mentions and report.linked_mentions == local_report.linked_mentions
        same = shardlib.compare_literature(local, ray_ws)
        assert all(a == b for a, b in same["counts"].values()), same["counts"]
        assert same["counts"]["Article"] == (1000, 1000)
        assert same["articles_equal"] and same["nounphrases_equal"]
        assert same["mentions_equal"] and same["maps_to_equal"]
        assert same["vectors"] == (1000, 1000)
        assert same["min_cosine"] >= 0.9999
        assert ray_ws.check().consistent
        again = ray_ws.ingest(ABSTRACTS_1000, engine="ray", workers=2)  # a finished shard set: nothing to do
        assert (again.read, again.ingested, again.unchanged) == (0, 0, 1000)
        assert again.engine_details["shards_mapped"] == 0
        assert _literature_counts(ray_ws) == _literature_counts(local)
    finally:
        local.close()
        ray_ws.close()


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_killed_worker_is_retried_and_a_stopped_run_resumes_from_its_shards(local_ray, base_workspace, tmp_path):
    from engram_kit.ingestion.ray_engine import ingest_ray

    reference = _copy(base_workspace, tmp_path, "reference")
    ws = _copy(base_workspace, tmp_path, "faults")
    try:
        reference.ingest(SAMPLE, workers=1)
        expected = _literature_counts(reference)
        root = ws.path / "shards"
        # 1. A shard fails for good: the run stops with some shards written and nothing loaded.
        with pytest.raises(Exception, match="injected failure"):
            ingest_ray(ws, [SAMPLE], workers=2, fault={"shard": "0000004", "mode": "raise", "marker": ""})
        finished = len(shardlib.shard_paths(root, [p.name for p in root.iterdir()]))
        assert 0 < finished < 7
        assert ws.store.counts()["Article"] == 0
        # 2. Resume; the worker mapping the shard that failed is killed mid-shard (Ray restarts it and re-runs
        #    the shard) and the load stops
        #    after its second chunk's graph write.
        marker = tmp_path / "killed"
        writes = []

        def stop_in_load(boundary: str) -> None:
            writes.append(boundary)
            if boundary == "after_graph" and writes.count("after_graph") == 2:
                raise KeyboardInterrupt("stopped mid-load")

        with pytest.raises(KeyboardInterrupt):
            ingest_ray(ws, [SAMPLE], workers=2, chunk_articles=100, load_fault_hook=stop_in_load,
                       fault={"shard": "0000004", "mode": "exit", "marker": str(marker)})
        assert marker.exists(), "the fault hook did not kill a worker"
        assert 0 < ws.store.counts()["Article"] < 430
        # 3. Resume again: no shard is mapped twice, the load completes, nothing is duplicated or missing.
        report = ingest_ray(ws, [SAMPLE], workers=2, chunk_articles=100)
        assert report.engine_details["shards_mapped"] == 0 and report.engine_details["shards_total"] == 7
        assert _literature_counts(ws) == expected
        articles = ws.store.articles()
        assert articles["id"].is_unique and set(articles["status"]) == {"complete"}
        assert sorted(articles["pmid"]) == sorted(r.pmid for r in read_pubmed(SAMPLE))
        assert ws.check().consistent
        same = shardlib.compare_literature(reference, ws)
        assert same["mentions_equal"] and same["maps_to_equal"] and same["min_cosine"] >= 0.9999
    finally:
        reference.close()
        ws.close()


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_update_file_ingests_only_new_or_changed_pmids_and_applies_deletions(local_ray, base_workspace, tmp_path,
                                                                            monkeypatch):
    from engram_kit.ingestion import ray_engine

    # The cluster's read path (a Ray read task per file, then a streaming repartition), which a local Ray skips
    # for small inputs (read in the driver): this test covers it.
    monkeypatch.setattr(ray_engine, "DRIVER_READ_BYTES", -1)
    ws = _copy(base_workspace, tmp_path, "update")
    try:
        ws.ingest(SAMPLE, workers=1)
        stored = {r.pmid: r for r in read_pubmed(SAMPLE)}
        # XML collapses runs of white space: only records without any round-trip unchanged.
        plain = [r for r in stored.values() if r.title and r.abstract == " ".join(r.abstract.split())
                 and r.title == " ".join(r.title.split())]
        unchanged, changed = plain[:2], [replace(r, abstract=r.abstract + " Updated.") for r in plain[2:4]]
        new = replace(plain[4], pmid="99000001")
        deleted = [plain[5].pmid, plain[6].pmid]
        before = ws.store.articles().set_index("id")["content_hash"]
        path = write_update_xml(tmp_path / "pubmed25n1400.xml.gz", [*unchanged, *changed, new], deleted)
        report = ws.ingest(path, engine="ray", workers=2)
        assert report.read == 3 and report.ingested == 3  # 2 changed + 1 new; the 2 unchanged never mapped
        assert report.engine_details["deleted"] == 2
        after = ws.store.articles().set_index("id")
        assert len(after) == 430 + 1 - 2 and set(after["status"]) == {"complete"}
        for record in changed:
            assert after.loc[f"pubmed:{record.pmid}", "content_hash"] != before[f"pubmed:{record.pmid}"]
        for record in unchanged:
            assert after.loc[f"pubmed:{record.pmid}", "content_hash"] == before[f"pubmed:{record.pmid}"]
        assert not any(f"pubmed:{p}" in after.index for p in deleted)
        assert "pubmed:99000001" in after.index
        assert ws.vectors.count() == 429 and ws.check().consistent
        text = ws.store.query("MATCH (p:Passage {id: $id}) RETURN p.text AS t",
                              {"id": f"pubmed:{changed[0].pmid}#p0"})["t"][0]
        assert text.endswith("Updated.")
        again = ws.ingest(path, engine="ray", workers=2)
        assert (again.read, again.ingested, again.engine_details["deleted"]) == (0, 0, 0)
        assert ws.vectors.count() == 429
    finally:
        ws.close()


def test_records_survive_the_json_round_trip_of_a_shard_row():
    from engram_kit.ingestion.ray_engine import _record, _record_dict

    record = PubMedRecord("123", "T", "An abstract.", 2020, "J", ("A B", "C D"), "10.1/x")
    assert _record(json.loads(json.dumps(_record_dict(record)))) == record
