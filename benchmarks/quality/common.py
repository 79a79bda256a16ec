"""Shared plumbing of the quality studies: options, data location, provenance, Markdown and PNG output.

Every results file starts with the same provenance block (git commit, date, machine, package versions)
so a number in ``benchmarks/results/`` can always be traced to the code that produced it.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: Where results go by default.
RESULTS_DIR = REPO / "benchmarks" / "results"
#: Environment variable naming the shared data folder (``corpora/``, ``synonyms/``, ``hetionet/``).
SHARED_DATA_ENV = "ENGRAM_SHARED_DATA"


def default_shared_data() -> Path:
    """``$ENGRAM_SHARED_DATA`` when set, else ``<repo>/../shared/data`` (the development layout)."""
    override = os.environ.get(SHARED_DATA_ENV, "").strip()
    return Path(override).expanduser() if override else REPO.parent / "shared" / "data"


@dataclass(frozen=True)
class StudyOptions:
    """What every study receives from the command line.

    Attributes
    ----------
    quick : bool
        CI smoke mode: a small slice of the data, < 60 s per study on 2 cores. Numbers are checked for
        range, not against targets.
    shared_data : Path
        Folder with ``corpora/``, ``synonyms/`` and ``hetionet/`` (see :func:`default_shared_data`).
    results_dir : Path
        Folder the Markdown and PNG files are written to (created when missing).
    progress : bool
        Show tqdm progress bars.
    """

    quick: bool = False
    shared_data: Path = field(default_factory=default_shared_data)
    results_dir: Path = RESULTS_DIR
    progress: bool = False


@dataclass
class StudyResult:
    """What a study returns: its files and its headline numbers (for the results README and tests).

    Attributes
    ----------
    name : str
        Study name, e.g. ``"ner"``.
    report : Path
        The Markdown file written.
    figures : list of Path
        PNG files written.
    summary : dict
        Headline numbers, plain JSON types (e.g. ``{"bc5cdr_strict_f1": 0.61}``).
    seconds : float
        Wall time of the study.
    """

    name: str
    report: Path
    figures: list[Path] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


# ----------------------------------------------------------------------------------------- provenance
def git_commit(repo: Path = REPO) -> str:
    """Short commit hash of ``repo``'s HEAD, with ``+dirty`` when tracked files differ; ``"unknown"`` outside git."""
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=10", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head


def package_version(name: str) -> str:
    """Installed version of a distribution, or ``"not installed"``."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def provenance(packages: Sequence[str] = ()) -> list[str]:
    """Markdown bullet lines: commit, UTC date, machine, Python and the given packages' versions."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    versions = ", ".join(f"{p} {package_version(p)}" for p in packages)
    commit = git_commit()
    note = " (`+dirty`: tracked files had uncommitted changes)" if commit.endswith("+dirty") else ""
    lines = [
        f"- Commit: `{commit}`{note}",
        f"- Date: {now}",
        f"- Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    ]
    if versions:
        lines.append(f"- Packages: {versions}")
    return lines


# ------------------------------------------------------------------------------------------- Markdown
def fmt(value: Any, digits: int = 3) -> str:
    """A table cell: floats rounded, None as an empty cell, everything else ``str``."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def markdown_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table of ``rows`` (dicts), columns in the given (or first row's) order.

    Pipes inside cells are escaped so a surface form such as ``"a|b"`` cannot break the table.
    """
    if not rows:
        return "_(no rows)_"
    columns = list(columns) if columns is not None else list(rows[0])
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [fmt(row.get(c), digits).replace("|", "\\|").replace("\n", " ") for c in columns]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def output_name(name: str, quick: bool) -> str:
    """``name`` or ``name_quick``: quick runs never overwrite the full results."""
    return f"{name}_quick" if quick else name


def write_report(options: StudyOptions, name: str, title: str, body: Sequence[str],
                 packages: Sequence[str] = ()) -> Path:
    """Write ``<results_dir>/<name>[_quick].md``: a title, the provenance block, then ``body`` sections.

    Returns
    -------
    Path
        The file written.
    """
    options.results_dir.mkdir(parents=True, exist_ok=True)
    path = options.results_dir / f"{output_name(name, options.quick)}.md"
    mode = "quick smoke run (CI; not the note's numbers)" if options.quick else "full run"
    text = [f"# {title} ({mode})", "", *provenance(packages), "", *body]
    path.write_text("\n".join(text).rstrip() + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------------------------- plots
def grouped_bar_plot(path: Path, groups: Sequence[str], series: dict[str, Sequence[float]], *, title: str,
                     ylabel: str, reference: tuple[str, float] | None = None, ylim: tuple[float, float] = (0, 1)) -> Path:
    """Save a grouped bar chart (matplotlib, Agg backend, no display needed).

    Parameters
    ----------
    path : Path
        PNG file to write.
    groups : sequence of str
        One group of bars per entry (x axis).
    series : dict of str to sequence of float
        Legend label -> one value per group (NaN leaves a gap).
    reference : (label, value), optional
        A horizontal dashed line, e.g. a published score.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    x = np.arange(len(groups))
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(groups) + 2), 4.2), dpi=110)
    for i, (label, values) in enumerate(series.items()):
        bars = ax.bar(x + (i - (len(series) - 1) / 2) * width, values, width, label=label)
        ax.bar_label(bars, labels=[f"{v:.2f}" if v == v else "" for v in values], fontsize=7, padding=1)
    if reference is not None:
        ax.axhline(reference[1], color="black", linestyle="--", linewidth=1)
        ax.text(len(groups) - 0.5, reference[1] + 0.01, reference[0], ha="right", va="bottom", fontsize=8)
    ax.set_xticks(x, groups, fontsize=8)
    ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
