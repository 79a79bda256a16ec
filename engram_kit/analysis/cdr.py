"""Precision of the typed relation patterns on BioCreative V CDR chemical-induced-disease (CID) relations.

Corpus: BC5CDR (Li et al., "BioCreative V CDR task corpus: a resource for chemical disease relation
extraction", Database 2016), PubTator format: ``pmid|t|title``, ``pmid|a|abstract``, mention lines
``pmid<TAB>start<TAB>end<TAB>text<TAB>Chemical|Disease<TAB>MeSH id(s)`` and relation lines
``pmid<TAB>CID<TAB>chemical MeSH<TAB>disease MeSH``. CID relations are document-level.

Method
------
1. The document text is ``title + "\\n" + abstract``: PubTator offsets count one separator character
   between title and abstract, so gold offsets stay valid.
2. The :class:`~engram_kit.analysis.LiteratureMapBuilder` builds the document graph with our own
   extraction and resolution (gold mentions are never given to it).
3. Every mention we extracted and linked is matched to the gold mentions whose span overlaps it; an entity
   of ours thereby gets the set of gold MeSH ids (per type) of all its mentions in that document.
4. A pattern edge ``(relation, source, target)`` is **judged** when its source maps to at least one gold
   Chemical id and its target to at least one gold Disease id; it is **correct** when some (chemical,
   disease) combination is a gold CID pair of the document. Edges are counted once per document.
   Pattern edges whose ends do not both overlap gold mentions (the extractor found something the
   annotators did not mark, or a Gene / Anatomy entity) are reported as unjudged.
5. The same judgement applied to every sentence co-occurrence edge gives the co-occurrence baseline.

Only CAUSES is expected to agree with CID; TREATS edges between a chemical and a disease are mostly
*not* CID pairs (BC5CDR annotates induced diseases, not treated ones), which the per-relation table shows.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from engram_kit.analysis.cooccurrence import LiteratureMapBuilder
from engram_kit.errors import DataError

log = logging.getLogger(__name__)

__all__ = ["CdrDocument", "CidEvaluation", "evaluate_cid", "read_pubtator"]


@dataclass
class CdrDocument:
    """One PubTator document.

    Attributes
    ----------
    pmid : str
    title, abstract : str
    mentions : list of (start, end, text, type, mesh ids)
        Gold mentions; offsets into ``text``; ``mesh ids`` a tuple (``"D001|D002"`` split), ``-1`` dropped.
    cid : set of (str, str)
        Gold (chemical MeSH, disease MeSH) pairs.
    """

    pmid: str
    title: str
    abstract: str
    mentions: list[tuple[int, int, str, str, tuple[str, ...]]] = field(default_factory=list)
    cid: set[tuple[str, str]] = field(default_factory=set)

    @property
    def text(self) -> str:
        """``title + "\\n" + abstract`` (offsets as in PubTator)."""
        return f"{self.title}\n{self.abstract}"


def read_pubtator(path: str | Path) -> Iterator[CdrDocument]:
    """Read a BC5CDR PubTator file.

    Raises
    ------
    DataError
        If the file is missing or a mention line is malformed.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"PubTator file {path} does not exist; BC5CDR lives in shared/data/corpora/BC5CDR/.")
    document: CdrDocument | None = None
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if not line:
                if document is not None:
                    yield document
                document = None
                continue
            if "|t|" in line[:20]:
                pmid, _, title = line.split("|", 2)
                document = CdrDocument(pmid, title, "")
                continue
            if "|a|" in line[:20] and document is not None:
                document.abstract = line.split("|", 2)[2]
                continue
            parts = line.split("\t")
            if document is None:
                raise DataError(f"{path}:{number}: annotation before a title line.")
            if len(parts) >= 4 and parts[1] == "CID":
                document.cid.add((parts[2], parts[3]))
            elif len(parts) >= 6:
                ids = tuple(i for i in parts[5].split("|") if i and i != "-1")
                document.mentions.append((int(parts[1]), int(parts[2]), parts[3], parts[4], ids))
            else:
                raise DataError(f"{path}:{number}: expected a mention (6 fields) or a CID line (4 fields).")
    if document is not None:
        yield document


@dataclass
class CidEvaluation:
    """Precision of pattern (and co-occurrence) edges against CID gold pairs.

    Attributes
    ----------
    by_relation : DataFrame
        ``relation, edges, judged, correct, precision, unjudged`` per typed relation, plus a
        ``co-occurrence`` row (all sentence co-occurrence edges, the baseline).
    judgements : DataFrame
        One row per judged pattern edge: ``pmid, relation, source, target, correct, evidence``.
    documents : int
    gold_pairs : int
        CID pairs in the documents.
    causes_recall : float
        Share of gold CID pairs matched by a correct CAUSES edge (bounded by lexicon coverage).
    """

    by_relation: pd.DataFrame
    judgements: pd.DataFrame
    documents: int
    gold_pairs: int
    causes_recall: float

    def to_frame(self) -> pd.DataFrame:
        """The per-relation table."""
        return self.by_relation

    def precision(self, relation: str = "CAUSES") -> float:
        """Precision of one relation (NaN when nothing was judged)."""
        row = self.by_relation[self.by_relation["relation"] == relation]
        return float(row["precision"].iloc[0]) if len(row) else float("nan")


def _gold_ids(document: CdrDocument, spans: Iterable[tuple[int, int]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for start, end in spans:
        for g_start, g_end, _, g_type, ids in document.mentions:
            if g_start < end and start < g_end:
                found[g_type].update(ids)
    return found


def evaluate_cid(builder: LiteratureMapBuilder, documents: Iterable[CdrDocument]) -> CidEvaluation:
    """Judge the builder's pattern edges (and co-occurrence edges) against CID gold relations.

    Parameters
    ----------
    builder : LiteratureMapBuilder
        With the extractor, resolver and patterns to evaluate.
    documents : iterable of CdrDocument
        E.g. ``read_pubtator(".../CDR_TestSet.PubTator.txt")``.

    Returns
    -------
    CidEvaluation
    """
    docs = list(documents)
    all_mentions = builder.extractor.extract_many([d.text for d in docs])
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # edges, judged, correct, unjudged
    rows = []
    found_pairs: set[tuple[str, str, str]] = set()
    for document, mentions in zip(docs, all_mentions):
        graph = builder.build_document(f"pubmed:{document.pmid}", document.text, mentions=mentions)
        spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for mention in mentions:
            info = builder.link(mention)
            if info is not None:
                spans[info.id].append((mention.start, mention.end))
        gold = {entity: _gold_ids(document, s) for entity, s in spans.items()}

        def judge(source: str, target: str) -> tuple[bool, bool, set[tuple[str, str]]]:
            chemicals = gold.get(source, {}).get("Chemical", set())
            diseases = gold.get(target, {}).get("Disease", set())
            pairs = {(c, d) for c in chemicals for d in diseases}
            return bool(pairs), bool(pairs & document.cid), pairs & document.cid

        for (a, b), stats in graph.edges.items():
            judged_ab, correct_ab, _ = judge(a, b)
            judged_ba, correct_ba, _ = judge(b, a)
            tally = counts["co-occurrence"]
            tally[0] += 1
            if judged_ab or judged_ba:
                tally[1] += 1
                tally[2] += int(correct_ab or correct_ba)
            else:
                tally[3] += 1
            for (relation, source, target), _n in stats.relations.items():
                tally = counts[relation]
                tally[0] += 1
                judged, correct, hits = judge(source, target)
                if not judged:
                    tally[3] += 1
                    continue
                tally[1] += 1
                tally[2] += int(correct)
                if relation == "CAUSES":
                    found_pairs.update((document.pmid, c, d) for c, d in hits)
                evidence = next((e.text for e in stats.relation_evidence if e.relation == relation
                                 and e.source == source), "")
                rows.append({"pmid": document.pmid, "relation": relation, "source": graph.entities[source].name,
                             "target": graph.entities[target].name, "correct": correct, "evidence": evidence})
    order = ["CAUSES", "TREATS", "INHIBITS", "ACTIVATES", "REGULATES", "INTERACTS_WITH", "ASSOCIATED_WITH",
             "co-occurrence"]
    table = [{"relation": r, "edges": counts[r][0], "judged": counts[r][1], "correct": counts[r][2],
              "precision": (counts[r][2] / counts[r][1]) if counts[r][1] else float("nan"),
              "unjudged": counts[r][3]} for r in order if r in counts]
    gold_pairs = sum(len(d.cid) for d in docs)
    return CidEvaluation(
        by_relation=pd.DataFrame(table, columns=["relation", "edges", "judged", "correct", "precision", "unjudged"]),
        judgements=pd.DataFrame(rows, columns=["pmid", "relation", "source", "target", "correct", "evidence"]),
        documents=len(docs), gold_pairs=gold_pairs,
        causes_recall=len(found_pairs) / gold_pairs if gold_pairs else float("nan"))
