"""Structure of a literature map: Louvain communities, betweenness, bridges, modularity, density.

* **Communities**: Louvain modularity maximisation (Blondel et al., "Fast unfolding of communities in
  large networks", J. Stat. Mech. 2008) from python-louvain (``import community``; NetworkX's
  ``louvain_communities`` is the fallback when it is absent), on the analysis ``weight``, with a fixed
  ``random_state`` so the same map always gives the same partition; ``resolution`` > 1 gives more, smaller
  communities (Lambiotte et al., 2008).
* **Betweenness**: NetworkX ``betweenness_centrality`` (Brandes, "A faster algorithm for betweenness
  centrality", J. Math. Sociol. 2001), normalised to [0, 1], with shortest paths over the edge attribute
  ``distance = 1 / weight``: a strong co-occurrence is a short hop, so an entity scores high when it sits
  on many of the strongest routes between other entities. (Passing the weight itself as distance, a
  common mistake, would route paths through the *weakest* links.)
* **Bridges**: edges whose ends lie in different communities, aggregated per community pair and ranked
  by summed weight; the bridging entities are reported with their betweenness.
* **Modularity** (Newman 2006) of the partition under the same weights and resolution; **density**
  ``2m / (n (n - 1))`` of the simple graph.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import pandas as pd

from engram_kit.errors import DataError

try:  # python-louvain (pip install python-louvain), imported as "community"
    import community as community_louvain
except ImportError:  # pragma: no cover - exercised only where python-louvain is absent
    community_louvain = None

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_SEED", "MapStructure", "analyze_structure"]

#: Random seed of Louvain (python-louvain ``random_state``), for reproducible communities.
DEFAULT_SEED = 42


@dataclass
class MapStructure:
    """Structural analysis of a literature map.

    Attributes
    ----------
    nodes : DataFrame
        One row per entity: ``id, name, kind, community, betweenness`` (in [0, 1]), ``degree``,
        ``strength`` (sum of analysis weights), ``sentences``; sorted by decreasing betweenness.
    communities : DataFrame
        One row per community: ``community, size, top_entities`` (names by strength), ``internal_weight``.
        Communities are numbered 0.. by decreasing size.
    bridges : DataFrame
        One row per pair of communities joined by at least one edge: ``community_a, community_b, edges,
        weight`` (summed), ``top_edge`` ("A -- B"), ``bridge_entities`` (endpoints with the highest
        betweenness); sorted by decreasing weight.
    partition : dict of str to int
        Entity id -> community.
    modularity : float
        Newman modularity of the partition at the given resolution (NetworkX ``modularity``), in
        [-0.5, 1] at resolution 1; NaN for a graph without edges.
    density : float
        In [0, 1].
    n_nodes, n_edges : int
    seconds : dict of str to float
        Wall-clock seconds of each step (``louvain``, ``betweenness``, ``tables``).
    """

    nodes: pd.DataFrame
    communities: pd.DataFrame
    bridges: pd.DataFrame
    partition: dict[str, int]
    modularity: float
    density: float
    n_nodes: int
    n_edges: int
    seconds: dict[str, float] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The per-entity table (:attr:`nodes`)."""
        return self.nodes

    def summary(self) -> dict[str, Any]:
        """Headline numbers as a plain dict."""
        return {"nodes": self.n_nodes, "edges": self.n_edges, "communities": len(self.communities),
                "modularity": round(self.modularity, 4), "density": round(self.density, 4),
                "seconds": round(sum(self.seconds.values()), 4)}


def analyze_structure(
    graph: nx.Graph,
    *,
    resolution: float = 1.0,
    seed: int = DEFAULT_SEED,
    weight: str = "weight",
    betweenness_k: int | None = None,
) -> MapStructure:
    """Communities, betweenness, bridges, modularity and density of a map.

    Parameters
    ----------
    graph : networkx.Graph
        A map from :meth:`LiteratureMap.graph` (or any graph with positive ``weight`` edge attributes;
        ``name``/``kind`` node attributes are used when present).
    resolution : float
        Louvain resolution, > 0; 1.0 is classic modularity.
    seed : int
        Louvain ``random_state`` (and betweenness sampling seed).
    weight : str
        Edge attribute used as weight; distances are ``1 / weight``.
    betweenness_k : int, optional
        Sample this many source nodes for approximate betweenness (large maps); None: exact.

    Returns
    -------
    MapStructure

    Raises
    ------
    DataError
        If ``resolution`` <= 0, the graph is directed, or an edge weight is not positive.
    """
    if resolution <= 0:
        raise DataError(f"resolution={resolution!r} is out of range: use a positive number (1.0 = modularity).")
    if graph.is_directed():
        raise DataError("analyze_structure needs an undirected graph (a literature map); got a directed one.")
    distances: dict[tuple[Any, Any], float] = {}
    for a, b, data in graph.edges(data=True):
        value = data.get(weight, 1.0)
        if not value > 0:
            raise DataError(f"Edge {a!r} -- {b!r} has {weight}={value!r}; weights must be positive.")
        distances[(a, b)] = 1.0 / value
    seconds: dict[str, float] = {}

    started = time.perf_counter()
    if graph.number_of_edges():
        partition = _louvain(graph, weight, resolution, seed)
        modularity = nx.community.modularity(graph, _groups(partition), weight=weight, resolution=resolution)
    else:
        partition, modularity = {n: i for i, n in enumerate(graph.nodes)}, float("nan")
    partition = _renumber(partition)
    seconds["louvain"] = time.perf_counter() - started

    started = time.perf_counter()
    work = nx.Graph()
    work.add_nodes_from(graph.nodes)
    work.add_weighted_edges_from(((a, b, d) for (a, b), d in distances.items()), weight="_distance")
    k = betweenness_k if betweenness_k is not None and betweenness_k < work.number_of_nodes() else None
    betweenness = nx.betweenness_centrality(work, k=k, weight="_distance", normalized=True, seed=seed)
    seconds["betweenness"] = time.perf_counter() - started

    started = time.perf_counter()
    nodes = _node_table(graph, partition, betweenness, weight)
    communities = _community_table(graph, partition, nodes, weight)
    bridges = _bridge_table(graph, partition, betweenness, weight)
    seconds["tables"] = time.perf_counter() - started
    result = MapStructure(nodes=nodes, communities=communities, bridges=bridges, partition=partition,
                          modularity=float(modularity), density=nx.density(graph), n_nodes=graph.number_of_nodes(),
                          n_edges=graph.number_of_edges(), seconds=seconds)
    log.info("map structure: %s", result.summary())
    return result


def _louvain(graph: nx.Graph, weight: str, resolution: float, seed: int) -> dict[Any, int]:
    """Louvain partition: python-louvain when installed, else NetworkX's implementation (same method)."""
    if community_louvain is not None:
        return community_louvain.best_partition(graph, weight=weight, resolution=resolution, random_state=seed)
    log.warning("python-louvain is not installed; using networkx.community.louvain_communities (same method, "
                "partitions may differ). Fix: pip install python-louvain.")
    groups = nx.community.louvain_communities(graph, weight=weight, resolution=resolution, seed=seed)
    return {n: i for i, group in enumerate(groups) for n in group}


def _groups(partition: dict[Any, int]) -> list[set[Any]]:
    groups: dict[int, set[Any]] = defaultdict(set)
    for node, community in partition.items():
        groups[community].add(node)
    return list(groups.values())


def _renumber(partition: dict[Any, int]) -> dict[Any, int]:
    sizes = Counter(partition.values())
    order = {c: i for i, (c, _) in enumerate(sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])))}
    return {n: order[c] for n, c in partition.items()}


def _name(graph: nx.Graph, node: Any) -> str:
    return str(graph.nodes[node].get("name", node))


def _node_table(graph: nx.Graph, partition: dict[Any, int], betweenness: dict[Any, float], weight: str) -> pd.DataFrame:
    rows = [{"id": n, "name": _name(graph, n), "kind": d.get("kind", ""), "community": partition[n],
             "betweenness": betweenness[n], "degree": graph.degree(n),
             "strength": graph.degree(n, weight=weight), "sentences": d.get("sentences", 0)}
            for n, d in graph.nodes(data=True)]
    columns = ["id", "name", "kind", "community", "betweenness", "degree", "strength", "sentences"]
    return pd.DataFrame(rows, columns=columns).sort_values(["betweenness", "strength", "id"],
                                                           ascending=[False, False, True], ignore_index=True)


def _community_table(graph: nx.Graph, partition: dict[Any, int], nodes: pd.DataFrame, weight: str) -> pd.DataFrame:
    internal: Counter[int] = Counter()
    for a, b, d in graph.edges(data=True):
        if partition[a] == partition[b]:
            internal[partition[a]] += d.get(weight, 1.0)
    rows = []
    for community, group in nodes.groupby("community", sort=True):
        top = group.sort_values(["strength", "id"], ascending=[False, True])["name"].head(6)
        rows.append({"community": int(community), "size": len(group), "top_entities": ", ".join(top),
                     "internal_weight": internal[int(community)]})
    return pd.DataFrame(rows, columns=["community", "size", "top_entities", "internal_weight"])


def _bridge_table(graph: nx.Graph, partition: dict[Any, int], betweenness: dict[Any, float], weight: str) -> pd.DataFrame:
    pairs: dict[tuple[int, int], list[tuple[float, Any, Any]]] = defaultdict(list)
    for a, b, d in graph.edges(data=True):
        ca, cb = partition[a], partition[b]
        if ca != cb:
            key = (ca, cb) if ca < cb else (cb, ca)
            pairs[key].append((d.get(weight, 1.0), a, b))
    rows = []
    for (ca, cb), edges in pairs.items():
        edges.sort(key=lambda e: (-e[0], str(e[1]), str(e[2])))
        ends = sorted({n for _, a, b in edges for n in (a, b)}, key=lambda n: (-betweenness[n], str(n)))
        rows.append({"community_a": ca, "community_b": cb, "edges": len(edges), "weight": sum(e[0] for e in edges),
                     "top_edge": f"{_name(graph, edges[0][1])} -- {_name(graph, edges[0][2])}",
                     "bridge_entities": ", ".join(_name(graph, n) for n in ends[:3])})
    columns = ["community_a", "community_b", "edges", "weight", "top_edge", "bridge_entities"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.sort_values(["weight", "community_a", "community_b"], ascending=[False, True, True], ignore_index=True)
