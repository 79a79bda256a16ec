"""PrimeKG (Chandak, Huang and Zitnik 2023): its ``kg.csv`` as a graph format (loader + profile), and its download.

PrimeKG integrates 20 resources into one disease-centred graph of 10 node types and 30 relation types, released as
one CSV, ``kg.csv``, with columns ``relation, display_relation, x_index, x_id, x_type, x_name, x_source, y_index,
y_id, y_type, y_name, y_source``: one row per edge *and direction* (the release makes the graph undirected by
listing every edge from both ends). :func:`load_primekg` reads it:

* nodes: one per ``(type, source, id)``; the id is ``"<Label>::<source>:<id>"`` (``"GeneProtein::NCBI:7157"``,
  ``"Drug::DrugBank:DB00331"``, ``"Disease::MONDO:8019"``), the node's ``kind`` is its label (as for KGX graphs) and
  PrimeKG's own type name is kept in ``node_type`` (``"gene/protein"``), its ``x_index`` in ``primekg_index``;
* edges: one per unordered pair, relation and display relation, oriented as the relation is named
  (``drug_protein``: drug -> protein); ``predicate`` is PrimeKG's relation (``"off-label use"``),
  ``display_relation`` its display name (``"target"``, ``"enzyme"``...). PrimeKG states absence with two relation
  types of their own (``disease_phenotype_negative`` "phenotype absent", ``anatomy_protein_absent`` "expression
  absent"), and they are kept as such: relationship types whose name says the absence, never a positive relation
  with a flag (:data:`NEGATED_RELATIONS`). The schema declares no negation property, so the desk's and answers'
  relation plans read PrimeKG as they read Hetionet; no relation word leads to the absence types, and those edges
  count as links for PPR (as in PrimeKG itself, where they are ordinary typed edges);
* the schema (:data:`PRIMEKG_SCHEMA`) is fixed: the 10 types and 30 relations of the release, whatever the file
  holds.

The profile (:data:`PRIMEKG_PROFILE`) holds the words questions use for PrimeKG's relations ("treat" ->
``indication``, "side effect" -> ``drug_effect``...), the fallback relation (a drug question with no ``indication``
edge is answered from ``off-label use``, said to be a substitute), kind priors, and the citation label
("PrimeKG: indication").

:func:`download_primekg` fetches the release's ``kg.csv`` from Harvard Dataverse; only when called.

References
----------
Chandak P, Huang K, Zitnik M. "Building a knowledge graph to enable precision medicine." Scientific Data 10:67
(2023). https://doi.org/10.1038/s41597-023-01960-3. Data: Harvard Dataverse, https://doi.org/10.7910/DVN/IXA7BM
(``kg.csv``, file id 6180620; CC BY 4.0). Code: https://github.com/mims-harvard/PrimeKG.
"""

from __future__ import annotations

import io
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from engram_kit.errors import DataError
from engram_kit.kg.formats import GraphFormat
from engram_kit.kg.graph import KnowledgeGraph
from engram_kit.kg.loading import LoadReport, Problems, empty_skipped, fetch_verified, read_bytes
from engram_kit.kg.profiles import GraphProfile
from engram_kit.kg.schema import GraphSchema, RelSpec

logger = logging.getLogger(__name__)

#: Columns of PrimeKG's ``kg.csv``, in the release's order.
KG_COLUMNS: tuple[str, ...] = ("relation", "display_relation", "x_index", "x_id", "x_type", "x_name", "x_source",
                               "y_index", "y_id", "y_type", "y_name", "y_source")
#: PrimeKG node type -> graph label (the 10 types of the release).
NODE_TYPES: dict[str, str] = {
    "gene/protein": "GeneProtein", "drug": "Drug", "effect/phenotype": "EffectPhenotype", "disease": "Disease",
    "biological_process": "BiologicalProcess", "molecular_function": "MolecularFunction",
    "cellular_component": "CellularComponent", "exposure": "Exposure", "pathway": "Pathway", "anatomy": "Anatomy",
}
#: PrimeKG relation -> (x type, y type) as the relation is named: the 30 relations of the release (Chandak et al.
#: 2023, Table 2). Edges are stored in this orientation.
RELATIONS: dict[str, tuple[str, str]] = {
    "protein_protein": ("gene/protein", "gene/protein"),
    "drug_protein": ("drug", "gene/protein"),
    "contraindication": ("drug", "disease"),
    "indication": ("drug", "disease"),
    "off-label use": ("drug", "disease"),
    "drug_drug": ("drug", "drug"),
    "phenotype_protein": ("effect/phenotype", "gene/protein"),
    "phenotype_phenotype": ("effect/phenotype", "effect/phenotype"),
    "disease_phenotype_negative": ("disease", "effect/phenotype"),
    "disease_phenotype_positive": ("disease", "effect/phenotype"),
    "disease_protein": ("disease", "gene/protein"),
    "disease_disease": ("disease", "disease"),
    "drug_effect": ("drug", "effect/phenotype"),
    "bioprocess_bioprocess": ("biological_process", "biological_process"),
    "molfunc_molfunc": ("molecular_function", "molecular_function"),
    "cellcomp_cellcomp": ("cellular_component", "cellular_component"),
    "molfunc_protein": ("molecular_function", "gene/protein"),
    "cellcomp_protein": ("cellular_component", "gene/protein"),
    "bioprocess_protein": ("biological_process", "gene/protein"),
    "exposure_protein": ("exposure", "gene/protein"),
    "exposure_disease": ("exposure", "disease"),
    "exposure_exposure": ("exposure", "exposure"),
    "exposure_bioprocess": ("exposure", "biological_process"),
    "exposure_molfunc": ("exposure", "molecular_function"),
    "exposure_cellcomp": ("exposure", "cellular_component"),
    "pathway_pathway": ("pathway", "pathway"),
    "pathway_protein": ("pathway", "gene/protein"),
    "anatomy_anatomy": ("anatomy", "anatomy"),
    "anatomy_protein_present": ("anatomy", "gene/protein"),
    "anatomy_protein_absent": ("anatomy", "gene/protein"),
}
#: Relations that assert an absence (their own relationship types; see the module docstring).
NEGATED_RELATIONS: frozenset[str] = frozenset({"disease_phenotype_negative", "anatomy_protein_absent"})

#: Properties of every PrimeKG node table (LadybugDB types): ``identifier`` ``"<source>:<id>"``, ``node_type``
#: PrimeKG's type name, ``source`` the source vocabulary (``NCBI``, ``DrugBank``, ``MONDO``...), ``primekg_index``
#: the release's ``x_index``.
PRIMEKG_NODE_PROPERTIES: dict[str, str] = {"id": "STRING", "name": "STRING", "identifier": "STRING",
                                           "node_type": "STRING", "source": "STRING", "primekg_index": "STRING"}
#: Properties of every PrimeKG rel table: ``predicate`` the PrimeKG relation, ``display_relation`` its display name.
PRIMEKG_REL_PROPERTIES: dict[str, str] = {"predicate": "STRING", "display_relation": "STRING"}
#: Columns of ``KnowledgeGraph.nodes`` / ``.edges`` of a PrimeKG graph.
PRIMEKG_NODE_COLUMNS: tuple[str, ...] = ("id", "kind", "identifier", "name", "node_type", "source", "primekg_index")
PRIMEKG_EDGE_COLUMNS: tuple[str, ...] = ("source", "rel_type", "target", "predicate", "display_relation")

#: Harvard Dataverse file of the release's ``kg.csv`` (doi:10.7910/DVN/IXA7BM, file id 6180620; about 940 MB).
PRIMEKG_URL = "https://dataverse.harvard.edu/api/access/datafile/6180620"
#: Known SHA-256 digests by file name. Dataverse publishes an MD5 per file, not a SHA-256, so ``kg.csv`` is
#: checked trust-on-first-use (:func:`download_primekg`); pass ``expected_sha256`` to pin one.
PRIMEKG_SHA256: dict[str, str] = {}


def rel_type_of(relation: str) -> str:
    """PrimeKG relation -> relationship type: ``"off-label use"`` -> ``"OFF_LABEL_USE"``."""
    return "".join(c if c.isalnum() else "_" for c in relation).upper()


#: The PrimeKG domain layer: 10 labels, 30 relationship types (undirected: the release lists both directions).
PRIMEKG_SCHEMA = GraphSchema(
    name="primekg",
    kinds={**{label: label for label in NODE_TYPES.values()}, **NODE_TYPES},
    rel_specs=tuple(RelSpec(rel_type_of(r), ((NODE_TYPES[x], NODE_TYPES[y]),), r, False)
                    for r, (x, y) in RELATIONS.items()),
    node_properties=dict(PRIMEKG_NODE_PROPERTIES),
    rel_properties=dict(PRIMEKG_REL_PROPERTIES),
)

#: PrimeKG: relation words for its relation names, the off-label fallback, citation label "PrimeKG: <relation>".
PRIMEKG_PROFILE = GraphProfile(
    name="primekg", short_name="PrimeKG", display_name="PrimeKG", description="PrimeKG (Chandak et al. 2023)",
    llm_wording="{name}, the PrimeKG precision-medicine knowledge graph",
    desk_example="'Which drugs are indicated for <disease>?' or 'Which proteins does <drug> target?'",
    edge_label="predicate", predicates_are_names=True, edges_stored_once=False,
    # The same ordering as Hetionet's (a name meaning a disease, gene or drug far more often than a same-named
    # phenotype); keys are node kinds, which are labels here.
    kind_priors={"Disease": 1.0, "GeneProtein": 0.9, "Drug": 0.9, "Anatomy": 0.6, "EffectPhenotype": 0.5,
                 "Pathway": 0.5, "BiologicalProcess": 0.5, "MolecularFunction": 0.4, "CellularComponent": 0.4,
                 "Exposure": 0.3},
    # PrimeKG's drug-disease relations (from DrugCentral): indication, off-label use, contraindication. A disease
    # without an indicated drug may have off-label ones; never a contraindication.
    relation_fallbacks={"indication": ("off label use",)},
    relation_words=(
        (r"\boff[- ]label\b", "off label use"),
        (r"\bcontraindicat|\bshould not\b|\bavoid", "contraindication"),
        (r"\btreat|\btherap|\bcures?\b|\bindicat|\bused (for|to treat|against)\b|\bprescri|\bdrugs? for\b"
         r"|\bmedications? for\b|\bmanag", "indication"),
        (r"\bside[- ]effects?\b|\badverse\b|\bcaus|\binduce[sd]?\b|\btoxicit", "drug effect"),
        (r"\bbinds?\b|\bbinding\b|\btargets?\b|\btargeting\b|\btargeted\b|\binhibit|\bagonist|\bantagonist"
         r"|\benzymes?\b|\btransporters?\b|\bcarriers?\b", "drug protein"),
        (r"\bassociat|\blinked\b|\bimplicated\b|\brisk\b|\bsusceptib|\bgenetic|\bmutat|\bgwas\b", "disease protein"),
        (r"\bsynerg|\bcombination|\bdrug[- ]drug\b", "drug drug"),
        (r"\binteract", "protein protein"),
        (r"\bpathways?\b|\bparticipat|\binvolved\b|\bmembers?\b", "pathway protein"),
        (r"\bprocess(es)?\b", "bioprocess protein"),
        (r"\bfunctions?\b", "molfunc protein"),
        (r"\bcomponents?\b|\blocali[sz]", "cellcomp protein"),
        (r"\bexpress", "anatomy protein present"),
        (r"\bphenotyp|\bsymptoms?\b|\bpresent|\bsigns?\b|\bmanifest|\bclinical features?\b",
         "disease phenotype positive"),
        (r"\bsubtypes?\b|\bparent\b|\bchild(ren)?\b|\bkinds? of\b", "disease disease"),
        (r"\bexposures?\b|\benvironment", "exposure disease"),
    ),
    kind_words=(
        (r"\bside[- ]effects?\b|\badverse (effects?|events?|reactions?)\b|\bphenotypes?\b|\bsymptoms?\b"
         r"|\beffects?\b", "EffectPhenotype"),
        (r"\bcompounds?\b|\bdrugs?\b|\bmedications?\b|\bmedicines?\b|\bchemicals?\b|\bsubstances?\b|\btreatments?\b"
         r"|\btherapies\b|\btherapeutics?\b|\binhibitors?\b|\bagents?\b|\bpills?\b", "Drug"),
        (r"\bgenes?\b|\bproteins?\b|\breceptors?\b|\benzymes?\b|\btargets?\b", "GeneProtein"),
        (r"\bexposures?\b|\benvironmental (factors?|agents?)\b", "Exposure"),
    ),
    default_verbs=("indication", "disease protein", "drug protein", "pathway protein", "drug effect",
                   "disease phenotype positive", "protein protein", "anatomy protein present"),
)


@dataclass
class PrimeKGLoadReport(LoadReport):
    """What :func:`load_primekg` loaded and skipped (:class:`~engram_kit.kg.loading.LoadReport`), plus the rows
    dropped as the reverse listing of an edge already read (``n_reverse_rows``: about half of a release file)."""

    n_reverse_rows: int = 0


def _check_header(raw: bytes, path: Path) -> None:
    first = raw.split(b"\n", 1)[0].rstrip(b"\r").removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    header = [c.strip() for c in first.split(",")]
    missing = [c for c in KG_COLUMNS if c not in header]
    if missing:
        raise DataError(f"{path}, line 1: the header {header[:12]} lacks PrimeKG column(s) {missing}. Fix: give "
                        f"PrimeKG's kg.csv (comma-separated, header {','.join(KG_COLUMNS)}).")


def load_primekg(path: str | os.PathLike[str], *, errors: Literal["raise", "skip"] = "raise", name: str = "PrimeKG",
                 version: str = "", progress: bool = True) -> KnowledgeGraph:
    """Read PrimeKG's ``kg.csv`` (gzip or plain) into a knowledge graph (see the module docstring).

    Parameters
    ----------
    path : PrimeKG's ``kg.csv`` (release: about 8.1 M rows, 940 MB; the bundled converted sample:
        ``data/primekg/kg-hetionet-sample.csv.gz``).
    errors : ``"raise"``: the first invalid row raises; ``"skip"``: invalid rows are left out and listed in
        ``report.to_frame()``.
    name, version : recorded as the graph's name and release.
    progress : unused (one read); kept for the loader protocol.

    Returns
    -------
    KnowledgeGraph
        Nodes (:data:`PRIMEKG_NODE_COLUMNS`), edges (:data:`PRIMEKG_EDGE_COLUMNS`, str), schema
        :data:`PRIMEKG_SCHEMA`, a :class:`PrimeKGLoadReport`.

    Raises
    ------
    DataError
        For a missing or unreadable file or a header lacking a PrimeKG column; with ``errors="raise"`` also for
        the first row (line number, header = 1) with an unknown relation or node type, an empty id, or endpoint
        types other than the relation's (e.g. a ``drug_protein`` row whose x is a disease).
    """
    del progress
    if errors not in ("raise", "skip"):
        raise DataError(f"errors={errors!r} is not supported. Fix: pass errors='raise' or errors='skip'.")
    started = time.perf_counter()
    file = Path(path)
    if not file.is_file():
        raise DataError(f"PrimeKG file {file} does not exist. Fix: check the path, or fetch the release with "
                        "engram_kit.kg.primekg.download_primekg(folder).")
    raw = read_bytes(file)
    _check_header(raw, file)
    frame = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False, low_memory=False)
    lines = np.arange(2, len(frame) + 2, dtype=np.int64)
    problems = Problems(file, "edges", len(frame))
    relation = frame["relation"].str.strip()
    problems.add(~relation.isin(list(RELATIONS)).to_numpy(), lines,
                 lambda m: "unknown PrimeKG relation " + relation[m].map(repr),
                 f"use one of the {len(RELATIONS)} PrimeKG relations ({', '.join(list(RELATIONS)[:6])}, ...)")
    for end in ("x", "y"):
        types = frame[f"{end}_type"].str.strip()

        def unknown_type(m: np.ndarray, t: pd.Series = types, e: str = end) -> pd.Series:
            return f"unknown {e}_type " + t[m].map(repr)

        def empty_id(m: np.ndarray, e: str = end) -> pd.Series:
            return pd.Series(f"empty {e}_id", index=frame.index[m])

        problems.add(~types.isin(list(NODE_TYPES)).to_numpy(), lines, unknown_type,
                     f"use one of the PrimeKG node types: {', '.join(NODE_TYPES)}")
        problems.add((frame[f"{end}_id"].str.strip() == "").to_numpy(), lines, empty_id, f"give every row its {end}_id")
    known = relation.map(RELATIONS)
    pair = list(zip(frame["x_type"].str.strip(), frame["y_type"].str.strip(), strict=True))
    fits = np.array([k is not None and k == p or (k is not None and k == p[::-1])
                     for k, p in zip(known, pair, strict=True)], dtype=bool)
    pairs = np.array(pair, dtype=object)

    def wrong_types(m: np.ndarray) -> list[str]:
        return [f"relation {r!r} joins {p[0]} and {p[1]}, not {RELATIONS[r][0]} and {RELATIONS[r][1]}"
                for r, p in zip(relation[m], pairs[m], strict=True)]

    problems.add(~fits, lines, wrong_types, "check the row's x/y types against the relation")
    skipped = problems.resolve(errors)
    keep = ~problems.mask
    rows = frame[keep].reset_index(drop=True)
    relation = relation[keep].reset_index(drop=True)
    nodes, x_ids, y_ids = _nodes(rows)
    # orient each row as its relation is named; same-type relations by id (the reverse listing then coincides)
    x_first = rows["x_type"].str.strip().to_numpy() == relation.map(lambda r: RELATIONS[r][0]).to_numpy()
    same = rows["x_type"].str.strip().to_numpy() == rows["y_type"].str.strip().to_numpy()
    swap = np.where(same, x_ids > y_ids, ~x_first)
    edges = pd.DataFrame({
        "source": np.where(swap, y_ids, x_ids), "rel_type": relation.map(rel_type_of).to_numpy(),
        "target": np.where(swap, x_ids, y_ids), "predicate": relation.to_numpy(),
        "display_relation": rows["display_relation"].str.strip().to_numpy(),
    })
    before = len(edges)
    edges = edges.drop_duplicates(["source", "rel_type", "target", "display_relation"]).reset_index(drop=True)
    report = PrimeKGLoadReport(
        nodes_path=None, edges_path=file, edge_format="csv",
        nodes_per_kind={str(k): int(v) for k, v in nodes["kind"].value_counts().sort_index().items()},
        edges_per_metaedge={str(k): int(v) for k, v in edges["rel_type"].value_counts().sort_index().items()},
        skipped=skipped if len(skipped) else empty_skipped(), seconds=time.perf_counter() - started,
        n_reverse_rows=before - len(edges),
    )
    if report.n_skipped:
        logger.warning("Skipped %d invalid PrimeKG row(s); see KnowledgeGraph.report.to_frame().", report.n_skipped)
    logger.info("Loaded %d PrimeKG nodes and %d edges (%d reverse rows merged) from %s in %.1f s.", len(nodes),
                len(edges), report.n_reverse_rows, file.name, report.seconds)
    return KnowledgeGraph(nodes=nodes, edges=edges, report=report, name=name, version=version,
                          schema=PRIMEKG_SCHEMA)


def _nodes(rows: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The node table of the rows (first name and index seen per node) and each row's x and y node ids."""
    ids = {}
    parts = []
    for end in ("x", "y"):
        label = rows[f"{end}_type"].str.strip().map(NODE_TYPES)
        identifier = rows[f"{end}_source"].str.strip() + ":" + rows[f"{end}_id"].str.strip()
        ids[end] = (label + "::" + identifier).to_numpy(dtype=object)
        parts.append(pd.DataFrame({
            "id": ids[end], "kind": label.to_numpy(), "identifier": identifier.to_numpy(),
            "name": rows[f"{end}_name"].str.strip().to_numpy(), "node_type": rows[f"{end}_type"].str.strip().to_numpy(),
            "source": rows[f"{end}_source"].str.strip().to_numpy(), "primekg_index": rows[f"{end}_index"].to_numpy()}))
    nodes = pd.concat(parts, ignore_index=True).drop_duplicates("id").reset_index(drop=True)
    return nodes[list(PRIMEKG_NODE_COLUMNS)], ids["x"], ids["y"]


def load_primekg_format(data: str | os.PathLike[str] | None, *, name: str = "", release: str = "",
                        options: Mapping[str, str] | None = None, progress: bool = True) -> KnowledgeGraph:
    """The ``primekg`` format's loader (:class:`~engram_kit.kg.formats.GraphLoader`): ``data`` is a ``kg.csv``;
    None reads the bundled converted sample (:data:`SAMPLE_PATH`). Option ``errors``: ``raise`` (default) or
    ``skip``.

    Raises
    ------
    DataError
        As :func:`load_primekg`.
    """
    errors = (options or {}).get("errors") or "raise"
    if errors not in ("raise", "skip"):
        raise DataError(f"Option errors={errors!r}: use raise or skip.")
    if data is None:
        return load_primekg(SAMPLE_PATH, errors=errors,  # type: ignore[arg-type]
                            name=name or "PrimeKG sample (converted from Hetionet)",
                            version=release or "engram-kit sample", progress=progress)
    return load_primekg(data, errors=errors,  # type: ignore[arg-type]
                        name=name or "PrimeKG", version=release, progress=progress)


#: The bundled sample: Hetionet sample rows converted to PrimeKG's columns, types and relations by
#: ``data/primekg/convert_hetionet_sample.py`` (not PrimeKG data; see data/README.md).
SAMPLE_PATH = Path(__file__).resolve().parents[2] / "data" / "primekg" / "kg-hetionet-sample.csv.gz"


def download_primekg(dest_dir: str | os.PathLike[str], *, url: str = PRIMEKG_URL, file_name: str = "kg.csv",
                     expected_sha256: str | None = None, progress: bool = True, timeout: float = 60,
                     force: bool = False) -> Path:
    """Download PrimeKG's ``kg.csv`` from Harvard Dataverse (only when called: never implicitly).

    Parameters
    ----------
    dest_dir : folder to write into (created if missing).
    url : where the file is served; default the release's Dataverse file (:data:`PRIMEKG_URL`).
    file_name : name of the file written in ``dest_dir``.
    expected_sha256 : hex digest to verify against; default the one in :data:`PRIMEKG_SHA256` (none is published,
        so the first download is trusted and its digest recorded beside it as ``kg.csv.sha256``; later calls verify
        the copy against that record).
    progress : show a byte progress bar.
    timeout : seconds to wait for the server to connect / send data.
    force : download again even when a verified copy is in ``dest_dir``.

    Returns
    -------
    Path
        The downloaded (or verified existing) file; load it with ``load_primekg(path)`` or
        ``Workspace.create(ws, graph="primekg", data=path)``.

    Raises
    ------
    DownloadError
        On a network error, an HTTP error status or a digest mismatch (the partial file is removed and an existing
        copy left untouched).
    """
    dest = Path(dest_dir)
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / file_name
    expected = (expected_sha256 or PRIMEKG_SHA256.get(file_name) or "").lower() or None
    fetch_verified(url, target, expected, progress=progress, timeout=timeout, force=force, loader="load_primekg()")
    return target


#: The ``primekg`` graph format (registered in :mod:`engram_kit.plugins`).
PRIMEKG_FORMAT = GraphFormat(
    name="primekg", profile=PRIMEKG_PROFILE, loader=load_primekg_format, schema=PRIMEKG_SCHEMA,
    description="PrimeKG kg.csv (Chandak et al. 2023; default: a bundled sample converted from Hetionet)",
    data_help="PrimeKG's kg.csv (gzip ok); default the bundled sample converted from Hetionet rows",
    options={"errors": "raise (default) or skip invalid rows (listed in the load report)"},
)
