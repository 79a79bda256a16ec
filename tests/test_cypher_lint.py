"""Every Cypher text the Neo4j backend can send passes Neo4j's own parser and semantic checks.

``python -m engram_kit.store.statements --dump neo4j`` emits the registry (expanded over every label and
relationship type a statement may take), the Neo4j DDL and the GDS calls, with a schema declaring our labels,
relationship types, property keys, parameters, built-in functions and GDS routines;
``scripts/lint_cypher.mjs`` runs ``lintCypherQuery`` from ``@neo4j-cypher/language-support`` on each.
Needs Node.js and ``npm ci`` at the repository root (``package-lock.json``); skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engram_kit.errors import DataError
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS, lint_payload

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "lint_cypher.mjs"
PACKAGE = REPO / "node_modules" / "@neo4j-cypher" / "language-support"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed: the Cypher lint needs `node`"),
    pytest.mark.skipif(not PACKAGE.exists(), reason="@neo4j-cypher/language-support is not installed: run "
                                                    "`npm ci --no-audit --no-fund` at the repository root"),
]


def _lint(payload: dict) -> dict:
    proc = subprocess.run(["node", str(SCRIPT)], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=REPO, timeout=900)  # ~16 s of CPU for ~300 statements
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_every_neo4j_statement_lints_clean():
    dump = subprocess.run([sys.executable, "-m", "engram_kit.store.statements", "--dump", "neo4j"], capture_output=True,
                          text=True, cwd=REPO, timeout=900, check=True)
    payload = json.loads(dump.stdout)
    names = {s["name"].split("[")[0] for s in payload["statements"]}
    assert {"gds_pagerank_stream", "gds_project_retrieval_graph", "gds_graph_drop", "write_literature"} - names \
        == {"write_literature"}  # GDS calls are in; names are statement names, not store methods
    assert len(payload["statements"]) > 250  # expanded over labels and relationship types
    report = _lint(payload)
    problems = [f"{p['severity']}: {p['name']}: {p['message']}" for p in report["problems"]]
    assert report["errors"] == 0 and report["warnings"] == 0, "\n".join(problems[:20])


def test_the_lint_input_names_its_schema(capsys):
    """No graph format is assumed: the library refuses to lint without a schema, the CLI names Hetionet by default
    and refuses a format whose schema comes from its data."""
    from engram_kit.store.statements.__main__ import _main

    with pytest.raises(DataError, match="needs the graph schema"):
        lint_payload(NEO4J_STATEMENTS, None)
    with pytest.raises(SystemExit):
        _main(["--dump", "neo4j", "--schema", "kgx"])
    assert "not a graph format with a fixed schema" in capsys.readouterr().err
    assert _main(["--dump", "neo4j", "--schema", "hetionet"]) == 0
    dumped = json.loads(capsys.readouterr().out)
    assert dumped == json.loads(json.dumps(lint_payload(NEO4J_STATEMENTS, HETIONET_SCHEMA)))


def test_the_linter_catches_broken_statements():
    payload = lint_payload(NEO4J_STATEMENTS, HETIONET_SCHEMA)
    payload["statements"] = [
        {"name": "syntax", "text": "MATCH (n:Gene {id: $id} RETURN n"},
        {"name": "label", "text": "MATCH (n:Genes) WHERE n.id IN $ids RETURN n.id AS id"},
        {"name": "parameter", "text": "MATCH (n:Gene) WHERE n.id IN $idz RETURN n.id AS id"},
        {"name": "procedure", "text": "CALL gds.pageRank.strem($graph_name, {}) YIELD nodeId RETURN nodeId"},
        {"name": "yield", "text": "CALL gds.pageRank.stream($graph_name, {}) YIELD nodeId, scor RETURN nodeId"},
    ]
    report = _lint(payload)
    flagged = {p["name"] for p in report["problems"]}
    assert flagged == {"syntax", "label", "parameter", "procedure", "yield"}


def test_every_neo4j_statement_of_a_kgx_workspace_lints_clean():
    """A KGX graph's schema (labels and relationship types from the data) yields statements and DDL that Neo4j's
    parser accepts too: the Neo4j backend serves the Monarch sample with the same registry."""
    from engram_kit.kg.kgx import load_kgx

    kg = load_kgx(REPO / "data" / "kgx" / "graph_nodes.tsv", REPO / "data" / "kgx" / "graph_edges.tsv", progress=False)
    payload = lint_payload(NEO4J_STATEMENTS, kg.schema)
    texts = " ".join(s["text"] for s in payload["statements"])
    assert "HAS_PHENOTYPE" in texts and "r.negated" in texts and "BINDS_CbG" not in texts
    report = _lint(payload)
    problems = [f"{p['severity']}: {p['name']}: {p['message']}" for p in report["problems"]]
    assert report["errors"] == 0 and report["warnings"] == 0, "\n".join(problems[:20])


def test_the_evidence_desks_neo4j_queries_lint_clean():
    """The desk's keyword templates and intent plans on a Neo4j store (portable Cypher around the Neo4j pack's
    fragments: ``split``, ``collect(...)[0..n]``) pass Neo4j's parser: the desk's dialect pieces are the pack's."""
    from engram_kit.answering.intent import parse_intent
    from engram_kit.evidence.plans import plan_queries
    from engram_kit.evidence.templates import TEMPLATE_KINDS, TEMPLATES, template_cypher

    texts = [{"name": f"template[{t.name},{kind}]", "text": template_cypher(t.name, kind, NEO4J_STATEMENTS,
                                                                                  schema=HETIONET_SCHEMA)}
             for t in TEMPLATES for kind in TEMPLATE_KINDS]
    for question, anchor in (("What treats type 2 diabetes?", ("type 2 diabetes", "Disease")),  # one hop
                             ("Which side effects do drugs treating type 2 diabetes cause?",
                              ("type 2 diabetes", "Disease")),  # two hops: first_distinct
                             ("How many genes does metformin bind?", ("metformin", "Compound")),
                             ("Which compounds treat the most diseases?", None),  # rank
                             ("How many genes are there?", None)):  # count of a kind
        intent = parse_intent(question, [anchor] if anchor else [], HETIONET_SCHEMA)
        assert intent.known, question
        listing, total = plan_queries(intent, "Disease::DOID:9352", "x", HETIONET_SCHEMA, NEO4J_STATEMENTS)
        texts += [{"name": f"plan[{question}]", "text": q.cypher} for q in (listing, total) if q is not None]
    assert any("[0..3]" in t["text"] for t in texts) and any("size(split(" in t["text"] for t in texts)
    payload = lint_payload(NEO4J_STATEMENTS, HETIONET_SCHEMA)
    payload["statements"] = texts
    payload["schema"]["functions"] = [*payload["schema"]["functions"], "size", "split"]  # the desk's own calls
    report = _lint(payload)
    problems = [f"{p['severity']}: {p['name']}: {p['message']}" for p in report["problems"]]
    assert report["errors"] == 0 and report["warnings"] == 0, "\n".join(problems[:20])
