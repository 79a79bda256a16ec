"""Progress off a terminal is plain lines, not carriage-return bars (issue 34.15)."""

from __future__ import annotations

import io

import pytest

from engram_kit import progress
from engram_kit.progress import LINE_INTERVAL, LineProgress, tqdm


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_newline_terminated_lines_without_carriage_returns(monkeypatch) -> None:
    monkeypatch.delenv(progress.PROGRESS_ENV, raising=False)
    log = io.StringIO()
    bar = tqdm(total=4, desc="ingest PubMed", unit="doc", file=log, mininterval=0, miniters=1,
               dynamic_ncols=True, smoothing=0.1)
    assert isinstance(bar, LineProgress)
    for _ in range(4):
        bar.update(1)
    bar.close()
    text = log.getvalue()
    assert "\r" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert [line.split(" doc ")[0] for line in lines] == [f"ingest PubMed: {n}/4" for n in range(5)]
    assert lines[-1].startswith("ingest PubMed: 4/4 doc (100%), ")


def test_iterables_and_unknown_totals_and_disable(monkeypatch) -> None:
    monkeypatch.delenv(progress.PROGRESS_ENV, raising=False)
    log = io.StringIO()
    assert list(tqdm(range(3), desc="COPY tables", unit="table", file=log)) == [0, 1, 2]
    with tqdm(total=None, desc="hetionet-v1.0-nodes.tsv", unit="B", unit_scale=True, file=log) as bar:
        bar.update(2048)
    with tqdm(total=3, desc="hidden", file=log, disable=True) as bar:
        bar.update(1)
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("COPY tables: 0/3 table (0%)") and lines[1].startswith("COPY tables: 3/3 table (100%)")
    assert lines[-1].startswith("hetionet-v1.0-nodes.tsv: 2.05k B, ") and "hidden" not in log.getvalue()
    assert "\r" not in log.getvalue()


def test_lines_are_periodic_by_default() -> None:
    bar = LineProgress(total=2, file=io.StringIO())
    assert bar.mininterval == bar.maxinterval == LINE_INTERVAL == 30.0 and bar.leave is True
    bar.close()


def test_a_terminal_keeps_the_bar_and_the_environment_can_force_either(monkeypatch) -> None:
    monkeypatch.delenv(progress.PROGRESS_ENV, raising=False)
    screen = _Terminal()
    with tqdm(total=2, desc="bar", file=screen) as bar:
        bar.update(2)
    assert not isinstance(bar, LineProgress) and "\r" in screen.getvalue()
    monkeypatch.setenv(progress.PROGRESS_ENV, "lines")
    assert isinstance(tqdm(total=1, file=_Terminal()), LineProgress)
    monkeypatch.setenv(progress.PROGRESS_ENV, "bars")
    assert not isinstance(tqdm(total=1, file=io.StringIO()), LineProgress)


@pytest.mark.parametrize("closed", [True])
def test_a_closed_stream_counts_as_no_terminal(closed: bool, monkeypatch) -> None:
    monkeypatch.delenv(progress.PROGRESS_ENV, raising=False)
    stream = io.StringIO()
    stream.close()
    assert progress.plain_lines(stream) is closed
