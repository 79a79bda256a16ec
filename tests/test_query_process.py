"""The query process's engine-level barriers (issue 31 items 2 and 3): file loaders refused before the engine
sees the text and blocked by a file-system sandbox beneath it, no file content in any error, and a
variable-length pattern on a hub node answered or refused with its budget named, never a crash."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from engram_kit.errors import QueryError, QueryGuardError
from engram_kit.evidence import execute_read_only
from engram_kit.kg.schema import HETIONET_SCHEMA
from engram_kit.store._isolated_child import file_access
from engram_kit.store.ladybug import LadybugStore

SECRET = "TOPSECRET-7f3a"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    nodes = pd.DataFrame({"id": [f"Gene::{i}" for i in range(1, 51)], "kind": "Gene",
                          "identifier": [str(i) for i in range(1, 51)], "name": [f"G{i}" for i in range(1, 51)]})
    edges = pd.DataFrame({"source": [f"Gene::{i}" for i in range(1, 50)], "metaedge": "GiG",
                          "target": [f"Gene::{i + 1}" for i in range(1, 50)], "sources": "test", "license": "",
                          "unbiased": "", "pubmed_ids": ""})
    store = LadybugStore(tmp_path_factory.mktemp("qp") / "graph.lbug", schema=HETIONET_SCHEMA)
    store.load_knowledge_graph(nodes, edges, progress=False)
    yield store
    store.close()


@pytest.fixture(scope="module")
def secrets(tmp_path_factory) -> Path:
    """Files holding SECRET: a well-formed CSV, a CSV whose first line breaks the CSV reader (LadybugDB put
    that line into its error text), a text file and a folder laid out like an exported database."""
    folder = tmp_path_factory.mktemp("secrets")
    (folder / "rows.csv").write_text(f"name,secret\nalice,{SECRET}\n")
    (folder / "broken.csv").write_text(f'{SECRET} "unterminated\nsecond,x,y\n')
    (folder / "note.txt").write_text(f"{SECRET}\nline two\n")
    (folder / "schema.cypher").write_text(f"// {SECRET}\n")
    (folder / "passwd").write_text(f"root:{SECRET}:0:0::/root:/bin/sh\n")
    return folder


def _file_reads(folder: Path, out: Path) -> list[str]:
    rows, broken, note, passwd = (folder / n for n in ("rows.csv", "broken.csv", "note.txt", "passwd"))
    return [
        f"LOAD FROM '{rows}' RETURN *",
        f"LOAD FROM '{broken}' RETURN *",
        f"LOAD FROM '{note}' RETURN *",
        f"LOAD WITH HEADERS (a STRING) FROM '{note}' RETURN *",
        f"LOAD FROM '{passwd}' (file_format='csv', delim=':') RETURN *",
        f"MATCH (g:Gene) WITH g LIMIT 1 LOAD FROM '{rows}' RETURN *",
        f"load from '{rows}' return *",
        f"/* x */ LOAD FROM '{rows}' RETURN *",
        f"CALL READ_CSV_SERIAL('{rows}') RETURN *",
        f"CALL READ_CSV_PARALLEL('{rows}') RETURN *",
        f"CALL READ_PARQUET('{rows}') RETURN *",
        f"CALL READ_NPY('{rows}') RETURN *",
        "CALL FILE_INFO() RETURN *",
        f"CALL PROJECT_GRAPH_CYPHER('g', 'LOAD FROM \"{rows}\" RETURN *') RETURN *",
        f"COPY Gene FROM '{rows}'",
        f"COPY (MATCH (g:Gene) RETURN g.id) TO '{out / 'leak.csv'}'",
        f"IMPORT DATABASE '{folder}'",
        f"EXPORT DATABASE '{out / 'db'}'",
        f"ATTACH '{note}' AS other (dbtype lbug)",
        f"LOAD EXTENSION '{note}'",
        "INSTALL httpfs",
    ]


def test_every_file_reader_is_refused_with_no_file_content_in_the_error(store, secrets, tmp_path):
    # the guard is bypassed here: execute_read_only is the query process's own entry
    for text in _file_reads(secrets, tmp_path):
        with pytest.raises((QueryGuardError, QueryError)) as caught:
            execute_read_only(store, text, {}, 5.0)
        assert SECRET not in str(caught.value), text
        assert "crashed" not in str(caught.value), text  # READ_CSV_* crashed the engine before the barrier
    assert not any(tmp_path.iterdir()), "a file reader wrote a file"
    # the process still answers reads, and the catalogue functions stay allowed
    assert len(execute_read_only(store, "MATCH (g:Gene) RETURN g.id LIMIT 3", {}, 5.0)) == 3
    tables = execute_read_only(store, "CALL show_tables() RETURN name", {}, 5.0)
    assert "Gene" in set(tables["name"])


def test_load_from_a_csv_names_the_file_access_rule(store, secrets):
    with pytest.raises(QueryGuardError, match=r"file access\): LOAD makes the database read files"):
        execute_read_only(store, f"LOAD FROM '{secrets / 'rows.csv'}' RETURN *", {}, 5.0)


def test_file_access_reads_names_as_names_and_strings_as_strings():
    assert file_access("MATCH (n:Gene) WHERE n.load = 1 RETURN n.copy AS use, {import: 1} AS m") == ""
    assert file_access("MATCH (n:Gene {name: 'LOAD FROM x'}) RETURN n // COPY") == ""
    assert file_access("MATCH (n) CALL { WITH n RETURN 1 AS o } RETURN n") == ""
    assert file_access("CALL show_tables() RETURN *") == ""
    assert file_access("CALL table_info('Gene') RETURN *") == ""
    assert file_access("MATCH (n) RETURN n; LOAD FROM 'x.csv' RETURN *") == "LOAD"
    assert file_access("CALL read_csv_serial('x') RETURN *") == "CALL read_csv_serial"
    # an unterminated string runs to the end: the engine refuses it, nothing after it hides from the check
    assert file_access("RETURN 'abc") == ""


def test_the_sandbox_blocks_file_reads_the_text_check_never_sees(store, secrets, tmp_path):
    # beneath the text check: a process sandboxed as the query process is cannot open the secret, whatever
    # the engine is asked; skipped where the kernel has no Landlock (the text check still applies there)
    script = textwrap.dedent(f"""
        import sys, ladybug as lb
        from engram_kit.store import _isolated_child as child
        state = child.sandbox_reads(child.readable_paths({str(store.path)!r}))
        if state != "landlock":
            print("SKIP", state); sys.exit(0)
        conn = lb.Connection(lb.Database({str(store.path)!r}, read_only=True, buffer_pool_size=64 * 1024 ** 2))
        print("ROWS", conn.execute("MATCH (g:Gene) RETURN count(*)").get_next()[0])
        for text in [{f"LOAD FROM '{secrets / 'rows.csv'}' RETURN *"!r},
                     {f"LOAD FROM '{secrets / 'broken.csv'}' RETURN *"!r},
                     {f"COPY (MATCH (g:Gene) RETURN g.id) TO '{tmp_path / 'leak.csv'}'"!r}]:
            try:
                print("READ", conn.execute(text).get_as_df().to_dict("records"))
            except RuntimeError as exc:
                print("DENIED", exc)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(Path(__file__).parents[1]), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    if run.stdout.startswith("SKIP"):
        pytest.skip(run.stdout.strip())
    lines = run.stdout.splitlines()
    assert lines[0] == "ROWS 50"  # the graph stays readable
    assert [line.split()[0] for line in lines[1:]] == ["DENIED"] * 3
    assert all("Permission denied" in line for line in lines[1:])
    assert SECRET not in run.stdout and not (tmp_path / "leak.csv").exists()


def _kernel_has_landlock() -> bool:
    """Asked of the kernel directly: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall(444, None, 0, 1) >= 1


def test_the_query_process_runs_in_the_sandbox_where_the_kernel_has_one(store):
    execute_read_only(store, "RETURN 1 AS one", {}, 5.0)
    assert store._isolated is not None
    if _kernel_has_landlock():
        assert store._isolated.sandbox == "landlock"
    else:
        assert store._isolated.sandbox.startswith("unavailable")


# --- variable-length patterns on a hub (the bundled sample) ----------------------------------------------
def test_a_three_hop_pattern_on_the_hub_is_refused_with_its_budget_not_a_crash(workspace):
    desk = workspace.evidence_desk()
    hub = desk.query("MATCH (a:Gene)-[r]-() RETURN a.id AS id, count(r) AS d ORDER BY d DESC LIMIT 1")
    hub_id, degree = hub.rows[0]
    two = desk.query("MATCH p=(a {id: $id})-[*1..2]-(b) RETURN count(p) AS n", {"id": hub_id})
    assert two.status == "ok", two.error
    # the right value, from one-hop rows: the walks a-n, plus the walks a-n-m for each neighbour n (with repeats)
    ones = workspace.store.query("MATCH (a {id: $id})-[]-(n) RETURN n.id AS n", {"id": hub_id})["n"]
    deg = workspace.store.query("MATCH (a {id: $id})-[]-(n) WITH DISTINCT n MATCH (n)-[r]-() "
                                "RETURN n.id AS n, count(r) AS d", {"id": hub_id}).set_index("n")["d"]
    assert len(ones) == degree
    assert two.rows[0][0] == degree + int(ones.map(deg).sum())
    three = desk.query("MATCH p=(a {id: $id})-[*1..3]-(b) RETURN count(p) AS n", {"id": hub_id})
    assert three.status == "failed"
    assert "crashed" not in three.error and "SIG" not in three.error
    assert "variable-length pattern enumerates every path" in three.error
    assert "buffer pool" in three.error or "timed out" in three.error
    # the shortest-path form the refusal suggests answers
    short = desk.query("MATCH (a {id: $id})-[* SHORTEST 1..3]-(b) RETURN count(DISTINCT b) AS n", {"id": hub_id})
    assert short.status == "ok" and short.rows[0][0] > degree


def test_threads_share_one_query_process(tmp_path):
    # a fresh store: four threads start its first query at once; one query process serves all of them
    import threading

    import psutil

    nodes = pd.DataFrame({"id": ["Gene::1", "Gene::2"], "kind": "Gene", "identifier": ["1", "2"], "name": ["A", "B"]})
    edges = pd.DataFrame({"source": ["Gene::1"], "metaedge": "GiG", "target": ["Gene::2"], "sources": "t",
                          "license": "", "unbiased": "", "pubmed_ids": ""})
    fresh = LadybugStore(tmp_path / "graph.lbug", schema=HETIONET_SCHEMA)
    fresh.load_knowledge_graph(nodes, edges, progress=False)
    counts: list[int] = []
    threads = [threading.Thread(target=lambda: counts.append(len(execute_read_only(
        fresh, "MATCH (g:Gene) RETURN g.id", {}, 10.0)))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert counts == [2, 2, 2, 2]
    children = [c for c in psutil.Process().children() if "_isolated_child.py" in " ".join(c.cmdline())
                and str(tmp_path) in " ".join(c.cmdline())]
    assert len(children) == 1
    fresh.close()
