"""Convert rows of the bundled Hetionet sample to PrimeKG's ``kg.csv`` layout (a test sample, NOT PrimeKG data).

The real PrimeKG release (Harvard Dataverse, doi:10.7910/DVN/IXA7BM) cannot be fetched where engram-kit's tests
run, so the PrimeKG format is tested on Hetionet rows rewritten in PrimeKG's columns, node-type names and relation
names. The facts are Hetionet's (and its sources'); only the form is PrimeKG's. ``download_primekg()`` fetches the
real release.

Mapping (Hetionet metaedge -> PrimeKG relation, display_relation):

* CtD treats, CpD palliates -> ``indication`` (PrimeKG's DrugCentral indications do not tell disease-modifying
  from symptomatic use)
* CbG binds -> ``drug_protein`` / ``target``
* DaG associates -> ``disease_protein`` / ``associated with``
* GiG interacts -> ``protein_protein`` / ``ppi``
* GpPW participates -> ``pathway_protein`` / ``interacts with``
* CcSE causes -> ``drug_effect`` / ``side effect``
* AeG expresses -> ``anatomy_protein_present`` / ``expression present``

Other metaedges have no PrimeKG relation and are left out (DrD resembles, CrC, GcG covaries, Gr>G, CuG/CdG,
DuG/DdG, DlA, PCiC). Node types: Gene -> gene/protein (source NCBI, the Entrez id), Compound -> drug (DrugBank),
Disease -> disease (source DOID: PrimeKG uses MONDO, no crosswalk is applied), Side Effect -> effect/phenotype
(UMLS), Anatomy -> anatomy (UBERON), Pathway -> pathway (the Hetionet pathway id's source). ``x_index`` is a node
index in order of first appearance. Each edge is written from both ends, as the release does.

Rows kept (to stay small): every CtD and CpD edge; CbG of the drugs indicated for a focus disease or named below,
CcSE of the named drugs; DaG of the focus diseases; GiG with both genes in the focus gene set, GpPW and AeG of the named genes.

Run from the repository root (deterministic: byte-identical output)::

    python data/primekg/convert_hetionet_sample.py
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

from engram_kit.kg.hetionet import load_hetionet

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
OUT = HERE / "kg-hetionet-sample.csv.gz"

FOCUS_DISEASES = ("Disease::DOID:10652", "Disease::DOID:14330", "Disease::DOID:2377", "Disease::DOID:332")
NAMED_COMPOUNDS = ("Metformin", "Donepezil", "Memantine", "Minocycline", "Ibuprofen", "Pioglitazone")
NAMED_GENES = ("BACE1", "TREM2", "TYROBP", "APP", "PSEN1", "PSEN2", "APOE", "TP53", "MAPT", "SNCA", "LRRK2", "TNF",
               "IL6", "IL1B", "NLRP3", "CD33", "CX3CR1", "GFAP", "PRKAA1")
#: Hetionet metaedge -> (PrimeKG relation, display_relation).
RELATION_OF = {
    "CtD": ("indication", "indication"), "CpD": ("indication", "indication"),
    "CbG": ("drug_protein", "target"), "DaG": ("disease_protein", "associated with"),
    "GiG": ("protein_protein", "ppi"), "GpPW": ("pathway_protein", "interacts with"),
    "CcSE": ("drug_effect", "side effect"), "AeG": ("anatomy_protein_present", "expression present"),
}
#: Hetionet kind -> (PrimeKG type, source).
TYPE_OF = {"Gene": ("gene/protein", "NCBI"), "Compound": ("drug", "DrugBank"), "Disease": ("disease", "DOID"),
           "Side Effect": ("effect/phenotype", "UMLS"), "Anatomy": ("anatomy", "UBERON"), "Pathway": ("pathway", "")}
#: PrimeKG's kg.csv columns.
COLUMNS = ("relation", "display_relation", "x_index", "x_id", "x_type", "x_name", "x_source", "y_index", "y_id",
           "y_type", "y_name", "y_source")


def _kept_edges(kg) -> list[tuple[str, str, str]]:  # noqa: ANN001 - KnowledgeGraph
    """``(source, metaedge, target)`` of the kept Hetionet edges, in file order (see the module docstring)."""
    names = dict(zip(kg.nodes["id"], kg.nodes["name"], strict=True))
    edges = kg.edges[kg.edges["metaedge"].isin(list(RELATION_OF))]
    named_genes = {i for i, n in names.items() if i.startswith("Gene::") and n in NAMED_GENES}
    indicated = set(edges.loc[edges["metaedge"].isin(["CtD", "CpD"]) & edges["target"].isin(FOCUS_DISEASES), "source"])
    named_drugs = {i for i, n in names.items() if i.startswith("Compound::") and n in NAMED_COMPOUNDS}
    drugs = indicated | named_drugs
    disease_genes = set(edges.loc[(edges["metaedge"] == "DaG") & edges["source"].isin(FOCUS_DISEASES), "target"])
    focus_genes = disease_genes | named_genes
    m, s, t = edges["metaedge"], edges["source"], edges["target"]
    keep = (m.isin(["CtD", "CpD"]) | ((m == "CbG") & s.isin(drugs)) | ((m == "CcSE") & s.isin(named_drugs))
            | ((m == "DaG") & s.isin(FOCUS_DISEASES)) | ((m == "GiG") & s.isin(focus_genes) & t.isin(focus_genes))
            | ((m == "GpPW") & s.isin(named_genes)) | ((m == "AeG") & t.isin(named_genes)))
    return list(zip(s[keep], m[keep], t[keep], strict=True))


def _node_fields(node_id: str, name: str, index: int) -> list[str]:
    kind, _, identifier = node_id.partition("::")
    primekg_type, source = TYPE_OF[kind]
    if ":" in identifier:  # DOID:10652 -> DOID, 10652; UBERON:0000955 -> UBERON, 0000955
        source, _, identifier = identifier.partition(":")
    elif not source:  # Hetionet pathway ids: PC7_1684 (Pathway Commons), WP... (WikiPathways)
        source = "PathwayCommons" if identifier.startswith("PC") else "WikiPathways" if identifier.startswith("WP") \
            else "Hetionet"
    return [str(index), identifier, primekg_type, name, source]


def convert() -> bytes:
    """The sample as gzip bytes (mtime 0: reproducible)."""
    kg = load_hetionet(DATA / "hetionet" / "hetionet-v1.0-nodes.tsv.gz",
                       DATA / "hetionet" / "hetionet-v1.0-edges-sample.tsv.gz", progress=False)
    names = dict(zip(kg.nodes["id"], kg.nodes["name"], strict=True))
    index: dict[str, int] = {}
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for source, meta, target in _kept_edges(kg):
        relation, display = RELATION_OF[meta]
        # PrimeKG names the pathway first (pathway_protein); Hetionet writes GpPW gene -> pathway
        x, y = (target, source) if meta == "GpPW" else (source, target)
        for a, b in ((x, y), (y, x)):  # both directions, as the release lists them
            fields = [relation, display]
            for node in (a, b):
                fields += _node_fields(node, names[node], index.setdefault(node, len(index)))
            writer.writerow(fields)
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as handle:
        handle.write(text.getvalue().encode("utf-8"))
    return raw.getvalue()


if __name__ == "__main__":
    OUT.write_bytes(convert())
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")
