"""Synonym lexicon: normalised surface forms -> knowledge-graph nodes (Hetionet or a Biolink KGX graph).

The lexicon is the one dictionary behind both the gazetteer (finding mentions in text) and the resolver
(linking a string to graph entities). It maps :func:`~engram_kit.extraction.normalize.normalize_name`
keys to :class:`LexiconEntry` records.

Sources
-------
Every entry says where its surface form comes from (``LexiconEntry.source``):

``name``
    The Hetionet v1.0 node name, for all 47,031 nodes of the 11 kinds.
``gene-symbol``, ``gene-synonym``
    NCBI Gene symbols and synonyms of human genes, as prepared for Hetionet by dhimmel/entrez-gene
    (``gene/symbols-human.tsv``; ``gene/synonyms-human.json`` when the TSV is absent). Only Entrez ids
    that are Hetionet Gene nodes are kept.
``gene-name``
    HGNC approved names that are one everyday word for the gene's product (:data:`GENE_PRODUCT_NAMES`:
    "insulin" -> INS), linked only in a gene/protein context (issue 14).
``do-synonym``
    Disease Ontology names and synonyms (dhimmel/disease-ontology ``disease/term-names.tsv``), see the
    attachment rule below.
``drugbank-alias``
    DrugBank names, synonyms and brand names (dhimmel/drugbank ``compound/drugbank-aliases.json``) of the
    DrugBank ids that are Hetionet Compound nodes, e.g. ``Glucophage`` -> ``Compound::DB00331``.
``mesh``
    MeSH descriptor names (dhimmel/mesh ``symptom/symptoms.tsv`` and ``symptom/mesh-terms.tsv``) of the
    438 Hetionet Symptom nodes and of the MeSH cross-references of Hetionet Disease nodes
    (``disease/xrefs-slim.tsv``), plus the un-inverted form of inverted MeSH names
    (``"Arthritis, Rheumatoid"`` -> ``"Rheumatoid Arthritis"``).

``inn-usan``
    Curated other official names of Hetionet compounds (``compound/inn-usan.tsv``: isoprenaline ->
    isoproterenol, L-DOPA -> levodopa), attached to the compound whose name or DrugBank alias matches.
``lay-synonym``
    Curated consumer-health names (``vocabulary/lay-synonyms.tsv``: "high blood pressure" -> hypertension,
    "type 2 diabetes" -> type 2 diabetes mellitus, "penicillin" -> Penicillins; each row cites its
    MedlinePlus/MeSH source), attached to the node of the given kind whose name is ``target``; and the lay,
    historical and MeSH entry-term names of Hetionet diseases that Disease Ontology lacks
    (``vocabulary/lay-disease-names.tsv``, built by ``scripts/make_lay_names.py``: "shaking palsy" ->
    Parkinson's disease, "gastric cancer" -> stomach cancer, "tooth decay" -> dental caries). A name that also
    names a Side Effect (Hetionet's "Gastric cancer") then reaches both, and the Disease ranks first
    (:data:`~engram_kit.resolution.resolver.KIND_PRIORITY`).
``synonym``
    The node table's own synonyms: the ``|``-joined ``synonyms`` column of a Biolink KGX node table
    (:data:`engram_kit.kg.schema.KGX_NODE_PROPERTIES`; Monarch KG takes them from the source ontologies,
    e.g. MONDO's exact and related synonyms). Hetionet's node table has no such column.
``variant``
    Singular/plural and British/American spelling variants of Disease, Symptom, Side Effect and Compound
    surfaces (:mod:`~engram_kit.extraction.variants`): "seizure" for the Symptom "Seizures". The Biolink
    labels of the same kinds (:data:`BIOLINK_DISEASE_LIKE_KINDS`, :data:`BIOLINK_CHEMICAL_KINDS`) get them too.

DrugBank aliases that equal a disease-like name ("Sore Throat", "Pain Relief" are brand names) are
dropped (:func:`drop_disease_aliases`).

Besides these node entries the lexicon holds a **typed vocabulary** (:attr:`Lexicon.vocabulary`, from
``vocabulary/typed-terms.tsv``): Disease Ontology, DrugBank and MeSH terms without a Hetionet node, each
with a type (Chemical or Disease), which the gazetteer reports as unlinked, typed mentions; and a
**text stoplist** (:attr:`Lexicon.text_stoplist`, ``vocabulary/ner-stoplist.tsv``) of terms the
gazetteer skips in text.

Disease Ontology attachment rule
--------------------------------
* A DO term that **is** a Hetionet Disease node (one of the 137 DO-slim terms) gives that node its DO name
  and its exact and related synonyms (narrow synonyms are not equivalent and are skipped).
* A DO term that is **not** a Hetionet Disease bridges to Hetionet through names: let ``S`` be the term's
  name and exact synonyms. Every Hetionet node of a disease-like kind (Disease, Side Effect, Symptom:
  :data:`DO_BRIDGE_KINDS`) whose ``normalize_name`` of its name equals the ``normalize_name`` of a member of
  ``S`` (that is, equal up to case, punctuation and possessive) receives all of ``S`` as ``do-synonym``
  entries.
  This is how "heart attack" (an exact synonym of DOID:5844 "myocardial infarction", which is not a
  Hetionet Disease) reaches ``Side Effect::C0027051`` "Myocardial infarction". Other kinds are excluded
  because DO names collide with them without meaning the same thing: DO abbreviations are gene symbols
  (DO's "CAD" for coronary artery disease is also the gene CAD) and the DO root "disease" is the name of
  a Pathway Commons pathway.

Surface forms whose key is shorter than 2 characters or has no letter (``"1"``, ``"22"``) are dropped.
Ambiguity is kept: one key may map to several nodes (``"ache"`` -> the gene ACHE and the side effect Ache).
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import pickle
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pandas as pd

from engram_kit.files import gc_paused, write_atomic
from engram_kit.errors import DataError
from engram_kit.extraction.normalize import normalize_name
from engram_kit.extraction.variants import (
    greek_variants,
    number_variants,
    possessive_variants,
    adjective_variants,
    protein_case_variants,
    spelling_variants,
    symbol_greek_variants,
)

log = logging.getLogger(__name__)

#: Allowed values of :attr:`LexiconEntry.source`, from most to least authoritative. When the same surface
#: form reaches the same node through several sources, the first one in this order is kept.
SOURCES: tuple[str, ...] = ("name", "gene-symbol", "mesh", "do-synonym", "drugbank-alias", "inn-usan",
                            "lay-synonym", "synonym", "gene-name", "gene-synonym", "variant")
#: HGNC approved gene names that are one everyday word naming the gene's product (HGNC approved name equal to
#: the word, e.g. INS "insulin"; written by hand, not machine-checked: the bundled gene table holds symbols
#: and NCBI synonyms only, no approved names): source ``gene-name``. They are read as the gene
#: only with a gene word nearby (:data:`engram_kit.resolution.policy.GENE_ALIAS_SOURCES`): "insulin
#: secretion" is INS, "received insulin" stays an unlinked Chemical term (Hetionet has no insulin compound).
GENE_PRODUCT_NAMES: dict[str, str] = {
    "insulin": "INS", "glucagon": "GCG", "leptin": "LEP", "prolactin": "PRL", "somatostatin": "SST",
    "albumin": "ALB", "renin": "REN", "erythropoietin": "EPO", "transferrin": "TF", "haptoglobin": "HP",
    "myoglobin": "MB", "clusterin": "CLU", "resistin": "RETN", "vitronectin": "VTN", "angiogenin": "ANG",
}
_SOURCE_RANK: dict[str, int] = {s: i for i, s in enumerate(SOURCES)}

#: Columns a node table must have (``identifier`` is the part of ``id`` after ``::``).
NODE_COLUMNS: tuple[str, ...] = ("id", "kind", "identifier", "name")

#: Biolink labels (the kinds of a KGX graph) that name conditions, as Hetionet's Disease, Symptom and Side
#: Effect do (Biolink model 4: ``biolink:Disease``, ``biolink:PhenotypicFeature`` and the mixin of both).
BIOLINK_DISEASE_LIKE_KINDS: frozenset[str] = frozenset({"PhenotypicFeature", "DiseaseOrPhenotypicFeature"})
#: Biolink labels of chemicals (Hetionet's Compound): ``biolink:ChemicalEntity`` and its common descendants.
BIOLINK_CHEMICAL_KINDS: frozenset[str] = frozenset({"ChemicalEntity", "SmallMolecule", "Drug",
                                                    "MolecularMixture", "ChemicalMixture"})

#: Node kinds that may receive Disease Ontology synonyms through the name bridge (module docstring).
DO_BRIDGE_KINDS: frozenset[str] = frozenset({"Disease", "Side Effect", "Symptom"}) | BIOLINK_DISEASE_LIKE_KINDS

#: Version of the pickle written by :meth:`Lexicon.save`; bumped whenever its layout or the build rules change.
FORMAT_VERSION = 3
_FORMAT_NAME = "engram-kit-lexicon"

#: Synonym files read by :meth:`Lexicon.build`, relative to the synonyms folder (each may also be ``.gz``).
SYNONYM_FILES: dict[str, str] = {
    "gene_symbols": "gene/symbols-human.tsv",
    "gene_synonyms": "gene/synonyms-human.json",
    "disease_terms": "disease/term-names.tsv",
    "disease_xrefs": "disease/xrefs-slim.tsv",
    "compound_aliases": "compound/drugbank-aliases.json",
    "symptoms": "symptom/symptoms.tsv",
    "mesh_terms": "symptom/mesh-terms.tsv",
    "inn_usan": "compound/inn-usan.tsv",
    "typed_terms": "vocabulary/typed-terms.tsv",
    "text_stoplist": "vocabulary/ner-stoplist.tsv",
    "lay_synonyms": "vocabulary/lay-synonyms.tsv",
    "lay_disease_names": "vocabulary/lay-disease-names.tsv",
}

#: Kinds whose surfaces get singular/plural and British/American spelling variants (``variant`` source).
VARIANT_KINDS: frozenset[str] = (frozenset({"Disease", "Symptom", "Side Effect", "Compound"})
                                  | BIOLINK_DISEASE_LIKE_KINDS | BIOLINK_CHEMICAL_KINDS)
#: Kinds whose DrugBank aliases are dropped when the alias is also one of their names (rule of :func:`drop_disease_aliases`).
DISEASE_LIKE_KINDS: frozenset[str] = frozenset({"Disease", "Symptom", "Side Effect"}) | BIOLINK_DISEASE_LIKE_KINDS

#: The synonym tables shipped with engram-kit (a Hetionet-restricted sample, see its README.md).
BUNDLED_SYNONYMS_DIR = Path(__file__).resolve().parents[2] / "data" / "synonyms"

#: Raw (surface, node_id, kind, source) row before normalisation.
RawEntry = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class LexiconEntry:
    """One surface form of one graph node.

    Attributes
    ----------
    surface : str
        The form as written in its source (case kept: the gazetteer matches gene symbols case-sensitively).
    node_id : str
        Graph node id, e.g. ``"Gene::7157"`` (Hetionet) or ``"Gene::HGNC:10848"`` (KGX).
    kind : str
        Node kind, e.g. ``"Gene"``, ``"Side Effect"`` (Hetionet) or ``"PhenotypicFeature"`` (a Biolink label).
    source : str
        One of :data:`SOURCES`.
    """

    surface: str
    node_id: str
    kind: str
    source: str


# --------------------------------------------------------------------------------------------- file access
#: engram-kit's own tables (not upstream files): read from the bundled folder when ``synonyms_dir`` (e.g.
#: the full upstream tables) lacks them, so a lexicon built from either folder is the same.
CURATED_FILES: frozenset[str] = frozenset({"compound/inn-usan.tsv", "vocabulary/typed-terms.tsv",
                                           "vocabulary/ner-stoplist.tsv", "vocabulary/lay-synonyms.tsv",
                                           "vocabulary/lay-disease-names.tsv"})


def find_synonym_file(synonyms_dir: Path, relative: str) -> Path | None:
    """Path of ``relative`` or ``relative + ".gz"`` under ``synonyms_dir``, or None when neither exists.

    For the engram-kit tables of :data:`CURATED_FILES` the bundled folder is the fallback.
    """
    folders = [synonyms_dir]
    if relative in CURATED_FILES and Path(synonyms_dir).resolve() != BUNDLED_SYNONYMS_DIR:
        folders.append(BUNDLED_SYNONYMS_DIR)
    for folder in folders:
        for candidate in (folder / relative, folder / f"{relative}.gz"):
            if candidate.is_file():
                return candidate
    return None


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return path.open(encoding="utf-8")


def _read_tsv(path: Path, usecols: list[str]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise DataError(f"Cannot read synonym table {path}: {exc}. Re-create it with "
                        "scripts/make_synonym_sample.py or use the upstream file.") from exc
    missing = [c for c in usecols if c not in frame.columns]
    if missing:
        raise DataError(f"Synonym table {path} lacks columns {missing}; found {list(frame.columns)}.")
    return frame[usecols]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        with _open_text(path) as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise DataError(f"Cannot read synonym file {path}: {exc}.") from exc
    if not isinstance(data, dict):
        raise DataError(f"Synonym file {path} must hold a JSON object (key -> list), not {type(data).__name__}.")
    return data


def uninvert_mesh_name(name: str) -> str | None:
    """``"Arthritis, Rheumatoid"`` -> ``"Rheumatoid Arthritis"``; None unless the name has exactly one ``", "``."""
    parts = name.split(", ")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return f"{parts[1]} {parts[0]}"


# ------------------------------------------------------------------------------------------ source readers
def gene_name_entries(node_names: dict[str, tuple[str, str]]) -> list[RawEntry]:
    """``gene-name`` entries of :data:`GENE_PRODUCT_NAMES` for the genes present in ``node_names``
    (node id -> (name, kind); a Gene node's name is its symbol)."""
    by_symbol = {name: node for node, (name, kind) in node_names.items() if kind == "Gene"}
    return [(word, by_symbol[symbol], "Gene", "gene-name") for word, symbol in GENE_PRODUCT_NAMES.items()
            if symbol in by_symbol]


def gene_entries(synonyms_dir: Path, genes: dict[str, str]) -> list[RawEntry]:
    """Gene symbols and synonyms of the Hetionet genes.

    Parameters
    ----------
    synonyms_dir : Path
        Folder with ``gene/symbols-human.tsv`` (preferred) or ``gene/synonyms-human.json``.
    genes : dict of str to str
        Entrez GeneID (as a string, ``"7157"``) -> Hetionet node id (``"Gene::7157"``).

    Returns
    -------
    list of (surface, node_id, kind, source)
        Source ``gene-symbol`` or ``gene-synonym``; empty when neither file exists.
    """
    out: list[RawEntry] = []
    tsv = find_synonym_file(synonyms_dir, SYNONYM_FILES["gene_symbols"])
    if tsv is not None:
        frame = _read_tsv(tsv, ["GeneID", "type", "symbol"])
        frame = frame[frame["GeneID"].isin(genes.keys())]
        for gene_id, kind, symbol in frame.itertuples(index=False):
            source = "gene-symbol" if kind == "symbol" else "gene-synonym"
            out.append((symbol, genes[gene_id], "Gene", source))
        return out
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["gene_synonyms"])
    if path is None:
        log.info("no gene synonym table under %s", synonyms_dir)
        return out
    for alias, gene_ids in _read_json(path).items():
        for gene_id in gene_ids:
            node = genes.get(str(gene_id))
            if node is not None:
                out.append((alias, node, "Gene", "gene-synonym"))
    return out


def read_disease_terms(synonyms_dir: Path) -> pd.DataFrame | None:
    """DO ``term-names.tsv`` as a DataFrame (``doid``, ``name``, ``type``), or None when absent."""
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["disease_terms"])
    if path is None:
        return None
    return _read_tsv(path, ["doid", "name", "type"])


def disease_entries(
    terms: pd.DataFrame, diseases: dict[str, str], nodes_by_key: dict[str, list[tuple[str, str]]]
) -> tuple[list[RawEntry], set[str]]:
    """Disease Ontology names and synonyms, attached by the rule in the module docstring.

    Parameters
    ----------
    terms : DataFrame
        ``term-names.tsv`` rows: ``doid``, ``name``, ``type`` in {name, exact-synonym, related-synonym,
        narrow-synonym}.
    diseases : dict of str to str
        DOID (``"DOID:10652"``) -> Hetionet Disease node id.
    nodes_by_key : dict of str to list of (node_id, kind)
        ``normalize_name`` of every Hetionet node name -> the nodes bearing it.

    Returns
    -------
    entries : list of (surface, node_id, kind, source)
        Source ``do-synonym``.
    used_doids : set of str
        DOIDs that contributed at least one entry (used to cut the shipped sample).
    """
    out: list[RawEntry] = []
    used: set[str] = set()
    grouped: dict[str, list[tuple[str, str]]] = {}
    for doid, name, kind in terms.itertuples(index=False):
        grouped.setdefault(doid, []).append((name, kind))
    for doid, rows in grouped.items():
        node = diseases.get(doid)
        if node is not None:
            for name, kind in rows:
                if kind in ("name", "exact-synonym", "related-synonym"):
                    out.append((name, node, "Disease", "do-synonym"))
            used.add(doid)
            continue
        equivalent = sorted({name for name, kind in rows if kind in ("name", "exact-synonym")})
        targets: set[tuple[str, str]] = set()
        for name in equivalent:
            for node_id, node_kind in nodes_by_key.get(normalize_name(name), ()):
                if node_kind in DO_BRIDGE_KINDS:
                    targets.add((node_id, node_kind))
        for node_id, node_kind in sorted(targets):
            out.extend((name, node_id, node_kind, "do-synonym") for name in equivalent)
        if targets:
            used.add(doid)
    return out, used


def compound_entries(synonyms_dir: Path, compounds: dict[str, str]) -> list[RawEntry]:
    """DrugBank names, synonyms and brands of Hetionet compounds (``compounds``: DrugBank id -> node id)."""
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["compound_aliases"])
    if path is None:
        log.info("no DrugBank alias file under %s", synonyms_dir)
        return []
    out: list[RawEntry] = []
    for drugbank_id, aliases in _read_json(path).items():
        node = compounds.get(drugbank_id)
        if node is not None:
            out.extend((alias, node, "Compound", "drugbank-alias") for alias in aliases)
    return out


def mesh_targets(synonyms_dir: Path, symptoms: dict[str, str], diseases: dict[str, str]) -> dict[str, list[str]]:
    """MeSH descriptor id -> Hetionet nodes it names: the Symptom nodes and MeSH xrefs of Disease nodes."""
    targets: dict[str, list[str]] = {mesh_id: [node] for mesh_id, node in symptoms.items()}
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["disease_xrefs"])
    if path is not None:
        xrefs = _read_tsv(path, ["doid_code", "resource", "resource_id"])
        for doid, resource, mesh_id in xrefs.itertuples(index=False):
            if resource == "MSH" and doid in diseases:
                targets.setdefault(mesh_id, []).append(diseases[doid])
    return targets


def mesh_entries(synonyms_dir: Path, symptoms: dict[str, str], diseases: dict[str, str]) -> list[RawEntry]:
    """MeSH names (and un-inverted forms) of Symptom nodes and of Disease MeSH cross-references."""
    targets = mesh_targets(synonyms_dir, symptoms, diseases)
    names: dict[str, str] = {}
    for key in ("mesh_terms", "symptoms"):  # symptoms.tsv wins where both name a descriptor
        path = find_synonym_file(synonyms_dir, SYNONYM_FILES[key])
        if path is not None:
            frame = _read_tsv(path, ["mesh_id", "mesh_name"])
            frame = frame[frame["mesh_id"].isin(targets.keys())]
            names.update(zip(frame["mesh_id"], frame["mesh_name"]))
    out: list[RawEntry] = []
    for mesh_id, name in names.items():
        forms = [name] + [f for f in (uninvert_mesh_name(name),) if f]
        for node in targets[mesh_id]:
            kind = node.partition("::")[0]
            out.extend((form, node, kind, "mesh") for form in forms)
    return out


def inn_usan_entries(synonyms_dir: Path, compound_keys: dict[str, set[str]]) -> list[RawEntry]:
    """Other official names of Hetionet compounds (INN / USAN / BAN / common name), e.g. isoproterenol.

    Parameters
    ----------
    synonyms_dir : Path
        Folder with ``compound/inn-usan.tsv`` (columns ``name``, ``variant``, ``system``); see
        ``data/synonyms/README.md`` for its source.
    compound_keys : dict of str to set of str
        ``normalize_name`` of every Compound name and DrugBank alias -> the Compound node ids bearing it.

    Returns
    -------
    list of (surface, node_id, kind, source)
        Source ``inn-usan``: each ``variant`` attached to the compounds whose name or alias is ``name``
        (rows whose ``name`` is no Hetionet compound are skipped).
    """
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["inn_usan"])
    if path is None:
        return []
    out: list[RawEntry] = []
    for name, variant in _read_tsv(path, ["name", "variant"]).itertuples(index=False):
        for node in sorted(compound_keys.get(normalize_name(name), ())):
            out.append((variant, node, "Compound", "inn-usan"))
    return out


def lay_synonym_entries(synonyms_dir: Path, node_names: dict[str, tuple[str, str]]) -> list[RawEntry]:
    """Curated lay names (``vocabulary/lay-synonyms.tsv`` and ``vocabulary/lay-disease-names.tsv``: ``term``,
    ``target``, ``kind``, ``source``; the second also ``doid``, ``mesh``, ``licence``).

    Each ``term`` is attached to every node of ``kind`` whose normalised name equals that of ``target``;
    rows whose target is not in the graph are skipped (a KGX graph names its nodes differently).
    Source ``lay-synonym``.
    """
    by_name: dict[tuple[str, str], list[str]] = {}
    for node_id, (name, kind) in node_names.items():
        by_name.setdefault((normalize_name(name), kind), []).append(node_id)
    out: list[RawEntry] = []
    for table in ("lay_synonyms", "lay_disease_names"):
        path = find_synonym_file(synonyms_dir, SYNONYM_FILES[table])
        if path is None:
            continue
        for term, target, kind in _read_tsv(path, ["term", "target", "kind"]).itertuples(index=False):
            out.extend((term, node, kind, "lay-synonym") for node in by_name.get((normalize_name(target), kind), ()))
    return out


#: Column of a node table holding ``|``-joined synonyms (Biolink KGX; absent from Hetionet's node table).
SYNONYMS_COLUMN = "synonyms"


#: A node name ending in a species in brackets, as Monarch names human genes ("SHH (human)"); group 1 is the bare name.
SPECIES_SUFFIX = r"^(.+?) \((?:human|homo sapiens)\)$"


def node_synonym_entries(nodes: pd.DataFrame) -> list[RawEntry]:
    """The node table's own synonyms: one ``synonym`` entry per ``|``-separated item of :data:`SYNONYMS_COLUMN`.

    Parameters
    ----------
    nodes : DataFrame
        Columns ``id`` and ``kind``, and optionally ``synonyms`` (str, ``|``-joined; empty or NaN = none),
        as a KGX node table (:data:`engram_kit.kg.schema.KGX_NODE_PROPERTIES`) has it.

    Returns
    -------
    list of (surface, node_id, kind, source)
        Source ``synonym``, surfaces stripped, empty items dropped, plus the bare name of a name such as
        ``"SHH (human)"`` (:data:`SPECIES_SUFFIX`); ``[]`` when the column is absent (Hetionet).
    """
    if SYNONYMS_COLUMN not in nodes.columns:
        return []
    # Monarch names the human gene of an orthologue group "SHH (human)": its bare symbol is a synonym of it too.
    names = nodes["name"] if "name" in nodes.columns else pd.Series("", index=nodes.index)
    species = names.fillna("").astype(str).str.extract(SPECIES_SUFFIX, expand=False)
    bare = [(surface, node, kind, "synonym") for surface, node, kind in
            zip(species.dropna(), nodes.loc[species.notna(), "id"].astype(str),
                nodes.loc[species.notna(), "kind"].astype(str))]
    frame = nodes[["id", "kind"]].astype(str).assign(surface=nodes[SYNONYMS_COLUMN].fillna("").astype(str))
    frame = frame[frame["surface"] != ""]
    frame = frame.assign(surface=frame["surface"].str.split("|")).explode("surface", ignore_index=True)
    frame["surface"] = frame["surface"].str.strip()
    frame = frame[frame["surface"] != ""]
    return bare + [(surface, node, kind, "synonym")
                   for surface, node, kind in zip(frame["surface"], frame["id"], frame["kind"])]


def variant_entries(raw: Iterable[RawEntry]) -> list[RawEntry]:
    """Singular/plural and British/American variants (:mod:`~engram_kit.extraction.variants`) of entries.

    Spelling variants for every kind in :data:`VARIANT_KINDS`; number variants for disease-like kinds
    (:data:`DISEASE_LIKE_KINDS`) only, and noun/adjective vessel variants (``adjective_variants``) too; Greek-letter and possessive variants for every kind; the protein-case
    variant for genes only (gene entries are never inflected or re-spelled). Source ``variant``.
    """
    out: list[RawEntry] = []
    for surface, node, kind, source in raw:
        forms = [*greek_variants(surface), *possessive_variants(surface)]
        if kind == "Gene":
            forms += protein_case_variants(surface)
            if source in ("name", "gene-symbol"):
                forms += symbol_greek_variants(surface)
        if kind not in VARIANT_KINDS:
            out.extend((form, node, kind, "variant") for form in forms)
            continue
        forms += spelling_variants(surface)
        if kind in DISEASE_LIKE_KINDS:
            forms += adjective_variants(surface)
            forms += [n for f in [surface, *forms] for n in number_variants(f)]
        out.extend((form, node, kind, "variant") for form in forms)
    return out


def drop_disease_aliases(raw: list[RawEntry]) -> list[RawEntry]:
    """Remove DrugBank aliases that are also names of a disease-like node ("sore throat", "pain relief").

    DrugBank lists brand names such as "Sore Throat" (a lozenge) or "Pain Relief"; in text these phrases
    name the condition. A ``drugbank-alias`` row is dropped when its normalised key is the key of any
    Disease, Symptom or Side Effect row (name, MeSH, DO synonym or variant), or of :data:`PHRASE_STOPLIST`.
    """
    disease_keys = {normalize_name(r[0]) for r in raw if r[2] in DISEASE_LIKE_KINDS} | PHRASE_STOPLIST
    kept = [r for r in raw if r[3] != "drugbank-alias" or normalize_name(r[0]) not in disease_keys]
    log.debug("dropped %d DrugBank aliases that name a disease-like node", len(raw) - len(kept))
    return kept


#: Curated (normalised) DrugBank brand names that are ordinary phrases of clinical text but no Hetionet
#: disease-like name: symptom-relief wording of over-the-counter brands.
PHRASE_STOPLIST: frozenset[str] = frozenset({
    "pain relief", "pain reliever", "sore throat", "cold sore", "headache relief", "allergy relief",
    "sleep aid", "nasal decongestant", "cough syrup", "heartburn relief", "anti diarrheal", "antacid",
})


def read_typed_terms(synonyms_dir: Path) -> list[tuple[str, str, str]]:
    """The typed vocabulary: (term, label, source) rows of ``vocabulary/typed-terms.tsv``; [] when absent.

    ``label`` is one of :data:`~engram_kit.extraction.mention.VOCABULARY_LABELS`; the table is made by
    ``scripts/make_synonym_sample.py`` (sources and typing rules in ``data/synonyms/README.md``).
    """
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["typed_terms"])
    if path is None:
        return []
    frame = _read_tsv(path, ["term", "label", "source"])
    return list(frame.itertuples(index=False, name=None))


def read_text_stoplist(synonyms_dir: Path) -> list[str]:
    """Normalised terms of ``vocabulary/ner-stoplist.tsv`` (column ``term``); [] when absent."""
    path = find_synonym_file(synonyms_dir, SYNONYM_FILES["text_stoplist"])
    if path is None:
        return []
    return sorted({normalize_name(t) for t in _read_tsv(path, ["term"])["term"]} - {""})


def index_vocabulary(rows: Iterable[tuple[str, str, str]]) -> dict[str, tuple[str, str]]:
    """Normalised key -> (label, surface) of typed terms, with their variants; conflicting keys dropped.

    A key typed both Chemical and Disease (e.g. a DrugBank brand equal to a DO name) is ambiguous and
    removed. Keys shorter than 3 characters or without a letter are skipped.
    """
    out: dict[str, tuple[str, str]] = {}
    conflicts: set[str] = set()
    for term, label, _ in rows:
        forms = [term, *spelling_variants(term)]
        if label == "Disease":
            forms += [n for f in list(forms) for n in number_variants(f)]
        for form in forms:
            key = normalize_name(form)
            if len(key) < 3 or not any(c.isalpha() for c in key):
                continue
            kept = out.get(key)
            if kept is None:
                out[key] = (label, form)
            elif kept[0] != label:
                conflicts.add(key)
    for key in conflicts:
        del out[key]
    return out


# ----------------------------------------------------------------------------------------------- lexicon
def validate_nodes(nodes: pd.DataFrame) -> None:
    """Raise :class:`DataError` unless ``nodes`` has the columns of :data:`NODE_COLUMNS`."""
    missing = [c for c in NODE_COLUMNS if c not in getattr(nodes, "columns", ())]
    if missing:
        raise DataError(f"The node table lacks columns {missing}; expected {list(NODE_COLUMNS)} "
                        "(identifier = the part of id after '::').")


class Lexicon:
    """Normalised surface form -> graph nodes (Hetionet or KGX), with provenance of every form.

    Build it once with :meth:`build` (a few seconds for all of Hetionet) and cache it with :meth:`save` /
    :meth:`load`.

    Parameters
    ----------
    entries : dict of str to tuple of LexiconEntry
        ``normalize_name(surface)`` -> entries, one per distinct (surface, node).
    node_names : dict of str to (str, str)
        Node id -> (name, kind) for every node of the table the lexicon was built from.
    info : dict, optional
        Provenance and statistics (files read, counts per source, build seconds).
    vocabulary : dict of str to (str, str), optional
        Typed terms without a Hetionet node: normalised key -> (label, surface), label ``"Chemical"`` or
        ``"Disease"`` (e.g. ``"heparin"`` -> ``("Chemical", "Heparin")``). The gazetteer finds them as
        mentions with no candidates and that ``label``; the resolver does not use them.
    """

    def __init__(
        self,
        entries: dict[str, tuple[LexiconEntry, ...]],
        node_names: dict[str, tuple[str, str]],
        info: dict[str, Any] | None = None,
        vocabulary: dict[str, tuple[str, str]] | None = None,
    ) -> None:
        self._entries = entries
        self.node_names = node_names
        self.info: dict[str, Any] = dict(info or {})
        self.vocabulary: dict[str, tuple[str, str]] = dict(vocabulary or {})
        #: Normalised keys the gazetteer must not match in text (except as gene symbols): terms that are
        #: almost never chemical/disease mentions, learned from the BC5CDR training split
        #: (``vocabulary/ner-stoplist.tsv``, ``scripts/make_ner_stoplist.py``). Look-ups still find them.
        self.text_stoplist: frozenset[str] = frozenset(self.info.get("text_stoplist", ()))

    # ---------------------------------------------------------------------------------------- building
    @classmethod
    def build(cls, nodes: pd.DataFrame, synonyms_dir: Path | str | None = None) -> Lexicon:
        """Build the lexicon from a node table and (optionally) the synonym tables.

        Parameters
        ----------
        nodes : DataFrame
            Columns ``id``, ``kind``, ``identifier``, ``name`` (one row per graph node), and optionally
            ``synonyms`` (``|``-joined, as a Biolink KGX node table has it): each becomes a ``synonym`` entry.
            Kinds are free strings: Hetionet's (``"Side Effect"``) or Biolink labels (``"PhenotypicFeature"``).
        synonyms_dir : Path or str, optional
            Folder with the layout of :data:`SYNONYM_FILES` (each file optional, plain or ``.gz``), e.g.
            :data:`BUNDLED_SYNONYMS_DIR`. None: node names (and MeSH un-inversions) only.

        Returns
        -------
        Lexicon

        Raises
        ------
        DataError
            If the node table lacks a column, ``synonyms_dir`` is not a folder, or a synonym file is
            unreadable.

        Notes
        -----
        Besides the sources of the module docstring, the build adds INN/USAN names
        (:func:`inn_usan_entries`), singular/plural and spelling variants (:func:`variant_entries`), drops
        DrugBank aliases that name a disease-like node (:func:`drop_disease_aliases`) and reads the typed
        vocabulary (:func:`read_typed_terms`) into :attr:`vocabulary`.
        """
        started = time.perf_counter()
        validate_nodes(nodes)
        ids = nodes["id"].astype(str).tolist()
        kinds = nodes["kind"].astype(str).tolist()
        identifiers = nodes["identifier"].astype(str).tolist()
        names = nodes["name"].fillna("").astype(str).tolist()
        node_names = {i: (n, k) for i, n, k in zip(ids, names, kinds)}
        by_kind: dict[str, dict[str, str]] = {}
        for node_id, kind, identifier in zip(ids, kinds, identifiers):
            by_kind.setdefault(kind, {})[identifier] = node_id

        raw: list[RawEntry] = [(n, i, k, "name") for i, n, k in zip(ids, names, kinds)]
        raw.extend(node_synonym_entries(nodes))
        raw.extend((form, node, "Symptom", "mesh") for mesh_id, node in by_kind.get("Symptom", {}).items()
                   for form in [uninvert_mesh_name(node_names[node][0])] if form)
        files: dict[str, str] = {}
        if synonyms_dir is not None:
            synonyms_dir = Path(synonyms_dir)
            if not synonyms_dir.is_dir():
                raise DataError(f"Synonyms folder {synonyms_dir} does not exist; pass None for names only "
                                f"or the bundled folder {BUNDLED_SYNONYMS_DIR}.")
            files = {k: str(p) for k in SYNONYM_FILES if (p := find_synonym_file(synonyms_dir, SYNONYM_FILES[k]))}
            raw.extend(gene_entries(synonyms_dir, by_kind.get("Gene", {})))
            terms = read_disease_terms(synonyms_dir)
            if terms is not None:
                nodes_by_key: dict[str, list[tuple[str, str]]] = {}
                for node_id, (name, kind) in node_names.items():
                    nodes_by_key.setdefault(normalize_name(name), []).append((node_id, kind))
                raw.extend(disease_entries(terms, by_kind.get("Disease", {}), nodes_by_key)[0])
            raw.extend(compound_entries(synonyms_dir, by_kind.get("Compound", {})))
            raw.extend(mesh_entries(synonyms_dir, by_kind.get("Symptom", {}), by_kind.get("Disease", {})))
            compound_keys: dict[str, set[str]] = {}
            for surface, node, kind, _ in raw:
                if kind == "Compound":
                    compound_keys.setdefault(normalize_name(surface), set()).add(node)
            raw.extend(inn_usan_entries(synonyms_dir, compound_keys))
            raw.extend(lay_synonym_entries(synonyms_dir, node_names))
        raw.extend(gene_name_entries(node_names))
        raw.extend(variant_entries(raw))
        raw = drop_disease_aliases(raw)
        vocabulary = index_vocabulary(read_typed_terms(synonyms_dir)) if synonyms_dir is not None else {}
        stoplist = read_text_stoplist(synonyms_dir) if synonyms_dir is not None else []
        entries = cls._index(raw)
        seconds = time.perf_counter() - started
        info = {
            "format_version": FORMAT_VERSION,
            "nodes": len(ids),
            "synonyms_dir": str(synonyms_dir) if synonyms_dir is not None else None,
            "files": files,
            "build_seconds": round(seconds, 3),
            "vocabulary_terms": len(vocabulary),
            "text_stoplist": sorted(stoplist),
        }
        lexicon = cls(entries, node_names, info, vocabulary)
        lexicon.info["entries_by_source"] = lexicon.count_by_source()
        log.info("lexicon built: %d keys, %d entries from %d nodes in %.2f s",
                 len(entries), sum(lexicon.info["entries_by_source"].values()), len(ids), seconds)
        return lexicon

    @staticmethod
    def _index(raw: Iterable[RawEntry]) -> dict[str, tuple[LexiconEntry, ...]]:
        """Group raw rows by normalised key; one entry per (key, surface, node), best source kept."""
        best: dict[tuple[str, str, str], RawEntry] = {}
        key_cache: dict[str, str] = {}
        for row in raw:
            surface = row[0].strip()
            if not surface:
                continue
            key = key_cache.get(surface)
            if key is None:
                key = key_cache[surface] = normalize_name(surface)
            if len(key) < 2 or not any(c.isalpha() for c in key):
                continue
            slot = (key, surface, row[1])
            kept = best.get(slot)
            if kept is None or _SOURCE_RANK[row[3]] < _SOURCE_RANK[kept[3]]:
                best[slot] = (surface, row[1], row[2], row[3])
        grouped: dict[str, list[LexiconEntry]] = {}
        for (key, _, _), (surface, node_id, kind, source) in best.items():
            grouped.setdefault(key, []).append(LexiconEntry(surface, node_id, kind, source))
        return {k: tuple(sorted(v, key=lambda e: (_SOURCE_RANK[e.source], e.node_id, e.surface)))
                for k, v in grouped.items()}

    # ------------------------------------------------------------------------------------------ access
    def lookup(self, surface: str) -> tuple[LexiconEntry, ...]:
        """Entries whose normalised surface equals ``normalize_name(surface)`` (empty tuple when none)."""
        return self._entries.get(normalize_name(surface), ())

    def get(self, key: str) -> tuple[LexiconEntry, ...]:
        """Entries of an already normalised key (empty tuple when none)."""
        return self._entries.get(key, ())

    def keys(self) -> list[str]:
        """All normalised keys, in insertion order."""
        return list(self._entries)

    def entries(self) -> Iterator[tuple[str, LexiconEntry]]:
        """Iterate over (normalised key, entry) pairs."""
        for key, group in self._entries.items():
            for entry in group:
                yield key, entry

    def node_name(self, node_id: str) -> str:
        """Hetionet name of a node; raises :class:`DataError` for an unknown id."""
        try:
            return self.node_names[node_id][0]
        except KeyError:
            raise DataError(f"Node {node_id!r} is not in the lexicon's node table.") from None

    def count_by_source(self) -> dict[str, int]:
        """Number of entries per source (all of :data:`SOURCES`, zeros included)."""
        counts = dict.fromkeys(SOURCES, 0)
        for group in self._entries.values():
            for entry in group:
                counts[entry.source] += 1
        return counts

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, surface: object) -> bool:
        return isinstance(surface, str) and normalize_name(surface) in self._entries

    def __repr__(self) -> str:
        return f"Lexicon({len(self)} keys, {len(self.node_names)} nodes)"

    # ------------------------------------------------------------------------------------- persistence
    def save(self, path: Path | str) -> Path:
        """Write the lexicon to ``path`` (a pickle with a format header); returns the path.

        Only load files you wrote yourself: unpickling runs code.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [(key, e.surface, e.node_id, e.kind, e.source) for key, e in self.entries()]
        payload = {"format": _FORMAT_NAME, "version": FORMAT_VERSION, "entries": rows,
                   "node_names": self.node_names, "info": self.info, "vocabulary": self.vocabulary}
        return write_atomic(path, pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))

    @classmethod
    def load(cls, path: Path | str) -> Lexicon:
        """Read a lexicon written by :meth:`save`.

        Raises
        ------
        DataError
            If the file is missing, not a lexicon, or of another format version (rebuild it then).
        """
        path = Path(path)
        with gc_paused():  # 150 k entries allocated, none freed: see gc_paused
            return cls._load(path)

    @classmethod
    def _load(cls, path: Path) -> Lexicon:
        try:
            with path.open("rb") as handle:
                payload = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError) as exc:
            raise DataError(f"Cannot read lexicon file {path}: {exc}. Rebuild it with Lexicon.build().") from exc
        if not isinstance(payload, dict) or payload.get("format") != _FORMAT_NAME:
            raise DataError(f"{path} is not an engram-kit lexicon file.")
        if payload.get("version") != FORMAT_VERSION:
            raise DataError(f"Lexicon file {path} has format version {payload.get('version')}, this engram-kit "
                            f"reads version {FORMAT_VERSION}: rebuild it with Lexicon.build().")
        grouped: dict[str, list[LexiconEntry]] = {}
        for key, surface, node_id, kind, source in payload["entries"]:
            grouped.setdefault(key, []).append(LexiconEntry(surface, node_id, kind, source))
        entries = {k: tuple(v) for k, v in grouped.items()}
        return cls(entries, payload["node_names"], payload.get("info"), payload.get("vocabulary"))


def load_node_table(path: Path | str) -> pd.DataFrame:
    """Read a Hetionet nodes TSV (``id``, ``name``, ``kind``; ``.gz`` fine) into the builder's columns.

    Returns
    -------
    DataFrame
        Columns ``id``, ``kind``, ``identifier``, ``name``; ``identifier`` is the part of ``id`` after ``::``.

    Raises
    ------
    DataError
        If the file is unreadable or lacks a column.
    """
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise DataError(f"Cannot read node table {path}: {exc}.") from exc
    missing = [c for c in ("id", "name", "kind") if c not in frame.columns]
    if missing:
        raise DataError(f"Node table {path} lacks columns {missing}.")
    frame["identifier"] = frame["id"].str.partition("::")[2]
    return frame[list(NODE_COLUMNS)]
