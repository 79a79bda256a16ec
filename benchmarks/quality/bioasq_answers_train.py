"""Fit the exact-answer scorer's weights (logistic regression) on the BioASQ 12b dev candidates; choose the
list cut-off; compare with the hand-set weights by 5-fold cross-validation over questions.

Input: ``benchmarks/.cache/bioasq_answers_candidates.json`` (written by a full run of
:mod:`benchmarks.quality.bioasq_answers`: every oracle-mode candidate of the factoid and list questions with its
:data:`engram_kit.answering.exact.FEATURES` and whether it matches a gold item). A candidate is a positive
example when it matches a gold item. Models: scikit-learn ``LogisticRegression`` (L2, C = 1): pointwise with
balanced class weights for list questions (the cut-off needs a calibrated score), pairwise (right minus wrong
candidate of one question) for factoid questions (only the order counts); applied at answer time with numpy from ``engram_kit/answering/exact_weights.json`` (no sklearn
import in the product). Cross-validation: ``GroupKFold(5)`` by question; inside each fold the list cut-off is
chosen on the training questions (grid 0.05 .. 0.95), so the reported numbers never see their own questions.

Usage: ``python -m benchmarks.quality.bioasq_answers_train [--write]`` (``--write`` stores the learned weights
and sets ``use`` to the better set by cross-validated mean of factoid MRR and list F1).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from benchmarks.quality.bioasq_answers import CANDIDATES, TOP_K, factoid_scores, list_scores

#: L2 inverse regularisation of both models (0.1: 40 questions per type, strong shrinkage; C = 1 over-fitted in CV).
C = 0.1
GRID = np.round(np.arange(0.05, 0.96, 0.05), 2)


def _scores(q: dict[str, Any], bias: float, w: np.ndarray, features: tuple[str, ...]) -> np.ndarray:
    x = np.array([[c["features"].get(f, 0.0) for f in features] for c in q["candidates"]]).reshape(-1, len(features))
    return 1.0 / (1.0 + np.exp(-(bias + x @ w)))


def evaluate(questions: list[dict[str, Any]], scores: list[np.ndarray], cutoff: float) -> dict[str, float]:
    """Factoid MRR (top 5) and list precision / F1 of ranked candidates at a list cut-off."""
    mrr, f1, prec = [], [], []
    for q, s in zip(questions, scores):
        order = np.argsort(-s, kind="stable")
        preds = [q["candidates"][i]["names"] for i in order]
        if q["kind"] == "factoid":
            mrr.append(factoid_scores(preds[:TOP_K], q["gold"])[2])
        else:
            kept = [p for p, i in zip(preds, order) if s[i] >= cutoff] or preds[:1]
            p, _, f = list_scores(kept[:10], q["gold"])
            f1.append(f)
            prec.append(p)
    return {"factoid_mrr": float(np.mean(mrr)) if mrr else 0.0, "list_f1": float(np.mean(f1)) if f1 else 0.0,
            "list_precision": float(np.mean(prec)) if prec else 0.0}


def best_cutoff(questions: list[dict[str, Any]], scores: list[np.ndarray]) -> float:
    return float(max(GRID, key=lambda c: evaluate(questions, scores, c)["list_f1"]))


def fit(questions: list[dict[str, Any]], features: tuple[str, ...]) -> tuple[float, np.ndarray]:
    """Pointwise logistic regression (balanced classes): list questions, where the cut-off needs a calibrated
    score."""
    from sklearn.linear_model import LogisticRegression

    x = np.array([[c["features"].get(f, 0.0) for f in features] for q in questions for c in q["candidates"]])
    y = np.array([c["label"] for q in questions for c in q["candidates"]], dtype=int)
    model = LogisticRegression(C=C, class_weight="balanced", max_iter=2000).fit(x, y)
    return float(model.intercept_[0]), model.coef_[0].astype(float)


def fit_pairwise(questions: list[dict[str, Any]], features: tuple[str, ...]) -> tuple[float, np.ndarray]:
    """Pairwise logistic regression (RankSVM-style, Joachims 2002, with a logistic loss): one example per (right,
    wrong) candidate pair of a question, x_right - x_wrong, both signs; factoid questions, where only the order
    counts. The bias is the pointwise model's, so scores stay on the same scale."""
    from sklearn.linear_model import LogisticRegression

    diffs = []
    for q in questions:
        x = np.array([[c["features"].get(f, 0.0) for f in features] for c in q["candidates"]])
        y = np.array([c["label"] for c in q["candidates"]], dtype=bool)
        for i in np.flatnonzero(y):
            for j in np.flatnonzero(~y):
                diffs.append(x[i] - x[j])
    if not diffs:
        return fit(questions, features)
    d = np.array(diffs)
    model = LogisticRegression(C=C, fit_intercept=False, max_iter=2000).fit(
        np.vstack([d, -d]), np.r_[np.ones(len(d)), np.zeros(len(d))])
    return fit(questions, features)[0], model.coef_[0].astype(float)


def fit_both(questions: list[dict[str, Any]], features: tuple[str, ...]) -> dict[str, tuple[float, np.ndarray]]:
    """The learned weight sets: pairwise for factoid questions, pointwise for list questions."""
    return {"factoid": fit_pairwise([q for q in questions if q["kind"] == "factoid"], features),
            "list": fit([q for q in questions if q["kind"] == "list"], features)}


def _scores_by_kind(q: dict[str, Any], sets: dict[str, tuple[float, np.ndarray]], features: tuple[str, ...]
                    ) -> np.ndarray:
    b, w = sets[q["kind"]]
    return _scores(q, b, w, features)


def main(argv: list[str] | None = None) -> int:
    from sklearn.model_selection import GroupKFold

    from engram_kit.answering.exact import FEATURES, WEIGHTS_FILE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="store the learned weights in exact_weights.json")
    args = parser.parse_args(argv)
    questions = [q for q in json.loads(CANDIDATES.read_text()) if q["candidates"]]
    data = json.loads(WEIGHTS_FILE.read_text())
    hand = data["hand"]
    hand_w = np.array([hand["weights"].get(f, 0.0) for f in FEATURES])
    folds = GroupKFold(5)
    idx = np.arange(len(questions))
    cv: dict[str, list[np.ndarray]] = {"hand": [np.zeros(0)] * len(questions), "learned": [np.zeros(0)] * len(questions)}
    cut: dict[str, list[float]] = {"hand": [], "learned": []}
    pooled: dict[str, list[dict[str, float]]] = {"hand": [], "learned": []}
    hand_sets = {"factoid": (hand["bias"], hand_w), "list": (hand["bias"], hand_w)}
    for train, test in folds.split(idx, groups=idx):
        tr = [questions[i] for i in train]
        te = [questions[i] for i in test]
        for name, sets in (("hand", hand_sets), ("learned", fit_both(tr, FEATURES))):
            c = best_cutoff(tr, [_scores_by_kind(q, sets, FEATURES) for q in tr])
            cut[name].append(c)
            pooled[name].append(evaluate(te, [_scores_by_kind(q, sets, FEATURES) for q in te], c))
            for i in test:
                cv[name][i] = _scores_by_kind(questions[i], sets, FEATURES)
    print("5-fold CV by question (cut-off chosen on the training folds):")
    summary = {}
    for name in ("hand", "learned"):  # pooled over the held-out predictions of every fold
        mean = evaluate(questions, cv[name], float(np.median(cut[name])))
        summary[name] = mean
        print(f"  {name:8s} factoid MRR {mean['factoid_mrr']:.3f}  list F1 {mean['list_f1']:.3f}  "
              f"list precision {mean['list_precision']:.3f}  cut-offs {cut[name]}")
    learned = fit_both(questions, FEATURES)
    all_scores = {"hand": [_scores_by_kind(q, hand_sets, FEATURES) for q in questions],
                  "learned": [_scores_by_kind(q, learned, FEATURES) for q in questions]}
    cutoffs = {name: best_cutoff(questions, s) for name, s in all_scores.items()}
    for name, s in all_scores.items():
        e = evaluate(questions, s, cutoffs[name])
        print(f"  all dev, {name}: cut-off {cutoffs[name]}, list precision above it {e['list_precision']:.3f}, "
              f"list F1 {e['list_f1']:.3f}, factoid MRR {e['factoid_mrr']:.3f}")
    for kind, (b, w) in learned.items():
        print(f"  learned {kind} weights:", {"bias": round(b, 3), **{f: round(float(x), 3) for f, x in zip(FEATURES, w)}})
    if args.write:
        better = max(summary, key=lambda n: summary[n]["factoid_mrr"] + summary[n]["list_f1"])
        b, w = learned["list"]
        data["learned"] = {"bias": round(b, 4), "weights": {f: round(float(x), 4) for f, x in zip(FEATURES, w)},
                           "cv": summary["learned"], "list_cutoff": cutoffs["learned"]}
        b, w = learned["factoid"]
        data["learned_factoid"] = {"bias": round(b, 4), "weights": {f: round(float(x), 4) for f, x in zip(FEATURES, w)}}
        data["hand"]["cv"], data["hand"]["list_cutoff"] = summary["hand"], cutoffs["hand"]
        data["use"] = better
        WEIGHTS_FILE.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {WEIGHTS_FILE} (use: {better}; set Settings.exact_list_cutoff to {cutoffs[better]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
