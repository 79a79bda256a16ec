"""Read, validate and download Hetionet v1.0 node and edge tables.

:func:`load_hetionet` reads the node table (``id, name, kind``) and an edge table in either of the two
forms Hetionet data circulates in:

* the official SIF form ``source, metaedge, target`` (``hetionet-v1.0-edges.sif.gz``, no properties);
* the 4-column TSV ``source, metaedge, target, properties`` where ``properties`` is a JSON object or
  empty (the form of the bundled sample and of engram-kit's shared development data).

Files may be gzip-compressed or plain (detected from the magic bytes, not the suffix) and may use LF or
CRLF line ends. Reading is vectorised (pandas C parser; JSON parsed once per distinct property string),
so the 1.36M-edge development file loads in a few seconds.

:func:`download_hetionet` fetches the official release files; it is only ever called on request.

References
----------
Himmelstein DS et al. "Systematic integration of biomedical knowledge prioritizes drugs for
repurposing." eLife 6:e26726 (2017). https://doi.org/10.7554/eLife.26726
Release files: https://github.com/hetio/hetionet/tree/main/hetnet/tsv (CC0 1.0; integrated sources keep
their own licences, recorded per edge in the ``license`` property).
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from engram_kit.progress import tqdm

from engram_kit.errors import DataError
from engram_kit.kg.formats import GraphFormat
from engram_kit.kg.profiles import GraphProfile
from engram_kit.kg.schema import (
    HETIONET_SCHEMA,
    METAEDGE_BY_ABBREVIATION,
    METAEDGE_BY_REL_TYPE,
    METAEDGES,
    NODE_KINDS,
)
from engram_kit.kg.graph import KnowledgeGraph
from engram_kit.kg.loading import (
    LoadReport,
    Problems,
    empty_skipped,
    fetch_verified,
    line_field_counts,
    read_bytes,
)
from engram_kit.kg.tables import EDGE_COLUMNS, NODE_COLUMNS

if TYPE_CHECKING:
    from engram_kit.datasets import DataPaths

logger = logging.getLogger(__name__)

#: Columns of the Hetionet node TSV, in the release's order.
NODE_FILE_COLUMNS: tuple[str, ...] = ("id", "name", "kind")
#: Columns of the official SIF edge table.
SIF_EDGE_COLUMNS: tuple[str, ...] = ("source", "metaedge", "target")
#: Columns of the 4-column edge TSV (``properties`` is a JSON object or empty).
TSV_EDGE_COLUMNS: tuple[str, ...] = ("source", "metaedge", "target", "properties")

#: Where the official Hetionet v1.0 TSV/SIF release files are served (hetio/hetionet, branch main).
HETIONET_BASE_URL = "https://github.com/hetio/hetionet/raw/main/hetnet/tsv/"
#: Role -> file name of the official release files fetched by :func:`download_hetionet`.
HETIONET_FILES: dict[str, str] = {
    "nodes": "hetionet-v1.0-nodes.tsv",
    "edges": "hetionet-v1.0-edges.sif.gz",
}
#: Known SHA-256 digests of release files. The edges digest is the Git LFS object id recorded in
#: hetio/hetionet@38873689199f81b0e6e11554d9803b94f0c4a12c:hetnet/tsv/hetionet-v1.0-edges.sif.gz
#: (an LFS pointer; size 12,401,407 bytes). The nodes file is stored in git directly and no digest is
#: published for it, so it is checked trust-on-first-use (see :func:`download_hetionet`).
HETIONET_SHA256: dict[str, str] = {
    "hetionet-v1.0-edges.sif.gz": "611f0411ac666be4e0270e54bbca67407e14720bfc3099311f0f5eec25c5a947",
}

_PROPERTY_COLUMNS: tuple[str, ...] = ("sources", "license", "unbiased", "pubmed_ids")


# ------------------------------------------------------------------------------------------------
# Load report
# ------------------------------------------------------------------------------------------------
@dataclass
class HetionetLoadReport(LoadReport):
    """What :func:`load_hetionet` loaded and skipped (:class:`~engram_kit.kg.loading.LoadReport`), with the
    loaded-versus-official summary per metaedge. ``edge_format`` is ``"sif"`` (``source, metaedge, target``) or
    ``"tsv"`` (a ``properties`` column is present); ``edges_per_metaedge`` counts per metaedge abbreviation."""

    def summary(self) -> pd.DataFrame:
        """Loaded versus official edge count per metaedge.

        Returns
        -------
        DataFrame
            One row per Hetionet v1.0 metaedge (24, schema order), columns ``metaedge, rel_type,
            source_kind, target_kind, loaded, official, coverage``; ``coverage = loaded / official``
            in [0, 1] (can exceed 1 only for a non-Hetionet file). Official counts: Hetionet v1.0
            (:data:`engram_kit.kg.schema.METAEDGES`).
        """
        rows = [
            {
                "metaedge": m.abbreviation,
                "rel_type": m.rel_type,
                "source_kind": m.source_kind,
                "target_kind": m.target_kind,
                "loaded": int(self.edges_per_metaedge.get(m.abbreviation, 0)),
                "official": m.official_count,
            }
            for m in METAEDGES
        ]
        frame = pd.DataFrame(rows)
        frame["coverage"] = frame["loaded"] / frame["official"]
        return frame


# ------------------------------------------------------------------------------------------------
# Reading a TSV with line-exact validation
# ------------------------------------------------------------------------------------------------
@dataclass
class _Table:
    """A parsed TSV: its rows, the 1-based file line of each row and the malformed lines."""

    frame: pd.DataFrame
    lines: np.ndarray  # int64, shape (len(frame),): file line of each row (header = line 1)
    bad_lines: np.ndarray  # int64: lines with the wrong number of fields
    bad_counts: np.ndarray  # int64: field count found on each bad line


def _read_header(raw: bytes, path: Path) -> list[str]:
    first = raw.split(b"\n", 1)[0].rstrip(b"\r").removeprefix(b"\xef\xbb\xbf")  # UTF-8 BOM
    if not first.strip():
        raise DataError(f"{path}: the file is empty or its first line (the header) is blank. Fix: check the "
                        "file is a Hetionet table with a header line.")
    return first.decode("utf-8", errors="replace").split("\t")


def _check_header(header: list[str], allowed: list[tuple[str, ...]], path: Path, what: str) -> tuple[str, ...]:
    """Return the matching column tuple of ``allowed`` or raise DataError naming missing/extra columns."""
    for columns in allowed:
        if sorted(header) == sorted(columns):
            return columns
    widest = max(allowed, key=len)
    missing = [c for c in allowed[0] if c not in header]
    extra = [c for c in header if c not in widest]
    duplicated = sorted({c for c in header if header.count(c) > 1})
    problems = []
    if missing:
        problems.append(f"missing column(s) {missing}")
    if extra:
        problems.append(f"unexpected column(s) {extra}")
    if duplicated:
        problems.append(f"duplicated column(s) {duplicated}")
    expected = " or ".join("\\t".join(cols) for cols in allowed)
    raise DataError(f"{path}, line 1: the {what} header {header} has {', '.join(problems) or 'a wrong layout'}. "
                    f"Fix: the header must be {expected} (tab-separated).")


def _read_tsv(path: Path, allowed: list[tuple[str, ...]], what: str) -> _Table:
    """Read a headed TSV into str columns, recording each row's file line and malformed lines.

    Blank lines are ignored (they are not data). Lines whose field count differs from the header's are
    left out of the frame and returned in ``bad_lines`` for the caller to raise on or report.
    """
    raw = read_bytes(path)
    header = _read_header(raw, path)
    _check_header(header, allowed, path, what)
    fields, blank = line_field_counts(raw)
    line_numbers = np.arange(1, len(fields) + 1, dtype=np.int64)
    data_line = line_numbers > 1
    bad = data_line & ~blank & (fields != len(header))
    drop = data_line & (blank | bad)
    dropped_lines = line_numbers[drop]
    frame = pd.read_csv(
        io.BytesIO(raw),
        sep="\t",
        dtype=object,
        na_filter=False,
        quoting=csv.QUOTE_NONE,
        skip_blank_lines=False,
        skiprows=(dropped_lines - 1).tolist() if len(dropped_lines) else None,
        encoding="utf-8",
        encoding_errors="replace",
    )
    kept_lines = line_numbers[data_line & ~drop]
    if len(kept_lines) != len(frame):  # pragma: no cover - guards the line bookkeeping
        raise DataError(f"{path}: read {len(frame)} rows but counted {len(kept_lines)} data lines. Fix: check "
                        "the file for embedded carriage returns or NUL bytes.")
    return _Table(frame=frame, lines=kept_lines, bad_lines=line_numbers[bad], bad_counts=fields[bad])


# ------------------------------------------------------------------------------------------------
# Problems: collected vectorised, then raised (first by line) or skipped and reported
# ------------------------------------------------------------------------------------------------
def _wrong_field_count(problems: Problems, table: _Table, expected: int) -> None:
    reasons = [f"malformed row: {n} tab-separated field(s), expected {expected}" for n in table.bad_counts]
    problems.add_lines(table.bad_lines, reasons, f"give every row exactly {expected} tab-separated fields")


# ------------------------------------------------------------------------------------------------
# Nodes
# ------------------------------------------------------------------------------------------------
def _read_nodes(path: Path, errors: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read and validate the node table; return (nodes frame with NODE_COLUMNS, skipped frame)."""
    table = _read_tsv(path, [NODE_FILE_COLUMNS], "node table")
    frame, lines = table.frame, table.lines
    problems = Problems(path, "nodes", len(frame))
    _wrong_field_count(problems, table, len(NODE_FILE_COLUMNS))

    ids, kinds = frame["id"], frame["kind"]
    known_kind = kinds.isin(list(NODE_KINDS)).to_numpy()
    problems.add(~known_kind, lines, lambda m: "unknown node kind " + kinds[m].map(repr),
                 f"use one of the 11 Hetionet kinds: {', '.join(NODE_KINDS)}")

    parts = ids.str.partition("::") if len(ids) else pd.DataFrame({0: ids, 1: ids, 2: ids})
    prefix_ok = ((parts[1] == "::") & (parts[2] != "") & (parts[0] == kinds)).to_numpy()
    problems.add(~prefix_ok, lines,
                 lambda m: "node id " + ids[m].map(repr) + " does not match its kind " + kinds[m].map(repr),
                 "node ids must be '<kind>::<identifier>' with the row's kind, e.g. 'Gene::7157'")

    duplicated = ids.duplicated(keep="first").to_numpy()
    if duplicated.any():
        first_line = pd.Series(lines, index=ids.to_numpy()).groupby(level=0).min()

        def duplicate_reasons(m: np.ndarray) -> pd.Series:
            first = ids[m].map(first_line).astype(str)
            return "duplicate node id " + ids[m].map(repr) + " (first on line " + first + ")"

        problems.add(duplicated, lines, duplicate_reasons, "remove the repeated node row or give it a distinct id")

    skipped = problems.resolve(errors)
    keep = ~problems.mask
    nodes = pd.DataFrame({
        "id": ids.to_numpy()[keep],
        "kind": kinds.to_numpy()[keep],
        "identifier": parts[2].to_numpy()[keep],
        "name": frame["name"].to_numpy()[keep],
    })
    return nodes[list(NODE_COLUMNS)], skipped


# ------------------------------------------------------------------------------------------------
# Edges
# ------------------------------------------------------------------------------------------------
def _join(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "|".join(str(v) for v in value)
    return str(value)


def _parse_property_strings(values: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Parse distinct JSON property strings into the four property columns.

    Parameters
    ----------
    values : ndarray of str, shape (n_unique,)
        Distinct ``properties`` cells (``""`` = no properties).

    Returns
    -------
    columns : dict of column name to ndarray of str, shape (n_unique,)
    invalid : ndarray of bool, shape (n_unique,)
        True where the cell is not a JSON object.
    """
    out = {c: np.full(len(values), "", dtype=object) for c in _PROPERTY_COLUMNS}
    invalid = np.zeros(len(values), dtype=bool)
    for i, text in enumerate(values):
        if not text:
            continue
        try:
            props = json.loads(text)
        except ValueError:
            invalid[i] = True
            continue
        if not isinstance(props, dict):
            invalid[i] = True
            continue
        # Hetionet's edge properties name one source "source" (GpPW, CcSE, PCiC) and several "sources" (DaG, AeG,
        # CbG): both are evidence; reading only "sources" left pathway and side-effect edges without any
        sources = props.get("sources")
        out["sources"][i] = _join(sources if sources is not None else props.get("source"))
        out["license"][i] = _join(props.get("license"))
        unbiased = props.get("unbiased")
        out["unbiased"][i] = "" if unbiased is None else ("true" if unbiased in (True, "true", "True") else "false")
        out["pubmed_ids"][i] = _join(props.get("pubmed_ids"))
    return out, invalid


def _normalise_metaedges(metaedges: pd.Series) -> pd.Series:
    """Map relationship types (``"BINDS_CbG"``) to abbreviations; abbreviations and unknowns pass through."""
    uniques = metaedges.unique()
    mapping = {m: METAEDGE_BY_REL_TYPE[m].abbreviation if m in METAEDGE_BY_REL_TYPE else m for m in uniques}
    if all(k == v for k, v in mapping.items()):
        return metaedges
    return metaedges.map(mapping)


def _read_edges(path: Path, nodes: pd.DataFrame, errors: str) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Read and validate the edge table against ``nodes``; return (edges, skipped, format)."""
    table = _read_tsv(path, [SIF_EDGE_COLUMNS, TSV_EDGE_COLUMNS], "edge table")
    frame, lines = table.frame, table.lines
    edge_format = "tsv" if "properties" in frame.columns else "sif"
    n_fields = len(TSV_EDGE_COLUMNS if edge_format == "tsv" else SIF_EDGE_COLUMNS)
    problems = Problems(path, "edges", len(frame))
    _wrong_field_count(problems, table, n_fields)

    source, target = frame["source"], frame["target"]
    abbreviations = _normalise_metaedges(frame["metaedge"])
    known = abbreviations.isin(list(METAEDGE_BY_ABBREVIATION)).to_numpy()
    problems.add(~known, lines, lambda m: "unknown metaedge " + frame["metaedge"][m].map(repr),
                 f"use a Hetionet v1.0 metaedge abbreviation: {', '.join(sorted(METAEDGE_BY_ABBREVIATION))}")

    node_index = pd.Index(nodes["id"].to_numpy())
    node_kinds = np.append(nodes["kind"].to_numpy(dtype=object), "")  # position -1 -> "" (absent)
    for column, values in (("source", source), ("target", target)):
        position = node_index.get_indexer(values.to_numpy())
        absent = position < 0
        def not_in_table(m: Any, c: str = column, v: pd.Series = values) -> Any:
            return f"{c} node " + v[m].map(repr) + " is not in the node table"

        problems.add(absent, lines, not_in_table,
                     "add the node to the node table or remove the edge (check the id spelling)")
        kind_of = {m.abbreviation: getattr(m, f"{column}_kind") for m in METAEDGES}
        expected = abbreviations.map(kind_of).to_numpy(dtype=object)
        actual = node_kinds[position]
        mismatch = known & ~absent & (actual != expected)

        def kind_reasons(m: np.ndarray, c: str = column, v: pd.Series = values,
                         a: np.ndarray = actual, e: np.ndarray = expected) -> list[str]:
            return [f"{c} node {node!r} is a {got} but metaedge {abbrev} needs a {need}"
                    for node, got, abbrev, need in zip(v[m], a[m], abbreviations[m], e[m], strict=True)]

        problems.add(mismatch, lines, kind_reasons,
                     "check the direction and metaedge of the edge (Hetionet writes CbG as Compound -> Gene)")

    if edge_format == "tsv":
        codes, uniques = pd.factorize(frame["properties"], sort=False)
        columns, invalid_unique = _parse_property_strings(np.asarray(uniques, dtype=object))
        invalid = invalid_unique[codes]
        problems.add(invalid, lines,
                     lambda m: "properties is not a JSON object: " + frame["properties"][m].str.slice(0, 80),
                     "write the properties cell as a JSON object such as {\"sources\": [\"DrugBank\"]} or "
                     "leave it empty")
        property_values = {c: columns[c][codes] for c in _PROPERTY_COLUMNS}
    else:
        property_values = {c: np.full(len(frame), "", dtype=object) for c in _PROPERTY_COLUMNS}

    skipped = problems.resolve(errors)
    keep = ~problems.mask
    edges = pd.DataFrame({
        "source": source.to_numpy()[keep],
        "metaedge": abbreviations.to_numpy()[keep],
        "target": target.to_numpy()[keep],
        **{c: property_values[c][keep] for c in _PROPERTY_COLUMNS},
    })
    return edges[list(EDGE_COLUMNS)], skipped, edge_format


# ------------------------------------------------------------------------------------------------
# Public loader
# ------------------------------------------------------------------------------------------------
def load_hetionet(
    nodes_path: str | os.PathLike[str],
    edges_path: str | os.PathLike[str],
    *,
    errors: Literal["raise", "skip"] = "raise",
    progress: bool = True,
) -> KnowledgeGraph:
    """Read and validate a Hetionet node table and edge table.

    Parameters
    ----------
    nodes_path : path
        Node TSV with header ``id, name, kind`` (gzip or plain), e.g. ``hetionet-v1.0-nodes.tsv``.
    edges_path : path
        Edge table, gzip or plain: the official SIF ``source, metaedge, target``
        (``hetionet-v1.0-edges.sif.gz``) or the 4-column TSV with a JSON ``properties`` column.
        ``metaedge`` is an abbreviation (``"CbG"``); relationship types (``"BINDS_CbG"``) are accepted too.
    errors : {"raise", "skip"}
        ``"raise"``: the first invalid line raises :class:`DataError`. ``"skip"``: invalid lines are left
        out, listed in ``report.to_frame()`` and summarised in a logging warning. Edges whose endpoint
        was a skipped node are skipped too (as dangling).
    progress : bool
        Show a tqdm progress bar over the loading steps.

    Returns
    -------
    KnowledgeGraph
        Node and edge frames (columns ``NODE_COLUMNS`` / ``EDGE_COLUMNS``) and a :class:`LoadReport`.

    Raises
    ------
    DataError
        Always for an unreadable file or a wrong header (missing/extra columns). With ``errors="raise"``
        also for the first (lowest line number) of: a row with the wrong number of fields, an unknown
        node kind, a node id whose ``<kind>::`` prefix does not match its kind, a duplicate node id, an
        unknown metaedge, an edge endpoint absent from the node table, an endpoint whose kind is not the
        metaedge's, or a ``properties`` cell that is not a JSON object. The message names the file, the
        line (header = line 1), the problem and the fix.

    Notes
    -----
    Blank lines are ignored. The full-size development edge file (1,359,477 edges, 83 MB uncompressed)
    loads in about 2 s and peaks near 0.8 GB of memory; the bundled 118k-edge sample loads in 0.3 s.
    Parsing uses the pandas C reader, and each distinct ``properties`` string is JSON-decoded once.

    Examples
    --------
    >>> from engram_kit.datasets import resolve_data_paths
    >>> paths = resolve_data_paths()
    >>> kg = load_hetionet(paths.nodes, paths.edges, progress=False)
    >>> kg.report.summary().query("loaded > 0")[["metaedge", "loaded", "official", "coverage"]]  # doctest: +SKIP
    """
    if errors not in ("raise", "skip"):
        raise DataError(f"errors={errors!r} is not supported. Fix: pass errors='raise' or errors='skip'.")
    started = time.perf_counter()
    nodes_file, edges_file = Path(nodes_path), Path(edges_path)
    for role, path in (("nodes", nodes_file), ("edges", edges_file)):
        if not path.is_file():
            raise DataError(f"{role} file {path} does not exist. Fix: check the path, or get the files with "
                            "engram_kit.datasets.resolve_data_paths() or download_hetionet().")

    with tqdm(total=2, desc="Loading Hetionet", unit="table", disable=not progress) as bar:
        bar.set_postfix_str(nodes_file.name)
        nodes, skipped_nodes = _read_nodes(nodes_file, errors)
        bar.update(1)
        bar.set_postfix_str(edges_file.name)
        edges, skipped_edges, edge_format = _read_edges(edges_file, nodes, errors)
        bar.update(1)

    skipped = pd.concat([skipped_nodes, skipped_edges], ignore_index=True) if (
        len(skipped_nodes) or len(skipped_edges)) else empty_skipped()
    report = HetionetLoadReport(
        nodes_path=nodes_file,
        edges_path=edges_file,
        edge_format=edge_format,
        nodes_per_kind={str(k): int(v) for k, v in nodes["kind"].value_counts().sort_index().items()},
        edges_per_metaedge={str(k): int(v) for k, v in edges["metaedge"].value_counts().sort_index().items()},
        skipped=skipped,
        seconds=time.perf_counter() - started,
    )
    if report.n_skipped:
        by_reason = skipped["reason"].str.replace(r"'[^']*'", "'...'", regex=True).value_counts()
        logger.warning("Skipped %d invalid line(s) while loading Hetionet (%d node, %d edge lines); most "
                       "common: %s. See KnowledgeGraph.report.to_frame().", report.n_skipped,
                       len(skipped_nodes), len(skipped_edges), "; ".join(
                           f"{reason} x{count}" for reason, count in by_reason.head(3).items()))
    logger.info("Loaded %d nodes and %d edges (%s) from %s and %s in %.1f s.", len(nodes), len(edges),
                edge_format, nodes_file.name, edges_file.name, report.seconds)
    return KnowledgeGraph(nodes=nodes, edges=edges, report=report, name="Hetionet", version="v1.0",
                          schema=HETIONET_SCHEMA)


# ------------------------------------------------------------------------------------------------
# Download
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HetionetFiles:
    """Paths of downloaded Hetionet release files and their SHA-256 digests (hex).

    ``KnowledgeGraph`` comes from ``load_hetionet(files.nodes, files.edges)``.
    """

    nodes: Path
    edges: Path
    sha256: dict[str, str] = field(default_factory=dict, hash=False)


def download_hetionet(
    dest_dir: str | os.PathLike[str],
    *,
    base_url: str = HETIONET_BASE_URL,
    files: Mapping[str, str] = HETIONET_FILES,
    expected_sha256: Mapping[str, str] | None = HETIONET_SHA256,
    progress: bool = True,
    timeout: float = 60,
    force: bool = False,
) -> HetionetFiles:
    """Download the official Hetionet v1.0 node and edge tables (only when called: never implicitly).

    Parameters
    ----------
    dest_dir : path
        Folder to write into (created if missing).
    base_url : str
        URL prefix the file names are appended to; default the hetio/hetionet TSV release.
    files : mapping with keys ``"nodes"`` and ``"edges"``
        File names to fetch (default :data:`HETIONET_FILES`: ``hetionet-v1.0-nodes.tsv`` and
        ``hetionet-v1.0-edges.sif.gz``, about 12 MB together).
    expected_sha256 : mapping of file name to hex digest, or None
        Digests to verify. Default :data:`HETIONET_SHA256`, which holds the official digest of the edges
        file (the Git LFS object id in hetio/hetionet); hetio publishes none for the nodes file.
        Files without an expected digest are trusted on first use (see Notes). ``None`` verifies only
        against digests recorded by earlier downloads.
    progress : bool
        Show a tqdm byte progress bar per file.
    timeout : float
        Seconds to wait for the server to connect / send data.
    force : bool
        Download again even when a verified copy is already in ``dest_dir``.

    Returns
    -------
    HetionetFiles
        Paths of the two files and their SHA-256 digests.

    Raises
    ------
    DownloadError
        On a network error, an HTTP error status (404...) or a checksum mismatch. The message names the
        URL and the fix; the partial download is removed and any existing file is left untouched.
    DataError
        If ``files`` lacks the ``"nodes"`` or ``"edges"`` key.

    Notes
    -----
    Each file is streamed to a temporary file in ``dest_dir``, its SHA-256 computed on the fly, verified,
    then atomically renamed into place. Trust on first use: the digest is written beside the file as
    ``<file>.sha256`` (``sha256sum`` format); when no expected digest is given, that recorded digest is
    what a later call verifies an existing copy against, so silent corruption or replacement is
    detected. An existing copy that verifies is reused without downloading.
    """
    missing = {"nodes", "edges"} - set(files)
    if missing:
        raise DataError(f"download_hetionet(files=...) lacks {sorted(missing)}. Fix: pass a mapping with keys "
                        f"'nodes' and 'edges', e.g. {HETIONET_FILES}.")
    dest = Path(dest_dir)
    dest.mkdir(parents=True, exist_ok=True)
    expected_map = {k: v.lower() for k, v in (expected_sha256 or {}).items()}
    digests: dict[str, str] = {}
    paths: dict[str, Path] = {}
    for role in ("nodes", "edges"):
        name = files[role]
        target = dest / name
        url = base_url.rstrip("/") + "/" + name
        expected = expected_map.get(name)
        paths[role] = target
        digests[name] = fetch_verified(url, target, expected, progress=progress, timeout=timeout, force=force,
                                       loader="load_hetionet()")
    return HetionetFiles(nodes=paths["nodes"], edges=paths["edges"], sha256=digests)


# ------------------------------------------------------------------------------------------------
# The graph format: profile + loader (registered as "hetionet" in engram_kit.plugins)
# ------------------------------------------------------------------------------------------------
class HetionetProfile(GraphProfile):
    """Hetionet v1.0 (Himmelstein et al., eLife 2017): provenance in ``sources`` and ``pubmed_ids``."""

    def edge_provenance(self, column: Callable[[str], pd.Series]) -> dict[str, pd.Series]:
        """Hetionet keeps ``sources`` and ``pubmed_ids``; they become ``primary_knowledge_source`` and
        ``PMID:``-prefixed ``publications``; no aggregator or qualifiers."""
        sources = column("sources")
        return {"primary_knowledge_source": sources,
                "aggregator_knowledge_source": pd.Series("", index=sources.index, dtype=object),
                "publications": column("pubmed_ids").map(lambda ids: "|".join(f"PMID:{i}" for i in ids.split("|") if i)),
                "qualifiers": pd.Series("", index=sources.index, dtype=object)}

    def neighbour_provenance(self, edges: pd.DataFrame) -> pd.DataFrame:
        """Hetionet's own ``sources``/``pubmed_ids`` columns are kept as stored."""
        return edges

    def manifest_provenance(self, kg: KnowledgeGraph) -> dict[str, Any]:
        """Nothing: Hetionet's provenance is per edge."""
        return {}


#: Hetionet v1.0: the pathway and drug agents read its metaedges; the phenotype agent is not listed.
HETIONET_PROFILE = HetionetProfile(
    name="hetionet", short_name="Hetionet", display_name="Hetionet", description="Hetionet v1.0",
    llm_wording="{name}", desk_example="'What does metformin treat?'", edge_label="rel_type",
    predicates_are_names=False, edges_stored_once=True, unlisted_agents=("phenotype",),
    # An ordering, not fitted weights: a question naming a disease, gene or drug means that entity far more
    # often than a same-named side effect or anatomy term (SIDER side effects reuse disease names).
    kind_priors={"Disease": 1.0, "Gene": 0.9, "Compound": 0.9, "Anatomy": 0.6, "Symptom": 0.5,
                 "Pathway": 0.5, "Biological Process": 0.5, "Molecular Function": 0.4, "Cellular Component": 0.4,
                 "Pharmacologic Class": 0.4, "Side Effect": 0.2},
    # Hetionet's indications come in two curated kinds (PharmacotherapyDB): disease-modifying (TREATS) and
    # symptomatic (PALLIATES); a disease with no disease-modifying drug (Parkinson's) has symptomatic ones.
    relation_fallbacks={"treats": ("palliates",), "palliates": ("treats",)},
)


def load_hetionet_format(data: str | os.PathLike[str] | DataPaths | None, *, name: str = "", release: str = "",
                         options: Mapping[str, str] | None = None, progress: bool = True) -> KnowledgeGraph:
    """The ``hetionet`` format's loader (:class:`~engram_kit.kg.formats.GraphLoader`).

    ``data``: a :class:`~engram_kit.datasets.DataPaths`, a data folder in the bundled layout (``hetionet/``,
    ``synonyms/``, ``pubmed/``), or None for the bundled sample (or ``$ENGRAM_DATA_DIR``). The graph keeps the
    folder's synonym tables (``synonyms_dir``). ``options``: ``errors`` (``raise``, default, or ``skip``).

    Raises
    ------
    DataError
        As :func:`~engram_kit.datasets.resolve_data_paths` and :func:`load_hetionet`.
    """
    from engram_kit.datasets import DataPaths, resolve_data_paths

    paths = data if isinstance(data, DataPaths) else resolve_data_paths(Path(data) if data else None)
    errors = (options or {}).get("errors") or "raise"
    if errors not in ("raise", "skip"):
        raise DataError(f"Option errors={errors!r}: use raise or skip.")
    kg = load_hetionet(paths.nodes, paths.edges, errors=errors, progress=progress)  # type: ignore[arg-type]
    kg.name, kg.version = name or kg.name, release or kg.version
    kg.synonyms_dir = paths.synonyms_dir
    return kg


#: The ``hetionet`` graph format (registered in :mod:`engram_kit.plugins`).
HETIONET_FORMAT = GraphFormat(
    name="hetionet", profile=HETIONET_PROFILE, loader=load_hetionet_format, schema=HETIONET_SCHEMA,
    description="Hetionet v1.0 node and edge TSVs (the bundled sample, a data folder, or the downloaded release)",
    data_help="a data folder in the bundled layout (hetionet/, synonyms/, pubmed/); default the bundled sample or "
              "$ENGRAM_DATA_DIR",
    options={"errors": "raise (default) or skip invalid lines (listed in the load report)"},
)
