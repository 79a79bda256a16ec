"""Helpers every graph-format loader shares: reading (gzip or plain) tables, line-exact problem reports, the
load report, and verified downloads.

The format loaders (:mod:`~engram_kit.kg.hetionet`, :mod:`~engram_kit.kg.kgx`, ...) build on these and on
nothing private of each other; a new format's module does the same.

* :class:`LoadReport`: what a loader loaded and skipped (each format's report extends it).
* :class:`Problems`, :func:`empty_skipped`: invalid rows collected vectorised, then raised (first by line) or
  skipped and listed.
* :func:`read_bytes`, :func:`is_gzip_file`, :func:`line_field_counts`: raw file access.
* :func:`file_sha256`, :func:`fetch_verified`, :func:`download_one`: downloads verified against published or
  recorded SHA-256 digests (never started implicitly: only the ``download_*`` functions call them).
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import requests

from engram_kit.errors import DataError, DownloadError
from engram_kit.progress import tqdm

logger = logging.getLogger(__name__)

#: First two bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"
#: Columns of a load report's skipped-lines frame.
SKIPPED_COLUMNS: tuple[str, ...] = ("file", "table", "line", "reason")


# ------------------------------------------------------------------------------------------------
# Load report
# ------------------------------------------------------------------------------------------------
def empty_skipped() -> pd.DataFrame:
    """An empty skipped-lines frame (columns :data:`SKIPPED_COLUMNS`, ``line`` int64)."""
    return pd.DataFrame({c: pd.Series(dtype="int64" if c == "line" else object) for c in SKIPPED_COLUMNS})


@dataclass
class LoadReport:
    """What a graph loader loaded and what it skipped (every format's report extends this).

    Attributes
    ----------
    nodes_path, edges_path : Path
        The files read.
        The files read (``nodes_path`` None when the format has no node file).
    edge_format : str
        The edge table's layout as the loader names it (Hetionet ``"sif"``/``"tsv"``, KGX ``"tsv"``/``"jsonl"``,
        ...).
    nodes_per_kind : dict of str to int
        Loaded nodes per node kind.
    edges_per_metaedge : dict of str to int
        Loaded edges per edge type (Hetionet metaedge abbreviation, else relationship type); types absent from
        the file are absent here.
    skipped : DataFrame
        One row per skipped line: ``file, table ("nodes"|"edges"), line (1-based, header = 1), reason``.
        Empty unless loaded with ``errors="skip"``.
    seconds : float
        Wall-clock load time in seconds.
    """

    nodes_path: Path | None
    edges_path: Path | None
    edge_format: str
    nodes_per_kind: dict[str, int] = field(default_factory=dict)
    edges_per_metaedge: dict[str, int] = field(default_factory=dict)
    skipped: pd.DataFrame = field(default_factory=empty_skipped)
    seconds: float = 0.0

    @property
    def n_skipped(self) -> int:
        """Number of skipped lines (nodes and edges)."""
        return len(self.skipped)

    def to_frame(self) -> pd.DataFrame:
        """Skipped lines as a DataFrame with columns ``file, table, line, reason`` (a copy)."""
        return self.skipped.copy()

    def summary(self) -> pd.DataFrame:
        """Loaded edges per relationship type (``edges_per_metaedge``), most first.

        Returns
        -------
        DataFrame
            Columns ``rel_type, loaded``. A format whose release publishes official counts overrides this
            (Hetionet: loaded versus official per metaedge).
        """
        rows = sorted(self.edges_per_metaedge.items(), key=lambda kv: (-kv[1], kv[0]))
        return pd.DataFrame(rows, columns=["rel_type", "loaded"]).astype({"loaded": "int64"})


# ------------------------------------------------------------------------------------------------
# Raw files
# ------------------------------------------------------------------------------------------------
def is_gzip_file(path: str | os.PathLike[str]) -> bool:
    """True when the file starts with the gzip magic bytes ``1f 8b`` (whatever its suffix)."""
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def read_bytes(path: Path) -> bytes:
    """Whole file content, gunzipped when it is gzip. Raises DataError on a corrupt archive."""
    try:
        if is_gzip_file(path):
            with gzip.open(path, "rb") as handle:
                return handle.read()
        return path.read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{path}: cannot be read ({exc}). Fix: re-download or re-copy the file.") from exc


def line_field_counts(raw: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Per physical line: number of tab-separated fields and whether the line is blank.

    Returns
    -------
    fields : ndarray of shape (n_lines,), int64
    blank : ndarray of shape (n_lines,), bool (empty or only ``"\\r"``)
    """
    data = np.frombuffer(raw, dtype=np.uint8)
    newlines = np.flatnonzero(data == 10)
    ends = newlines if raw.endswith(b"\n") else np.append(newlines, len(raw))
    starts = np.concatenate(([0], newlines + 1))[: len(ends)]
    tabs = np.flatnonzero(data == 9)
    tabs_before_end = np.searchsorted(tabs, ends)
    tabs_before_start = np.searchsorted(tabs, starts)
    fields = tabs_before_end - tabs_before_start + 1
    lengths = ends - starts
    has_cr = np.zeros(len(ends), dtype=bool)
    nonempty = lengths > 0
    has_cr[nonempty] = data[ends[nonempty] - 1] == 13
    blank = (lengths - has_cr) == 0
    return fields.astype(np.int64), blank



# ------------------------------------------------------------------------------------------------
# Problems: collected vectorised, then raised (first by line) or skipped and reported
# ------------------------------------------------------------------------------------------------
@dataclass
class Problems:
    """Rows found invalid in one table: positional row mask plus per-row reason and fix.

    A loader flags rows vectorised (:meth:`add`), then :meth:`resolve` raises on the first (``errors="raise"``) or
    returns the skipped-lines frame (``errors="skip"``)."""

    path: Path
    table: str
    n_rows: int
    mask: np.ndarray = field(init=False)
    found: list[pd.DataFrame] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mask = np.zeros(self.n_rows, dtype=bool)

    def add(self, rows: np.ndarray, lines: np.ndarray, reasons: Callable[[np.ndarray], pd.Series], fix: str) -> None:
        """Record rows (bool mask over the table) not already flagged.

        ``reasons`` maps the bool mask of the newly flagged rows to one reason string per flagged row;
        it is only called when there are any, so the valid common case builds no strings.
        """
        new = rows & ~self.mask
        if not new.any():
            return
        self.mask |= new
        found = np.asarray(reasons(new), dtype=object)
        self.found.append(pd.DataFrame({"line": lines[new], "reason": found, "fix": fix}))

    def add_lines(self, lines: np.ndarray, reasons: list[str], fix: str) -> None:
        """Record lines that are not rows of the table (malformed lines)."""
        if len(lines):
            self.found.append(pd.DataFrame({"line": lines, "reason": reasons, "fix": fix}))

    def frame(self) -> pd.DataFrame:
        if not self.found:
            return empty_skipped()
        found = pd.concat(self.found, ignore_index=True).sort_values("line", kind="stable")
        return found.assign(file=str(self.path), table=self.table)[[*SKIPPED_COLUMNS, "fix"]]

    def resolve(self, errors: str) -> pd.DataFrame:
        """Raise DataError on the first problem (errors="raise"), else return the skipped-lines frame."""
        found = self.frame()
        if errors == "raise" and len(found):
            first = found.iloc[0]
            more = len(found) - 1
            tail = (f" ({more} more problem line(s) in this file; load with errors='skip' to skip them and "
                    "list them in KnowledgeGraph.report.to_frame())") if more else ""
            raise DataError(f"{self.path}, line {int(first['line'])}: {first['reason']}. "
                            f"Fix: {first['fix']}.{tail}")
        return found[list(SKIPPED_COLUMNS)].reset_index(drop=True)



# ------------------------------------------------------------------------------------------------
# Verified downloads
# ------------------------------------------------------------------------------------------------
def file_sha256(path: str | os.PathLike[str], chunk_size: int = 1 << 20) -> str:
    """SHA-256 hex digest of a file's bytes, read in ``chunk_size``-byte chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def recorded_sha256(path: Path) -> str | None:
    """The digest recorded beside ``path`` (``<file>.sha256``, ``sha256sum`` format), or None."""
    sidecar = path.with_name(path.name + ".sha256")
    if not sidecar.is_file():
        return None
    text = sidecar.read_text(encoding="utf-8").split()
    return text[0].lower() if text else None


def write_sha256(path: Path, digest: str) -> None:
    """Record ``digest`` beside ``path`` as ``<file>.sha256`` (``sha256sum`` format)."""
    path.with_name(path.name + ".sha256").write_text(f"{digest}  {path.name}\n", encoding="utf-8")


def download_one(url: str, target: Path, expected: str | None, *, progress: bool, timeout: float,
                 loader: str = "the format's loader") -> str:
    """Stream ``url`` to a temp file beside ``target``, verify, atomically rename; return the SHA-256 (hex).

    Raises
    ------
    DownloadError
        On a network error, an HTTP error status or a digest other than ``expected``; the partial file is
        removed and an existing ``target`` is left untouched.
    """
    fix = ("Fix: check the network connection and the URL (base_url), or download the file by hand into "
           f"{target.parent} and pass its path to {loader}.")
    handle = tempfile.NamedTemporaryFile(  # closed below; kept to rename after verifying
        dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False)
    temp = Path(handle.name)
    digest = hashlib.sha256()
    try:
        with handle:
            try:
                with requests.get(url, stream=True, timeout=timeout) as response:
                    response.raise_for_status()
                    total = int(response.headers.get("Content-Length") or 0) or None
                    with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=target.name,
                              disable=not progress) as bar:
                        for chunk in response.iter_content(chunk_size=1 << 20):
                            handle.write(chunk)
                            digest.update(chunk)
                            bar.update(len(chunk))
            except requests.RequestException as exc:
                raise DownloadError(f"Downloading {url} failed: {exc}. {fix}") from exc
        found = digest.hexdigest()
        if expected is not None and found != expected.lower():
            raise DownloadError(
                f"Downloaded {url} but its SHA-256 {found} does not match the expected {expected}; the file "
                "was removed. Fix: retry (the transfer may have been corrupted); if it persists the file "
                "changed upstream: check the release and pass the new digest in expected_sha256.")
        os.replace(temp, target)
        return found
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def fetch_verified(url: str, target: Path, expected: str | None, *, progress: bool, timeout: float, force: bool,
                   loader: str = "the format's loader") -> str:
    """``target`` downloaded from ``url`` unless a copy there verifies; returns its SHA-256 (hex).

    An existing copy is reused when its digest equals ``expected`` or, without one, the digest recorded beside it
    by an earlier download (trust on first use). The digest is recorded beside the file (``<file>.sha256``).

    Raises
    ------
    DownloadError
        As :func:`download_one`.
    """
    if target.is_file() and not force:
        reference = expected or recorded_sha256(target)
        found = file_sha256(target)
        if reference is not None and found == reference:
            logger.info("%s already present and verified (SHA-256 %s); not downloading.", target, found)
            return found
        logger.warning("%s exists but %s; downloading it again.", target,
                       "has no recorded checksum" if reference is None else "does not match its checksum")
    logger.info("Downloading %s to %s.", url, target)
    digest = download_one(url, target, expected, progress=progress, timeout=timeout, loader=loader)
    write_sha256(target, digest)
    if expected is None:
        logger.info("No published SHA-256 for %s: recorded %s in %s.sha256 (trust on first use).",
                    target.name, digest, target.name)
    return digest
