"""``engram shell``: a read-only question loop over one open workspace (issue 30 item 3).

A cold ``engram ask`` pays for the start-up (imports, the lexicon, the gazetteer, the embedding model, the
indexes) at every question; the shell pays once and then answers each line as ``engram ask`` would print it.
Lines starting with ``:`` are commands:

* ``:help`` lists them; ``:quit`` (or ``:q``, ``:exit``, end of input, Ctrl-D) leaves;
* ``:within PMID ...`` restricts the next answers to these papers (``pubmed:123``, ``PMID:123``, ``123`` or
  document ids, as ``engram ask --within``); ``:within`` alone lifts the restriction;
* ``:json on`` / ``:json off`` prints each answer as one JSON object per line (``engram ask --json``'s object,
  with the question) or as text;
* ``:source all|pubmed|uploaded`` chooses the passages searched (``engram ask --source``).

When standard input is a terminal, the line editor is readline (history in ``~/.engram_history``, at most
:data:`HISTORY_LINES` lines, arrows and Ctrl-R as in a shell); from a pipe, lines are read as they come, no prompt
is printed and the loop ends at end of input. A question that fails (an error of engram-kit) is reported on
standard error and the loop goes on; the exit status is then 2.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engram_kit.errors import EngramError

#: Lines kept in the history file.
HISTORY_LINES = 1000
#: The prompt shown on a terminal.
PROMPT = "engram> "
SOURCES = ("all", "pubmed", "uploaded")

HELP = """Type a question to answer it (as `engram ask` prints it), or a command:
  :help                      this list
  :within ID [ID ...]        answer from these papers only (PMIDs: 123, PMID:123, pubmed:123; or document ids)
  :within                    search every paper again
  :json on | :json off       print answers as JSON objects (one per line) or as text
  :source all|pubmed|uploaded  the passages searched
  :quit                      leave (also :q, :exit, Ctrl-D)"""


def history_file() -> Path:
    """``$ENGRAM_HISTORY`` or ``~/.engram_history``."""
    return Path(os.environ.get("ENGRAM_HISTORY") or Path.home() / ".engram_history")


@dataclass
class ShellState:
    """What the commands change: the ``within`` restriction, JSON output and the source filter."""

    within: list[str] | None = None
    json: bool = False
    source: str = "all"
    failed: int = field(default=0)


def _lines(stream: IO[str], interactive: bool) -> Iterator[str]:
    """The input lines: through readline's ``input()`` on a terminal, else read from ``stream`` until its end."""
    if interactive:
        while True:
            try:
                yield input(PROMPT)
            except EOFError:
                print(file=sys.stdout)
                return
            except KeyboardInterrupt:  # Ctrl-C drops the line being typed, as in a shell
                print("^C", file=sys.stdout)
                continue
    else:
        for line in stream:
            yield line.rstrip("\n")


def _setup_readline() -> Callable[[], None]:
    """Load the history and return the function that saves it (a no-op without readline)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - readline is part of CPython on Linux and macOS
        return lambda: None
    path = history_file()
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(HISTORY_LINES)

    def save() -> None:
        try:
            readline.write_history_file(path)
        except OSError:
            pass
    return save


def command(line: str, state: ShellState, out: IO[str]) -> bool:
    """Run one ``:`` command on ``state``; returns False when the shell should end. Unknown commands and bad
    arguments print a line naming the problem and the fix (to ``out``) and change nothing."""
    name, _, rest = line[1:].strip().partition(" ")
    name, args = name.lower(), rest.split()
    if name in ("q", "quit", "exit"):
        return False
    if name in ("h", "help", "?"):
        print(HELP, file=out)
    elif name == "within":
        state.within = args or None
        print(f"answering from {len(args)} paper(s): {' '.join(args)}" if args else "answering from every paper",
              file=out)
    elif name == "json":
        if args not in (["on"], ["off"]):
            print(":json takes on or off, e.g. :json on", file=out)
        else:
            state.json = args == ["on"]
            print(f"JSON output {'on' if state.json else 'off'}", file=out)
    elif name == "source":
        if len(args) != 1 or args[0] not in SOURCES:
            print(f":source takes one of {', '.join(SOURCES)}, e.g. :source pubmed", file=out)
        else:
            state.source = args[0]
            print(f"searching {state.source} passages", file=out)
    else:
        print(f"unknown command :{name}; type :help for the list", file=out)
    out.flush()
    return True


def run_shell(ws: Any, *, print_answer: Callable[[Any], None], stream: IO[str] | None = None,
              interactive: bool | None = None, state: ShellState | None = None, top_k: int | None = None,
              alpha: float | None = None) -> int:
    """The question loop over the open workspace ``ws`` (see module docstring); returns the exit status (0, or 2
    when a question failed).

    Parameters
    ----------
    ws : an open :class:`~engram_kit.workspace.Workspace` (read-only is enough).
    print_answer : prints one answer as text (the CLI's ``engram ask`` printer).
    stream : the input (default standard input).
    interactive : prompt and readline; default: whether ``stream`` is a terminal.
    state : the starting ``within``/JSON/source choices (default none, text, all).
    top_k, alpha : as ``engram ask --top-k/--alpha``.
    """
    stream = stream if stream is not None else sys.stdin
    interactive = stream.isatty() if interactive is None else interactive
    state = state or ShellState()
    out = sys.stdout
    save_history = _setup_readline() if interactive else (lambda: None)
    if interactive:
        print(f"engram shell on {ws.path} (read-only). Type a question, :help for commands, :quit to leave.")
    try:
        for raw in _lines(stream, interactive):
            line = raw.strip()
            if not line:
                continue
            if line.startswith(":"):
                if not command(line, state, out):
                    break
                continue
            try:
                answer = ws.ask(line, source=state.source, top_k=top_k, alpha=alpha, within=state.within)
            except EngramError as exc:
                state.failed += 1
                print(f"error: {exc}", file=sys.stderr, flush=True)
                continue
            if state.json:
                print(json.dumps({"question": line, **answer.to_dict()}, default=str), file=out)
            else:
                print_answer(answer)
                print(file=out)
            out.flush()
    finally:
        save_history()
    return 2 if state.failed else 0
