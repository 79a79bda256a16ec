"""PubMed readers: JSONL, PubMed XML, MEDLINE text; bad input gives clear errors."""

from __future__ import annotations

import gzip
import json

import pytest

from engram_kit.errors import DataError, UnknownFileTypeError
from engram_kit.ingestion.pubmed import read_pubmed

XML = """<?xml version="1.0"?>
<PubmedArticleSet>
 <PubmedArticle><MedlineCitation><PMID Version="1">{pmid}</PMID><Article>
  <Journal><JournalIssue><PubDate><Year>2019</Year></PubDate></JournalIssue><Title>J Test</Title></Journal>
  <ArticleTitle>{title}</ArticleTitle>
  <Abstract><AbstractText Label="BACKGROUND">{bg}</AbstractText><AbstractText Label="RESULTS">{res}</AbstractText></Abstract>
  <AuthorList><Author><LastName>Doe</LastName><Initials>J</Initials></Author></AuthorList>
  <ELocationID EIdType="doi">10.1/x</ELocationID>
 </Article></MedlineCitation></PubmedArticle>
 <PubmedArticle><MedlineCitation><PMID Version="1">2</PMID><Article><ArticleTitle>Title only</ArticleTitle></Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>"""


def test_jsonl_sample_reads_every_record(sample_paths):
    with gzip.open(sample_paths.abstracts, "rt", encoding="utf-8") as fh:
        raw = [json.loads(line) for line in fh if line.strip()]
    records = list(read_pubmed(sample_paths.abstracts))
    assert len(records) == len(raw)
    assert [r.pmid for r in records] == [str(o["pmid"]) for o in raw]
    first = records[0]
    assert first.abstract == raw[0]["abstract"].strip()
    assert first.text.endswith(first.abstract)


def test_pubmed_xml_structured_abstract(tmp_path, sample_records):
    real = sample_records[0]
    half = len(real.abstract) // 2
    path = tmp_path / "set.xml.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(XML.format(pmid=real.pmid, title=real.title or "T", bg=real.abstract[:half], res=real.abstract[half:]))
    records = list(read_pubmed(path))
    assert len(records) == 1  # the title-only citation has nothing to retrieve
    rec = records[0]
    assert rec.pmid == real.pmid and rec.year == 2019 and rec.doi == "10.1/x" and rec.authors == ("Doe J",)
    assert rec.abstract.startswith("BACKGROUND: ") and "RESULTS: " in rec.abstract


def test_medline_text(tmp_path, sample_records):
    real = sample_records[1]
    body = real.abstract
    lines = ["PMID- " + real.pmid, "DP  - 2004 Mar", "TI  - " + (real.title or "Untitled"),
             "AB  - " + body[:60], "      " + body[60:], "AU  - Smith A", ""]
    path = tmp_path / "export.nbib"
    path.write_text("\n".join(lines))
    (rec,) = list(read_pubmed(path))
    assert rec.pmid == real.pmid and rec.year == 2004 and rec.authors == ("Smith A",)
    assert rec.abstract == body[:60] + " " + body[60:].strip()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"pmid": "12", "abstract": "x"}\nnot json\n', "not valid JSON"),
        ('{"pmid": "12"}\n', "no 'abstract'"),
        ('{"pmid": "abc", "abstract": "text"}\n', "not a positive integer"),
    ],
)
def test_jsonl_errors_name_line(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(DataError, match=message) as info:
        list(read_pubmed(path))
    assert "bad.jsonl:" in str(info.value)


def test_non_utf8_and_unknown_type(tmp_path):
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"pmid": "1", "abstract": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(DataError, match="UTF-8"):
        list(read_pubmed(latin))
    csv = tmp_path / "table.csv"
    csv.write_text("a,b\n")
    with pytest.raises(UnknownFileTypeError, match="supported PubMed formats"):
        read_pubmed(csv)
    with pytest.raises(DataError, match="no such file"):
        read_pubmed(tmp_path / "missing.jsonl")


def test_malformed_xml(tmp_path):
    path = tmp_path / "broken.xml"
    path.write_text("<PubmedArticleSet><PubmedArticle><MedlineCitation>")
    with pytest.raises(DataError, match="not well-formed"):
        list(read_pubmed(path))
