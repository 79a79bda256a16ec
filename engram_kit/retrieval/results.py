"""Plain, inspectable result objects of retrieval (dataclasses with ``to_frame``/``to_dict``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd


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


@dataclass(frozen=True)
class EvidencePath:
    """How relevance reached a passage: seed -> ... -> an entity the passage mentions.

    ``nodes`` are graph node ids from the seed to the mentioned entity; ``relations[i]`` is the
    relationship type between ``nodes[i]`` and ``nodes[i+1]`` (a one-node path means the passage
    mentions the seed itself). ``mention`` is the passage's NounPhrase that maps to ``nodes[-1]``.
    """

    nodes: tuple[str, ...]
    names: tuple[str, ...]
    relations: tuple[str, ...]
    mention: str

    def describe(self) -> str:
        """``"BACE1 -[INTERACTS_GiG]- APP (mentioned as 'amyloid precursor protein')"``."""
        parts = [self.names[0]]
        for rel, name in zip(self.relations, self.names[1:]):
            parts.append(f"-[{rel}]- {name}")
        return " ".join(parts) + f" (mentioned as {self.mention!r})"


@dataclass(frozen=True)
class PassageHit:
    """One ranked passage with both component scores.

    ``ppr_score`` and ``semantic_score`` are min-max normalised to [0, 1] over the candidate pool;
    ``score = alpha * ppr_score + (1 - alpha) * semantic_score``. ``ppr_raw`` is the passage node's
    PPR probability; ``semantic_raw`` the cosine similarity of question and passage embeddings.
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
    subgraph_edges : DataFrame ``source, target, rel_type`` among those nodes.
    hub_mass : share of PPR mass on the top ``hub_fraction`` of nodes (hub drift), in [0, 1].
    timings : seconds per stage (``resolve``, ``ppr``, ``semantic``, ``rank``, ``subgraph``).
    fallback : non-empty when retrieval fell back (e.g. no entity resolved: semantic ranking only).
    """

    question: str
    source: str
    alpha: float
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

    def to_frame(self) -> pd.DataFrame:
        """Ranked passages as a DataFrame (one row per passage, text shortened)."""
        rows = [
            {
                "rank": p.rank, "citation": p.citation, "title": p.title, "year": p.year, "source": p.source,
                "score": round(p.score, 4), "ppr": round(p.ppr_score, 4), "semantic": round(p.semantic_score, 4),
                "entities": ", ".join(p.entities[:6]), "passage_id": p.passage_id,
            }
            for p in self.passages
        ]
        return pd.DataFrame(rows, columns=["rank", "citation", "title", "year", "source", "score", "ppr",
                                           "semantic", "entities", "passage_id"])

    def entities_frame(self) -> pd.DataFrame:
        """Resolved question entities (the PPR seed nodes) as a DataFrame."""
        return pd.DataFrame([asdict(e) for e in self.entities],
                            columns=[f for f in ResolvedEntity.__dataclass_fields__])

    def to_cytoscape(self) -> dict[str, list[dict[str, Any]]]:
        """The PPR subgraph as Cytoscape.js JSON ``{"nodes": [...], "edges": [...]}``.

        Node data: ``id, label (name), kind, ppr, is_seed``; edge data: ``id, source, target, label
        (relationship type)``. Parallel edges of different types are kept (distinct ids).
        """
        nodes = [
            {"data": {"id": r.id, "label": r.name, "kind": r.kind, "ppr": float(r.ppr), "is_seed": bool(r.is_seed)}}
            for r in self.subgraph_nodes.itertuples(index=False)
        ]
        edges = [
            {"data": {"id": f"{r.source}|{r.rel_type}|{r.target}", "source": r.source, "target": r.target,
                      "label": r.rel_type}}
            for r in self.subgraph_edges.itertuples(index=False)
        ]
        return {"nodes": nodes, "edges": edges}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (frames as lists of records)."""
        return {
            "question": self.question, "source": self.source, "alpha": self.alpha, "damping": self.damping,
            "entities": [asdict(e) for e in self.entities],
            "passages": [asdict(p) for p in self.passages],
            "subgraph": {
                "nodes": self.subgraph_nodes.to_dict(orient="records"),
                "edges": self.subgraph_edges.to_dict(orient="records"),
            },
            "hub_mass": self.hub_mass, "ppr_iterations": self.ppr_iterations, "timings": self.timings,
            "fallback": self.fallback, "unresolved": self.unresolved,
        }
