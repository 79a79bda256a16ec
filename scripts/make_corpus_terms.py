"""Build the annotated-term list of the ``bc5cdr-terms`` tagger from the BC5CDR **training** split only.

Usage::

    python scripts/make_corpus_terms.py [--corpus ../shared/data/corpora/BC5CDR/CDR_TrainingSet.trainonly.PubTator.txt]

Writes ``data/synonyms/vocabulary/bc5cdr-train-terms.tsv.gz`` (columns ``term, label, annotated,
occurrences``): every chemical or disease mention text annotated in the 500 training abstracts (case kept)
that

* is at least :data:`MIN_LENGTH` characters long and not a number,
* is annotated in at least :data:`MIN_ANNOTATED_SHARE` of its whole-word occurrences in those abstracts (the
  "annotation ratio" filter of dictionary NER, e.g. Kang et al., 2013; words annotated only now and then,
  such as "toxicity" in other senses, are dropped),

with the label it was annotated with most often. Gold annotations of the training split are the source (the
list is a name dictionary made by the BC5CDR curators, MeSH-normalised); the development and test splits are
never read, so scores on them stay honest. The thresholds were looked at on the development split only
(strict F1 of the default + terms: 0.815-0.817 for shares 0.3-0.7 and lengths 2-3). Deterministic.

Source: BioCreative V CDR corpus (Li et al., "BioCreative V CDR task corpus: a resource for chemical disease
relation extraction", Database 2016, baw068), NCBI public-domain notice.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.quality.ner import GOLD_TYPE  # noqa: E402
from benchmarks.quality.pubtator import read_pubtator  # noqa: E402
from engram_kit.extraction.ner import CORPUS_TERMS_FILE, TermTagger  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "corpora" / "BC5CDR" / "CDR_TrainingSet.trainonly.PubTator.txt"
#: Shortest term kept, in characters.
MIN_LENGTH = 3
#: Least share of a term's whole-word occurrences in the training abstracts that are annotated.
MIN_ANNOTATED_SHARE = 0.5


def main(argv: list[str] | None = None) -> int:
    """Build the term list; prints how many terms were kept."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--out", type=Path, default=CORPUS_TERMS_FILE)
    args = parser.parse_args(argv)
    documents = read_pubtator(args.corpus)
    labels: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in documents:
        for m in doc.mentions:
            label = GOLD_TYPE.get(m.type)
            if label:
                labels[m.text][label] += 1
    tagger = TermTagger({term: "x" for term in labels})
    occurrences: Counter[str] = Counter()
    for doc in documents:
        for start, end, _ in tagger.spans(doc.text):
            occurrences[doc.text[start:end]] += 1
    rows = []
    for term, counts in sorted(labels.items()):
        annotated = sum(counts.values())
        seen = max(occurrences[term], annotated)
        if len(term) < MIN_LENGTH or term.replace(".", "").replace(",", "").isdigit():
            continue
        if annotated / seen < MIN_ANNOTATED_SHARE:
            continue
        rows.append((term, counts.most_common(1)[0][0], annotated, seen))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8") as handle:
        handle.write("term\tlabel\tannotated\toccurrences\n")
        for row in rows:
            handle.write("\t".join(map(str, row)) + "\n")
    print(f"{len(rows)} terms of {len(labels)} annotated texts -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
