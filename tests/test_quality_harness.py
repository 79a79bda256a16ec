"""The quality harness (benchmarks/quality): PubTator reader, study registry, and a quick `ner` run.

The `ner` study runs on a real 18-document slice (tests/fixtures/quality_data) with the bundled lexicon:
it checks the harness works end to end and that the numbers are in a plausible range, not a target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.quality import STUDIES, Study
from benchmarks.quality.__main__ import NOT_IMPLEMENTED, main
from benchmarks.quality.common import StudyOptions, markdown_table
from benchmarks.quality.pubtator import PubTatorError, read_pubtator

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "quality_data"
BC5CDR = FIXTURE / "corpora" / "BC5CDR" / "CDR_TestSet.PubTator.txt"
NCBI = FIXTURE / "corpora" / "NCBI-disease" / "NCBItestset_corpus.txt"


def test_pubtator_reader_offsets_ids_and_relations():
    docs = read_pubtator(BC5CDR)
    assert len(docs) == 12
    first = docs[0]
    assert first.pmid == "8701013"
    assert (first.mentions[0].text, first.mentions[0].type, first.mentions[0].ids) == ("Famotidine", "Chemical", ("D015738",))
    assert all(d.text[m.start:m.end] == m.text for d in docs for m in d.mentions)
    assert ("CID", "D015738", "D003693") in {(r.type, r.arg1, r.arg2) for r in first.relations}
    assert len(read_pubtator(BC5CDR, limit=3)) == 3
    ncbi = read_pubtator(NCBI)
    assert {m.type for d in ncbi for m in d.mentions} <= {"SpecificDisease", "DiseaseClass", "Modifier", "CompositeMention"}


def test_pubtator_reader_rejects_offsets_that_do_not_match(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1|t|Aspirin helps.\n1|a|Body.\n1\t0\t5\tAspiri\tChemical\tD001241\n\n", encoding="utf-8")
    with pytest.raises(PubTatorError, match="does not match"):
        read_pubtator(bad)


def test_composite_ids_are_split(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("7|t|Breast and ovarian cancer.\n7|a|x\n7\t0\t25\tBreast and ovarian cancer\tCompositeMention\t"
                    "D001943+D010051\n7\t0\t6\tBreast\tModifier\t-1\n\n", encoding="utf-8")
    (doc,) = read_pubtator(path)
    assert doc.mentions[0].ids == ("D001943", "D010051") or doc.mentions[1].ids == ("D001943", "D010051")
    assert any(m.ids == () for m in doc.mentions)


def test_unimplemented_study_alone_exits_non_zero(monkeypatch, capsys):
    monkeypatch.setitem(STUDIES, "retrieval", Study("retrieval", "disabled for this test"))
    assert not STUDIES["retrieval"].implemented
    assert main(["--study", "retrieval"]) == 2
    assert NOT_IMPLEMENTED in capsys.readouterr().out


def test_all_lists_unimplemented_studies_without_failing(monkeypatch, capsys):
    for name in list(STUDIES):
        monkeypatch.setitem(STUDIES, name, Study(name, "disabled for this test"))
    assert main(["--study", "all"]) == 0
    out = capsys.readouterr().out
    assert out.count(NOT_IMPLEMENTED) == len(STUDIES)


def test_markdown_table_escapes_pipes():
    table = markdown_table([{"a": "x|y", "b": 0.12345}])
    assert "x\\|y" in table and "0.123" in table


@pytest.mark.slow  # e2e: runs the NER study: 31 s on a loaded 2-core machine (issue 15)
def test_quick_ner_study_on_fixture(tmp_path):
    run = STUDIES["ner"].load()
    result = run(StudyOptions(quick=True, shared_data=FIXTURE, results_dir=tmp_path))
    assert result.report == tmp_path / "ner_quick.md"
    assert result.report.is_file() and all(f.is_file() and f.suffix == ".png" for f in result.figures)
    assert len(result.figures) == 2
    text = result.report.read_text(encoding="utf-8")
    assert "Commit: `" in text and "Date: " in text and "nervaluate" in text
    assert "not installed" in text or "scispaCy NER" in text
    s = result.summary
    # on these 12 + 6 abstracts the offline pipeline scores about 0.6-0.7 (BC5CDR) and 0.3-0.5 (NCBI)
    for key in ("bc5cdr_all_strict_f1", "bc5cdr_chemical_strict_f1", "bc5cdr_disease_strict_f1"):
        assert 0.35 <= s[key] <= 1.0, (key, s[key])
    assert s["bc5cdr_all_overlap_f1"] >= s["bc5cdr_all_strict_f1"]
    assert 0.1 <= s["ncbi_disease_disease_strict_f1"] <= 1.0
    assert 0.3 <= s["bc5cdr_chemical_link_acc"] <= 1.0
    assert s["seconds"] < 60
