"""Bounded and typed PubMed inputs (issue 21): line sizes checked while streaming, typed validation with a
line number, all-or-nothing per file, duplicate PMIDs reported, the API refusing what the readers refuse."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import psutil
import pytest

from engram_kit.errors import DataError
from engram_kit.ingestion.pubmed import (
    PubMedRecord,
    check_pubmed_file,
    read_pubmed,
    read_pubmed_skipping,
    unique_records,
)
from engram_kit.settings import Settings


def _write_jsonl(path: Path, rows: list[object], *, gz: bool = False) -> Path:
    text = "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)
    if gz:
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _good(n: int) -> dict[str, object]:
    return {"pmid": str(1000 + n), "title": f"Title {n}", "abstract": f"Metformin lowers glucose in study {n}."}


def test_a_gzipped_line_that_expands_past_the_limit_is_refused_while_streaming(tmp_path):
    # ~60 MB of one line compresses to ~60 KB: the reader must stop at Settings.max_line_chars, not load the line
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb") as fh:
        fh.write(json.dumps(_good(1)).encode() + b"\n")
        fh.write(b'{"pmid": "2", "abstract": "' + b"a" * 60_000_000 + b'"}\n')
    assert bomb.stat().st_size < 200_000
    before = psutil.Process(os.getpid()).memory_info().rss
    with pytest.raises(DataError, match=r"bomb\.jsonl\.gz:2: the line is longer than 1,048,576 characters"):
        list(read_pubmed(bomb))
    assert psutil.Process(os.getpid()).memory_info().rss - before < 100 * 1024 * 1024


def test_a_ten_megabyte_plain_line_is_a_clear_error(tmp_path):
    path = _write_jsonl(tmp_path / "long.jsonl", [{"pmid": "1", "abstract": "x" * (10 * Settings.max_line_chars)}])
    with pytest.raises(DataError, match=r"long\.jsonl:1: the line is longer"):
        check_pubmed_file(path)


@pytest.mark.parametrize(("row", "problem"), [
    ({"pmid": "5", "abstract": 12345}, r"'abstract' must be a JSON string, got int"),
    ({"pmid": "5", "abstract": "ok", "title": ["a"]}, r"'title' must be a JSON string, got list"),
    ({"pmid": "5", "abstract": "ok", "authors": "Smith J"}, r"'authors' must be a list of strings"),
    ({"pmid": "abc", "abstract": "ok"}, r"PMID 'abc' is not a positive integer"),
    ({"title": "t", "abstract": "ok"}, r"the record has no PMID \(no 'pmid' field"),  # was "PMID None is not ..."
    ({"pmid": "", "abstract": "ok"}, r"the record has no PMID"),
    ({"pmid": "5", "abstract": "   "}, r"has no 'abstract' text"),
    ([1, 2], r"expected a JSON object"),
    ("{not json", r"not valid JSON"),
])
def test_mistyped_records_name_the_line_and_the_problem(tmp_path, row, problem):
    path = _write_jsonl(tmp_path / "typed.jsonl", [_good(1), _good(2), row])
    with pytest.raises(DataError, match=r"typed\.jsonl:3: .*" + problem):
        list(read_pubmed(path))


def test_the_api_refuses_what_the_readers_refuse():
    with pytest.raises(DataError, match="PMID must be a positive integer"):
        PubMedRecord(pmid="abc", title="", abstract="text")
    with pytest.raises(DataError, match="abstract is empty"):
        PubMedRecord(pmid="12", title="", abstract="  ")
    with pytest.raises(DataError, match="'abstract' must be text, got int"):
        PubMedRecord(pmid="12", title="", abstract=12345)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="more than the 200,000 allowed"):
        PubMedRecord(pmid="12", title="", abstract="a" * 200_001)
    assert PubMedRecord(pmid="12", title="T", abstract="A").text == "T\nA"


def test_a_bad_record_late_in_a_file_is_found_before_anything_is_read_for_ingestion(tmp_path):
    rows: list[object] = [_good(i) for i in range(70)] + ["{broken"] + [_good(i) for i in range(71, 80)]
    path = _write_jsonl(tmp_path / "late.jsonl", rows)
    with pytest.raises(DataError, match=r"late\.jsonl:71: not valid JSON"):
        check_pubmed_file(path)
    # --skip-bad: the bad line is listed, the other 79 records are kept
    check = check_pubmed_file(path, skip_bad=True)
    assert check.records == 79 and len(check.bad) == 1 and check.bad[0].startswith("late.jsonl:71:")
    bad: list[str] = []
    assert len(list(read_pubmed_skipping(path, bad))) == 79 and len(bad) == 1


def test_duplicate_pmids_in_one_file_are_reported_and_kept_once(tmp_path):
    rows = [_good(1), _good(2), {**_good(1), "abstract": "A second copy."}, _good(3), _good(2)]
    path = _write_jsonl(tmp_path / "dups.jsonl", rows)
    check = check_pubmed_file(path)
    assert check.records == 3 and check.duplicates == {"1001": [1, 3], "1002": [2, 5]}
    kept = list(unique_records(read_pubmed(path)))
    assert [r.pmid for r in kept] == ["1001", "1002", "1003"]
    assert kept[0].abstract.startswith("Metformin")  # the first occurrence wins


def test_a_truncated_gzip_file_is_a_clear_error(tmp_path):
    whole = gzip.compress(b"".join(json.dumps(_good(i)).encode() + b"\n" for i in range(2000)))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match="could not be read to its end"):
        check_pubmed_file(path)


@pytest.mark.slow
def test_workspace_ingest_is_all_or_nothing_per_file(workspace, tmp_path):
    rows: list[object] = [{**_good(i), "pmid": str(990_000 + i)} for i in range(70)] + ['{"pmid": "9", "abstract": 7}']
    path = _write_jsonl(tmp_path / "half.jsonl", rows)
    before = workspace.info()["counts"]
    with pytest.raises(DataError, match=r"half\.jsonl:71: 'abstract' must be a JSON string"):
        workspace.ingest(path)
    assert workspace.info()["counts"] == before  # not the first 70 records: nothing


def test_a_numbered_reference_list_is_told_from_body_text_and_numbered_steps():
    from engram_kit.ingestion.documents import reads_as_reference_list

    refs = "\n".join(f"{i}. Author A, Author B. A study of things. J Things. 2001;{i}:1-9." for i in range(1, 30))
    assert reads_as_reference_list(refs) and reads_as_reference_list(" ".join(refs.split("\n")))
    assert reads_as_reference_list(" ".join(f"[{i}] Smith J, et al. Heparin after trauma. Lancet {1990 + i}."
                                            for i in range(1, 8)))
    body = "Heparin prevents venous thrombosis after trauma in most patients who can receive it safely. " * 19
    assert not reads_as_reference_list(body)
    steps = " ".join(f"{i}. Spin the sample down in 2001 and freeze it." for i in range(1, 9))
    assert not reads_as_reference_list(steps)  # numbered, with years, but nothing bibliographic
    assert not reads_as_reference_list(body + refs[:200])  # a few entries after body text: not only a list


def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path):
    # the probe: a file saved by a Windows editor (BOM + CRLF) was refused as "line 1: not valid JSON"
    rows = [json.dumps(_good(1)), json.dumps(_good(2))]
    plain = tmp_path / "bom.jsonl"
    plain.write_bytes(("\ufeff" + "\r\n".join(rows) + "\r\n").encode("utf-8"))
    packed = tmp_path / "bom.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        records = list(read_pubmed(path))
        assert [r.pmid for r in records] == ["1001", "1002"] and records[1].abstract.endswith("study 2.")
    # a BOM in the middle of the file is no byte-order mark: still a clear error with its line
    middle = tmp_path / "mid.jsonl"
    middle.write_bytes((rows[0] + "\n\ufeff" + rows[1] + "\n").encode("utf-8"))
    with pytest.raises(DataError, match=r"mid\.jsonl:2: not valid JSON"):
        check_pubmed_file(middle)


def test_a_latin1_text_file_read_as_medline_is_a_clear_error(tmp_path):
    # the probe: `engram ingest latin1.txt` (a .txt is read as MEDLINE) ended in a UnicodeDecodeError traceback
    path = tmp_path / "latin1.txt"
    path.write_bytes("PMID- 123\nAB  - Heparin pr\u00e9vient la thrombose.\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"latin1\.txt: text is not UTF-8 \(invalid continuation byte\); re-encode"):
        check_pubmed_file(path)
