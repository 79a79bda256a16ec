"""Cut the upstream synonym tables down to what maps to Hetionet v1.0 nodes, into ``data/synonyms/``.

Usage::

    python scripts/make_synonym_sample.py [--source ../shared/data/synonyms] [--nodes NODES_TSV] [--out data/synonyms]

Keeps the layout read by :meth:`engram_kit.extraction.Lexicon.build` (same relative paths, big files
gzipped): gene symbols/synonyms of Hetionet genes, Disease Ontology names of the DOIDs that attach to a
Hetionet node (the 137 Hetionet diseases + the DO terms bridged by name, see ``engram_kit.extraction.lexicon``),
DrugBank aliases of Hetionet compounds, the 438 symptom descriptors, and the MeSH names of symptoms and of
the MeSH cross-references of Hetionet diseases, the curated INN/USAN table (kept as is), and the typed
vocabulary ``vocabulary/typed-terms.tsv.gz`` (see :func:`typed_vocabulary`). Deterministic: rows keep
their upstream order; the MeSH typing model is a seeded, deterministic logistic regression.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
from pathlib import Path

import pandas as pd

from engram_kit.extraction.lexicon import (
    SYNONYM_FILES,
    _read_json,
    _read_tsv,
    disease_entries,
    find_synonym_file,
    load_node_table,
    mesh_targets,
    read_disease_terms,
)
from engram_kit.extraction.normalize import normalize_name

log = logging.getLogger("make_synonym_sample")
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def _write_tsv(frame: pd.DataFrame, path: Path, *, compress: bool) -> Path:
    path = path.with_name(path.name + ".gz") if compress else path
    path.parent.mkdir(parents=True, exist_ok=True)
    if compress:
        with gzip.GzipFile(path, "wb", mtime=0) as handle:  # mtime=0: byte-identical reruns
            handle.write(frame.to_csv(sep="\t", index=False).encode("utf-8"))
    else:
        frame.to_csv(path, sep="\t", index=False)
    return path


def _write_json(data: dict, path: Path) -> Path:
    path = path.with_name(path.name + ".gz")
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(path, "wb", mtime=0) as handle:
        handle.write(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True).encode("utf-8"))
    return path


def _required(source: Path, key: str) -> Path:
    path = find_synonym_file(source, SYNONYM_FILES[key])
    if path is None:
        raise SystemExit(f"missing {SYNONYM_FILES[key]} under {source}")
    return path


def make_sample(source: Path, nodes: pd.DataFrame, out: Path) -> list[Path]:
    """Write the restricted tables under ``out``; returns the files written."""
    by_kind = {k: dict(zip(g["identifier"], g["id"])) for k, g in nodes.groupby("kind")}
    genes, diseases = by_kind.get("Gene", {}), by_kind.get("Disease", {})
    compounds, symptoms = by_kind.get("Compound", {}), by_kind.get("Symptom", {})
    written: list[Path] = []

    symbols = pd.read_csv(_required(source, "gene_symbols"), sep="\t", dtype=str, keep_default_na=False)
    written.append(_write_tsv(symbols[symbols["GeneID"].isin(genes.keys())],
                              out / SYNONYM_FILES["gene_symbols"], compress=True))
    aliases = _read_json(_required(source, "gene_synonyms"))
    kept = {alias: [i for i in ids if str(i) in genes] for alias, ids in aliases.items()}
    written.append(_write_json({a: ids for a, ids in kept.items() if ids}, out / SYNONYM_FILES["gene_synonyms"]))

    terms = read_disease_terms(source)
    if terms is None:
        raise SystemExit(f"missing {SYNONYM_FILES['disease_terms']} under {source}")
    nodes_by_key: dict[str, list[tuple[str, str]]] = {}
    for node_id, name, kind in zip(nodes["id"], nodes["name"], nodes["kind"]):
        nodes_by_key.setdefault(normalize_name(name), []).append((node_id, kind))
    _, used = disease_entries(terms, diseases, nodes_by_key)
    written.append(_write_tsv(terms[terms["doid"].isin(used)], out / SYNONYM_FILES["disease_terms"], compress=True))
    xrefs = pd.read_csv(_required(source, "disease_xrefs"), sep="\t", dtype=str, keep_default_na=False)
    xrefs = xrefs[(xrefs["resource"] == "MSH") & xrefs["doid_code"].isin(diseases.keys())]
    written.append(_write_tsv(xrefs, out / SYNONYM_FILES["disease_xrefs"], compress=False))

    drugs = _read_json(_required(source, "compound_aliases"))
    written.append(_write_json({k: v for k, v in drugs.items() if k in compounds},
                               out / SYNONYM_FILES["compound_aliases"]))

    targets = mesh_targets(out, symptoms, diseases)  # reads the xrefs just written
    for key in ("symptoms", "mesh_terms"):
        frame = _read_tsv(_required(source, key), ["mesh_id", "mesh_name"]) if key == "mesh_terms" else \
            pd.read_csv(_required(source, key), sep="\t", dtype=str, keep_default_na=False)
        frame = frame[frame["mesh_id"].isin(targets.keys())]
        written.append(_write_tsv(frame, out / SYNONYM_FILES[key], compress=False))
    written.append(_write_tsv(typed_vocabulary(source, nodes), out / SYNONYM_FILES["typed_terms"], compress=True))
    return written


#: Least probability of the Chemical class for a MeSH descriptor to enter the typed vocabulary.
MESH_CHEMICAL_MIN_PROBABILITY = 0.7
#: Hetionet kinds used as the "Other" class when typing MeSH descriptor names.
OTHER_KINDS = ("Anatomy", "Biological Process", "Cellular Component", "Molecular Function", "Pathway",
               "Pharmacologic Class")


def mesh_chemical_names(source: Path, nodes: pd.DataFrame) -> pd.DataFrame:
    """MeSH descriptors typed Chemical by a character n-gram classifier (mesh-terms.tsv has no tree numbers).

    Training names, none from any NER corpus: Chemical = DrugBank drug names (``compound/drugbank.tsv``);
    Disease = Disease Ontology names and exact synonyms + Hetionet Disease, Side Effect and Symptom names;
    Other = Hetionet Anatomy, GO, Pathway and Pharmacologic Class names. Model: TF-IDF of character 2-5
    grams within word boundaries (``char_wb``, min_df 2, sublinear tf) + logistic regression (C=4,
    lbfgs). A descriptor (un-inverted: "Acid, Glutamic" -> "Glutamic Acid") is kept when its Chemical
    probability is >= :data:`MESH_CHEMICAL_MIN_PROBABILITY`. MeSH disease descriptors are not used: the
    model's Disease class also takes organisms, places and professions ("Rats", "Psychiatry"), and the
    Disease Ontology already covers diseases.

    Returns
    -------
    DataFrame
        Columns ``mesh_id``, ``mesh_name``, ``probability``; upstream order.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from engram_kit.extraction.lexicon import uninvert_mesh_name

    texts: list[str] = []
    labels: list[str] = []
    drugs = pd.read_csv(source / "compound" / "drugbank.tsv", sep="\t", dtype=str, keep_default_na=False)
    texts += drugs["name"].tolist()
    labels += ["Chemical"] * len(drugs)
    terms = read_disease_terms(source)
    names = terms[terms["type"].isin(["name", "exact-synonym"])]["name"].tolist() if terms is not None else []
    texts += names
    labels += ["Disease"] * len(names)
    for name, kind in zip(nodes["name"], nodes["kind"]):
        if kind in ("Disease", "Side Effect", "Symptom"):
            texts.append(name)
            labels.append("Disease")
        elif kind in OTHER_KINDS:
            texts.append(name)
            labels.append("Other")
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True)
    model = LogisticRegression(max_iter=300, C=4.0)
    model.fit(vectorizer.fit_transform([t.lower() for t in texts]), labels)
    mesh = _read_tsv(_required(source, "mesh_terms"), ["mesh_id", "mesh_name"])
    forms = [(uninvert_mesh_name(n) or n).lower() for n in mesh["mesh_name"]]
    chemical = list(model.classes_).index("Chemical")
    mesh = mesh.assign(probability=model.predict_proba(vectorizer.transform(forms))[:, chemical])
    return mesh[mesh["probability"] >= MESH_CHEMICAL_MIN_PROBABILITY]


def typed_vocabulary(source: Path, nodes: pd.DataFrame) -> pd.DataFrame:
    """Typed terms without a Hetionet node, for ``vocabulary/typed-terms.tsv.gz``.

    * ``disease-ontology``: names and exact synonyms of every Disease Ontology term -> Disease;
    * ``drugbank``: names and aliases of DrugBank small molecules that are not Hetionet compounds -> Chemical;
    * ``mesh-classified``: MeSH descriptors typed Chemical by :func:`mesh_chemical_names` (name and
      un-inverted name) -> Chemical.

    Returns
    -------
    DataFrame
        Columns ``term``, ``label``, ``source``, ``source_id``; duplicates (same term, label) dropped.
    """
    from engram_kit.extraction.lexicon import uninvert_mesh_name

    rows: list[tuple[str, str, str, str]] = []
    terms = read_disease_terms(source)
    if terms is not None:
        kept = terms[terms["type"].isin(["name", "exact-synonym"])]
        rows += [(name, "Disease", "disease-ontology", doid) for doid, name in zip(kept["doid"], kept["name"])]
    compounds = set(nodes.loc[nodes["kind"] == "Compound", "identifier"])
    drugs = pd.read_csv(source / "compound" / "drugbank.tsv", sep="\t", dtype=str, keep_default_na=False)
    small = drugs[(drugs["type"] == "small molecule") & ~drugs["drugbank_id"].isin(compounds)]
    aliases = _read_json(_required(source, "compound_aliases"))
    for drug_id, name in zip(small["drugbank_id"], small["name"]):
        for alias in dict.fromkeys([name, *aliases.get(drug_id, [])]):
            rows.append((alias, "Chemical", "drugbank", drug_id))
    for mesh_id, name in zip(*[mesh_chemical_names(source, nodes)[c] for c in ("mesh_id", "mesh_name")]):
        for form in dict.fromkeys([name, uninvert_mesh_name(name) or name]):
            rows.append((form, "Chemical", "mesh-classified", mesh_id))
    frame = pd.DataFrame(rows, columns=["term", "label", "source", "source_id"])
    return frame.drop_duplicates(["term", "label"]).reset_index(drop=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SHARED / "synonyms")
    local_nodes = ROOT / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz"
    parser.add_argument("--nodes", type=Path,
                        default=local_nodes if local_nodes.is_file() else SHARED / "hetionet" / "hetionet-v1.0-nodes.tsv.gz")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "synonyms")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    written = make_sample(args.source, load_node_table(args.nodes), args.out)
    total = 0
    for path in written:
        size = path.stat().st_size
        total += size
        log.info("%8d bytes  %s", size, path.relative_to(args.out))
    log.info("%8d bytes  total", total)


if __name__ == "__main__":
    main()
