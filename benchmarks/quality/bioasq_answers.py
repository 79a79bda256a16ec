"""BioASQ 12b dev answer layer: offline exact answers for factoid and list questions, BioASQ measures.

Scope: the *answer layer* given the question's passages. Following the shared retrieval protocol
(``<shared>/README.md``), each gold PMID becomes one record whose text is its distinct snippets (title
snippets first); here the records of the question's own gold PMIDs are the passages (oracle retrieval), so
the numbers measure answer extraction, not retrieval (the retrieval helper measures that).

Candidates are the graph entities the workspace's extractor (Aho-Corasick gazetteer over every Hetionet name
and synonym) finds in those passages, minus the question's own entities. Methods:

* **baseline (top PPR)**: Personalized PageRank over the full shared Hetionet seeded by the question's
  entities; the top nodes of the asked kind (:mod:`engram_kit.answering.intent` kind words; any kind when
  none is named), seeds excluded. Factoid: top 5; list: top 5.
* **frequency (passages only)**: candidates ranked by the number of records naming them (ties by id); the
  ablation of the answer layer without the asked kind and the graph. Factoid: top 5; list: top 5.
* **answer layer (passages + graph)**: candidate score = number of records naming it + 1 when it is of the
  asked kind + 0.5 x its PPR rank percentile among the candidates (graph proximity to the question's
  entities). Factoid: top 5; list: candidates scoring >= half the best (at most 10).

Measures (BioASQ; Tsatsaronis et al. 2015): factoid strict accuracy (top 1 matches a gold synonym), lenient
accuracy (any of the top 5), MRR over the top 5; list precision, recall and F1 per question, averaged. A
predicted string matches a gold item when their normalised forms (lower case, punctuation and a final
plural "s" removed) are equal. The answer string is the candidate's most frequent surface form in the
passages (never the graph's canonical name when the passages spell it otherwise).

Citation support: the extractive composer's literature claims on the same passages; the share whose
sentence names a question entity or the top answer.

Usage: ``python -m benchmarks.quality.bioasq_answers [--limit N]`` (needs the shared data; builds or reuses
the full-Hetionet workspace under ``benchmarks/.cache/desk-hetionet``).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality.common import REPO, default_shared_data, provenance
from benchmarks.quality.desk_dev import open_workspace

RESULTS = REPO / "benchmarks" / "results" / "bioasq_answers.md"
TOP_K = 5
LIST_MAX = 10


def normalise(text: str) -> str:
    """Lower case, punctuation to spaces, collapsed, final plural ``s`` of the last word dropped."""
    text = re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
    return re.sub(r"(?<=[a-z]{3})s$", "", text)


def load_questions(shared: Path) -> list[dict[str, Any]]:
    """Factoid and list questions of the dev batches, each with its records (one per gold PMID)."""
    out = []
    for name in ("12B1_golden.json", "12B2_golden.json"):
        for q in json.loads((shared / "qa" / "bioasq12b-dev" / name).read_text())["questions"]:
            if q["type"] not in ("factoid", "list"):
                continue
            by_pmid: dict[str, list[str]] = defaultdict(list)
            for snip in sorted(q.get("snippets", []), key=lambda s: s.get("beginSection") != "title"):
                pmid = snip["document"].rstrip("/").rsplit("/", 1)[-1]
                if snip["text"] not in by_pmid[pmid]:
                    by_pmid[pmid].append(snip["text"])
            gold = q["exact_answer"]
            items = [[str(x) for x in (g if isinstance(g, list) else [g])] for g in gold]
            if q["type"] == "factoid":  # one answer: every listed string is a synonym of it
                items = [[s for g in items for s in g]]
            out.append({"id": q["id"], "type": q["type"], "body": q["body"], "gold": items,
                        "records": {p: " ".join(t) for p, t in by_pmid.items()}})
    return out


def matches(pred: str, item: list[str]) -> bool:
    return normalise(pred) in {normalise(s) for s in item}


def factoid_scores(preds: list[str], gold: list[list[str]]) -> tuple[float, float, float]:
    ranks = [i for i, p in enumerate(preds[:TOP_K], 1) if matches(p, gold[0])]
    return float(bool(ranks) and ranks[0] == 1), float(bool(ranks)), (1.0 / ranks[0]) if ranks else 0.0


def list_scores(preds: list[str], gold: list[list[str]]) -> tuple[float, float, float]:
    preds = list(dict.fromkeys(normalise(p) for p in preds))
    if not preds:
        return 0.0, 0.0, 0.0
    hit_items = {i for i, item in enumerate(gold) for p in preds if p in {normalise(s) for s in item}}
    correct = sum(1 for p in preds if any(p in {normalise(s) for s in item} for item in gold))
    precision, recall = correct / len(preds), len(hit_items) / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def run(limit: int | None = None) -> dict[str, Any]:
    from engram_kit.answering import ExtractiveComposer
    from engram_kit.answering.intent import KIND_WORDS, _spans
    from engram_kit.evidence.search import question_entities
    from engram_kit.retrieval.ppr import personalized_pagerank

    shared = default_shared_data()
    ws = open_workspace(shared)  # the data root: open_workspace resolves hetionet/, pubmed/, synonyms/ under it
    kg = ws.knowledge_graph()
    kinds = np.array([str(x).split("::", 1)[0].replace(" ", "") for x in kg.node_ids])
    names = dict(zip(ws.nodes["id"], ws.nodes["name"])) if hasattr(ws, "nodes") else {}
    questions = load_questions(shared)[:limit]
    composer = ExtractiveComposer(ws.embedder, max_passages=5)
    rows = []
    support_hits = support_total = 0
    for q in questions:
        ents = question_entities(q["body"], ws.extractor, ws.resolver, min_confidence=0.5)
        seeds = {kg.index[e.node_id]: e.confidence for e in ents if e.node_id in kg.index}
        asked = [label for _, _, label in _spans(q["body"], KIND_WORDS, [])]
        asked_kind = asked[0] if asked else ""
        ppr = personalized_pagerank(kg, seeds, damping=0.5).scores if seeds else np.zeros(kg.n_nodes)
        # baseline: top PPR nodes of the asked kind
        order = np.argsort(-ppr, kind="stable")
        base = []
        for i in order[:20000]:
            if ppr[i] <= 0 or len(base) >= TOP_K:
                break
            if i in seeds or (asked_kind and kinds[i] != asked_kind):
                continue
            base.append(names.get(str(kg.node_ids[i]), str(kg.node_ids[i]).split("::", 1)[1]))
        # answer layer: entities named in the passages
        question_ids = {e.node_id for e in ents}
        support: Counter[str] = Counter()
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        q_norm = normalise(q["body"])
        for text in q["records"].values():
            seen = set()
            for m in ws.extractor.extract(text):
                if not m.candidates:
                    continue
                node = m.candidates[0]
                if node in question_ids or normalise(m.text) in q_norm.split() or f" {normalise(m.text)} " in f" {q_norm} ":
                    continue
                surfaces[node][m.text] += 1
                seen.add(node)
            support.update(seen)
        cand = list(support)
        if cand:
            idx = [kg.index.get(c) for c in cand]
            pvals = np.array([ppr[i] if i is not None else 0.0 for i in idx])
            pct = (np.argsort(np.argsort(pvals)) / max(len(cand) - 1, 1)) if len(cand) > 1 else np.ones(1)
            scored = []
            for c, p in zip(cand, pct):
                kind_ok = asked_kind and c.split("::", 1)[0].replace(" ", "") == asked_kind
                scored.append((support[c] + 1.0 * bool(kind_ok) + 0.5 * float(p), c))
            scored.sort(key=lambda t: (-t[0], t[1]))
            ours_ranked = [surfaces[c].most_common(1)[0][0] for _, c in scored]
            best = scored[0][0]
            ours_list = [surfaces[c].most_common(1)[0][0] for s, c in scored if s >= best / 2][:LIST_MAX]
            by_freq = sorted(cand, key=lambda c: (-support[c], c))
            freq_ranked = [surfaces[c].most_common(1)[0][0] for c in by_freq]
        else:
            ours_ranked, ours_list, freq_ranked = [], [], []
        row = {"id": q["id"], "type": q["type"], "kind": asked_kind or "-", "entities": len(ents)}
        if q["type"] == "factoid":
            row["ours"] = factoid_scores(ours_ranked[:TOP_K], q["gold"])
            row["base"] = factoid_scores(base, q["gold"])
            row["freq"] = factoid_scores(freq_ranked[:TOP_K], q["gold"])
        else:
            row["ours"] = list_scores(ours_list, q["gold"])
            row["ours_top5"] = list_scores(ours_ranked[:TOP_K], q["gold"])
            row["base"] = list_scores(base, q["gold"])
            row["freq"] = list_scores(freq_ranked[:TOP_K], q["gold"])
        # citation support of the literature claims on the same passages
        result = _retrieval_result(q, ents)
        claims = composer._sentence_claims(result)
        needles = {normalise(e.mention) for e in ents} | {normalise(e.name) for e in ents}
        if ours_ranked:
            needles.add(normalise(ours_ranked[0]))
        for c in claims:
            support_total += 1
            text = f" {normalise(c.text)} "
            support_hits += any(n and f" {n} " in text for n in needles)
        rows.append(row)
    return {"rows": rows, "citation_support": support_hits / max(support_total, 1), "claims": support_total,
            "n_questions": len(questions)}


def _retrieval_result(q: dict[str, Any], ents: list) -> Any:  # noqa: ANN401
    import pandas as pd

    from engram_kit.retrieval.results import PassageHit, RetrievalResult, ResolvedEntity

    hits = [PassageHit(i, f"bioasq:{pmid}", pmid, "pubmed", pmid, "", None, "", None, None, text, 1.0, 1.0, 1.0, 1.0,
                       1.0) for i, (pmid, text) in enumerate(q["records"].items(), 1)]
    resolved = [ResolvedEntity(e.mention, 0, len(e.mention), e.node_id, e.name, e.kind, e.confidence, e.method, 1.0)
                for e in ents]
    return RetrievalResult(q["body"], "all", 0.4, 0.5, resolved, hits, pd.DataFrame(), pd.DataFrame(), 0.0, 0)


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N factoid/list questions (development)")
    args = parser.parse_args(argv)
    if not (default_shared_data() / "qa" / "bioasq12b-dev").exists():
        print("skipped: no shared BioASQ dev data")
        return 0
    started = time.perf_counter()
    out = run(args.limit)
    rows = out["rows"]
    fac = [r for r in rows if r["type"] == "factoid"]
    lst = [r for r in rows if r["type"] == "list"]
    table = ["| measure | questions | baseline: top PPR of asked kind | frequency in passages | "
             "answer layer: passages + graph |", "|---|---:|---:|---:|---:|"]
    for name, i in (("factoid strict accuracy", 0), ("factoid lenient accuracy", 1), ("factoid MRR", 2)):
        table.append(f"| {name} | {len(fac)} | {_mean([r['base'][i] for r in fac]):.3f} | "
                     f"{_mean([r['freq'][i] for r in fac]):.3f} | {_mean([r['ours'][i] for r in fac]):.3f} |")
    for name, i in (("list precision", 0), ("list recall", 1), ("list F1", 2)):
        table.append(f"| {name} | {len(lst)} | {_mean([r['base'][i] for r in lst]):.3f} | "
                     f"{_mean([r['freq'][i] for r in lst]):.3f} | {_mean([r['ours'][i] for r in lst]):.3f} |")
    table.append(f"| list F1, answer layer top 5 | {len(lst)} | | | {_mean([r['ours_top5'][2] for r in lst]):.3f} |")
    seconds = time.perf_counter() - started
    report = ["# BioASQ 12b dev: answer layer (factoid and list exact answers)", "", *provenance(["ladybug"]), "",
              f"{out['n_questions']} factoid/list questions of 12B1+12B2 golden; passages = the question's gold PMIDs' "
              f"snippet records (oracle retrieval: measures the answer layer only). Wall time {seconds:.0f} s on the "
              "shared, loaded 2-core machine. Method and measures: `benchmarks/quality/bioasq_answers.py` docstring.",
              "", *table, "",
              f"Citation support: {out['citation_support']:.1%} of {out['claims']} literature claims (extractive "
              "composer on the same passages) name a question entity or the top answer.", "",
              "| id | type | asked kind | question entities | baseline | answer layer |", "|---|---|---|---:|---|---|"]
    report += [f"| {r['id']} | {r['type']} | {r['kind']} | {r['entities']} | "
               f"{', '.join(f'{x:.2f}' for x in r['base'])} | {', '.join(f'{x:.2f}' for x in r['ours'])} |" for r in rows]
    if args.limit is None:
        RESULTS.write_text("\n".join(report) + "\n")
    print("\n".join(table))
    print(f"citation support {out['citation_support']:.3f} over {out['claims']} claims; {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
