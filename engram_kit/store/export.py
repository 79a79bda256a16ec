"""Read a whole graph store out: neo4j-admin import CSVs (``engram export``) and batches for ``engram migrate``.

Both read any :class:`~engram_kit.store.base.GraphStore` through its public ``query`` method with the ``export_*``
statements of its own pack (``store.statements``), so they work on the embedded store and on Neo4j alike.

neo4j-admin CSV layout
----------------------
One node file per label, ``nodes_<Label>.csv``, header ``id:ID,<properties>,:LABEL``; one relationship file
per type, ``relationships_<TYPE>.csv``, header ``:START_ID,:END_ID,:TYPE,<properties>``. Property columns
carry neo4j-admin type suffixes where they are not strings (``year:int``, ``confidence:float``). All ids live
in one global ID space (engram-kit ids are unique across labels: ``Gene::7157``, ``pubmed:123#p0``,
``np:gene:tp53``), and ``id:ID`` also stores each id as the ``id`` property the store's constraints and
statements use. Missing values are empty fields, which neo4j-admin imports as "no property". Passage texts
may contain line breaks, hence ``--multiline-fields=true`` in the generated command (``import.sh``).
Reference: Neo4j Operations Manual 5, "Import" (``neo4j-admin database import full``; CSV header format).
"""

from __future__ import annotations

import json
import logging
import shlex
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from engram_kit.progress import tqdm

from engram_kit.errors import DataError
from engram_kit.kg.schema import GraphSchema
from engram_kit.records import (
    ArticleRecord,
    LiteratureBatch,
    MapsToEdge,
    MentionEdge,
    NounPhraseRecord,
    PassageRecord,
    SameAsEdge,
    SectionRecord,
)
from engram_kit.store.base import GraphStore
from engram_kit.store.cypher import (
    LITERATURE_NODE_PROPERTIES,
    MENTION_SOURCE_LABELS,
)

logger = logging.getLogger(__name__)

#: neo4j-admin type suffix of each LadybugDB property type (strings need none).
ADMIN_TYPES: dict[str, str] = {"INT64": "int", "DOUBLE": "float", "STRING": "", "BOOLEAN": "boolean"}
#: Record field name of the stored ``idx`` property.
_INDEX_FIELD = {"idx": "index"}


def _q(store: GraphStore, name: str, **identifiers: str) -> pd.DataFrame:
    return store.query(store.statements.statement(name, schema=store.schema, **identifiers))


# --- reading a store ---------------------------------------------------------------------------------------
def read_domain(store: GraphStore) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The domain layer as the frames :meth:`GraphStore.load_knowledge_graph` takes.

    Returns
    -------
    nodes : DataFrame ``id, kind, identifier, name`` then the schema's other node properties (``kind`` = the
        label, which the loaders accept)
    edges : DataFrame ``source, metaedge, target`` then the schema's rel properties (Hetionet: ``sources,
        license, unbiased, pubmed_ids``; KGX: ``predicate, negated, primary_knowledge_source, ...``);
        ``metaedge`` = the relationship type, which the loaders accept
    """
    schema = _schema(store)
    nodes = [_q(store, "export_domain_nodes", label=label).assign(kind=label) for label in schema.labels]
    edges = [_q(store, "export_domain_rels", rel_type=rel).assign(metaedge=rel) for rel in schema.rel_types]
    node_props = [p for p in schema.node_properties if p not in ("id", "identifier", "name")]
    node_frame = pd.concat(nodes, ignore_index=True)[["id", "kind", "identifier", "name", *node_props]]
    edge_frame = pd.concat(edges, ignore_index=True)[["source", "metaedge", "target", *schema.rel_properties]]
    return node_frame, edge_frame


def _schema(store: GraphStore) -> GraphSchema:
    """The store's domain layer (Hetionet for a store without one)."""
    return store.schema


@dataclass
class LiteratureFrames:
    """The literature layer of a store, one frame per table (columns as in the store)."""

    articles: pd.DataFrame
    sections: pd.DataFrame
    passages: pd.DataFrame
    nounphrases: pd.DataFrame
    mentions: pd.DataFrame  # source, target, count, source_label
    maps_to: pd.DataFrame  # source, target, confidence, method
    same_as: pd.DataFrame  # source, target


def read_literature(store: GraphStore) -> LiteratureFrames:
    """Every Article, Section, Passage, NounPhrase and literature edge of ``store``."""
    articles = _q(store, "articles_all").drop(columns=["passages"])
    mentions = pd.concat([_q(store, "export_mentions", label=label).assign(source_label=label)
                          for label in MENTION_SOURCE_LABELS], ignore_index=True)
    return LiteratureFrames(
        articles=articles, sections=_q(store, "export_sections"), passages=_q(store, "export_passages"),
        nounphrases=_q(store, "export_nounphrases"), mentions=mentions, maps_to=_q(store, "export_maps_to"),
        same_as=_q(store, "same_as_edges")[["source", "target"]],
    )


def _value(v: Any) -> Any:
    return None if v is None or (isinstance(v, float) and v != v) or v is pd.NA else v


def _records(frame: pd.DataFrame, cls: type, rename: dict[str, str] | None = None) -> list[Any]:
    rename = rename or {}
    rows = frame.rename(columns=rename).to_dict("records")
    out = []
    for row in rows:
        kwargs = {k: _value(v) for k, v in row.items()}
        for key, val in kwargs.items():
            if val is None and key not in ("year", "page_start", "page_end"):
                kwargs[key] = "" if key not in ("char_start", "char_end", "index") else 0
            elif key in ("year", "page_start", "page_end", "char_start", "char_end", "index") and val is not None:
                kwargs[key] = int(val)
        out.append(cls(**kwargs))
    return out


def literature_batches(frames: LiteratureFrames, articles_per_batch: int = 200) -> Iterator[LiteratureBatch]:
    """Cut the literature layer into :class:`LiteratureBatch` es of whole articles, for ``write_literature``.

    Each batch holds its articles with their sections, passages and MENTIONS, plus the NounPhrases those
    mention and their MAPS_TO / SAME_AS edges (a NounPhrase shared by several batches is merged on id).
    """
    if articles_per_batch < 1:
        raise DataError(f"articles_per_batch={articles_per_batch} must be >= 1.")
    article_of = lambda ids: ids.str.split("#", n=1).str[0]  # noqa: E731 - "pubmed:1#p0" -> "pubmed:1"
    sections = frames.sections.assign(_a=frames.sections["article_id"])
    passages = frames.passages.assign(_a=frames.passages["article_id"])
    mentions = frames.mentions.assign(_a=article_of(frames.mentions["source"].astype(str)))
    by_np = frames.nounphrases.set_index("id", drop=False)
    ids = frames.articles["id"].tolist()
    for start in range(0, len(ids), articles_per_batch):
        chunk = set(ids[start:start + articles_per_batch])
        m = mentions[mentions["_a"].isin(chunk)]
        np_ids = set(m["target"])
        same = frames.same_as[frames.same_as["source"].isin(np_ids) | frames.same_as["target"].isin(np_ids)]
        np_ids |= set(same["source"]) | set(same["target"])
        maps = frames.maps_to[frames.maps_to["source"].isin(np_ids)]
        yield LiteratureBatch(
            articles=_records(frames.articles[frames.articles["id"].isin(chunk)], ArticleRecord),
            sections=_records(sections[sections["_a"].isin(chunk)].drop(columns="_a"), SectionRecord, _INDEX_FIELD),
            passages=_records(passages[passages["_a"].isin(chunk)].drop(columns="_a"), PassageRecord, _INDEX_FIELD),
            nounphrases=_records(by_np.loc[sorted(np_ids & set(by_np.index))].reset_index(drop=True),
                                 NounPhraseRecord),
            mentions=[MentionEdge(s, t, int(c), lab) for s, t, c, lab in
                      zip(m["source"], m["target"], m["count"], m["source_label"])],
            maps_to=[MapsToEdge(s, t, float(c), str(meth or "")) for s, t, c, meth in
                     zip(maps["source"], maps["target"], maps["confidence"], maps["method"])],
            same_as=[SameAsEdge(s, t) for s, t in zip(same["source"], same["target"])],
        )


# --- neo4j-admin CSV ----------------------------------------------------------------------------------------
@dataclass
class ExportReport:
    """Files written by :func:`export_neo4j_admin_csv`.

    Attributes
    ----------
    directory : Path
    node_files : dict label -> (file name, rows)
    relationship_files : dict type -> (file name, rows)
    command : str, the ``neo4j-admin database import full`` command line (also written to ``import.sh``)
    seconds : float, wall time
    """

    directory: Path
    node_files: dict[str, tuple[str, int]] = field(default_factory=dict)
    relationship_files: dict[str, tuple[str, int]] = field(default_factory=dict)
    command: str = ""
    seconds: float = 0.0

    def to_frame(self) -> pd.DataFrame:
        rows = [("nodes", k, f, n) for k, (f, n) in self.node_files.items()]
        rows += [("relationships", k, f, n) for k, (f, n) in self.relationship_files.items()]
        return pd.DataFrame(rows, columns=["kind", "name", "file", "rows"])

    def to_dict(self) -> dict[str, Any]:
        return {"directory": str(self.directory), "node_files": self.node_files,
                "relationship_files": self.relationship_files, "command": self.command, "seconds": self.seconds}


def _typed_header(properties: dict[str, str]) -> dict[str, str]:
    """Column -> header cell, e.g. ``year`` -> ``year:int``."""
    return {p: f"{p}:{ADMIN_TYPES[t]}" if ADMIN_TYPES.get(t) else p for p, t in properties.items()}


def node_frame_for_admin(frame: pd.DataFrame, label: str, properties: dict[str, str]) -> pd.DataFrame:
    """Columns ``id:ID, <typed properties>, :LABEL`` for one label."""
    typed = _typed_header({p: t for p, t in properties.items() if p != "id"})
    out = pd.DataFrame({"id:ID": frame["id"].astype(str)})
    for prop, cell in typed.items():
        out[cell] = frame[prop].astype("Int64") if cell.endswith(":int") else frame[prop]
    out[":LABEL"] = label
    return out


def rel_frame_for_admin(source: pd.Series, target: pd.Series, rel_type: str,
                        properties: pd.DataFrame | None = None, types: dict[str, str] | None = None) -> pd.DataFrame:
    """Columns ``:START_ID, :END_ID, :TYPE, <typed properties>`` for one relationship type."""
    out = pd.DataFrame({":START_ID": source.astype(str).to_numpy(), ":END_ID": target.astype(str).to_numpy()})
    out[":TYPE"] = rel_type
    if properties is not None:
        for prop, cell in _typed_header(types or {}).items():
            values = properties[prop].to_numpy()
            out[cell] = pd.array(values, dtype="Int64") if cell.endswith(":int") else values
    return out


def export_neo4j_admin_csv(store: GraphStore, directory: str | Path, *, database: str = "neo4j",
                           overwrite: bool = False, progress: bool = True) -> ExportReport:
    """Write neo4j-admin import CSVs of the whole graph (domain + literature layers) of ``store``.

    Parameters
    ----------
    store : GraphStore
        Usually an embedded workspace's store (LadybugDB); read only.
    directory : path
        Output folder (created); must be empty unless ``overwrite``.
    database : str
        Database name used in the generated ``import.sh``.
    overwrite : bool
        Replace existing ``*.csv`` files in ``directory``.
    progress : bool
        tqdm bar over the files.

    Returns
    -------
    ExportReport

    Raises
    ------
    DataError
        If ``directory`` already holds CSV files and ``overwrite`` is False.

    Notes
    -----
    Then, with the Neo4j server stopped (or into a new database)::

        bash DIR/import.sh          # neo4j-admin database import full ... --multiline-fields=true neo4j

    and open the workspace with ``engram init --backend neo4j`` pointing at that database.
    """
    t0 = time.perf_counter()
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    existing = sorted(out_dir.glob("*.csv"))
    if existing and not overwrite:
        raise DataError(f"{out_dir} already holds {len(existing)} CSV files (e.g. {existing[0].name}); choose an "
                        f"empty folder or pass overwrite=True (CLI: --force).")
    for old in existing:
        old.unlink()
    report = ExportReport(out_dir)
    literature = read_literature(store)
    schema = _schema(store)
    domain_props = dict(schema.node_properties)
    jobs: list[tuple[str, str, Any]] = []
    for label in schema.labels:
        jobs.append(("node", label, lambda label=label: node_frame_for_admin(
            _q(store, "export_domain_nodes", label=label), label, domain_props)))
    lit_frames = {"Article": literature.articles, "Section": literature.sections, "Passage": literature.passages,
                  "NounPhrase": literature.nounphrases}
    for label, frame in lit_frames.items():
        jobs.append(("node", label, lambda label=label, frame=frame: node_frame_for_admin(
            frame, label, LITERATURE_NODE_PROPERTIES[label])))
    # The graph schema travels with the data: a Neo4jStore opened on the imported database reads it back (without
    # it a KGX graph would be taken for Hetionet). Its own id space keeps the key apart from node ids.
    jobs.append(("node", "EngramMeta", lambda: pd.DataFrame({
        "key:ID(engram-meta)": ["graph_schema"], "value": [json.dumps(schema.to_dict())], ":LABEL": ["EngramMeta"]})))
    rel_types = dict(schema.rel_properties)
    for rel in schema.rel_types:
        jobs.append(("rel", rel, lambda rel=rel: (lambda f: rel_frame_for_admin(
            f["source"], f["target"], rel, f, rel_types))(_q(store, "export_domain_rels", rel_type=rel))))
    sec, pas, men, maps, same = (literature.sections, literature.passages, literature.mentions,
                                 literature.maps_to, literature.same_as)
    jobs += [
        ("rel", "HAS_SECTION", lambda: rel_frame_for_admin(sec["article_id"], sec["id"], "HAS_SECTION")),
        ("rel", "CONTAINS", lambda: rel_frame_for_admin(pas["section_id"], pas["id"], "CONTAINS")),
        ("rel", "MENTIONS", lambda: rel_frame_for_admin(men["source"], men["target"], "MENTIONS", men,
                                                        {"count": "INT64"})),
        ("rel", "MAPS_TO", lambda: rel_frame_for_admin(maps["source"], maps["target"], "MAPS_TO", maps,
                                                       {"confidence": "DOUBLE", "method": "STRING"})),
        ("rel", "SAME_AS", lambda: rel_frame_for_admin(same["source"], same["target"], "SAME_AS")),
    ]
    for kind, name, build in tqdm(jobs, desc="neo4j-admin CSV", unit="file", disable=not progress):
        frame = build()
        file_name = f"nodes_{name}.csv" if kind == "node" else f"relationships_{name}.csv"
        frame.to_csv(out_dir / file_name, index=False, na_rep="")
        (report.node_files if kind == "node" else report.relationship_files)[name] = (file_name, len(frame))
    report.command = admin_import_command(report, database)
    (out_dir / "import.sh").write_text("#!/usr/bin/env bash\n# Generated by `engram export --neo4j-admin-csv`; run "
                                       "from this folder with the target database stopped or absent.\nset -euo "
                                       "pipefail\ncd \"$(dirname \"$0\")\"\n" + report.command + "\n")
    report.seconds = round(time.perf_counter() - t0, 2)
    logger.info("Exported %d node files and %d relationship files to %s in %.1f s", len(report.node_files),
                len(report.relationship_files), out_dir, report.seconds)
    return report


def admin_import_command(report: ExportReport, database: str = "neo4j") -> str:
    """The ``neo4j-admin database import full`` command for the files of ``report`` (empty files skipped).

    The database name comes right after ``full``: ``--nodes`` and ``--relationships`` take one or more files, so a
    name after the last of them was read as one more file ("File 'neo4j' doesn't exist", seen with 5.26.8).
    """
    parts = ["neo4j-admin", "database", "import", "full", database, "--multiline-fields=true",
             "--overwrite-destination=true"]
    parts += [f"--nodes={f}" for f, n in report.node_files.values() if n]
    parts += [f"--relationships={f}" for f, n in report.relationship_files.values() if n]
    return " ".join(shlex.quote(p) for p in parts)
