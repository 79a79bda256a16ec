"""Open literature-based discovery (Swanson's ABC model) on a literature map.

Swanson noticed that fish oil (A) lowers blood viscosity (B) and that high blood viscosity (B) marks
Raynaud's syndrome (C), while no paper named fish oil and Raynaud's together (Swanson, "Fish oil,
Raynaud's syndrome, and undiscovered public knowledge", Perspect. Biol. Med. 30, 1986). *Open*
discovery starts from A alone: every B co-occurring with A, every C co-occurring with some B, and keeps
the C that never co-occur with A (Weeber et al., "Using concepts in literature-based discovery", JASIST
52, 2001; Smalheiser & Swanson, "Using ARROWSMITH", Comput. Methods Programs Biomed. 57, 1998).

Ranking of a candidate C:

1. ``n_b``: number of distinct intermediates B linking A to C (more independent routes, stronger);
2. ``score = sum over B of min(w(A, B), w(B, C))``: each path counts with its weakest link (analysis
   weights, so generic B are already down-weighted or removed by the map's noise control).

"Never co-occur" must be checked against the unfiltered co-occurrences: a pair below the map's
minimum-occurrence threshold still co-occurs. Pass ``cooccurring=lit_map.cooccurring(a)``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx
import pandas as pd

from engram_kit.errors import QueryError

__all__ = ["DiscoveryResult", "open_discovery"]


@dataclass
class DiscoveryResult:
    """Ranked C candidates for a start entity A.

    Attributes
    ----------
    start : str
        Entity id of A.
    candidates : DataFrame
        ``rank, c, c_name, c_kind, n_b, score, intermediates`` (B names, strongest path first).
    paths : DataFrame
        One row per A-B-C path of the returned candidates: ``c, c_name, b, b_name, w_ab, w_bc,
        path_strength, evidence_ab, evidence_bc`` (first evidence sentence of each edge, with its doc id).
    """

    start: str
    candidates: pd.DataFrame
    paths: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The ranked candidates."""
        return self.candidates


def _first_evidence(data: dict) -> str:
    evidence = (data.get("relation_evidence") or data.get("evidence") or [None])[0]
    return f"[{evidence.doc_id}] {evidence.text}" if evidence is not None else ""


def open_discovery(
    graph: nx.Graph,
    start: str,
    *,
    cooccurring: Iterable[str] | None = None,
    c_kinds: Iterable[str] | None = None,
    b_kinds: Iterable[str] | None = None,
    top: int = 10,
    max_paths: int = 5,
) -> DiscoveryResult:
    """Rank entities C linked to ``start`` only through intermediates B.

    Parameters
    ----------
    graph : networkx.Graph
        A literature map (:meth:`LiteratureMap.graph`), edges with a positive ``weight``.
    start : str
        Entity id of A.
    cooccurring : iterable of str, optional
        Every entity that shares a sentence with A anywhere in the corpus, excluded from C. Default: A's
        neighbours in ``graph`` (not enough if the graph was filtered; see the module docstring).
    c_kinds, b_kinds : iterable of str, optional
        Keep only C (B) of these node kinds (e.g. ``{"Disease"}`` for "what could A treat?").
    top : int
        Candidates returned, >= 1.
    max_paths : int
        Paths kept per candidate in :attr:`DiscoveryResult.paths`, >= 1.

    Returns
    -------
    DiscoveryResult
        Empty tables when A has no two-hop neighbourhood.

    Raises
    ------
    QueryError
        If ``start`` is not a node of the map, or ``top`` / ``max_paths`` < 1.
    """
    if start not in graph:
        raise QueryError(f"Entity {start!r} is not in the literature map (it may be filtered out as rare or "
                         "generic); pick one of the map's nodes or lower MapConfig.min_occurrence.")
    if top < 1 or max_paths < 1:
        raise QueryError(f"top={top} and max_paths={max_paths} must both be >= 1.")
    excluded = set(graph[start]) | set(cooccurring or ()) | {start}
    c_allowed = set(c_kinds) if c_kinds is not None else None
    b_allowed = set(b_kinds) if b_kinds is not None else None
    paths: dict[str, list[tuple[float, str, float, float]]] = defaultdict(list)
    for b, ab in graph[start].items():
        if b_allowed is not None and graph.nodes[b].get("kind") not in b_allowed:
            continue
        w_ab = ab.get("weight", 1.0)
        for c, bc in graph[b].items():
            if c in excluded:
                continue
            if c_allowed is not None and graph.nodes[c].get("kind") not in c_allowed:
                continue
            w_bc = bc.get("weight", 1.0)
            paths[c].append((min(w_ab, w_bc), b, w_ab, w_bc))
    ranked = sorted(paths.items(), key=lambda kv: (-len(kv[1]), -sum(p[0] for p in kv[1]), str(kv[0])))[:top]
    rows, path_rows = [], []
    for rank, (c, routes) in enumerate(ranked, start=1):
        routes.sort(key=lambda p: (-p[0], str(p[1])))
        rows.append({"rank": rank, "c": c, "c_name": graph.nodes[c].get("name", c), "c_kind": graph.nodes[c].get("kind", ""),
                     "n_b": len(routes), "score": round(sum(p[0] for p in routes), 6),
                     "intermediates": ", ".join(graph.nodes[p[1]].get("name", p[1]) for p in routes)})
        for strength, b, w_ab, w_bc in routes[:max_paths]:
            path_rows.append({"c": c, "c_name": graph.nodes[c].get("name", c), "b": b,
                              "b_name": graph.nodes[b].get("name", b), "w_ab": w_ab, "w_bc": w_bc,
                              "path_strength": strength, "evidence_ab": _first_evidence(graph.edges[start, b]),
                              "evidence_bc": _first_evidence(graph.edges[b, c])})
    candidates = pd.DataFrame(rows, columns=["rank", "c", "c_name", "c_kind", "n_b", "score", "intermediates"])
    path_frame = pd.DataFrame(path_rows, columns=["c", "c_name", "b", "b_name", "w_ab", "w_bc", "path_strength",
                                                  "evidence_ab", "evidence_bc"])
    return DiscoveryResult(start=start, candidates=candidates, paths=path_frame)
