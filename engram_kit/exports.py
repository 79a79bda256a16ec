"""Exports of an answer: its graph (Cytoscape JSON, GraphML, SVG/PNG), passages and entities (CSV), run bundle (JSON).

Everything here works headless (CI, scripts, a kernel without a display): the static drawing uses
matplotlib's object-oriented API on an Agg/SVG canvas and never touches pyplot's global backend. The
widgets in :mod:`engram_widgets` render the same :class:`AnswerGraph` with the same colours, so a
screenshot of the dashboard and an exported PNG agree.

The answer graph
----------------
:func:`build_answer_graph` turns a :class:`~engram_kit.retrieval.results.RetrievalResult` into one graph
with three edge provenances (:data:`PROVENANCES`):

``curated``
    a Hetionet edge between two nodes of the PPR subgraph (``RetrievalResult.subgraph_edges``);
``literature``
    two knowledge-graph entities mentioned in the same retrieved passage (co-occurrence, the edge carries
    the passage ids), where at least one end is in the PPR subgraph and no curated edge joins them;
``inferred``
    a hop of an evidence path (:class:`~engram_kit.retrieval.results.EvidencePath`) that is not a curated
    edge of the graph, or an edge supplied by the caller (agents' hypotheses) through ``extra_edges``.

Node colour is the Hetionet kind (:data:`KIND_COLORS`, Hetionet's own palette); the PPR score is shown
as a heat scale (:func:`heat_scale`, :func:`heat_color`).
"""

from __future__ import annotations

import json
import logging
import math
import re
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from engram_kit.version import __version__
from engram_kit.errors import DataError
from engram_kit.kg.schema import LABEL_TO_KIND
from engram_kit.retrieval.results import RetrievalResult
from engram_kit.settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from engram_kit.answering import Answer, Citation

log = logging.getLogger(__name__)

#: Node fill colour per Hetionet kind: Hetionet's own palette, ``fillColor`` of
#: ``describe/styles.json`` in hetio/hetionet (v1.0 repository, commit 0d5ee3f). Hetionet gives the four
#: GO/pathway kinds one shared orange; we keep that so our graphs read like Hetionet's figures.
KIND_COLORS: dict[str, str] = {
    "Anatomy": "#008f00",
    "Biological Process": "#ff9300",
    "Cellular Component": "#ff9300",
    "Compound": "#ff2600",
    "Disease": "#8e4f00",
    "Gene": "#0096ff",
    "Molecular Function": "#ff9300",
    "Pathway": "#ff9300",
    "Pharmacologic Class": "#ff85ff",
    "Side Effect": "#fffb00",
    "Symptom": "#a5abb6",
}
#: Label colour drawn on a node of each kind (``textColor`` of the same Hetionet file).
KIND_TEXT_COLORS: dict[str, str] = {
    kind: ("#000000" if kind in {"Side Effect", "Biological Process", "Cellular Component", "Molecular Function",
                                 "Pathway"} else "#ffffff")
    for kind in KIND_COLORS
}
#: Colour of a node whose kind is unknown (e.g. an unlinked mention).
UNKNOWN_KIND_COLOR = "#777777"
#: Edge provenances, in drawing order (curated edges underneath).
PROVENANCES: tuple[str, ...] = ("curated", "literature", "inferred")
#: Edge style per provenance: colour (hex), Cytoscape ``line-style`` and matplotlib line style. Ours.
PROVENANCE_STYLES: dict[str, dict[str, str]] = {
    "curated": {"color": "#8c8c8c", "line_style": "solid", "mpl_style": "solid"},
    "literature": {"color": "#1f6fb4", "line_style": "dashed", "mpl_style": "dashed"},
    "inferred": {"color": "#c2185b", "line_style": "dotted", "mpl_style": "dotted"},
}
#: Heat scale of PPR scores: colour stops at 0, 0.25, 0.5, 0.75, 1 (ColorBrewer YlOrRd, 5 classes;
#: Harrower & Brewer, The Cartographic Journal 2003), interpolated linearly in RGB.
HEAT_STOPS: tuple[str, ...] = ("#ffffb2", "#fecc5c", "#fd8d3c", "#f03b20", "#bd0026")
#: Default cap of nodes in an answer graph: the issue's "typical answer" size (<= 150 nodes).
DEFAULT_MAX_NODES: int = Settings.answer_graph_max_nodes
#: Nodes of the focused default view (:meth:`AnswerGraph.focus`): about what a reader can take in at once
#: with every label legible in a ~600x450 px panel (measured in the dashboard's browser test).
FOCUS_NODES: int = Settings.answer_graph_focus_nodes
#: Hetionet's metaedge abbreviation at the end of a relationship type (``EXPRESSES_AeG``, ``REGULATES_Gr>G``,
#: ``PARTICIPATES_GpBP``, ``INCLUDES_PCiC``): source kind, relation letter(s), direction mark, target kind.
_METAEDGE_SUFFIX = re.compile(r"_[A-Z]{1,2}[a-z]+>?[A-Z]{1,2}[A-Za-z]*$")
#: PubMed's article address; ``{pmid}`` is the PubMed id.
PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
#: doi.org resolver; ``{doi}`` is the DOI (``10.xxxx/...``).
DOI_URL = "https://doi.org/{doi}"
#: Hetionet verbs that read as a phrase only with their preposition (the metaedge names of Himmelstein et al.
#: 2017, eLife 6:e26726, Figure 1); other verbs read as they are.
_VERB_PHRASES: dict[str, str] = {"interacts": "interacts with", "participates": "participates in",
                                 "associates": "associated with", "covaries": "covaries with",
                                 "localizes": "localizes to"}
_PMID = re.compile(r"(?:PMID:|pubmed:)?\b(\d{4,9})\b", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s;|,]+)")

NODE_COLUMNS: tuple[str, ...] = ("id", "name", "kind", "ppr", "heat", "heat_color", "is_seed", "in_subgraph",
                                 "passages")
EDGE_COLUMNS: tuple[str, ...] = ("id", "source", "target", "rel_type", "provenance", "passages")


# --------------------------------------------------------------------------------------------- colours
def heat_scale(ppr: Sequence[float] | np.ndarray) -> np.ndarray:
    """Map PPR scores to [0, 1] on a log scale (PPR mass is heavy-tailed: a seed often holds > 50%).

    Parameters
    ----------
    ppr : array-like of shape (n_nodes,), PPR probabilities >= 0.

    Returns
    -------
    ndarray of shape (n_nodes,), float64 in [0, 1]: ``(log10 p - log10 min) / (log10 max - log10 min)``
    over the positive scores; zero scores map to 0, and a single distinct positive score maps to 1.
    """
    values = np.asarray(ppr, dtype=np.float64)
    out = np.zeros_like(values)
    positive = values > 0
    if not positive.any():
        return out
    logs = np.log10(values[positive])
    lo, hi = float(logs.min()), float(logs.max())
    out[positive] = 1.0 if hi - lo <= 0 else (logs - lo) / (hi - lo)
    return out


def heat_color(heat: float) -> str:
    """Hex colour of a heat value in [0, 1] on :data:`HEAT_STOPS` (values outside are clipped)."""
    h = min(max(float(heat), 0.0), 1.0) * (len(HEAT_STOPS) - 1)
    i = min(int(h), len(HEAT_STOPS) - 2)
    t = h - i
    a, b = _rgb(HEAT_STOPS[i]), _rgb(HEAT_STOPS[i + 1])
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def kind_color(kind: str) -> str:
    """Fill colour of a Hetionet node kind (:data:`KIND_COLORS`), grey for unknown kinds."""
    return KIND_COLORS.get(kind, UNKNOWN_KIND_COLOR)


def relation_label(rel_type: str) -> str:
    """Readable name of a relationship type, for edge labels and legends.

    Hetionet's ``EXPRESSES_AeG`` -> ``"expresses"``, ``REGULATES_Gr>G`` -> ``"regulates"``,
    ``CO_MENTIONED`` -> ``"co-mentioned"``, Biolink ``biolink:interacts_with`` -> ``"interacts with"``;
    a negated assertion keeps its ``NOT`` (``"NOT treats"``). Unknown forms are lower-cased with
    underscores as spaces. The raw type stays available in the edge data (``rel_type``).
    """
    text = str(rel_type or "").strip()
    negated = text.upper().startswith("NOT ")
    if negated:
        text = text[4:].strip()
    if text == "CO_MENTIONED":
        out = "co-mentioned"
    else:
        text = text.split(":", 1)[1] if text.lower().startswith("biolink:") else text
        out = _METAEDGE_SUFFIX.sub("", text).replace("_", " ").strip().lower() or text
        out = _VERB_PHRASES.get(out, out)
    return f"NOT {out}" if negated else out


def _rgb(hex_color: str) -> tuple[int, int, int]:
    s = hex_color.lstrip("#")
    return int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16)


# ------------------------------------------------------------------------------------------ the graph
@dataclass
class AnswerGraph:
    """The graph of one answer, ready to render or export.

    Attributes
    ----------
    question : the question the graph answers.
    nodes : DataFrame with columns :data:`NODE_COLUMNS`, one row per knowledge-graph node, seeds first
        then by PPR (descending): ``ppr`` the node's PPR probability (0 for entities only mentioned by a
        passage), ``heat`` in [0, 1] (:func:`heat_scale`), ``heat_color`` hex, ``is_seed``,
        ``in_subgraph`` (part of the retriever's PPR subgraph), ``passages`` (tuple of retrieved passage
        ids that mention the node).
    edges : DataFrame with columns :data:`EDGE_COLUMNS`; ``provenance`` in :data:`PROVENANCES`;
        ``passages`` the co-mentioning passages of a literature edge (empty tuple otherwise).
    passage_entities : retrieved passage id -> node ids of the graph it mentions, in mention order.
    total_nodes : nodes before the ``max_nodes`` cap (``len(nodes) < total_nodes`` means "show more").
    """

    question: str
    nodes: pd.DataFrame
    edges: pd.DataFrame
    passage_entities: dict[str, tuple[str, ...]] = field(default_factory=dict)
    total_nodes: int = 0

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def truncated(self) -> bool:
        """True when nodes were left out by the cap (offer "show more")."""
        return self.total_nodes > len(self.nodes)

    def top(self, n: int) -> AnswerGraph:
        """The first ``n`` nodes (seeds, then by PPR) and the edges among them; ``total_nodes`` is kept."""
        if n < 1:
            raise DataError(f"top(n={n}): n must be >= 1 (number of nodes to keep).")
        nodes = self.nodes.head(n).reset_index(drop=True)
        keep = set(nodes["id"])
        edges = self.edges[self.edges["source"].isin(keep) & self.edges["target"].isin(keep)].reset_index(drop=True)
        entities = {p: tuple(e for e in ids if e in keep) for p, ids in self.passage_entities.items()}
        return AnswerGraph(self.question, nodes, edges, entities, self.total_nodes)

    def subset(self, node_ids: Iterable[str]) -> AnswerGraph:
        """The given nodes (in this graph's order) and the edges among them; ``total_nodes`` is kept."""
        keep = set(node_ids)
        nodes = self.nodes[self.nodes["id"].isin(keep)].reset_index(drop=True)
        edges = self.edges[self.edges["source"].isin(keep) & self.edges["target"].isin(keep)].reset_index(drop=True)
        entities = {p: tuple(e for e in ids if e in keep) for p, ids in self.passage_entities.items()}
        return AnswerGraph(self.question, nodes, edges, entities, self.total_nodes)

    def focus(self, answer_nodes: Iterable[str] = (), *, max_nodes: int = FOCUS_NODES) -> AnswerGraph:
        """The focused view a reader sees first: seeds, the answer's entities, the paths joining them.

        Nodes are taken in this order until ``max_nodes``: (1) the seeds (question entities), (2) each of
        ``answer_nodes`` (e.g. the entities of the passages and edges the answer cites, in citation order)
        together with the shortest path (over this graph's edges, any direction) joining it to its nearest
        seed, when the whole path still fits, (3) the highest-ranked (PPR) neighbours of the nodes kept so far. Nodes with no
        edge inside the view are then dropped, except seeds (the question's own entities always show).

        Parameters
        ----------
        answer_nodes : node ids the answer rests on; ids not in the graph are ignored.
        max_nodes : cap of the view, >= 1 (default :data:`FOCUS_NODES`).

        Returns
        -------
        AnswerGraph
            ``len(view) <= max_nodes``; ``view.total_nodes`` is this graph's ``total_nodes``.

        Raises
        ------
        DataError
            If ``max_nodes < 1``.
        """
        import networkx as nx

        if max_nodes < 1:
            raise DataError(f"focus(max_nodes={max_nodes}): max_nodes must be >= 1.")
        order = list(self.nodes["id"])
        known = set(order)
        undirected = nx.Graph()
        undirected.add_nodes_from(order)
        undirected.add_edges_from(zip(self.edges["source"], self.edges["target"]))
        seeds = list(self.nodes.loc[self.nodes["is_seed"].astype(bool), "id"])
        answers = [n for n in dict.fromkeys(answer_nodes) if n in known]
        chosen: dict[str, None] = dict.fromkeys(seeds[:max_nodes])

        def take(ids: Iterable[str]) -> None:
            for node in ids:
                if len(chosen) >= max_nodes:
                    return
                chosen.setdefault(node, None)

        for node in answers:  # each answer entity with the shortest path joining it to a seed, while room is left
            if len(chosen) >= max_nodes:
                break
            paths = [nx.shortest_path(undirected, seed, node) for seed in seeds
                     if seed != node and nx.has_path(undirected, seed, node)]
            new = [n for n in (min(paths, key=len)[1:] if paths else [node]) if n not in chosen]
            if len(chosen) + len(new) <= max_nodes:
                take(new)
        rank = {n: i for i, n in enumerate(order)}  # seeds first, then PPR (build_answer_graph's order)
        frontier = sorted({m for n in chosen for m in undirected[n]} - set(chosen), key=rank.__getitem__)
        while frontier and len(chosen) < max_nodes:
            take(frontier[:1])
            frontier = sorted({m for n in chosen for m in undirected[n]} - set(chosen), key=rank.__getitem__)
        view = undirected.subgraph(chosen)
        kept = [n for n in chosen if view.degree(n) > 0 or n in seeds]
        return self.subset(kept)

    def kind_counts(self) -> dict[str, int]:
        """Node count per kind, most frequent first (the legend's counts)."""
        return {str(k): int(v) for k, v in self.nodes["kind"].value_counts().items()}

    def without_kinds(self, kinds: Iterable[str]) -> AnswerGraph:
        """This graph without the nodes of ``kinds`` (and their edges): the legend's filter."""
        hidden = set(kinds)
        return self.subset(self.nodes.loc[~self.nodes["kind"].isin(hidden), "id"])

    def passages_of(self, node_id: str) -> tuple[str, ...]:
        """Retrieved passage ids mentioning ``node_id`` (empty tuple for an unknown node)."""
        row = self.nodes.loc[self.nodes["id"] == node_id, "passages"]
        return tuple(row.iloc[0]) if len(row) else ()

    def entities_of(self, passage_id: str) -> tuple[str, ...]:
        """Graph node ids mentioned by a retrieved passage (empty tuple when none / unknown)."""
        return self.passage_entities.get(passage_id, ())

    def to_frame(self) -> pd.DataFrame:
        """The nodes as a DataFrame (passage tuples joined by ``;``): the entities CSV."""
        frame = self.nodes.copy()
        frame["passages"] = frame["passages"].map(";".join)
        return frame

    def edges_frame(self) -> pd.DataFrame:
        """The edges as a DataFrame (passage tuples joined by ``;``)."""
        frame = self.edges.copy()
        frame["passages"] = frame["passages"].map(";".join)
        return frame

    def to_cytoscape(self) -> dict[str, list[dict[str, Any]]]:
        """Cytoscape.js elements JSON ``{"nodes": [...], "edges": [...]}`` (also Cytoscape desktop's format).

        Node data: ``id, label, kind, color, ppr, heat, heat_color, is_seed, in_subgraph, n_passages,
        tooltip``; edge data: ``id, source, target, label`` (readable relation, :func:`relation_label`),
        ``rel_type`` (raw), ``provenance, n_passages, directed`` (False for literature co-mentions), ``tooltip``.
        Parallel edges of different types or provenances keep distinct ids.
        """
        nodes = [
            {"data": {"id": r.id, "label": r.name, "kind": r.kind, "color": kind_color(r.kind), "ppr": float(r.ppr),
                      "heat": float(r.heat), "heat_color": r.heat_color, "is_seed": bool(r.is_seed),
                      "in_subgraph": bool(r.in_subgraph), "n_passages": len(r.passages),
                      "tooltip": f"{r.name} ({r.kind})<br>PPR {r.ppr:.2e}<br>{len(r.passages)} passage(s)"},
             "classes": "seed" if r.is_seed else ""}
            for r in self.nodes.itertuples(index=False)
        ]
        edges = [
            {"data": {"id": r.id, "source": r.source, "target": r.target, "label": relation_label(r.rel_type),
                      "rel_type": r.rel_type, "provenance": r.provenance, "n_passages": len(r.passages),
                      "directed": r.provenance != "literature",
                      "tooltip": f"{relation_label(r.rel_type)} ({r.rel_type}, {r.provenance})"},
             "classes": r.provenance + (" negated" if str(r.rel_type).upper().startswith("NOT ") else "")}
            for r in self.edges.itertuples(index=False)
        ]
        return {"nodes": nodes, "edges": edges}

    def to_networkx(self) -> nx.MultiDiGraph:
        """A :class:`networkx.MultiDiGraph`: each edge from its subject (``source``) to its object
        (``target``), parallel edges kept and keyed by edge id; ``directed`` is False on literature
        co-mentions (their order is alphabetical, not meaningful), ``label`` the readable relation."""
        import networkx as nx

        graph = nx.MultiDiGraph(question=self.question)
        for r in self.nodes.itertuples(index=False):
            graph.add_node(r.id, name=r.name, kind=r.kind, color=kind_color(r.kind), ppr=float(r.ppr),
                           heat=float(r.heat), is_seed=bool(r.is_seed), in_subgraph=bool(r.in_subgraph),
                           passages=";".join(r.passages))
        for r in self.edges.itertuples(index=False):
            graph.add_edge(r.source, r.target, key=r.id, rel_type=r.rel_type, label=relation_label(r.rel_type),
                           provenance=r.provenance, directed=r.provenance != "literature",
                           passages=";".join(r.passages))
        return graph

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: question, node and edge records, passage -> entities, total_nodes."""
        return {
            "question": self.question,
            "nodes": [{**r, "passages": list(r["passages"])} for r in self.nodes.to_dict(orient="records")],
            "edges": [{**r, "passages": list(r["passages"])} for r in self.edges.to_dict(orient="records")],
            "passage_entities": {k: list(v) for k, v in self.passage_entities.items()},
            "total_nodes": self.total_nodes,
        }


def build_answer_graph(
    result: RetrievalResult,
    mentions: pd.DataFrame | None = None,
    *,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    extra_edges: pd.DataFrame | None = None,
) -> AnswerGraph:
    """Build the :class:`AnswerGraph` of a retrieval result (see the module docstring for provenances).

    Parameters
    ----------
    result : the retrieval result (its PPR subgraph, passages and evidence paths are used).
    mentions : entities mentioned by the retrieved passages, as returned by
        :meth:`GraphStore.passage_mentions` (columns ``passage_id, entity_id, entity_name, entity_label``
        at least). ``None``: only the entities on the passages' evidence paths are known.
    max_nodes : keep the first ``max_nodes`` nodes (seeds, then PPR, then passage count); None keeps all.
    extra_edges : optional ``source, target, rel_type`` rows to add as ``inferred`` edges (agents'
        hypotheses); rows with an endpoint outside the graph are dropped.

    Returns
    -------
    AnswerGraph

    Raises
    ------
    DataError
        If ``mentions`` or ``extra_edges`` lack their required columns, or ``max_nodes < 1``.
    """
    if max_nodes is not None and max_nodes < 1:
        raise DataError(f"max_nodes={max_nodes} must be >= 1 (or None for no cap).")
    sub = result.subgraph_nodes
    info: dict[str, dict[str, Any]] = {
        str(r.id): {"name": str(r.name), "kind": str(r.kind), "ppr": float(r.ppr), "is_seed": bool(r.is_seed),
                    "in_subgraph": True}
        for r in sub.itertuples(index=False)
    }
    for entity in result.entities:  # seeds outside the KG part of the subgraph still appear
        info.setdefault(entity.node_id, {"name": entity.name, "kind": entity.kind, "ppr": 0.0, "is_seed": True,
                                         "in_subgraph": True})
    passage_entities = _passage_entities(result, mentions, info)
    mentioned_by: dict[str, list[str]] = defaultdict(list)
    for pid, ids in passage_entities.items():
        for node_id in ids:
            mentioned_by[node_id].append(pid)

    order = sorted(info, key=lambda n: (not info[n]["is_seed"], -info[n]["ppr"], -len(mentioned_by.get(n, ())), n))
    total = len(order)
    kept = order[:max_nodes] if max_nodes else order
    keep = set(kept)
    heat = heat_scale([info[n]["ppr"] for n in kept])
    nodes = pd.DataFrame({
        "id": kept,
        "name": [info[n]["name"] for n in kept],
        "kind": [info[n]["kind"] for n in kept],
        "ppr": [info[n]["ppr"] for n in kept],
        "heat": heat,
        "heat_color": [heat_color(h) for h in heat],
        "is_seed": [info[n]["is_seed"] for n in kept],
        "in_subgraph": [info[n]["in_subgraph"] for n in kept],
        "passages": [tuple(mentioned_by.get(n, ())) for n in kept],
    }, columns=list(NODE_COLUMNS))
    edges = _graph_edges(result, passage_entities, info, keep, extra_edges)
    entities = {p: tuple(e for e in ids if e in keep) for p, ids in passage_entities.items()}
    return AnswerGraph(result.question, nodes, edges, entities, total)


def _passage_entities(result: RetrievalResult, mentions: pd.DataFrame | None,
                      info: dict[str, dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Retrieved passage -> linked KG entity ids; adds mentioned entities missing from ``info``."""
    out: dict[str, list[str]] = {p.passage_id: [] for p in result.passages}
    if mentions is not None and not mentions.empty:
        missing = [c for c in ("passage_id", "entity_id", "entity_name", "entity_label") if c not in mentions.columns]
        if missing:
            raise DataError(f"The mentions frame lacks columns {missing}; pass GraphStore.passage_mentions(...).")
        linked = mentions[mentions["entity_id"].fillna("").astype(str) != ""]
        for pid, eid, name, label in linked[["passage_id", "entity_id", "entity_name", "entity_label"]].itertuples(
                index=False):
            if pid not in out or str(label) not in LABEL_TO_KIND:
                continue
            info.setdefault(str(eid), {"name": str(name), "kind": LABEL_TO_KIND[str(label)], "ppr": 0.0,
                                       "is_seed": False, "in_subgraph": False})
            out[pid].append(str(eid))
    for hit in result.passages:  # evidence paths end at an entity the passage mentions
        for path in hit.paths:
            if path.nodes and path.nodes[-1] in info:
                out[hit.passage_id].append(path.nodes[-1])
    return {p: tuple(dict.fromkeys(ids)) for p, ids in out.items()}


def _graph_edges(result: RetrievalResult, passage_entities: dict[str, tuple[str, ...]],
                 info: dict[str, dict[str, Any]], keep: set[str], extra_edges: pd.DataFrame | None) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    curated_pairs: set[frozenset[str]] = set()
    for source, target, rel in result.subgraph_edges[["source", "target", "rel_type"]].itertuples(index=False):
        curated_pairs.add(frozenset((source, target)))
        if source in keep and target in keep:
            rows.append({"id": f"{source}|{rel}|{target}", "source": source, "target": target, "rel_type": rel,
                         "provenance": "curated", "passages": ()})
    co_mentions: dict[tuple[str, str], list[str]] = defaultdict(list)
    for pid, ids in passage_entities.items():
        for a, b in combinations(sorted(set(ids) & keep), 2):
            if frozenset((a, b)) in curated_pairs or not (info[a]["in_subgraph"] or info[b]["in_subgraph"]):
                continue
            co_mentions[(a, b)].append(pid)
    rows += [{"id": f"{a}|CO_MENTIONED|{b}", "source": a, "target": b, "rel_type": "CO_MENTIONED",
              "provenance": "literature", "passages": tuple(pids)} for (a, b), pids in sorted(co_mentions.items())]
    inferred: dict[tuple[str, str, str], None] = {}
    for hit in result.passages:
        for path in hit.paths:
            for (a, b), rel in zip(zip(path.nodes, path.nodes[1:]), path.relations):
                if frozenset((a, b)) not in curated_pairs and a in keep and b in keep:
                    inferred[(a, rel, b)] = None
    if extra_edges is not None and not extra_edges.empty:
        missing = [c for c in ("source", "target", "rel_type") if c not in extra_edges.columns]
        if missing:
            raise DataError(f"extra_edges lacks columns {missing}; expected source, target, rel_type rows.")
        for a, b, rel in extra_edges[["source", "target", "rel_type"]].itertuples(index=False):
            if a in keep and b in keep:
                inferred[(str(a), str(rel), str(b))] = None
    rows += [{"id": f"{a}|{rel}|{b}|inferred", "source": a, "target": b, "rel_type": rel, "provenance": "inferred",
              "passages": ()} for a, rel, b in inferred]
    return pd.DataFrame(rows, columns=list(EDGE_COLUMNS))


# ------------------------------------------------------------------------------------ file exports
def write_cytoscape_json(graph: AnswerGraph, path: str | Path) -> Path:
    """Write Cytoscape.js JSON (``{"elements": {...}, "data": {...}}``, loadable by Cytoscape desktop)."""
    path = Path(path)
    doc = {"format_version": "1.0", "generated_by": f"engram-kit {__version__}", "data": {"name": graph.question},
           "elements": graph.to_cytoscape()}
    path.write_text(json.dumps(doc, indent=1))
    return path


def write_graphml(graph: AnswerGraph, path: str | Path) -> Path:
    """Write GraphML via networkx: a directed multigraph (``edgedefault="directed"``, subject -> object),
    parallel typed edges kept."""
    import networkx as nx

    path = Path(path)
    nx.write_graphml(graph.to_networkx(), path)
    return path


def render_graph(graph: AnswerGraph, path: str | Path, *, max_labels: int = 25, seed: int = 7,
                 size: tuple[float, float] = (10.0, 7.0), dpi: int = 150) -> Path:
    """Draw the graph to SVG or PNG (format from the suffix) with the widget's colours, headless.

    Nodes: fill = Hetionet kind colour, ring = PPR heat colour, seeds drawn larger with a black ring;
    edges: :data:`PROVENANCE_STYLES`. Labels on the ``max_labels`` first nodes (seeds, then PPR).
    Layout: NetworkX spring layout (Fruchterman-Reingold) with a fixed ``seed``, so output is reproducible.

    Raises
    ------
    DataError
        If the suffix is not ``.svg`` or ``.png``.
    """
    import networkx as nx
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("svg", "png"):
        raise DataError(f"Cannot render {path.name}: use a .svg or .png file name.")
    simple = nx.Graph()
    simple.add_nodes_from(graph.nodes["id"])
    simple.add_edges_from(zip(graph.edges["source"], graph.edges["target"]))
    pos = _static_layout(simple, seed)
    fig = Figure(figsize=size, dpi=dpi)
    ax = fig.add_subplot()
    for provenance in PROVENANCES:
        sel = graph.edges[graph.edges["provenance"] == provenance]
        if sel.empty:
            continue
        style = PROVENANCE_STYLES[provenance]
        nx.draw_networkx_edges(simple, pos, ax=ax, edgelist=list(zip(sel["source"], sel["target"])),
                               edge_color=style["color"], style=style["mpl_style"], width=0.9, alpha=0.8)
    nodes = graph.nodes
    if len(nodes):
        sizes = [(260 if s else 60) + 420 * h for s, h in zip(nodes["is_seed"], nodes["heat"])]
        nx.draw_networkx_nodes(simple, pos, ax=ax, nodelist=list(nodes["id"]),
                               node_color=[kind_color(k) for k in nodes["kind"]], node_size=sizes,
                               edgecolors=["#000000" if s else c for s, c in zip(nodes["is_seed"], nodes["heat_color"])],
                               linewidths=[2.5 if s else 2.0 for s in nodes["is_seed"]])
        labels = {r.id: (r.name if len(r.name) <= 24 else r.name[:23] + "…") for r in nodes.head(max_labels).itertuples()}
        nx.draw_networkx_labels(simple, pos, ax=ax, labels=labels, font_size=7)
    by_color: dict[str, list[str]] = {}
    for kind in dict.fromkeys(nodes["kind"]):  # Hetionet shares one orange among four kinds: one legend entry
        by_color.setdefault(kind_color(kind), []).append(kind)
    handles = [Line2D([], [], marker="o", ls="", color=c, label=" / ".join(k)) for c, k in by_color.items()]
    handles += [Line2D([], [], color=PROVENANCE_STYLES[p]["color"], ls=PROVENANCE_STYLES[p]["mpl_style"], label=p)
                for p in PROVENANCES if (graph.edges["provenance"] == p).any()]
    if handles:
        ax.legend(handles=handles, loc="lower left", fontsize=7, frameon=False)
    ax.set_axis_off()
    shown = f"{len(nodes)} of {graph.total_nodes} nodes" if graph.truncated else f"{len(nodes)} nodes"
    ax.set_title(f"{graph.question}\n({shown}; colour = kind, ring = PPR heat, black ring = seed)", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format=fmt)
    return path


def _static_layout(graph: nx.Graph, seed: int) -> dict[Any, np.ndarray]:
    """Spring layout of the connected nodes in the unit disc; isolated nodes on a ring just outside it.

    Without this, Fruchterman-Reingold pushes isolated nodes to the corners and squeezes the connected
    part into the middle of the picture.
    """
    import networkx as nx

    connected = [n for n in graph if graph.degree(n) > 0]
    isolated = [n for n in graph if graph.degree(n) == 0]
    core = graph.subgraph(connected)
    pos: dict[Any, np.ndarray] = {}
    if len(core):
        pos = nx.spring_layout(core, seed=seed, k=2.0 / math.sqrt(len(core)), iterations=100)
        xy = np.array(list(pos.values()))
        xy -= xy.mean(axis=0)
        xy /= max(float(np.abs(xy).max()), 1e-9)
        pos = dict(zip(pos, xy))
    for i, node in enumerate(isolated):
        angle = 2 * math.pi * i / len(isolated)
        pos[node] = np.array([1.2 * math.cos(angle), 1.2 * math.sin(angle)])
    return pos


def passages_frame(result: RetrievalResult) -> pd.DataFrame:
    """Ranked passages with full text, scores, section/page and mentioned entities (the passages CSV)."""
    rows = [{"rank": p.rank, "citation": p.citation, "passage_id": p.passage_id, "article_id": p.article_id,
             "source": p.source, "pmid": p.pmid, "title": p.title, "year": p.year, "section": p.section,
             "page_start": p.page_start, "page_end": p.page_end, "score": p.score, "ppr_score": p.ppr_score,
             "semantic_score": p.semantic_score, "entities": "; ".join(p.entities),
             "evidence_path": p.paths[0].describe() if p.paths else "", "text": p.text}
            for p in result.passages]
    return pd.DataFrame(rows, columns=["rank", "citation", "passage_id", "article_id", "source", "pmid", "title",
                                       "year", "section", "page_start", "page_end", "score", "ppr_score",
                                       "semantic_score", "entities", "evidence_path", "text"])


def write_passages_csv(result: RetrievalResult, path: str | Path) -> Path:
    """Write :func:`passages_frame` as UTF-8 CSV."""
    path = Path(path)
    passages_frame(result).to_csv(path, index=False)
    return path


def write_entities_csv(graph: AnswerGraph, path: str | Path) -> Path:
    """Write the graph's nodes (:meth:`AnswerGraph.to_frame`) as UTF-8 CSV."""
    path = Path(path)
    graph.to_frame().to_csv(path, index=False)
    return path


def run_bundle(answer: Answer, graph: AnswerGraph | None = None, *, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A self-describing JSON document of one answered question: answer, retrieval, graph and versions.

    ``extra`` is stored under ``"extra"`` (e.g. workspace manifest facts, agent events). This is the export
    of a plain ``ask``; an agents' investigation has its own replayable bundle,
    :class:`engram_kit.runs.RunBundle` (format ``"engram-run-bundle"``), so this one is named
    ``"engram-answer-bundle"`` to keep the two apart.
    """
    return {
        "kind": "engram-answer-bundle", "format_version": 1, "engram_kit_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "answer": answer.to_dict(), "graph": graph.to_dict() if graph is not None else None,
        "extra": extra or {},
    }


def write_run_bundle(answer: Answer, path: str | Path, graph: AnswerGraph | None = None, *,
                     extra: dict[str, Any] | None = None) -> Path:
    """Write :func:`run_bundle` as JSON (NumPy scalars and other non-JSON values as strings)."""
    path = Path(path)
    path.write_text(json.dumps(run_bundle(answer, graph, extra=extra), indent=1, default=_json_default))
    return path


def export_answer(answer: Answer, graph: AnswerGraph, folder: str | Path, *,
                  formats: Iterable[str] = ("json", "graphml", "svg", "png", "passages", "entities", "bundle"),
                  stem: str = "answer") -> dict[str, Path]:
    """Write the chosen exports of one answer into ``folder`` (created); returns format -> file path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    writers = {
        "json": lambda: write_cytoscape_json(graph, folder / f"{stem}.cyjs.json"),
        "graphml": lambda: write_graphml(graph, folder / f"{stem}.graphml"),
        "svg": lambda: render_graph(graph, folder / f"{stem}.svg"),
        "png": lambda: render_graph(graph, folder / f"{stem}.png"),
        "passages": lambda: write_passages_csv(answer.retrieval, folder / f"{stem}-passages.csv"),
        "entities": lambda: write_entities_csv(graph, folder / f"{stem}-entities.csv"),
        "bundle": lambda: write_run_bundle(answer, folder / f"{stem}-bundle.json", graph),
    }
    unknown = [f for f in formats if f not in writers]
    if unknown:
        raise DataError(f"Unknown export format(s) {unknown}; choose from {', '.join(writers)}.")
    return {f: writers[f]() for f in formats}


def export_bytes(answer: Answer, graph: AnswerGraph, *,
                 formats: Iterable[str] = ("json", "graphml", "svg", "png", "passages", "entities", "bundle"),
                 stem: str = "answer") -> dict[str, bytes]:
    """The same files as :func:`export_answer`, in memory: file name -> content (for browser downloads,
    so nothing is written into the workspace). Pass the graph the reader sees, so the files match it."""
    with tempfile.TemporaryDirectory(prefix="engram-export-") as folder:
        files = export_answer(answer, graph, folder, formats=formats, stem=stem)
        return {path.name: path.read_bytes() for path in files.values()}


# ---------------------------------------------------------------------------------- citation links
@dataclass(frozen=True)
class CitationLink:
    """Where a citation leads: what the reader sees, an outside address, the evidence card and graph nodes.

    Attributes
    ----------
    label : ``"PMID:123"`` for PubMed, ``"<document title>, p. 4"`` for an uploaded document, the
        relationship in words for a graph edge (``"Hetionet: interacts"``), the desk row otherwise.
    url : PubMed or doi.org address; ``""`` when the evidence has none (an uploaded file, a curated edge
        without publications).
    passage_id : the cited passage (its evidence card), ``""`` for an edge or desk row.
    node_ids : graph nodes to highlight: the passage's entities, or the edge's two ends.
    """

    label: str
    url: str
    passage_id: str
    node_ids: tuple[str, ...]


_EDGE_REF = re.compile(r"^(?P<source>.+?) -\[(?P<rel>.+?)\]-> (?P<target>.+)$")


def citation_link(citation: Citation, result: RetrievalResult, graph: AnswerGraph | None = None) -> CitationLink:
    """Resolve a :class:`~engram_kit.answering.Citation` of an answer into a :class:`CitationLink`.

    Passages are looked up in ``result.passages`` (PMID -> PubMed; a DOI in the title -> doi.org; an uploaded
    document is named by its title and page instead of its internal id). Edge citations
    (``"<source> -[<REL>]-> <target>"``) link the first PMID/DOI of the edge's ``publications`` in
    ``result.subgraph_edges`` when there is one. ``graph`` supplies the passage's entities.
    """
    if citation.kind == "passage":
        hit = next((h for h in result.passages if h.passage_id == citation.ref), None)
        entities = graph.entities_of(citation.ref) if graph is not None else ()
        if hit is None:
            return CitationLink(citation.label, "", citation.ref, entities)
        if hit.pmid:
            return CitationLink(f"PMID:{hit.pmid}", PUBMED_URL.format(pmid=hit.pmid), hit.passage_id, entities)
        doi = _DOI.search(hit.title or "")
        pages = (f", p. {hit.page_start}" + (f"-{hit.page_end}" if hit.page_end and hit.page_end != hit.page_start
                                             else "")) if hit.page_start else ""
        title = hit.title or hit.article_id
        title = title if len(title) <= 80 else title[:79] + "…"
        return CitationLink(f"{title}{pages}", DOI_URL.format(doi=doi.group(1)) if doi else "", hit.passage_id,
                            entities)
    match = _EDGE_REF.match(citation.ref) if citation.kind == "edge" else None
    if match is None:
        return CitationLink(citation.label, "", "", ())
    source, rel, target = match["source"], match["rel"], match["target"]
    url = ""
    edges = result.subgraph_edges
    if "publications" in edges.columns and len(edges):
        row = edges[(edges["source"] == source) & (edges["target"] == target) & (edges["rel_type"] == rel)]
        pubs = " ".join(str(v) for v in row["publications"].head(1) if v)
        doi, pmid = _DOI.search(pubs), _PMID.search(pubs)
        url = (PUBMED_URL.format(pmid=pmid.group(1)) if pmid and "pmid" in pubs.lower()
               else DOI_URL.format(doi=doi.group(1)) if doi else "")
    label = citation.label.replace(rel, relation_label(rel)) if rel in citation.label else citation.label
    return CitationLink(label, url, "", (source, target))


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
