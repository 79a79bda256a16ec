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
   :data:`EMBEDDING_TRIGGER`, the Hetionet names of the nodes behind the top :data:`EMBEDDING_POOL` TF-IDF
   keys (cosine >= :data:`EMBEDDING_POOL_MIN_COSINE`) are embedded and re-ranked by cosine similarity to
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
  name(n)) / CONTEXT_TEMPERATURE)`` over the ``k`` nodes. Otherwise ``p`` is proportional to
  :data:`KIND_PRIORITY` of the node's kind (curated, disease- and drug-centred: a literature mention of a
  name shared by a Disease and a Side Effect most likely means the disease).
  The ambiguity factor is ``a(n) = 0.5 + 0.5 * p(n)``: 1 when unambiguous, 0.75 for an even two-way tie,
  approaching 0.5 for many-way ties.
* exact: ``1.0 * a(n)``. Unambiguous exact match: 1.0.
* alias: ``0.9 * a(n)`` (:data:`ALIAS_CONFIDENCE`). Unambiguous synonym: 0.9.
* abbreviation: ``0.95 * c`` where ``c`` is the confidence of the long form (:data:`ABBREVIATION_FACTOR`):
  an in-text definition is strong evidence but the short form itself is not a name.
* Kind prior of fuzzy matches ``f(n) = 0.85 + 0.15 * KIND_PRIORITY[kind] / 8`` in [0.85, 1]: between
  near-equal strings prefer diseases, drugs and genes over pathways and GO terms ("Alzheimers diseas" is
  closer, letter for letter, to the WikiPathways pathway "Alzheimers Disease" than to the Disease node).
* tfidf: ``0.8 * cosine * a(n) * f(n)`` (:data:`TFIDF_SCALE`), cosine >= :data:`TFIDF_MIN_COSINE` (0.5), so at
  most 0.8 < alias and at least 0.17. Per node the best key counts.
* embedding: ``0.7 * max(0, cosine) * f(n)`` (:data:`EMBEDDING_SCALE`) of the MiniLM embeddings of the query
  and ``"<name> (<kind>)"``. If a node has both a tfidf and an embedding score, the higher one (and its
  method) wins.

These constants are engineering choices, not fitted values; their calibration on the BC5CDR MeSH-linked
mentions is in ``benchmarks/results/ner.md`` (reliability diagram), which sets :data:`LINK_THRESHOLD`.

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
from engram_kit.resolution.policy import LINK_THRESHOLD, LinkPolicy
from engram_kit.resolution.tfidf import CharNgramIndex

log = logging.getLogger(__name__)

#: Values of :attr:`Candidate.method`.
RESOLUTION_METHODS: tuple[str, ...] = ("exact", "alias", "abbreviation", "tfidf", "embedding")

EXACT_CONFIDENCE = 1.0
ALIAS_CONFIDENCE = 0.9
ABBREVIATION_FACTOR = 0.95
TFIDF_SCALE = 0.8
TFIDF_MIN_COSINE = 0.5
EMBEDDING_SCALE = 0.7
#: Best TF-IDF cosine below which the embedding re-ranking runs (when an embedder is given).
EMBEDDING_TRIGGER = 0.8
#: TF-IDF keys whose nodes are re-ranked by embedding, and the lowest cosine admitted to that pool.
EMBEDDING_POOL = 20
EMBEDDING_POOL_MIN_COSINE = 0.2
#: Softmax temperature of context similarities when breaking ties with an embedder (cosines differ by
#: ~0.1 between a fitting and an unrelated name for MiniLM; 0.1 turns that into a ~e:1 preference).
CONTEXT_TEMPERATURE = 0.1

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
HUMAN_TAXON_PREFERENCE = 4.0


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
    ) -> None:
        validate_nodes(nodes)
        if max_candidates < 1:
            raise DataError(f"max_candidates={max_candidates} is out of range: use an integer >= 1.")
        self.lexicon = lexicon
        self.embedder = embedder
        self.max_candidates = max_candidates
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
        self.policy = LinkPolicy(lexicon)

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
            return self._finish([Candidate(c.node_id, c.name, c.kind, c.confidence * ABBREVIATION_FACTOR,
                                           "abbreviation") for c in found])
        if mention.candidates:
            found = self._lookup(mention.text, set(mention.candidates), context)
            return self._finish(found or self._from_candidates(mention, context))
        if mention.method == "ner":  # a span the dictionary did not match: exact/alias only, no fuzzy guess
            return self._finish(self._lookup(mention.text, None, context))
        return self._finish(self._cascade(mention.text, None, context))

    def link(self, mention: Mention, *, min_confidence: float = LINK_THRESHOLD) -> list[Candidate]:
        """Candidates a mention found in a text should be linked to, best first (what ingestion stores).

        :meth:`resolve` with the mention's sentence as context, filtered and re-ordered by the
        :class:`~engram_kit.resolution.policy.LinkPolicy` (no links outside prose, no fuzzy link of a known
        term without a node or of a different concept, kind priors from context cues), then cut at
        ``min_confidence``. An empty list means: keep the mention as an unlinked NounPhrase.

        Parameters
        ----------
        mention : Mention
            From :class:`~engram_kit.extraction.EntityExtractor` (carries ``sentence``, ``zone``, ``cues``).
        min_confidence : float
            In [0, 1]; default :data:`~engram_kit.resolution.policy.LINK_THRESHOLD`.

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
        return [c for c in self.policy.apply(mention, found, surface) if c.confidence >= min_confidence]

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
        neighbours = self.tfidf_index.query(key, top=max(EMBEDDING_POOL, 4 * self.max_candidates),
                                            min_cosine=min(TFIDF_MIN_COSINE, EMBEDDING_POOL_MIN_COSINE))
        scored: dict[str, Candidate] = {}
        for neighbour, cosine in neighbours:
            if cosine < TFIDF_MIN_COSINE:
                continue
            nodes = self._nodes_of_key(neighbour, restrict)
            shares = self._shares(nodes, context)
            for node_id in nodes:
                conf = TFIDF_SCALE * cosine * (0.5 + 0.5 * shares[node_id]) * kind_prior(self._nodes[node_id][1])
                self._keep_best(scored, node_id, conf, "tfidf")
        best_cosine = neighbours[0][1] if neighbours else 0.0
        if self.embedder is not None and best_cosine < EMBEDDING_TRIGGER:
            pool: list[str] = []
            for neighbour, _ in neighbours[:EMBEDDING_POOL]:
                pool.extend(n for n in self._nodes_of_key(neighbour, restrict) if n not in pool)
            if pool:
                query = self.embedder.encode([text])[0]
                vectors = self._name_embeddings(pool)
                for node_id in pool:
                    cosine = float(np.dot(query, vectors[node_id]))
                    conf = EMBEDDING_SCALE * max(0.0, cosine) * kind_prior(self._nodes[node_id][1])
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
            base = EXACT_CONFIDENCE if exact else ALIAS_CONFIDENCE
            found.append(Candidate(node_id, name, kind, base * (0.5 + 0.5 * shares[node_id]),
                                   "exact" if exact else "alias"))
        return found

    def _from_candidates(self, mention: Mention, context: str) -> list[Candidate]:
        """Fallback when a mention's text is not a lexicon key: its own candidates, scored as aliases."""
        nodes = [n for n in dict.fromkeys(mention.candidates) if n in self._nodes]
        shares = self._shares(nodes, context)
        return [Candidate(n, *self._nodes[n], ALIAS_CONFIDENCE * (0.5 + 0.5 * shares[n]), "alias") for n in nodes]

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
            weights = np.exp((sims - sims.max()) / CONTEXT_TEMPERATURE)
            weights = weights * np.array([KIND_PRIORITY.get(self._nodes[n][1], 0.5) for n in nodes])
        else:
            weights = np.array([KIND_PRIORITY.get(self._nodes[n][1], 0.5) for n in nodes])
        if self._node_prior:
            weights = weights * np.array([1.0 + np.log1p(max(0.0, self._node_prior.get(n, 0.0))) for n in nodes])
        human = [self._is_human.get(n) for n in nodes]
        if True in human and False in human:  # a cross-species tie: lean towards the human node
            weights = weights * np.array([HUMAN_TAXON_PREFERENCE if h else 1.0 for h in human])
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
