"""Which sentence of an abstract does the extractive composer cite? Measured on PubMedQA's labelled abstracts.

PubMedQA (Jin et al., EMNLP 2019; ``../shared/data/qa/pubmedqa/ori_pqal.json``, 1,000 expert-labelled
questions, MIT licence) gives each question's abstract as its structured parts with their labels
(BACKGROUND, METHODS, RESULTS, ...) and withholds the conclusion as the long answer. Each abstract is joined
into one unlabelled passage, as most PubMed abstracts reach the product, and the composer
(:class:`engram_kit.answering.ExtractiveComposer`, offline, the retrieval embedder) picks its sentence for
the question. The table counts which labelled part the cited sentence came from: a researcher wants a
finding (RESULTS), not how the study was run (METHODS, DESIGN, SETTING, PATIENTS, ...). A second column
gives the token-overlap F1 of the cited sentence with the withheld conclusion.

A third table classifies every sentence of the labelled parts with the composer's cues: the share of each
part's sentences that :func:`~engram_kit.answering.extractive.is_methods_sentence` calls a methods sentence and
that :func:`~engram_kit.answering.extractive.is_finding_sentence` calls a finding (a good cue is high on its own part
and low on the others).

Splits: the 1,000 questions sorted by PMID; ``dev`` is the first 400 (the cues and weights were tuned on these
only), ``heldout`` the other 600 (checked once a change was settled, never tuned on), ``all`` both.

Issue 29 (``--lines``): every quoted line of the product composer when the question's own abstract comes
with four other abstracts (the nearest by embedding), the labelled part of each line and whether it comes from
the question's own abstract (:func:`lines_study`).

Usage: ``python benchmarks/answer_sentences.py [--split dev|heldout|all] [--limit N] [--shared-data DIR]
[--out FILE] [--lines]``; prints the Markdown report (and writes it to FILE when given; the results file
``benchmarks/results/answer_sentences.md`` keeps dated sections, newest first). Skips (exit 0 with a message)
without the data.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from collections.abc import Sequence
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: PubMedQA part labels grouped by what they report (labels not listed count as "other").
GROUPS: dict[str, str] = {
    "RESULTS": "results", "FINDINGS": "results", "MEASUREMENTS AND RESULTS": "results", "MAIN RESULTS": "results",
    "BACKGROUND": "background", "INTRODUCTION": "background", "CONTEXT": "background", "OBJECTIVE": "background",
    "OBJECTIVES": "background", "PURPOSE": "background", "AIM": "background", "AIMS": "background",
    "METHODS": "methods", "METHOD": "methods", "MATERIALS AND METHODS": "methods", "DESIGN": "methods",
    "SETTING": "methods", "STUDY DESIGN": "methods", "PATIENTS": "methods", "PATIENTS AND METHODS": "methods",
    "MAIN OUTCOME MEASURES": "methods", "PARTICIPANTS": "methods", "INTERVENTIONS": "methods",
    "SUBJECTS": "methods", "DESIGN, SETTING, AND PARTICIPANTS": "methods", "METHODOLOGY": "methods",
    "INTERVENTION": "methods", "MEASUREMENTS": "methods", "SUBJECTS AND METHODS": "methods",
}


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def token_f1(a: str, b: str) -> float:
    """Token-overlap F1 (SQuAD style) of two texts, in [0, 1]."""
    ta, tb = Counter(_tokens(a)), Counter(_tokens(b))
    common = sum((ta & tb).values())
    if not common:
        return 0.0
    p, r = common / sum(ta.values()), common / sum(tb.values())
    return 2 * p * r / (p + r)


class _Memo:
    """The default embedder with a per-text cache, so the variants share one encoding of each sentence."""

    def __init__(self) -> None:
        from engram_kit.embeddings import default_embedder

        self.inner = default_embedder()
        self.cache: dict[str, Any] = {}

    def dimension(self) -> int:
        return self.inner.dimension()

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: bool = False) -> Any:
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            for text, vector in zip(missing, self.inner.encode(missing, batch_size=batch_size)):
                self.cache[text] = vector
        return np.stack([self.cache[t] for t in texts])


#: Questions (sorted by PMID) in the development split; the rest are held out.
DEV_SIZE = 400


def split_items(data: dict[str, Any], split: str) -> list[tuple[str, Any]]:
    """The ``(pmid, item)`` pairs of a split (``dev``: first :data:`DEV_SIZE` by PMID, ``heldout``: the rest)."""
    items = sorted(data.items())
    if split == "dev":
        return items[:DEV_SIZE]
    if split == "heldout":
        return items[DEV_SIZE:]
    if split == "all":
        return items
    raise ValueError(f"unknown split {split!r}: use dev, heldout or all")


def run(shared: Path, limit: int | None, split: str = "dev") -> str:
    """Run the study on ``split`` and return the Markdown report (see module docstring)."""
    import engram_kit.answering.extractive as extractive

    data = json.loads((shared / "qa" / "pubmedqa" / "ori_pqal.json").read_text())
    items = split_items(data, split)
    items = items[:limit] if limit else items
    embedder = _Memo()
    penalty, bonus = extractive.METHODS_PENALTY, extractive.FINDING_BONUS
    variants = ((f"product (methods penalty {penalty:.2f}, finding bonus {bonus:.2f})", penalty, bonus),
                ("cosine + entity bonuses only (no cue weights)", 0.0, 0.0),
                (f"methods penalty {penalty:.2f} only", penalty, 0.0),
                (f"finding bonus {bonus:.2f} only", 0.0, bonus),
                (f"finding bonus {2 * bonus:.2f}", penalty, 2 * bonus),
                ("methods penalty 1.00 (a filter)", 1.0, bonus))
    rows = []
    started = time.perf_counter()
    for name, p_value, b_value in variants:
        extractive.METHODS_PENALTY, extractive.FINDING_BONUS = p_value, b_value
        try:
            rows.append((name, *_picks(items, embedder)))
        finally:
            extractive.METHODS_PENALTY, extractive.FINDING_BONUS = penalty, bonus
    elapsed = time.perf_counter() - started
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=10", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "engram_kit"],
                           capture_output=True, text=True).stdout.strip()
    groups = ("results", "background", "methods", "other", "spans parts", "no claim")
    lines = [
        "# Extractive answers: which part of an abstract the cited sentence comes from (PubMedQA)",
        "",
        f"- Commit: `{commit}`{' (engram_kit has uncommitted changes)' if dirty else ''}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()[0]:.1f}",
        f"- Split `{split}`: {len(items)} PubMedQA labelled questions, one unlabelled abstract each; "
        f"{elapsed:.0f} s. Method: "
        "`benchmarks/answer_sentences.py` docstring. 'background' includes OBJECTIVE/PURPOSE/AIM parts.",
        "",
        "| composer | " + " | ".join(groups) + " | token F1 with the conclusion |",
        "|---|" + "---:|" * (len(groups) + 1),
    ]
    for name, picks, f1 in rows:
        total = max(sum(picks.values()), 1)
        lines.append(f"| {name} | " + " | ".join(f"{picks[g] / total:.3f}" for g in groups) + f" | {f1:.3f} |")
    counts = _cue_rates(items)
    lines += ["", "Sentences of each labelled part that the cues flag (share of the part's sentences):", "",
              "| part | sentences | methods sentence | finding cue |", "|---|---:|---:|---:|"]
    for group in ("results", "background", "methods", "other"):
        n, methods, finding = counts[group]
        lines.append(f"| {group} | {n} | {methods / max(n, 1):.3f} | {finding / max(n, 1):.3f} |")
    return "\n".join(lines) + "\n"


def _cue_rates(items: list[tuple[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Per part group: (sentences, methods sentences, sentences with a finding cue)."""
    from engram_kit.answering.extractive import answer_sentences, is_finding_sentence, is_methods_sentence

    counts: dict[str, list[int]] = {g: [0, 0, 0] for g in ("results", "background", "methods", "other")}
    for _, item in items:
        for part, label in zip(item["CONTEXTS"], item["LABELS"]):
            row = counts[GROUPS.get(str(label).upper(), "other")]
            for sentence in answer_sentences(" ".join(str(part).split())):
                row[0] += 1
                row[1] += is_methods_sentence(sentence)
                row[2] += is_finding_sentence(sentence)
    return {g: (n, m, f) for g, (n, m, f) in counts.items()}


def _picks(items: list[tuple[str, Any]], embedder: _Memo) -> tuple[Counter[str], float]:
    """Where each question's cited sentence comes from, and the mean token F1 with the conclusion."""
    import pandas as pd

    from engram_kit.answering import ExtractiveComposer
    from engram_kit.retrieval.results import PassageHit, RetrievalResult

    composer = ExtractiveComposer(embedder, max_passages=1, max_edges=0)
    picks: Counter[str] = Counter()
    f1s: list[float] = []
    for pmid, item in items:
        parts = [" ".join(str(c).split()) for c in item["CONTEXTS"]]
        text = " ".join(parts)
        hit = PassageHit(1, f"p{pmid}", f"PMID:{pmid}", "pubmed", pmid, "t", None, "", None, None, text,
                         1.0, 1.0, 1.0, 1.0, 1.0)
        answer = composer.compose(RetrievalResult(item["QUESTION"], "all", 0.4, 0.5, [], [hit], pd.DataFrame(),
                                                  pd.DataFrame(), 0.0, 0))
        if not answer.claims:
            picks["no claim"] += 1
            continue
        sentence = answer.claims[0].text
        where = next((label for part, label in zip(parts, item["LABELS"]) if sentence in part), None)
        picks[GROUPS.get(str(where).upper(), "other") if where else "spans parts"] += 1
        f1s.append(token_f1(sentence, item["LONG_ANSWER"]))
    return picks, sum(f1s) / max(len(f1s), 1)


#: Other abstracts given with the question's own in the ``--lines`` study (the nearest by question cosine).
DISTRACTORS = 4


def lines_study(shared: Path, limit: int | None, split: str = "dev") -> str:
    """The ``--lines`` study (issue 29): every quoted line of the product composer when the question's own
    abstract comes with :data:`DISTRACTORS` other abstracts of the split (those whose embedding is nearest the
    question's), all five in order of cosine to the question, so the own abstract is not always first. Reports the labelled part of each quoted sentence, the share quoted from the question's own
    abstract, lines per question, and questions with no line (the composer's note says why). The hits carry no
    linked entities (PubMedQA has none), so the support rule reads the question's own words."""
    import numpy as np
    import pandas as pd

    from engram_kit.answering import ExtractiveComposer
    from engram_kit.retrieval.results import PassageHit, RetrievalResult

    data = json.loads((shared / "qa" / "pubmedqa" / "ori_pqal.json").read_text())
    items = split_items(data, split)
    pool = items
    items = items[:limit] if limit else items
    embedder = _Memo()
    texts = {pmid: " ".join(" ".join(str(c).split()) for c in item["CONTEXTS"]) for pmid, item in pool}
    pmids = [pmid for pmid, _ in pool]
    doc_vectors = embedder.encode([texts[p] for p in pmids])
    composer = ExtractiveComposer(embedder, max_edges=0)
    kinds: Counter[str] = Counter()
    first: Counter[str] = Counter()
    own = n_lines = no_line = 0
    started = time.perf_counter()
    for pmid, item in items:
        q = embedder.encode([item["QUESTION"]])[0]
        order = [pmids[i] for i in np.argsort(-(doc_vectors @ q)) if pmids[i] != pmid][:DISTRACTORS]
        chosen = sorted([pmid, *order], key=lambda p: -float(doc_vectors[pmids.index(p)] @ q))
        hits = [PassageHit(rank, f"p{p}", f"PMID:{p}", "pubmed", p, "t", None, "", None, None, texts[p],
                           1.0, 1.0, 1.0, 1.0, 1.0) for rank, p in enumerate(chosen, 1)]
        answer = composer.compose(RetrievalResult(item["QUESTION"], "all", 0.4, 0.5, [], hits, pd.DataFrame(),
                                                  pd.DataFrame(), 0.0, 0))
        lines = [c for c in answer.claims if c.citations[0].kind == "passage"]
        if not lines:
            no_line += 1
            continue
        for i, claim in enumerate(lines):
            source = claim.citations[0].label.partition(":")[2]
            parts = [" ".join(str(c).split()) for c in data[source]["CONTEXTS"]]
            where = next((label for part, label in zip(parts, data[source]["LABELS"]) if claim.text in part), None)
            kind = GROUPS.get(str(where).upper(), "other") if where else "spans parts"
            kinds[kind] += 1
            if i == 0:
                first[kind] += 1
            own += source == pmid
            n_lines += 1
    elapsed = time.perf_counter() - started
    groups = ("results", "background", "methods", "other", "spans parts")
    total, firsts = max(n_lines, 1), max(sum(first.values()), 1)
    out = [f"- Split `{split}`: {len(items)} questions, each with its own abstract and {DISTRACTORS} nearest others "
           f"of the split; {elapsed:.0f} s.", "",
           "| lines | " + " | ".join(groups) + " | from own abstract | lines per question | questions with no line |",
           "|---|" + "---:|" * (len(groups) + 3),
           f"| every quoted line ({n_lines}) | " + " | ".join(f"{kinds[g] / total:.3f}" for g in groups)
           + f" | {own / total:.3f} | {n_lines / max(len(items), 1):.2f} | {no_line} |",
           f"| first line ({sum(first.values())}) | " + " | ".join(f"{first[g] / firsts:.3f}" for g in groups)
           + " | | | |"]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared-data", type=Path,
                        default=Path(os.environ.get("ENGRAM_SHARED_DATA", ROOT.parent / "shared" / "data")))
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="dev",
                        help=f"dev: first {DEV_SIZE} questions by PMID (tune on these); heldout: the rest")
    parser.add_argument("--limit", type=int, default=None, help="first N questions of the split (by PMID)")
    parser.add_argument("--out", type=Path, default=None, help="also write the report to this file")
    parser.add_argument("--lines", action="store_true",
                        help=f"issue 29 study: every quoted line, own abstract + {DISTRACTORS} nearest others")
    args = parser.parse_args(argv)
    if not (args.shared_data / "qa" / "pubmedqa" / "ori_pqal.json").is_file():
        print(f"skipped: PubMedQA not found under {args.shared_data} (pass --shared-data)")
        return 0
    report = (lines_study if args.lines else run)(args.shared_data, args.limit, args.split)
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
