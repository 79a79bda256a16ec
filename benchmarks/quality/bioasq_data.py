"""BioASQ 12b dev split as a retrieval benchmark (protocol of ``../shared/data/README.md``, qa/bioasq12b-dev).

The abstracts are not distributed with BioASQ's golden files, so the corpus is built from the gold snippets:
one record per gold PMID that has at least one snippet, whose text is that PMID's distinct snippet texts
(title snippets first, then abstract snippets in first-seen order), pooled over every question of the split.
A question's gold documents are its gold PMIDs that have a record (a gold PMID without any snippet has no
text and cannot be retrieved; the report counts them).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The dev split's golden files under the shared data folder.
BIOASQ_DIR = "qa/bioasq12b-dev"
BIOASQ_FILES = ("12B1_golden.json", "12B2_golden.json")


@dataclass(frozen=True)
class BioASQQuestion:
    """One BioASQ question: ``qid`` (BioASQ id), ``text``, ``kind`` (yesno/factoid/list/summary) and the
    gold passage ids (``pubmed:<pmid>#p0``) that are in the corpus."""

    qid: str
    text: str
    kind: str
    gold: tuple[str, ...]


def _pmid(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def load_bioasq(shared_data: Path) -> tuple[list[BioASQQuestion], list[Any], dict[str, int], str]:
    """Questions, the snippet corpus (``PubMedRecord`` list, sorted by PMID), counts for the report and
    the corpus fingerprint (cached workspaces with another fingerprint are rebuilt).

    Raises
    ------
    FileNotFoundError
        If the golden files are not under ``shared_data / qa/bioasq12b-dev``.
    """
    from engram_kit.ingestion.pubmed import PubMedRecord

    raw: list[dict[str, Any]] = []
    for name in BIOASQ_FILES:
        path = shared_data / BIOASQ_DIR / name
        if not path.is_file():
            raise FileNotFoundError(f"BioASQ golden file not found at {path}: pass --shared-data (or set "
                                    "ENGRAM_SHARED_DATA) to a folder holding qa/bioasq12b-dev/.")
        raw.extend(json.loads(path.read_text())["questions"])
    titles: dict[str, list[str]] = {}
    bodies: dict[str, list[str]] = {}
    for q in raw:
        for s in q.get("snippets", []):
            pmid, text = _pmid(s["document"]), " ".join(str(s["text"]).split())
            if not text:
                continue
            target = titles if s.get("beginSection") == "title" else bodies
            seen = target.setdefault(pmid, [])
            if text not in seen:
                seen.append(text)
    pmids = sorted(set(titles) | set(bodies), key=lambda p: (len(p), p))
    records = []
    digest = hashlib.sha256()
    for p in pmids:
        title = " ".join(titles.get(p, []))
        body = " ".join(t for t in bodies.get(p, []) if t not in titles.get(p, []))
        digest.update(f"{p}\t{title}\t{body}\n".encode())
        # a PMID with title snippets only becomes a record whose text is that title (a record needs an abstract)
        records.append(PubMedRecord(pmid=p, title=title, abstract=body) if body
                       else PubMedRecord(pmid=p, title="", abstract=title))
    in_corpus = set(pmids)
    questions, gold_total, gold_missing = [], 0, 0
    for q in raw:
        gold = list(dict.fromkeys(_pmid(d) for d in q.get("documents", [])))
        gold_total += len(gold)
        kept = tuple(f"pubmed:{p}#p0" for p in gold if p in in_corpus)
        gold_missing += len(gold) - len(kept)
        if kept:
            questions.append(BioASQQuestion(str(q["id"]), str(q["body"]).strip(), str(q["type"]), kept))
    counts = {"questions in files": len(raw), "questions with a gold record": len(questions),
              "gold PMIDs (question, PMID pairs)": gold_total, "gold pairs without any snippet (unretrievable)": gold_missing,
              "corpus records": len(records)}
    return questions, records, counts, digest.hexdigest()[:16]
