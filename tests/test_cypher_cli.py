"""Raw read-only Cypher for researchers (issue 34 items 7 and 8): ``engram cypher`` (table, --json, --csv)
with the desk's guard, budgets and row citations; ``engram desk`` runs a typed query instead of parsing it
as a question; a listing that names two nodes alike shows their ids."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd

from engram_kit.cli import main
from engram_kit.evidence.guard import looks_like_cypher
from engram_kit.evidence.plans import distinct_target_names


def _gene_id(workspace_path, name: str) -> str:
    nodes = pd.read_parquet(workspace_path / "cache" / "nodes.parquet")
    return str(nodes[(nodes["kind"] == "Gene") & (nodes["name"] == name)]["id"].iloc[0])


def test_cypher_prints_cited_rows_as_a_table_json_and_csv(workspace_path, capsys):
    app = _gene_id(workspace_path, "APP")
    query = "MATCH (g:Gene {name: $name}) RETURN g.id AS id, g.name AS name"
    assert main(["cypher", "-w", str(workspace_path), query, "--param", "name=APP"]) == 0
    out = capsys.readouterr().out
    assert "q1 [ok]" in out and f"q1:r1 {{id: {app}, name: APP}}" in out
    assert main(["cypher", "-w", str(workspace_path), query, "--param", "name=APP", "--json"]) == 0
    artifact = json.loads(capsys.readouterr().out)
    assert artifact["status"] == "ok" and artifact["rows"] == [[app, "APP"]] and artifact["columns"] == ["id", "name"]
    assert main(["cypher", "-w", str(workspace_path), query, "--param", "name=APP", "--csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows == [["row", "id", "name"], ["q1:r1", app, "APP"]]


def test_cypher_applies_the_desk_row_cap_and_says_so(workspace_path, capsys):
    assert main(["cypher", "-w", str(workspace_path), "MATCH (g:Gene) RETURN g.id", "--json"]) == 0
    captured = capsys.readouterr()
    artifact = json.loads(captured.out)
    assert len(artifact["rows"]) == 100 and artifact["truncation"] == "row cap 100"  # Settings.desk_max_rows
    assert "rows cut at the row cap 100" in captured.err


def test_cypher_refusals_name_the_rule_and_the_fix(workspace_path, tmp_path, capsys):
    secret = tmp_path / "s.csv"
    secret.write_text("a\nTOPSECRET\n")
    cases = {f"LOAD FROM '{secret}' RETURN *": "(not a read)",
             "MATCH (g:Gene) DETACH DELETE g": "(write or admin keyword): DETACH",
             "MATCH (a)-[*]-(b) RETURN b": "(unbounded variable-length pattern)",
             "MATCH (a)-[*1..9]-(b) RETURN b": "(too many hops)",
             "MATCH (g:Gene) WITH g MATCH (g)-[r]-() CALL read_csv_serial('x') RETURN 1": "(procedure call)"}
    for query, rule in cases.items():
        assert main(["cypher", "-w", str(workspace_path), query]) == 2, query
        err = capsys.readouterr().err
        assert rule in err and "TOPSECRET" not in err, (query, err)
    assert main(["cypher", "-w", str(workspace_path), "RETURN 1 AS x", "--param", "oops"]) == 2
    assert "is not NAME=VALUE" in capsys.readouterr().err


def test_desk_runs_a_typed_query_guarded_instead_of_reading_it_as_a_question(workspace_path, capsys):
    # before: "BAR" in the query was resolved to three genes and the desk answered a question nobody asked
    assert main(["desk", "-w", str(workspace_path), "MATCH (g:Gene {name: 'APP'}) RETURN g.name AS name"]) == 0
    captured = capsys.readouterr()
    assert "this is a Cypher query, not a question" in captured.err
    assert "q1:r1 {name: APP}" in captured.out and "Outcome" not in captured.out


def test_looks_like_cypher_tells_queries_from_questions():
    assert looks_like_cypher("MATCH (g:Gene {name: 'BAR'}) RETURN g")
    assert looks_like_cypher("optional match (a)-[r]-(b) return count(r)")
    assert looks_like_cypher("UNWIND [1, 2] AS x RETURN x")
    assert looks_like_cypher("CREATE (n:Gene {id: 'x'})")  # a write is still Cypher (the guard refuses it)
    assert not looks_like_cypher("Match BAR to its pathways")
    assert not looks_like_cypher("With which drugs is BACE1 targeted?")
    assert not looks_like_cypher("Which genes does APP interact with?")


def test_two_pathways_of_one_name_are_told_apart_by_their_ids(workspace):
    result = workspace.run_desk("Which pathways does CASP3 participate in?")
    texts = [c.text for c in result.claims]
    apoptosis = workspace.store.query(
        "MATCH (g:Gene {name: 'CASP3'})-[:PARTICIPATES_GpPW]-(p:Pathway {name: 'Apoptosis'}) RETURN p.id AS id")
    assert len(apoptosis) == 2  # Pathway Commons and WikiPathways each have one
    listed = [t for t in texts if "Apoptosis (" in t]
    assert sorted(t.split("Apoptosis (")[1].split(")")[0] for t in listed) == sorted(apoptosis["id"])
    assert not any(t.endswith("participates in Apoptosis") for t in texts)


def test_distinct_target_names_only_adds_ids_where_names_repeat():
    rows = [("r1", {"target": "Apoptosis", "target_id": "Pathway::PC7_1684"}),
            ("r2", {"target": "Apoptosis", "target_id": "Pathway::WP254_r84652"}),
            ("r3", {"target": "Cell Cycle", "target_id": "Pathway::PC7_2519"}),
            ("r4", {"target": "Cell Cycle", "target_id": "Pathway::PC7_2519"})]  # the same node twice: no id
    assert distinct_target_names(rows) == {"r1": "Apoptosis (Pathway::PC7_1684)",
                                           "r2": "Apoptosis (Pathway::WP254_r84652)",
                                           "r3": "Cell Cycle", "r4": "Cell Cycle"}
