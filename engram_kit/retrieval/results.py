"""Plain, inspectable result objects of retrieval (dataclasses with ``to_frame``/``to_dict``).

Knowledge-graph edges travel with their meaning: :class:`EdgeEvidence` (one edge of an evidence path) and
the :data:`EDGE_MEANING_COLUMNS` of ``RetrievalResult.subgraph_edges`` say what an edge asserts (predicate,
direction, negation, qualifiers) and who says so (primary and aggregator knowledge sources, publications),
the same way for Hetionet and for a Biolink KGX graph (:func:`with_edge_meaning` maps both).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from engram_kit.kg.profiles import profile_for
from engram_kit.kg.schema import GraphSchema, require_schema

#: Columns of ``RetrievalResult.subgraph_edges`` after ``source, target, rel_type``: what each edge asserts,
#: the same for every graph (see :func:`with_edge_meaning`). Strings are ``""`` when the graph records nothing.
EDGE_MEANING_COLUMNS: tuple[str, ...] = (
    "predicate", "directed", "negated", "primary_knowledge_source", "aggregator_knowledge_source",
    "publications", "qualifiers",
)
_EDGE_KEY_COLUMNS: tuple[str, ...] = ("source", "target", "rel_type")


def _text(value: object) -> str:
    """A property cell as a string: ``""`` for missing (None/NaN), else ``str(value)``."""
    if value is None:
        return ""
    try:
        if pd.isna(value):  # type: ignore[arg-type]
            return ""
    except (TypeError, ValueError):  # lists/arrays: not a scalar missing value
        pass
    return str(value)


def _flag(value: object) -> bool:
    """A boolean property cell (``negated``): True only for a true value; missing = False (KGX default)."""
    if isinstance(value, str):
        return value.strip().lower() in {"true", "1", "yes", "t"}
    return bool(_text(value)) and bool(value)


def parse_qualifiers(text: str) -> dict[str, Any]:
    """The qualifiers JSON object of a KGX edge (``'{"frequency_qualifier": "HP:0040283"}'``) as a dict.

    ``""``, ``"{}"`` and text that is not a JSON object all give ``{}`` (an edge without qualifiers): the
    loader writes only JSON objects, so anything else is treated as "none recorded", never guessed at.
    """
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return {}
    return {str(k): v for k, v in value.items() if v not in ("", None, [])} if isinstance(value, dict) else {}


def with_edge_meaning(edges: pd.DataFrame, schema: GraphSchema | None = None) -> pd.DataFrame:
    """Add the :data:`EDGE_MEANING_COLUMNS` to domain edges read from the store.

    Parameters
    ----------
    edges : DataFrame
        At least ``source, target, rel_type`` (``GraphStore.edges_among`` output), plus whatever rel
        properties of ``schema`` the store returned.
    schema : GraphSchema, optional
        The store's domain layer (default Hetionet v1.0): gives each relationship type's predicate and
        direction, and the negation property.

    Returns
    -------
    DataFrame
        ``source, target, rel_type``, then the meaning columns, then the other columns as given (Hetionet:
        ``sources, license, unbiased, pubmed_ids``; KGX: ``edge_id, category, knowledge_level, ...``).
        ``predicate`` is the Biolink CURIE (``"biolink:has_phenotype"``) or the Hetionet metaedge abbreviation
        (``"CtD"``); ``directed`` (bool) comes from the :class:`~engram_kit.kg.schema.RelSpec` (stored
        direction = subject -> object); ``negated`` (bool) is False where the graph has no negation.
        For Hetionet, ``primary_knowledge_source`` holds its ``sources`` (``|``-joined resource names) and
        ``publications`` its ``pubmed_ids`` as ``PMID:`` CURIEs; ``aggregator_knowledge_source`` and
        ``qualifiers`` are ``""``. KGX strings are as stored (``|``-joined lists; ``qualifiers`` a JSON
        object, ``""`` when none).
    """
    schema = require_schema(schema, "edge provenance")
    out = edges.copy()
    specs = {spec.rel_type: spec for spec in schema.rel_specs}
    rel_types = out["rel_type"].astype(str) if len(out) else pd.Series(dtype=object)

    def column(name: str) -> pd.Series:
        return out[name].map(_text) if name in out.columns else pd.Series([""] * len(out), index=out.index,
                                                                            dtype=object)

    spec_predicate = rel_types.map(lambda r: specs[r].predicate if r in specs else r)
    stored_predicate = column("predicate")
    out["predicate"] = stored_predicate.where(stored_predicate != "", spec_predicate)
    out["directed"] = rel_types.map(lambda r: specs[r].directed if r in specs else True).astype(bool)
    negation = schema.negation_property
    out["negated"] = (out[negation].map(_flag) if negation and negation in out.columns
                      else pd.Series(False, index=out.index)).astype(bool)
    for name, values in schema.profile.edge_provenance(column).items():  # the format's provenance columns
        out[name] = values
    out["qualifiers"] = out["qualifiers"].map(lambda q: q if q and parse_qualifiers(q) else "")
    rest = [c for c in out.columns if c not in _EDGE_KEY_COLUMNS + EDGE_MEANING_COLUMNS]
    return out[[*_EDGE_KEY_COLUMNS, *EDGE_MEANING_COLUMNS, *rest]].reset_index(drop=True)


@dataclass(frozen=True)
class EdgeEvidence:
    """One knowledge-graph edge as evidence: the assertion and its provenance.

    ``source -> target`` is the stored direction, i.e. subject -> object of the assertion (it matters when
    ``directed``). String fields are ``""`` when the graph records nothing; multi-valued ones are
    ``|``-joined. Built from a row of ``RetrievalResult.subgraph_edges`` (:meth:`from_row`).

    Attributes
    ----------
    source, target, rel_type : node ids and the graph relationship type (``"HAS_PHENOTYPE"``, ``"TREATS_CtD"``).
    predicate : Biolink predicate CURIE (``"biolink:has_phenotype"``) or Hetionet metaedge abbreviation.
    directed : whether direction carries meaning (Biolink: non-symmetric predicates; Hetionet: ``Gr>G``).
    negated : a negated assertion ("X does NOT have phenotype Y"); never evidence for the plain triple.
    primary_knowledge_source : KGX infores CURIE (``"infores:hpo-annotations"``); Hetionet ``sources``.
    aggregator_knowledge_source : KGX aggregators (``"infores:monarchinitiative"``; ``|``-joined).
    publications : ``|``-joined CURIEs (``"PMID:123|OMIM:142945"``).
    qualifiers : JSON object text of the KGX qualifiers (``'{"frequency_qualifier": "HP:0040283"}'``).
    """

    source: str
    target: str
    rel_type: str
    predicate: str = ""
    directed: bool = True
    negated: bool = False
    primary_knowledge_source: str = ""
    aggregator_knowledge_source: str = ""
    publications: str = ""
    qualifiers: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> EdgeEvidence:
        """From a mapping with ``source, target, rel_type`` and any :data:`EDGE_MEANING_COLUMNS` (missing
        ones take the defaults, so frames of older results without them still work)."""
        return cls(
            source=_text(row.get("source")), target=_text(row.get("target")), rel_type=_text(row.get("rel_type")),
            predicate=_text(row.get("predicate")) or _text(row.get("rel_type")),
            directed=_flag(row.get("directed")) if _text(row.get("directed")) else True,
            negated=_flag(row.get("negated", False)),
            primary_knowledge_source=_text(row.get("primary_knowledge_source")),
            aggregator_knowledge_source=_text(row.get("aggregator_knowledge_source")),
            publications=_text(row.get("publications")), qualifiers=_text(row.get("qualifiers")),
        )

    @property
    def qualifier_map(self) -> dict[str, Any]:
        """The qualifiers as a dict (``{}`` when none; see :func:`parse_qualifiers`)."""
        return parse_qualifiers(self.qualifiers)

    @property
    def qualified(self) -> bool:
        """True when the assertion holds only under qualifiers (frequency, onset, sex...)."""
        return bool(self.qualifier_map)

    def arrow(self, start: str, *, label: str | None = None) -> str:
        """The hop from ``start`` along this edge, with its predicate and direction: ``-[p]->`` when
        ``start`` is the subject of a directed edge, ``<-[p]-`` when it is the object, ``-[p]-`` when
        undirected; ``NOT`` before a negated predicate. ``label`` replaces the predicate (e.g. a rel type)."""
        label = ("NOT " if self.negated else "") + (self.predicate if label is None else label)
        if not self.directed:
            return f"-[{label}]-"
        return f"-[{label}]->" if start == self.source else f"<-[{label}]-"


@dataclass(frozen=True)
class ResolvedEntity:
    """A question mention resolved to a graph entity and used as a PPR seed node.

    ``confidence`` in [0, 1] comes from the resolver (see :mod:`engram_kit.resolution`);
    ``seed_weight`` is this seed's share of the restart distribution (seed weights sum to 1).
    """

    mention: str
    start: int
    end: int
    node_id: str
    name: str
    kind: str
    confidence: float
    method: str
    seed_weight: float
    reason: str = ""


@dataclass(frozen=True)
class EvidencePath:
    """How relevance reached a passage: seed -> ... -> an entity the passage mentions.

    ``nodes`` are graph node ids from the seed to the mentioned entity; ``relations[i]`` is the
    relationship type between ``nodes[i]`` and ``nodes[i+1]`` (a one-node path means the passage
    mentions the seed itself). ``mention`` is the passage's NounPhrase that maps to ``nodes[-1]``.
    ``edges[i]`` is that hop's :class:`EdgeEvidence` (predicate, direction, sources, publications,
    qualifiers); empty for paths rebuilt from older records. Paths never run through a negated edge (PPR
    and the path search use asserted edges only).
    """

    nodes: tuple[str, ...]
    names: tuple[str, ...]
    relations: tuple[str, ...]
    mention: str
    edges: tuple[EdgeEvidence, ...] = ()

    def describe(self) -> str:
        """``"BACE1 -[INTERACTS_GiG]- APP (mentioned as 'amyloid precursor protein')"`` for Hetionet;
        ``"SHH (human) -[biolink:has_phenotype]-> Cleft palate (mentioned as 'cleft palate')"`` for a KGX
        graph (predicate CURIE, arrow in the subject -> object direction, qualifiers in braces)."""
        parts = [self.names[0]]
        for i, (rel, name) in enumerate(zip(self.relations, self.names[1:])):
            edge = self.edges[i] if i < len(self.edges) else None
            if edge is None:
                parts.append(f"-[{rel}]- {name}")
                continue
            # a Biolink predicate is a CURIE; Hetionet's abbreviation says less than its rel type, keep that
            arrow = edge.arrow(self.nodes[i], label=edge.predicate if ":" in edge.predicate else rel)
            qualifiers = edge.qualifier_map
            shown = " {" + ", ".join(f"{k}: {v}" for k, v in qualifiers.items()) + "}" if qualifiers else ""
            parts.append(f"{arrow}{shown} {name}")
        return " ".join(parts) + f" (mentioned as {self.mention!r})"


@dataclass(frozen=True)
class PassageHit:
    """One ranked passage with its component scores (see :mod:`engram_kit.retrieval.ranking`).

    ``score`` is the ranking score ``(1 - alpha) * text_score + alpha * ppr_score`` divided by the best
    candidate's, in [0, 1]: relative to this question only (the absolute relevance is
    ``RetrievalResult.relevance``). ``text_score`` in [0, 1] is the hybrid text score (min-max cosine and
    max-normalised BM25, ``Settings.dense_weight``); ``ppr_score`` in [0, 1] the graph evidence (entity-seeded
    PPR with hub control, over the best candidate's); ``semantic_score`` the min-max normalised cosine.
    Raw values: ``ppr_raw`` the passage node's PPR probability, ``semantic_raw`` the cosine similarity of
    question and passage embeddings, ``bm25_raw`` the BM25 score.
    """

    rank: int
    passage_id: str
    article_id: str
    source: str
    pmid: str
    title: str
    year: int | None
    section: str
    page_start: int | None
    page_end: int | None
    text: str
    score: float
    ppr_score: float
    semantic_score: float
    ppr_raw: float
    semantic_raw: float
    entities: tuple[str, ...] = ()
    paths: tuple[EvidencePath, ...] = ()
    text_score: float = 0.0
    bm25_raw: float = 0.0

    @property
    def citation(self) -> str:
        """Short citation label: ``PMID:12345`` for PubMed, else the article id (with page)."""
        if self.pmid:
            return f"PMID:{self.pmid}"
        page = f", p. {self.page_start}" if self.page_start else ""
        return f"{self.article_id}{page}"


@dataclass
class RetrievalResult:
    """Everything a question's retrieval produced, for rendering and for answer composition.

    Attributes
    ----------
    subgraph_nodes : DataFrame ``id, name, kind, ppr, is_seed`` (top PPR knowledge-graph nodes).
    subgraph_edges : DataFrame ``source, target, rel_type``, the :data:`EDGE_MEANING_COLUMNS` (predicate,
        directed, negated, sources, publications, qualifiers) and the graph's other edge properties, for
        the edges among those nodes. Negated edges only when retrieval was asked for them
        (``include_negated=True``), then flagged ``negated = True``.
    hub_mass : share of PPR mass on the top ``hub_fraction`` of nodes (hub drift), in [0, 1].
    timings : seconds per stage (``resolve``, ``ppr``, ``semantic``, ``rank``, ``subgraph``).
    fallback : non-empty when retrieval fell back (e.g. no entity resolved: semantic ranking only).
    graph : schema (= format) name of the knowledge graph (``"hetionet"``, ``"kgx"``...; ``""`` unknown).
    graph_name : display name of the knowledge graph for citations (the workspace manifest's
        ``knowledge_graph.name``, e.g. ``"Monarch KG sample"``).
    schema : the graph schema the retriever read (not serialised; :meth:`graph_schema` falls back on the format's
        fixed schema for a result read back with :meth:`from_dict`).
    relevance : absolute relevance, the raw cosine in [-1, 1] of the question and its best passage (NaN
        when nothing was ranked). Unlike ``score`` (relative to the other hits) it is comparable across
        questions.
    on_topic : False when ``relevance`` is below ``Settings.min_relevance``: the corpus holds nothing about
        the question and the hits are only the least unrelated passages (``fallback`` says so too).
    """

    question: str
    source: str
    graph_share: float
    damping: float
    entities: list[ResolvedEntity]
    passages: list[PassageHit]
    subgraph_nodes: pd.DataFrame
    subgraph_edges: pd.DataFrame
    hub_mass: float
    ppr_iterations: int
    timings: dict[str, float] = field(default_factory=dict)
    fallback: str = ""
    unresolved: list[str] = field(default_factory=list)
    graph: str = ""
    graph_name: str = ""
    relevance: float = float("nan")
    on_topic: bool = True
    schema: GraphSchema | None = field(default=None, compare=False, repr=False)

    def graph_schema(self) -> GraphSchema | None:
        """The schema questions about this result are read against: ``schema``, else the fixed schema of the
        format ``graph`` (:func:`engram_kit.kg.formats.fixed_schema`), else None."""
        if self.schema is not None:
            return self.schema
        from engram_kit.kg.formats import fixed_schema

        return fixed_schema(self.graph)
    #: The question's embedding (float32, shape (dimension,), L2-normalised) by the model named
    #: ``question_vector_model``: the retriever embeds the question once and the composer reuses it. Not exported.
    question_vector: np.ndarray | None = field(default=None, repr=False, compare=False)
    question_vector_model: str = ""

    def edge_evidence(self) -> list[EdgeEvidence]:
        """The subgraph edges as :class:`EdgeEvidence` records, in frame order."""
        return [EdgeEvidence.from_row(row) for row in self.subgraph_edges.to_dict(orient="records")]

    def to_frame(self) -> pd.DataFrame:
        """Ranked passages as a DataFrame (one row per passage, text shortened)."""
        rows = [
            {
                "rank": p.rank, "citation": p.citation, "title": p.title, "year": p.year, "source": p.source,
                "score": round(p.score, 4), "text": round(p.text_score, 4), "ppr": round(p.ppr_score, 4),
                "semantic": round(p.semantic_score, 4), "bm25": round(p.bm25_raw, 3),
                "entities": ", ".join(p.entities[:6]), "passage_id": p.passage_id,
            }
            for p in self.passages
        ]
        return pd.DataFrame(rows, columns=["rank", "citation", "title", "year", "source", "score", "text", "ppr",
                                           "semantic", "bm25", "entities", "passage_id"])

    def entities_frame(self) -> pd.DataFrame:
        """Resolved question entities (the PPR seed nodes) as a DataFrame."""
        return pd.DataFrame([asdict(e) for e in self.entities],
                            columns=[f for f in ResolvedEntity.__dataclass_fields__])

    def to_cytoscape(self) -> dict[str, list[dict[str, Any]]]:
        """The PPR subgraph as Cytoscape.js JSON ``{"nodes": [...], "edges": [...]}``.

        Node data: ``id, label (name), kind, ppr, is_seed``; edge data: ``id, source, target, label
        (relationship type; Biolink predicate CURIE for a KGX graph, ``NOT`` before it when negated)``, and
        the :data:`EDGE_MEANING_COLUMNS` of the edge. Parallel edges of different types are kept (distinct ids).
        """
        nodes = [
            {"data": {"id": r.id, "label": r.name, "kind": r.kind, "ppr": float(r.ppr), "is_seed": bool(r.is_seed)}}
            for r in self.subgraph_nodes.itertuples(index=False)
        ]
        edges = []
        for e in self.edge_evidence():
            shown = e.predicate if profile_for(self.graph).edge_label == "predicate" else e.rel_type
            meaning = {k: v for k, v in asdict(e).items() if k in EDGE_MEANING_COLUMNS}
            edges.append({"data": {"id": f"{e.source}|{e.rel_type}|{e.target}", "source": e.source,
                                   "target": e.target, "label": ("NOT " if e.negated else "") + shown, **meaning}})
        return {"nodes": nodes, "edges": edges}

    @property
    def alpha(self) -> float:
        """Deprecated name of :attr:`graph_share` (PPR papers use alpha for the damping); warns."""
        warnings.warn("RetrievalResult.alpha is deprecated: read graph_share (the graph share of each passage's "
                      "score).", DeprecationWarning, stacklevel=2)
        return self.graph_share

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (frames as lists of records)."""
        return {
            "question": self.question, "source": self.source, "graph_share": self.graph_share,
            "damping": self.damping,
            "entities": [asdict(e) for e in self.entities],
            "passages": [asdict(p) for p in self.passages],
            "subgraph": {
                "nodes": self.subgraph_nodes.to_dict(orient="records"),
                "edges": self.subgraph_edges.to_dict(orient="records"),
            },
            "hub_mass": self.hub_mass, "ppr_iterations": self.ppr_iterations, "timings": self.timings,
            "fallback": self.fallback, "unresolved": self.unresolved,
            "graph": self.graph, "graph_name": self.graph_name,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalResult:
        """Inverse of :meth:`to_dict` (a stored answer's retrieval, e.g. a saved conversation).

        Records written before edges carried their meaning still load: missing path ``edges`` give ``()``,
        missing edge columns are simply absent, missing ``graph``/``graph_name`` mean Hetionet.

        Raises
        ------
        KeyError, TypeError
            If ``data`` lacks ``question``, ``source``, ``graph_share`` (``alpha`` in older bundles), ``damping``
            or ``subgraph``.
        """
        passages = []
        for p in data.get("passages", []):
            paths = tuple(
                EvidencePath(tuple(x["nodes"]), tuple(x["names"]), tuple(x["relations"]), x["mention"],
                             tuple(EdgeEvidence(**e) for e in x.get("edges", ())))
                for x in p.get("paths", []))
            passages.append(PassageHit(**{**p, "entities": tuple(p.get("entities", ())), "paths": paths}))
        edges = data["subgraph"]["edges"]
        return cls(
            question=data["question"], source=data["source"],
            graph_share=data["graph_share"] if "graph_share" in data else data["alpha"],  # "alpha": bundles before 0.2
            damping=data["damping"],
            entities=[ResolvedEntity(**e) for e in data.get("entities", [])], passages=passages,
            subgraph_nodes=pd.DataFrame(data["subgraph"]["nodes"], columns=["id", "name", "kind", "ppr", "is_seed"]),
            subgraph_edges=pd.DataFrame(edges) if edges else pd.DataFrame(
                columns=[*_EDGE_KEY_COLUMNS, *EDGE_MEANING_COLUMNS]),
            hub_mass=data.get("hub_mass", 0.0), ppr_iterations=data.get("ppr_iterations", 0),
            timings=dict(data.get("timings", {})), fallback=data.get("fallback", ""),
            unresolved=list(data.get("unresolved", [])), graph=data.get("graph", "hetionet"),
            graph_name=data.get("graph_name", ""),
        )
