"""Graph access for the agents: typed one-hop queries through the store, shortest paths on the CSR.

Two sources, each used where it is fast and backend-independent:

* **Typed neighbourhoods** (targets of a compound, members of a pathway...) are registered Cypher
  statements (``agent_neighbours``, ``agent_neighbour_counts`` of the store's statement pack) run
  through :meth:`GraphStore.run_statement`. Every query is recorded (:class:`QueryRecord`) so a run
  bundle can show exactly which queries produced which rows.
* **Edges with their meaning** (a gene's phenotypes on a Biolink graph...) are the schema-generic
  ``entity_edges_*`` statements (:meth:`GraphQueries.edges`): every row carries the edge's predicate, stored
  direction (subject -> object), knowledge sources, publications, qualifiers and negation
  (:data:`engram_kit.retrieval.results.EDGE_MEANING_COLUMNS`). Negated assertions are left out unless asked for.
* **Shortest paths** run as a breadth-first search on the float32 CSR adjacency of the knowledge graph
  (:meth:`Workspace.csr_graph`, built from asserted edges only: a path never goes through a negated
  edge), then the path's edges are read with :meth:`GraphStore.edges_among` (negated ones left out), so each
  hop carries its predicate and provenance into the citations.

Agents run in worker threads, and one LadybugDB connection must not run two statements at once (a
read-only store wraps each query in a transaction), so :class:`LockedStore` serialises store calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from engram_kit.answering import Citation, Claim
from engram_kit.answering.assertions import edge_label
from engram_kit.kg.schema import GraphSchema
from engram_kit.retrieval.results import EDGE_MEANING_COLUMNS, EdgeEvidence, with_edge_meaning
from engram_kit.records import LiteratureBatch, SameAsEdge
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore
from engram_kit.store.csr import CSRGraph

if TYPE_CHECKING:
    from engram_kit.retrieval.retriever import PPREngine

_T = TypeVar("_T")

#: Rows of each query kept in its :class:`QueryRecord` (the count of all rows is kept too).
RECORDED_ROWS: int = Settings.agent_recorded_rows
#: Most edges one ``entity_edges_*`` query returns to an agent (per direction).
EDGE_LIMIT: int = Settings.agent_edge_limit
#: Columns of :meth:`GraphQueries.edges`: the entity asked about, the node at the other end, the edge as stored
#: (``source`` = subject, ``target`` = object) with its meaning, then the names of subject and object.
EDGE_COLUMNS: tuple[str, ...] = ("entity_id", "other_id", "other_name", "other_label", "source", "target",
                                 "rel_type", *EDGE_MEANING_COLUMNS, "subject", "object")


class LockedStore(GraphStore):
    """A :class:`GraphStore` that serialises every call to the store it wraps with one re-entrant lock.

    A real subclass (not an attribute proxy), so it can go wherever a GraphStore is expected (the workspace
    retriever, :class:`~engram_kit.answering.facts.GraphFacts`) and mypy checks those uses. Each method of the
    base delegates under the lock, including :meth:`ppr_engine` (GDS on Neo4j stays on the server) and
    :meth:`run_statement` (the inner store's own statement text). ``statements``, ``read_only`` and ``schema`` are
    copied from the wrapped store. Backend-specific extras (``LadybugStore.reopen``...) are not reachable through
    it: callers that need them hold the store itself.
    """

    def __init__(self, store: GraphStore, lock: threading.RLock | None = None) -> None:
        self._store = store
        self._lock = lock or threading.RLock()
        # The base's plain attributes, copied: a store sets them in its __init__ and never changes them.
        self.statements, self.read_only, self.schema = store.statements, store.read_only, store.schema

    @property
    def wrapped(self) -> GraphStore:
        """The store whose calls this one serialises."""
        return self._store

    @property
    def closed(self) -> bool:
        return self._store.closed

    def _call(self, method: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        with self._lock:
            return method(*args, **kwargs)

    # --- schema and bulk load, writes ---------------------------------------------------------------
    def create_schema(self) -> None:
        self._call(self._store.create_schema)

    def load_knowledge_graph(self, nodes: pd.DataFrame, edges: pd.DataFrame, *, progress: bool = True) -> None:
        self._call(self._store.load_knowledge_graph, nodes, edges, progress=progress)

    def write_literature(self, batch: LiteratureBatch) -> None:
        self._call(self._store.write_literature, batch)

    def delete_article(self, article_id: str) -> int:
        return self._call(self._store.delete_article, article_id)

    def set_article_status(self, article_id: str, status: str, error: str = "") -> None:
        self._call(self._store.set_article_status, article_id, status, error)

    def replace_same_as(self, nounphrase_ids: Sequence[str], edges: Sequence[SameAsEdge]) -> None:
        self._call(self._store.replace_same_as, nounphrase_ids, edges)

    def delete_orphan_nounphrases(self, nounphrase_ids: Sequence[str]) -> int:
        return self._call(self._store.delete_orphan_nounphrases, nounphrase_ids)

    # --- reads ----------------------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        return self._call(self._store.counts)

    def get_nodes(self, ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.get_nodes, ids)

    def get_passages(self, ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.get_passages, ids)

    def articles(self, source: str | None = None) -> pd.DataFrame:
        return self._call(self._store.articles, source)

    def literature_edges(self) -> pd.DataFrame:
        return self._call(self._store.literature_edges)

    def passage_mentions(self, passage_ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.passage_mentions, passage_ids)

    def edges_among(self, node_ids: Sequence[str], *, include_negated: bool = False) -> pd.DataFrame:
        return self._call(self._store.edges_among, node_ids, include_negated=include_negated)

    def node_ids_by_label(self) -> dict[str, list[str]]:
        return self._call(self._store.node_ids_by_label)

    def domain_edges(self) -> pd.DataFrame:
        return self._call(self._store.domain_edges)

    def article_passages(self, article_id: str) -> pd.DataFrame:
        return self._call(self._store.article_passages, article_id)

    def article_sections(self, article_id: str) -> pd.DataFrame:
        return self._call(self._store.article_sections, article_id)

    def article_mentions(self, article_ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.article_mentions, article_ids)

    def nounphrase_links(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.nounphrase_links, nounphrase_ids)

    def nounphrases_linked_to(self, entity_ids: Sequence[str]) -> list[str]:
        return self._call(self._store.nounphrases_linked_to, entity_ids)

    def nounphrase_articles(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.nounphrase_articles, nounphrase_ids)

    def same_as_edges_from(self, nounphrase_ids: Sequence[str]) -> pd.DataFrame:
        return self._call(self._store.same_as_edges_from, nounphrase_ids)

    def run_statement(self, name: str, parameters: dict[str, Any] | None = None, **identifiers: str) -> pd.DataFrame:
        return self._call(self._store.run_statement, name, parameters, **identifiers)

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> pd.DataFrame:
        return self._call(self._store.query, cypher, parameters)

    def read_only_query(self, cypher: str, parameters: dict[str, Any] | None = None, *,
                        timeout_s: float = 10.0, max_rows: int = 100_000, max_bytes: int = 64 * 1024 * 1024,
                        max_memory_mb: int = 2048) -> pd.DataFrame:
        return self._call(self._store.read_only_query, cypher, parameters, timeout_s=timeout_s, max_rows=max_rows,
                          max_bytes=max_bytes, max_memory_mb=max_memory_mb)

    # --- engine, configuration, lifecycle ----------------------------------------------------------------
    def ppr_engine(self) -> PPREngine | None:
        return self._call(self._store.ppr_engine)

    def backend_manifest(self) -> dict[str, Any]:
        return self._call(self._store.backend_manifest)

    def close(self) -> None:
        self._call(self._store.close)

    def __repr__(self) -> str:
        return f"LockedStore({self._store!r})"


@dataclass(frozen=True)
class QueryRecord:
    """One graph query an agent ran: statement name, schema identifiers, parameters and its rows.

    ``id`` is ``q1``, ``q2``... in the order queries finished; ``rows`` holds at most
    :data:`RECORDED_ROWS` rows (``n_rows`` counts all, ``truncated`` says whether some were cut).
    """

    id: str
    agent: str
    statement: str
    identifiers: dict[str, str]
    parameters: dict[str, Any]
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    n_rows: int
    truncated: bool
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GraphPath:
    """A path in the knowledge graph: node ids and names, and the relationship type(s) of each edge.

    ``relations[i]`` joins ``nodes[i]`` and ``nodes[i + 1]``; ``edges[i]`` is that edge as stored
    (``(source, rel_type, target)``: subject -> object, a Hetionet edge in its metaedge's direction), which
    is what citations point to. ``evidence[i]`` (when known) is the same edge with its predicate, direction,
    knowledge sources, publications and qualifiers; ``graph_name`` names the graph in citation labels.
    """

    nodes: tuple[str, ...]
    names: tuple[str, ...]
    relations: tuple[str, ...]
    edges: tuple[tuple[str, str, str], ...]
    evidence: tuple[EdgeEvidence, ...] = ()
    graph_name: str = ""

    @property
    def hops(self) -> int:
        return len(self.nodes) - 1

    @property
    def biolink(self) -> bool:
        """True when the path's edges carry Biolink predicates (a KGX graph), so it is told with them."""
        return bool(self.evidence) and all(":" in e.predicate for e in self.evidence)

    def describe(self) -> str:
        """``"BACE1 -[INTERACTS_GiG]- APP -[ASSOCIATES_DaG]- Alzheimer's disease"`` (Hetionet); on a Biolink
        graph each hop shows its predicate and direction: ``"SHH (human) -[biolink:related_to]- schizencephaly
        -[biolink:has_phenotype]-> Seizures"``."""
        parts = [self.names[0]]
        if self.biolink:
            for start, edge, name in zip(self.nodes, self.evidence, self.names[1:]):
                parts.append(f"{edge.arrow(start)} {name}")
            return " ".join(parts)
        for rel, name in zip(self.relations, self.names[1:]):
            parts.append(f"-[{rel}]- {name}")
        return " ".join(parts)

    def citations(self) -> tuple[Citation, ...]:
        """One ``edge`` citation per edge of the path (label with predicate and provenance when known)."""
        if self.evidence:
            return tuple(evidence_citation(e, self.graph_name) for e in self.evidence)
        return tuple(edge_citation(*edge) for edge in self.edges)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodes": list(self.nodes), "names": list(self.names), "relations": list(self.relations),
                               "edges": [list(e) for e in self.edges], "text": self.describe()}
        if self.evidence:
            out["evidence"] = [asdict(e) for e in self.evidence]
        return out


def edge_citation(source: str, rel_type: str, target: str) -> Citation:
    """A citation of one Hetionet edge, in the format of :class:`~engram_kit.answering.Citation`."""
    return Citation("edge", f"{source} -[{rel_type}]-> {target}", f"Hetionet {rel_type}")


def evidence_citation(edge: EdgeEvidence, graph_name: str = "") -> Citation:
    """A citation of one edge with its meaning: ``ref`` ``"<subject> -[<REL_TYPE>]-> <object>"`` (as stored);
    ``label`` from :func:`~engram_kit.answering.assertions.edge_label`: ``"Hetionet BINDS_CbG"``, or
    ``"Monarch KG sample: biolink:has_phenotype, source infores:..., via hpoa, PMID:..."`` (plus ``negated``)."""
    return Citation("edge", f"{edge.source} -[{edge.rel_type}]-> {edge.target}", edge_label(edge, graph_name))


def kind_of(node_id: str) -> str:
    """Hetionet kind from a node id (``"Gene::7157"`` -> ``"Gene"``)."""
    return node_id.split("::", 1)[0]


@dataclass
class GraphQueries:
    """What the agents ask the graph. Thread-safe: store calls go through a :class:`LockedStore`.

    Parameters
    ----------
    store : the workspace store (wrapped in a :class:`LockedStore` by the caller or here).
    kg : the knowledge-graph CSR (domain nodes only, asserted edges only), for shortest paths and degrees.
    graph_name : display name of the graph for citation labels (workspace manifest ``knowledge_graph.name``,
        e.g. ``"Monarch KG sample"``); default ``"Hetionet"`` / ``"KGX graph"`` from the store's schema.
    """

    store: GraphStore
    kg: CSRGraph
    records: list[QueryRecord] = field(default_factory=list)
    _records_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    graph_name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.store, LockedStore):
            self.store = LockedStore(self.store)
        if not self.graph_name:
            self.graph_name = self.schema.profile.display_name

    @property
    def schema(self) -> GraphSchema:
        """The store's domain schema (Hetionet v1.0 when the store names none)."""
        return self.store.schema

    def label_of(self, node_id: str) -> str:
        """Graph label of a node id (``"Gene::HGNC:10848"`` -> ``"Gene"``; the kind itself when unknown)."""
        kind = kind_of(node_id)
        return self.schema.kinds.get(kind, kind)

    # --- recorded statements ---------------------------------------------------------------------
    def run(self, agent: str, name: str, parameters: dict[str, Any], **identifiers: str) -> pd.DataFrame:
        """Run a registered statement and record it (see :class:`QueryRecord`)."""
        t0 = time.perf_counter()
        frame = self.store.run_statement(name, parameters, **identifiers)
        seconds = time.perf_counter() - t0
        rows = tuple(tuple(_json_value(v) for v in row) for row in frame.head(RECORDED_ROWS).itertuples(index=False))
        with self._records_lock:
            record = QueryRecord(f"q{len(self.records) + 1}", agent, name, dict(identifiers), _json_params(parameters),
                                 tuple(str(c) for c in frame.columns), rows, len(frame),
                                 len(frame) > RECORDED_ROWS, round(seconds, 4))
            self.records.append(record)
        return frame

    def neighbours(self, agent: str, ids: Sequence[str], label: str, rel_type: str, other_label: str) -> pd.DataFrame:
        """Typed neighbours: columns ``source_id, id, name`` (sorted by source, name, id; no duplicates)."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return pd.DataFrame(columns=["source_id", "id", "name"])
        frame = self.run(agent, "agent_neighbours", {"ids": ids}, label=label, rel_type=rel_type,
                         other_label=other_label)
        return frame.drop_duplicates().sort_values(["source_id", "name", "id"], ignore_index=True)

    def neighbour_counts(self, agent: str, ids: Sequence[str], label: str, rel_type: str,
                         other_label: str) -> dict[str, int]:
        """Number of typed neighbours per id (0 for ids without any)."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        frame = self.run(agent, "agent_neighbour_counts", {"ids": ids}, label=label, rel_type=rel_type,
                         other_label=other_label)
        counts = {str(i): int(n) for i, n in zip(frame["id"], frame["n"])}
        return {i: counts.get(i, 0) for i in ids}

    def edges(self, agent: str, ids: Sequence[str], other_label: str = "", *, include_negated: bool = False,
              limit: int = EDGE_LIMIT) -> pd.DataFrame:
        """Edges between ``ids`` and nodes of ``other_label`` (any label when ``""``), in both stored
        directions, each with what it asserts and who says so.

        Only the directions the schema has are queried (``Gene -> PhenotypicFeature`` but no
        ``PhenotypicFeature -> Gene`` table: one query). Rows come from the ``entity_edges_*`` statements
        (recorded like every agent query).

        Parameters
        ----------
        agent : agent name for the query records.
        ids : node ids the edges start or end at.
        other_label : label of the other end; ``""`` for every edge.
        include_negated : also return negated assertions (``negated`` True); default False.
        limit : most rows per direction.

        Returns
        -------
        DataFrame
            Columns :data:`EDGE_COLUMNS` (``entity_id`` = the id of ``ids`` the edge touches; ``source`` /
            ``target`` = subject / object as stored; ``predicate, directed, negated, ...`` from
            :func:`~engram_kit.retrieval.results.with_edge_meaning`), sorted by entity, other label, predicate
            and other name; one row per (entity, edge).
        """
        ids = list(dict.fromkeys(ids))
        if not ids:
            return pd.DataFrame(columns=list(EDGE_COLUMNS))
        schema = self.schema
        labels = {self.label_of(i) for i in ids}
        params = {"ids": ids, "include_negated": bool(include_negated), "limit": int(limit)}
        if other_label:
            pairs = [pair for spec in schema.rel_specs for pair in spec.pairs]
            runs = [(name, {"label": other_label}) for name, wanted in
                    (("entity_edges_out_to", lambda a, b: a in labels and b == other_label),
                     ("entity_edges_in_from", lambda a, b: a == other_label and b in labels))
                    if any(wanted(a, b) for a, b in pairs)]
        else:
            runs = [("entity_edges_out", {}), ("entity_edges_in", {})]
        frames = [self.run(agent, name, params, **identifiers) for name, identifiers in runs]
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame(columns=list(EDGE_COLUMNS))
        raw = pd.concat(frames, ignore_index=True).rename(columns={"subject_id": "source", "object_id": "target"})
        frame = with_edge_meaning(raw, schema)
        wanted_ids = set(ids)
        frame["entity_id"] = frame["source"].where(frame["source"].isin(wanted_ids), frame["target"])
        is_subject = frame["entity_id"] == frame["source"]
        frame["other_id"] = frame["target"].where(is_subject, frame["source"])
        frame["other_name"] = frame["object"].where(is_subject, frame["subject"]).astype(str)
        frame["other_label"] = frame["object_label"].where(is_subject, frame["subject_label"]).astype(str)
        frame = frame.drop_duplicates(["entity_id", "source", "rel_type", "target", "negated"])
        frame = frame.sort_values(["entity_id", "other_label", "predicate", "other_name", "other_id"],
                                  ignore_index=True)
        rest = [c for c in frame.columns if c not in EDGE_COLUMNS]
        return frame[[*EDGE_COLUMNS, *rest]]

    def names(self, ids: Sequence[str]) -> dict[str, str]:
        """Node id -> name (ids not in the store map to themselves)."""
        ids = list(dict.fromkeys(ids))
        found = self.store.get_nodes(ids) if ids else pd.DataFrame(columns=["id", "name"])
        names = dict(zip(found["id"], found["name"]))
        return {i: str(names.get(i, i)) for i in ids}

    # --- shortest paths on the CSR ------------------------------------------------------------------
    def shortest_path(self, source: str, target: str, max_hops: int = 3,
                      avoid: Callable[[np.ndarray], np.ndarray] | None = None) -> GraphPath | None:
        """A shortest path between two knowledge-graph nodes, or None beyond ``max_hops``.

        Breadth-first search from ``source`` over the CSR adjacency. Among equally short paths the
        lowest-degree predecessor is chosen at each step, so paths go through specific nodes rather than
        hubs (a path through a 500-gene pathway explains less than one through a 10-gene one).

        Raises
        ------
        KeyError
            Never: unknown ids give None.
        """
        index = self.kg.index
        s, t = index.get(source), index.get(target)
        if s is None or t is None or s == t:
            return None
        adj = self.kg.adjacency
        n = self.kg.n_nodes
        degree = np.diff(adj.indptr)
        parent = np.full(n, -1, dtype=np.int64)
        visited = np.zeros(n, dtype=bool)
        visited[s] = True
        frontier = np.array([s], dtype=np.int64)
        for _ in range(max_hops):
            sub = adj[frontier]
            rows = np.repeat(frontier, np.diff(sub.indptr))
            cols = sub.indices.astype(np.int64)
            fresh = ~visited[cols]
            rows, cols = rows[fresh], cols[fresh]
            if cols.size == 0:
                return None
            order = np.lexsort((rows, degree[rows]))  # lowest-degree parent first, then by index
            rows, cols = rows[order], cols[order]
            new, first = np.unique(cols, return_index=True)
            parent[new] = rows[first]
            visited[new] = True
            if visited[t]:
                break
            frontier = new
        if not visited[t]:
            return None
        path = [t]
        while path[-1] != s:
            path.append(int(parent[path[-1]]))
        ids = [str(self.kg.node_ids[i]) for i in reversed(path)]
        return self.annotate(ids)

    def annotate(self, ids: Sequence[str]) -> GraphPath:
        """Names, relationship types and edge meaning of a node-id path (consecutive nodes must be adjacent).

        The edges come from :meth:`GraphStore.edges_among`, which leaves negated assertions out, so no hop is
        explained by an edge that says the opposite. Where several edges join two nodes, the first by
        relationship type is cited and all types are named in ``relations``.
        """
        edges = with_edge_meaning(self.store.edges_among(list(ids)), self.schema)
        edges = edges[~edges["negated"]]
        by_pair: dict[frozenset[str], list[EdgeEvidence]] = {}
        for row in edges.to_dict(orient="records"):
            pair = frozenset((str(row["source"]), str(row["target"])))
            by_pair.setdefault(pair, []).append(EdgeEvidence.from_row(row))
        names = self.names(ids)
        relations, chosen, evidence = [], [], []
        for a, b in zip(ids, ids[1:]):
            found = sorted(by_pair.get(frozenset((a, b)), [EdgeEvidence(a, b, "RELATED")]), key=lambda e: e.rel_type)
            relations.append("|".join(e.rel_type for e in found))
            chosen.append((found[0].source, found[0].rel_type, found[0].target))
            evidence.append(found[0])
        return GraphPath(tuple(ids), tuple(names[i] for i in ids), tuple(relations), tuple(chosen), tuple(evidence),
                         self.graph_name)


def _json_value(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def _json_params(parameters: dict[str, Any]) -> dict[str, Any]:
    return {k: ([_json_value(x) for x in v] if isinstance(v, (list, tuple)) else _json_value(v))
            for k, v in parameters.items()}


def shortest_path_findings(graph: Any, node_ids: Sequence[str], *, max_pairs: int,
                           max_hops: int) -> tuple[list[GraphPath], list[Claim]]:
    """Shortest knowledge-graph paths between the first ``max_pairs`` pairs of ``node_ids`` (duplicates dropped,
    at most ``max_hops`` hops, negated assertions never walked), each with a cited finding.

    Returns
    -------
    (paths, claims) : the paths found and one ``"Shortest path (n hops): ..."`` claim per path.
    """
    from itertools import combinations

    paths, claims = [], []
    for a, b in list(combinations(list(dict.fromkeys(node_ids)), 2))[:max_pairs]:
        path = graph.shortest_path(a, b, max_hops)
        if path is not None:
            paths.append(path)
            claims.append(Claim(f"Shortest path ({path.hops} hop{'s' if path.hops > 1 else ''}): {path.describe()}",
                                path.citations()))
    return paths, claims
