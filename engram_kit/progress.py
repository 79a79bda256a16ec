"""Progress display for long work, one helper used everywhere: :func:`tqdm`.

Where the output is read decides the form:

* a Jupyter kernel: tqdm's notebook widget (``tqdm.auto``), as before;
* a terminal (stderr is a TTY): tqdm's usual bar, redrawn in place with carriage returns;
* anything else -- a CI log, ``nohup``, a pipe, a file: :class:`LineProgress`, one plain line per
  :data:`LINE_INTERVAL` seconds (and a first and a last line), each ending in a newline. tqdm's own bar
  there writes carriage returns only, which a log keeps as one huge line.

``ENGRAM_PROGRESS=lines`` or ``=bars`` forces one form (e.g. ``bars`` in a terminal multiplexer that
reports no TTY). The callers keep tqdm's interface: ``tqdm(iterable, desc=..., unit=..., disable=...)`` or
``tqdm(total=..., ...)`` used as a context manager with ``update()``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tqdm import std

from engram_kit.settings import Settings

#: Seconds between two plain progress lines (the first and the last line are always written):
#: ``Settings.progress_line_interval_s``.
LINE_INTERVAL: float = Settings.progress_line_interval_s
#: Environment variable forcing the form: ``lines`` (plain lines) or ``bars`` (tqdm's bar).
PROGRESS_ENV = "ENGRAM_PROGRESS"
#: What each plain line shows: ``ingest PubMed: 120/430 doc (28%), 00:41 elapsed, ~01:46 left, 2.93doc/s``.
LINE_FORMAT = "{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f}%), {elapsed} elapsed, ~{remaining} left, {rate_fmt}"
#: The same without a known total.
LINE_FORMAT_NO_TOTAL = "{desc}: {n_fmt} {unit}, {elapsed} elapsed, {rate_fmt}"


class LineProgress(std.tqdm):  # type: ignore[type-arg]
    """A tqdm bar that writes plain, newline-terminated lines at most every :data:`LINE_INTERVAL` seconds.

    Same interface as :class:`tqdm.std.tqdm`; ``mininterval`` defaults to :data:`LINE_INTERVAL` and the bar
    is always left in place (``leave=True``: a log line is never "cleared" with a carriage return).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("mininterval", LINE_INTERVAL)
        # tqdm's monitor thread forces a redraw after maxinterval (10 s by default) when updates stall
        kwargs.setdefault("maxinterval", max(float(kwargs["mininterval"]), LINE_INTERVAL))
        kwargs["leave"] = True
        kwargs.pop("dynamic_ncols", None)
        self._lines_written = 0
        self._last_n: float = -1
        super().__init__(*args, **kwargs)

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        """Write the current state as one line (tqdm calls this on refresh and on close)."""
        if msg == "" or (self._lines_written and self.n == self._last_n):  # a clear, or nothing new: no line
            return True
        self._last_n = self.n
        stats = self.format_dict
        fmt = LINE_FORMAT if stats.get("total") else LINE_FORMAT_NO_TOTAL
        line = self.format_meter(**{**stats, "bar_format": fmt, "ncols": None})
        # Each line after the first starts with the newline that ends the previous one; close() writes the
        # newline that ends the last.
        self.fp.write(("\n" if self._lines_written else "") + line)
        self.fp.flush()
        self._lines_written += 1
        return True


def _in_notebook() -> bool:
    """True inside a Jupyter (IPython kernel) session, where tqdm.auto shows a widget."""
    module = sys.modules.get("IPython")
    if module is None:
        return False
    shell = module.get_ipython()  # type: ignore[attr-defined]
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def plain_lines(stream: Any = None) -> bool:
    """Whether progress on ``stream`` (default ``sys.stderr``) is written as plain lines (module docstring)."""
    forced = os.environ.get(PROGRESS_ENV, "").strip().lower()
    if forced in ("lines", "bars"):
        return forced == "lines"
    if _in_notebook():
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return not (callable(isatty) and isatty())
    except ValueError:  # a closed stream
        return True


def tqdm(*args: Any, **kwargs: Any) -> std.tqdm:  # type: ignore[type-arg]
    """A progress bar in the form the output calls for: tqdm's arguments, :class:`LineProgress` off a terminal.

    Returns
    -------
    tqdm.std.tqdm
        :class:`LineProgress` when :func:`plain_lines` holds for ``kwargs["file"]`` (default stderr), else a
        ``tqdm.auto`` bar (the notebook widget in Jupyter, the terminal bar elsewhere).
    """
    if plain_lines(kwargs.get("file")):
        return LineProgress(*args, **kwargs)
    from tqdm.auto import tqdm as auto

    return auto(*args, **kwargs)
