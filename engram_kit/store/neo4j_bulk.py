"""Bulk loads of a whole graph store into Neo4j: batched ``UNWIND`` over Bolt, or ``LOAD CSV`` into the server.

:func:`load_neo4j` copies every node and relationship of a source store (usually an embedded workspace's
LadybugDB) into an empty Neo4j database by one of two paths:

``"unwind"`` (the baseline)
    :meth:`Neo4jStore.load_knowledge_graph` (``UNWIND $rows`` batches of ``Neo4jConfig.batch_rows`` over Bolt)
    for the domain layer, then the literature layer through the same transactional upsert as ingestion
    (:meth:`~engram_kit.store.cypher_store.CypherStore.write_literature`, ``articles_per_batch`` articles per
    transaction). Every row travels as a Bolt parameter and is MERGEd.
``"load-csv"``
    The rows are written as CSV files into the server's import folder (``server.directories.import``, given as
    ``import_dir``: the same machine or a shared volume), one file per label and one per (relationship type,
    source label, target label), then read by the server itself with ``LOAD CSV WITH HEADERS ... CALL (row)
    { CREATE ... } IN TRANSACTIONS OF n ROWS``: no Bolt round trip per batch, no parameter encoding, CREATE
    instead of MERGE (the database is empty; the uniqueness constraints still refuse a duplicate id), and each
    relationship's endpoints found by two index seeks on their labels.

The fastest path, ``neo4j-admin database import full`` (offline, the server stopped), reads the CSVs of
:func:`engram_kit.store.export.export_neo4j_admin_csv`; :func:`admin_import` runs it.
``benchmarks/neo4j_load.py`` measures all three on the shared Hetionet + 6,107 abstracts.

Reference: Neo4j Cypher Manual 5, "LOAD CSV" and "CALL subqueries in transactions"; Operations Manual 5,
"Import".
"""

from __future__ import annotations

import logging
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.errors import DataError
from engram_kit.progress import tqdm
from engram_kit.store.cypher import LITERATURE_NODE_PROPERTIES, LITERATURE_REL_TABLES

if TYPE_CHECKING:
    from engram_kit.store.base import GraphStore
    from engram_kit.store.export import ExportReport
    from engram_kit.store.neo4j import Neo4jStore

logger = logging.getLogger(__name__)

#: Load paths of :func:`load_neo4j`.
METHODS: tuple[str, ...] = ("unwind", "load-csv")
#: Rows per ``IN TRANSACTIONS`` batch of the ``LOAD CSV`` path. Larger than the UNWIND batches: the rows never
#: cross the wire, so a transaction costs only its server-side state (~1 KB a row).
LOAD_CSV_ROWS = 20_000
#: Cypher conversion of a CSV field (all fields are strings; an empty field is null) per property type.
_CONVERT = {"INT64": "toInteger({v})", "DOUBLE": "toFloat({v})", "BOOLEAN": "toBoolean({v})", "STRING": "{v}"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class BulkLoadReport:
    """What :func:`load_neo4j` did.

    Attributes
    ----------
    method : ``"unwind"`` or ``"load-csv"``
    nodes, relationships : rows written (for ``load-csv``: the server's own counters)
    files : CSV files written and loaded (0 for ``unwind``)
    csv_bytes : bytes of those files
    seconds : wall time of the whole load, s
    stage_seconds : ``read`` (source store), ``files`` (CSV writing), ``nodes``, ``relationships`` (server), s
    """

    method: str
    nodes: int = 0
    relationships: int = 0
    files: int = 0
    csv_bytes: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "nodes": self.nodes, "relationships": self.relationships, "files": self.files,
                "csv_bytes": self.csv_bytes, "seconds": self.seconds, "stage_seconds": self.stage_seconds}


@dataclass(frozen=True)
class _CsvFile:
    name: str
    rows: int
    label: str = ""  # node file
    rel_type: str = ""  # relationship file
    source_label: str = ""
    target_label: str = ""
    properties: tuple[tuple[str, str], ...] = ()  # (column, LadybugDB type), ``id`` first for nodes


def load_neo4j(source: GraphStore, target: Neo4jStore, *, method: str = "load-csv",
               import_dir: str | Path | None = None, url_base: str = "file:///",
               rows_per_transaction: int = LOAD_CSV_ROWS, articles_per_batch: int = 200,
               keep_files: bool = False, progress: bool = True) -> BulkLoadReport:
    """Copy the whole graph (domain + literature layers) of ``source`` into the empty Neo4j database ``target``.

    Parameters
    ----------
    source : GraphStore
        Read only, through its public ``query`` (:mod:`engram_kit.store.export`).
    target : Neo4jStore
        Writable, on an empty database. For ``load-csv`` open it with ``create_schema=False``: the constraints
        and indexes are then built once after the nodes are in, before the relationships (faster than keeping
        them up to date row by row; either way works).
    method : ``"load-csv"`` (default) or ``"unwind"`` (module docstring).
    import_dir : path
        ``load-csv`` only, required: a folder the server reads ``LOAD CSV`` files from, its
        ``server.directories.import`` (``scripts/neo4j.sh`` puts it in ``$NEO4J_IMPORT_DIR``). The CSV files are
        written there under ``engram-load/`` and removed afterwards unless ``keep_files``.
    url_base : str
        How the server names that folder: ``file:///`` (default) or an ``http(s)://`` address serving it.
    rows_per_transaction : int
        ``load-csv``: rows per ``IN TRANSACTIONS`` batch, >= 1.
    articles_per_batch : int
        ``unwind``: articles per literature transaction, >= 1.
    keep_files : bool
        Leave the CSV files in ``import_dir``.
    progress : bool
        tqdm bar over the files (``load-csv``) or rows (``unwind``).

    Returns
    -------
    BulkLoadReport

    Raises
    ------
    DataError
        An unknown ``method``, ``load-csv`` without ``import_dir``, a database that already holds a knowledge
        graph, or a file that created fewer rows than it holds (an endpoint missing: the message names the
        file; what was committed before stays, so drop the database and load again).
    QueryError, BackendUnavailableError
        From the server (e.g. ``LOAD CSV`` refused because the file is outside its import folder).
    """
    from engram_kit.store.export import literature_batches, read_domain, read_literature

    if method not in METHODS:
        raise DataError(f"Unknown Neo4j load method {method!r}; choose one of {', '.join(METHODS)}.")
    if rows_per_transaction < 1:
        raise DataError(f"rows_per_transaction={rows_per_transaction} must be >= 1.")
    if method == "load-csv" and import_dir is None:
        raise DataError("method='load-csv' needs import_dir: the folder the Neo4j server reads LOAD CSV files from "
                        "(its server.directories.import; scripts/neo4j.sh exports it as $NEO4J_IMPORT_DIR). "
                        "Without access to it, use method='unwind'.")
    t0 = time.perf_counter()
    report = BulkLoadReport(method)
    nodes, edges = read_domain(source)
    literature = read_literature(source)
    report.stage_seconds["read"] = round(time.perf_counter() - t0, 2)
    if method == "unwind":
        t1 = time.perf_counter()
        target.load_knowledge_graph(nodes, edges, progress=progress)
        report.stage_seconds["domain"] = round(time.perf_counter() - t1, 2)
        t1 = time.perf_counter()
        for batch in tqdm(literature_batches(literature, articles_per_batch), desc="literature", unit="batch",
                          disable=not progress):
            target.write_literature(batch)
        report.stage_seconds["literature"] = round(time.perf_counter() - t1, 2)
        report.nodes = len(nodes) + sum(len(f) for f in (literature.articles, literature.sections,
                                                          literature.passages, literature.nounphrases))
        report.relationships = len(edges) + sum(len(f) for f in (literature.sections, literature.passages,
                                                                  literature.mentions, literature.maps_to,
                                                                  literature.same_as))
        report.seconds = round(time.perf_counter() - t0, 2)
        return report

    target._require_writable("load_neo4j")
    if not target._domain_is_empty():
        raise DataError(f"The Neo4j database {target.config.database!r} already holds a knowledge graph; "
                        f"load_neo4j fills an empty database only. Use a new database.")
    folder = Path(import_dir) / "engram-load"  # type: ignore[arg-type]  # checked above
    t1 = time.perf_counter()
    files = write_load_csv_files(target, nodes, edges, literature, folder)
    report.files = len(files)
    report.csv_bytes = sum((folder / f.name).stat().st_size for f in files)
    report.stage_seconds["files"] = round(time.perf_counter() - t1, 2)
    base = url_base.rstrip("/") + "/engram-load/"
    if url_base == "file:///":
        base = "file:///engram-load/"
    try:
        for kind in ("nodes", "relationships"):
            if kind == "relationships":
                # Constraints and indexes built once over the loaded nodes (cheaper than maintained row by row
                # when ``target`` was opened with create_schema=False; a no-op when they exist), and online
                # before the relationships' endpoint seeks use them.
                t1 = time.perf_counter()
                target.create_schema()
                target._execute("CALL db.awaitIndexes(3600)", what="waiting for the indexes")
                report.stage_seconds["schema"] = round(time.perf_counter() - t1, 2)
            t1 = time.perf_counter()
            todo = [f for f in files if bool(f.label) == (kind == "nodes")]
            for item in tqdm(todo, desc=f"LOAD CSV {kind}", unit="file", disable=not progress):
                made = _load_file(target, item, base + item.name, rows_per_transaction)
                if made != item.rows:
                    raise DataError(f"LOAD CSV of {item.name} created {made} of its {item.rows} "
                                    f"{'nodes' if item.label else 'relationships'} (an endpoint is missing on the "
                                    f"server, or the file was cut). Earlier files are committed: drop the "
                                    f"database and load again.")
                if item.label:
                    report.nodes += made
                else:
                    report.relationships += made
            report.stage_seconds[kind] = round(time.perf_counter() - t1, 2)
    finally:
        if not keep_files:
            shutil.rmtree(folder, ignore_errors=True)
    target.generation += 1
    report.seconds = round(time.perf_counter() - t0, 2)
    logger.info("LOAD CSV into Neo4j %s: %d nodes, %d relationships from %d files (%.1f MB) in %.1f s",
                target.config.database, report.nodes, report.relationships, report.files, report.csv_bytes / 1e6,
                report.seconds)
    return report


def write_load_csv_files(target: Neo4jStore, nodes: pd.DataFrame, edges: pd.DataFrame, literature: Any,
                         folder: Path) -> list[_CsvFile]:
    """Write the ``LOAD CSV`` files of one graph into ``folder`` (emptied first): one per label, one per
    (relationship type, source label, target label); header = property names. Returns them, nodes first."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    schema = target.schema
    out: list[_CsvFile] = []

    def write(name: str, frame: pd.DataFrame, **spec: Any) -> None:
        if len(frame):
            frame.to_csv(folder / name, index=False, na_rep="")
            out.append(_CsvFile(name=name, rows=len(frame), **spec))

    node_props = tuple(schema.node_properties.items())
    for label, frame in target._node_frames(nodes).items():
        write(f"nodes_{label}.csv", frame, label=label, properties=node_props)
    lit_nodes = {"Article": literature.articles, "Section": literature.sections, "Passage": literature.passages,
                 "NounPhrase": literature.nounphrases}
    for label, frame in lit_nodes.items():
        props = LITERATURE_NODE_PROPERTIES[label]
        part = frame[list(props)].copy()
        for prop, type_ in props.items():
            if type_ == "INT64":
                part[prop] = part[prop].astype("Int64")
        write(f"nodes_{label}.csv", part, label=label, properties=tuple(props.items()))
    rel_props = tuple(schema.rel_properties.items())
    for (rel_type, (src, dst)), frame in target._edge_frames(edges, nodes).items():
        write(f"rels_{rel_type}_{src}_{dst}.csv", frame.rename(columns={"from": "source", "to": "target"}),
              rel_type=rel_type, source_label=src, target_label=dst, properties=rel_props)
    label_of = pd.Series(target._node_labels(nodes).to_numpy(), index=nodes["id"].astype(str).to_numpy())
    sec, pas = literature.sections, literature.passages
    write("rels_HAS_SECTION.csv", pd.DataFrame({"source": sec["article_id"], "target": sec["id"]}),
          rel_type="HAS_SECTION", source_label="Article", target_label="Section")
    write("rels_CONTAINS.csv", pd.DataFrame({"source": pas["section_id"], "target": pas["id"]}),
          rel_type="CONTAINS", source_label="Section", target_label="Passage")
    mention_props = tuple(LITERATURE_REL_TABLES["MENTIONS"][1].items())
    for src, part in literature.mentions.groupby("source_label", sort=True):
        write(f"rels_MENTIONS_{src}.csv", part[["source", "target", "count"]].astype({"count": "Int64"}),
              rel_type="MENTIONS", source_label=str(src), target_label="NounPhrase", properties=mention_props)
    maps = literature.maps_to.assign(_label=label_of.reindex(literature.maps_to["target"].astype(str)).to_numpy())
    if maps["_label"].isna().any():
        missing = maps.loc[maps["_label"].isna(), "target"].iloc[0]
        raise DataError(f"A MAPS_TO edge points at {missing!r}, which is not a domain node of the source store.")
    maps_props = tuple(LITERATURE_REL_TABLES["MAPS_TO"][1].items())
    for dst, part in maps.groupby("_label", sort=True):
        write(f"rels_MAPS_TO_{dst}.csv", part[["source", "target", "confidence", "method"]],
              rel_type="MAPS_TO", source_label="NounPhrase", target_label=str(dst), properties=maps_props)
    write("rels_SAME_AS.csv", literature.same_as[["source", "target"]], rel_type="SAME_AS",
          source_label="NounPhrase", target_label="NounPhrase")
    return out


def _identifier(name: str) -> str:
    """A label, type or property name as Cypher text (backquoted unless plain)."""
    return name if _NAME.match(name) else "`" + name.replace("`", "``") + "`"


def load_csv_statement(item: _CsvFile, rows_per_transaction: int) -> str:
    """The ``LOAD CSV ... CALL (row) { CREATE ... } IN TRANSACTIONS`` statement of one file (its URL a parameter)."""
    def value(prop: str, type_: str) -> str:
        return _CONVERT.get(type_, "{v}").format(v=f"row[{_quote(prop)}]")

    if item.label:
        props = ", ".join(f"{_identifier(p)}: {value(p, t)}" for p, t in item.properties)
        body = f"CREATE (:{_identifier(item.label)} {{{props}}})"
    else:
        props = ", ".join(f"{_identifier(p)}: {value(p, t)}" for p, t in item.properties)
        body = (f"MATCH (a:{_identifier(item.source_label)} {{id: row.source}}) "
                f"MATCH (b:{_identifier(item.target_label)} {{id: row.target}}) "
                f"CREATE (a)-[:{_identifier(item.rel_type)}{' {' + props + '}' if props else ''}]->(b)")
    return (f"LOAD CSV WITH HEADERS FROM $url AS row CALL (row) {{ {body} }} "
            f"IN TRANSACTIONS OF {int(rows_per_transaction)} ROWS")


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _load_file(target: Neo4jStore, item: _CsvFile, url: str, rows_per_transaction: int) -> int:
    """Run one file's statement in an auto-commit transaction (``IN TRANSACTIONS`` needs one); rows created."""
    cypher = load_csv_statement(item, rows_per_transaction)
    try:
        with target._session(read=False) as session:
            counters = session.run(cypher, {"url": url}).consume().counters
    except Exception as exc:
        raise target._convert(exc, f"LOAD CSV of {item.name}") from exc
    return int(counters.nodes_created if item.label else counters.relationships_created)


# --- neo4j-admin (offline) ------------------------------------------------------------------------------------
@dataclass
class AdminImportReport:
    """What :func:`admin_import` ran: the command, its wall time (s) and the counts neo4j-admin printed."""

    command: list[str]
    seconds: float
    nodes: int | None = None
    relationships: int | None = None
    output: str = ""


def admin_import(export: ExportReport | str | Path, *, command: Sequence[str] = ("neo4j-admin",),
                 database: str = "neo4j", extra_args: Sequence[str] = (), timeout_s: float | None = None,
                 env: dict[str, str] | None = None) -> AdminImportReport:
    """Run ``neo4j-admin database import full`` on the files of :func:`~engram_kit.store.export.export_neo4j_admin_csv`.

    The target server must be stopped (or ``database`` must not exist yet), as neo4j-admin requires; start it
    afterwards and open the database with ``Neo4jStore`` (the graph schema travels in the ``EngramMeta`` file).

    Parameters
    ----------
    export : the :class:`~engram_kit.store.export.ExportReport`, or the folder it wrote (its ``import.sh`` is read).
    command : how to call neo4j-admin, e.g. ``("/opt/neo4j/bin/neo4j-admin",)`` (default: ``neo4j-admin`` on
        PATH), or ``("bash", "scripts/neo4j.sh", "admin")`` for the test server of this repository.
    database : database name (``neo4j`` on Community Edition).
    extra_args : more options, e.g. ``("--threads=4", "--high-parallel-io=on")``.
    timeout_s : kill neo4j-admin after this many seconds (None: no limit).
    env : environment of the process (default: this process's).

    Returns
    -------
    AdminImportReport

    Raises
    ------
    DataError
        If the folder holds no ``import.sh``, neo4j-admin is not found, or it exits non-zero (the message carries
        the end of its output: a server still running, a duplicate id, a missing endpoint...).
    """
    from engram_kit.store.export import ExportReport, admin_import_command

    if isinstance(export, ExportReport):
        folder, line = export.directory, admin_import_command(export, database)
    else:
        folder = Path(export)
        script = folder / "import.sh"
        if not script.is_file():
            raise DataError(f"{folder} has no import.sh; write the files with `engram export --neo4j-admin-csv "
                            f"{folder}` first.")
        line = next((s for s in script.read_text().splitlines() if s.startswith("neo4j-admin ")), "")
        if not line:
            raise DataError(f"{script} has no neo4j-admin command line; export again.")
    args = shlex.split(line)[1:]  # database import full <name> --options...
    if args[:3] != ["database", "import", "full"] or len(args) < 4 or args[3].startswith("-"):
        raise DataError(f"{folder}/import.sh does not read 'neo4j-admin database import full <database> ...'; "
                        f"export again with this version of engram-kit.")
    full = [*command, *args[:3], database, *args[4:], *extra_args]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(full, cwd=folder, capture_output=True, text=True, timeout=timeout_s, env=env)
    except FileNotFoundError as exc:
        raise DataError(f"{command[0]!r} not found: pass command=(path to neo4j-admin,) (it is in the bin/ folder "
                        f"of a Neo4j server installation).") from exc
    seconds = time.perf_counter() - t0
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise DataError(f"neo4j-admin database import failed (exit {done.returncode}): {output[-2000:]}")
    found = re.search(r"Imported:\s*([\d,]+) nodes\s*([\d,]+) relationships", output)
    nodes, rels = (int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))) if found else (None, None)
    return AdminImportReport(command=full, seconds=round(seconds, 2), nodes=nodes, relationships=rels,
                             output=output[-4000:])
