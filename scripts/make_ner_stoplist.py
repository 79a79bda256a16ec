"""Learn the gazetteer's text stoplist from the BC5CDR **training** split only.

Usage::

    python scripts/make_ner_stoplist.py [--corpus ../shared/data/corpora/BC5CDR/CDR_TrainingSet.trainonly.PubTator.txt]

Runs the default offline pipeline (gazetteer + abbreviations, typed as in ``benchmarks/quality/ner.py``)
with an empty stoplist over the 500 training abstracts and writes ``data/synonyms/vocabulary/ner-stoplist.tsv``:
every gazetteer surface (normalised, scored as Chemical or Disease, not a gene) predicted in at least
:data:`MIN_DOCUMENTS` abstracts whose predictions are **not** a gold mention (same span and type) in at least
:data:`MIN_SPURIOUS_SHARE` of the cases, i.e. strict precision <= 0.2 ("surgery", "role", "syndrome": words that name a SIDER side effect, a MeSH descriptor or a
DO term but are not entity mentions in the BC5CDR sense). Only the surfaces and counts of *our own
predictions* are kept; no gold annotation enters the lexicon. The development and test splits are never
read, so scores on them stay honest. Deterministic.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.quality.ner import CONFIGS, GOLD_TYPE, build_resources, predict  # noqa: E402
from benchmarks.quality.pubtator import read_pubtator  # noqa: E402
from engram_kit.extraction import Gazetteer  # noqa: E402
from engram_kit.extraction.lexicon import SYNONYM_FILES  # noqa: E402
from engram_kit.extraction.normalize import normalize_name  # noqa: E402

log = logging.getLogger("make_ner_stoplist")
TRAINING = ROOT.parent / "shared" / "data" / "corpora" / "BC5CDR" / "CDR_TrainingSet.trainonly.PubTator.txt"
#: Least number of training abstracts a surface is predicted in to judge it (one abstract repeating a
#: term with an unusual gold span is not evidence about the term).
MIN_DOCUMENTS = 3
#: Least share of a surface's predictions that are not a gold mention (same span and type), in [0, 1].
MIN_SPURIOUS_SHARE = 0.8


def learn_stoplist(corpus: Path) -> pd.DataFrame:
    """Stoplist rows (``term``, ``type``, ``predicted``, ``documents``, ``spurious`` = predictions that are no gold mention) learned from ``corpus``; see the module docstring."""
    resources = build_resources()
    resources.lexicon.text_stoplist = frozenset()
    resources.gazetteer = Gazetteer(resources.lexicon)
    documents = read_pubtator(corpus)
    config = CONFIGS[1]  # gazetteer + abbreviations, no NER: the pipeline the committed stoplist was learned with
    predicted: Counter[tuple[str, str]] = Counter()
    spurious: Counter[tuple[str, str]] = Counter()
    documents_with: Counter[tuple[str, str]] = Counter()
    for document, mentions in zip(documents, predict(resources, config, documents)):
        seen: set[tuple[str, str]] = set()
        gold = {(m.start, m.end, GOLD_TYPE[m.type]) for m in document.mentions}
        for p in mentions:
            if p.label is None or p.method != "gazetteer":
                continue
            key = (normalize_name(p.text), p.label)
            predicted[key] += 1
            seen.add(key)
            spurious[key] += (p.start, p.end, p.label) not in gold
        documents_with.update(seen)
    rows = [{"term": term, "type": label, "predicted": n, "documents": documents_with[(term, label)],
             "spurious": spurious[(term, label)]}
            for (term, label), n in predicted.items()
            if documents_with[(term, label)] >= MIN_DOCUMENTS and spurious[(term, label)] >= MIN_SPURIOUS_SHARE * n]
    frame = pd.DataFrame(rows, columns=["term", "type", "predicted", "documents", "spurious"])
    return frame.sort_values(["predicted", "term"], ascending=[False, True]).reset_index(drop=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=TRAINING, help="BC5CDR training split (PubTator)")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "synonyms" / SYNONYM_FILES["text_stoplist"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    frame = learn_stoplist(args.corpus)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, sep="\t", index=False)
    log.info("%d stoplist terms -> %s", len(frame), args.out)


if __name__ == "__main__":
    main()
