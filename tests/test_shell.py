"""`engram shell` (issue 30 item 3): the same answers as `engram ask`, its `:` commands, and the end of a piped
input (it must not wait for more)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram_kit.shell import ShellState, command

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = ["Which genes are associated with holoprosencephaly?", "What is SHH?"]


def _without_timings(text: str) -> str:
    return "\n".join(x for x in text.strip().splitlines() if not x.startswith("[resolve "))


def test_commands_change_the_state_and_refuse_bad_arguments() -> None:
    state, out = ShellState(), io.StringIO()
    assert command(":within 123 PMID:456", state, out) and state.within == ["123", "PMID:456"]
    assert command(":within", state, out) and state.within is None
    assert command(":json on", state, out) and state.json
    assert command(":json maybe", state, out) and state.json  # unchanged
    assert command(":json off", state, out) and not state.json
    assert command(":source pubmed", state, out) and state.source == "pubmed"
    assert command(":source books", state, out) and state.source == "pubmed"
    assert command(":frobnicate", state, out)
    assert command(":help", state, out)
    text = out.getvalue()
    assert ":json takes on or off" in text and ":source takes one of all, pubmed, uploaded" in text
    assert "unknown command :frobnicate; type :help" in text and ":within ID" in text
    assert not command(":quit", state, out) and not command(":q", state, out) and not command(":exit", state, out)


def test_shell_answers_like_ask(kgx_workspace_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    from engram_kit.cli import main

    singles = []
    for q in QUESTIONS:
        assert main(["ask", q, "-w", str(kgx_workspace_path)]) == 0
        singles.append(_without_timings(capsys.readouterr().out))
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{QUESTIONS[0]}\n\n{QUESTIONS[1]}\n:json on\n{QUESTIONS[1]}\n"))
    assert main(["shell", "-w", str(kgx_workspace_path)]) == 0
    out = capsys.readouterr().out
    text, _, tail = out.partition("JSON output on\n")
    assert "engram>" not in out  # no prompt from a pipe
    first, second = text.split("\n\n\n")[:2] if "\n\n\n" in text else (None, None)
    assert _without_timings(text).count("Answer (extractive)") == 2
    for single in singles:
        assert single in _without_timings(text)
    row = json.loads(tail.strip().splitlines()[-1])
    assert row["question"] == QUESTIONS[1] and row["retrieval"]["passages"]
    del first, second


def test_within_restricts_the_papers_and_piped_input_ends(kgx_workspace_path: Path, tmp_path: Path) -> None:
    """A subprocess fed by a pipe that is closed after the last line (no :quit) must exit by itself; :within
    keeps only the named papers; a failed question is reported and the loop goes on (exit status 2)."""
    from engram_kit.workspace import Workspace

    with Workspace.open(kgx_workspace_path, read_only=True) as ws:
        hits = ws.retrieve(QUESTIONS[0]).passages
    pmid = next(h.passage_id for h in hits).split(":")[1].split("#")[0]
    lines = [":json on", f":within {pmid}", QUESTIONS[0], ":within", "   ", QUESTIONS[0]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "widgets")]),
           "ENGRAM_HISTORY": str(tmp_path / "history")}
    done = subprocess.run([sys.executable, "-m", "engram_kit.cli", "shell", "-w", str(kgx_workspace_path)],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    assert len(rows) == 2
    within = {p["passage_id"].split("#")[0] for p in rows[0]["retrieval"]["passages"]}
    assert within == {f"pubmed:{pmid}"}
    assert len({p["passage_id"] for p in rows[1]["retrieval"]["passages"]}) > 1
    done = subprocess.run([sys.executable, "-m", "engram_kit.cli", "shell", "-w", str(kgx_workspace_path)],
                          input=f":within nosuchpaper\n{QUESTIONS[1]}\n:quit\n{QUESTIONS[1]}\n", capture_output=True,
                          text=True, timeout=600, env=env)
    assert done.returncode == 2 and done.stderr.count("error:") == 1, done.stderr
    assert done.stdout.count("Answer (") == 0
