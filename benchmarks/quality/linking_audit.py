"""Study ``linking_audit``: precision of linked mentions on the bundled PDFs and abstracts (issue 14).

Protocol
--------
1. **Collect.** Every mention the product links (the ingestion path: :class:`EntityExtractor` ->
   :class:`~engram_kit.ingestion.pipeline.MentionLinker` with ``Settings()`` defaults, resolver with the
   default MiniLM embedder) in

   * the four bundled PDFs (``data/pdfs``): parsed with :func:`~engram_kit.ingestion.pdf.parse_pdf`, each
     retrievable section chunked into passages with :func:`~engram_kit.ingestion.chunking.chunk_text`, as
     :class:`~engram_kit.ingestion.documents.DocumentPipeline` does;
   * the bundled PubMed abstracts (``data/pubmed/abstracts-sample.jsonl.gz``, title + abstract, as
     :class:`~engram_kit.ingestion.pipeline.PubMedIngestor` does).

2. **Sample, once.** :data:`SAMPLE_SIZE` linked mentions per corpus drawn with seed :data:`SEED` from the
   links of the code of commit ``2cdf145`` (before issue 14), plus every mention a later system linked
   in the same sentences that the first sample did not hold (judged at the same time), so both systems are
   scored on the same fixed set of (sentence, mention) items.

3. **Judge, once, by hand** (``data/linking_audit.tsv``): for each item the right graph node, or ``-``
   when no node of the graph is the right reading (author initials, software words, a more specific
   disease than the text says...). ``judgement`` says whether the link stored in the file was right;
   ``judged_by`` who judged it and when. Items ``b...`` are the first sample (2cdf145's links); items
   ``n...`` are the links the issue-14 code made in the same sentences that the first sample did not hold,
   judged from their sentence once on 2026-12-01, so precision covers every link in the sampled sentences.

4. **Re-score automatically** (:func:`score`): collect the current system's links, find each gold item
   (same corpus, document, sentence text and mention text), and count

   * precision = right links / links on gold items;
   * recall = right links / gold items that have a right node (relative recall: the sample holds only
     mentions some system linked).

``python -m benchmarks.quality.linking_audit`` prints and writes ``benchmarks/results/linking_audit.md``.
"""

from __future__ import annotations

import csv
import gzip
import json
import logging
import random
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from benchmarks.quality.common import REPO, StudyOptions, StudyResult, markdown_table, write_report

log = logging.getLogger(__name__)

PDF_DIR = REPO / "data" / "pdfs"
ABSTRACTS = REPO / "data" / "pubmed" / "abstracts-sample.jsonl.gz"
GOLD = Path(__file__).resolve().parent / "data" / "linking_audit.tsv"
#: Linked mentions drawn per corpus, and the seed of the draw.
SAMPLE_SIZE = 200
SEED = 14
#: Columns of the gold file.
GOLD_COLUMNS = ("item", "corpus", "doc", "mention", "context", "linked_id", "linked_name", "judgement", "gold_id",
                "judged_by")
_STUDY_NAME = "linking_audit"


@dataclass(frozen=True)
class Unit:
    """One text the product extracts from: corpus (``pdf``/``abstract``), document, passage text, and for a
    table passage its caption label (``"Table 3"``; ``""`` for prose)."""

    corpus: str
    doc: str
    text: str
    table: str = ""


def pdf_units(pdf_dir: Path = PDF_DIR) -> Iterator[Unit]:
    """Passages of the bundled PDFs that the document pipeline sends to entity extraction: retrievable
    sections whose passage kind (:func:`~engram_kit.ingestion.documents.passage_kind`) is not one of
    :data:`~engram_kit.ingestion.chunking.NO_LINK_PASSAGE_KINDS` (front matter, back matter, references;
    captions are their own passages, never extracted), chunked as the pipeline chunks them; then the table
    passages of each section, which the pipeline links by the cell rules of
    :func:`~engram_kit.extraction.tables.table_mentions`."""
    from engram_kit.ingestion.chunking import NO_LINK_PASSAGE_KINDS, chunk_text, default_token_counter
    from engram_kit.ingestion.documents import block_passages, passage_kind
    from engram_kit.ingestion.pdf import parse_pdf

    counter = default_token_counter()
    for path in sorted(pdf_dir.glob("*.pdf")):
        parsed = parse_pdf(path.read_bytes(), filename=path.name)
        for section in parsed.sections:
            if not section.retrievable:
                continue
            if section.text and passage_kind(section) not in NO_LINK_PASSAGE_KINDS:
                for chunk in chunk_text(section.text):
                    yield Unit("pdf", path.stem, chunk.text)
            for block in section.blocks:
                if block.kind == "table":
                    label = " ".join(block.title.split()[:2])
                    for text, _ in block_passages(block, counter):
                        yield Unit("pdf", path.stem, text, label)


def abstract_units(path: Path = ABSTRACTS) -> Iterator[Unit]:
    """Title + abstract of each bundled PubMed record (the text PubMed ingestion extracts from)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            text = f"{row.get('title', '')}\n{row.get('abstract', '')}".strip()
            yield Unit("abstract", str(row["pmid"]), text)


def sentence_of(text: str, start: int, end: int) -> str:
    """The sentence holding ``text[start:end]`` (whitespace collapsed), by the product's sentence splitter."""
    from engram_kit.text import sentence_spans

    for s, e in sentence_spans(text):
        if s <= start and end <= e:
            return " ".join(text[s:e].split())
    return " ".join(text[max(0, start - 150):end + 150].split())


def collect(units: list[Unit], *, progress: bool = False, ner: str | None = None) -> pd.DataFrame:
    """Linked mentions of ``units`` by the current code (top candidate of :class:`MentionLinker`).

    ``ner`` is the extractor's NER option (None: what a workspace ingests with,
    :data:`~engram_kit.extraction.extractor.INGESTION_NER`, the ``bc5cdr-terms`` tagger; ``"off"`` none;
    ``"bc5cdr-cnn"`` the bundled CNN's spans).

    Returns
    -------
    DataFrame
        Columns ``corpus, doc, mention, context, linked_id, linked_name, kind, confidence, method, table``
        (``table``: the caption label of a table passage, ``""`` for prose); one row per linked mention
        occurrence. Table passages are extracted with :func:`~engram_kit.extraction.tables.table_mentions`,
        as :class:`~engram_kit.ingestion.documents.DocumentPipeline` does.
    """
    from engram_kit.embeddings import default_embedder
    from engram_kit.extraction import EntityExtractor
    from engram_kit.extraction.extractor import INGESTION_NER
    from engram_kit.extraction.lexicon import BUNDLED_SYNONYMS_DIR, Lexicon, load_node_table
    from engram_kit.extraction.tables import table_mentions
    from engram_kit.ingestion.pipeline import MentionLinker
    from engram_kit.resolution import EntityResolver
    from engram_kit.settings import Settings

    nodes = load_node_table(REPO / "data" / "hetionet" / "hetionet-v1.0-nodes.tsv.gz")
    lexicon = Lexicon.build(nodes, BUNDLED_SYNONYMS_DIR)
    extractor = EntityExtractor(lexicon, ner=ner or INGESTION_NER)
    resolver = EntityResolver(lexicon, nodes, embedder=default_embedder(), node_prior=bundled_degree())
    settings = Settings()
    linker = MentionLinker(resolver, min_confidence=settings.min_link_confidence,
                           max_candidates=settings.max_candidates)
    rows = []
    found: list = []
    for corpus, _doc, group in _documents(units):
        prose = [u.text for u in group if not u.table]
        # a PDF is one document (short forms defined once hold in every passage); each abstract is its own
        extracted = iter(extractor.extract_many(prose, same_document=True) if corpus == "pdf"
                         else extractor.extract_many(prose, progress=progress))
        found.extend(table_mentions(u.text, lexicon) if u.table else next(extracted) for u in group)
    for unit, mentions in zip(units, found):
        for mention in mentions:
            candidates = linker.link(mention)
            if not candidates:
                continue
            best = candidates[0]
            context = mention.sentence if unit.table else sentence_of(unit.text, mention.start, mention.end)
            rows.append({"corpus": unit.corpus, "doc": unit.doc, "mention": mention.text,
                         "context": context, "linked_id": best.node_id,
                         "linked_name": best.name, "kind": best.kind, "confidence": round(best.confidence, 4),
                         "method": best.method, "table": unit.table})
    return pd.DataFrame(rows)


def _documents(units: list[Unit]) -> Iterator[tuple[str, str, list[Unit]]]:
    """Consecutive runs of PDF passages of one document; all abstracts as one run (order kept)."""
    run: list[Unit] = []
    for unit in units:
        if run and (unit.corpus != run[0].corpus or (unit.corpus == "pdf" and unit.doc != run[0].doc)):
            yield run[0].corpus, run[0].doc, run
            run = []
        run.append(unit)
    if run:
        yield run[0].corpus, run[0].doc, run


def bundled_degree() -> dict[str, float]:
    """Degree of each node in the bundled Hetionet edge sample (the KG of a workspace built from ``data/``),
    the resolver's ``node_prior`` as :class:`~engram_kit.workspace.Workspace` passes it."""
    from collections import Counter

    degree: Counter[str] = Counter()
    with gzip.open(REPO / "data" / "hetionet" / "hetionet-v1.0-edges-sample.tsv.gz", "rt", encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            source, _, target = line.split("\t", 3)[:3]
            degree[source] += 1
            degree[target] += 1
    return {k: float(v) for k, v in degree.items()}


def all_units() -> list[Unit]:
    """PDF passages then abstracts."""
    return [*pdf_units(), *abstract_units()]


def draw_sample(links: pd.DataFrame, *, size: int = SAMPLE_SIZE, seed: int = SEED) -> pd.DataFrame:
    """``size`` distinct (corpus, doc, context, mention) links per corpus, drawn with ``seed``."""
    out = []
    for corpus in ("pdf", "abstract"):
        rows = links[links["corpus"] == corpus].drop_duplicates(["doc", "context", "mention"])
        keys = sorted(range(len(rows)))
        random.Random(f"{seed}-{corpus}").shuffle(keys)
        out.append(rows.iloc[keys[:size]])
    return pd.concat(out, ignore_index=True)


def read_gold(path: Path = GOLD) -> pd.DataFrame:
    """The hand-judged gold file (columns :data:`GOLD_COLUMNS`)."""
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=csv.QUOTE_NONE, escapechar="\\")


def score(gold: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """Precision and relative recall of ``links`` (from :func:`collect`) on the gold items, per corpus.

    A gold item is matched by (corpus, doc, mention) and the most similar sentence; ``gold_id`` ``-`` means no node is right,
    several ids joined by ``|`` are equally right (two pathway databases' "Apoptosis"). A table cell is
    matched by its table instead, and a gold mention the system read as part of a longer span of the same
    sentence (one modifier word before it) is matched by that span (see ``link_of``).
    """
    system: dict[tuple[str, str, str], list[tuple[set[str], str, str]]] = {}
    tables = links["table"] if "table" in links.columns else pd.Series([""] * len(links), index=links.index)
    for row, table in zip(links.itertuples(index=False), tables.fillna("").astype(str)):
        system.setdefault((row.corpus, row.doc, row.mention), []).append(
            (set(row.context.split()), row.linked_id, table))

    def link_of(corpus: str, doc: str, mention: str, context: str) -> str | None:
        """The system's link of this mention in the sentence most like the gold one (Jaccard of words >= 0.5:
        sentence splitting may change between versions). A mention the system linked in a cell of table
        "Table N" matches a gold item whose context holds "Table N" and the mention as a word: the first
        sample was drawn when the parser read tables as prose glued to the page's margin text, so the gold
        context of a table cell is that glued text, not today's row."""
        words = set(context.split())
        best, best_overlap = None, 0.5
        for other, node, _ in system.get((corpus, doc, mention), ()):
            overlap = len(words & other) / len(words | other) if words | other else 0.0
            if overlap >= best_overlap:
                best, best_overlap = node, overlap
        if best is None:
            for _, node, table in system.get((corpus, doc, mention), ()):
                if table and f"{table} " in context and mention in words:
                    return node
        if best is None:  # one modifier word more before the mention, in the same sentence ("Deep venous
            # thrombosis" for the gold item "venous thrombosis"): the system read those words as that span
            pattern = re.compile(rf"^\S+ {re.escape(mention.casefold())}$")
            for (c, d, other_mention), rows in system.items():
                if c != corpus or d != doc or other_mention == mention or not pattern.search(other_mention.casefold()):
                    continue
                for other, node, _ in rows:
                    overlap = len(words & other) / len(words | other) if words | other else 0.0
                    if overlap >= best_overlap:
                        best, best_overlap = node, overlap
        return best

    rows = []
    for corpus in ("pdf", "abstract"):
        part = gold[gold["corpus"] == corpus]
        linked = right = positives = 0
        for item in part.itertuples(index=False):
            got = link_of(item.corpus, item.doc, item.mention, item.context)
            positives += item.gold_id != "-"
            if got is None:
                continue
            linked += 1
            right += got in item.gold_id.split("|")
        rows.append({"corpus": corpus, "gold items": len(part), "items with a right node": positives,
                     "linked": linked, "right": right, "precision": right / linked if linked else float("nan"),
                     "recall": right / positives if positives else float("nan")})
    return pd.DataFrame(rows)


def gold_units(gold: pd.DataFrame) -> list[Unit]:
    """The units of the documents the gold file samples from (scoring needs no others)."""
    docs = set(zip(gold["corpus"], gold["doc"]))
    return [u for u in all_units() if (u.corpus, u.doc) in docs]


def run(options: StudyOptions) -> StudyResult:
    """Collect the current links, score them against the gold file and write ``linking_audit.md``."""
    started = time.perf_counter()
    gold = read_gold()
    links = collect(gold_units(gold), progress=options.progress)
    table = score(gold, links)
    first = score(gold[gold["item"].str.startswith("b")], links)
    body = [
        "- Gold: `benchmarks/quality/data/linking_audit.tsv`, hand-judged once (see the module docstring).",
        f"- Links collected now (documents of the gold file): {len(links)} linked mention occurrences "
        f"({(links['corpus'] == 'pdf').sum()} in PDF passages, {(links['corpus'] == 'abstract').sum()} in abstracts).",
        "", "## Precision on all judged items (first sample + the later links in its sentences)", "",
        markdown_table(table.to_dict("records")), "",
        "## First sample only (2cdf145's 400 links; recall comparable with the baseline's)", "",
        markdown_table(first.to_dict("records")), "",
    ]
    report = write_report(options, _STUDY_NAME, "Linking-precision audit (bundled PDFs and abstracts)", body)
    summary = {f"{r['corpus']}_precision": float(r["precision"]) for r in table.to_dict("records")}
    summary |= {f"{r['corpus']}_recall": float(r["recall"]) for r in table.to_dict("records")}
    return StudyResult(_STUDY_NAME, report, [], summary, time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.quality.linking_audit [--dump FILE]``: score, or dump the current links."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.quality.linking_audit", description=main.__doc__)
    parser.add_argument("--dump", type=Path, default=None, help="write the current links as TSV and stop")
    parser.add_argument("--gold-docs", action="store_true", help="with --dump: only the documents of the gold file")
    parser.add_argument("--ner", default=None, help="extractor NER option for --dump (default: the product's)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if args.dump is not None:
        links = collect(gold_units(read_gold()) if args.gold_docs else all_units(), progress=True, ner=args.ner)
        args.dump.parent.mkdir(parents=True, exist_ok=True)
        links.to_csv(args.dump, sep="\t", index=False)
        print(f"{len(links)} links -> {args.dump}")
        return 0
    result = run(StudyOptions())
    print(result.report)
    for key, value in result.summary.items():
        print(f"{key} = {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
