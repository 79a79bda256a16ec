"""Study ``calibration``: is the linker's confidence a probability of being right? (issue 14, item 2)

Data: BC5CDR (chemicals and diseases with gold MeSH ids) and NCBI-disease. Every pipeline mention
(:class:`EntityExtractor`, the product's extraction) that overlaps a gold mention whose MeSH id maps to
Hetionet (the bridge of :mod:`benchmarks.quality.ner`: DO xrefs, Symptom MeSH ids, MeSH-name bridge) is
linked twice:

* **before**: ``EntityResolver.resolve(mention)`` top candidate (the resolver alone, as ingestion did
  before issue 14);
* **after**: ``EntityResolver.link(mention, min_confidence=0)`` top candidate (sentence context, zones,
  fuzzy guards and kind priors of :class:`~engram_kit.resolution.policy.LinkPolicy`).

A link is right when its node is among the gold id's Hetionet nodes. The reliability diagram bins the
confidence in tenths and plots the share of right links per bin against the bin's mean confidence (a
calibrated linker lies on the diagonal); ECE = sum over bins of (bin share) * |accuracy - confidence|.
The threshold reported is the lowest bin edge from which every bin with >= 20 links reaches the
target precision :data:`TARGET_PRECISION` on the *dev* split; it is what
``Settings.min_link_confidence`` should be compared with. Develop on ``--split dev``; quote ``test``.

Recalibration (test runs only): an isotonic map (scikit-learn ``IsotonicRegression``, monotone, so it keeps
the ranking) is fitted on the *dev* split's "after" rows and applied to the test rows; its ECE and the
raw confidence at which the mapped confidence first reaches :data:`TARGET_PRECISION` are reported.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.quality.common import StudyOptions, StudyResult, markdown_table, output_name, write_report
from benchmarks.quality.ner import GOLD_TYPE, SPLITS, MeshBridge, build_mesh_bridge, build_resources
from benchmarks.quality.pubtator import PubTatorDocument, read_pubtator

log = logging.getLogger(__name__)

TARGET_PRECISION = 0.92
BINS = np.linspace(0.0, 1.0, 11)
_STUDY_NAME = "calibration"


def collect(documents: Sequence[PubTatorDocument], bridge: MeshBridge, extractor: Any, resolver: Any) -> pd.DataFrame:
    """One row per (pipeline mention overlapping a mappable gold mention): confidences and correctness.

    Columns: ``text, gold_type, before_conf, before_right, before_method, after_conf, after_right,
    after_method`` (``after_conf`` 0 and ``after_right`` False when ``link`` returns nothing).
    """
    rows = []
    for doc, mentions in zip(documents, extractor.extract_many([d.text for d in documents])):
        for gold in doc.mentions:
            gtype = GOLD_TYPE[gold.type]
            targets: set[str] = set()
            for mesh_id in gold.ids:
                for ns in bridge.map(mesh_id, gtype).values():
                    targets |= ns
            if not targets:
                continue
            for m in mentions:
                if not (m.start < gold.end and gold.start < m.end):
                    continue
                before = resolver.resolve(m)
                after = resolver.link(m, min_confidence=0.0)
                rows.append({
                    "text": m.text, "gold_type": gtype,
                    "before_conf": before[0].confidence if before else 0.0,
                    "before_right": bool(before) and before[0].node_id in targets,
                    "before_method": before[0].method if before else "none",
                    "after_conf": after[0].confidence if after else 0.0,
                    "after_right": bool(after) and after[0].node_id in targets,
                    "after_method": after[0].method if after else "none",
                })
                break
    return pd.DataFrame(rows)


def reliability(conf: np.ndarray, right: np.ndarray) -> pd.DataFrame:
    """Per confidence bin (tenths): links, mean confidence, accuracy; only linked rows (conf > 0)."""
    keep = conf > 0
    conf, right = conf[keep], right[keep]
    idx = np.clip(np.digitize(conf, BINS[1:-1]), 0, len(BINS) - 2)
    out = []
    for b in range(len(BINS) - 1):
        sel = idx == b
        if sel.any():
            out.append({"bin": f"[{BINS[b]:.1f}, {BINS[b + 1]:.1f})", "low": BINS[b], "links": int(sel.sum()),
                        "mean confidence": float(conf[sel].mean()), "accuracy": float(right[sel].mean())})
    return pd.DataFrame(out)


def ece(table: pd.DataFrame) -> float:
    """Expected calibration error of a :func:`reliability` table."""
    total = table["links"].sum()
    return float((table["links"] / total * (table["accuracy"] - table["mean confidence"]).abs()).sum()) if total else 0.0


def threshold(table: pd.DataFrame, target: float = TARGET_PRECISION, min_links: int = 20) -> float:
    """Lowest bin edge from which every bin with >= ``min_links`` links has accuracy >= ``target``."""
    edge = 1.0
    for row in table.sort_values("low", ascending=False).itertuples(index=False):
        if row.links >= min_links and row.accuracy < target:
            break
        edge = row.low
    return float(edge)


def plot(path: Path, tables: dict[str, pd.DataFrame]) -> Path:
    """Reliability diagram: accuracy vs mean confidence per bin, one line per linker, marker size ~ links."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
    for label, table in tables.items():
        if table.empty:
            continue
        sizes = 10 + 200 * table["links"] / table["links"].max()
        ax.plot(table["mean confidence"], table["accuracy"], marker="o", label=label)
        ax.scatter(table["mean confidence"], table["accuracy"], s=sizes, alpha=0.3)
    ax.axhline(TARGET_PRECISION, color="red", linewidth=0.8, linestyle=":", label=f"target {TARGET_PRECISION}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("confidence (bin mean)")
    ax.set_ylabel("share of right links")
    ax.set_title("Reliability of linking confidence (BC5CDR + NCBI-disease)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run(options: StudyOptions, split: str = "test") -> StudyResult:
    """Collect, tabulate, plot; writes ``calibration[_<split>][_quick].md`` and ``..._reliability.png``."""
    from engram_kit.extraction import EntityExtractor

    started = time.perf_counter()
    resources = build_resources()
    bridge = build_mesh_bridge(resources, options.shared_data)
    extractor = EntityExtractor(resources.lexicon, gazetteer=resources.gazetteer)
    frames = []
    for corpus, relative in SPLITS[split].items():
        path = options.shared_data / relative
        if not path.is_file():
            log.warning("%s missing; skipped", path)
            continue
        docs = read_pubtator(path, limit=40 if options.quick else None)
        frame = collect(docs, bridge, extractor, resources.resolver)
        frame["corpus"] = corpus
        frames.append(frame)
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    cache = options.results_dir.parent / ".cache"
    if cache.is_dir():  # the rows, for reading errors (gitignored)
        data.to_csv(cache / f"{output_name(_STUDY_NAME + '_' + split, options.quick)}.tsv", sep="\t", index=False)
    tables = {name: reliability(data[f"{key}_conf"].to_numpy(), data[f"{key}_right"].to_numpy())
              for name, key in (("before (resolve)", "before"), ("after (link)", "after"))}
    name = _STUDY_NAME if split == "test" else f"{_STUDY_NAME}_{split}"
    figure = plot(options.results_dir / f"{output_name(name, options.quick)}_reliability.png", tables)
    summary_rows = []
    for label, key in (("before (resolve)", "before"), ("after (link)", "after")):
        linked = data[f"{key}_conf"] > 0
        table = tables[label]
        summary_rows.append({
            "linker": label, "mentions": len(data), "linked": int(linked.sum()),
            "precision (top-1 right among linked)": float(data.loc[linked, f"{key}_right"].mean()) if linked.any() else 0.0,
            "accuracy (right among all)": float(data[f"{key}_right"].mean()) if len(data) else 0.0,
            "ECE": ece(table), f"threshold for {TARGET_PRECISION}": threshold(table)})
    if split == "test" and not options.quick:
        summary_rows += _isotonic_rows(options, bridge, extractor, resources.resolver, data)
    by_method = (data.groupby("after_method")["after_right"].agg(["size", "mean"]).reset_index()
                 .rename(columns={"after_method": "method (after)", "size": "links", "mean": "accuracy"}))
    body = [f"- Data: {', '.join(sorted(set(data.get('corpus', []))))} ({split} split"
            f"{'; first 40 documents' if options.quick else ''}); {len(data)} pipeline mentions overlapping a "
            "gold mention whose MeSH id maps to Hetionet.",
            f"- Figure: `{figure.name}`.", "", "## Summary", "", markdown_table(summary_rows), ""]
    for label, table in tables.items():
        body += [f"## Reliability: {label}", "", markdown_table(table.drop(columns=["low"]).to_dict("records")), ""]
    body += ["## Accuracy by method (after)", "", markdown_table(by_method.to_dict("records")), ""]
    report = write_report(options, name, f"Linking confidence calibration ({split})", body)
    summary = {f"{r['linker'].split()[0]}_precision": r["precision (top-1 right among linked)"] for r in summary_rows}
    summary |= {f"{r['linker'].split()[0]}{'_isotonic' if 'isotonic' in r['linker'] else ''}_ece": r["ECE"] for r in summary_rows}
    return StudyResult(name, report, [figure], summary, time.perf_counter() - started)


def _isotonic_rows(options: StudyOptions, bridge: MeshBridge, extractor: Any, resolver: Any,
                   test: pd.DataFrame) -> list[dict[str, Any]]:
    """Summary rows of the "after" confidence mapped by an isotonic fit on the dev split (module docstring)."""
    from sklearn.isotonic import IsotonicRegression

    frames = []
    for relative in SPLITS["dev"].values():
        path = options.shared_data / relative
        if path.is_file():
            frames.append(collect(read_pubtator(path), bridge, extractor, resolver))
    if not frames:
        return []
    dev = pd.concat(frames, ignore_index=True)
    dev = dev[dev["after_conf"] > 0]
    fit = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
        dev["after_conf"].to_numpy(), dev["after_right"].to_numpy().astype(float))
    linked = test["after_conf"] > 0
    mapped = np.where(linked, fit.predict(test["after_conf"].to_numpy()), 0.0)
    table = reliability(mapped, test["after_right"].to_numpy())
    grid = np.linspace(0.0, 1.0, 101)
    reach = grid[fit.predict(grid) >= TARGET_PRECISION]
    return [{"linker": "after (link), isotonic map fitted on dev", "mentions": len(test), "linked": int(linked.sum()),
             "precision (top-1 right among linked)": float(test.loc[linked, "after_right"].mean()),
             "accuracy (right among all)": float(test["after_right"].mean()), "ECE": ece(table),
             f"threshold for {TARGET_PRECISION}": float(reach[0]) if len(reach) else 1.0}]


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.quality.calibration [--split dev|test] [--quick]``."""
    import argparse

    from benchmarks.quality.common import default_shared_data

    parser = argparse.ArgumentParser(prog="python -m benchmarks.quality.calibration", description=main.__doc__)
    parser.add_argument("--split", choices=sorted(SPLITS), default="test")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    result = run(StudyOptions(quick=args.quick, shared_data=default_shared_data()), args.split)
    print(result.report)
    for key, value in result.summary.items():
        print(f"{key} = {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
