"""Personalized PageRank on Neo4j Graph Data Science: a managed projection and a PPR engine for the Retriever.

:class:`GDSProjection` keeps one named, undirected, weighted in-memory graph of exactly the nodes and edges the
embedded PPR uses (:class:`~engram_kit.retrieval.graph_index.GraphIndex`: the 24 Hetionet relationship types
with weight 1, Passage-MENTIONS->NounPhrase with weight = mention count, NounPhrase-MAPS_TO->entity with weight
= linking confidence, SAME_AS with weight 1). It is projected on first use, re-projected when the store's
write generation changed, and dropped when the store closes. :class:`GDSPPREngine` runs
``gds.pageRank.stream`` on it with the question's seed entities as weighted source nodes and returns scores
aligned with the local GraphIndex, so the rest of retrieval (ranking, subgraph, evidence paths) is unchanged.

All GDS Cypher comes from the Neo4j statement pack (``gds_*`` statements of
:data:`~engram_kit.store.statements.neo4j.NEO4J_STATEMENTS`) and is sent through the
``graphdatascience`` client's ``run_cypher``, which works the same on GDS client 1.x and 2.x.

Parameter mapping (so results agree with :func:`engram_kit.retrieval.ppr.personalized_pagerank`)
---------------------------------------------------------------------------------------------------
``Settings.damping`` -> ``dampingFactor``
    Same meaning: probability of following an edge; restart probability ``1 - damping`` goes to the
    source nodes in proportion to their bias (GDS 2.x ``sourceNodes: [[node, bias], ...]``; the bias is our
    seed weight). GDS scores are not normalised (they sum to about ``sum(bias)``, not 1); we divide by their
    sum, which makes them the same probability vector.
``Settings.ppr_tol`` -> ``tolerance = ppr_tol / n_nodes``
    Our ``ppr_tol`` bounds the **L1** change of the whole score vector between two steps. GDS stops when
    **every node's** score changes by less than ``tolerance`` (an L-infinity test). Since
    ``||dx||_1 <= n * ||dx||_inf``, a per-node tolerance of ``ppr_tol / n`` guarantees the same L1 stopping
    rule (it is conservative: GDS may run a few more iterations than needed, ~log2(n) at damping 0.5).
``Settings.ppr_max_iter`` -> ``maxIterations``
    Same meaning. GDS's default of 20 is too low for the tolerance above, so it is always passed.
Dangling nodes
    Our solver sends the mass of degree-0 nodes back to the seeds; GDS lets it leak. The projection holds
    only nodes with at least one edge (undirected), so no projected node is dangling and both agree; a seed
    that has no edge at all is not in the projection and gets no score (the embedded PPR would give it its
    own restart mass). :meth:`GDSPPREngine.run` reports the L1 fixed-point residual of the GDS scores under
    our operator, so any disagreement is visible in ``PPRResult.residual``.

References
----------
Neo4j Graph Data Science manual 2.x: "PageRank" (``sourceNodes``, ``dampingFactor``, ``tolerance``,
``maxIterations``, ``relationshipWeightProperty``), "Projecting graphs using Cypher"
(``gds.graph.project`` aggregation function, ``undirectedRelationshipTypes``) and "Memory estimation".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from engram_kit.errors import BackendUnavailableError, DataError, QueryError
from engram_kit.settings import Settings
from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.store.cypher import DOMAIN_LABELS
from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS
from engram_kit.store.csr import CSRGraph
from engram_kit.store.ppr_engine import PPRResult, personalization_vector

if TYPE_CHECKING:
    from engram_kit.retrieval.graph_index import GraphIndex

logger = logging.getLogger(__name__)

#: Labels of the projected graph (the node kinds PPR scores).
RETRIEVAL_LABELS: tuple[str, ...] = (*DOMAIN_LABELS, "NounPhrase", "Passage")
#: Oldest GDS server version with the Cypher projection *function* ``gds.graph.project(...)`` (GDS 2.4).
#: Weighted source nodes ``[[node, bias], ...]`` ("biased personalised PageRank") came later, in a 2025
#: GDS 2.x release (neo4j/graph-data-science issue 325); an older server rejects that form, which
#: :class:`GDSPPREngine` reports as BackendUnavailableError naming the upgrade.
MIN_GDS_VERSION: tuple[int, int] = (2, 4)


@dataclass(frozen=True)
class ProjectionInfo:
    """What one projection call built. ``seconds`` is wall time including the server's work."""

    name: str
    node_count: int
    relationship_count: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pagerank_parameters(settings: Settings, n_nodes: int) -> dict[str, float | int]:
    """GDS PageRank parameters equivalent to our Settings (see the module notes).

    Parameters
    ----------
    settings : Settings
        ``damping``, ``ppr_tol`` (L1) and ``ppr_max_iter``.
    n_nodes : int
        Nodes of the graph PPR runs on (>= 1), to turn the L1 tolerance into GDS's per-node one.

    Returns
    -------
    dict
        ``damping_factor``, ``tolerance``, ``max_iterations``: the ``$`` parameters of the
        ``gds_pagerank_stream`` statement.
    """
    n = max(int(n_nodes), 1)
    return {"damping_factor": float(settings.damping), "tolerance": float(settings.ppr_tol) / n,
            "max_iterations": int(settings.ppr_max_iter)}


def _run(gds: Any, name: str, parameters: dict[str, Any] | None = None, *, schema: GraphSchema | None = None,
         **identifiers: str) -> pd.DataFrame:
    """Run a statement of the Neo4j pack through the client's ``run_cypher``; errors become engram-kit errors."""
    try:
        result = gds.run_cypher(NEO4J_STATEMENTS.statement(name, schema=schema, **identifiers), parameters or {})
    except Exception as exc:
        message = str(exc)
        if name == "gds_pagerank_stream" and "sourceNodes" in message:
            raise BackendUnavailableError(f"This GDS version does not accept weighted source nodes ([[node, bias], "
                                          f"...], GDS 2.x releases from 2025); upgrade the GDS plugin. ({message})"
                                          ) from exc
        if "gds." in message and ("no procedure" in message.lower() or "unknown function" in message.lower()):
            raise BackendUnavailableError(f"The Neo4j server has no Graph Data Science plugin ({message}); install "
                                          f"GDS 2.x (docs/scaling-out.md).") from exc
        raise QueryError(f"GDS statement {name!r} failed: {message}") from exc
    return result if isinstance(result, pd.DataFrame) else pd.DataFrame(result)


def check_gds_version(gds: Any) -> str:
    """The server's GDS version; raise BackendUnavailableError if older than :data:`MIN_GDS_VERSION`."""
    try:
        server = gds.server_version()  # graphdatascience 1.x and 2.x: ServerVersion(major, minor, patch)
    except Exception as exc:
        raise BackendUnavailableError(f"Could not read the GDS version ({exc}); is the GDS plugin installed?") from exc
    parts = (int(server.major), int(server.minor))
    version = ".".join(str(getattr(server, k)) for k in ("major", "minor", "patch"))
    if parts < MIN_GDS_VERSION:
        raise BackendUnavailableError(f"GDS {version} is too old: weighted source nodes need GDS >= "
                                      f"{'.'.join(map(str, MIN_GDS_VERSION))}; upgrade the plugin.")
    return version


class GDSProjection:
    """The named GDS graph retrieval runs on: project, refresh when stale, drop.

    Parameters
    ----------
    gds : graphdatascience.GraphDataScience or any object with ``run_cypher(query, params)`` and
        ``server_version()``
    name : str
        Graph catalog name (one per workspace; use distinct names for workspaces sharing a server).
    """

    def __init__(self, gds: Any, *, name: str = "engram_retrieval", schema: GraphSchema | None = None) -> None:
        self.gds = gds
        self.name = name
        #: Domain layer whose relationship types are projected (negated KGX assertions are left out).
        self.schema = require_schema(schema, "GdsProjection")
        self.version: object = None
        self.info: ProjectionInfo | None = None
        self._checked = False

    def exists(self) -> bool:
        frame = _run(self.gds, "gds_graph_exists", {"graph_name": self.name}, schema=self.schema)
        return bool(len(frame) and frame["exists"].iloc[0])

    def drop(self) -> None:
        """Remove the graph from the catalog (no-op if absent) and free its memory."""
        _run(self.gds, "gds_graph_drop", {"graph_name": self.name}, schema=self.schema)
        self.version, self.info = None, None

    def project(self) -> ProjectionInfo:
        """Drop any graph of this name and project it again from the database."""
        if not self._checked:
            check_gds_version(self.gds)
            self._checked = True
        t0 = time.perf_counter()
        self.drop()
        frame = _run(self.gds, "gds_project_retrieval_graph", {"graph_name": self.name}, schema=self.schema)
        if frame.empty:  # no relationship matched: an empty database
            raise DataError("The Neo4j database holds no edges PPR could use; load a knowledge graph first.")
        row = frame.iloc[0]
        self.info = ProjectionInfo(self.name, int(row["node_count"]), int(row["relationship_count"]),
                                   time.perf_counter() - t0)
        logger.info("Projected GDS graph %s: %d nodes, %d relationships in %.1f s", self.name,
                    self.info.node_count, self.info.relationship_count, self.info.seconds)
        return self.info

    def ensure(self, version: object) -> ProjectionInfo:
        """Project unless a projection of this ``version`` (the store's write generation) exists."""
        if self.info is None or self.version != version:
            self.project()
            self.version = version
        assert self.info is not None
        return self.info

    def estimate(self) -> dict[str, Any]:
        """GDS's memory estimate for a native projection of the retrieval labels and types (undirected).

        Returns
        -------
        dict
            ``required_memory`` (human-readable range), ``bytes_min``, ``bytes_max``, ``node_count``,
            ``relationship_count`` as reported by ``gds.graph.project.estimate``.
        """
        rel_types = self.schema.rel_types + ("MENTIONS", "MAPS_TO", "SAME_AS")
        rels = {rel: {"orientation": "UNDIRECTED"} for rel in rel_types}
        labels = (*self.schema.labels, "NounPhrase", "Passage")
        frame = _run(self.gds, "gds_project_estimate", {"node_projection": list(labels),
                                                         "relationship_projection": rels}, schema=self.schema)
        return {k: (v.item() if hasattr(v, "item") else v) for k, v in frame.iloc[0].to_dict().items()}


def fixed_point_residual(graph: CSRGraph, scores: np.ndarray, s: np.ndarray, damping: float) -> float:
    """L1 residual ``||F(x) - x||_1`` of ``scores`` under the embedded PPR operator (see ``ppr.py``).

    ``F(x) = d T x + (d * sum(x[dangling]) + 1 - d) s``. Small (about the solver tolerance) when ``scores``
    is the same fixed point the embedded solver computes.
    """
    x = np.asarray(scores, dtype=np.float64)
    dangling = float(x[np.asarray(graph.degree) == 0].sum())
    fx = damping * (graph.transition @ x) + (damping * dangling + 1.0 - damping) * s
    return float(np.abs(fx - x).sum())


class GDSPPREngine:
    """PPR on the server: implements the Retriever's ``PPREngine`` protocol with ``gds.pageRank.stream``.

    Parameters
    ----------
    projection : GDSProjection
        The managed projection (refreshed here when ``version()`` changed).
    version : callable, optional
        Returns the current data version (the store's write generation); default: never refresh.
    """

    def __init__(self, projection: GDSProjection, *, version: Callable[[], object] | None = None) -> None:
        self.projection = projection
        self._version = version or (lambda: 0)
        #: False once the server refused weighted source nodes (OpenGDS 2.13.9 does); then grouped calls are used.
        self.weighted_sources = True

    def _stream(self, rows: list[dict[str, Any]], parameters: dict[str, Any]) -> list[tuple[float, pd.DataFrame]]:
        """GDS scores for the seed rows ``{element_id, weight}``: ``[(share of restart mass, frame id/score)]``.

        One weighted call where the server accepts ``[[node, bias], ...]``; otherwise one unweighted call per
        group of equal weights, each group's share being its part of the total weight. PPR is linear in the
        restart vector (x = (1 - d) s + d P x), so the weighted sum of the groups' normalised scores is exactly
        the weighted result.
        """
        if self.weighted_sources:
            try:
                return [(1.0, _run(self.projection.gds, "gds_pagerank_stream", {**parameters, "seeds": rows}))]
            except BackendUnavailableError as exc:
                if "weighted source nodes" not in str(exc):
                    raise
                logger.info("GDS refused weighted source nodes; using one call per seed-weight group")
                self.weighted_sources = False
        total = sum(row["weight"] for row in rows)
        groups: dict[float, list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(round(row["weight"], 12), []).append(row)
        return [(weight * len(group) / total,
                 _run(self.projection.gds, "gds_pagerank_stream_uniform", {**parameters, "seeds": group}))
                for weight, group in groups.items()]

    def _element_ids(self, node_ids: list[str]) -> dict[str, str]:
        from engram_kit.store.cypher_store import _label_of_id

        by_label: dict[str, list[str]] = {}
        for node_id in node_ids:
            label = "Passage" if "#p" in node_id else _label_of_id(node_id, self.projection.schema)
            if label is None:
                raise DataError(f"Seed {node_id!r} is not a graph node id ('Kind::identifier', 'np:...').")
            by_label.setdefault(label, []).append(node_id)
        out: dict[str, str] = {}
        for label, ids in by_label.items():
            frame = _run(self.projection.gds, "element_ids", {"ids": ids}, label=label,
                         schema=self.projection.schema)
            out.update(zip(frame["id"], frame["element_id"]))
        return out

    def run(self, index: GraphIndex, seeds: Mapping[int, float], settings: Settings) -> PPRResult:
        """Scores of every node of ``index`` (float32, sum 1) for the seed weights ``{index: weight}``.

        Raises
        ------
        DataError
            No seed is a node of the Neo4j database (the local index and the server disagree).
        BackendUnavailableError, QueryError
            GDS missing or failing.
        """
        graph = index.graph
        s = personalization_vector(graph, seeds)
        self.projection.ensure(self._version())
        ids = [str(graph.node_ids[i]) for i in seeds]
        element_ids = self._element_ids(ids)
        rows = [{"element_id": element_ids[node_id], "weight": float(s[i])}
                for node_id, i in zip(ids, seeds) if node_id in element_ids and s[i] > 0]
        if not rows:
            raise DataError(f"None of the seeds {ids[:5]} is in the Neo4j database; was the workspace migrated "
                            f"completely (engram migrate)?")
        parameters = {"graph_name": self.projection.name, **pagerank_parameters(settings, graph.n_nodes)}
        scores = np.zeros(graph.n_nodes, dtype=np.float64)
        position = graph.index
        for share, frame in self._stream(rows, parameters):
            part = np.zeros(graph.n_nodes, dtype=np.float64)
            if not frame.empty:
                found = [(position.get(str(n)), float(v)) for n, v in zip(frame["id"], frame["score"])]
                idx = np.fromiter((i for i, _ in found if i is not None), dtype=np.int64)
                vals = np.fromiter((v for i, v in found if i is not None), dtype=np.float64)
                part[idx] = vals
            if part.sum() > 0:
                scores += share * part / part.sum()
        total = scores.sum()
        if total > 0:
            scores /= total
        residual = fixed_point_residual(graph, scores, s, settings.damping)
        # GDS's stream mode does not report its iteration count; 0 marks "computed on the server".
        return PPRResult(scores.astype(np.float32), 0, residual <= max(settings.ppr_tol * 10, 1e-5), residual)
