"""Evidence desk development set: accuracy of offline answers on hand-written Hetionet questions.

The questions, categories and reference Cypher are in :mod:`benchmarks.quality.desk_dev_questions`; the
reference answers are computed from that Cypher on the full shared Hetionet and stored in
``benchmarks/quality/data/desk_dev.jsonl`` (``--build``). Evaluation runs the offline desk on every question
against the same graph and judges the rows its kept claims cite:

* ``list``: correct when the desk lists at least one answer, every listed answer is in the reference set,
  and the total it states equals the reference set's size;
* ``count``: correct when a kept claim cites a count equal to the reference count;
* ``top``: correct when the first listed answer has the reference's largest count;
* ``none`` (unanswerable): correct when the desk declines (keeps no claim).

The graph: a workspace built from ``<shared>/hetionet`` (1,359,477 edges), cached under
``benchmarks/.cache/desk-hetionet``. Usage: ``python -m benchmarks.quality.desk_dev [--build] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.quality.common import REPO, default_shared_data, provenance
from benchmarks.quality.desk_dev_questions import QUESTIONS

DATA = REPO / "benchmarks" / "quality" / "data" / "desk_dev.jsonl"
CACHE = REPO / "benchmarks" / ".cache" / "desk-hetionet"
RESULTS = REPO / "benchmarks" / "results" / "desk_dev.md"


def open_workspace(shared: Path):  # Workspace
    """The full-Hetionet workspace (built once into the cache) from the shared data root ``shared`` (the
    folder holding ``hetionet/``, ``pubmed/`` and ``synonyms/``)."""
    from engram_kit import Workspace
    from engram_kit.datasets import resolve_data_paths

    if (CACHE / "manifest.json").exists():
        return Workspace.open(CACHE, read_only=True)
    Workspace.create(CACHE, data=resolve_data_paths(shared), overwrite=True).close()
    return Workspace.open(CACHE, read_only=True)


def build(ws) -> list[dict[str, Any]]:
    """Reference answers from the hand-written Cypher (see the module docstring)."""
    items, problems = [], []
    for i, (category, question, cypher, kind) in enumerate(QUESTIONS, 1):
        answer: Any = None
        n_nodes = 0
        if cypher:
            frame = ws.store.read_only_query(cypher, {})
            rows = frame.to_dict(orient="records") if hasattr(frame, "to_dict") else list(frame)
            if kind == "list" or kind == "none":  # names, and the number of distinct nodes (names can repeat)
                answer = sorted({str(r["name"]) for r in rows})
                n_nodes = len({str(r["id"]) for r in rows})
            elif kind == "count":
                answer = int(rows[0]["n"]) if rows else 0
            elif kind == "top":
                best = max(int(r["n"]) for r in rows)
                answer = {"n": best, "names": sorted(str(r["name"]) for r in rows if int(r["n"]) == best)}
        if (kind == "none" and answer) or (kind == "list" and not answer):
            problems.append(f"{question!r}: kind {kind} but reference answer {str(answer)[:80]}")
        items.append({"id": f"d{i:02d}", "category": category, "question": question, "cypher": cypher,
                      "kind": kind, "answer": answer, "n": n_nodes if kind == "list" else None})
    if problems:
        raise SystemExit("Reference answers contradict the categories:\n" + "\n".join(problems))
    DATA.write_text("".join(json.dumps(x) + "\n" for x in items))
    return items


def judge(item: dict[str, Any], result) -> tuple[bool, str]:  # DeskResult
    """Whether the desk's kept claims answer ``item`` (rules in the module docstring), and why not."""
    arts = {a.id: a for a in result.artifacts}
    listed: list[str] = []
    counts: list[int] = []
    for claim in result.claims:
        for cite in claim.citations:
            aid, _, rid = cite.partition(":")
            row = arts[aid].row(rid) or {}
            if "target" in row:
                listed.append(str(row["target"]))
            elif "n" in row:
                counts.append(int(row["n"]))
    kind, answer = item["kind"], item["answer"]
    if kind == "none":
        return (not result.claims), f"declined={not result.claims}"
    if kind == "list":
        wrong = [x for x in listed if x not in set(answer)]
        ok = bool(listed) and not wrong and item["n"] in counts
        return ok, f"listed={len(listed)} wrong={wrong[:3]} totals={counts} ref={item['n']}"
    if kind == "count":
        return answer in counts, f"counts={counts} ref={answer}"
    if kind == "top":
        ok = bool(listed) and listed[0] in answer["names"]
        return ok, f"first={listed[:1]} ref={answer['names'][:3]} ({answer['n']})"
    raise ValueError(kind)


class MemoryPeak:
    """Peak resident memory of this process, of its children (the desk's query process) and of the two
    together, sampled every ``interval`` seconds from a thread (psutil RSS, MiB). The sum is the whole
    operation's peak that ``desk_max_memory_mb`` does not bound (it bounds the query process only; issue 31
    item 7); sampled, so a spike shorter than the interval can be missed (the per-process VmHWM is exact)."""

    def __init__(self, interval: float = 0.05) -> None:
        import threading

        import psutil

        self.interval, self.me = interval, psutil.Process()
        self.caller = self.child = self.total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.wait(self.interval):
            try:
                caller = self.me.memory_info().rss
                child = sum(c.memory_info().rss for c in self.me.children(recursive=True))
            except psutil.Error:
                continue
            self.caller, self.child = max(self.caller, caller), max(self.child, child)
            self.total = max(self.total, caller + child)

    def __enter__(self) -> MemoryPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def line(self) -> str:
        mib = 2 ** 20
        return (f"Peak memory of the whole operation (this process + the desk's query process, sampled every "
                f"{self.interval * 1000:.0f} ms): {self.total / mib:,.0f} MiB; this process alone "
                f"{self.caller / mib:,.0f} MiB, the query process alone {self.child / mib:,.0f} MiB "
                "(`desk_max_memory_mb` bounds only the latter).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="recompute the reference answers")
    parser.add_argument("--shared-data", type=Path, default=default_shared_data())
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not (args.shared_data / "hetionet").exists():
        print(f"skipped: no shared Hetionet under {args.shared_data}")
        return 0
    started = time.perf_counter()
    ws = open_workspace(args.shared_data)
    items = build(ws) if args.build or not DATA.exists() else [json.loads(x) for x in DATA.read_text().splitlines()]
    desk = ws.evidence_desk()
    by_cat: dict[str, list[bool]] = defaultdict(list)
    lines = []
    memory = MemoryPeak().__enter__()
    for item in items:
        result = desk.investigate(item["question"])
        ok, why = judge(item, result)
        by_cat[item["category"]].append(ok)
        lines.append(f"| {item['id']} | {item['category']} | {item['question']} | {'yes' if ok else 'no'} | "
                     f"{result.template or '-'} | {why.replace('|', '/')} |")
        if args.verbose:
            print(("OK  " if ok else "BAD ") + item["question"], "::", result.template, "::", why)
    memory.__exit__()
    answerable = [ok for c, v in by_cat.items() if c != "unanswerable" for ok in v]
    declines = by_cat.get("unanswerable", [])
    seconds = time.perf_counter() - started
    table = ["| category | questions | correct | accuracy |", "|---|---:|---:|---:|"]
    for cat in ("single", "two_hop", "aggregate", "lay", "unanswerable"):
        v = by_cat.get(cat, [])
        if v:
            table.append(f"| {cat} | {len(v)} | {sum(v)} | {sum(v) / len(v):.1%} |")
    table.append(f"| **answerable** | {len(answerable)} | {sum(answerable)} | "
                 f"**{sum(answerable) / max(len(answerable), 1):.1%}** |")
    table.append(f"| **unanswerable declined** | {len(declines)} | {sum(declines)} | "
                 f"**{sum(declines) / max(len(declines), 1):.1%}** |")
    report = ["# Evidence desk development set (offline intent plans, full shared Hetionet)", "",
              *provenance(["ladybug"]), "",
              f"{len(items)} questions; graph: shared Hetionet (1,359,477 edges); wall time {seconds:.0f} s on the "
              "shared, loaded 2-core machine. Rules: `benchmarks/quality/desk_dev.py` docstring.", "",
              memory.line(), "",
              *table, "", "| id | category | question | correct | plan | detail |", "|---|---|---|---|---|---|", *lines]
    RESULTS.write_text("\n".join(report) + "\n")
    print("\n".join(table))
    print(memory.line())
    ws.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
