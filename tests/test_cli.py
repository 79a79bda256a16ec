"""The engram CLI: happy path on the session workspace and clear errors."""

from __future__ import annotations

import pytest

from engram_kit.cli import main


def test_ask_prints_entities_passages_and_answer(workspace_path, workspace, capsys):
    # The fixture holds the workspace for writing: the CLI's read-only open must work beside it.
    code = main(["ask", "-w", str(workspace_path), "What does metformin treat?", "--top-k", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Metformin" in out and "Compound::DB00331" in out
    assert out.count("PMID:") >= 3
    assert "Answer (extractive)" in out
    assert main(["info", "-w", str(workspace_path)]) == 0
    info = capsys.readouterr().out
    assert "Hetionet v1.0" in info and "passages" in info
    # The MENTIONS count is of edges, not of the occurrences an ingest report counts: the line says so.
    mentions = next(line for line in info.splitlines() if line.startswith("mentions "))
    assert "one per passage and phrase" in mentions


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "-w", "{missing}", "What does metformin treat?"], "engram init"),
        (["info", "-w", "{missing}"], "engram init"),
        (["ingest", "-w", "{missing}", "{missing}/x.jsonl"], "No such file"),
    ],
)
def test_errors_are_one_clear_line(argv, message, tmp_path, capsys):
    argv = [a.replace("{missing}", str(tmp_path / "nope")) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_unknown_file_type_and_empty_question(workspace_path, workspace, tmp_path, capsys):
    bad = tmp_path / "table.csv"
    bad.write_text("a,b\n1,2\n")
    assert main(["ingest", "-w", str(workspace_path), str(bad)]) == 2
    assert "engram ingest accepts PubMed records" in capsys.readouterr().err
    assert main(["ask", "-w", str(workspace_path), "  "]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["ask", "-w", str(workspace_path), "How were the patients followed up over time?"]) == 0
    assert "without knowledge-graph seeds" in capsys.readouterr().out  # the fallback says so


def test_workspace_option_before_the_subcommand_and_bad_top_k(workspace_path, workspace, tmp_path, capsys):
    assert main(["-w", str(workspace_path), "info"]) == 0
    assert "Hetionet v1.0" in capsys.readouterr().out
    assert main(["-w", str(workspace_path), "ask", "What does metformin treat?", "--top-k", "0"]) == 2
    assert "top_k >= 1" in capsys.readouterr().err
    missing = tmp_path / "nowhere"
    assert main(["-w", str(missing), "info"]) == 2
    assert f"engram init -w {missing}" in capsys.readouterr().err


def test_ingest_folder_and_empty_file_are_explained(workspace_path, workspace, tmp_path, capsys):
    assert main(["ingest", "-w", str(workspace_path), str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_init_on_an_existing_workspace_refuses_before_announcing_a_build(workspace_path, workspace, capsys):
    # After `engram demo` a newcomer ran the README's `engram init` and read "Creating workspace ..." above the
    # refusal: the refusal now comes first and names the ways on.
    manifest = (workspace_path / "manifest.json").read_bytes()
    assert main(["init", "-w", str(workspace_path)]) == 2
    captured = capsys.readouterr()
    assert "Creating workspace" not in captured.out
    assert captured.err.startswith("error: ") and "already holds a workspace" in captured.err
    assert "--force" in captured.err and "engram ask" in captured.err
    assert (workspace_path / "manifest.json").read_bytes() == manifest  # nothing touched


def test_docs_on_abstracts_only_says_where_the_abstracts_are(workspace_path, workspace, capsys):
    # The session workspace holds the bundled PubMed abstracts and no document: `engram docs` listed nothing and
    # said "No documents yet", which read as if the ingest had been lost.
    abstracts = len(workspace.store.articles(source="pubmed"))
    assert abstracts == 430
    assert main(["docs", "-w", str(workspace_path)]) == 0
    out = capsys.readouterr().out
    assert "No documents (PDFs, web pages, text files) yet" in out
    assert f"the {abstracts:,} PubMed abstracts in the workspace are not documents" in out
    assert main(["docs", "-w", str(workspace_path), "--status", "error"]) == 0
    assert capsys.readouterr().out.strip() == "No documents match."


def test_unknown_embedder_is_refused_before_anything_is_built_or_replaced(tmp_path, capsys):
    # Workspace.create resolved the embedder after building the graph: an unknown name left a half-written folder,
    # and with overwrite it had already deleted the old workspace.
    from engram_kit.plugins import PluginError
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    fresh = tmp_path / "fresh"
    with pytest.raises(PluginError, match="Unknown embedder 'no-such-model'"):
        Workspace.create(fresh, graph="hetionet", settings=Settings(embedding_model="no-such-model"))
    assert not fresh.exists()
    old = tmp_path / "old"
    old.mkdir()
    (old / "manifest.json").write_text('{"kept": true}')
    with pytest.raises(PluginError, match="use one of .*static"):
        Workspace.create(old, graph="hetionet", settings=Settings(embedding_model="no-such-model"), overwrite=True)
    assert (old / "manifest.json").read_text() == '{"kept": true}'
    assert main(["init", "-w", str(fresh), "--embedder", "no-such-model"]) == 2
    captured = capsys.readouterr()
    assert "Creating workspace" not in captured.out and "--embedder" in captured.err and "static" in captured.err
    assert not fresh.exists()


@pytest.mark.slow
def test_init_with_the_static_embedder_records_it_and_ingests_with_it(tmp_path, sample_records, capsys):
    # Bulk ingestion's embedder could only be chosen from Python (Settings.embedding_model); `engram init
    # --embedder static` records it, and ingest and info use it.
    import gzip
    import json

    from engram_kit.workspace import Workspace

    path = tmp_path / "bulk"
    assert main(["init", "-w", str(path), "--embedder", "static"]) == 0
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["embedding_model"]["backend"] == "static" and manifest["embedding_model"]["dimension"] == 256
    records = tmp_path / "twenty.jsonl.gz"
    with gzip.open(records, "wt") as out:
        for record in sample_records[:20]:
            out.write(json.dumps({"pmid": record.pmid, "title": record.title, "abstract": record.abstract}) + "\n")
    assert main(["ingest", "-w", str(path), str(records), "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["info", "-w", str(path)]) == 0
    info = capsys.readouterr().out
    assert any(line.split()[:2] == ["embedding_backend", "static"] for line in info.splitlines() if line.strip())
    with Workspace.open(path, read_only=True) as ws:
        assert ws.embedder.dimension == 256 and ws.vectors.count() == ws.info()["passages"] >= 20


def test_force_init_from_a_missing_data_folder_keeps_the_old_workspace(tmp_path, capsys):
    # `engram init --data ../shared/data --force` on a machine without that folder deleted the demo's workspace,
    # then reported the missing folder.
    from engram_kit.errors import DataError
    from engram_kit.workspace import Workspace

    old = tmp_path / "old"
    old.mkdir()
    (old / "manifest.json").write_text('{"kept": true}')
    missing = tmp_path / "no-such-data"
    assert main(["init", "-w", str(old), "--data", str(missing), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"Data folder {missing} does not exist" in err and "--data DIR" in err
    assert (old / "manifest.json").read_text() == '{"kept": true}'
    with pytest.raises(DataError, match="does not exist"):
        Workspace.create(old, graph="hetionet", data=missing, overwrite=True)
    assert (old / "manifest.json").read_text() == '{"kept": true}'
