"""The evidence desk's read-only guard: accepted reads, refused writes and escapes, property-based fuzzing,
and the second line of defence (READ ONLY transaction, timeout, caps, budgets) on a tiny real store."""

from __future__ import annotations

import time

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram_kit.errors import QueryGuardError
from engram_kit.evidence import DeskLimits, QueryRunner, check_query, execute_read_only
from engram_kit.evidence.guard import FORBIDDEN_KEYWORDS
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.store.ladybug import LadybugStore

ACCEPTED = [
    ("MATCH (g:Gene {id: $id}) RETURN g.name", 0),
    ("MATCH (g:Gene {name: 'CREATE'}) RETURN g.name;", 0),
    ('MATCH (g:Gene) WHERE g.name = "DETACH DELETE g" RETURN g LIMIT 5', 0),
    ("MATCH (g:Gene) // CREATE (x)\nRETURN g.name LIMIT 1", 0),
    ("MATCH (g:Gene) /* DROP TABLE Gene */ RETURN g.name LIMIT 1", 0),
    ("MATCH (g:Gene {id: $id})-[:INTERACTS_GiG*1..2]-(o:Gene) RETURN o.name LIMIT 10", 2),
    ("MATCH (g:Gene {id: $id})-[:INTERACTS_GiG*..4]-(o) RETURN count(o)", 4),
    ("MATCH (g:Gene {id: $id})-[:INTERACTS_GiG*3]-(o) RETURN count(o)", 3),
    ("MATCH (a)-[r* SHORTEST 1..3]-(b) RETURN length(r)", 3),
    ("MATCH (n:Gene) RETURN n.set AS s, n.create AS c LIMIT 1", 0),
    ("CALL show_tables() RETURN *", 0),
    ("CALL table_info('Gene') RETURN *", 0),
    ("WITH 1 AS x UNWIND [1, 2] AS y RETURN x * y", 0),
    ("MATCH (`CREATE`:Gene) RETURN `CREATE`.name LIMIT 1", 0),
    ("OPTIONAL MATCH (g:Gene) RETURN 'it''s' AS s, 'a\\'b' AS t", 0),
    # names that are keywords elsewhere: aliases, map keys (were refused: issue 21)
    ("MATCH (g:Gene) RETURN g.name AS start LIMIT 1", 0),
    ("MATCH (g:Gene) RETURN g.name AS set, g.id AS `delete` LIMIT 1", 0),
    ("RETURN {create: 1, merge: 2} AS m", 0),
    ("RETURN " + "[" * 32 + "1" + "]" * 32 + " AS deep", 0),
]

REFUSED = [
    ("CREATE (n:Gene {id: 'x'})", "not a read"),
    ("MATCH (n) DETACH DELETE n", "write or admin keyword"),
    ("MATCH (n) /**/DELETE n", "write or admin keyword"),
    ("MATCH (n)/* comment */SET n.name = 'x' RETURN n", "write or admin keyword"),
    ("MATCH (n) WITH n MERGE (m:Gene {id: 'y'}) RETURN m", "write or admin keyword"),
    ("MATCH (n) REMOVE n.name RETURN n", "write or admin keyword"),
    ("MATCH (n) RETURN n; MATCH (m) DELETE m", "multiple statements"),
    ("MATCH (n) RETURN n;;", "multiple statements"),
    ("DROP TABLE Gene", "not a read"),
    ("MATCH (n) RETURN n UNION ALL CALL db.create.setNodeVectorProperty(n, 'x', [1])", "procedure call"),
    ("CALL apoc.cypher.runWrite('CREATE (n)', {}) YIELD value RETURN value", "procedure call"),
    ("RETURN apoc.cypher.runFirstColumnSingle('MATCH (n) DETACH DELETE n', {})", "namespaced function"),
    ("RETURN `apoc.cypher.runFirstColumnSingle`('CREATE (n)', {})", "namespaced function"),
    ("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "not a read"),
    ("MATCH (n) WITH n LOAD FROM 'x.csv' RETURN *", "write or admin keyword"),
    ("MATCH (n) WITH n COPY Gene FROM 'x.csv'", "write or admin keyword"),
    ("CALL install('httpfs')", "write or admin keyword"),
    ("CALL show_functions() RETURN *", "procedure call"),
    ("MATCH (n) WITH n INSTALL httpfs RETURN 1", "write or admin keyword"),
    ("MATCH (n) WITH n ATTACH 'x.lbug' AS other RETURN 1", "write or admin keyword"),
    ("MATCH (n) WITH n EXPORT DATABASE '/tmp/x' RETURN 1", "write or admin keyword"),
    ("MATCH (n) CALL { MATCH (m) DELETE m } RETURN n", "write or admin keyword"),
    ("MATCH (n) CALL { WITH n RETURN n } IN TRANSACTIONS RETURN n", "write or admin keyword"),
    ("BEGIN TRANSACTION", "not a read"),
    ("MATCH (n) WITH n COMMIT", "write or admin keyword"),
    ("MATCH (a)-[*]-(b) RETURN b", "unbounded variable-length"),
    ("MATCH (a)-[:INTERACTS_GiG*1..]-(b) RETURN b", "unbounded variable-length"),
    ("MATCH (a)-[r*2..]->(b) RETURN b", "unbounded variable-length"),
    ("MATCH (a)-[r*1..5]->(b) RETURN b", "too many hops"),
    ("MATCH (a)-[r*7]->(b) RETURN b", "too many hops"),
    ("MATCH (a)<-[r:X* SHORTEST]-(b) RETURN b", "unbounded variable-length"),
    ("MATCH p = shortestPath((a)-[*]-(b)) RETURN p", "unbounded variable-length"),
    ("MATCH ((a)-[:X]->(b))+ RETURN a", "unbounded quantified path"),
    ("MATCH ((a)-[:X]->(b)){1,} RETURN a", "unbounded quantified path"),
    ("MATCH ((a)-[:X]->(b)){1,9} RETURN a", "unbounded quantified path"),
    ("MATCH (n {name: 'unterminated}) RETURN n", "unterminated"),
    ("MATCH (n) /* never closed RETURN n", "unterminated"),
    ("MATCH (n) RETURN n ∆", "unexpected character"),
    ("", "empty"),
    ("   ;", "empty"),
    ("MATCH (n) RETURN n" + " " * 9000, "too long"),
    ("RETURN " + "[" * 1000 + "1" + "]" * 1000, "nested too deeply"),
    ("RETURN " + "CASE WHEN true THEN " * 300 + "1" + " END" * 300, "nested too deeply"),
]


@pytest.mark.parametrize(("cypher", "hops"), ACCEPTED)
def test_reads_pass(cypher, hops):
    guarded = check_query(cypher)
    assert guarded.max_hops == hops
    assert not guarded.text.endswith(";")


@pytest.mark.parametrize(("cypher", "rule"), REFUSED)
def test_writes_and_escapes_are_refused(cypher, rule):
    with pytest.raises(QueryGuardError, match=rule):
        check_query(cypher)


# --- property-based fuzzing --------------------------------------------------------------------------
_separators = st.sampled_from([" ", "\n", "\t", "/**/", "/* x */", " // c\n", "\r\n "])
_case = st.sampled_from([str.upper, str.lower, str.title, lambda s: s[0].lower() + s[1:].upper()])
_reads = st.sampled_from(["MATCH (n:Gene)", "MATCH (n) WHERE n.id = $id", "OPTIONAL MATCH (n)-[:X]-(m)",
                          "UNWIND $ids AS i MATCH (n {id: i})", "WITH 1 AS x MATCH (n)"])
_keywords = st.sampled_from(sorted(FORBIDDEN_KEYWORDS))


@settings(max_examples=300, deadline=None)
@given(read=_reads, before=_separators, after=_separators, keyword=_keywords, case=_case,
       tail=st.sampled_from(["(m:Gene {id: 'x'})", "n", "n.name = 'x'", "CSV FROM 'f' AS r", "TABLE Gene", ""]))
def test_fuzz_forbidden_keyword_anywhere_is_refused(read, before, after, keyword, case, tail):
    """A forbidden keyword outside strings, hidden by case, comments or odd whitespace, is always refused."""
    with pytest.raises(QueryGuardError):
        check_query(f"{read}{before}{case(keyword)}{after}{tail} RETURN n")


@settings(max_examples=300, deadline=None)
@given(payload=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60), quote=st.sampled_from("'\""))
def test_fuzz_anything_inside_a_string_literal_is_data(payload, quote):
    """Any text, written as a properly escaped string literal, never triggers the guard."""
    escaped = payload.replace("\\", "\\\\").replace(quote, "\\" + quote)
    guarded = check_query(f"MATCH (n:Gene) WHERE n.name = {quote}{escaped}{quote} RETURN n.name LIMIT 1")
    assert guarded.max_hops == 0


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=120))
def test_fuzz_arbitrary_text_never_crashes_the_guard(text):
    """The guard either accepts or raises QueryGuardError; accepted text starts with a read keyword."""
    try:
        guarded = check_query(text)
    except QueryGuardError:
        return
    assert guarded.text.split()[0].upper() in {"MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL"}


@settings(max_examples=200, deadline=None)
@given(low=st.integers(0, 9), high=st.integers(0, 9), open_end=st.booleans())
def test_fuzz_variable_length_bounds(low, high, open_end):
    cypher = f"MATCH (a)-[:INTERACTS_GiG*{low}..{'' if open_end else high}]-(b) RETURN b"
    if open_end or high > 4:
        with pytest.raises(QueryGuardError):
            check_query(cypher)
    else:
        assert check_query(cypher).max_hops == high


# --- second line of defence on a tiny real store --------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    nodes = pd.DataFrame({"id": [f"Gene::{i}" for i in range(1, 301)], "kind": "Gene",
                          "identifier": [str(i) for i in range(1, 301)], "name": [f"G{i}" for i in range(1, 301)]})
    edges = pd.DataFrame({"source": [f"Gene::{i}" for i in range(1, 300)], "metaedge": "GiG",
                          "target": [f"Gene::{i + 1}" for i in range(1, 300)], "sources": "test", "license": "",
                          "unbiased": "", "pubmed_ids": ""})
    store = LadybugStore(tmp_path_factory.mktemp("tiny") / "graph.lbug", schema=HETIONET_SCHEMA)
    store.load_knowledge_graph(nodes, edges, progress=False)
    yield store
    store.close()


def test_read_only_transaction_blocks_a_write_the_guard_never_saw(tiny_store):
    before = tiny_store.counts()["Gene"]
    with pytest.raises(QueryGuardError, match="read-only transaction"):
        execute_read_only(tiny_store, "CREATE (n:Gene {id: 'Gene::999', name: 'X', identifier: '999'})", {}, 10.0)
    assert tiny_store.counts()["Gene"] == before
    # the connection is usable afterwards (transaction closed, timeout reset)
    assert len(execute_read_only(tiny_store, "MATCH (g:Gene) RETURN g.id LIMIT 3", {}, 10.0)) == 3


def test_row_cap_size_cap_and_native_nodes(tiny_store):
    runner = QueryRunner(tiny_store, DeskLimits(max_rows=100))
    artifact = runner.run("MATCH (a:Gene)-[r:INTERACTS_GiG]->(b:Gene) RETURN a, r, b.name AS name")
    # the runner adds LIMIT max_rows + 1, so the engine stops one row past the cap (not at all 299)
    assert artifact.status == "ok" and artifact.rows_seen == 101
    assert len(artifact.rows) == 100 and artifact.truncated and artifact.truncation == "row cap 100"
    assert artifact.row("r100") is not None and artifact.row("r101") is None
    assert artifact.nodes[0]["label"] == "Gene" and artifact.nodes[0]["id"].startswith("Gene::")
    assert len(artifact.relationships) == 100 and artifact.relationships[0]["type"] == "INTERACTS_GiG"

    small = QueryRunner(tiny_store, DeskLimits(max_bytes=200)).run("MATCH (g:Gene) RETURN g.id, g.name")
    assert small.truncated and small.truncation == "size cap 200 bytes" and 0 < len(small.rows) < 20


def test_query_budget_and_refusals_are_artifacts(tiny_store):
    runner = QueryRunner(tiny_store, DeskLimits(run_queries=2))
    assert runner.run("MATCH (n) DETACH DELETE n").status == "refused"
    ok = [runner.run("MATCH (g:Gene {id: $id}) RETURN g.name", {"id": f"Gene::{i}"}) for i in (1, 2)]
    assert [a.rows for a in ok] == [[["G1"]], [["G2"]]]
    third = runner.run("MATCH (g:Gene) RETURN count(g)")
    assert third.status == "refused" and "run budget" in third.error
    assert [a.id for a in runner.artifacts] == ["q1", "q2", "q3", "q4"]


def test_time_budget(tiny_store):
    runner = QueryRunner(tiny_store, DeskLimits(run_seconds=0.01))
    time.sleep(0.02)
    assert "run budget" in runner.run("MATCH (g:Gene) RETURN count(g)").error


def test_query_timeout_interrupts_and_resets(tiny_store):
    runner = QueryRunner(tiny_store, DeskLimits(query_timeout_s=0.05))
    t0 = time.perf_counter()
    # 1e9 rows from three 1,000-element lists: slow, but small (a 30M-element range() can now end in the
    # query process's memory refusal instead, depending on what the process holds when it runs)
    artifact = runner.run("UNWIND range(1, 1000) AS x UNWIND range(1, 1000) AS y UNWIND range(1, 1000) AS z "
                          "WITH x * y * z AS v WHERE v % 7 = 0 RETURN count(*) AS n")
    elapsed = time.perf_counter() - t0
    assert artifact.status == "failed" and "timed out" in artifact.error
    assert elapsed < 30
    # the timeout does not leak into later queries of the store
    assert tiny_store.query("UNWIND range(1, 3000000) AS x RETURN count(*) AS n")["n"].iloc[0] == 3000000
