"""Build ``data/synonyms/vocabulary/lay-disease-names.tsv``: lay, historical and MeSH entry-term names of the
Hetionet Disease nodes that the Disease Ontology synonyms lack (issue 34.6: "shaking palsy" resolved to
nothing, "gastric cancer" and "lupus" reached only a Side Effect although Hetionet has the Disease).

Usage::

    python scripts/make_lay_names.py [--synonyms data/synonyms] [--nodes NODES_TSV] [--out FILE]

Input: :data:`NAMES` below, written by hand for engram-kit, one row per name with the DOID of the Hetionet
Disease it names and where the name comes from: a MeSH entry term of the descriptor DO cross-references
for that disease (MeSH, U.S. National Library of Medicine: public, free to use with attribution), a
MedlinePlus health-topic page that gives the consumer name (NLM, public), or a historical name with its
reference. No name is taken from a benchmark or a question set.

Checks (the script refuses to write otherwise): each DOID is a Hetionet Disease node; a row citing MeSH cites
a descriptor that ``disease/xrefs-slim.tsv`` (DO's cross-references) maps to that DOID; a name that DO
already gives that disease (``disease/term-names.tsv``, name, exact or related synonym) is dropped and
reported, so the table only holds what DO lacks. Output columns: ``term, target, kind, doid, mesh, source,
licence``, sorted by target then term (deterministic; byte-identical on re-runs). The lexicon reads ``term``,
``target`` and ``kind`` (:func:`engram_kit.extraction.lexicon.lay_synonym_entries`, source ``lay-synonym``).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MESH = "MeSH, U.S. National Library of Medicine (public; NLM terms and conditions)"
MEDLINEPLUS = "MedlinePlus, U.S. National Library of Medicine (public; NLM terms and conditions)"
FACT = "historical name (a naming fact; no licence needed)"

#: (name, DOID of the Hetionet Disease, MeSH descriptor cited or "", source text, licence).
NAMES: tuple[tuple[str, str, str, str, str], ...] = (
    # Parkinson's disease
    ("shaking palsy", "DOID:14330", "", "J. Parkinson, An Essay on the Shaking Palsy (1817): the disease's first "
     "name", FACT),
    ("idiopathic Parkinson's disease", "DOID:14330", "D010300", "MeSH entry term of Parkinson Disease", MESH),
    ("primary parkinsonism", "DOID:14330", "D010300", "MeSH entry term of Parkinson Disease", MESH),
    # Alzheimer's disease
    ("senile dementia", "DOID:10652", "D000544", "MeSH entry term of Alzheimer Disease (Dementia, Senile)", MESH),
    ("senile dementia of the Alzheimer type", "DOID:10652", "D000544", "MeSH entry term of Alzheimer Disease", MESH),
    ("Alzheimer type dementia", "DOID:10652", "D000544", "MeSH entry term of Alzheimer Disease", MESH),
    ("Alzheimer dementia", "DOID:10652", "D000544", "MeSH entry term of Alzheimer Disease", MESH),
    ("primary senile degenerative dementia", "DOID:10652", "D000544", "MeSH entry term of Alzheimer Disease", MESH),
    # epilepsy syndrome
    ("seizure disorder", "DOID:1826", "D004827", "MeSH entry term of Epilepsy", MESH),
    ("falling sickness", "DOID:1826", "", "O. Temkin, The Falling Sickness (1945): the old English name of "
     "epilepsy", FACT),
    # bipolar disorder
    ("manic-depressive illness", "DOID:3312", "", "MedlinePlus \"Bipolar Disorder\" (formerly called "
     "manic-depressive illness)", MEDLINEPLUS),
    ("manic-depressive psychosis", "DOID:3312", "D001714", "MeSH entry term of Bipolar Disorder", MESH),
    ("bipolar affective disorder", "DOID:3312", "", "MedlinePlus \"Bipolar Disorder\"", MEDLINEPLUS),
    # systemic lupus erythematosus
    ("lupus", "DOID:9074", "", "MedlinePlus \"Lupus\" (systemic lupus erythematosus, the most common kind, is "
     "what 'lupus' names in lay use)", MEDLINEPLUS),
    ("Libman-Sacks disease", "DOID:9074", "D008180", "MeSH entry term of Lupus Erythematosus, Systemic", MESH),
    ("lupus erythematosus disseminatus", "DOID:9074", "D008180", "MeSH entry term of Lupus Erythematosus, "
     "Systemic", MESH),
    # dental caries, periodontitis
    ("tooth decay", "DOID:216", "", "MedlinePlus \"Tooth Decay\" (dental caries)", MEDLINEPLUS),
    ("dental cavities", "DOID:216", "", "MedlinePlus \"Tooth Decay\" (cavities)", MEDLINEPLUS),
    ("gum disease", "DOID:824", "", "MedlinePlus \"Gum Disease\" (periodontal disease; periodontitis)", MEDLINEPLUS),
    # nephrolithiasis
    ("renal calculi", "DOID:585", "", "MeSH Kidney Calculi (Renal Calculi), the stones of nephrolithiasis", MESH),
    ("renal stones", "DOID:585", "", "MedlinePlus \"Kidney Stones\"", MEDLINEPLUS),
    # leprosy
    ("Hansen's disease", "DOID:1024", "D007918", "MeSH entry term of Leprosy (Hansen Disease); MedlinePlus "
     "\"Leprosy\"", MESH),
    # hypothyroidism
    ("underactive thyroid", "DOID:1459", "", "MedlinePlus \"Hypothyroidism\" (underactive thyroid)", MEDLINEPLUS),
    # stomach cancer
    ("gastric cancer", "DOID:10534", "D013274", "MeSH entry term of Stomach Neoplasms; MedlinePlus \"Stomach "
     "Cancer\" (gastric cancer)", MESH),
    ("cancer of stomach", "DOID:10534", "D013274", "MeSH entry term of Stomach Neoplasms", MESH),
    # atherosclerosis
    ("hardening of the arteries", "DOID:1936", "", "MedlinePlus \"Atherosclerosis\" (hardening of the "
     "arteries)", MEDLINEPLUS),
    # alcohol and nicotine dependence
    ("alcohol addiction", "DOID:0050741", "D000437", "MeSH entry term of Alcoholism", MESH),
    ("alcohol use disorder", "DOID:0050741", "", "MedlinePlus \"Alcohol Use Disorder (AUD)\"", MEDLINEPLUS),
    ("tobacco use disorder", "DOID:0050742", "D014029", "MeSH Tobacco Use Disorder, the descriptor DO "
     "cross-references", MESH),
    ("tobacco dependence", "DOID:0050742", "D014029", "MeSH entry term of Tobacco Use Disorder", MESH),
    ("nicotine addiction", "DOID:0050742", "D014029", "MeSH entry term of Tobacco Use Disorder", MESH),
    # chronic obstructive pulmonary disease
    ("chronic obstructive lung disease", "DOID:3083", "D029424", "MeSH entry term of Pulmonary Disease, Chronic "
     "Obstructive", MESH),
    ("chronic obstructive airway disease", "DOID:3083", "D029424", "MeSH entry term of Pulmonary Disease, "
     "Chronic Obstructive", MESH),
    # multiple sclerosis
    ("disseminated sclerosis", "DOID:2377", "D009103", "MeSH entry term of Multiple Sclerosis (Sclerosis, "
     "Disseminated)", MESH),
    # autistic disorder
    ("infantile autism", "DOID:12849", "D001321", "MeSH entry term of Autistic Disorder", MESH),
    ("Kanner syndrome", "DOID:12849", "D001321", "MeSH entry term of Autistic Disorder", MESH),
    # atopic dermatitis
    ("infantile eczema", "DOID:3310", "D003876", "MeSH entry term of Dermatitis, Atopic", MESH),
    # celiac disease
    ("gluten enteropathy", "DOID:10608", "D002446", "MeSH entry term of Celiac Disease", MESH),
    ("gluten-sensitive enteropathy", "DOID:10608", "D002446", "MeSH entry term of Celiac Disease", MESH),
    ("nontropical sprue", "DOID:10608", "D002446", "MeSH entry term of Celiac Disease", MESH),
    # Graves' disease
    ("exophthalmic goiter", "DOID:12361", "D006111", "MeSH entry term of Graves Disease", MESH),
    # diabetes mellitus
    ("non-insulin-dependent diabetes mellitus", "DOID:9352", "D003924", "MeSH entry term of Diabetes Mellitus, "
     "Type 2", MESH),
    ("maturity-onset diabetes", "DOID:9352", "D003924", "MeSH entry term of Diabetes Mellitus, Type 2", MESH),
    ("NIDDM", "DOID:9352", "D003924", "MeSH entry term of Diabetes Mellitus, Type 2", MESH),
    ("insulin-dependent diabetes mellitus", "DOID:9744", "D003922", "MeSH entry term of Diabetes Mellitus, "
     "Type 1", MESH),
    ("juvenile-onset diabetes", "DOID:9744", "D003922", "MeSH entry term of Diabetes Mellitus, Type 1", MESH),
    ("IDDM", "DOID:9744", "D003922", "MeSH entry term of Diabetes Mellitus, Type 1", MESH),
    ("brittle diabetes", "DOID:9744", "D003922", "MeSH entry term of Diabetes Mellitus, Type 1", MESH),
    # Gilles de la Tourette syndrome
    ("Tourette's disease", "DOID:11119", "D005879", "MeSH entry term of Tourette Syndrome", MESH),
    ("Tourette disorder", "DOID:11119", "D005879", "MeSH entry term of Tourette Syndrome", MESH),
    # migraine
    ("sick headache", "DOID:6364", "D008881", "MeSH entry term of Migraine Disorders", MESH),
    ("migraine headache", "DOID:6364", "D008881", "MeSH entry term of Migraine Disorders", MESH),
    # Crohn's disease
    ("granulomatous colitis", "DOID:8778", "D003424", "MeSH entry term of Crohn Disease", MESH),
    # uterine fibroid
    ("fibroids", "DOID:13223", "", "MedlinePlus \"Uterine Fibroids\"", MEDLINEPLUS),
    ("uterine fibroids", "DOID:13223", "", "MedlinePlus \"Uterine Fibroids\"", MEDLINEPLUS),
    ("uterine leiomyoma", "DOID:13223", "D007889", "MeSH Leiomyoma (uterine), the descriptor DO "
     "cross-references", MESH),
    # attention deficit hyperactivity disorder
    ("attention deficit disorder", "DOID:1094", "D001289", "MeSH entry term of Attention Deficit Disorder with "
     "Hyperactivity", MESH),
    ("hyperkinetic syndrome", "DOID:1094", "D001289", "MeSH entry term of Attention Deficit Disorder with "
     "Hyperactivity", MESH),
    # acquired immunodeficiency syndrome
    ("acquired immune deficiency syndrome", "DOID:635", "D000163", "MeSH entry term of Acquired "
     "Immunodeficiency Syndrome", MESH),
    # restless legs syndrome
    ("restless legs", "DOID:0050425", "", "MedlinePlus \"Restless Legs\"", MEDLINEPLUS),
    # cleft lip
    ("harelip", "DOID:9296", "D002971", "MeSH entry term of Cleft Lip", MESH),
    # schizophrenia
    ("dementia praecox", "DOID:5419", "D012559", "MeSH entry term of Schizophrenia (E. Kraepelin's name)", MESH),
    # hepatitis B
    ("serum hepatitis", "DOID:2043", "D006509", "MeSH entry term of Hepatitis B", MESH),
    # malaria
    ("paludism", "DOID:12365", "D008288", "MeSH entry term of Malaria", MESH),
)

COLUMNS = ("term", "target", "kind", "doid", "mesh", "source", "licence")


def _open_text(path: Path) -> io.TextIOBase:
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")  # type: ignore[return-value]


def _first(folder: Path, relative: str) -> Path:
    for candidate in (folder / relative, folder / (relative + ".gz")):
        if candidate.is_file():
            return candidate
    raise SystemExit(f"{folder / relative}(.gz) is missing; pass --synonyms or --nodes.")


def _norm(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.lower().replace("'s", "")).split())


def build(synonyms: Path, nodes_path: Path) -> tuple[list[dict[str, str]], list[str]]:
    """The table rows and the report lines (dropped rows). Raises SystemExit when a check fails."""
    with _open_text(nodes_path) as fh:
        diseases = {r["id"].split("::", 1)[1]: r["name"] for r in csv.DictReader(fh, delimiter="\t")
                    if r["kind"] == "Disease"}
    with _open_text(_first(synonyms, "disease/xrefs-slim.tsv")) as fh:
        mesh_of: dict[str, set[str]] = {}
        for r in csv.DictReader(fh, delimiter="\t"):
            if r["resource"] == "MSH":
                mesh_of.setdefault(r["doid_code"], set()).add(r["resource_id"])
    with _open_text(_first(synonyms, "disease/term-names.tsv")) as fh:
        do_names: dict[str, set[str]] = {}
        for r in csv.DictReader(fh, delimiter="\t"):
            if r["type"] in ("name", "exact-synonym", "related-synonym"):
                do_names.setdefault(r["doid"], set()).add(_norm(r["name"]))
    rows, report, errors = [], [], []
    for term, doid, mesh, source, licence in NAMES:
        if doid not in diseases:
            errors.append(f"{term!r}: {doid} is not a Hetionet Disease node")
            continue
        if mesh and mesh not in mesh_of.get(doid, set()):
            errors.append(f"{term!r}: MeSH {mesh} is not a DO cross-reference of {doid} "
                          f"({sorted(mesh_of.get(doid, set()))})")
            continue
        if _norm(term) in do_names.get(doid, set()) or _norm(term) == _norm(diseases[doid]):
            report.append(f"dropped {term!r}: Disease Ontology already names {doid} so")
            continue
        rows.append({"term": term, "target": diseases[doid], "kind": "Disease", "doid": doid, "mesh": mesh,
                     "source": source, "licence": licence})
    if errors:
        raise SystemExit("refusing to write:\n  " + "\n  ".join(errors))
    keys = [(_norm(r["term"]), r["doid"]) for r in rows]
    if len(set(keys)) != len(keys):
        raise SystemExit("a name is listed twice for one disease")
    return sorted(rows, key=lambda r: (r["target"].lower(), r["term"].lower())), report


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0 after writing the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synonyms", type=Path, default=REPO / "data" / "synonyms",
                        help="synonym folder with disease/term-names.tsv(.gz) and disease/xrefs-slim.tsv")
    parser.add_argument("--nodes", type=Path, default=REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz")
    parser.add_argument("--out", type=Path, default=REPO / "data" / "synonyms" / "vocabulary" / "lay-disease-names.tsv")
    args = parser.parse_args(argv)
    rows, report = build(args.synonyms, args.nodes)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    args.out.write_text(buffer.getvalue(), encoding="utf-8")
    for line in report:
        print(line, file=sys.stderr)
    print(f"wrote {len(rows)} names of {len({r['doid'] for r in rows})} diseases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
