"""Entity resolution: link a mention (or any string) to ranked Hetionet nodes with a confidence.

Cascade
-------
1. **exact** -- ``normalize_name(text)`` equals the normalised Hetionet name of a node.
2. **alias** -- it equals a normalised synonym of a node in the :class:`~engram_kit.extraction.Lexicon`
   (gene symbol/synonym, Disease Ontology, DrugBank, MeSH).
   Steps 1 and 2 are one look-up; when it finds anything, later steps are skipped.
3. **tfidf** -- otherwise, cosine similarity of character 3-gram TF-IDF vectors between the query and every
   lexicon key (misspellings, plurals, word-order changes: "Alzheimers diseas").
4. **embedding** -- if an embedder is given and the best TF-IDF cosine is below
   ``Settings.embedding_trigger``, the Hetionet names of the nodes behind the top ``Settings.embedding_pool`` TF-IDF
   keys (cosine >= ``Settings.embedding_pool_min_cosine``) are embedded and re-ranked by cosine similarity to
   the query's embedding. Only those few names are embedded, never all 47 k.

A mention found through an abbreviation ("AD" defined as "Alzheimer's disease") is resolved through its
long form, restricted to the mention's candidates, and reported with method **abbreviation**. A NER span
(method ``ner``, no candidates: the dictionary did not match it) gets exact and alias candidates only: a
fuzzy neighbour of a name the lexicon lacks is another concept, and the cascade would cost ~50 ms of CPU per
abstract (``benchmarks/results/ner.md``). A short form
whose long form has no candidates gets none (no fuzzy guess from a short form: "SHR" for "spontaneously
hypertensive rats" must not become a side effect). A gazetteer
mention is looked up restricted to its candidates.

Confidence
----------
All confidences are in [0, 1]; for one query they are monotone in match quality
(exact > alias > tfidf, each falling with ambiguity and distance).

* Ambiguity share ``p(n)``: when a key denotes ``k`` distinct nodes, each gets a share in [0, 1] summing
  to 1. ``k = 1``: ``p = 1``. With an embedder and a non-empty ``context``: ``p = softmax(cos(context,
  name(n)) / Settings.context_temperature)`` over the ``k`` nodes. Otherwise ``p`` is proportional to
  :data:`KIND_PRIORITY` of the node's kind (curated, disease- and drug-centred: a literature mention of a
  name shared by a Disease and a Side Effect most likely means the disease).
  The ambiguity factor is ``a(n) = 0.5 + 0.5 * p(n)``: 1 when unambiguous, 0.75 for an even two-way tie,
  approaching 0.5 for many-way ties.
* exact: ``1.0 * a(n)``. Unambiguous exact match: 1.0.
* alias: ``0.9 * a(n)`` (``Settings.alias_confidence``). Unambiguous synonym: 0.9.
* abbreviation: ``0.95 * c`` where ``c`` is the confidence of the long form (``Settings.abbreviation_factor``):
  an in-text definition is strong evidence but the short form itself is not a name.
* Kind prior of fuzzy matches ``f(n) = 0.85 + 0.15 * KIND_PRIORITY[kind] / 8`` in [0.85, 1]: between
  near-equal strings prefer diseases, drugs and genes over pathways and GO terms ("Alzheimers diseas" is
  closer, letter for letter, to the WikiPathways pathway "Alzheimers Disease" than to the Disease node).
* tfidf: ``0.8 * cosine * a(n) * f(n)`` (``Settings.tfidf_scale``), cosine >= ``Settings.tfidf_min_cosine`` (0.5), so at
  most 0.8 < alias and at least 0.17. Per node the best key counts.
* embedding: ``0.7 * max(0, cosine) * f(n)`` (``Settings.embedding_scale``) of the MiniLM embeddings of the query
  and ``"<name> (<kind>)"``. If a node has both a tfidf and an embedding score, the higher one (and its
  method) wins.

These settings (``resolution`` section of :class:`~engram_kit.settings.Settings`) are engineering choices, not fitted values; their calibration on the BC5CDR MeSH-linked
mentions is in ``benchmarks/results/ner.md`` (reliability diagram), which sets ``Settings.min_link_confidence``.

Context (issue 14)
------------------
* With an embedder and a context, the ambiguity share is the context softmax **times** the kind prior
  (:data:`KIND_PRIORITY`), normalised: the sentence decides between readings of similar prior, the prior
  keeps a GO term from beating a disease on a near-tie of cosines.
* ``node_prior`` (optional, e.g. the graph degree of each node) breaks ties between nodes of one kind:
  weight ``1 + log(1 + prior)``. "p21" is a synonym of CDKN1A, TCEAL1 and NSG1; the well-studied CDKN1A
  has by far the most edges (Hetionet's edges come from curated literature-derived resources), and is
  what a paper means by p21.
* :meth:`EntityResolver.link` is what ingestion uses: :meth:`resolve` with the mention's sentence as
  context, then the :class:`~engram_kit.resolution.policy.LinkPolicy` (zones, fuzzy guards, kind priors
  from context cues), then the confidence threshold.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from engram_kit.embeddings import Embedder
from engram_kit.errors import DataError, EngramError
from engram_kit.extraction.lexicon import Lexicon, validate_nodes
from engram_kit.extraction.mention import Mention
from engram_kit.extraction.normalize import normalize_name
from engram_kit.resolution.identifiers import identifier_index
from engram_kit.resolution.policy import LinkPolicy
from engram_kit.resolution.tfidf import CharNgramIndex
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

#: Values of :attr:`Candidate.method`.
RESOLUTION_METHODS: tuple[str, ...] = ("exact", "alias", "abbreviation", "tfidf", "embedding")

#: Deprecated aliases of the defaults of ``Settings.exact_confidence``, ``alias_confidence``,
#: ``abbreviation_factor`` and ``tfidf_scale`` (the resolver reads its ``settings``; these do not change it).
EXACT_CONFIDENCE: float = Settings.exact_confidence
ALIAS_CONFIDENCE: float = Settings.alias_confidence
ABBREVIATION_FACTOR: float = Settings.abbreviation_factor
TFIDF_SCALE: float = Settings.tfidf_scale

#: Tie-break weight of each Hetionet kind when a surface denotes several nodes and no context decides.
KIND_PRIORITY: dict[str, float] = {
    "Disease": 8.0,
    "Compound": 7.0,
    "Gene": 6.0,
    "Symptom": 5.0,
    "Side Effect": 4.0,
    "Anatomy": 3.0,
    "Pharmacologic Class": 2.5,
    "Pathway": 2.0,
    "Biological Process": 1.5,
    "Molecular Function": 1.0,
    "Cellular Component": 1.0,
    # Biolink labels of a KGX graph (Monarch), placed beside their Hetionet counterparts.
    "PhenotypicFeature": 5.0,
    "ChemicalEntity": 7.0,
    "SmallMolecule": 7.0,
    "Drug": 7.0,
    "AnatomicalEntity": 3.0,
    "BiologicalProcess": 1.5,
    "MolecularActivity": 1.0,
    "CellularComponent": 1.0,
}
#: NCBI Taxonomy id of Homo sapiens: a KGX graph (Monarch) holds orthologous genes of many species under one
#: symbol ("SHH" of human, mouse, zebrafish...). Literature questions here are about human biology, so a tie
#: between taxa leans human by this factor (an engineering choice; context embeddings still decide first).
HUMAN_TAXON = "NCBITaxon:9606"


@dataclass(frozen=True)
class Candidate:
    """One graph entity a mention may denote.

    Attributes
    ----------
    node_id : str
        Hetionet node id (``"Disease::DOID:10652"``).
    name : str
        Hetionet name of the node.
    kind : str
        Hetionet kind.
    confidence : float
        In [0, 1], see the module docstring for how each method computes it.
    method : str
        One of :data:`RESOLUTION_METHODS`.
    """

    node_id: str
    name: str
    kind: str
    confidence: float
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form."""
        return asdict(self)


def _kind_rank(kind: str) -> float:
    return -KIND_PRIORITY.get(kind, 0.0)


def kind_prior(kind: str) -> float:
    """Kind prior ``f`` in [0.85, 1] applied to fuzzy (tfidf, embedding) confidences."""
    return 0.85 + 0.15 * KIND_PRIORITY.get(kind, 0.0) / max(KIND_PRIORITY.values())


class EntityResolver:
    """Rank Hetionet nodes for a mention or a string.

    Parameters
    ----------
    lexicon : Lexicon
        Surface forms (the same one the extractor used).
    nodes : DataFrame
        Node table (``id``, ``kind``, ``identifier``, ``name``); only these nodes are returned.
    embedder : Embedder, optional
        Enables context tie-breaking and the embedding fallback, e.g.
        ``engram_kit.embeddings.default_embedder()``. None (default): no model is loaded, ties are broken
        by :data:`KIND_PRIORITY`.
    max_candidates : int
        Most candidates returned per query, >= 1 (``Settings.max_candidates``).
    node_prior : mapping of str to float, optional
        Non-negative popularity of nodes (e.g. graph degree) used to break ties between nodes of one kind
        (module docstring); None: no popularity prior. Unknown nodes count 0.
    settings : Settings, optional
        The confidences, fuzzy thresholds and tie-break weights of the cascade (``resolution`` section:
        ``exact_confidence``, ``tfidf_scale``, ``context_temperature``, ...) and the link threshold
        ``min_link_confidence``; None: :class:`~engram_kit.settings.Settings` defaults.

    Raises
    ------
    DataError
        If the node table lacks a column or ``max_candidates`` < 1.
    """

    def __init__(
        self,
        lexicon: Lexicon,
        nodes: pd.DataFrame,
        *,
        embedder: Embedder | None = None,
        max_candidates: int = 5,
        node_prior: dict[str, float] | None = None,
        settings: Settings | None = None,
    ) -> None:
        validate_nodes(nodes)
        if max_candidates < 1:
            raise DataError(f"max_candidates={max_candidates} is out of range: use an integer >= 1.")
        self.lexicon = lexicon
        self.embedder = embedder
        self.max_candidates = max_candidates
        self.settings = settings or Settings()
        self._nodes: dict[str, tuple[str, str]] = {
            i: (str(n), str(k)) for i, n, k in zip(nodes["id"], nodes["name"].fillna(""), nodes["kind"])
        }
        taxa = nodes["in_taxon"].fillna("").astype(str) if "in_taxon" in nodes.columns else None
        #: Nodes with a species (KGX ``in_taxon``): node id -> True when human. Empty for Hetionet (all human).
        self._is_human: dict[str, bool] = ({} if taxa is None else
                                           {i: t == HUMAN_TAXON for i, t in zip(nodes["id"], taxa) if t})
        self._index: CharNgramIndex | None = None
        self._identifiers: dict[str, tuple[str, ...]] | None = None
        self._name_vectors: dict[str, np.ndarray] = {}
        self._context_cache: tuple[str, np.ndarray] | None = None
        self._node_prior: dict[str, float] = dict(node_prior or {})
        self.policy = LinkPolicy(lexicon, settings=self.settings)

    # ------------------------------------------------------------------------------------------ public
    def node(self, node_id: str) -> tuple[str, str] | None:
        """``(name, kind)`` of a node this resolver returns, or None."""
        return self._nodes.get(node_id)

    def by_identifier(self, token: str) -> tuple[str, ...]:
        """Node ids whose CURIE or id is ``token`` (case-insensitive; see
        :func:`~engram_kit.resolution.identifiers.identifier_index`); empty when none."""
        if self._identifiers is None:
            self._identifiers = identifier_index(self._nodes)
        return self._identifiers.get(token.casefold(), ())

    @property
    def tfidf_index(self) -> CharNgramIndex:
        """The character 3-gram index over lexicon keys, built on first use (a few seconds) and cached."""
        if self._index is None:
            keys = [k for k in self.lexicon.keys() if any(e.node_id in self._nodes for e in self.lexicon.get(k))]
            self._index = CharNgramIndex(keys)
        return self._index

    def resolve(self, mention: Mention | str, *, context: str = "") -> list[Candidate]:
        """Candidates for a mention or a string, best first.

        Parameters
        ----------
        mention : Mention or str
            A mention from :class:`~engram_kit.extraction.EntityExtractor`, or any name.
        context : str
            Surrounding text (the passage); used to break ties between equally named nodes when an
            embedder is given.

        Returns
        -------
        list of Candidate
            At most ``max_candidates``, sorted by decreasing confidence; empty when nothing is similar
            enough (no exact/alias match and no TF-IDF neighbour with cosine >= 0.5).
        """
        if isinstance(mention, str):
            return self._finish(self._cascade(mention, None, context))
        if mention.method == "abbreviation" and mention.long_form:
            restrict = set(mention.candidates) or None
            found = self._lookup(mention.long_form, restrict, context) or self._from_candidates(mention, context)
            return self._finish([Candidate(c.node_id, c.name, c.kind, c.confidence * self.settings.abbreviation_factor,
                                           "abbreviation") for c in found])
        if mention.candidates:
            found = self._lookup(mention.text, set(mention.candidates), context)
            return self._finish(found or self._from_candidates(mention, context))
        if mention.method == "ner":  # a span the dictionary did not match: exact/alias only, no fuzzy guess
            return self._finish(self._lookup(mention.text, None, context))
        return self._finish(self._cascade(mention.text, None, context))

    def link(self, mention: Mention, *, min_confidence: float | None = None) -> list[Candidate]:
        """Candidates a mention found in a text should be linked to, best first (what ingestion stores).

        :meth:`resolve` with the mention's sentence as context, filtered and re-ordered by the
        :class:`~engram_kit.resolution.policy.LinkPolicy` (no links outside prose, no fuzzy link of a known
        term without a node or of a different concept, kind priors from context cues), then cut at
        ``min_confidence``. An empty list means: keep the mention as an unlinked NounPhrase.

        Parameters
        ----------
        mention : Mention
            From :class:`~engram_kit.extraction.EntityExtractor` (carries ``sentence``, ``zone``, ``cues``).
        min_confidence : float, optional
            In [0, 1]; None: ``settings.min_link_confidence`` (0.7 by default).

        Returns
        -------
        list of Candidate
        """
        if not self.policy.zone_allows(mention):
            return []
        if not mention.candidates and not self.policy.fuzzy_allowed(mention):
            return []  # a known term without a node: only fuzzy neighbours could come back, all refused
        found = self.resolve(mention, context=mention.sentence)
        surface = mention.long_form if mention.method == "abbreviation" and mention.long_form else mention.text
        floor = self.settings.min_link_confidence if min_confidence is None else min_confidence
        return [c for c in self.policy.apply(mention, found, surface) if c.confidence >= floor]

    def resolve_many(self, mentions: Iterable[Mention | str], *, context: str = "") -> list[list[Candidate]]:
        """:meth:`resolve` for each mention (same context for all), in order."""
        return [self.resolve(m, context=context) for m in mentions]

    # ---------------------------------------------------------------------------------------- cascade
    def _cascade(self, text: str, restrict: set[str] | None, context: str) -> list[Candidate]:
        found = self._lookup(text, restrict, context)
        if found:
            return found
        key = normalize_name(text)
        if not key:
            return []
        cfg = self.settings
        neighbours = self.tfidf_index.query(key, top=max(cfg.embedding_pool, 4 * self.max_candidates),
                                            min_cosine=min(cfg.tfidf_min_cosine, cfg.embedding_pool_min_cosine))
        scored: dict[str, Candidate] = {}
        for neighbour, cosine in neighbours:
            if cosine < cfg.tfidf_min_cosine:
                continue
            nodes = self._nodes_of_key(neighbour, restrict)
            shares = self._shares(nodes, context)
            for node_id in nodes:
                conf = cfg.tfidf_scale * cosine * (0.5 + 0.5 * shares[node_id]) * kind_prior(self._nodes[node_id][1])
                self._keep_best(scored, node_id, conf, "tfidf")
        best_cosine = neighbours[0][1] if neighbours else 0.0
        if self.embedder is not None and best_cosine < cfg.embedding_trigger:
            pool: list[str] = []
            for neighbour, _ in neighbours[:cfg.embedding_pool]:
                pool.extend(n for n in self._nodes_of_key(neighbour, restrict) if n not in pool)
            if pool:
                query = self.embedder.encode([text])[0]
                vectors = self._name_embeddings(pool)
                for node_id in pool:
                    cosine = float(np.dot(query, vectors[node_id]))
                    conf = cfg.embedding_scale * max(0.0, cosine) * kind_prior(self._nodes[node_id][1])
                    self._keep_best(scored, node_id, conf, "embedding")
        return list(scored.values())

    def _lookup(self, text: str, restrict: set[str] | None, context: str) -> list[Candidate]:
        """Exact and alias candidates of ``text`` (empty when the normalised key is not in the lexicon)."""
        key = normalize_name(text)
        nodes = self._nodes_of_key(key, restrict)
        if not nodes:
            return []
        shares = self._shares(nodes, context)
        found = []
        for node_id in nodes:
            name, kind = self._nodes[node_id]
            exact = normalize_name(name) == key
            base = self.settings.exact_confidence if exact else self.settings.alias_confidence
            found.append(Candidate(node_id, name, kind, base * (0.5 + 0.5 * shares[node_id]),
                                   "exact" if exact else "alias"))
        return found

    def _from_candidates(self, mention: Mention, context: str) -> list[Candidate]:
        """Fallback when a mention's text is not a lexicon key: its own candidates, scored as aliases."""
        nodes = [n for n in dict.fromkeys(mention.candidates) if n in self._nodes]
        shares = self._shares(nodes, context)
        return [Candidate(n, *self._nodes[n], self.settings.alias_confidence * (0.5 + 0.5 * shares[n]), "alias") for n in nodes]

    # -------------------------------------------------------------------------------------- internals
    def _nodes_of_key(self, key: str, restrict: set[str] | None) -> list[str]:
        nodes: list[str] = []
        for entry in self.lexicon.get(key):
            node_id = entry.node_id
            if node_id in self._nodes and (restrict is None or node_id in restrict) and node_id not in nodes:
                nodes.append(node_id)
        return nodes

    def _shares(self, nodes: Sequence[str], context: str) -> dict[str, float]:
        """Ambiguity shares ``p(n)`` summing to 1 over ``nodes`` (module docstring)."""
        if len(nodes) <= 1:
            return {n: 1.0 for n in nodes}
        if self.embedder is not None and context.strip():
            context_vector = self.context_vector(context)
            vectors = self._name_embeddings(nodes)
            sims = np.array([float(np.dot(context_vector, vectors[n])) for n in nodes])
            weights = np.exp((sims - sims.max()) / self.settings.context_temperature)
            weights = weights * np.array([KIND_PRIORITY.get(self._nodes[n][1], 0.5) for n in nodes])
        else:
            weights = np.array([KIND_PRIORITY.get(self._nodes[n][1], 0.5) for n in nodes])
        if self._node_prior:
            weights = weights * np.array([1.0 + np.log1p(max(0.0, self._node_prior.get(n, 0.0))) for n in nodes])
        human = [self._is_human.get(n) for n in nodes]
        if True in human and False in human:  # a cross-species tie: lean towards the human node
            weights = weights * np.array([self.settings.human_taxon_preference if h else 1.0 for h in human])
        weights = weights / weights.sum()
        return {n: float(w) for n, w in zip(nodes, weights)}

    def context_vector(self, context: str) -> np.ndarray:
        """The embedding of ``context`` (float32, shape (dimension,)), cached for the last context: the
        retriever asks for its question's vector here, so a question the resolver already embedded to rank
        readings is not embedded again.

        Raises
        ------
        EngramError
            If the resolver has no embedder.
        """
        if self.embedder is None:
            raise EngramError("This EntityResolver has no embedder: pass embedder= to embed a context.")
        if self._context_cache is None or self._context_cache[0] != context:
            self._context_cache = (context, self.embedder.encode([context])[0])
        return self._context_cache[1]

    def _name_embeddings(self, nodes: Sequence[str]) -> dict[str, np.ndarray]:
        """Embeddings of ``"<name> (<kind>)"`` per node, computed on demand and cached.

        The kind is part of the text because MiniLM is uncased: "ACHE" (gene) and "Ache" (side effect)
        would otherwise get the same vector.
        """
        assert self.embedder is not None
        missing = [n for n in nodes if n not in self._name_vectors]
        if missing:
            vectors = self.embedder.encode([f"{self._nodes[n][0]} ({self._nodes[n][1].lower()})" for n in missing])
            self._name_vectors.update(zip(missing, vectors))
        return {n: self._name_vectors[n] for n in nodes}

    def _keep_best(self, scored: dict[str, Candidate], node_id: str, conf: float, method: str) -> None:
        kept = scored.get(node_id)
        if kept is None or conf > kept.confidence:
            name, kind = self._nodes[node_id]
            scored[node_id] = Candidate(node_id, name, kind, conf, method)

    def _finish(self, candidates: list[Candidate]) -> list[Candidate]:
        clipped = [Candidate(c.node_id, c.name, c.kind, float(min(1.0, max(0.0, c.confidence))), c.method)
                   for c in candidates]
        clipped.sort(key=lambda c: (-c.confidence, _kind_rank(c.kind), c.node_id))
        return clipped[: self.max_candidates]
