"""Start-up work paid only by the commands that use it (issue 30), and the resident `engram ask -` session.

The import tests run the CLI in a fresh interpreter (``python -c``) and read its ``sys.modules``: a module imported
by an earlier test in this process would hide a regression here. No test measures time.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engram_kit.extraction.stopwords import ENGLISH_STOPWORDS

REPO = Path(__file__).resolve().parents[1]
#: Libraries that `engram info` and `engram --help` must not import (spaCy/scispaCy and torch are paid when text
#: is parsed, sklearn when a TF-IDF index is built, onnxruntime when text is embedded, chromadb when vectors are
#: read or written).
HEAVY: tuple[str, ...] = ("spacy", "scispacy", "thinc", "torch", "sklearn", "onnxruntime", "chromadb",
                          "sentence_transformers", "transformers")
#: Deadline against a hung child (not a speed assertion).
DEADLINE_S = 600


def _run_cli(argv: list[str], *, stdin: str = "", env: dict[str, str] | None = None) -> tuple[int, str, str, list[str]]:
    """Run ``engram_kit.cli.main(argv)`` in a fresh interpreter; returns status, stdout, stderr and which of
    :data:`HEAVY` (plus numpy/pandas) it imported (printed as the last stdout line)."""
    code = textwrap.dedent(f"""
        import json, sys
        from engram_kit.cli import main
        try:
            status = main({argv!r})
        except SystemExit as exc:
            status = exc.code or 0
        sys.stdout.flush()
        print(json.dumps(sorted(m for m in {(*HEAVY, "numpy", "pandas")!r} if m in sys.modules)))
        sys.exit(status)
    """)
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), str(REPO / "widgets"),
                                                                            os.environ.get("PYTHONPATH", "")])),
                **(env or {})}
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True,
                          timeout=DEADLINE_S, env=full_env, cwd=REPO)
    *out, modules = done.stdout.rstrip("\n").split("\n")
    return done.returncode, "\n".join(out), done.stderr, json.loads(modules)


# --- unit -----------------------------------------------------------------------------------------------------
def test_stopword_copy_matches_spacy_and_sklearn() -> None:
    """The frozen copy the gazetteer imports equals the union it replaces; an upgrade that changes either list
    fails here."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    from spacy.lang.en.stop_words import STOP_WORDS

    assert ENGLISH_STOPWORDS == frozenset(w.lower() for w in STOP_WORDS | ENGLISH_STOP_WORDS)
    assert len(ENGLISH_STOPWORDS) == 353


def test_help_imports_no_heavy_module() -> None:
    status, out, _, modules = _run_cli(["--help"])
    assert status == 0 and "ask" in out and "dashboard" in out
    assert modules == [], f"`engram --help` imported {modules}"


def test_empty_question_refused_before_the_workspace_is_opened(tmp_path: Path) -> None:
    # The folder holds no workspace: a refusal naming the empty question (not the missing workspace) shows the
    # argument was checked first, and nothing heavy was imported for it.
    status, _, err, modules = _run_cli(["ask", "   ", "-w", str(tmp_path / "none")])
    assert status == 2
    assert "The question is empty" in err and "No workspace" not in err
    assert [m for m in modules if m in HEAVY] == []


def test_vector_count_recorded_at_each_write(tmp_path: Path) -> None:
    from engram_kit.store.vector_count import COUNT_FILE, recorded_vector_count
    from engram_kit.store.vectors import VectorStore

    folder = tmp_path / "vectors"
    vectors = np.eye(4, dtype=np.float32)
    with VectorStore(folder, dimension=4, model_name="m") as store:
        assert recorded_vector_count(folder) == 0  # a write-mode open records the count
        store.upsert(["a", "b", "c"], vectors[:3])
        assert recorded_vector_count(folder) == 3
        store.upsert(["c", "d"], vectors[2:])  # "c" replaced, "d" added
        assert recorded_vector_count(folder) == 4
        store.delete(["a", "zzz"])
        assert recorded_vector_count(folder) == 3 == store.count()
    (folder / COUNT_FILE).write_text(json.dumps({"count": 99}))  # stale, as after a crash between two writes
    with VectorStore(folder, dimension=4, model_name="m", read_only=True) as reader:
        assert reader.count() == 3
    assert recorded_vector_count(folder) == 99  # a read-only open writes nothing
    with VectorStore(folder, dimension=4, model_name="m") as store:
        assert recorded_vector_count(folder) == 3  # a write-mode open heals it
        store.drop()
    assert recorded_vector_count(folder) == 0
    (folder / COUNT_FILE).write_text("not json")
    assert recorded_vector_count(folder) is None


def test_gazetteer_cache_is_reused_and_keyed_on_the_lexicon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engram_kit.extraction import gazetteer_cache
    from engram_kit.extraction.gazetteer import Gazetteer
    from engram_kit.extraction.lexicon import Lexicon, load_node_table

    nodes = load_node_table(REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz")
    lexicon_file = Lexicon.build(nodes[nodes["kind"].isin(["Compound", "Disease"])], None).save(tmp_path / "ws" / "cache" / "lexicon.pkl")
    lexicon = Lexicon.load(lexicon_file)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    built: list[int] = []
    real_init = Gazetteer.__init__

    def counting_init(self: Gazetteer, lex: Lexicon) -> None:
        built.append(1)
        real_init(self, lex)

    monkeypatch.setattr(Gazetteer, "__init__", counting_init)
    cache = lexicon_file.parent
    reader = gazetteer_cache.load_or_build(lexicon, lexicon_file, cache, writable=False)
    assert built == [1] and not (cache / gazetteer_cache.WORKSPACE_FILE).exists()  # a reader writes elsewhere
    assert list((tmp_path / "user" / "engram-kit").glob("gazetteer-*.pkl"))
    again = gazetteer_cache.load_or_build(lexicon, lexicon_file, cache, writable=False)
    assert built == [1]  # read from the user cache
    text = "Aspirin and ibuprofen reduce inflammation in Alzheimer's disease."
    assert again.find(text) == reader.find(text) == Gazetteer(lexicon).find(text) != []
    built.clear()
    gazetteer_cache.load_or_build(lexicon, lexicon_file, cache, writable=True)
    assert built == [1] and (cache / gazetteer_cache.WORKSPACE_FILE).is_file()
    gazetteer_cache.load_or_build(lexicon, lexicon_file, cache, writable=True)
    assert built == [1]
    os.utime(lexicon_file, ns=(1, 1))  # a rewritten lexicon: the old automaton must not be used
    gazetteer_cache.load_or_build(lexicon, lexicon_file, cache, writable=True)
    assert built == [1, 1]
    for i in range(gazetteer_cache.USER_CACHE_KEEP + 2):  # readers of ever new lexicons: the user cache stays small
        os.utime(lexicon_file, ns=(10 + i, 10 + i))
        gazetteer_cache.load_or_build(lexicon, lexicon_file, cache, writable=False)
    assert len(list((tmp_path / "user" / "engram-kit").glob("gazetteer-*.pkl"))) == gazetteer_cache.USER_CACHE_KEEP


# --- end to end -------------------------------------------------------------------------------------------
def test_info_imports_no_heavy_module(kgx_workspace_path: Path) -> None:
    """`engram info` reads counts from the graph store and the manifest: no parsing stack, no vector store."""
    from engram_kit.workspace import Workspace

    status, out, err, modules = _run_cli(["info", "-w", str(kgx_workspace_path)])
    assert status == 0, err
    assert [m for m in modules if m in HEAVY] == [], f"`engram info` imported {modules}"
    line = next(x for x in out.splitlines() if x.startswith("vectors "))
    with Workspace.open(kgx_workspace_path, read_only=True) as ws:
        assert int(line.split()[1].replace(",", "")) == ws.vector_count(recorded=False) > 0


def test_check_reports_a_stale_vector_count(kgx_workspace_path: Path, tmp_path: Path) -> None:
    from engram_kit.cli import main
    from engram_kit.store.vector_count import record_vector_count, recorded_vector_count

    copy = tmp_path / "ws"
    shutil.copytree(kgx_workspace_path, copy)
    assert main(["check", "-w", str(copy)]) == 0
    actual = recorded_vector_count(copy / "vectors")
    assert actual is not None and actual > 0
    record_vector_count(copy / "vectors", actual + 5)
    status, _, err, _ = _run_cli(["check", "-w", str(copy)])
    assert status == 1 and f"recorded for `engram info` is {actual + 5:,}" in err
    assert main(["check", "--repair", "-w", str(copy)]) == 0
    assert recorded_vector_count(copy / "vectors") == actual


def _without_timings(text: str) -> str:
    return "\n".join(x for x in text.strip().splitlines() if not x.startswith("[resolve "))


def test_ask_stdin_answers_each_line_like_ask(kgx_workspace_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from engram_kit.cli import main

    questions = ["Which genes are associated with holoprosencephaly?", "What is SHH?"]
    singles = []
    for q in questions:
        assert main(["ask", q, "-w", str(kgx_workspace_path)]) == 0
        singles.append(_without_timings(capsys.readouterr().out))
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{questions[0]}\n\n   \n{questions[1]}\n"))
    assert main(["ask", "-", "-w", str(kgx_workspace_path)]) == 0
    blocks = capsys.readouterr().out.split("Q: ")[1:]
    assert len(blocks) == 2
    for q, block, single in zip(questions, blocks, singles):
        head, _, body = block.partition("\n")
        assert head == q
        assert _without_timings(body) == single
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{questions[1]}\n"))
    assert main(["ask", "-", "--json", "-w", str(kgx_workspace_path)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 1 and rows[0]["question"] == questions[1] and rows[0]["retrieval"]["passages"]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT"])
def test_dashboard_leaves_no_process_after_a_stop_signal(kgx_workspace_path: Path, tmp_path: Path, stop: str) -> None:
    """`engram dashboard` with a page open (so a kernel runs), then SIGTERM or SIGINT (Ctrl-C): the process table
    holds none of its server or kernel processes afterwards."""
    import signal
    import time
    import urllib.request

    import psutil

    copy = tmp_path / "ws"
    shutil.copytree(kgx_workspace_path, copy)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "widgets")])}
    cli = subprocess.Popen([sys.executable, "-m", "engram_kit.cli", "dashboard", "-w", str(copy), "--port", str(port),
                            "--no-token"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while True:  # the page request starts a kernel and runs the dashboard notebook in it
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=DEADLINE_S).read()
                break
            except OSError:
                assert cli.poll() is None and time.monotonic() < deadline, "engram dashboard did not serve"
                time.sleep(0.5)
        tree = [psutil.Process(cli.pid), *psutil.Process(cli.pid).children(recursive=True)]
        commands = [" ".join(p.cmdline()) for p in tree]
        assert any("voila" in c for c in commands) and any("ipykernel" in c for c in commands), commands
        cli.send_signal(getattr(signal, stop))
        assert cli.wait(timeout=DEADLINE_S) == 128 + getattr(signal, stop)
        _, alive = psutil.wait_procs(tree, timeout=10)
        assert [p.pid for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    finally:
        if cli.poll() is None:
            cli.kill()


def test_kernels_over_limit_counts_the_servers_kernels_started_first(tmp_path: Path) -> None:
    """A stand-in server with two 'ipykernel' children: the second one, with a limit of 1, is over it (2 running);
    with a limit of 2, or without a limit, it is not; the first one is never over (it started first)."""
    probe = textwrap.dedent("""
        import json, sys
        from engram_widgets.dashboard import kernels_over_limit
        print(json.dumps([kernels_over_limit({"ENGRAM_DASHBOARD_MAX_KERNELS": "1"}),
                          kernels_over_limit({"ENGRAM_DASHBOARD_MAX_KERNELS": "2"}), kernels_over_limit({})]))
    """)
    server = textwrap.dedent(f"""
        import subprocess, sys, time
        first = subprocess.Popen([sys.executable, "-c", {probe!r} + "\\nimport time; time.sleep(30)", "ipykernel"],
                                 stdout=open({str(tmp_path / 'first.json')!r}, "w"))
        time.sleep(0.5)
        second = subprocess.run([sys.executable, "-c", {probe!r}, "ipykernel"], capture_output=True, text=True)
        print(second.stdout, end="")
        first.kill()
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "widgets")])}
    done = subprocess.run([sys.executable, "-c", server], capture_output=True, text=True, env=env, timeout=DEADLINE_S)
    assert json.loads(done.stdout) == [[2, 1], None, None], done.stderr
    assert json.loads((tmp_path / "first.json").read_text()) == [None, None, None]


def test_ask_parses_with_spacy_only_when_needed_and_never_imports_torch(kgx_workspace_path: Path) -> None:
    """A question without a parenthesis defines no abbreviation: no spaCy. One with a definition parses with the
    blank spaCy pipeline and scispaCy's detector, still without torch (thinc's torch import is skipped)."""
    status, out, err, plain = _run_cli(["ask", "Which genes are associated with holoprosencephaly?", "-w",
                                        str(kgx_workspace_path)])
    assert status == 0, err
    assert not {"spacy", "scispacy", "thinc", "torch", "sentence_transformers"} & set(plain), plain
    status, out, err, parsed = _run_cli(["ask", "Is sonic hedgehog (SHH) mutated in holoprosencephaly?", "-w",
                                         str(kgx_workspace_path)])
    assert status == 0, err
    assert {"spacy", "scispacy"} <= set(parsed) and "torch" not in parsed, parsed


def test_dashboard_command_keeps_a_warm_kernel_and_a_session_limit(kgx_workspace_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from engram_kit.cli import main
    from engram_widgets.dashboard import MAX_KERNELS_ENV, voila_environment

    assert main(["dashboard", "-w", str(kgx_workspace_path), "--print-command"]) == 0
    assert "--preheat_kernel=True --pool_size=1" in capsys.readouterr().out  # one pre-started kernel by default
    assert main(["dashboard", "-w", str(kgx_workspace_path), "--print-command", "--pool", "0"]) == 0
    assert "preheat" not in capsys.readouterr().out
    assert main(["dashboard", "-w", str(kgx_workspace_path), "--max-sessions", "0"]) == 2
    assert "--max-sessions 0" in capsys.readouterr().err
    assert voila_environment(kgx_workspace_path, {}, max_kernels=5)[MAX_KERNELS_ENV] == "5"
    assert MAX_KERNELS_ENV not in voila_environment(kgx_workspace_path, {})


def test_read_only_questions_read_a_numpy_copy_of_the_vectors(kgx_workspace_path: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only open serves question reads from a NumPy copy of the local vectors (no chromadb): the same ids,
    vectors and sources as chromadb, the exact nearest neighbours, a copy keyed on the store's state (a write makes
    a new one), and a second cold `engram ask` that imports no chromadb."""
    from engram_kit.store.vector_cache import CachedVectors, cache_key
    from engram_kit.workspace import Workspace

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    copy = tmp_path / "ws"
    shutil.copytree(kgx_workspace_path, copy)
    with Workspace.open(copy, read_only=True) as ws:
        fast = ws.search_vectors
        assert isinstance(fast, CachedVectors)
        real = ws.vectors
        assert sorted(fast.ids()) == sorted(real.ids()) and len(fast.ids()) == real.count() > 0
        assert sorted(fast.ids("pubmed")) == sorted(real.ids("pubmed")) and fast.ids("uploaded") == []
        some = real.ids()[:3]
        mine, theirs = fast.get_embeddings(some), real.get_embeddings(some)
        assert all(np.array_equal(mine[p], theirs[p]) for p in some)
        query = ws.embedder.encode(["sonic hedgehog signalling in holoprosencephaly"])[0]
        everything = real.count()
        a, b = fast.query(query, everything), real.query(query, everything)  # all rows: HNSW is exact here
        assert [p for p, _ in a] == [p for p, _ in b]
        assert max(abs(x - y) for (_, x), (_, y) in zip(a, b)) < 1e-5
        assert fast.query(query, 5, source="uploaded") == [] and len(fast.query(query, 5)) == 5
    assert len(list((tmp_path / "user" / "engram-kit").glob("vectors-*.npz"))) == 1  # never in the workspace
    model = json.loads((copy / "manifest.json").read_text())["embedding_model"]
    before = cache_key(copy / "vectors", model["name"], int(model["dimension"]))
    with Workspace.open(copy) as ws:  # a write: one more vector
        ws.vectors.upsert(["extra#p0"], np.ones((1, int(model["dimension"])), dtype=np.float32), [{"source": "pubmed"}])
    assert cache_key(copy / "vectors", model["name"], int(model["dimension"])) != before
    with Workspace.open(copy, read_only=True) as ws:
        assert "extra#p0" in ws.search_vectors.ids()
    env = {"XDG_CACHE_HOME": str(tmp_path / "user")}
    status, out, err, modules = _run_cli(["ask", "What is SHH?", "-w", str(copy)], env=env)
    assert status == 0 and "Answer" in out, err
    assert "chromadb" not in modules, modules
