"""BioASQ 12b dev answer layer through the product API: exact answers (factoid, list) and yes/no verdicts.

Corpus and workspace: the retrieval protocol of ``<shared>/README.md`` (qa/bioasq12b-dev): one record per gold
PMID whose text is its distinct snippets (title snippets first; :mod:`benchmarks.quality.bioasq_data`),
ingested into a workspace on the full shared Hetionet, the same cached workspace as the retrieval study
(``benchmarks/.cache/bioasq-shared-ws``, exact-name linking at ingestion).

Modes: **oracle**: ``ws.ask(question, within=<gold PMIDs>, top_k=max(10, |gold|))`` (the answer layer given the
right papers); **own retrieval**: ``ws.ask(question)`` (top 10 of the product's own ranking). The product's
answer (:mod:`engram_kit.answering.exact`, question type detected from the wording) is scored as returned.

Methods compared on the same passages:

* **product**: ``Answer.exact`` / ``Answer.yes_no`` of ``ws.ask``;
* **frequency**: the product's candidates ranked by the number of passages naming them (top 5);
* **prototype**: the previous answer-layer prototype of this file (gazetteer mentions in the passages scored by
  records naming them + 1 for the asked kind + 0.5 x PPR rank percentile; list: >= half the best, at most 10);
* **yes-majority**: "yes" for every yes/no question;
* ablations: each scorer feature off, and every graph feature off together (``ExactAnswerer(graph=False)``:
  no facts candidates, no node kinds as types, no synonyms through node ids, no graph_fact / graph_edge),
  the hand-set weights against the learned ones.

Measures (BioASQ; Tsatsaronis et al. 2015): factoid strict accuracy (top 1 right), lenient (any of top 5), MRR
over the top 5; list precision, recall, F1 per question, averaged; yes/no accuracy (undecided = wrong, coverage
beside it) and macro-F1 over the yes and no classes. A predicted item matches a gold item when the normalised
form (lower case, punctuation to spaces, final plural "s" dropped) of its text or one of its synonyms equals
that of a gold synonym. 95% intervals: percentile bootstrap over questions (2,000 resamples, seed 0).

Usage: ``python -m benchmarks.quality.bioasq_answers [--limit N]``; writes ``benchmarks/results/bioasq_answers.md``
(full runs) and the candidates with their features to ``benchmarks/.cache/bioasq_answers_candidates.json`` for
``benchmarks/quality/bioasq_answers_train.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality.common import REPO, default_shared_data, provenance

RESULTS = REPO / "benchmarks" / "results" / "bioasq_answers.md"
CANDIDATES = REPO / "benchmarks" / ".cache" / "bioasq_answers_candidates.json"
TOP_K = 5
LIST_MAX = 10
BOOTSTRAP = 2000


def normalise(text: str) -> str:
    """Lower case, punctuation to spaces, collapsed, final plural ``s`` of the last word dropped."""
    text = re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
    return re.sub(r"(?<=[a-z]{3})s$", "", text)


@dataclass
class Question:
    qid: str
    kind: str
    body: str
    gold: list[list[str]]          # factoid: one item of synonyms; list: items; yesno: [["yes"|"no"]]
    pmids: list[str]               # gold PMIDs that are in the corpus


def load_questions(shared: Path) -> list[Question]:
    """Factoid, list and yes/no questions of the dev batches with a gold record in the corpus."""
    from benchmarks.quality.bioasq_data import BIOASQ_DIR, BIOASQ_FILES, load_bioasq

    questions, _, _, _ = load_bioasq(shared)
    gold_pmids = {q.qid: [g.split(":", 1)[1].split("#", 1)[0] for g in q.gold] for q in questions}
    out = []
    for name in BIOASQ_FILES:
        for q in json.loads((shared / BIOASQ_DIR / name).read_text())["questions"]:
            if q["type"] not in ("factoid", "list", "yesno") or str(q["id"]) not in gold_pmids:
                continue
            gold = q["exact_answer"]
            if q["type"] == "yesno":
                items = [[str(gold).strip().lower()]]
            else:
                items = [[str(x) for x in (g if isinstance(g, list) else [g])] for g in gold]
                if q["type"] == "factoid":  # one answer: every listed string is a synonym of it
                    items = [[s for g in items for s in g]]
            out.append(Question(str(q["id"]), q["type"], str(q["body"]).strip(), items, gold_pmids[str(q["id"])]))
    return out


def open_corpus_workspace(shared: Path) -> Any:  # Workspace
    """The cached BioASQ corpus workspace of the retrieval study (built when missing; 15-25 min)."""
    from benchmarks.quality.bioasq_data import load_bioasq
    from benchmarks.quality.retrieval import corpus_workspace, exact_linking_only

    _, records, _, fingerprint = load_bioasq(shared)
    with exact_linking_only():
        return corpus_workspace("bioasq-shared-ws", shared, lambda: records, fingerprint + "-exact-linking")


class CachedStore:
    """The workspace store with its read calls memoised per argument (ablations re-read the same passages)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._memo: dict[tuple[Any, ...], Any] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name not in ("passage_mentions", "edges_among", "get_nodes"):
            return attr

        def call(ids: Sequence[str], *args: Any) -> Any:
            key = (name, tuple(ids), args)
            if key not in self._memo:
                self._memo[key] = attr(ids, *args)
            return self._memo[key]
        return call


# ================================================================================= measures
def matches(texts: Sequence[str], item: Sequence[str]) -> bool:
    gold = {normalise(s) for s in item}
    return any(normalise(t) in gold for t in texts if t)


def factoid_scores(preds: list[list[str]], gold: list[list[str]]) -> tuple[float, float, float]:
    """(strict, lenient, reciprocal rank) of ranked predictions, each a list of names (text + synonyms)."""
    ranks = [i for i, p in enumerate(preds[:TOP_K], 1) if matches(p, gold[0])]
    return float(bool(ranks) and ranks[0] == 1), float(bool(ranks)), (1.0 / ranks[0]) if ranks else 0.0


def list_scores(preds: list[list[str]], gold: list[list[str]]) -> tuple[float, float, float]:
    """(precision, recall, F1) of a predicted list (each a list of names) against the gold items."""
    if not preds:
        return 0.0, 0.0, 0.0
    correct = sum(1 for p in preds if any(matches(p, item) for item in gold))
    hit = sum(1 for item in gold if any(matches(p, item) for p in preds))
    precision, recall = correct / len(preds), hit / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def yesno_scores(verdicts: list[str | None], gold: list[str]) -> dict[str, float]:
    """Accuracy (None = wrong), coverage and macro-F1 over the yes and no classes."""
    acc = float(np.mean([v == g for v, g in zip(verdicts, gold)])) if gold else float("nan")
    f1s = []
    for label in ("yes", "no"):
        tp = sum(v == label and g == label for v, g in zip(verdicts, gold))
        fp = sum(v == label and g != label for v, g in zip(verdicts, gold))
        fn = sum(v != label and g == label for v, g in zip(verdicts, gold))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return {"accuracy": acc, "coverage": float(np.mean([v is not None for v in verdicts])) if gold else float("nan"),
            "macro_f1": float(np.mean(f1s))}


def bootstrap(values: Sequence[float], stat: Callable[[np.ndarray], float] = np.mean) -> tuple[float, float]:
    """Percentile 95% interval of ``stat`` over questions (2,000 resamples, seed 0)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(0)
    draws = [stat(v[rng.integers(0, v.size, v.size)]) for _ in range(BOOTSTRAP)]
    return float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))


# ================================================================================= prototype (baseline)
class Prototype:
    """The previous answer-layer prototype of this benchmark, kept as the named baseline ``prototype``."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.kg = ws.csr_graph()

    def answer(self, body: str, texts: list[str]) -> tuple[list[str], list[str]]:
        """(ranked factoid answers, list answers) from the passage texts ``texts``."""
        from engram_kit.answering.intent import KIND_WORDS, _spans
        from engram_kit.evidence.search import question_entities
        from engram_kit.retrieval.ppr import personalized_pagerank

        ws, kg = self.ws, self.kg
        ents = question_entities(body, ws.extractor, ws.resolver, min_confidence=0.5)
        seeds = {kg.index[e.node_id]: e.confidence for e in ents if e.node_id in kg.index}
        asked = [label for _, _, label in _spans(body, KIND_WORDS, [])]
        asked_kind = asked[0] if asked else ""
        ppr = personalized_pagerank(kg, seeds, damping=0.5).scores if seeds else np.zeros(kg.n_nodes)
        question_ids = {e.node_id for e in ents}
        support: Counter[str] = Counter()
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        q_norm = normalise(body)
        for text in texts:
            seen = set()
            for m in ws.extractor.extract(text):
                if not m.candidates:
                    continue
                node = m.candidates[0]
                if node in question_ids or f" {normalise(m.text)} " in f" {q_norm} ":
                    continue
                surfaces[node][m.text] += 1
                seen.add(node)
            support.update(seen)
        cand = list(support)
        if not cand:
            return [], []
        idx = [kg.index.get(c) for c in cand]
        pvals = np.array([ppr[i] if i is not None else 0.0 for i in idx])
        pct = (np.argsort(np.argsort(pvals)) / max(len(cand) - 1, 1)) if len(cand) > 1 else np.ones(1)
        scored = []
        for c, p in zip(cand, pct):
            kind_ok = asked_kind and c.split("::", 1)[0].replace(" ", "") == asked_kind
            scored.append((support[c] + 1.0 * bool(kind_ok) + 0.5 * float(p), c))
        scored.sort(key=lambda t: (-t[0], t[1]))
        ranked = [surfaces[c].most_common(1)[0][0] for _, c in scored]
        best = scored[0][0]
        listed = [surfaces[c].most_common(1)[0][0] for s, c in scored if s >= best / 2][:LIST_MAX]
        return ranked, listed


# ================================================================================= run
VARIANTS: dict[str, dict[str, Any]] = {
    "product": {},
    "graph features off": {"graph": False},
    **{f"without {f}": {"disabled": (f,)} for f in ("freq", "spread", "entity_cooc", "cooc_count", "keyword_cooc",
                                                     "type_match", "type_mismatch", "graph_fact", "graph_edge",
                                                     "listed")},
    "hand-set weights": {"weights": "hand"},
}


def names(x: Any) -> list[str]:  # ExactAnswer
    return [x.text, *x.synonyms]


def run(limit: int | None = None, modes: Sequence[str] = ("oracle", "own"), ablations: bool = True) -> dict[str, Any]:
    from engram_kit.answering.exact import ExactAnswerer, load_weights
    from engram_kit.answering.extractive import _label
    from engram_kit.answering.facts import GraphFacts

    shared = default_shared_data()
    ws = open_corpus_workspace(shared)
    store = CachedStore(ws.store)
    questions = load_questions(shared)
    if limit:
        questions = questions[::max(1, len(questions) // limit)][:limit]
    proto = Prototype(ws)
    facts_reader = GraphFacts(store)
    use = load_weights()["use"]
    answerers = {}
    for name, kw in VARIANTS.items():
        if (name == "hand-set weights" and use == "hand") or (not ablations and name != "product"):
            continue
        answerers[name] = ExactAnswerer(store, ws.settings, **kw)
    rows: list[dict[str, Any]] = []
    dumps: list[dict[str, Any]] = []
    for mode in modes:
        for q in questions:
            kwargs = {"within": q.pmids, "top_k": max(10, len(q.pmids))} if mode == "oracle" else {}
            answer = ws.ask(q.body, **kwargs)
            result = answer.retrieval
            anchors = [(e.mention, _label(e.kind), e.node_id, e.name)
                       for e in sorted(result.entities, key=lambda e: -e.confidence)]
            facts = facts_reader.answer(q.body, anchors)
            row: dict[str, Any] = {"id": q.qid, "kind": q.kind, "mode": mode, "detected": answer.question_type,
                                   "n_passages": len(result.passages)}
            if q.kind == "yesno":
                row["product"] = answer.yes_no
                row["yes-majority"] = "yes"
                for share in (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5):
                    a = ExactAnswerer(store, replace(ws.settings, yesno_no_share=share)).answer(result, facts)
                    row[f"no_share {share}"] = a.yes_no
                row["gold"] = q.gold[0][0]
                rows.append(row)
                continue
            score = factoid_scores if q.kind == "factoid" else list_scores
            row["product"] = score([names(x) for x in answer.exact], q.gold)
            row["product_top"] = [x.text for x in answer.exact[:5]]
            base = None
            for name, ans in answerers.items():  # "product" first: the feature-only ablations rescore its candidates
                out = ans.answer(result, facts, reuse=base if ans.graph and name != "product" else None)
                base = out if name == "product" else base
                row[name] = score([names(x) for x in out.exact], q.gold)
                if name == "product":
                    freq = sorted(out.candidates, key=lambda c: (-len(c.passages), -c.features.get("freq", 0), c.text))
                    row["frequency"] = score([c.terms() for c in freq[:TOP_K]], q.gold)
                    if mode == "oracle":
                        dumps.append({"id": q.qid, "kind": q.kind, "gold": q.gold, "candidates": [
                            {"names": c.terms(), "features": c.features,
                             "label": any(matches(c.terms(), item) for item in q.gold)} for c in out.candidates]})
            ranked, listed = proto.answer(q.body, [h.text for h in result.passages])
            row["prototype"] = score([[t] for t in (ranked[:TOP_K] if q.kind == "factoid" else listed)], q.gold)
            rows.append(row)
    if not limit:
        CANDIDATES.parent.mkdir(parents=True, exist_ok=True)
        CANDIDATES.write_text(json.dumps(dumps))
    return {"rows": rows, "n_questions": len(questions), "weights": use}


# ================================================================================= report
def _fmt(values: list[float]) -> str:
    if not values:
        return "-"
    lo, hi = bootstrap(values)
    return f"{np.mean(values):.3f} [{lo:.2f}, {hi:.2f}]"


def tables(out: dict[str, Any], mode: str) -> list[str]:
    rows = [r for r in out["rows"] if r["mode"] == mode]
    fac = [r for r in rows if r["kind"] == "factoid"]
    lst = [r for r in rows if r["kind"] == "list"]
    yn = [r for r in rows if r["kind"] == "yesno"]
    methods = ["product", "frequency", "prototype"]
    lines = [f"| measure ({mode}) | n | " + " | ".join(methods) + " |", "|---|---:|" + "---:|" * len(methods)]
    for name, i in (("factoid strict", 0), ("factoid lenient", 1), ("factoid MRR", 2)):
        lines.append(f"| {name} | {len(fac)} | " + " | ".join(_fmt([r[m][i] for r in fac]) for m in methods) + " |")
    for name, i in (("list precision", 0), ("list recall", 1), ("list F1", 2)):
        lines.append(f"| {name} | {len(lst)} | " + " | ".join(_fmt([r[m][i] for r in lst]) for m in methods) + " |")
    gold = [r["gold"] for r in yn]
    lines += ["", f"| yes/no ({mode}) | n | accuracy | coverage | macro-F1 |", "|---|---:|---:|---:|---:|"]
    for m in ["product", "yes-majority", *[k for k in (yn[0] if yn else {}) if k.startswith("no_share")]]:
        s = yesno_scores([r[m] for r in yn], gold)
        lo, hi = bootstrap([float(r[m] == r["gold"]) for r in yn])
        lines.append(f"| {m} | {len(yn)} | {s['accuracy']:.3f} [{lo:.2f}, {hi:.2f}] | {s['coverage']:.3f} | "
                     f"{s['macro_f1']:.3f} |")
    variants = [k for k in VARIANTS if fac and k in fac[0]]
    lines += ["", f"| ablation ({mode}) | factoid MRR | list F1 | list precision |", "|---|---:|---:|---:|"]
    for v in variants:
        lines.append(f"| {v} | {np.mean([r[v][2] for r in fac]):.3f} | {np.mean([r[v][2] for r in lst]):.3f} | "
                     f"{np.mean([r[v][0] for r in lst]):.3f} |")
    if fac and "graph features off" in fac[0]:
        d_mrr = [r["product"][2] - r["graph features off"][2] for r in fac]
        d_f1 = [r["product"][2] - r["graph features off"][2] for r in lst]
        (a, b), (c, d) = bootstrap(d_mrr), bootstrap(d_f1)
        lines.append(f"| graph on - off (paired) | {np.mean(d_mrr):+.3f} [{a:+.2f}, {b:+.2f}] | "
                     f"{np.mean(d_f1):+.3f} [{c:+.2f}, {d:+.2f}] | |")
    detected = Counter((r["kind"], r["detected"]) for r in rows)
    lines += ["", "Question type detected (gold -> detected: n): "
              + ", ".join(f"{k[0]} -> {k[1]}: {v}" for k, v in sorted(detected.items()))]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="an even subsample of N questions (development)")
    parser.add_argument("--modes", nargs="+", default=["oracle", "own"], choices=["oracle", "own"])
    parser.add_argument("--no-ablations", action="store_true", help="the product only (writes the candidates)")
    args = parser.parse_args(argv)
    if not (default_shared_data() / "qa" / "bioasq12b-dev").exists():
        print("skipped: no shared BioASQ dev data")
        return 0
    started = time.perf_counter()
    out = run(args.limit, args.modes, not args.no_ablations)
    seconds = time.perf_counter() - started
    body = []
    for mode in args.modes:
        body += tables(out, mode) + [""]
    from engram_kit.answering.exact import load_weights

    weights = load_weights()
    if "cv" in weights.get("learned", {}):
        body += ["Scorer weights, 5-fold cross-validation by question on the oracle candidates "
                 "(`benchmarks/quality/bioasq_answers_train.py`; list cut-off chosen on the training folds):", "",
                 "| weights | factoid MRR | list F1 | list precision | cut-off (all dev) |", "|---|---:|---:|---:|---:|"]
        for name in ("hand", "learned"):
            cv = weights[name]["cv"]
            body.append(f"| {name}{' (in use)' if weights['use'] == name else ''} | {cv['factoid_mrr']:.3f} | "
                        f"{cv['list_f1']:.3f} | {cv['list_precision']:.3f} | {weights[name]['list_cutoff']} |")
        body.append("")
    report = ["# BioASQ 12b dev: exact answers and yes/no through the product API (issue 29)", "",
              *provenance(["ladybug"]), "",
              f"{out['n_questions']} factoid/list/yes-no questions of 12B1+12B2 golden with a gold record; scorer "
              f"weights in use: `{out['weights']}`. Modes: oracle = `ws.ask(q, within=gold PMIDs)`, own = `ws.ask(q)`. "
              f"Cells: mean [bootstrap 95% interval]. Wall time {seconds:.0f} s on the shared, loaded 2-core machine. "
              "Method and measures: `benchmarks/quality/bioasq_answers.py` docstring.", "", *body]
    if args.limit is None and not args.no_ablations:
        RESULTS.write_text("\n".join(report) + "\n")
    print("\n".join(body))
    print(f"{seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
