"""Question -> seeds -> hybrid text score + Personalized PageRank evidence -> ranked passages, with its trail.

Method (details, sources and measurements in :mod:`engram_kit.retrieval.ranking`):

1. Entities in the question are found by the gazetteer and resolved to graph nodes; kind priors pick one
   reading when a name matches several kinds and seed weights reflect specificity
   (:mod:`engram_kit.retrieval.question`). Users can pin (``seeds=``) or drop (``exclude=``) seeds.
2. Candidates are the top dense-cosine and top BM25 passages (:mod:`engram_kit.retrieval.lexical`), plus the
   passages the walk below reaches best; each gets a hybrid text score (convex combination of min-max cosine
   and max-normalised BM25, ``Settings.dense_weight``).
3. PPR runs over the combined graph (knowledge graph + NounPhrase + Passage nodes) from the entity seeds,
   part of each seed's weight moved to the NounPhrases that map to it (``Settings.phrase_seed_share``, as
   HippoRAG 2 seeds phrase nodes). A passage's PPR probability divided by its degree to a power (hub
   control) and scaled to [0, 1] is its graph evidence.
4. The score is ``(1 - g) * text + g * graph`` with a small graph share ``g`` (``Settings.graph_weight``),
   so the graph orders near-ties and cannot drown the text. The raw cosine of the best passage is the
   absolute relevance: below ``Settings.min_relevance`` the result says the question looks off-topic.
5. The result carries the resolved entities, the PPR-scored knowledge subgraph, evidence paths from
   seeds to each passage, and the hub-drift diagnostic (share of PPR mass on the top 1% of nodes).
   Every subgraph edge and path hop carries its meaning (predicate, direction, knowledge sources,
   publications, qualifiers; see :func:`~engram_kit.retrieval.results.with_edge_meaning`).

Negated assertions (Biolink ``negated = true``) are not in the PPR graph, so relevance never flows along
"X does not cause Y", and evidence paths (searched on that graph) never cross one. The subgraph leaves them
out too unless ``retrieve(..., include_negated=True)``, which adds the negated edges among the subgraph's
nodes, flagged ``negated = True`` (shown, never walked).

When no entity resolves, passages are ranked by the text score alone and ``fallback`` says so.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING
import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from engram_kit.embeddings import Embedder
from engram_kit.errors import QueryError
from engram_kit.extraction import EntityExtractor
from engram_kit.resolution import EntityResolver
from engram_kit.resolution.identifiers import IDENTIFIER_IN_TEXT
from engram_kit.resolution.policy import setting_not_side_effect
from engram_kit.retrieval.graph_index import GraphIndex
from engram_kit.retrieval.lexical import LexicalIndex
from engram_kit.retrieval.ppr import PPRResult, personalized_pagerank, top_share
from engram_kit.extraction.gazetteer import ENGLISH_STOPWORDS
from engram_kit.retrieval.question import (
    SeedCandidate,
    biomedical_terms,
    check_pins,
    choose_readings,
    seed_weights,
    variant_candidates,
)
from engram_kit.retrieval.ranking import blend, graph_evidence, minmax, order_of, relevance_of, text_scores
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
from engram_kit.store.ppr_engine import PPREngine as PPREngine  # re-exported: the engine protocol's old home

if TYPE_CHECKING:  # chromadb is slow to import; only needed for type hints here
    from engram_kit.store.vectors import VectorStore

log = logging.getLogger(__name__)

#: Source filter values accepted by :meth:`Retriever.retrieve`.
SOURCE_FILTERS: tuple[str, ...] = ("all", "pubmed", "uploaded")
#: Question length cap, fuzzy-seed threshold and subgraph shares are Settings fields (section "retrieval").
#: Resolution methods that are fuzzy (see :mod:`engram_kit.resolution`).
FUZZY_METHODS = frozenset({"tfidf", "embedding"})
#: The catch-all Biolink predicate: an evidence path hop prefers any more specific edge between the same pair.
GENERIC_PREDICATE = "biolink:related_to"


def default_graph_name(schema: GraphSchema) -> str:
    """Display name of a graph when the workspace manifest's ``knowledge_graph.name`` is not given:
    ``"Hetionet"`` for Hetionet, ``"KGX graph"`` for a Biolink KGX graph (never "Hetionet" for it)."""
    return schema.profile.display_name


class CSRPPREngine:
    """The embedded engine: :func:`~engram_kit.retrieval.ppr.personalized_pagerank` on the in-memory CSR graph."""

    def run(self, index: GraphIndex, seeds: Mapping[int, float], settings: Settings) -> PPRResult:
        return personalized_pagerank(index.graph, seeds, damping=settings.damping, tol=settings.ppr_tol,
                                     max_iter=settings.ppr_max_iter)


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
    lexical : a callable returning the current :class:`LexicalIndex` (BM25 over the passages; the workspace
        caches it per literature version); default: built from the store on first use.
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
        lexical: Callable[[], LexicalIndex] | None = None,
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
        self._lexical = lexical
        self._own_lexical: LexicalIndex | None = None

    @property
    def schema(self) -> GraphSchema:
        """The store's domain layer (Hetionet's when the store does not say)."""
        return self.store.schema

    # ------------------------------------------------------------------------------------------
    def resolve_question(self, question: str, index: GraphIndex, *, pinned: Mapping[str, float] | None = None,
                         exclude: set[str] | None = None, kind_priors: bool | None = None,
                         specificity: float | None = None) -> tuple[list[ResolvedEntity], list[str]]:
        """Resolve the question's mentions to seed nodes present in ``index`` (see
        :mod:`engram_kit.retrieval.question`).

        Parameters
        ----------
        question : the question text.
        index : the graph PPR runs on (a node outside it cannot seed).
        pinned : node id -> weight the user adds as seeds (method ``"pinned"``).
        exclude : node ids never used as seeds.
        kind_priors, specificity : override ``Settings.kind_priors`` / ``Settings.seed_specificity`` (ablations).

        Returns
        -------
        (entities, unresolved)
            One entity per distinct seed node (its most confident mention, ``reason`` saying why this
            reading), seed weights summing to 1, heaviest first; and the mention texts that did not resolve
            plus biomedical-looking question words no resolved mention covers.

        Raises
        ------
        QueryError
            If a pinned node is not in the graph.
        """
        kind_priors = self.settings.kind_priors if kind_priors is None else kind_priors
        specificity = self.settings.seed_specificity if specificity is None else specificity
        exclude = exclude or set()
        best: dict[str, tuple[float, ResolvedEntity]] = {}
        unresolved: list[str] = []
        # A CURIE or node id typed in the question ("HGNC:10848", "DOID:1612") names exactly that node.
        for match in IDENTIFIER_IN_TEXT.finditer(question):
            for node_id in self.resolver.by_identifier(match.group(0)):
                if index.index_of(node_id) is not None and node_id not in exclude:
                    name, kind = self.resolver.node(node_id) or (node_id, "")
                    best[node_id] = (1.0, ResolvedEntity(match.group(0), match.start(), match.end(), node_id, name,
                                                         kind, 1.0, "identifier", 0.0, "identifier in the question"))
        # Readings per question span, from the gazetteer + resolver and from the lexicon variants entity search
        # also finds (prefixes, undefined abbreviations); longer spans win ("high blood pressure" over "blood").
        groups: dict[tuple[int, int], list[SeedCandidate]] = {}
        texts: dict[tuple[int, int], str] = {}
        defined: list[tuple[int, int]] = []  # short forms the question itself defines ("Electroporation (EP)")
        for mention in self.extractor.extract(question):
            span = (mention.start, mention.end)
            texts[span] = mention.text
            if mention.method == "abbreviation":
                defined.append(span)
            groups.setdefault(span, []).extend(
                SeedCandidate(mention.text, mention.start, mention.end, c.node_id, c.name, c.kind,
                              float(c.confidence), c.method)
                for c in self.resolver.resolve(mention, context=question)
                if c.confidence >= self._seed_threshold(c.method) and index.index_of(c.node_id) is not None
                and c.node_id not in exclude and not setting_not_side_effect(mention, c.kind))
        lexicon = getattr(self.resolver, "lexicon", None)
        if lexicon is not None:
            # a short form the question defines means its long form only: no lexicon reading of its letters
            for cand in variant_candidates(question, lexicon, self._sorted_keys(lexicon), defined, ENGLISH_STOPWORDS,
                                           self.settings):
                if index.index_of(cand.node_id) is not None and cand.node_id not in exclude:
                    texts[(cand.start, cand.end)] = cand.mention
                    groups.setdefault((cand.start, cand.end), []).append(cand)
        covered: list[tuple[int, int]] = []
        for span in sorted(groups, key=lambda sp: (-(sp[1] - sp[0]), sp[0])):
            if not groups[span] or any(s < span[1] and span[0] < e for s, e in covered):
                continue
            covered.append(span)
            for cand, why in choose_readings(sorted(groups[span], key=lambda c: -c.confidence),
                                             use_kind_priors=kind_priors):
                entity = ResolvedEntity(cand.mention, cand.start, cand.end, cand.node_id, cand.name, cand.kind,
                                        cand.confidence, cand.method, 0.0, why)
                if cand.node_id not in best or best[cand.node_id][0] < cand.confidence:
                    best[cand.node_id] = (cand.confidence, entity)
        for span, text in texts.items():
            if not any(s <= span[0] and span[1] <= e for s, e in covered) and text not in unresolved:
                unresolved.append(text)
        for node_id, weight in (pinned or {}).items():
            if index.index_of(node_id) is None:
                raise QueryError(f"Pinned seed {node_id!r} is not a node of this workspace's graph; find its id "
                                 "with ws.search_entities(name).")
            name, kind = self.resolver.node(node_id) or (node_id, "")
            best[node_id] = (weight, ResolvedEntity(name, 0, 0, node_id, name, kind, 1.0, "pinned", 0.0,
                                                    "pinned by the user"))
        unresolved += [w for w in biomedical_terms(question, covered) if w not in unresolved]
        if not best:
            return [], unresolved
        ids = list(best)
        conf = np.array([best[n][0] for n in ids])
        # Specificity by corpus frequency (HippoRAG): an entity many passages mention ("blood") is a weaker seed
        # than one few mention ("BRCA1"); knowledge-graph degree would favour the generic word whenever the
        # gene has more curated edges. Pins keep their own weight: specificity only discounts the parser's.
        frequency = np.array([float(index.passage_count(index.index_of(n))) for n in ids])  # type: ignore[arg-type]
        pins = np.array([best[n][1].method == "pinned" for n in ids])
        weights = seed_weights(conf, np.where(pins, 1.0, frequency), specificity)
        entities = [ResolvedEntity(**{**best[n][1].__dict__, "seed_weight": float(w)}) for n, w in zip(ids, weights)]
        entities.sort(key=lambda e: (-e.seed_weight, e.start))
        return entities, unresolved

    def _sorted_keys(self, lexicon) -> list[str]:  # Lexicon
        """The lexicon's keys, sorted once (prefix look-ups by bisection, as in entity search)."""
        cached = self.__dict__.get("_keys")
        if cached is None or cached[0] is not lexicon:
            cached = self.__dict__["_keys"] = (lexicon, sorted(lexicon.keys()))
        return cached[1]

    def _seed_threshold(self, method: str) -> float:
        """Confidence a candidate needs to become a seed: exact/alias names ``name_seed_confidence``, fuzzy
        methods the stricter of ``min_link_confidence`` and ``fuzzy_seed_confidence``."""
        if method in FUZZY_METHODS:
            return max(self.settings.min_link_confidence, self.settings.fuzzy_seed_confidence)
        return self.settings.name_seed_confidence

    def retrieve(
        self,
        question: str,
        *,
        source: str = "all",
        top_k: int | None = None,
        graph_share: float | None = None,
        extra_seeds: Mapping[str, float] | None = None,
        include_negated: bool = False,
        seeds: Mapping[str, float] | Sequence[str] | None = None,
        exclude: Sequence[str] | set[str] | None = None,
        within: Sequence[str] | None = None,
        alpha: float | None = None,
    ) -> RetrievalResult:
        """Rank passages for ``question``.

        Parameters
        ----------
        question : natural-language question, 1 .. 2,000 characters.
        source : ``"all"``, ``"pubmed"`` or ``"uploaded"`` passages.
        top_k : passages to return (default ``Settings.top_k``).
        graph_share : graph share of each passage's score in [0, 1], the rest is the hybrid text score (default
            ``Settings.graph_weight``, or ``Settings.follow_up_graph_weight`` when the question resolves no entity
            and all seeds come from ``extra_seeds``; 0 = text only; see :mod:`engram_kit.retrieval.ranking`).
        extra_seeds : node id -> weight added to the entity seeds (e.g. session memory), weights >= 0.
        seeds : nodes the user pins as seeds (``{node_id: weight}`` or a list of node ids, weight 1), added to
            the parsed ones; each appears among ``entities`` with method ``"pinned"``.
        exclude : node ids never used as seeds (a wrong reading the user drops).
        include_negated : also list the negated assertions among the subgraph's nodes in
            ``subgraph_edges`` (flagged ``negated``). They never carry PPR relevance either way.
        within : rank only the passages of these papers (a reading list): PMIDs as ``"123"``, ``"PMID:123"``
            or ``"pubmed:123"``, and document (article) ids; intersected with ``source``. Ids that match no
            paper are named in ``fallback``; None = every passage.
        alpha : deprecated name of ``graph_share`` (PPR papers use alpha for the damping or the restart
            probability; here it never meant either); warns with :class:`DeprecationWarning`.

        Raises
        ------
        QueryError
            Empty or over-long question, unknown source filter, graph_share outside [0, 1], top_k < 1, a negative
            pinned weight, a pinned node that is not in the graph, or a ``within`` list none of whose ids is a
            paper of the workspace (the error names them).
        """
        question = (question or "").strip()
        if not question:
            raise QueryError("The question is empty; ask something, e.g. 'What does metformin treat?'.")
        if len(question) > self.settings.max_question_chars:
            raise QueryError(f"The question has {len(question)} characters; keep it under "
                             f"{self.settings.max_question_chars} (Settings.max_question_chars).")
        if source not in SOURCE_FILTERS:
            raise QueryError(f"Unknown source filter {source!r}; use one of {', '.join(SOURCE_FILTERS)}.")
        if alpha is not None:
            warnings.warn("retrieve(alpha=...) is deprecated: pass graph_share=... (the graph share of each "
                          "passage's score; alpha is the damping in PPR papers).", DeprecationWarning, stacklevel=2)
            if graph_share is not None and float(graph_share) != float(alpha):
                raise QueryError(f"graph_share={graph_share} and its deprecated name alpha={alpha} disagree; "
                                 "pass graph_share only.")
            graph_share = alpha
        user_share = graph_share is not None
        share = self.settings.graph_weight if graph_share is None else float(graph_share)
        if not 0.0 <= share <= 1.0:
            raise QueryError(f"graph_share={share} is outside [0, 1]; it is the graph share of each passage's "
                             "score (0 = text only).")
        if top_k is not None and top_k < 1:
            raise QueryError(f"top_k={top_k}: ask for at least one passage (top_k >= 1).")
        top_k = top_k or self.settings.top_k
        pinned, excluded = check_pins(seeds, exclude)
        allowed, missing = self.within_passages(within, source) if within is not None else (None, [])
        timings: dict[str, float] = {}
        settings = self.settings

        t0 = time.perf_counter()
        index = self._index()
        entities, unresolved = self.resolve_question(question, index, pinned=pinned, exclude=excluded)
        entity_seeds: dict[int, float] = {}
        for entity in entities:
            entity_seeds[index.index_of(entity.node_id)] = entity.seed_weight  # type: ignore[index]
        for node_id, weight in (extra_seeds or {}).items():
            i = index.index_of(node_id)
            if i is not None and weight > 0 and node_id not in excluded:
                entity_seeds[i] = entity_seeds.get(i, 0.0) + float(weight)
        entity_nodes = set(entity_seeds)  # the graph entities themselves: subgraph and evidence paths start here
        entity_seeds = phrase_seeds(index, entity_seeds, settings.phrase_seed_share)
        timings["resolve"] = time.perf_counter() - t0

        # ---- candidates: the top dense and top BM25 passages
        t0 = time.perf_counter()
        q_vec = self._question_vector(question)
        where = None if source == "all" else source
        if allowed is None:
            semantic = dict(self.vectors.query(q_vec, settings.candidate_pool, source=where))
        else:  # a reading list: every one of its passages is a candidate, scored exactly
            semantic = {}
            self._fill_cosines(semantic, sorted(allowed), q_vec)
        timings["semantic"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        lexical = self.lexical_index()
        bm25_all = lexical.scores(question)
        bm25_pos = {p: i for i, p in enumerate(lexical.passage_ids.tolist())}
        bm25_top = lexical.top_of(bm25_all, settings.candidate_pool, source=where) if allowed is None else {}
        timings["lexical"] = time.perf_counter() - t0

        fallback = ""
        if missing:
            fallback = f"Not in the workspace, left out of the reading list: {', '.join(missing)}."
        if not entity_seeds:
            fallback = (fallback + (" " if fallback else "") + "No entity in the question resolved to the knowledge graph"
                        + (f" (unresolved: {', '.join(unresolved)})" if unresolved else "")
                        + "; passages are ranked by the text score (BM25 + dense) alone, without knowledge-graph seeds.")
        # ---- graph evidence: PPR from the question's entities (and their noun phrases)
        t0 = time.perf_counter()
        if entity_seeds and sum(entity_seeds.values()) > 0:
            ppr = self.ppr_engine.run(index, entity_seeds, settings)
            scores = ppr.scores.astype(np.float64)
            iterations = ppr.iterations
            hub_mass = float(top_share(ppr.scores, settings.hub_fraction))
        else:
            scores, iterations, hub_mass = np.zeros(index.graph.n_nodes, dtype=np.float64), 0, 0.0
        timings["ppr"] = time.perf_counter() - t0

        # ---- the pool: text candidates plus the passages the walk reached best; one score each
        t0 = time.perf_counter()
        graph_node = dict(zip(index.passage_ids.tolist(), index.passage_nodes.tolist()))
        mask = np.ones(len(index.passage_ids), dtype=bool) if source == "all" else index.passage_sources == source
        if allowed is not None:
            mask &= np.isin(index.passage_ids, np.array(sorted(allowed), dtype=object))
        graph_ids = index.passage_ids[mask]
        graph_ppr = scores[index.passage_nodes[mask]] if len(index.passage_nodes) else np.zeros(0)
        reached: list[str] = []
        if graph_ppr.size and graph_ppr.max() > 0:
            best = np.argsort(-graph_ppr, kind="stable")[: settings.candidate_pool]
            reached = [str(graph_ids[i]) for i in best if graph_ppr[i] > 0]
        pool = list(dict.fromkeys([*semantic, *bm25_top, *reached]))
        self._fill_cosines(semantic, pool, q_vec)
        pool = [p for p in pool if p in semantic]  # a passage without a vector cannot be ranked
        if allowed is not None:
            pool = [p for p in pool if p in allowed]
        cos = np.array([semantic[p] for p in pool], dtype=np.float64)
        bm25 = np.array([bm25_all[bm25_pos[p]] if p in bm25_pos else 0.0 for p in pool], dtype=np.float64)
        ppr_pool = np.array([scores[graph_node[p]] if p in graph_node else 0.0 for p in pool])
        degree = np.array([index.graph.degree[graph_node[p]] if p in graph_node else 0.0 for p in pool])
        text = text_scores(cos, bm25, settings.dense_weight)
        graph = graph_evidence(ppr_pool, degree, settings.hub_exponent)
        graph_share = share if entity_seeds else 0.0
        if entity_seeds and not entities and not user_share:
            # a follow-up naming nothing ("Which drugs target it?"): only the remembered seeds know what it means
            graph_share = max(graph_share, settings.follow_up_graph_weight)
        final = blend(text, graph, graph_share)
        order = order_of(final, cos, top_k)
        chosen = [pool[i] for i in order]
        top_cos = float(cos.max()) if cos.size else float("nan")
        relevance, on_topic = relevance_of(top_cos, settings.min_relevance) if cos.size else (top_cos, False)
        if cos.size and not on_topic:
            fallback = ((fallback + " ") if fallback else "") + (
                f"Low relevance: the best passage's cosine similarity to the question is {relevance:.2f}, below "
                f"{settings.min_relevance:.2f}; the corpus probably holds nothing about this question.")
        peak = float(final.max()) if final.size and final.max() > 0 else 1.0
        timings["rank"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        seed_nodes = entity_nodes
        passages = self._passage_hits(chosen, order, final / peak, graph, minmax(cos), ppr_pool, cos,
                                      index, scores, seed_nodes, text=text, bm25=bm25)
        nodes, edges = (self._subgraph(index, scores, seed_nodes, include_negated=include_negated) if seed_nodes
                        else (_empty_nodes(), _empty_edges()))
        timings["subgraph"] = time.perf_counter() - t0
        return RetrievalResult(question, source, graph_share, settings.damping, entities, passages,
                               nodes, edges, hub_mass, iterations, timings, fallback, unresolved,
                               graph=self.schema.name, graph_name=self.graph_name, relevance=relevance,
                               on_topic=on_topic, schema=self.schema, question_vector=q_vec, question_vector_model=self.embedder.name)

    def _question_vector(self, question: str) -> np.ndarray:
        """The question's embedding, computed once per question: the resolver's (it embeds the question to rank
        ambiguous readings, and caches it) when it uses the same model, else this retriever's embedder."""
        resolver_embedder = getattr(self.resolver, "embedder", None)
        if resolver_embedder is not None and resolver_embedder.name == self.embedder.name \
                and hasattr(self.resolver, "context_vector"):
            return self.resolver.context_vector(question)
        return self.embedder.encode([question])[0]

    def _fill_cosines(self, semantic: dict[str, float], ids: list[str], q_vec: np.ndarray) -> None:
        """Add the question cosine of passages in ``ids`` that the dense pool did not return (in place)."""
        missing = [p for p in ids if p not in semantic]
        if missing:
            for pid, vec in self.vectors.get_embeddings(missing).items():
                semantic[pid] = float(np.dot(vec, q_vec))

    def within_passages(self, within: Sequence[str], source: str = "all") -> tuple[set[str], list[str]]:
        """The passage ids of the papers in ``within`` (of ``source``), and the ids that matched no paper.

        An id matches an article whose id it is (a document id, ``"pubmed:123"``) or, written as ``"123"``,
        ``"PMID:123"`` or ``"pubmed:123"`` (any case), the article with that PMID. Passage ids are
        ``"<article id>#p<n>"`` (:mod:`engram_kit.ingestion`).

        Raises
        ------
        QueryError
            If ``within`` is empty or a string, or none of its ids is a paper of the workspace (of ``source``).
        """
        if isinstance(within, str) or not within:
            raise QueryError("within= takes a non-empty list of paper ids, e.g. within=['PMID:123', 'pubmed:456'].")
        articles = self.store.articles(None if source == "all" else source)
        ids = set(articles["id"].astype(str)) if not articles.empty else set()
        by_pmid = {str(p): str(a) for a, p in zip(articles.get("id", []), articles.get("pmid", [])) if str(p or "")}
        chosen: set[str] = set()
        missing: list[str] = []
        for raw in within:
            key = str(raw).strip()
            pmid = re.sub(r"^(pmid|pubmed)\s*:\s*", "", key, flags=re.IGNORECASE)
            article = key if key in ids else by_pmid.get(pmid) if pmid.isdigit() else None
            if article is None:
                missing.append(key)
            else:
                chosen.add(article)
        if not chosen:
            where = "" if source == "all" else f" among its {source!r} papers"
            raise QueryError(f"None of the within= ids is a paper of this workspace{where}: {', '.join(missing)}. "
                             "Give PMIDs ('123', 'PMID:123', 'pubmed:123') or document ids as `engram docs` lists them.")
        passages = {str(p) for a in sorted(chosen) for p in self.store.article_passages(a)["id"]}
        return passages, missing

    def lexical_index(self) -> LexicalIndex:
        """The BM25 index of the passages (from the ``lexical`` callable given at construction, else built
        once from the store's passages and kept)."""
        if self._lexical is not None:
            return self._lexical()
        if self._own_lexical is None:
            self._own_lexical = build_lexical_index(self.store, self.vectors)
        return self._own_lexical

    # ------------------------------------------------------------------------------------------
    def _passage_hits(self, chosen, order, blended, ppr_norm, sem_norm, ppr_raw, sem_raw,
                      index: GraphIndex, scores: np.ndarray, seeds: set[int], *, text: np.ndarray,
                      bm25: np.ndarray) -> list[PassageHit]:
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
                text_score=float(text[i]), bm25_raw=float(bm25[i]),
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
        ``subgraph_per_kind`` highest of every node kind that received mass, and every direct neighbour of a
        seed whose kind has at most ``small_neighbourhood`` such neighbours (:class:`~engram_kit.settings.Settings`) (all nine drugs of a
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
            best = of_kind[np.argsort(-kg_scores[of_kind], kind="stable")[:self.settings.subgraph_per_kind]]
            chosen.extend(int(i) for i in best)
        for seed in (s for s in seeds if s < index.n_kg):
            neighbours = index.neighbours(seed)
            neighbours = neighbours[neighbours < index.n_kg]
            for kind in pd.unique(index.kg_kinds[neighbours]):
                of_kind = neighbours[index.kg_kinds[neighbours] == kind]
                if len(of_kind) <= self.settings.small_neighbourhood:
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


def build_lexical_index(store: GraphStore, vectors: VectorStore) -> LexicalIndex:
    """A :class:`LexicalIndex` over every passage with a vector (the passages retrieval can rank)."""
    ids = sorted(vectors.ids())
    rows = store.get_passages(ids) if ids else pd.DataFrame(columns=["id", "text", "source"])
    rows = rows.set_index("id") if not rows.empty else rows
    kept = [p for p in ids if p in rows.index]
    return LexicalIndex(kept, [str(rows.at[p, "text"]) for p in kept], [str(rows.at[p, "source"]) for p in kept])


def phrase_seeds(index: GraphIndex, seeds: dict[int, float], share: float) -> dict[int, float]:
    """Entity seeds with ``share`` of each entity's weight moved to its NounPhrase nodes.

    Literature nodes follow the ``n_kg`` knowledge-graph nodes in ``index``; an entity's literature neighbours
    are the NounPhrases that map to it, weighted by the ``MAPS_TO`` confidence (the CSR edge weight). An entity
    that no passage mentions keeps its whole weight. HippoRAG 2 seeds phrase nodes for the same reason.

    Parameters
    ----------
    seeds : graph index -> weight (>= 0).
    share : in [0, 1].

    Returns
    -------
    dict of int to float
        The same total weight, spread over entities and phrase nodes.
    """
    if share <= 0.0:
        return dict(seeds)
    adjacency = index.graph.adjacency
    out: dict[int, float] = {}
    for i, weight in seeds.items():
        if i >= index.n_kg:  # already a literature node (e.g. a pinned NounPhrase)
            out[i] = out.get(i, 0.0) + weight
            continue
        row = slice(adjacency.indptr[i], adjacency.indptr[i + 1])
        neighbours, edge_weights = adjacency.indices[row], adjacency.data[row]
        phrases = neighbours >= index.n_kg
        total = float(edge_weights[phrases].sum())
        if total <= 0.0:
            out[i] = out.get(i, 0.0) + weight
            continue
        out[i] = out.get(i, 0.0) + weight * (1.0 - share)
        for j, w in zip(neighbours[phrases].tolist(), edge_weights[phrases].tolist()):
            out[j] = out.get(j, 0.0) + weight * share * float(w) / total
    return out


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
