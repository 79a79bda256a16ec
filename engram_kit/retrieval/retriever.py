"""Question -> entities -> seeded Personalized PageRank -> blended passage ranking, with its trail.

Method (after HippoRAG, Gutierrez et al. 2024, and ENGRAM's blended ranking):

1. Entities in the question are found by the gazetteer and resolved to graph nodes; each resolved
   entity becomes a seed node with weight proportional to its resolution confidence.
2. PPR runs over the combined graph (knowledge graph + NounPhrase + Passage nodes); a passage's PPR
   score is the stationary probability of its node, i.e. how much relevance flows into it through
   the entities it mentions and their graph neighbourhood.
3. A candidate pool (top PPR passages united with the top semantic neighbours of the question) is
   scored by both signals, each min-max normalised over the pool, and ranked by
   ``alpha * ppr + (1 - alpha) * semantic`` (``alpha`` = ``Settings.ppr_weight``, default 0.4).
4. The result carries the resolved entities, the PPR-scored knowledge subgraph, evidence paths from
   seeds to each passage, and the hub-drift diagnostic (share of PPR mass on the top 1% of nodes).
   Every subgraph edge and path hop carries its meaning (predicate, direction, knowledge sources,
   publications, qualifiers; see :func:`~engram_kit.retrieval.results.with_edge_meaning`).

Negated assertions (Biolink ``negated = true``) are not in the PPR graph, so relevance never flows along
"X does not cause Y", and evidence paths (searched on that graph) never cross one. The subgraph leaves them
out too unless ``retrieve(..., include_negated=True)``, which adds the negated edges among the subgraph's
nodes, flagged ``negated = True`` (shown, never walked).

When no entity resolves, retrieval falls back to semantic ranking alone and says so in ``fallback``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
import time
from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np
import pandas as pd

from engram_kit.embeddings import Embedder
from engram_kit.errors import QueryError
from engram_kit.extraction import EntityExtractor
from engram_kit.resolution import EntityResolver
from engram_kit.resolution.identifiers import IDENTIFIER_IN_TEXT
from engram_kit.retrieval.graph_index import GraphIndex
from engram_kit.retrieval.ppr import PPRResult, personalized_pagerank, top_share
from engram_kit.kg.schema import GraphSchema
from engram_kit.retrieval.results import (
    EDGE_MEANING_COLUMNS,
    EdgeEvidence,
    EvidencePath,
    PassageHit,
    ResolvedEntity,
    RetrievalResult,
    with_edge_meaning,
)
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore

if TYPE_CHECKING:  # chromadb is slow to import; only needed for type hints here
    from engram_kit.store.vectors import VectorStore

log = logging.getLogger(__name__)

#: Source filter values accepted by :meth:`Retriever.retrieve`.
SOURCE_FILTERS: tuple[str, ...] = ("all", "pubmed", "uploaded")
#: Longest question accepted, in characters (longer input is almost certainly a pasted document).
MAX_QUESTION_CHARS = 2_000
#: Lowest confidence at which a *fuzzy* resolution (character TF-IDF or embedding, not an exact name or
#: alias) seeds PPR. Higher than ``Settings.min_link_confidence`` because one wrong seed steers the whole
#: walk: "cancer" would otherwise seed "bone cancer" (TF-IDF 0.61) in "What is the role of TP53 in cancer?".
FUZZY_SEED_CONFIDENCE = 0.7
#: Resolution methods that are fuzzy (see :mod:`engram_kit.resolution`).
FUZZY_METHODS = frozenset({"tfidf", "embedding"})
#: Highest-PPR nodes of each kind always kept in the result subgraph (beside the overall top nodes).
PER_KIND = 3
#: A seed's neighbours of one kind are all kept in the subgraph when there are at most this many.
SMALL_NEIGHBOURHOOD = 10
#: The catch-all Biolink predicate: an evidence path hop prefers any more specific edge between the same pair.
GENERIC_PREDICATE = "biolink:related_to"


def default_graph_name(schema: GraphSchema) -> str:
    """Display name of a graph when the workspace manifest's ``knowledge_graph.name`` is not given:
    ``"Hetionet"`` for Hetionet, ``"KGX graph"`` for a Biolink KGX graph (never "Hetionet" for it)."""
    return schema.profile.display_name


class PPREngine(Protocol):
    """Where Personalized PageRank runs: the local CSR solver (default) or a server (Neo4j GDS).

    ``run`` returns scores for every node of ``index.graph`` (ndarray of shape (n_nodes,), float32, sum 1),
    for seeds ``{graph index: weight >= 0}``, with ``damping``/``ppr_tol``/``ppr_max_iter`` from ``settings``.
    See :class:`engram_kit.retrieval.gds.GDSPPREngine` for the server implementation.
    """

    def run(self, index: GraphIndex, seeds: Mapping[int, float], settings: Settings) -> PPRResult: ...


class CSRPPREngine:
    """The embedded engine: :func:`~engram_kit.retrieval.ppr.personalized_pagerank` on the in-memory CSR graph."""

    def run(self, index: GraphIndex, seeds: Mapping[int, float], settings: Settings) -> PPRResult:
        return personalized_pagerank(index.graph, seeds, damping=settings.damping, tol=settings.ppr_tol,
                                     max_iter=settings.ppr_max_iter)


def _minmax(values: np.ndarray) -> np.ndarray:
    """Min-max normalise to [0, 1]; a constant vector maps to zeros (it carries no ranking signal)."""
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    if hi - lo <= 0.0:
        return np.zeros_like(values)
    return (values - lo) / (hi - lo)


class Retriever:
    """Graph-augmented passage retrieval over one workspace's store, vectors and graph index.

    Parameters
    ----------
    store, vectors : the workspace's graph store and passage vector store.
    index : a callable returning the current :class:`GraphIndex` (rebuilt by the workspace after
        ingestion; called once per question).
    extractor, resolver : entity extraction and resolution for the question.
    embedder : the passage embedder (the question is embedded with the same model).
    settings : PPR and ranking parameters (see :class:`~engram_kit.settings.Settings`).
    ppr_engine : where PPR runs (:class:`PPREngine`); default :class:`CSRPPREngine`, the embedded solver.
    graph_name : the knowledge graph's display name for citations (``Workspace`` passes its manifest's
        ``knowledge_graph.name``, e.g. ``"Monarch KG sample"``); default :func:`default_graph_name`.
    """

    def __init__(
        self,
        *,
        store: GraphStore,
        vectors: VectorStore,
        index: Callable[[], GraphIndex],
        extractor: EntityExtractor,
        resolver: EntityResolver,
        embedder: Embedder,
        settings: Settings,
        ppr_engine: PPREngine | None = None,
        graph_name: str | None = None,
    ) -> None:
        self.store = store
        self.vectors = vectors
        self._index = index
        self.extractor = extractor
        self.resolver = resolver
        self.embedder = embedder
        self.settings = settings
        self.ppr_engine: PPREngine = ppr_engine or CSRPPREngine()
        self.graph_name = graph_name or default_graph_name(self.schema)

    @property
    def schema(self) -> GraphSchema:
        """The store's domain layer (Hetionet's when the store does not say)."""
        return self.store.schema

    # ------------------------------------------------------------------------------------------
    def resolve_question(self, question: str, index: GraphIndex) -> tuple[list[ResolvedEntity], list[str]]:
        """Resolve the question's mentions to graph nodes present in ``index``.

        Returns the resolved entities (seed weights normalised to sum to 1; one seed per distinct
        node, keeping its most confident mention) and the mention texts that did not resolve.
        """
        best: dict[str, tuple[float, ResolvedEntity]] = {}
        unresolved: list[str] = []
        # A CURIE or node id typed in the question ("HGNC:10848", "DOID:1612") names exactly that node.
        for match in IDENTIFIER_IN_TEXT.finditer(question):
            for node_id in self.resolver.by_identifier(match.group(0)):
                if index.index_of(node_id) is not None:
                    name, kind = self.resolver.node(node_id) or (node_id, "")
                    best[node_id] = (1.0, ResolvedEntity(match.group(0), match.start(), match.end(), node_id, name,
                                                         kind, 1.0, "identifier", 0.0))
        for mention in self.extractor.extract(question):
            candidates = [
                c for c in self.resolver.resolve(mention, context=question)
                if c.confidence >= self._seed_threshold(c.method) and index.index_of(c.node_id) is not None
            ]
            if not candidates:
                unresolved.append(mention.text)
                continue
            top = candidates[0]
            # Ties in confidence (an ambiguous alias) keep every tied candidate as a seed: PPR then
            # spreads over all readings instead of guessing one.
            for cand in (c for c in candidates if c.confidence >= top.confidence - 1e-9):
                entity = ResolvedEntity(mention.text, mention.start, mention.end, cand.node_id, cand.name,
                                        cand.kind, float(cand.confidence), cand.method, 0.0)
                if cand.node_id not in best or best[cand.node_id][0] < cand.confidence:
                    best[cand.node_id] = (cand.confidence, entity)
        total = sum(conf for conf, _ in best.values())
        entities = [
            ResolvedEntity(**{**e.__dict__, "seed_weight": conf / total}) for conf, e in best.values()
        ]
        entities.sort(key=lambda e: (-e.seed_weight, e.start))
        return entities, unresolved

    def _seed_threshold(self, method: str) -> float:
        """Confidence a candidate needs to become a seed: stricter for fuzzy methods."""
        floor = self.settings.min_link_confidence
        return max(floor, FUZZY_SEED_CONFIDENCE) if method in FUZZY_METHODS else floor

    def retrieve(
        self,
        question: str,
        *,
        source: str = "all",
        top_k: int | None = None,
        alpha: float | None = None,
        extra_seeds: Mapping[str, float] | None = None,
        include_negated: bool = False,
    ) -> RetrievalResult:
        """Rank passages for ``question``.

        Parameters
        ----------
        question : natural-language question, 1 .. 2,000 characters.
        source : ``"all"``, ``"pubmed"`` or ``"uploaded"`` passages.
        top_k : passages to return (default ``Settings.top_k``).
        alpha : PPR share of the blended score in [0, 1] (default ``Settings.ppr_weight``).
        extra_seeds : node id -> weight added to the seed vector (e.g. session memory), weights >= 0.
        include_negated : also list the negated assertions among the subgraph's nodes in
            ``subgraph_edges`` (flagged ``negated``). They never carry PPR relevance either way.

        Raises
        ------
        QueryError
            Empty or over-long question, unknown source filter, alpha outside [0, 1], top_k < 1.
        """
        question = (question or "").strip()
        if not question:
            raise QueryError("The question is empty; ask something, e.g. 'What does metformin treat?'.")
        if len(question) > MAX_QUESTION_CHARS:
            raise QueryError(f"The question has {len(question)} characters; keep it under {MAX_QUESTION_CHARS}.")
        if source not in SOURCE_FILTERS:
            raise QueryError(f"Unknown source filter {source!r}; use one of {', '.join(SOURCE_FILTERS)}.")
        alpha = self.settings.ppr_weight if alpha is None else float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise QueryError(f"alpha={alpha} is outside [0, 1]; it is the PPR share of the blended score.")
        if top_k is not None and top_k < 1:
            raise QueryError(f"top_k={top_k}: ask for at least one passage (top_k >= 1).")
        top_k = top_k or self.settings.top_k
        timings: dict[str, float] = {}

        t0 = time.perf_counter()
        index = self._index()
        entities, unresolved = self.resolve_question(question, index)
        seeds: dict[int, float] = {}
        for entity in entities:
            seeds[index.index_of(entity.node_id)] = entity.seed_weight  # type: ignore[index]
        for node_id, weight in (extra_seeds or {}).items():
            i = index.index_of(node_id)
            if i is not None and weight > 0:
                seeds[i] = seeds.get(i, 0.0) + float(weight)
        timings["resolve"] = time.perf_counter() - t0

        fallback = ""
        t0 = time.perf_counter()
        if seeds:
            ppr = self.ppr_engine.run(index, seeds, self.settings)
            scores, iterations = ppr.scores, ppr.iterations
            hub_mass = float(top_share(scores, self.settings.hub_fraction))
        else:
            fallback = ("No entity in the question resolved to the knowledge graph"
                        + (f" (unresolved: {', '.join(unresolved)})" if unresolved else "")
                        + "; passages are ranked by semantic similarity only.")
            scores, iterations, hub_mass = np.zeros(index.graph.n_nodes, dtype=np.float32), 0, 0.0
        timings["ppr"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        q_vec = self.embedder.encode([question])[0]
        semantic = dict(self.vectors.query(q_vec, self.settings.candidate_pool,
                                           source=None if source == "all" else source))
        timings["semantic"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        mask = np.ones(len(index.passage_ids), dtype=bool)
        if source != "all":
            mask = index.passage_sources == source
        passage_ppr = scores[index.passage_nodes[mask]] if len(index.passage_nodes) else np.zeros(0)
        passage_ids = index.passage_ids[mask]
        ppr_by_id: dict[str, float] = {}
        if seeds and passage_ppr.size:
            order = np.argsort(-passage_ppr)[: self.settings.candidate_pool]
            ppr_by_id = {str(passage_ids[i]): float(passage_ppr[i]) for i in order if passage_ppr[i] > 0}
        pool = list(dict.fromkeys([*ppr_by_id, *semantic]))
        missing = [p for p in pool if p not in semantic]
        if missing:
            vectors = self.vectors.get_embeddings(missing)
            for pid, vec in vectors.items():
                semantic[pid] = float(np.dot(vec, q_vec))
        pool = [p for p in pool if p in semantic]  # a passage without a vector cannot be blended
        full_ppr = dict(zip(index.passage_ids.tolist(), scores[index.passage_nodes].tolist())) if seeds else {}
        ppr_raw = np.array([full_ppr.get(p, 0.0) for p in pool], dtype=np.float64)
        sem_raw = np.array([semantic[p] for p in pool], dtype=np.float64)
        effective_alpha = alpha if seeds else 0.0
        ppr_norm, sem_norm = _minmax(ppr_raw), _minmax(sem_raw)
        blended = effective_alpha * ppr_norm + (1.0 - effective_alpha) * sem_norm
        order = np.argsort(-blended, kind="stable")[:top_k]
        chosen = [pool[i] for i in order]
        timings["rank"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        passages = self._passage_hits(chosen, order, blended, ppr_norm, sem_norm, ppr_raw, sem_raw,
                                      index, scores, set(seeds))
        nodes, edges = (self._subgraph(index, scores, set(seeds), include_negated=include_negated) if seeds
                        else (_empty_nodes(), _empty_edges()))
        timings["subgraph"] = time.perf_counter() - t0
        return RetrievalResult(question, source, effective_alpha, self.settings.damping, entities, passages,
                               nodes, edges, hub_mass, iterations, timings, fallback, unresolved,
                               graph=self.schema.name, graph_name=self.graph_name)

    # ------------------------------------------------------------------------------------------
    def _passage_hits(self, chosen, order, blended, ppr_norm, sem_norm, ppr_raw, sem_raw,  # noqa: ANN001
                      index: GraphIndex, scores: np.ndarray, seeds: set[int]) -> list[PassageHit]:
        if not chosen:
            return []
        rows = self.store.get_passages(chosen).set_index("id")
        mentions = self.store.passage_mentions(chosen)
        paths = self._evidence_paths(mentions, index, scores, seeds) if seeds else {}
        hits = []
        for rank, (pid, i) in enumerate(zip(chosen, order), start=1):
            if pid not in rows.index:
                log.warning("passage %s has a vector but is not in the store; skipped", pid)
                continue
            row = rows.loc[pid]
            names = mentions.loc[mentions["passage_id"] == pid, "mention"] if not mentions.empty else []
            hits.append(PassageHit(
                rank=rank, passage_id=pid, article_id=str(row["article_id"]), source=str(row["source"]),
                pmid=str(row["pmid"] or ""), title=str(row["title"] or ""), year=_int_or_none(row["year"]),
                section=str(row["section_title"] or ""), page_start=_int_or_none(row["page_start"]),
                page_end=_int_or_none(row["page_end"]), text=str(row["text"]),
                score=float(blended[i]), ppr_score=float(ppr_norm[i]), semantic_score=float(sem_norm[i]),
                ppr_raw=float(ppr_raw[i]), semantic_raw=float(sem_raw[i]),
                entities=tuple(dict.fromkeys(str(n) for n in names)), paths=tuple(paths.get(pid, ())),
            ))
        return hits

    def _evidence_paths(self, mentions: pd.DataFrame, index: GraphIndex, scores: np.ndarray,
                        seeds: set[int], per_passage: int = 2) -> dict[str, list[EvidencePath]]:
        """Shortest seed -> entity paths (at most 2 hops, through the highest-PPR intermediate)."""
        if mentions.empty:
            return {}
        raw: dict[str, list[tuple[tuple[int, ...], str]]] = {}
        seed_arr = np.fromiter(seeds, dtype=np.int64)
        for pid, group in mentions.groupby("passage_id"):
            found: list[tuple[float, tuple[int, ...], str]] = []
            for entity_id, mention in zip(group["entity_id"], group["mention"]):
                i = index.index_of(str(entity_id)) if entity_id else None
                if i is None or not index.is_kg(i):
                    continue
                path = self._path_from_seeds(i, seed_arr, seeds, index, scores)
                if path is not None:
                    found.append((len(path) - float(scores[i]), path, str(mention)))
            found.sort(key=lambda t: t[0])
            unique: dict[tuple[int, ...], str] = {}
            for _, path, mention in found:
                unique.setdefault(path, mention)
            raw[str(pid)] = list(unique.items())[:per_passage]
        node_ids = index.graph.node_ids
        all_nodes = sorted({node_ids[i] for paths in raw.values() for path, _ in paths for i in path})
        names = self.store.get_nodes(all_nodes).set_index("id")["name"].to_dict() if all_nodes else {}
        rels = self._relations(all_nodes)
        out: dict[str, list[EvidencePath]] = {}
        for pid, paths in raw.items():
            for path, mention in paths:
                ids = tuple(str(node_ids[i]) for i in path)
                hops = [rels.get(frozenset((a, b))) for a, b in zip(ids, ids[1:])]
                relations = tuple(e.rel_type if e else "RELATED" for e in hops)
                edges = tuple(e if e else EdgeEvidence(a, b, "RELATED") for e, (a, b) in zip(hops, zip(ids, ids[1:])))
                out.setdefault(pid, []).append(
                    EvidencePath(ids, tuple(names.get(n, n) for n in ids), relations, mention, edges))
        return out

    @staticmethod
    def _path_from_seeds(target: int, seed_arr: np.ndarray, seeds: set[int], index: GraphIndex,
                         scores: np.ndarray) -> tuple[int, ...] | None:
        if target in seeds:
            return (target,)
        neighbours = index.neighbours(target)
        kg_neighbours = neighbours[neighbours < index.n_kg]
        direct = np.intersect1d(kg_neighbours, seed_arr, assume_unique=False)
        if direct.size:
            return (int(direct[0]), target)
        best: tuple[float, int, int] | None = None
        for seed in seed_arr:
            seed_nb = index.neighbours(int(seed))
            middle = np.intersect1d(kg_neighbours, seed_nb[seed_nb < index.n_kg])
            if middle.size:
                m = int(middle[np.argmax(scores[middle])])
                if best is None or scores[m] > best[0]:
                    best = (float(scores[m]), int(seed), m)
        return (best[1], best[2], target) if best else None

    def _relations(self, node_ids: list[str]) -> dict[frozenset[str], EdgeEvidence]:
        """Node pair -> the asserted edge between them (with its meaning) for evidence-path hops.

        Negated edges are never returned (paths follow the PPR graph, which has none). Of several edges
        between a pair, a specific predicate wins over ``biolink:related_to``, then the first rel type.
        """
        if len(node_ids) < 2:
            return {}
        edges = with_edge_meaning(self.store.edges_among(node_ids), self.schema)
        found: dict[frozenset[str], EdgeEvidence] = {}
        rank = lambda e: (e.predicate == GENERIC_PREDICATE, e.rel_type)  # noqa: E731 - sort key
        for row in edges.to_dict(orient="records"):
            edge = EdgeEvidence.from_row(row)
            if edge.negated:
                continue
            key = frozenset((edge.source, edge.target))
            if key not in found or rank(edge) < rank(found[key]):
                found[key] = edge
        return found

    def _subgraph(self, index: GraphIndex, scores: np.ndarray, seeds: set[int], *,
                  include_negated: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Top PPR knowledge-graph nodes and the typed edges among them (with their meaning columns; negated
        edges only when ``include_negated``, flagged).

        The subgraph holds the seeds, the ``subgraph_nodes`` highest-PPR nodes overall, the
        ``PER_KIND`` highest of every node kind that received mass, and every direct neighbour of a
        seed whose kind has at most ``SMALL_NEIGHBOURHOOD`` such neighbours (all nine drugs of a
        disease, say). Without the per-kind shares, the many genes around a disease crowd out the
        few compounds a "which compounds" question needs.
        """
        kg_scores = scores[: index.n_kg]
        k = min(self.settings.subgraph_nodes, index.n_kg)
        top = np.argpartition(-kg_scores, k - 1)[:k] if k < index.n_kg else np.arange(index.n_kg)
        chosen = [int(i) for i in top if kg_scores[i] > 0]
        reached = np.flatnonzero(kg_scores > 0)
        for kind in pd.unique(index.kg_kinds[reached]):
            of_kind = reached[index.kg_kinds[reached] == kind]
            best = of_kind[np.argsort(-kg_scores[of_kind], kind="stable")[:PER_KIND]]
            chosen.extend(int(i) for i in best)
        for seed in (s for s in seeds if s < index.n_kg):
            neighbours = index.neighbours(seed)
            neighbours = neighbours[neighbours < index.n_kg]
            for kind in pd.unique(index.kg_kinds[neighbours]):
                of_kind = neighbours[index.kg_kinds[neighbours] == kind]
                if len(of_kind) <= SMALL_NEIGHBOURHOOD:
                    chosen.extend(int(i) for i in of_kind)
        chosen = list(dict.fromkeys([*(s for s in seeds if s < index.n_kg), *chosen]))
        ids = [str(index.graph.node_ids[i]) for i in chosen]
        info = self.store.get_nodes(ids).set_index("id")
        nodes = pd.DataFrame({
            "id": ids,
            "name": [info["name"].get(n, n) if not info.empty else n for n in ids],
            "kind": [str(index.kg_kinds[i]) for i in chosen],
            "ppr": [float(scores[i]) for i in chosen],
            "is_seed": [i in seeds for i in chosen],
        }).sort_values("ppr", ascending=False, ignore_index=True)
        if len(ids) < 2:
            return nodes, _empty_edges()
        stored = self.store.edges_among(ids, include_negated=True) if include_negated else self.store.edges_among(ids)
        return nodes, with_edge_meaning(stored, self.schema)


def _int_or_none(value: object) -> int | None:
    try:
        if value is None or pd.isna(value):  # type: ignore[arg-type]
            return None
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def _empty_nodes() -> pd.DataFrame:
    return pd.DataFrame(columns=["id", "name", "kind", "ppr", "is_seed"])


def _empty_edges() -> pd.DataFrame:
    return pd.DataFrame(columns=["source", "target", "rel_type", *EDGE_MEANING_COLUMNS])
