"""Read Biolink KGX node and edge files into a :class:`KnowledgeGraph` whose schema comes from the data.

KGX ("Knowledge Graph Exchange") is the Biolink Model's interchange format: a node file and an edge file,
as tab-separated values (``nodes.tsv`` / ``edges.tsv``, multi-valued cells ``|``-separated) or JSON Lines
(one object per line, multi-valued fields as lists), plain or gzip-compressed (detected from the magic
bytes). :func:`load_kgx` reads both forms and returns the same :class:`KnowledgeGraph` the Hetionet loader
does, with a :class:`~engram_kit.kg.schema.GraphSchema` derived from the Biolink categories and predicates
found:

* node ``id`` = ``"<Label>::<CURIE>"`` (``"Gene::HGNC:10848"``), the label being the local name of the
  node's most specific Biolink category; CURIEs are kept as they are (``HGNC:1884``, ``MONDO:0009061``);
* relationship type = the predicate in upper snake case (``biolink:has_phenotype`` -> ``HAS_PHENOTYPE``),
  undirected when the Biolink Model declares the predicate symmetric;
* columns KGX does not name are kept, as a JSON object in the ``properties`` property.

References
----------
KGX format specification: https://github.com/biolink/kgx/blob/master/specification/kgx-format.md
Biolink Model 4.4.6 (``biolink-model`` package), read offline through :mod:`engram_kit.kg.biolink`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from engram_kit.progress import tqdm

from engram_kit.errors import DataError
from engram_kit.kg import biolink
from engram_kit.kg.graph import KnowledgeGraph
from engram_kit.kg.formats import GraphFormat, option_flag
from engram_kit.kg.loading import LoadReport, Problems, empty_skipped, line_field_counts, read_bytes
from engram_kit.kg.profiles import GraphProfile
from engram_kit.kg.schema import KGX_NODE_PROPERTIES, KGX_REL_PROPERTIES, GraphSchema, RelSpec

logger = logging.getLogger(__name__)

#: Columns of ``KnowledgeGraph.nodes`` for a KGX graph: ``id, kind, identifier, name`` (as for Hetionet) and
#: then the other :data:`~engram_kit.kg.schema.KGX_NODE_PROPERTIES`.
KGX_NODE_COLUMNS: tuple[str, ...] = (
    "id", "kind", "identifier", "name",
    *(p for p in KGX_NODE_PROPERTIES if p not in ("id", "name", "identifier")),
)
#: Columns of ``KnowledgeGraph.edges`` for a KGX graph: ``source, rel_type, target`` (node ids) and the
#: :data:`~engram_kit.kg.schema.KGX_REL_PROPERTIES`.
KGX_EDGE_COLUMNS: tuple[str, ...] = ("source", "rel_type", "target", *KGX_REL_PROPERTIES)

#: Columns a KGX node / edge file must have (header of a TSV; keys of at least one JSON Lines record).
REQUIRED_NODE_COLUMNS: tuple[str, ...] = ("id",)
REQUIRED_EDGE_COLUMNS: tuple[str, ...] = ("subject", "predicate", "object")

# Output property <- accepted input columns (first listed wins for single values; multi-valued are merged).
# ``taxon``, ``has_db_xref`` and ``knowledge_source`` are older KGX spellings still found in the wild.
_NODE_MULTI: dict[str, tuple[str, ...]] = {
    "categories": ("category",),
    "synonyms": ("synonym", "synonyms"),
    "in_taxon": ("in_taxon", "taxon"),
    "xrefs": ("xref", "has_db_xref"),
    "provided_by": ("provided_by",),
}
_NODE_SINGLE: dict[str, tuple[str, ...]] = {"name": ("name",), "description": ("description",)}
_EDGE_MULTI: dict[str, tuple[str, ...]] = {
    "category": ("category",),
    "aggregator_knowledge_source": ("aggregator_knowledge_source",),
    "publications": ("publications",),
}
_EDGE_SINGLE: dict[str, tuple[str, ...]] = {
    "knowledge_level": ("knowledge_level",),
    "agent_type": ("agent_type",),
}
_LEGACY_KNOWLEDGE_SOURCE = "knowledge_source"
_QUALIFIERS = "qualifiers"
_NODE_KNOWN = {"id", *(c for cols in (*_NODE_MULTI.values(), *_NODE_SINGLE.values()) for c in cols)}
_EDGE_KNOWN = {
    "id", "subject", "predicate", "object", "negated", _QUALIFIERS, "primary_knowledge_source",
    _LEGACY_KNOWLEDGE_SOURCE, *(c for cols in (*_EDGE_MULTI.values(), *_EDGE_SINGLE.values()) for c in cols),
}

_TRUE = frozenset({"true", "t", "1", "yes", "y"})
_FALSE = frozenset({"", "false", "f", "0", "no", "n"})
_BOM = b"\xef\xbb\xbf"
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: Marker in a stub node's ``properties`` (a node made for an edge endpoint absent from the node file).
STUB_PROPERTY = "stub"


# ------------------------------------------------------------------------------------------------
# Load report
# ------------------------------------------------------------------------------------------------
def _empty_summary() -> pd.DataFrame:
    columns = ("predicate", "rel_type", "directed", "pairs", "edges", "negated", "primary_knowledge_sources")
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


@dataclass
class KGXLoadReport(LoadReport):
    """What :func:`load_kgx` loaded, inferred and skipped.

    Extends :class:`~engram_kit.kg.loading.LoadReport` (``skipped``, ``n_skipped``, ``to_frame()``,
    ``seconds`` work the same); ``nodes_per_kind`` counts nodes per label and ``edges_per_metaedge`` edges per
    relationship type, so code written for Hetionet reports keeps working.

    Attributes
    ----------
    nodes_path : Path or None
        Node file read (None when loaded from an edge file alone).
    edges_path : Path
        Edge file read.
    edge_format, node_format : {"tsv", "jsonl"}
        Format of each file (``node_format`` ``""`` without a node file).
    edges_per_predicate : dict of str to int
        Loaded edges per predicate CURIE.
    n_negated : int
        Loaded edges with ``negated`` True.
    n_stubs : int
        Stub nodes created for edge endpoints absent from the node file (``missing_nodes="stub"``).
    stubs_per_label : dict of str to int
        Stub nodes per label (the label inferred from the edges' association categories).
    n_duplicate_nodes : int
        Node rows merged into an earlier row with the same id (see :func:`load_kgx`, Notes).
    n_duplicate_edges : int
        Edge rows identical to an earlier row in every field, merged into it.
    n_nodes_without_category : int
        Nodes with no category, given ``biolink:NamedThing`` (KGX's default).
    unknown_categories : dict of str to int
        Category values (of nodes and edges) that are not Biolink Model classes -> number of rows carrying
        them; they are kept as they are.
    unknown_predicates : dict of str to int
        Predicates that are not Biolink predicates -> edges; kept, and treated as directed.
    unknown_columns : dict of str to tuple of str
        ``{"nodes": ..., "edges": ...}``: columns KGX does not name, kept in the ``properties`` JSON.
    biolink_model_version : str
        Version of the Biolink Model used to interpret categories and predicates (``"4.4.6"``).
    rel_types : DataFrame
        The per-relationship-type table :meth:`summary` returns.
    """

    nodes_path: Path | None  # type: ignore[assignment]  # Hetionet always has a node file; KGX may not
    node_format: str = ""
    edges_per_predicate: dict[str, int] = field(default_factory=dict)
    n_negated: int = 0
    n_stubs: int = 0
    stubs_per_label: dict[str, int] = field(default_factory=dict)
    n_duplicate_nodes: int = 0
    n_duplicate_edges: int = 0
    n_nodes_without_category: int = 0
    unknown_categories: dict[str, int] = field(default_factory=dict)
    unknown_predicates: dict[str, int] = field(default_factory=dict)
    unknown_columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    biolink_model_version: str = ""
    rel_types: pd.DataFrame = field(default_factory=_empty_summary)

    def summary(self) -> pd.DataFrame:
        """Edges per relationship type.

        Returns
        -------
        DataFrame
            One row per relationship type (schema order), columns ``predicate`` (CURIE), ``rel_type``,
            ``directed`` (bool), ``pairs`` (``"Gene->PhenotypicFeature; Disease->PhenotypicFeature"``),
            ``edges`` (int), ``negated`` (int, edges with negated True), ``primary_knowledge_sources``
            (distinct values, ``|``-joined). A copy.
        """
        return self.rel_types.copy()


# ------------------------------------------------------------------------------------------------
# Reading a KGX file (TSV or JSON Lines) into str columns with line numbers
# ------------------------------------------------------------------------------------------------
@dataclass
class _RawTable:
    """One KGX file as read: str cells (``""`` when absent), the file line of each row, malformed lines."""

    path: Path
    table: str  # "nodes" or "edges"
    file_format: str  # "tsv" or "jsonl"
    frame: pd.DataFrame
    lines: np.ndarray  # int64, shape (len(frame),): 1-based file line of each row (TSV header = line 1)
    bad_lines: list[int] = field(default_factory=list)
    bad_reasons: list[str] = field(default_factory=list)
    bad_fix: str = ""


def _detect_format(path: Path, raw: bytes) -> str:
    """``"jsonl"`` for a ``.jsonl``/``.ndjson`` name (``.gz`` ignored) or content starting with ``{``."""
    name = path.name.lower().removesuffix(".gz")
    if name.endswith(".json"):
        raise DataError(f"{path}: KGX JSON (one document with 'nodes' and 'edges' arrays) is not supported. "
                        "Fix: convert it to KGX TSV or JSON Lines, e.g. `kgx transform --output-format jsonl`.")
    if name.endswith(_JSONL_SUFFIXES) or raw.lstrip()[:1] == b"{":
        return "jsonl"
    return "tsv"


def _check_columns(columns: Sequence[str], required: Sequence[str], path: Path, table: str) -> None:
    """Raise DataError for missing required or duplicated column names of a TSV header."""
    missing = [c for c in required if c not in columns]
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    if missing or duplicated:
        problems = ([f"lacks required column(s) {missing}"] if missing else []) + (
            [f"has duplicated column(s) {duplicated}"] if duplicated else [])
        raise DataError(f"{path}, line 1: the KGX {table} header {' and '.join(problems)}. Fix: a KGX {table} "
                        f"file needs the column(s) {', '.join(required)} (each once), e.g. "
                        f"{chr(9).join(required)!r} as the first tab-separated line.")


def _check_keys(columns: Sequence[str], required: Sequence[str], path: Path, table: str) -> None:
    """Raise DataError when no JSON Lines record has one of the required keys."""
    missing = [c for c in required if c not in columns]
    if missing:
        raise DataError(f"{path}: no KGX {table} record has the key(s) {missing}. Fix: every JSON Lines {table} "
                        f"record needs {', '.join(required)}, e.g. "
                        f"{json.dumps(dict.fromkeys(required, 'prefix:local'))}.")


def _read_tsv(path: Path, raw: bytes, table: str, required: Sequence[str]) -> _RawTable:
    """Read a KGX TSV. Rows with fewer fields than the header are padded with empty cells (KGX writers drop
    trailing empty fields); rows with more fields are malformed; blank lines are ignored."""
    first = raw.split(b"\n", 1)[0].rstrip(b"\r")
    if not first.strip():
        raise DataError(f"{path}: the file is empty or its first line (the header) is blank. Fix: a KGX {table} "
                        f"TSV starts with a tab-separated header such as {chr(9).join(required)!r}.")
    header = [c.strip() for c in first.decode("utf-8", errors="replace").split("\t")]
    _check_columns(header, required, path, table)
    fields, blank = line_field_counts(raw)
    line_numbers = np.arange(1, len(fields) + 1, dtype=np.int64)
    data_line = line_numbers > 1
    too_many = data_line & ~blank & (fields > len(header))
    drop = data_line & (blank | too_many)
    frame = pd.read_csv(
        io.BytesIO(raw), sep="\t", header=0, names=header, dtype=object, na_filter=False,
        quoting=csv.QUOTE_NONE,  # KGX does not quote; names such as "Hedgehog 'on' state" stay intact
        skip_blank_lines=False, skiprows=(line_numbers[drop] - 1).tolist() or None,
        encoding="utf-8", encoding_errors="replace",
    ).fillna("")
    kept = line_numbers[data_line & ~drop]
    if len(kept) != len(frame):  # pragma: no cover - guards the line bookkeeping
        raise DataError(f"{path}: read {len(frame)} rows but counted {len(kept)} data lines. Fix: check the "
                        "file for embedded carriage returns or NUL bytes.")
    return _RawTable(
        path=path, table=table, file_format="tsv", frame=frame.astype(object), lines=kept,
        bad_lines=line_numbers[too_many].tolist(),
        bad_reasons=[f"malformed row: {n} tab-separated fields but the header has {len(header)}"
                     for n in fields[too_many]],
        bad_fix=f"give every row at most {len(header)} tab-separated fields (no tab inside a value)",
    )


def _cell(value: Any) -> str:
    """One JSON Lines value as a TSV-style cell: lists ``|``-joined, booleans ``True``/``False``, null ``""``,
    objects as JSON, so both forms of the same graph load identically."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, list | tuple):
        return "|".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def _read_jsonl(path: Path, raw: bytes, table: str, required: Sequence[str]) -> _RawTable:
    """Read KGX JSON Lines: one object per line (blank lines ignored); a line that is not a JSON object is
    malformed. Columns are the union of the records' keys."""
    records: list[dict[str, str]] = []
    lines: list[int] = []
    bad_lines: list[int] = []
    bad_reasons: list[str] = []
    for number, line in enumerate(raw.decode("utf-8", errors="replace").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            bad_lines.append(number)
            bad_reasons.append(f"malformed row: not valid JSON ({getattr(exc, 'msg', exc)})")
            continue
        if not isinstance(record, dict):
            bad_lines.append(number)
            bad_reasons.append(f"malformed row: a JSON {type(record).__name__}, not an object")
            continue
        records.append({str(k): _cell(v) for k, v in record.items()})
        lines.append(number)
    frame = pd.DataFrame.from_records(records) if records else pd.DataFrame(columns=list(required))
    if records:
        _check_keys(list(frame.columns), required, path, table)
    return _RawTable(
        path=path, table=table, file_format="jsonl", frame=frame.fillna("").astype(object),
        lines=np.asarray(lines, dtype=np.int64), bad_lines=bad_lines, bad_reasons=bad_reasons,
        bad_fix="write one JSON object per line",
    )


def _read_table(path: Path, table: str, required: Sequence[str]) -> _RawTable:
    """Read a KGX node or edge file (TSV or JSON Lines, plain or gzip)."""
    raw = read_bytes(path).removeprefix(_BOM)
    if _detect_format(path, raw) == "jsonl":
        return _read_jsonl(path, raw, table, required)
    return _read_tsv(path, raw, table, required)


# ------------------------------------------------------------------------------------------------
# Cell normalisation (vectorised over distinct values)
# ------------------------------------------------------------------------------------------------
def _join_unique(values: Iterable[str]) -> str:
    """``|``-join the stripped, non-empty values, first occurrence kept."""
    return "|".join(dict.fromkeys(v.strip() for v in values if v.strip()))


def _map_unique(values: pd.Series, function: Callable[[str], Any]) -> np.ndarray:
    """Apply ``function`` once per distinct value; ndarray of shape (len(values),), object."""
    codes, uniques = pd.factorize(values, sort=False)
    mapped = np.empty(len(uniques), dtype=object)
    mapped[:] = [function(u) for u in uniques]
    return mapped[codes]


def _multi_values(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Merged ``|``-separated values of the given columns (the present ones), deduplicated, per row."""
    present = [c for c in columns if c in frame.columns]
    if not present:
        return np.full(len(frame), "", dtype=object)
    combined = frame[present[0]]
    for column in present[1:]:
        combined = combined + "|" + frame[column]
    return _map_unique(combined, lambda text: _join_unique(text.split("|")))


def _single_values(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """First non-empty (stripped) value among the given columns, per row."""
    present = [c for c in columns if c in frame.columns]
    if not present:
        return np.full(len(frame), "", dtype=object)
    values = frame[present[0]].str.strip()
    for column in present[1:]:
        values = values.where(values != "", frame[column].str.strip())
    return values.to_numpy(dtype=object)


def _json_object(data: dict[str, Any]) -> str:
    """A dict as a JSON object string with sorted keys (``""`` when empty)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False) if data else ""


def _per_distinct_row(frame: pd.DataFrame, columns: Sequence[str],
                      build: Callable[[dict[str, str]], str]) -> np.ndarray:
    """``build({column: cell})`` once per distinct combination of the columns' cells (KGX repeats the same
    provenance and qualifier cells on many rows); ndarray of shape (len(frame),), object."""
    if not columns:
        return np.full(len(frame), build({}), dtype=object)
    cells = frame[list(columns)]
    codes = cells.groupby(list(columns), sort=False, dropna=False).ngroup().to_numpy()
    distinct = cells.drop_duplicates().to_numpy(dtype=object)  # first-appearance order, as ngroup(sort=False)
    built = np.empty(len(distinct), dtype=object)
    built[:] = [build(dict(zip(columns, row, strict=True))) for row in distinct]
    return built[codes]


def _extra_properties(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Per row: JSON object of the given columns' non-empty cells (values as in the file), ``""`` if none."""
    return _per_distinct_row(frame, columns, lambda cells: _json_object({c: v for c, v in cells.items() if v}))


def _parse_negated(text: str) -> bool | None:
    """KGX ``negated`` cell -> bool (empty = False); None when it is not a boolean spelling."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


def _curie_problems(problems: Problems, values: pd.Series, lines: np.ndarray, what: str, fix: str) -> None:
    """Flag rows whose ``what`` cell is empty or not a CURIE."""
    empty = (values == "").to_numpy()
    problems.add(empty, lines, lambda m: np.full(int(m.sum()), f"{what} is empty", dtype=object), fix)
    not_curie = ~empty & ~values.str.match(biolink.CURIE_PATTERN).to_numpy(dtype=bool)
    problems.add(not_curie, lines,
                 lambda m: f"{what} " + values[m].map(repr) + " is not a CURIE (prefix:local)", fix)


def _unique_names(keys: Iterable[str], namer: Callable[[str], str]) -> dict[str, str]:
    """Map sorted distinct keys to names from ``namer``; a name taken by an earlier key gets ``_2``, ``_3``..."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for key in sorted(set(keys)):
        name, suffix = namer(key), 2
        candidate = name
        while candidate in taken:
            candidate, suffix = f"{name}_{suffix}", suffix + 1
        out[key] = candidate
        taken.add(candidate)
    return out


# ------------------------------------------------------------------------------------------------
# Nodes
# ------------------------------------------------------------------------------------------------
@dataclass
class _NodeResult:
    nodes: pd.DataFrame
    skipped: pd.DataFrame
    n_duplicates: int
    n_without_category: int
    unknown_categories: Counter[str]
    unknown_columns: tuple[str, ...]
    file_format: str


def _no_nodes() -> _NodeResult:
    """The node result of a load without a node file (every endpoint is then missing)."""
    empty = np.empty(0, dtype=object)
    columns = {c: empty for c in (*_NODE_MULTI, *_NODE_SINGLE)}
    return _NodeResult(_node_frame(empty, empty, empty, columns, []), empty_skipped(), 0, 0, Counter(), (), "")


def _merge_duplicate_nodes(records: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Merge rows sharing an ``identifier`` into the first: multi-valued properties are united, single values
    and each extra property take the first non-empty value. Returns (records, rows merged away)."""
    duplicated = records["identifier"].duplicated(keep=False).to_numpy()
    if not duplicated.any():
        return records, 0
    records = records.copy()
    conflicts = 0
    # Collect the merged values per group, then write each column once: a per-cell ``.at`` write copies the
    # (object) column each time, which made 20k duplicate rows take over a minute (benchmarks/kgx_load.py).
    firsts: list[int] = []
    merged_values: dict[str, list[str]] = {c: [] for c in (*_NODE_MULTI, *_NODE_SINGLE, "properties")}
    for _, group in records[duplicated].groupby("identifier", sort=False):
        firsts.append(group.index[0])
        for column in _NODE_MULTI:
            merged_values[column].append(_join_unique(v for value in group[column] for v in value.split("|")))
        for column in _NODE_SINGLE:
            values = [v for v in group[column] if v]
            merged_values[column].append(values[0] if values else "")
            conflicts += len(set(values)) > 1
        merged: dict[str, str] = {}
        for properties in group["properties"]:
            for key, value in (json.loads(properties) if properties else {}).items():
                conflicts += key in merged and merged[key] != value
                merged.setdefault(key, value)
        merged_values["properties"].append(_json_object(merged))
    for column, values in merged_values.items():
        records.loc[firsts, column] = values
    n_merged = int(records["identifier"].duplicated(keep="first").sum())
    if conflicts:
        logger.warning("Merged %d duplicate KGX node row(s); %d value(s) differed between the copies (the first "
                       "non-empty value was kept).", n_merged, conflicts)
    return records[~records["identifier"].duplicated(keep="first")].reset_index(drop=True), n_merged


def _categorise(categories: np.ndarray) -> tuple[np.ndarray, np.ndarray, Counter[str]]:
    """Per row: the most specific category and its label; counts of unknown categories over rows."""
    most_specific = _map_unique(pd.Series(categories, dtype=object),
                                lambda text: biolink.most_specific_category(text.split("|")))
    labels = _map_unique(pd.Series(most_specific, dtype=object), biolink.category_label)
    return most_specific, labels, _unknown_categories(pd.Series(categories, dtype=object))


def _node_frame(identifiers: np.ndarray, labels: np.ndarray, most_specific: np.ndarray,
                columns: dict[str, np.ndarray], properties: Sequence[str] | np.ndarray) -> pd.DataFrame:
    """Assemble ``KnowledgeGraph.nodes`` (columns :data:`KGX_NODE_COLUMNS`)."""
    ids = pd.Series(labels, dtype=object) + "::" + pd.Series(identifiers, dtype=object)
    frame = pd.DataFrame({
        "id": ids.to_numpy(dtype=object), "kind": labels, "identifier": identifiers, "name": columns["name"],
        "category": most_specific,
        **{c: columns[c] for c in ("categories", "synonyms", "in_taxon", "description", "xrefs", "provided_by")},
        "properties": np.asarray(properties, dtype=object),
    })
    return frame[list(KGX_NODE_COLUMNS)].astype("str")


def _read_nodes(path: Path, errors: str) -> _NodeResult:
    """Read, validate and normalise a KGX node file."""
    raw = _read_table(path, "nodes", REQUIRED_NODE_COLUMNS)
    frame, lines = raw.frame, raw.lines
    problems = Problems(path, "nodes", len(frame))
    problems.add_lines(np.asarray(raw.bad_lines, dtype=np.int64), raw.bad_reasons, raw.bad_fix)
    ids = frame["id"].str.strip()
    _curie_problems(problems, ids, lines, "id", "every KGX node needs an id CURIE such as HGNC:1884")
    skipped = problems.resolve(errors)

    frame = frame[~problems.mask].reset_index(drop=True)
    unknown_columns = tuple(c for c in frame.columns if c not in _NODE_KNOWN)
    records = pd.DataFrame({
        "identifier": ids[~problems.mask].to_numpy(dtype=object),
        **{name: _multi_values(frame, cols) for name, cols in _NODE_MULTI.items()},
        **{name: _single_values(frame, cols) for name, cols in _NODE_SINGLE.items()},
        "properties": _extra_properties(frame, unknown_columns),
    })
    records, n_duplicates = _merge_duplicate_nodes(records)
    no_category = (records["categories"] == "").to_numpy()
    records.loc[no_category, "categories"] = biolink.NAMED_THING  # KGX's default category
    most_specific, labels, unknown = _categorise(records["categories"].to_numpy(dtype=object))
    nodes = _node_frame(records["identifier"].to_numpy(dtype=object), labels, most_specific,
                        {c: records[c].to_numpy(dtype=object) for c in (*_NODE_MULTI, *_NODE_SINGLE)},
                        records["properties"].to_numpy(dtype=object))
    return _NodeResult(nodes, skipped, n_duplicates, int(no_category.sum()), unknown, unknown_columns,
                       raw.file_format)


# ------------------------------------------------------------------------------------------------
# Edges
# ------------------------------------------------------------------------------------------------
@dataclass
class _EdgeResult:
    edges: pd.DataFrame  # KGX_EDGE_COLUMNS, but source/target still CURIEs
    skipped: pd.DataFrame
    association: np.ndarray  # object, per edge: most specific association category or ""
    n_duplicates: int
    unknown_categories: Counter[str]
    unknown_predicates: Counter[str]
    unknown_columns: tuple[str, ...]
    file_format: str


def _qualifier_object(cells: dict[str, str]) -> str:
    """JSON object of one edge's qualifier cells: a ``*_qualifier`` value with ``|`` becomes a list; the
    ``qualifiers`` cell is always a list (key ``"qualifiers"``); ``""`` when all are empty."""
    data: dict[str, Any] = {}
    for column, value in cells.items():
        parts = [p for p in _join_unique(value.split("|")).split("|") if p]
        if parts:
            data[column] = parts if column == _QUALIFIERS or len(parts) > 1 else parts[0]
    return _json_object(data)


def _qualifiers(frame: pd.DataFrame) -> np.ndarray:
    """Per row: :func:`_qualifier_object` of the ``*_qualifier`` columns and the ``qualifiers`` column."""
    columns = [c for c in frame.columns if c.endswith("_qualifier") or c == _QUALIFIERS]
    return _per_distinct_row(frame, columns, _qualifier_object)


def _most_specific_association(categories: str) -> str:
    """The most specific Biolink association in a ``|``-joined category cell (``""`` if none)."""
    associations = [c for c in categories.split("|") if biolink.is_association(c)]
    return biolink.most_specific_category(associations) if associations else ""


def _edge_ids(content: pd.DataFrame) -> np.ndarray:
    """The ``id`` column, or KGX's ``subject-predicate-object`` key when it is empty; a key shared by several
    id-less edges gets the first 12 hex digits of the SHA-1 of the edge's content appended (stable under
    reordering of the file). ndarray of shape (len(content),), object."""
    explicit = content["edge_id"].to_numpy(dtype=object)
    generated = content["subject"] + "-" + content["predicate"] + "-" + content["object"]
    needs = explicit == ""
    shared = np.zeros(len(explicit), dtype=bool)
    shared[needs] = generated[needs].duplicated(keep=False).to_numpy()
    out = np.where(needs, generated.to_numpy(dtype=object), explicit).astype(object)
    if shared.any():
        rows = content[shared].astype(str).to_numpy()
        digests = [hashlib.sha1("\x1f".join(row).encode("utf-8")).hexdigest()[:12] for row in rows]
        out[shared] = [f"{key}-{digest}" for key, digest in zip(out[shared], digests, strict=True)]
    return out


def _check_edge_rows(raw: _RawTable, problems: Problems) -> np.ndarray:
    """Flag malformed lines, empty or non-CURIE subject/predicate/object and non-boolean ``negated``.

    Returns the parsed ``negated`` per row: ndarray of shape (n_rows,), object (True, False, or None where
    malformed).
    """
    frame, lines = raw.frame, raw.lines
    problems.add_lines(np.asarray(raw.bad_lines, dtype=np.int64), raw.bad_reasons, raw.bad_fix)
    fix = "every KGX edge needs subject, predicate and object CURIEs"
    for column, example in zip(REQUIRED_EDGE_COLUMNS, ("HGNC:1884", "biolink:has_phenotype", "HP:0000246"),
                               strict=True):
        _curie_problems(problems, frame[column], lines, column, f"{fix} (e.g. {column} {example})")
    cells = frame["negated"] if "negated" in frame.columns else pd.Series("", index=frame.index, dtype=object)
    negated = _map_unique(cells, _parse_negated)
    problems.add(np.array([v is None for v in negated], dtype=bool), lines,
                 lambda m: "negated value " + cells[m].map(repr) + " is not a boolean",
                 "write negated as True or False (empty means False)")
    return negated


def _edge_content(frame: pd.DataFrame, negated: np.ndarray) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Normalised edge fields of every row (``KGX_REL_PROPERTIES`` plus ``subject``/``object``, ``edge_id``
    the raw ``id``) and the columns kept in ``properties``.

    ``primary_knowledge_source`` falls back on the legacy ``knowledge_source`` column; a legacy value that
    differs from the primary one is kept in ``properties``.
    """
    explicit_primary = _single_values(frame, ("primary_knowledge_source",))
    legacy = _single_values(frame, (_LEGACY_KNOWLEDGE_SOURCE,))
    primary = np.where(explicit_primary != "", explicit_primary, legacy).astype(object)
    unknown_columns = tuple(c for c in frame.columns if c not in _EDGE_KNOWN and not c.endswith("_qualifier"))
    legacy_kept = np.where((legacy != "") & (legacy != primary), legacy, "").astype(object)
    with_legacy = frame[list(unknown_columns)].assign(**{_LEGACY_KNOWLEDGE_SOURCE: legacy_kept})
    content = pd.DataFrame({
        "edge_id": _single_values(frame, ("id",)),
        **{c: frame[c].to_numpy(dtype=object) for c in REQUIRED_EDGE_COLUMNS},
        "negated": np.array([bool(v) for v in negated], dtype=bool),
        **{name: _multi_values(frame, cols) for name, cols in _EDGE_MULTI.items()},
        "primary_knowledge_source": primary,
        **{name: _single_values(frame, cols) for name, cols in _EDGE_SINGLE.items()},
        "qualifiers": _qualifiers(frame),
        "properties": _extra_properties(with_legacy, (*unknown_columns, _LEGACY_KNOWLEDGE_SOURCE)),
    })
    return content, unknown_columns


def _flag_duplicate_edges(content: pd.DataFrame, lines: np.ndarray, problems: Problems) -> np.ndarray:
    """Rows identical to an earlier valid row (returned as a bool mask: merged, not errors); flag an explicit
    ``id`` that repeats with other content as a problem."""
    valid = ~problems.mask
    exact_duplicate = np.zeros(len(content), dtype=bool)
    exact_duplicate[valid] = content[valid].duplicated(keep="first").to_numpy()
    ids = content["edge_id"]
    candidates = valid & ~exact_duplicate & (ids != "").to_numpy()
    repeated = np.zeros(len(content), dtype=bool)
    repeated[candidates] = ids[candidates].duplicated(keep="first").to_numpy()
    if repeated.any():
        first_line = pd.Series(lines[candidates], index=ids[candidates].to_numpy()).groupby(level=0).min()
        problems.add(repeated, lines,
                     lambda m: ("edge id " + ids[m].map(repr) + " repeats line "
                                + ids[m].map(first_line).astype(str) + " with different content"),
                     "give each edge a distinct id, or make repeated rows identical")
    return exact_duplicate


def _flag_missing_endpoints(content: pd.DataFrame, lines: np.ndarray, problems: Problems, skip: np.ndarray,
                            node_curies: pd.Index, nodes_path: Path | None) -> None:
    """Flag edges whose subject or object is not a loaded node (rows in ``skip`` are left alone)."""
    where = f"the nodes file {nodes_path.name}" if nodes_path else "any nodes file (none was given)"
    for column in ("subject", "object"):
        values = content[column]
        absent = ~skip & (node_curies.get_indexer(values.to_numpy()) < 0)
        def not_in_nodes(m: Any, c: str = column, v: pd.Series = values) -> Any:
            return f"{c} " + v[m].map(repr) + f" is not in {where}"

        problems.add(absent, lines, not_in_nodes,
                     "add the node to the nodes file, or load with missing_nodes='stub' to create a stub node "
                     "whose category is inferred from the edge")


def _unknown_categories(categories: pd.Series) -> Counter[str]:
    """Rows per category value (in ``|``-joined cells) that is not a Biolink Model class."""
    unknown: Counter[str] = Counter()
    for text, count in categories.value_counts(sort=False).items():
        for category in (c for c in str(text).split("|") if c and not biolink.is_known_category(c)):
            unknown[category] += int(count)
    return unknown


def _read_edges(path: Path, errors: str, node_curies: pd.Index, missing_nodes: str,
                nodes_path: Path | None) -> _EdgeResult:
    """Read, validate and normalise a KGX edge file against the node CURIEs (source/target stay CURIEs)."""
    raw = _read_table(path, "edges", REQUIRED_EDGE_COLUMNS)
    for column in REQUIRED_EDGE_COLUMNS:
        raw.frame[column] = raw.frame[column].str.strip().astype(object)
    problems = Problems(path, "edges", len(raw.frame))
    negated = _check_edge_rows(raw, problems)
    content, unknown_columns = _edge_content(raw.frame, negated)
    exact_duplicate = _flag_duplicate_edges(content, raw.lines, problems)
    if missing_nodes == "error":
        _flag_missing_endpoints(content, raw.lines, problems, problems.mask | exact_duplicate, node_curies,
                                nodes_path)
    skipped = problems.resolve(errors)
    content = content[~problems.mask & ~exact_duplicate].reset_index(drop=True)

    rel_types = _unique_names(content["predicate"], biolink.predicate_rel_type)
    edges = pd.DataFrame({
        "source": content["subject"], "rel_type": content["predicate"].map(rel_types), "target": content["object"],
        "edge_id": _edge_ids(content), **{c: content[c] for c in KGX_REL_PROPERTIES if c != "edge_id"},
    })
    unknown_predicates = Counter({p: int(n) for p, n in content["predicate"].value_counts(sort=False).items()
                                  if not biolink.is_known_predicate(p)})
    return _EdgeResult(
        edges=edges[list(KGX_EDGE_COLUMNS)], skipped=skipped,
        association=_map_unique(content["category"], _most_specific_association),
        n_duplicates=int(exact_duplicate.sum()), unknown_categories=_unknown_categories(content["category"]),
        unknown_predicates=unknown_predicates, unknown_columns=unknown_columns, file_format=raw.file_format)


# ------------------------------------------------------------------------------------------------
# Stubs, endpoint ids and the schema
# ------------------------------------------------------------------------------------------------
def _stub_nodes(edges: pd.DataFrame, association: np.ndarray, node_curies: pd.Index) -> pd.DataFrame:
    """Nodes for edge endpoints absent from the node table, categories inferred from the edges.

    Each absent CURIE gets every category :func:`biolink.infer_endpoint_category` gives it over its edges
    (as subject and as object); the most specific is its label. ``name`` is the CURIE.
    """
    inferred: dict[str, dict[str, None]] = {}
    for role, column in (("subject", "source"), ("object", "target")):
        curies = edges[column].to_numpy(dtype=object)
        absent = node_curies.get_indexer(curies) < 0
        pairs = pd.DataFrame({"curie": curies[absent], "association": association[absent]}).drop_duplicates()
        for curie, assoc in pairs.itertuples(index=False):
            category = biolink.infer_endpoint_category(curie, assoc, role)  # type: ignore[arg-type]
            inferred.setdefault(curie, {})[category] = None
    if not inferred:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in KGX_NODE_COLUMNS})
    identifiers = np.array(list(inferred), dtype=object)
    categories = np.array(["|".join(c) for c in inferred.values()], dtype=object)
    most_specific, labels, _ = _categorise(categories)
    empty = np.full(len(identifiers), "", dtype=object)
    columns = {c: empty for c in (*_NODE_MULTI, *_NODE_SINGLE)} | {"name": identifiers, "categories": categories}
    return _node_frame(identifiers, labels, most_specific, columns,
                       [_json_object({STUB_PROPERTY: "true"})] * len(identifiers))


def _link_endpoints(nodes: pd.DataFrame, edges: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Replace the edges' subject/object CURIEs (``source``/``target``) by node ids, in place.

    Every endpoint must be a node (stubs included). Returns the (source, target) labels per edge:
    two ndarrays of shape (n_edges,), object.
    """
    index = pd.Index(nodes["identifier"].to_numpy(dtype=object))
    ids, kinds = nodes["id"].to_numpy(dtype=object), nodes["kind"].to_numpy(dtype=object)
    labels = []
    for column in ("source", "target"):
        position = index.get_indexer(edges[column].to_numpy(dtype=object))
        if (position < 0).any():  # pragma: no cover - guards the missing-node bookkeeping
            raise DataError(f"Internal error: {int((position < 0).sum())} edge endpoint(s) have no node.")
        edges[column] = ids[position]
        labels.append(kinds[position])
    return labels[0], labels[1]


def _derive_schema(nodes: pd.DataFrame, edges: pd.DataFrame, source_labels: np.ndarray,
                   target_labels: np.ndarray) -> tuple[GraphSchema, pd.DataFrame]:
    """The graph schema and the per-relationship-type summary (:meth:`KGXLoadReport.summary`) of a graph."""
    frame = pd.DataFrame({
        "rel_type": edges["rel_type"].to_numpy(dtype=object),
        "predicate": edges["predicate"].to_numpy(dtype=object),
        "source": source_labels, "target": target_labels, "negated": edges["negated"].to_numpy(dtype=bool),
        "primary": edges["primary_knowledge_source"].to_numpy(dtype=object),
    })
    per_type = frame.groupby("rel_type", sort=True).agg(predicate=("predicate", "first"),
                                                        edges=("predicate", "size"), negated=("negated", "sum"))
    pairs = frame[["rel_type", "source", "target"]].drop_duplicates().sort_values(["rel_type", "source", "target"])
    pairs_of = {r: tuple(zip(g["source"], g["target"], strict=True)) for r, g in pairs.groupby("rel_type")}
    primary = frame.loc[frame["primary"] != "", ["rel_type", "primary"]].drop_duplicates().sort_values("primary")
    primary_of = {r: "|".join(g["primary"]) for r, g in primary.groupby("rel_type")}
    rel_specs: list[RelSpec] = []
    rows: list[dict[str, Any]] = []
    for rel_type, row in per_type.iterrows():
        predicate, directed = str(row["predicate"]), not biolink.is_symmetric_predicate(str(row["predicate"]))
        rel_specs.append(RelSpec(str(rel_type), pairs_of[rel_type], predicate, directed, int(row["edges"])))
        rows.append({"predicate": predicate, "rel_type": str(rel_type), "directed": directed,
                     "pairs": "; ".join(f"{a}->{b}" for a, b in pairs_of[rel_type]), "edges": int(row["edges"]),
                     "negated": int(row["negated"]), "primary_knowledge_sources": primary_of.get(rel_type, "")})
    labels = sorted(nodes["kind"].unique())
    schema = GraphSchema(name="kgx", kinds={label: label for label in labels}, rel_specs=tuple(rel_specs),
                         node_properties=dict(KGX_NODE_PROPERTIES), rel_properties=dict(KGX_REL_PROPERTIES),
                         negation_property="negated")
    return schema, pd.DataFrame(rows) if rows else _empty_summary()


def _counts(values: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in values.value_counts().sort_index().items()}


# ------------------------------------------------------------------------------------------------
# Public loader
# ------------------------------------------------------------------------------------------------
def load_kgx(
    nodes_path: str | os.PathLike[str] | None,
    edges_path: str | os.PathLike[str],
    *,
    errors: Literal["raise", "skip"] = "raise",
    missing_nodes: Literal["error", "stub"] = "error",
    name: str = "KGX",
    version: str = "",
    progress: bool = True,
) -> KnowledgeGraph:
    """Read a Biolink KGX graph (node file + edge file) and derive its schema from the data.

    Parameters
    ----------
    nodes_path : path or None
        KGX node file: TSV with at least an ``id`` column, or JSON Lines (``.jsonl``/``.ndjson``, or content
        starting with ``{``); plain or gzip. None to load an edge file alone (needs ``missing_nodes="stub"``
        unless errors are skipped).
    edges_path : path
        KGX edge file (same forms) with at least ``subject``, ``predicate`` and ``object``.
    errors : {"raise", "skip"}
        ``"raise"``: the first malformed row (lowest line) raises :class:`DataError`. ``"skip"``: malformed
        rows are left out and listed in ``report.to_frame()`` (``file, table, line, reason``).
    missing_nodes : {"error", "stub"}
        An edge endpoint that is not in the node file is a malformed row (``"error"``), or gets a stub node
        (``"stub"``): category inferred from the edge's association category where Biolink defines the
        subject/object range, refined by the CURIE prefix (``biolink:GeneToPhenotypicFeatureAssociation``:
        ``PomBase:...`` -> Gene, ``FYPO:...`` -> PhenotypicFeature; ``biolink:NamedThing`` when nothing fits),
        name = the CURIE, ``properties`` ``{"stub": "true"}``.
    name, version : str
        Recorded as ``KnowledgeGraph.name`` / ``.version`` (which graph and release a workspace holds).
    progress : bool
        Show a tqdm progress bar over the loading steps.

    Returns
    -------
    KnowledgeGraph
        ``nodes``: columns :data:`KGX_NODE_COLUMNS`, all str (``""`` when absent): ``id`` =
        ``"<Label>::<CURIE>"``, ``kind`` = label, ``identifier`` = CURIE, ``category`` = most specific
        Biolink category, ``categories``/``synonyms``/``in_taxon``/``xrefs``/``provided_by`` ``|``-joined
        (``in_taxon`` from ``in_taxon`` or ``taxon``, ``xrefs`` from ``xref`` or ``has_db_xref``),
        ``properties`` a JSON object of the other non-empty columns. Ids are unique.
        ``edges``: columns :data:`KGX_EDGE_COLUMNS`: ``source``/``target`` node ids, ``rel_type``,
        ``edge_id``, ``predicate``, ``negated`` (Python bool), ``qualifiers`` (JSON object of the
        ``*_qualifier`` columns plus the ``qualifiers`` list), ``properties`` (JSON object of the other
        non-empty columns, e.g. ``relation``, ``provided_by``), the rest str. ``schema``: a ``GraphSchema``
        named ``"kgx"`` with one label per most specific category and one :class:`RelSpec` per predicate.
        ``report``: a :class:`KGXLoadReport`.

    Raises
    ------
    DataError
        Always for a missing or unreadable file, a header lacking a required column or repeating one, or
        KGX JSON (not Lines). With ``errors="raise"`` also for the first malformed row: more fields than
        the header, a line that is not a JSON object, an empty or non-CURIE node id / subject / predicate /
        object, a ``negated`` value that is not a boolean, an edge id repeated with different content, or
        (``missing_nodes="error"``) an endpoint absent from the node file. The message names the file, the
        line (1-based; a TSV header is line 1), the problem and the fix.

    Notes
    -----
    * Duplicate node rows (same id) are merged, not errors, as KGX itself does: categories, synonyms, taxa,
      xrefs and provided_by are united; name, description and each extra column keep the first non-empty
      value (a warning is logged when copies disagree). ``report.n_duplicate_nodes`` counts merged rows.
    * Edge rows identical in every field are merged (``report.n_duplicate_edges``); edges without an ``id``
      get KGX's ``subject-predicate-object`` key, made unique with a content hash when needed.
    * TSV rows with fewer fields than the header are padded with empty cells (KGX writers drop trailing
      empty fields); blank lines are ignored. Cells are not quoted (KGX does not quote).
    * Categories and predicates unknown to the Biolink Model are kept, counted in the report and logged;
      an unknown predicate is treated as directed. Labels and relationship types that are not plain
      identifiers are sanitised deterministically (:func:`engram_kit.kg.biolink.category_label`,
      :func:`~engram_kit.kg.biolink.predicate_rel_type`); two predicates with the same sanitised name get
      ``_2``, ``_3``... suffixes (sorted by predicate).
    * No network: the Biolink Model is the YAML bundled in ``biolink-model`` (:func:`biolink.biolink_toolkit`).

    Examples
    --------
    >>> kg = load_kgx("data/kgx/graph_nodes.tsv", "data/kgx/graph_edges.tsv", progress=False)  # doctest: +SKIP
    >>> kg.schema.rel_spec("HAS_PHENOTYPE").pairs  # doctest: +SKIP
    (('Disease', 'PhenotypicFeature'), ('Gene', 'PhenotypicFeature'))
    """
    if errors not in ("raise", "skip"):
        raise DataError(f"errors={errors!r} is not supported. Fix: pass errors='raise' or errors='skip'.")
    if missing_nodes not in ("error", "stub"):
        raise DataError(f"missing_nodes={missing_nodes!r} is not supported. Fix: pass missing_nodes='error' or "
                        "missing_nodes='stub'.")
    started = time.perf_counter()
    nodes_file = Path(nodes_path) if nodes_path is not None else None
    edges_file = Path(edges_path)
    for role, path in (("nodes", nodes_file), ("edges", edges_file)):
        if path is not None and not path.is_file():
            raise DataError(f"KGX {role} file {path} does not exist. Fix: check the path (KGX graphs come as "
                            "nodes.tsv + edges.tsv, or .jsonl).")

    with tqdm(total=3, desc="Loading KGX", unit="step", disable=not progress) as bar:
        bar.set_postfix_str(nodes_file.name if nodes_file else "no nodes file")
        node_result = _read_nodes(nodes_file, errors) if nodes_file is not None else _no_nodes()
        bar.update(1)
        bar.set_postfix_str(edges_file.name)
        node_curies = pd.Index(node_result.nodes["identifier"].to_numpy(dtype=object))
        edge_result = _read_edges(edges_file, errors, node_curies, missing_nodes, nodes_file)
        bar.update(1)
        bar.set_postfix_str("schema")
        stubs = _stub_nodes(edge_result.edges, edge_result.association, node_curies)
        nodes = pd.concat([node_result.nodes, stubs], ignore_index=True) if len(stubs) else node_result.nodes
        edges = edge_result.edges
        source_labels, target_labels = _link_endpoints(nodes, edges)
        edges = edges.astype({c: "str" for c in KGX_EDGE_COLUMNS if c != "negated"} | {"negated": bool})
        schema, rel_summary = _derive_schema(nodes, edges, source_labels, target_labels)
        bar.update(1)

    skipped = pd.concat([node_result.skipped, edge_result.skipped], ignore_index=True) if (
        len(node_result.skipped) or len(edge_result.skipped)) else empty_skipped()
    unknown_categories = node_result.unknown_categories + edge_result.unknown_categories
    report = KGXLoadReport(
        nodes_path=nodes_file,
        edges_path=edges_file,
        edge_format=edge_result.file_format,
        node_format=node_result.file_format,
        nodes_per_kind=_counts(nodes["kind"]),
        edges_per_metaedge=_counts(edges["rel_type"]),
        skipped=skipped,
        seconds=time.perf_counter() - started,
        edges_per_predicate=_counts(edges["predicate"]),
        n_negated=int(edges["negated"].sum()),
        n_stubs=len(stubs),
        stubs_per_label=_counts(stubs["kind"]),
        n_duplicate_nodes=node_result.n_duplicates,
        n_duplicate_edges=edge_result.n_duplicates,
        n_nodes_without_category=node_result.n_without_category,
        unknown_categories=dict(sorted(unknown_categories.items())),
        unknown_predicates=dict(sorted(edge_result.unknown_predicates.items())),
        unknown_columns={"nodes": node_result.unknown_columns, "edges": edge_result.unknown_columns},
        biolink_model_version=biolink.biolink_model_version(),
        rel_types=rel_summary,
    )
    _log_report(report, len(nodes), len(edges))
    return KnowledgeGraph(nodes=nodes, edges=edges, report=report, name=name, version=version, schema=schema)


def _log_report(report: KGXLoadReport, n_nodes: int, n_edges: int) -> None:
    """Warnings for skipped rows and unknown vocabulary; an info line with the totals."""
    if report.n_skipped:
        by_reason = report.skipped["reason"].str.replace(r"'[^']*'", "'...'", regex=True).value_counts()
        logger.warning("Skipped %d malformed KGX row(s); most common: %s. See KnowledgeGraph.report.to_frame().",
                       report.n_skipped, "; ".join(f"{r} x{n}" for r, n in by_reason.head(3).items()))
    if report.unknown_categories or report.unknown_predicates:
        unknown = [*report.unknown_categories, *report.unknown_predicates]
        logger.warning("Kept %d category and %d predicate value(s) that Biolink Model %s does not define: %s.",
                       len(report.unknown_categories), len(report.unknown_predicates),
                       report.biolink_model_version, ", ".join(unknown[:8]))
    logger.info("Loaded %d KGX nodes (%d stubs) and %d edges in %.1f s.", n_nodes, report.n_stubs, n_edges,
                report.seconds)


# ------------------------------------------------------------------------------------------------
# The graph format: profile + loader (registered as "kgx" in engram_kit.plugins)
# ------------------------------------------------------------------------------------------------
class KGXProfile(GraphProfile):
    """Biolink KGX graphs: the manifest also records the Biolink model version the graph was read against."""

    def manifest_provenance(self, kg: KnowledgeGraph) -> dict[str, Any]:
        """The generic facts plus ``biolink_model_version`` (from :func:`engram_kit.kg.biolink.biolink_model_version`,
        the version the loader validated categories and predicates against)."""
        from engram_kit.kg.biolink import biolink_model_version

        return {"biolink_model_version": biolink_model_version(), **super().manifest_provenance(kg)}



#: Biolink KGX graphs (e.g. Monarch KG): Hetionet's agents are listed as not applicable, the phenotype agent runs.
KGX_PROFILE = KGXProfile(
    name="kgx", short_name="KGX", display_name="KGX graph", description="a Biolink KGX graph",
    llm_wording="{name}, a Biolink KGX graph",
    desk_example="'What phenotypes does <disease> have?' or 'Which edges does <CURIE> have?'",
    edge_label="predicate", predicates_are_names=True, edges_stored_once=False,
    kind_priors={"Disease": 1.0, "Gene": 0.9, "PhenotypicFeature": 0.7},
)


def load_kgx_format(data: str | os.PathLike[str] | None, *, name: str = "", release: str = "",
                    options: Mapping[str, str] | None = None, progress: bool = True) -> KnowledgeGraph:
    """The ``kgx`` format's loader (:class:`~engram_kit.kg.formats.GraphLoader`): ``data`` is the edges file.

    Options: ``nodes`` (the nodes file; without one, endpoints become stub nodes typed from the association),
    ``stub_missing`` (true: keep edges whose endpoints the nodes file lacks, as stubs; default false),
    ``errors`` (``skip``, default: malformed rows are skipped and listed; ``raise``).

    Raises
    ------
    DataError
        Without ``data`` (KGX has no bundled default), for a folder given as a file, and as :func:`load_kgx`.
    """
    options = options or {}
    if data is None:
        raise DataError("A KGX graph needs its edges file: data=<edges.tsv|.jsonl> (CLI: --graph kgx --data EDGES, "
                        "or --kgx-edges EDGES); the bundled sample is data/kgx/graph_edges.tsv.")
    nodes = Path(options["nodes"]) if options.get("nodes") else None
    for what, file in (("edges", Path(data)), ("nodes", nodes)):
        if file is not None and file.is_dir():
            raise DataError(f"The KGX {what} file {file} is a folder; give the KGX file inside it "
                            f"(e.g. {file}/{what}.tsv).")
    stub = nodes is None or option_flag(options, "stub_missing")
    errors = options.get("errors") or "skip"
    return load_kgx(nodes.resolve() if nodes else None, Path(data).resolve(), errors=errors,  # type: ignore[arg-type]
                    missing_nodes="stub" if stub else "error", name=name or "KGX graph", version=release,
                    progress=progress)


def kgx_load_lines(kg: KnowledgeGraph) -> list[str]:
    """What ``engram init`` prints after reading a KGX graph: totals, the first skipped rows, a stub hint."""
    report = kg.report
    if not isinstance(report, KGXLoadReport):
        return []
    lines = [f"Read KGX: {kg.n_nodes:,} nodes ({report.n_stubs:,} stubs), {kg.n_edges:,} edges, "
             f"{report.n_negated:,} negated, {report.n_skipped:,} malformed rows skipped; Biolink model "
             f"{report.biolink_model_version}."]
    lines += [f"  skipped {row.file} line {row.line}: {row.reason}" for row in report.skipped.head(5).itertuples(index=False)]
    if report.n_skipped and report.skipped["reason"].str.contains("not in the nodes file").any():
        lines.append("  (edges whose endpoints are missing from the nodes file were skipped; --option stub_missing=true "
                     "(--kgx-stub-missing) keeps them as stub nodes)")
    return lines


#: The ``kgx`` graph format (registered in :mod:`engram_kit.plugins`).
KGX_FORMAT = GraphFormat(
    name="kgx", profile=KGX_PROFILE, loader=load_kgx_format, report_lines=kgx_load_lines,
    description="a Biolink KGX graph (nodes + edges, TSV or JSON Lines, gzip ok)",
    data_help="the KGX edges file (.tsv/.jsonl, .gz ok); --option nodes=FILE for its nodes file",
    options={"nodes": "the KGX nodes file (without one, endpoints become stub nodes typed from the association)",
             "stub_missing": "true: keep edges whose endpoints the nodes file lacks, as stub nodes (default false)",
             "errors": "skip (default: malformed rows skipped and listed) or raise"},
)
