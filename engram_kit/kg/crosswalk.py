"""Cross-walks between a Biolink KGX graph and Hetionet: which nodes share an identifier (no merging).

A KGX graph (Monarch KG and the like) names nodes by CURIE (``HGNC:10848``, ``MONDO:0016296``,
``GO:0007224``) and lists equivalent CURIEs in ``xrefs``; Hetionet v1.0 names them by kind-specific local
ids (``Gene::6469`` is an Entrez GeneID, ``Symptom::D000006`` a MeSH descriptor). :func:`crosswalk` turns
both sides into canonical CURIEs and joins them, so a user sees where the two graphs talk about the same
thing. The graphs are never merged: the report is a table to read, filter or export.

Identifier rules (Hetionet kind -> CURIE namespace; sources: Himmelstein et al. 2017, the hetio/hetionet
v1.0 node table)
----------------------------------------------------------------------------------------------------------
========================  ===============================================  ===============================
Hetionet kind             Hetionet identifier                              CURIE
========================  ===============================================  ===============================
Gene                      Entrez GeneID ``6469``                           ``NCBIGene:6469``
Disease                   ``DOID:1612``                                    itself
Anatomy                   ``UBERON:0000002``                               itself
Biological Process,       ``GO:0000002``                                   itself
Cellular Component,
Molecular Function
Compound                  DrugBank ``DB00331``                             ``DRUGBANK:DB00331``
Symptom                   MeSH descriptor ``D000006``                      ``MESH:D000006``
Side Effect               UMLS CUI ``C0000727``                            ``UMLS:C0000727``
Pharmacologic Class       NDF-RT ``N0000000069``                           ``NDFRT:N0000000069``
Pathway                   WikiPathways ``WP100_r74146``                    ``WIKIPATHWAYS:WP100``
Pathway                   Pathway Commons v7 ``PC7_7786``                  none (an internal id)
========================  ===============================================  ===============================

Two optional tables add indirect links: ``gene_xrefs`` (dhimmel/entrez-gene ``gene/xrefs-human.tsv``:
HGNC id -> Entrez GeneID, so ``HGNC:10848`` reaches ``Gene::6469``; the bundled synonym folder does not
carry it, the shared full tables do) and ``disease_xrefs`` (dhimmel/disease-ontology
``disease/xrefs-slim.tsv``: DOID -> MeSH, UMLS, OMIM, Orphanet, EFO, NCIt, SNOMED CT, HP ids of the 137
Hetionet diseases; the bundled copy keeps its MeSH rows).

Hetionet's Reactome pathways came through Pathway Commons v7 and carry only ``PC7_`` ids, so a KGX
``REACT:`` node never meets one by identifier (only by name, which this module does not try).

CURIE prefixes are compared case-insensitively, with a few synonymous prefixes folded
(:data:`PREFIX_SYNONYMS`: ``MSH`` -> ``MESH``, ``ENTREZ`` -> ``NCBIGENE``, ``REACTOME`` -> ``REACT``...);
OBO PURLs (``http://purl.obolibrary.org/obo/GO_0007224``) become CURIEs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from engram_kit.errors import DataError

log = logging.getLogger(__name__)

#: Prefix synonyms (upper case) -> the canonical upper-case prefix used for matching.
PREFIX_SYNONYMS: dict[str, str] = {
    "ENTREZ": "NCBIGENE", "NCBIGENEID": "NCBIGENE", "GENEID": "NCBIGENE", "NCBI.GENE": "NCBIGENE",
    "MSH": "MESH", "REACTOME": "REACT", "WP": "WIKIPATHWAYS", "MIM": "OMIM", "ORDO": "ORPHANET",
    "NCI": "NCIT", "UMLS_CUI": "UMLS", "NDF-RT": "NDFRT", "ENSEMBL.GENE": "ENSEMBL",
}
#: How canonical prefixes are written in reports (others are shown upper case).
PREFIX_DISPLAY: dict[str, str] = {"NCBIGENE": "NCBIGene", "ORPHANET": "Orphanet", "DRUGBANK": "DRUGBANK",
                                  "WIKIPATHWAYS": "WIKIPATHWAYS", "NCIT": "NCIT"}
#: Hetionet kinds whose identifier is a bare local id -> the CURIE prefix it belongs to.
HETIONET_KIND_PREFIX: dict[str, str] = {
    "Gene": "NCBIGENE", "Compound": "DRUGBANK", "Symptom": "MESH", "Side Effect": "UMLS",
    "Pharmacologic Class": "NDFRT",
}
#: ``disease/xrefs-slim.tsv`` resource -> canonical prefix (ICD, KEGG and CSP codes are not CURIEs KGX uses).
DISEASE_XREF_PREFIX: dict[str, str] = {
    "MSH": "MESH", "UMLS": "UMLS", "OMIM": "OMIM", "ORDO": "ORPHANET", "EFO": "EFO", "NCI": "NCIT",
    "SNOMEDCT": "SNOMEDCT", "HP": "HP",
}
#: Values of the ``via`` column, strongest first: the KGX node's own CURIE is a Hetionet identifier; one of its
#: xrefs is; an HGNC CURIE (own or xref) maps to an Entrez gene; a CURIE is a cross-reference of a DOID.
VIA: tuple[str, ...] = ("id", "xref", "hgnc-map", "disease-xref")
#: Columns of :attr:`CrosswalkReport.pairs`.
PAIR_COLUMNS: tuple[str, ...] = ("kgx_id", "kgx_name", "curie", "hetionet_id", "hetionet_name",
                                 "hetionet_kind", "via")
#: Columns of :attr:`CrosswalkReport.namespaces`.
NAMESPACE_COLUMNS: tuple[str, ...] = ("namespace", "kgx_nodes", "matched", "share", "hetionet_nodes",
                                      "hetionet_kind")

_OBO_PURL = r"^https?://purl\.obolibrary\.org/obo/([A-Za-z][A-Za-z0-9]*)_(\S+)$"


# ------------------------------------------------------------------------------------------------ CURIEs
def canonical_curies(values: pd.Series) -> pd.Series:
    """Canonical matching form of CURIEs: ``PREFIX:local`` with the prefix upper case and folded.

    Parameters
    ----------
    values : Series of str
        CURIEs (``"MONDO:0016296"``, ``"msh:D000006"``) or OBO PURLs; surrounding space is ignored.

    Returns
    -------
    Series of str
        Same index; ``"MESH:D000006"``, ``"GO:0007224"``; ``""`` where a value has no prefix or local part.
        Local parts keep their case (``DRUGBANK:DB00331``).
    """
    text = values.fillna("").astype(str).str.strip()
    purl = text.str.extract(_OBO_PURL)
    text = text.where(purl[0].isna(), purl[0] + ":" + purl[1])
    parts = text.str.partition(":")
    prefix = parts[0].str.upper()
    prefix = prefix.map(PREFIX_SYNONYMS).fillna(prefix)
    ok = (parts[1] == ":") & (prefix != "") & (parts[2] != "")
    return (prefix + ":" + parts[2]).where(ok, "")


def display_prefix(prefix: str) -> str:
    """Report spelling of a canonical prefix (``"NCBIGENE"`` -> ``"NCBIGene"``)."""
    return PREFIX_DISPLAY.get(prefix, prefix)


def node_curies(nodes: pd.DataFrame) -> pd.Series:
    """Canonical CURIE of every node of a KGX or Hetionet node table (same index).

    A node whose identifier (the part of ``id`` after ``::``) is a CURIE keeps it (KGX ``HGNC:10848``,
    Hetionet ``DOID:1612``, ``GO:0000002``); a Hetionet identifier without a prefix gets the one of its kind
    (:data:`HETIONET_KIND_PREFIX`; WikiPathways ``WP100_r74146`` -> ``WIKIPATHWAYS:WP100``). ``""`` when none
    applies (Pathway Commons ``PC7_`` ids).

    Raises
    ------
    DataError
        If the table has no ``id`` column.
    """
    identifiers = _identifiers(nodes)
    kinds = nodes["kind"].astype(str) if "kind" in nodes.columns else pd.Series("", index=nodes.index)
    has_prefix = identifiers.str.contains(":", regex=False)
    prefixed = kinds.map(HETIONET_KIND_PREFIX).fillna("") + ":" + identifiers
    wikipathway = identifiers.str.extract(r"^(WP\d+)_r\d+$")[0]
    prefixed = prefixed.where(wikipathway.isna(), "WIKIPATHWAYS:" + wikipathway.fillna(""))
    return canonical_curies(identifiers.where(has_prefix, prefixed))


def _identifiers(nodes: pd.DataFrame) -> pd.Series:
    """``identifier`` column, else the part of ``id`` after ``::``, else ``id`` itself (a raw KGX CURIE)."""
    if "id" not in nodes.columns:
        raise DataError(f"The node table lacks an 'id' column; found {list(nodes.columns)}.")
    ids = nodes["id"].astype(str)
    if "identifier" in nodes.columns:
        return nodes["identifier"].fillna("").astype(str).where(lambda s: s != "", ids.str.partition("::")[2])
    after = ids.str.partition("::")[2]
    return after.where(after != "", ids)


# ------------------------------------------------------------------------------------------- key tables
def _kgx_keys(kgx: pd.DataFrame) -> pd.DataFrame:
    """KGX node -> canonical CURIEs it stands for: its own (``side="id"``) and its xrefs (``side="xref"``)."""
    base = pd.DataFrame({"kgx_id": kgx["id"].astype(str),
                         "kgx_name": kgx["name"].fillna("").astype(str) if "name" in kgx.columns else "",
                         "curie": canonical_curies(_identifiers(kgx)), "side": "id"})
    frames = [base]
    if "xrefs" in kgx.columns:
        xrefs = pd.DataFrame({"kgx_id": base["kgx_id"], "kgx_name": base["kgx_name"],
                              "curie": kgx["xrefs"].fillna("").astype(str).str.split("|")})
        xrefs = xrefs.explode("curie", ignore_index=True)
        xrefs["curie"] = canonical_curies(xrefs["curie"])
        frames.append(xrefs.assign(side="xref"))
    keys = pd.concat(frames, ignore_index=True)
    return keys[keys["curie"] != ""].drop_duplicates(["kgx_id", "curie"], keep="first")


def _hetionet_keys(hetionet: pd.DataFrame, gene_xrefs: pd.DataFrame | None,
                   disease_xrefs: pd.DataFrame | None) -> pd.DataFrame:
    """Canonical CURIE -> Hetionet node, with ``mapping`` = ``"direct"`` or the table that made the link."""
    nodes = pd.DataFrame({"hetionet_id": hetionet["id"].astype(str),
                          "hetionet_name": hetionet["name"].fillna("").astype(str),
                          "hetionet_kind": hetionet["kind"].astype(str), "curie": node_curies(hetionet)})
    local_id = nodes["hetionet_id"].str.partition("::")[2]
    frames = [nodes[nodes["curie"] != ""].assign(mapping="direct")]
    if gene_xrefs is not None:
        genes = nodes.assign(gene_id=local_id)[nodes["hetionet_kind"] == "Gene"]
        hgnc = gene_xrefs[gene_xrefs["resource"].astype(str).str.upper() == "HGNC"]
        # xrefs-human.tsv writes HGNC ids as full CURIEs ("HGNC:10848"); accept bare numbers too
        hgnc_ids = hgnc["identifier"].astype(str)
        hgnc_ids = hgnc_ids.where(hgnc_ids.str.contains(":", regex=False), "HGNC:" + hgnc_ids)
        table = pd.DataFrame({"gene_id": hgnc["GeneID"].astype(str), "curie": canonical_curies(hgnc_ids)})
        mapped = genes.drop(columns="curie").merge(table, on="gene_id").drop(columns="gene_id")
        frames.append(mapped.assign(mapping="hgnc-map"))
    if disease_xrefs is not None:
        diseases = nodes.assign(doid=local_id)[nodes["hetionet_kind"] == "Disease"]
        prefix = disease_xrefs["resource"].astype(str).str.upper().map(DISEASE_XREF_PREFIX)
        usable = disease_xrefs[prefix.notna()]
        curies = canonical_curies(prefix[prefix.notna()] + ":" + usable["resource_id"].astype(str))
        table = pd.DataFrame({"doid": usable["doid_code"].astype(str), "curie": curies})
        mapped = diseases.drop(columns="curie").merge(table, on="doid").drop(columns="doid")
        frames.append(mapped.assign(mapping="disease-xref"))
    keys = pd.concat(frames, ignore_index=True)
    return keys[keys["curie"] != ""].drop_duplicates(["curie", "hetionet_id"], keep="first")


def read_table(table: pd.DataFrame | Path | str | None, columns: tuple[str, ...], what: str) -> pd.DataFrame | None:
    """A mapping table given as a DataFrame or a TSV path (``.gz`` fine); None passes through.

    Raises
    ------
    DataError
        If the file cannot be read or a column is missing (the message names the table and the columns).
    """
    if table is None:
        return None
    if not isinstance(table, pd.DataFrame):
        try:
            table = pd.read_csv(table, sep="\t", dtype=str, keep_default_na=False)
        except (OSError, ValueError) as exc:
            raise DataError(f"Cannot read the {what} table {table}: {exc}.") from exc
    assert isinstance(table, pd.DataFrame)
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise DataError(f"The {what} table lacks columns {missing}; expected {list(columns)} "
                        f"(found {list(table.columns)}).")
    return table


# ------------------------------------------------------------------------------------------------ report
@dataclass
class CrosswalkReport:
    """Where a KGX graph and Hetionet share identifiers.

    Attributes
    ----------
    namespaces : DataFrame
        One row per CURIE prefix of the KGX nodes' own identifiers (columns :data:`NAMESPACE_COLUMNS`):
        ``kgx_nodes`` (distinct nodes), ``matched`` (of them, nodes with at least one Hetionet partner),
        ``share`` (matched / kgx_nodes, in [0, 1]), ``hetionet_nodes`` (distinct partners) and
        ``hetionet_kind`` (``|``-joined kinds of the partners; ``""`` when none). Sorted by ``matched``,
        then ``kgx_nodes``, descending.
    pairs : DataFrame
        One row per (KGX node, Hetionet node) pair (columns :data:`PAIR_COLUMNS`); ``curie`` is the shared
        canonical CURIE and ``via`` the strongest link (:data:`VIA`).
    kgx_nodes, hetionet_nodes : int
        Distinct nodes on each side that were compared.
    """

    namespaces: pd.DataFrame
    pairs: pd.DataFrame
    kgx_nodes: int
    hetionet_nodes: int

    @property
    def matched_kgx(self) -> int:
        """KGX nodes with at least one Hetionet partner."""
        return int(self.pairs["kgx_id"].nunique())

    @property
    def matched_hetionet(self) -> int:
        """Hetionet nodes with at least one KGX partner."""
        return int(self.pairs["hetionet_id"].nunique())

    def to_frame(self) -> pd.DataFrame:
        """The pairs table."""
        return self.pairs

    def summary(self) -> str:
        """A few lines: totals, then matched / total per namespace with the Hetionet kinds reached."""
        lines = [f"{self.matched_kgx} of {self.kgx_nodes} KGX nodes share an identifier with "
                 f"{self.matched_hetionet} Hetionet nodes ({len(self.pairs)} pairs; by "
                 + ", ".join(f"{via} {n}" for via, n in self.pairs["via"].value_counts().items()) + ")."
                 if len(self.pairs) else f"None of the {self.kgx_nodes} KGX nodes shares an identifier with Hetionet."]
        for row in self.namespaces.itertuples(index=False):
            target = f" -> {row.hetionet_kind}" if row.hetionet_kind else ""
            lines.append(f"  {row.namespace:<14} {row.matched:>6} / {row.kgx_nodes:<6} ({row.share:.0%}){target}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return f"<pre>{self.summary()}</pre>" + self.namespaces.to_html(index=False)

    def __repr__(self) -> str:
        return (f"CrosswalkReport({self.matched_kgx}/{self.kgx_nodes} KGX nodes matched, "
                f"{self.matched_hetionet} Hetionet nodes, {len(self.pairs)} pairs)")


def _node_table(graph: Any, side: str) -> pd.DataFrame:
    """The node DataFrame of a KnowledgeGraph (``.nodes``) or a DataFrame itself, without duplicate ids."""
    nodes = getattr(graph, "nodes", graph)
    if not isinstance(nodes, pd.DataFrame):
        raise DataError(f"The {side} graph must be a node DataFrame or a KnowledgeGraph, not {type(graph).__name__}.")
    needed = ("id", "name", "kind") if side == "Hetionet" else ("id",)
    missing = [c for c in needed if c not in nodes.columns]
    if missing:
        raise DataError(f"The {side} node table lacks columns {missing}; found {list(nodes.columns)}.")
    return nodes.drop_duplicates("id", keep="first")


def crosswalk(
    kgx_nodes: pd.DataFrame | Any,
    hetionet_nodes: pd.DataFrame | Any,
    *,
    gene_xrefs: pd.DataFrame | Path | str | None = None,
    disease_xrefs: pd.DataFrame | Path | str | None = None,
) -> CrosswalkReport:
    """Which nodes of a Biolink KGX graph are Hetionet nodes too, by shared identifier (module docstring).

    Parameters
    ----------
    kgx_nodes : DataFrame or KnowledgeGraph
        KGX node table: ``id`` (``"Gene::HGNC:10848"`` or a bare CURIE), optionally ``identifier`` (the CURIE),
        ``name``, ``xrefs`` (``|``-joined CURIEs). Duplicate ids count once.
    hetionet_nodes : DataFrame or KnowledgeGraph
        Hetionet node table: ``id`` (``"Gene::6469"``), ``name``, ``kind``.
    gene_xrefs : DataFrame or path, optional
        dhimmel/entrez-gene ``gene/xrefs-human.tsv`` (columns ``GeneID``, ``resource``, ``identifier``); its
        ``HGNC`` rows link ``HGNC:`` CURIEs to Hetionet genes (``via="hgnc-map"``). None: HGNC nodes match
        only through an ``NCBIGene:`` xref.
    disease_xrefs : DataFrame or path, optional
        dhimmel/disease-ontology ``disease/xrefs-slim.tsv`` (columns ``doid_code``, ``resource``,
        ``resource_id``): MeSH/UMLS/OMIM/Orphanet/EFO/NCIt/SNOMED CT/HP ids of Hetionet diseases
        (``via="disease-xref"``).

    Returns
    -------
    CrosswalkReport
        Per-namespace counts and the node pairs. One KGX node may pair with several Hetionet nodes (a GO id
        is one node, but a MeSH id can be a Symptom and, through ``disease_xrefs``, a Disease).

    Raises
    ------
    DataError
        If a table lacks a needed column or a mapping file cannot be read.

    Examples
    --------
    >>> report = crosswalk(kgx.nodes, hetionet.nodes, gene_xrefs="../shared/data/synonyms/gene/xrefs-human.tsv")
    >>> print(report.summary())  # doctest: +SKIP
    """
    kgx = _node_table(kgx_nodes, "KGX")
    het = _node_table(hetionet_nodes, "Hetionet")
    genes = read_table(gene_xrefs, ("GeneID", "resource", "identifier"), "gene xref")
    diseases = read_table(disease_xrefs, ("doid_code", "resource", "resource_id"), "disease xref")

    kgx_keys = _kgx_keys(kgx)
    het_keys = _hetionet_keys(het, genes, diseases)
    pairs = kgx_keys.merge(het_keys, on="curie")
    pairs["via"] = pairs["side"].where(pairs["mapping"] == "direct", pairs["mapping"])
    pairs["rank"] = pairs["via"].map({v: i for i, v in enumerate(VIA)})
    pairs = (pairs.sort_values(["kgx_id", "hetionet_id", "rank"])
             .drop_duplicates(["kgx_id", "hetionet_id"], keep="first")[list(PAIR_COLUMNS)]
             .reset_index(drop=True))

    own = pd.DataFrame({"kgx_id": kgx["id"].astype(str).to_numpy(),
                        "namespace": canonical_curies(_identifiers(kgx)).str.partition(":")[0].to_numpy()})
    own["namespace"] = own["namespace"].replace("", "(none)").map(display_prefix)
    counted = own.merge(pairs[["kgx_id", "hetionet_id", "hetionet_kind"]], on="kgx_id", how="left")
    namespaces = counted.groupby("namespace", sort=False).agg(
        kgx_nodes=("kgx_id", "nunique"),
        matched=("hetionet_id", lambda s: int(counted.loc[s.dropna().index, "kgx_id"].nunique())),
        hetionet_nodes=("hetionet_id", "nunique"),
        hetionet_kind=("hetionet_kind", lambda s: "|".join(sorted(set(s.dropna())))),
    ).reset_index()
    namespaces["share"] = (namespaces["matched"] / namespaces["kgx_nodes"]).round(4)
    namespaces = namespaces.sort_values(["matched", "kgx_nodes", "namespace"], ascending=[False, False, True],
                                        ignore_index=True)[list(NAMESPACE_COLUMNS)]
    report = CrosswalkReport(namespaces, pairs, int(kgx["id"].nunique()), int(het["id"].nunique()))
    log.info("crosswalk: %s", report)
    return report
