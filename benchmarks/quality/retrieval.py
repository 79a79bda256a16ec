"""Study ``retrieval``: passage retrieval on PubMedQA PQA-L (issue 7, item 2).

Task
----
Each of the 1,000 expert-labelled PubMedQA questions (PQA-L, Jin et al. 2019) was written from one PubMed
abstract; the gold passage of a question is that abstract. The corpus is every abstract of the shared data
(``pubmed/pubmed_abstracts.jsonl.gz``, 6,107 abstracts, the 1,000 PQA-L ones among them), ingested once into
a workspace built on the full shared Hetionet partial graph (cached under ``benchmarks/.cache/``). Each
abstract is one passage (title + abstract), so Recall@k is "the gold abstract is among the top k".

What is compared
----------------
* **BM25** (bm25s, Lucene BM25 variant, k1=1.5, b=0.75, English stop words, Snowball stemming when
  PyStemmer is installed) over the passage texts.
* **Dense only**: cosine similarity of all-MiniLM-L6-v2 question and passage vectors, exact over the corpus.
* **PPR only**: the passage nodes' Personalized PageRank scores with the question's entities as seeds
  (damping 0.5), i.e. the blend at alpha = 1.
* **Blend**: the retriever's ranking before issue 13, ``alpha * minmax(ppr) + (1 - alpha) * minmax(cosine)`` over the
  candidate pool (top 200 passages by PPR united with the top 200 by cosine), for alpha in
  :data:`ALPHAS`; 0.4 was the retriever's default before issue 13. A question with no resolved entity
  falls back to cosine. The product's current ranking (``Retriever.retrieve``: hybrid text score + bounded PPR
  evidence, :mod:`engram_kit.retrieval.ranking`) is its own row.
* **HippoRAG-style ablations** of the graph signal (Gutierrez et al. 2024, Table 5 ablates PPR the same
  way): *seeds only* (a passage scores the summed seed weight of the seed entities it mentions),
  *seeds + 1-hop* (also the entities one knowledge-graph step from a seed, weighted by one walk step:
  ``damping * T s``), and *full PPR*. Each is reported alone (ties broken by a seeded random order, so a
  tie carries no hidden signal) and blended with cosine at alpha 0.4 through the same pool.
* **Candidate variants** of the core blend (proposals, see the report): reciprocal-rank fusion (Cormack
  et al., SIGIR 2009, k = 60); PPR min-max on log scores; passage-degree-normalised PPR
  (``ppr / degree^0.5``); a dense-only candidate pool; HippoRAG node-specificity seed weights.

The study re-implements the blend from the public pieces (``Retriever.resolve_question``, the graph index,
:func:`personalized_pagerank_many`, the vector store) so that every variant reuses one PPR run per
question; it checks the re-implementation against ``Retriever.retrieve`` on the latency questions and
reports the top-10 agreement (the retriever's cosine pool comes from chromadb's approximate HNSW index,
the study's from an exact dot product, so rare differences are expected). Metrics are computed with
ir-measures (trec_eval back-end) and cross-checked against the gold ranks the study computes itself.

Quick mode (CI) uses bundled data only: the 33 PQA-L questions whose abstracts are in the bundled sample
(``benchmarks/quality/data/pubmedqa_pqal_sample.json``) over those abstracts plus
:data:`QUICK_DISTRACTORS` other bundled abstracts, on the bundled 118k-edge Hetionet sample.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from benchmarks.quality.common import (
    REPO,
    StudyOptions,
    StudyResult,
    grouped_bar_plot,
    markdown_table,
    output_name,
    write_report,
)

log = logging.getLogger(__name__)

#: PubMedQA PQA-L under the shared data folder.
QUESTIONS_FILE = "qa/pubmedqa/ori_pqal.json"
#: Shared abstracts (the full-mode corpus) under the shared data folder.
ABSTRACTS_FILE = "pubmed/pubmed_abstracts.jsonl.gz"
#: Quick-mode questions: PQA-L questions whose abstracts are in the bundled sample.
QUICK_QUESTIONS = Path(__file__).resolve().parent / "data" / "pubmedqa_pqal_sample.json"
#: Bundled abstracts that are not gold for a quick question, ingested as distractors in quick mode.
QUICK_DISTRACTORS = 57
#: Where the benchmark workspaces are cached (git-ignored). Delete a folder to force a rebuild.
CACHE_DIR = REPO / "benchmarks" / ".cache"
#: Blend weights swept (PPR share of the blended score).
ALPHAS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: The old blend's default weight (Settings.ppr_weight before issue 13), kept as the reference row.
DEFAULT_ALPHA = 0.4
#: Passages kept per question in the run handed to ir-measures (deeper ranks count as not retrieved).
RUN_DEPTH = 100
#: Questions timed end to end through ``Retriever.retrieve`` (full mode, quick mode).
LATENCY_QUESTIONS = 40
QUICK_LATENCY_QUESTIONS = 8
#: Seed-set batch size of :func:`personalized_pagerank_many`.
PPR_BATCH = 32
#: Reciprocal-rank-fusion constant (Cormack, Clarke, Buettcher, SIGIR 2009).
RRF_K = 60
#: Measures (ir-measures names).
MEASURES = ("R@1", "R@5", "R@10", "RR")
#: Row name of the product's own ranking (``Retriever.retrieve``, top 10; deeper ranks count as not retrieved).
PRODUCT = "product default (issue 13 ranking, Retriever.retrieve)"
#: Fixed seed of tie breaking and bootstrap resampling.
SEED = 0
BOOTSTRAP = 2000


# ============================================================================================ data
@dataclass(frozen=True)
class Question:
    qid: str      # the PMID of the question's abstract (PubMedQA's key)
    text: str
    gold: str     # gold passage id


def _fingerprint(items: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(items).encode()).hexdigest()[:16]


def _build_marker(path: Path) -> dict[str, Any]:
    marker = path / "benchmark-build.json"
    return json.loads(marker.read_text()) if marker.is_file() else {}


@contextmanager
def exact_linking_only() -> Iterator[None]:
    """While building the benchmark workspace, link passage mentions by exact name/alias look-up only.

    The fuzzy steps of the resolver (character TF-IDF over ~100k keys, then embeddings) cost ~0.3 CPU-s per
    distinct mention, about 80% of ingestion time; the full corpus would take
    about five times as long to ingest. Every method in the study uses the same workspace, so the comparison
    stays paired; the graph has fewer MAPS_TO links than a default ingestion (fuzzy links are the
    lower-confidence ones). Question parsing keeps the full resolver.
    """
    from engram_kit.resolution.resolver import EntityResolver

    original = EntityResolver._cascade

    def lookup_only(self, text, restrict, context):  # same signature as _cascade
        return self._lookup(text, restrict, context)

    EntityResolver._cascade = lookup_only  # type: ignore[method-assign]
    try:
        yield
    finally:
        EntityResolver._cascade = original  # type: ignore[method-assign]


def corpus_workspace(name: str, data_root: Path | None, records: Callable[[], list[Any]], fingerprint: str,
                     *, progress: bool = False) -> Any:
    """Open the cached benchmark workspace ``benchmarks/.cache/<name>``, building it when missing or stale.

    Parameters
    ----------
    name : folder name under :data:`CACHE_DIR`.
    data_root : data folder the knowledge graph comes from (None: the bundled ``data/``).
    records : returns the PubMed records to ingest (called only when building).
    fingerprint : identifies the corpus; a cached workspace with another fingerprint is rebuilt.

    Returns
    -------
    Workspace
        Opened read-only (a study never writes to it).
    """
    from engram_kit import __version__
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.settings import Settings
    from engram_kit.workspace import Workspace

    path = CACHE_DIR / name
    marker = _build_marker(path)
    if marker.get("fingerprint") != fingerprint or marker.get("engram_kit_version") != __version__:
        started = time.perf_counter()
        log.warning("building benchmark workspace %s (cached afterwards; full corpus takes 15-25 min)", path)
        ws = Workspace.create(path, data=resolve_data_paths(data_root), settings=Settings(progress=progress),
                              overwrite=True)
        created = time.perf_counter()
        docs = records()
        ws.ingest(docs, total=len(docs))
        ws.store.close()
        (path / "benchmark-build.json").write_text(json.dumps({
            "fingerprint": fingerprint, "engram_kit_version": __version__, "documents": len(docs),
            "data_root": str(data_root or "bundled"), "create_seconds": round(created - started, 1),
            "ingest_seconds": round(time.perf_counter() - created, 1)}, indent=1))
    _refresh_lexicon(path)
    return Workspace.open(path, read_only=True)


def _refresh_lexicon(path: Path) -> None:
    """Rebuild the cached lexicon of a benchmark workspace when its file format is older than the code's.

    The passages keep the links made at ingestion; only question resolution uses the rebuilt lexicon.
    Cheaper than re-ingesting the corpus (15-25 min) after a lexicon format bump.
    """
    import pandas as pd

    from engram_kit.errors import DataError
    from engram_kit.extraction.lexicon import Lexicon

    lexicon = path / "cache" / "lexicon.pkl"
    try:
        Lexicon.load(lexicon)
    except DataError as exc:
        log.warning("%s; rebuilding the benchmark workspace's lexicon", exc)
        manifest = json.loads((path / "manifest.json").read_text())
        synonyms = manifest["knowledge_graph"].get("synonyms_dir") or None
        Lexicon.build(pd.read_parquet(path / "cache" / "nodes.parquet"), Path(synonyms) if synonyms else None).save(lexicon)


def load_questions(options: StudyOptions) -> dict[str, str]:
    """PMID -> question text (the 1,000 PQA-L questions; the bundled 33 in quick mode)."""
    if options.quick:
        return {p: q["QUESTION"] for p, q in json.loads(QUICK_QUESTIONS.read_text())["questions"].items()}
    path = options.shared_data / QUESTIONS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"PubMedQA PQA-L not found at {path}: pass --shared-data (or set "
                                "ENGRAM_SHARED_DATA) to a folder holding qa/pubmedqa/ori_pqal.json.")
    return {p: q["QUESTION"] for p, q in json.loads(path.read_text()).items()}


def open_corpus(options: StudyOptions, questions: dict[str, str]) -> Any:
    """The cached workspace of the study's corpus (see the module notes)."""
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.ingestion.pubmed import read_pubmed

    if options.quick:
        abstracts = resolve_data_paths().abstracts
        everything = list(read_pubmed(abstracts))
        gold = [r for r in everything if r.pmid in questions]
        others = [r for r in everything if r.pmid not in questions][:QUICK_DISTRACTORS]
        chosen = gold + others
        return corpus_workspace("pubmedqa-quick-ws", None, lambda: chosen,
                                _fingerprint(sorted(r.pmid for r in chosen)), progress=options.progress)
    abstracts = options.shared_data / ABSTRACTS_FILE
    if not abstracts.is_file():
        raise FileNotFoundError(f"Shared abstracts not found at {abstracts}: pass --shared-data.")
    stat = abstracts.stat()
    with exact_linking_only():  # as in the BioASQ study: the full resolver would take ~5x as long to ingest
        return corpus_workspace("pubmedqa-shared-ws", options.shared_data, lambda: list(read_pubmed(abstracts)),
                                f"{abstracts.name}:{stat.st_size}-exact-linking", progress=options.progress)


# ====================================================================================== benchmark
@dataclass
class Benchmark:
    """Everything the retrieval variants share, computed once per process (see :func:`load_benchmark`).

    Attributes
    ----------
    questions : the questions, in PMID order.
    passage_ids : object array of shape (n_passages,), the corpus passages (all ingested abstracts).
    texts : passage texts, aligned with ``passage_ids``.
    dense : ndarray of shape (n_questions, n_passages), float32, cosine similarity.
    seeds : per question, ``{graph index: seed weight}`` from ``Retriever.resolve_question`` (may be empty).
    entities : per question, the resolved entities (``ResolvedEntity``).
    passage_node : int64 array of shape (n_passages,), graph index of each passage node, -1 when the
        passage mentions no entity (it is then not in the graph).
    mentions : sparse (n_passages, n_kg) 0/1 matrix, passage mentions a linked knowledge-graph entity.
    """

    workspace: Any
    settings: Any
    index: Any
    questions: list[Question]
    passage_ids: np.ndarray
    texts: list[str]
    dense: np.ndarray
    seeds: list[dict[int, float]]
    entities: list[list[Any]]
    passage_node: np.ndarray
    mentions: sp.csr_matrix
    timings: dict[str, float] = field(default_factory=dict)
    _ppr: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def gold_index(self) -> np.ndarray:
        pos = {p: i for i, p in enumerate(self.passage_ids.tolist())}
        return np.array([pos[q.gold] for q in self.questions], dtype=np.int64)


_BENCHMARKS: dict[tuple[bool, str], Benchmark] = {}


def load_benchmark(options: StudyOptions) -> Benchmark:
    """Build (or reuse, within one process) the shared inputs of the retrieval and ppr studies."""
    key = (options.quick, str(options.shared_data))
    if key in _BENCHMARKS:
        return _BENCHMARKS[key]
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    texts_by_pmid = load_questions(options)
    ws = open_corpus(options, texts_by_pmid)
    timings["workspace"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    index = ws.graph_index()
    passage_ids = np.array(sorted(ws.vectors.ids(source="pubmed")), dtype=object)
    rows = ws.store.get_passages(passage_ids.tolist()).set_index("id")
    texts = [str(rows.at[p, "text"]) for p in passage_ids]
    present = set(passage_ids.tolist())
    questions = [Question(p, t, f"pubmed:{p}#p0") for p, t in sorted(texts_by_pmid.items())
                 if f"pubmed:{p}#p0" in present]
    if len(questions) < len(texts_by_pmid):
        log.warning("%d questions have no ingested abstract and are skipped", len(texts_by_pmid) - len(questions))
    embeddings = ws.vectors.get_embeddings(passage_ids.tolist())
    matrix = np.stack([embeddings[p] for p in passage_ids]).astype(np.float32)
    timings["corpus"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    q_vectors = np.asarray(ws.embedder.encode([q.text for q in questions]), dtype=np.float32)
    dense = q_vectors @ matrix.T
    timings["embed_questions"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    retriever = ws.retriever()
    seeds, entities = [], []
    for q in questions:
        resolved, _ = retriever.resolve_question(q.text, index)
        entities.append(resolved)
        seeds.append({int(index.index_of(e.node_id)): float(e.seed_weight) for e in resolved})
    timings["resolve_questions"] = time.perf_counter() - t0

    node_of = dict(zip(index.passage_ids.tolist(), index.passage_nodes.tolist()))
    passage_node = np.array([node_of.get(p, -1) for p in passage_ids], dtype=np.int64)
    frame = ws.store.passage_mentions(passage_ids.tolist())
    frame = frame[frame["entity_id"] != ""]
    pos = {p: i for i, p in enumerate(passage_ids.tolist())}
    kg_idx = [index.index_of(e) for e in frame["entity_id"]]
    keep = [i is not None and i < index.n_kg for i in kg_idx]
    r = np.array([pos[p] for p, k in zip(frame["passage_id"], keep) if k], dtype=np.int64)
    c = np.array([i for i, k in zip(kg_idx, keep) if k], dtype=np.int64)
    mentions = sp.csr_matrix((np.ones(r.size, dtype=np.float64), (r, c)), shape=(len(passage_ids), index.n_kg))
    mentions.data[:] = 1.0  # duplicates summed by the constructor: keep 0/1
    mentions.sum_duplicates()
    mentions.data[:] = 1.0
    bench = Benchmark(ws, ws.settings, index, questions, passage_ids, texts, dense, seeds, entities,
                      passage_node, mentions, timings)
    _BENCHMARKS[key] = bench
    return bench


# ========================================================================================= PPR runs
def specificity_seeds(bench: Benchmark, seeds: dict[int, float]) -> dict[int, float]:
    """HippoRAG node specificity: each seed weight times ``1 / |P_i|`` (passages mentioning node i).

    Gutierrez et al. (NeurIPS 2024), section 2.2: an IDF-like weight so that seeds mentioned in many
    passages (generic entities) restart less of the walk. A seed no passage mentions keeps factor 1.
    """
    counts = np.asarray(bench.mentions.sum(axis=0)).ravel()
    out = {i: w / max(1.0, float(counts[i])) if i < counts.size else w for i, w in seeds.items()}
    total = sum(out.values())
    return {i: w / total for i, w in out.items()} if total > 0 else seeds


def ppr_runs(bench: Benchmark, variant: str = "plain", damping: float | None = None,
             on_scores: Callable[[int, np.ndarray], None] | None = None) -> np.ndarray:
    """Passage PPR scores of every question, shape (n_questions, n_passages), float32 (0 without seeds).

    Parameters
    ----------
    variant : ``"plain"`` (the retriever's seeds) or ``"specificity"`` (:func:`specificity_seeds`).
    damping : default ``Settings.damping`` (0.5).
    on_scores : called with (question number, full score vector of shape (n_nodes,)) for every seeded
        question, for diagnostics that need the whole vector (the ppr study). With a callback the PPR runs
        again; the passage scores are memoised per (variant, damping) either way, so the retrieval study
        run after the ppr study in one process reuses them.
    """
    from engram_kit.retrieval.ppr import personalized_pagerank_many

    damping = bench.settings.damping if damping is None else damping
    key = f"{variant}:{damping}"
    if on_scores is None and key in bench._ppr:
        return bench._ppr[key]
    out = np.zeros((len(bench.questions), len(bench.passage_ids)), dtype=np.float32)
    has_node = bench.passage_node >= 0
    seeded = [i for i, s in enumerate(bench.seeds) if s]
    for start in range(0, len(seeded), PPR_BATCH):
        batch = seeded[start:start + PPR_BATCH]
        seed_sets = [bench.seeds[i] if variant == "plain" else specificity_seeds(bench, bench.seeds[i]) for i in batch]
        result = personalized_pagerank_many(bench.index.graph, seed_sets, damping=damping,
                                            tol=bench.settings.ppr_tol, max_iter=bench.settings.ppr_max_iter)
        for row, i in enumerate(batch):
            scores = result.scores[row]
            out[i, has_node] = scores[bench.passage_node[has_node]]
            if on_scores is not None:
                on_scores(i, scores)
    bench._ppr[key] = out
    return out


def passage_degree(bench: Benchmark) -> np.ndarray:
    """Weighted degree of each passage node in the PPR graph (0 for passages outside it)."""
    deg = np.zeros(len(bench.passage_ids), dtype=np.float64)
    has = bench.passage_node >= 0
    deg[has] = bench.index.graph.degree[bench.passage_node[has]]
    return deg


# ======================================================================================= rankings
def _minmax(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    return np.zeros_like(values) if hi - lo <= 0 else (values - lo) / (hi - lo)


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    k = min(k, scores.size)
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))]


def blend_ranking(graph: np.ndarray, dense: np.ndarray, alpha: float, pool_size: int, *,
                  seeded: bool = True, normalise: str = "minmax", pool: str = "union",
                  depth: int = RUN_DEPTH) -> np.ndarray:
    """The retriever's blended ranking of one question (passage positions, best first).

    Parameters
    ----------
    graph, dense : ndarray of shape (n_passages,), the graph score (PPR or an ablation's) and cosine.
    alpha : graph share of the blend in [0, 1]; forced to 0 when ``seeded`` is False (the fallback).
    pool_size : the candidate pool takes this many top passages of each signal (Settings.candidate_pool).
    normalise : ``"minmax"`` (the retriever), ``"log-minmax"`` (min-max of log graph scores; zero graph
        scores get the pool's smallest positive one) or ``"rrf"`` (reciprocal-rank fusion within the pool,
        weights alpha and 1 - alpha).
    pool : ``"union"`` (the retriever) or ``"dense"`` (top cosine passages only, re-ranked by the blend).
    """
    positive = np.flatnonzero(graph > 0) if seeded else np.zeros(0, dtype=np.int64)
    g_top = positive[_top(graph[positive], pool_size)] if positive.size and pool == "union" else np.zeros(0, np.int64)
    d_top = _top(dense, pool_size)
    cand = np.array(list(dict.fromkeys([*g_top.tolist(), *d_top.tolist()])), dtype=np.int64)
    a = alpha if seeded else 0.0
    g, d = graph[cand].astype(np.float64), dense[cand].astype(np.float64)
    if normalise == "rrf":
        g_rank = np.empty(cand.size)
        g_rank[np.argsort(-g, kind="stable")] = np.arange(1, cand.size + 1)
        d_rank = np.empty(cand.size)
        d_rank[np.argsort(-d, kind="stable")] = np.arange(1, cand.size + 1)
        g_part = np.where(g > 0, 1.0 / (RRF_K + g_rank), 0.0)
        score = a * g_part + (1 - a) / (RRF_K + d_rank)
    else:
        if normalise == "log-minmax":
            floor = g[g > 0].min() if (g > 0).any() else 1.0
            g = np.log(np.maximum(g, floor))
        score = a * _minmax(g) + (1 - a) * _minmax(d)
    order = np.argsort(-score, kind="stable")[:depth]
    return cand[order]


def graph_only_ranking(graph: np.ndarray, rng: np.random.Generator, depth: int = RUN_DEPTH) -> np.ndarray:
    """Passages with a positive graph score, best first, ties in a seeded random order."""
    positive = np.flatnonzero(graph > 0)
    if positive.size == 0:
        return positive
    jitter = rng.random(positive.size)
    order = np.lexsort((jitter, -graph[positive].astype(np.float64)))[:depth]
    return positive[order]


def ablation_scores(bench: Benchmark, i: int, hops: int) -> np.ndarray:
    """Seeds-only (``hops=0``) or seeds + 1-hop (``hops=1``) passage scores of question ``i``.

    An entity's weight is its seed weight, plus for ``hops=1`` the mass one walk step moves from the
    seeds onto it (``damping * T s`` on the knowledge graph); a passage scores the summed weight of the
    distinct linked entities it mentions.
    """
    n_kg = bench.index.n_kg
    s = np.zeros(n_kg, dtype=np.float64)
    for node, w in bench.seeds[i].items():
        if node < n_kg:
            s[node] += w
    weight = s.copy()
    if hops >= 1 and s.any():
        adj = bench.index.graph.adjacency
        nz = np.flatnonzero(s)
        for node in nz:
            lo, hi = adj.indptr[node], adj.indptr[node + 1]
            nb, wt = adj.indices[lo:hi], adj.data[lo:hi].astype(np.float64)
            kg = nb < n_kg
            if kg.any():
                step = s[node] * wt[kg] / wt[kg].sum()
                np.add.at(weight, nb[kg], bench.settings.damping * step)
    return np.asarray(bench.mentions @ weight).ravel()


# ======================================================================================== metrics
def evaluate(rankings: Sequence[np.ndarray], bench: Benchmark) -> tuple[dict[str, float], np.ndarray]:
    """ir-measures scores (mean over questions) and each question's gold rank (inf when not retrieved).

    Raises
    ------
    AssertionError
        If ir-measures and the study's own gold ranks disagree (a run-format bug).
    """
    import ir_measures

    gold = bench.gold_index
    qrels = [ir_measures.Qrel(q.qid, q.gold, 1) for q in bench.questions]
    run = []
    ranks = np.full(len(bench.questions), np.inf)
    for qi, (q, ranking) in enumerate(zip(bench.questions, rankings)):
        for r, p in enumerate(ranking[:RUN_DEPTH], start=1):
            run.append(ir_measures.ScoredDoc(q.qid, str(bench.passage_ids[p]), float(RUN_DEPTH + 1 - r)))
        hit = np.flatnonzero(np.asarray(ranking[:RUN_DEPTH]) == gold[qi])
        if hit.size:
            ranks[qi] = hit[0] + 1
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    agg = ir_measures.calc_aggregate(measures, qrels, run) if run else {}
    scores = {m: float(agg.get(ir_measures.parse_measure(m), 0.0)) for m in MEASURES}
    own = {"R@1": np.mean(ranks <= 1), "R@5": np.mean(ranks <= 5), "R@10": np.mean(ranks <= 10),
           "RR": np.mean(np.where(np.isfinite(ranks), 1.0 / ranks, 0.0))}
    for m in MEASURES:
        assert abs(scores[m] - own[m]) < 1e-6, f"ir-measures {m}={scores[m]} but gold ranks give {own[m]}"
    return scores, ranks


def paired_bootstrap(ranks_a: np.ndarray, ranks_b: np.ndarray, k: int = 5) -> tuple[float, float, float]:
    """Recall@k difference a - b with a 95% paired bootstrap interval over questions (seeded)."""
    a, b = (ranks_a <= k).astype(float), (ranks_b <= k).astype(float)
    rng = np.random.default_rng(SEED)
    idx = rng.integers(0, a.size, size=(BOOTSTRAP, a.size))
    diffs = (a[idx] - b[idx]).mean(axis=1)
    return float(a.mean() - b.mean()), float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))


# ==================================================================================== study parts
def bm25_rankings(bench: Benchmark) -> tuple[list[np.ndarray], str]:
    """bm25s rankings of every question over the corpus, and a description of the tokenisation."""
    import bm25s

    try:
        import Stemmer  # PyStemmer

        stemmer, how = Stemmer.Stemmer("english"), "English stop words, Snowball stemming (PyStemmer)"
    except ImportError:
        stemmer, how = None, "English stop words, no stemming (PyStemmer not installed)"
    retriever = bm25s.BM25()  # Lucene variant, k1=1.5, b=0.75
    retriever.index(bm25s.tokenize(bench.texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    k = min(RUN_DEPTH, len(bench.texts))
    tokens = bm25s.tokenize([q.text for q in bench.questions], stopwords="en", stemmer=stemmer, show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
    rankings = [d[s > 0] for d, s in zip(docs, scores)]
    return rankings, how


def latency(bench: Benchmark, n: int, product_top10: list[np.ndarray], blend_top10: list[np.ndarray]
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Time ``Retriever.retrieve`` end to end on the first ``n`` questions and check its top 10.

    ``identical_top10`` is the share of questions whose timed top 10 equals ``product_top10`` (the study's
    batch run of the same retriever: a repeat must give the same ranking); ``old_blend_overlap`` is the mean
    top-10 overlap with ``blend_top10``, the pre-issue-13 PPR/cosine blend, reported for reference only.
    """
    retriever = bench.workspace.retriever()
    pos = {p: i for i, p in enumerate(bench.passage_ids.tolist())}
    totals, cpu, stages, agree, overlap = [], [], {}, 0, []
    for qi, q in enumerate(bench.questions[:n]):
        t0, c0 = time.perf_counter(), time.process_time()
        result = retriever.retrieve(q.text, top_k=10)
        totals.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        for k, v in result.timings.items():
            stages.setdefault(k, []).append(v)
        got = [pos.get(p.passage_id, -1) for p in result.passages]
        agree += got == product_top10[qi][:10].tolist()
        old = blend_top10[qi][:10].tolist()
        overlap.append(len(set(got) & set(old)) / max(1, len(old)))
    totals_a, cpu_a = np.array(totals), np.array(cpu)
    rows = [{"stage": "total (Retriever.retrieve, top_k=10)", "median s": float(np.median(totals_a)),
             "p90 s": float(np.percentile(totals_a, 90)), "mean s": float(totals_a.mean())},
            {"stage": "total, CPU time of this process (all threads)", "median s": float(np.median(cpu_a)),
             "p90 s": float(np.percentile(cpu_a, 90)), "mean s": float(cpu_a.mean())}]
    for k, v in stages.items():
        arr = np.array(v)
        rows.append({"stage": k, "median s": float(np.median(arr)), "p90 s": float(np.percentile(arr, 90)),
                     "mean s": float(arr.mean())})
    summary = {"questions": len(totals), "identical_top10": agree / max(1, len(totals)),
               "old_blend_overlap": float(np.mean(overlap)) if overlap else 0.0,
               "median_s": float(np.median(totals_a)), "p90_s": float(np.percentile(totals_a, 90)),
               "median_cpu_s": float(np.median(cpu_a))}
    return summary, rows


def _load_average() -> str:
    try:
        return " / ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def _sweep_plot(path: Path, alphas: Sequence[float], series: dict[str, Sequence[float]], references: dict[str, float]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    for label, values in series.items():
        ax.plot(alphas, values, marker="o", label=label)
    for (label, value), style in zip(references.items(), (":", "--", "-.")):
        ax.axhline(value, color="grey", linestyle=style, linewidth=1)
        ax.text(1.0, value, f" {label}", va="bottom", ha="right", fontsize=7)
    ax.set_xlabel("alpha (PPR share of the blended score)")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1)
    ax.set_title("PubMedQA retrieval: blend weight sweep", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def run(options: StudyOptions) -> StudyResult:
    """Run the study; write ``retrieval[_quick].md``, ``retrieval[_quick]_methods.png`` and ``_alpha.png``.

    Raises
    ------
    FileNotFoundError
        In full mode, if the PubMedQA questions or the shared abstracts are missing.
    """
    started = time.perf_counter()
    load_before = _load_average()
    bench = load_benchmark(options)
    n_q = len(bench.questions)
    pool = bench.settings.candidate_pool
    rng = np.random.default_rng(SEED)
    seeded = np.array([bool(s) for s in bench.seeds])
    timings: dict[str, float] = dict(bench.timings)

    t0 = time.perf_counter()
    bm25, bm25_how = bm25_rankings(bench)
    timings["bm25 (index + all questions)"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    ppr = ppr_runs(bench)
    timings["ppr (all questions, batched)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    spec = ppr_runs(bench, "specificity")
    timings["ppr, specificity seeds"] = time.perf_counter() - t0
    deg = passage_degree(bench)
    ppr_degnorm = ppr / np.where(deg > 0, np.sqrt(deg), 1.0)[None, :]
    ppr_deg1 = ppr / np.where(deg > 0, deg, 1.0)[None, :]
    seeds0 = np.stack([ablation_scores(bench, i, 0) for i in range(n_q)])
    seeds1 = np.stack([ablation_scores(bench, i, 1) for i in range(n_q)])

    runs: dict[str, list[np.ndarray]] = {}
    runs["BM25 (bm25s)"] = bm25
    runs["dense only (MiniLM cosine)"] = [_top(bench.dense[i], RUN_DEPTH) for i in range(n_q)]
    for a in ALPHAS:
        runs[f"blend alpha={a:.1f}"] = [blend_ranking(ppr[i], bench.dense[i], a, pool, seeded=seeded[i])
                                        for i in range(n_q)]
    runs["PPR only (graph score alone)"] = [graph_only_ranking(ppr[i], rng) for i in range(n_q)]
    runs["seeds only (graph score alone)"] = [graph_only_ranking(seeds0[i], rng) for i in range(n_q)]
    runs["seeds + 1-hop (graph score alone)"] = [graph_only_ranking(seeds1[i], rng) for i in range(n_q)]
    runs["seeds only + dense, alpha 0.4"] = [blend_ranking(seeds0[i], bench.dense[i], DEFAULT_ALPHA, pool,
                                                           seeded=seeded[i]) for i in range(n_q)]
    runs["seeds + 1-hop + dense, alpha 0.4"] = [blend_ranking(seeds1[i], bench.dense[i], DEFAULT_ALPHA, pool,
                                                              seeded=seeded[i]) for i in range(n_q)]
    variants = {
        "RRF fusion (k=60), alpha 0.4": dict(normalise="rrf"),
        "log-PPR min-max, alpha 0.4": dict(normalise="log-minmax"),
        "dense-only candidate pool, alpha 0.4": dict(pool="dense"),
    }
    for name, kw in variants.items():
        runs[name] = [blend_ranking(ppr[i], bench.dense[i], DEFAULT_ALPHA, pool, seeded=seeded[i], **kw)
                      for i in range(n_q)]
    for a in (0.1, 0.2):
        runs[f"RRF fusion (k=60), alpha {a}"] = [blend_ranking(ppr[i], bench.dense[i], a, pool, seeded=seeded[i],
                                                               normalise="rrf") for i in range(n_q)]
    runs["PPR / passage degree^0.5, alpha 0.4"] = [blend_ranking(ppr_degnorm[i], bench.dense[i], DEFAULT_ALPHA,
                                                                 pool, seeded=seeded[i]) for i in range(n_q)]
    runs["specificity seeds PPR, alpha 0.4"] = [blend_ranking(spec[i], bench.dense[i], DEFAULT_ALPHA, pool,
                                                              seeded=seeded[i]) for i in range(n_q)]
    runs["log-PPR min-max, alpha 0.2"] = [blend_ranking(ppr[i], bench.dense[i], 0.2, pool, seeded=seeded[i],
                                                        normalise="log-minmax") for i in range(n_q)]
    runs["dense pool + log-PPR, alpha 0.4"] = [blend_ranking(ppr[i], bench.dense[i], DEFAULT_ALPHA, pool,
                                                             seeded=seeded[i], pool="dense", normalise="log-minmax")
                                               for i in range(n_q)]
    runs["dense pool + log(PPR / passage degree), alpha 0.4"] = [
        blend_ranking(ppr_deg1[i], bench.dense[i], DEFAULT_ALPHA, pool, seeded=seeded[i], pool="dense",
                      normalise="log-minmax") for i in range(n_q)]

    # The product's ranking itself (hybrid first stage + passage/entity-seeded PPR, issue 13), top 10 per
    # question through Retriever.retrieve; the blend rows above are the pre-issue-13 formula, kept for reference.
    t0 = time.perf_counter()
    product = bench.workspace.retriever()
    pos = {p: i for i, p in enumerate(bench.passage_ids.tolist())}
    runs[PRODUCT] = [np.array([pos[h.passage_id] for h in product.retrieve(q.text, top_k=10).passages
                               if h.passage_id in pos], dtype=np.int64) for q in bench.questions]
    timings["product default (Retriever.retrieve x all questions)"] = time.perf_counter() - t0

    scores, ranks = {}, {}
    for name, rankings in runs.items():
        scores[name], ranks[name] = evaluate(rankings, bench)
    default = f"blend alpha={DEFAULT_ALPHA:.1f}"
    dense_name, bm25_name = "dense only (MiniLM cosine)", "BM25 (bm25s)"

    t0 = time.perf_counter()
    n_latency = min(QUICK_LATENCY_QUESTIONS if options.quick else LATENCY_QUESTIONS, n_q)
    lat_summary, lat_rows = latency(bench, n_latency, runs[PRODUCT], runs[default])
    timings[f"Retriever.retrieve x {n_latency}"] = time.perf_counter() - t0

    # ---- entity coverage diagnostics
    gold = bench.gold_index
    n_seeds = np.array([len(s) for s in bench.seeds])
    gold_mentions_seed = np.array([seeds0[i, gold[i]] > 0 for i in range(n_q)])
    gold_ppr_rank = np.array([1 + int((ppr[i] > ppr[i, gold[i]]).sum()) if ppr[i, gold[i]] > 0 else np.inf
                              for i in range(n_q)])
    coverage = {
        "questions": n_q, "corpus passages": len(bench.passage_ids),
        "passages in the PPR graph (mention >= 1 entity)": int((bench.passage_node >= 0).sum()),
        "questions with >= 1 seed": float(seeded.mean()),
        "mean seeds per question": float(n_seeds.mean()),
        "gold passage mentions a seed": float(gold_mentions_seed.mean()),
        "gold passage has PPR > 0": float(np.isfinite(gold_ppr_rank).mean()),
        "median PPR rank of gold (when > 0)": float(np.median(gold_ppr_rank[np.isfinite(gold_ppr_rank)]))
        if np.isfinite(gold_ppr_rank).any() else None,
        "dense R@1 (question ~ title paraphrase)": scores[dense_name]["R@1"],
    }
    sub = seeded
    subset_rows = []
    for name in (bm25_name, dense_name, default, "PPR only (graph score alone)", "seeds only (graph score alone)"):
        r = ranks[name][sub]
        subset_rows.append({"method": name, "R@5 (seeded questions)": float(np.mean(r <= 5)) if r.size else None,
                            "MRR (seeded questions)": float(np.mean(np.where(np.isfinite(r), 1 / r, 0))) if r.size else None})

    main_names = [bm25_name, dense_name, "PPR only (graph score alone)", default, PRODUCT]
    ablation_names = ["seeds only (graph score alone)", "seeds + 1-hop (graph score alone)", "PPR only (graph score alone)",
                      "seeds only + dense, alpha 0.4", "seeds + 1-hop + dense, alpha 0.4", default]
    sweep_names = [f"blend alpha={a:.1f}" for a in ALPHAS]
    variant_names = [n for n in scores if n not in set(main_names + ablation_names + sweep_names)]
    comparisons = []
    for a, b in ((PRODUCT, dense_name), (PRODUCT, bm25_name), (default, dense_name), (default, bm25_name), ("PPR only (graph score alone)", "seeds only (graph score alone)"),
                 ("PPR only (graph score alone)", "seeds + 1-hop (graph score alone)"),
                 (default, "seeds only + dense, alpha 0.4"),
                 (max(variant_names, key=lambda n: (scores[n]["R@5"], scores[n]["RR"])), dense_name)):
        d, lo, hi = paired_bootstrap(ranks[a], ranks[b])
        comparisons.append({"a": a, "b": b, "R@5 a - b": d, "95% CI low": lo, "95% CI high": hi})

    # ---- report
    table_rows = [{"method": name, **{m if m != "RR" else "MRR": s[m] for m in MEASURES}} for name, s in scores.items()]
    columns = ["method", "R@1", "R@5", "R@10", "MRR"]
    by = {r["method"]: r for r in table_rows}
    name = "retrieval"
    stem = output_name(name, options.quick)
    figures = [
        grouped_bar_plot(options.results_dir / f"{stem}_methods.png", ["R@1", "R@5", "R@10", "MRR"],
                         {n: [by[n][c] for c in columns[1:]] for n in main_names + ablation_names[:2]},
                         title=f"PubMedQA PQA-L retrieval ({n_q} questions, {len(bench.passage_ids)} passages)",
                         ylabel="score"),
        _sweep_plot(options.results_dir / f"{stem}_alpha.png", ALPHAS,
                    {m: [by[n][m] for n in sweep_names] for m in ("R@1", "R@5", "MRR")},
                    {"dense R@5": by[dense_name]["R@5"], "BM25 R@5": by[bm25_name]["R@5"]}),
    ]
    total = time.perf_counter() - started
    body = [
        "## Setup", "",
        f"- Questions: {n_q} PubMedQA PQA-L questions; gold = the question's own abstract (one passage per abstract).",
        f"- Corpus: {len(bench.passage_ids)} abstracts ({'bundled sample: gold + distractors' if options.quick else 'all shared abstracts'}); "
        f"knowledge graph {bench.workspace.manifest['knowledge_graph']['n_edges']:,} edges.",
        f"- Retriever settings: damping {bench.settings.damping}, candidate pool {pool}, default alpha {DEFAULT_ALPHA}; "
        f"BM25: {bm25_how}. Metrics: ir-measures (trec_eval), run depth {RUN_DEPTH}; MRR = mean reciprocal rank (RR).",
        f"- Ties in graph-only rankings are broken in a seeded random order (seed {SEED}).",
        f"- Machine load (1/5/15 min) at start: {load_before}; at end: {_load_average()}. Wall time {total:.0f} s.",
        "", "## Main comparison", "", markdown_table([by[n] for n in main_names], columns),
        "", "## Blend weight sweep (alpha = PPR share)", "", markdown_table([by[n] for n in sweep_names], columns),
        "", "## HippoRAG-style ablations of the graph signal", "",
        "Graph score alone (random tie order), then each graph score blended with cosine at alpha 0.4 through the "
        "retriever's pool and min-max normalisation.", "",
        markdown_table([by[n] for n in ablation_names], columns),
        "", "## Candidate core variants (all at the default alpha unless named)", "",
        markdown_table([by[n] for n in variant_names], columns),
        "", "## Paired bootstrap of Recall@5 differences", "",
        f"{BOOTSTRAP} resamples of the questions, seed {SEED}.", "",
        markdown_table(comparisons, ["a", "b", "R@5 a - b", "95% CI low", "95% CI high"]),
        "", "## Entity coverage of the questions", "",
        markdown_table([{"quantity": k, "value": v} for k, v in coverage.items()], ["quantity", "value"]),
        "", "Restricted to questions with at least one seed:", "",
        markdown_table(subset_rows, ["method", "R@5 (seeded questions)", "MRR (seeded questions)"]),
        "", "## Latency", "",
        f"`Retriever.retrieve(question, top_k=10)` end to end (entity resolution, PPR, chromadb query, ranking, "
        f"evidence paths and subgraph) on the first {lat_summary['questions']} questions, warm workspace, "
        f"shared 2-core machine (load above):", "",
        markdown_table(lat_rows, ["stage", "median s", "p90 s", "mean s"]),
        "", f"Repeatability: the timed `Retriever.retrieve` top 10 equals the study's batch run of the product on "
        f"{lat_summary['identical_top10']:.1%} of these questions. Mean top-10 overlap with the previous default "
        f"(the PPR/semantic blend above, before issue 13's fused first stage + passage-seeded PPR): "
        f"{lat_summary['old_blend_overlap']:.1%}.",
        "", "## Study timings (s)", "",
        markdown_table([{"step": k, "seconds": v} for k, v in timings.items()], ["step", "seconds"], digits=1),
    ]
    report = write_report(options, name, "Retrieval on PubMedQA PQA-L", body,
                          packages=("bm25s", "ir-measures", "pytrec-eval-terrier", "PyStemmer", "sentence-transformers",
                                    "chromadb", "numpy", "scipy"))
    summary: dict[str, Any] = {
        "questions": n_q, "passages": len(bench.passage_ids),
        "bm25_r5": scores[bm25_name]["R@5"], "dense_r5": scores[dense_name]["R@5"],
        "ppr_only_r5": scores["PPR only (graph score alone)"]["R@5"], "blend_r5": scores[default]["R@5"],
        "blend_mrr": scores[default]["RR"], "product_r1": scores[PRODUCT]["R@1"], "dense_r1": scores[dense_name]["R@1"], "seeds_only_r5": scores["seeds only (graph score alone)"]["R@5"],
        "seeds_1hop_r5": scores["seeds + 1-hop (graph score alone)"]["R@5"],
        "best_variant": max(variant_names, key=lambda n: (scores[n]["R@5"], scores[n]["RR"])),
        "best_variant_r5": max(scores[n]["R@5"] for n in variant_names),
        "latency_median_s": lat_summary["median_s"], "latency_median_cpu_s": lat_summary["median_cpu_s"], "identical_top10": lat_summary["identical_top10"],
        "questions_seeded": float(seeded.mean()),
    }
    return StudyResult(name, report, figures, summary, total)
