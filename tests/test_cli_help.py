"""The engram CLI's own texts: every argument has help, --version, and what `engram ingest` accepts (issue 34.10).

Unit tests: argparse only, no workspace is opened.
"""

from __future__ import annotations

import argparse

import pytest

import engram_kit
from engram_kit.cli import DOCUMENT_EXTENSIONS, COMMANDS, build_parser, main
from engram_kit.ingestion.pubmed import READERS


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_argument_of_every_subcommand_has_a_help_text() -> None:
    missing = [(name, a.option_strings or a.dest) for name, sub in _subparsers().items()
               for a in sub._actions if not a.help]
    assert missing == []
    assert set(_subparsers()) == {c.name for c in COMMANDS}


def test_list_arguments_show_a_metavar_not_their_dest() -> None:
    # argparse shows `--kinds [KINDS ...]` for a bare nargs="*"; the help read "keep only C of these kinds"
    lists = {(name, a.dest): a.metavar for name, sub in _subparsers().items() for a in sub._actions
             if a.nargs in ("*", "+") and a.option_strings}
    assert [key for key, metavar in lists.items() if not metavar] == []
    assert lists[("map", "docs")] == "ID" and lists[("discover", "kinds")] == "KIND"
    help_text = _subparsers()["discover"].format_help()
    assert "--kinds [KIND ...]" in help_text and "keep only C of" not in help_text
    assert "--top N" in help_text and "candidates to show (default 10)" in help_text


def test_ask_help_explains_the_question_and_source() -> None:
    text = " ".join(_subparsers()["ask"].format_help().split())
    assert "question the question in plain words" in text
    assert "pubmed (ingested PubMed records) or uploaded (documents" in text


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"engram-kit {engram_kit.__version__}"


def test_ingest_description_names_every_accepted_format() -> None:
    text = _subparsers()["ingest"].description or ""
    for suffix in [*READERS, *DOCUMENT_EXTENSIONS]:
        assert suffix in text, suffix
    assert "URLs" in text


@pytest.mark.parametrize("name", ["settings.toml", "table.csv", "notes.docx"])
def test_an_unsupported_file_gets_the_whole_list_of_accepted_formats(name: str, tmp_path, capsys) -> None:
    bad = tmp_path / name
    bad.write_text("x = 1\n")
    assert main(["ingest", "-w", str(tmp_path / "ws"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {name}: cannot ingest this file type; engram ingest accepts PubMed records (")
    for suffix in [*READERS, *DOCUMENT_EXTENSIONS]:
        assert suffix in err, suffix
    assert "PDFs and web pages come with" not in err and not (tmp_path / "ws").exists()


def test_printed_passage_scores_use_the_json_keys_and_values(capsys) -> None:
    """`engram ask` printed `graph=` and `cos=` for what `--json` calls `ppr_score` and `semantic_raw` (34.13):
    every `label=value` on a passage line is now a key of that passage in `Answer.to_dict()`, same value."""
    import re

    import pandas as pd

    from engram_kit.answering.types import Answer
    from engram_kit.cli import _print_answer
    from engram_kit.retrieval.results import PassageHit, RetrievalResult

    hit = PassageHit(rank=1, passage_id="pubmed:1#p0", article_id="pubmed:1", source="pubmed", pmid="1",
                     title="Metformin and AMPK", year=2001, section="abstract", page_start=None, page_end=None,
                     text="Metformin activates AMPK.", score=0.8125, ppr_score=0.25, semantic_score=0.5,
                     ppr_raw=0.0012, semantic_raw=0.4375, text_score=0.9375, bm25_raw=3.5)
    result = RetrievalResult(question="What does metformin activate?", source="all", graph_share=0.25, damping=0.85,
                             entities=[], passages=[hit], subgraph_nodes=pd.DataFrame(),
                             subgraph_edges=pd.DataFrame(), hub_mass=0.0, ppr_iterations=3,
                             graph="hetionet")
    answer = Answer(question=result.question, claims=[], mode="extractive", retrieval=result)
    _print_answer(answer)
    line = next(x for x in capsys.readouterr().out.splitlines() if "PMID:1 " in x)
    printed = dict(re.findall(r"(\w+)=(-?[\d.]+)", line))
    assert set(printed) == {"score", "text_score", "ppr_score", "semantic_raw"}
    keys = answer.to_dict()["retrieval"]["passages"][0]
    for label, value in printed.items():
        assert float(value) == pytest.approx(keys[label], abs=0.005), label
