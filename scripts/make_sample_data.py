"""Build engram-kit's bundled sample data (``data/hetionet``, ``data/pubmed``) from the shared data folder.

Run from the repository root::

    python scripts/make_sample_data.py --shared /work/shared/data --out data

The output is deterministic: the same input gives byte-identical files (gzip written with mtime 0 and no
file name; capped edge sets keep the edges with the smallest MD5 of ``source|metaedge|target``).
The selection rules are documented in ``data/README.md`` and in the constants below.

Inputs (see the shared folder's README.md): ``hetionet/hetionet-v1.0-nodes.tsv.gz``,
``hetionet/hetionet-v1.0-edges-partial.tsv.gz``, ``pubmed/pubmed_abstracts.jsonl.gz``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import logging
import re
import shutil
import sys
from pathlib import Path

import pandas as pd

from engram_kit.kg.hetionet import load_hetionet

logger = logging.getLogger("make_sample_data")

NODES_NAME = "hetionet-v1.0-nodes.tsv.gz"
SHARED_EDGES_NAME = "hetionet-v1.0-edges-partial.tsv.gz"
SAMPLE_EDGES_NAME = "hetionet-v1.0-edges-sample.tsv.gz"
SHARED_ABSTRACTS_NAME = "pubmed_abstracts.jsonl.gz"
SAMPLE_ABSTRACTS_NAME = "abstracts-sample.jsonl.gz"

#: Diseases the demo questions are about: Alzheimer's, Parkinson's, multiple sclerosis, ALS.
FOCUS_DISEASES: tuple[str, ...] = (
    "Disease::DOID:10652",  # Alzheimer's disease
    "Disease::DOID:14330",  # Parkinson's disease
    "Disease::DOID:2377",  # multiple sclerosis
    "Disease::DOID:332",  # amyotrophic lateral sclerosis
)
#: Compounds named in demo questions, in addition to those treating/palliating a focus disease.
NAMED_COMPOUNDS: tuple[str, ...] = (
    "Compound::DB00331",  # Metformin
    "Compound::DB00843",  # Donepezil
    "Compound::DB01043",  # Memantine
    "Compound::DB01017",  # Minocycline
    "Compound::DB01050",  # Ibuprofen
    "Compound::DB01132",  # Pioglitazone
)
#: Genes named in demo questions or central to neuroinflammation (Entrez ids, symbol in comment).
NAMED_GENES: tuple[str, ...] = tuple(f"Gene::{g}" for g in (
    "23621",  # BACE1
    "54209",  # TREM2
    "7305",  # TYROBP
    "351",  # APP
    "5663",  # PSEN1
    "5664",  # PSEN2
    "348",  # APOE
    "7157",  # TP53
    "4137",  # MAPT
    "6622",  # SNCA
    "120892",  # LRRK2
    "5071",  # PARK2
    "65018",  # PINK1
    "2629",  # GBA
    "6647",  # SOD1
    "23435",  # TARDBP
    "2521",  # FUS
    "203228",  # C9orf72
    "7124",  # TNF
    "3569",  # IL6
    "3553",  # IL1B
    "114548",  # NLRP3
    "945",  # CD33
    "1191",  # CLU
    "1378",  # CR1
    "1524",  # CX3CR1
    "199",  # AIF1
    "2670",  # GFAP
    "968",  # CD68
    "3684",  # ITGAM
    "2932",  # GSK3B
    "3123",  # HLA-DRB1
    "3575",  # IL7R
    "5562",  # PRKAA1 (AMPK, metformin)
))
#: Metaedges kept whole (small; they carry the indications, disease genes and drug targets).
WHOLE_METAEDGES: tuple[str, ...] = ("CtD", "CpD", "DrD", "DlA", "DaG", "PCiC", "CrC", "CbG")
#: Gene-touching metaedges kept where an endpoint is a focus gene; value = cap (None = no cap).
FOCUS_GENE_METAEDGES: dict[str, int | None] = {
    "GiG": None,  # ~24k
    "GpPW": None,  # ~9k
    "GcG": None,  # ~4k
    "Gr>G": 20_000,  # ~42k touching focus genes: capped
}
#: Compound -> Gene expression edges kept where the gene is a focus gene or the compound a focus compound.
COMPOUND_GENE_METAEDGES: tuple[str, ...] = ("CuG", "CdG")
#: Disease -> Gene expression edges kept for the focus diseases.
DISEASE_GENE_METAEDGES: tuple[str, ...] = ("DuG", "DdG")

#: Abstract selection: (topic, regex over title + abstract, cap or None), applied in order.
ABSTRACT_TOPICS: tuple[tuple[str, str, int | None], ...] = (
    ("neurodegeneration", r"neurodegenerat|neuroinflamm|alzheimer|parkinson|microglia|\btrem2\b|\bbace1?\b|"
                          r"amyloid|dementia|amyotrophic lateral sclerosis|huntington", None),
    ("metformin", r"metformin", None),
    ("multiple sclerosis", r"multiple sclerosis", None),
    ("TP53", r"\bp53\b|\btp53\b", 40),
    ("inflammatory cytokines", r"\btnf\b|tumou?r necrosis factor|\bil-6\b|interleukin-6", 30),
)
#: Distractor abstracts (none of the topics above), chosen by smallest MD5 of the PMID.
N_DISTRACTORS = 60


def _md5_key(values: pd.Series) -> pd.Series:
    return values.map(lambda text: hashlib.md5(text.encode("utf-8")).hexdigest())


def _cap(edges: pd.DataFrame, cap: int | None, priority: pd.Series) -> pd.DataFrame:
    """Keep at most ``cap`` edges: priority rows first, then by MD5 of ``source|metaedge|target``."""
    if cap is None or len(edges) <= cap:
        return edges
    key = _md5_key(edges["source"] + "|" + edges["metaedge"] + "|" + edges["target"])
    order = pd.DataFrame({"p": ~priority.to_numpy(), "k": key.to_numpy()}, index=edges.index)
    return edges.loc[order.sort_values(["p", "k"]).index[:cap]]


def select_edges(edges: pd.DataFrame) -> pd.DataFrame:
    """Apply the selection rules to the full edge table (columns source, metaedge, target, properties).

    Returns the selected rows in the input's order.
    """
    me = edges["metaedge"]
    indications = edges[me.isin(["CtD", "CpD"]) & edges["target"].isin(FOCUS_DISEASES)]
    compounds = set(indications["source"]) | set(NAMED_COMPOUNDS)
    disease_genes = set(edges.loc[(me == "DaG") & edges["source"].isin(FOCUS_DISEASES), "target"])
    target_genes = set(edges.loc[(me == "CbG") & edges["source"].isin(compounds), "target"])
    genes = disease_genes | target_genes | set(NAMED_GENES)
    logger.info("Focus set: %d diseases, %d compounds, %d genes (%d disease genes, %d drug targets).",
                len(FOCUS_DISEASES), len(compounds), len(genes), len(disease_genes), len(target_genes))

    parts = [edges[me.isin(WHOLE_METAEDGES)]]
    for abbreviation, cap in FOCUS_GENE_METAEDGES.items():
        block = edges[me == abbreviation]
        src_in, tgt_in = block["source"].isin(genes), block["target"].isin(genes)
        parts.append(_cap(block[src_in | tgt_in], cap, (src_in & tgt_in)[src_in | tgt_in]))
    block = edges[me.isin(COMPOUND_GENE_METAEDGES)]
    parts.append(block[block["target"].isin(genes) | block["source"].isin(compounds)])
    block = edges[me.isin(DISEASE_GENE_METAEDGES)]
    parts.append(block[block["source"].isin(FOCUS_DISEASES)])
    parts.append(edges[(me == "CcSE") & edges["source"].isin(compounds)])
    anatomies = set(edges.loc[(me == "DlA") & edges["source"].isin(FOCUS_DISEASES), "target"])
    parts.append(edges[(me == "AeG") & edges["source"].isin(anatomies) & edges["target"].isin(genes)])
    selected = pd.concat(parts)
    return edges.loc[sorted(set(selected.index))]


def _write_gzip(path: Path, payload: bytes) -> None:
    """Write ``payload`` gzip-compressed, reproducibly (mtime 0, no embedded file name)."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                compresslevel=9) as handle:
        handle.write(payload)


def make_edges(shared: Path, out: Path) -> pd.DataFrame:
    """Select the sample edges from the shared partial edge table and write them (4-column TSV.gz)."""
    raw = pd.read_csv(shared / "hetionet" / SHARED_EDGES_NAME, sep="\t", dtype=str, na_filter=False,
                      quoting=3)
    sample = select_edges(raw)
    buffer = io.StringIO()
    sample.to_csv(buffer, sep="\t", index=False, quoting=3, lineterminator="\n")
    _write_gzip(out / "hetionet" / SAMPLE_EDGES_NAME, buffer.getvalue().encode("utf-8"))
    return sample


def _topic_of(text: str) -> str | None:
    for topic, pattern, _ in ABSTRACT_TOPICS:
        if re.search(pattern, text, flags=re.IGNORECASE):
            return topic
    return None


def make_abstracts(shared: Path, out: Path) -> dict[str, int]:
    """Select the sample abstracts (original JSON lines, original order) and write them gzip-compressed."""
    with gzip.open(shared / "pubmed" / SHARED_ABSTRACTS_NAME, "rt", encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle if line.strip()]
    records = [json.loads(line) for line in lines]
    topics = [_topic_of(f"{r.get('title') or ''} {r.get('abstract') or ''}") for r in records]
    caps = {topic: cap for topic, _, cap in ABSTRACT_TOPICS}
    keep: set[int] = set()
    counts: dict[str, int] = {}
    for topic, _, _ in ABSTRACT_TOPICS:
        members = sorted((i for i, t in enumerate(topics) if t == topic),
                         key=lambda i: hashlib.md5(records[i]["pmid"].encode()).hexdigest())
        chosen = members if caps[topic] is None else members[: caps[topic]]
        keep.update(chosen)
        counts[topic] = len(chosen)
    others = sorted((i for i, t in enumerate(topics) if t is None),
                    key=lambda i: hashlib.md5(records[i]["pmid"].encode()).hexdigest())
    keep.update(others[:N_DISTRACTORS])
    counts["distractors"] = min(N_DISTRACTORS, len(others))
    payload = "".join(lines[i] + "\n" for i in sorted(keep)).encode("utf-8")
    _write_gzip(out / "pubmed" / SAMPLE_ABSTRACTS_NAME, payload)
    counts["total"] = len(keep)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path("/work/shared/data"),
                        help="shared data folder (default /work/shared/data)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "data",
                        help="output data folder (default: the repository's data/)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    (args.out / "hetionet").mkdir(parents=True, exist_ok=True)
    (args.out / "pubmed").mkdir(parents=True, exist_ok=True)

    shutil.copyfile(args.shared / "hetionet" / NODES_NAME, args.out / "hetionet" / NODES_NAME)
    sample = make_edges(args.shared, args.out)
    counts = make_abstracts(args.shared, args.out)

    # Validate the result with the product's own loader: every endpoint must be in the node table.
    kg = load_hetionet(args.out / "hetionet" / NODES_NAME, args.out / "hetionet" / SAMPLE_EDGES_NAME,
                       progress=False)
    print(f"edges: {len(sample)} selected, {kg.n_edges} loaded; nodes: {kg.n_nodes}")
    print(kg.report.summary().query("loaded > 0")[["metaedge", "loaded", "official"]].to_string(index=False))
    print(f"abstracts: {counts}")
    for path in sorted(p for p in args.out.rglob("*") if p.is_file()):
        print(f"{path.relative_to(args.out)}\t{path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
