"""Graph exploration without an LLM: find an entity by name or synonym, list its typed neighbourhood with provenance.

* :class:`EntitySearch` answers "which graph entities does this text name?" for autocomplete: an
  identifier match (``HGNC:10848``, ``DOID:1612``, ``Gene::7157``), then exact, prefix and substring
  matches over the workspace lexicon (node names plus the synonym tables: gene symbols, MeSH, Disease
  Ontology, DrugBank aliases; a KGX graph's own synonyms), each match saying which surface form matched.
* :func:`neighbourhood` lists a node's knowledge-graph edges, optionally of chosen relationship types,
  with what each edge asserts and who says so: predicate, direction, negation, qualifiers, knowledge
  sources and publications (Biolink KGX), or Hetionet's ``sources``, ``license``, ``unbiased``,
  ``pubmed_ids``. Negated assertions are listed too (the explorer is where a user asks for them), flagged in
  the ``negated`` column and drawn apart.

Both return plain dataclasses with ``to_frame()``; :mod:`engram_widgets.explorer` renders them.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from engram_kit.errors import DataError, QueryError
from engram_kit.exports import kind_color
from engram_kit.extraction.lexicon import SOURCES, Lexicon
from engram_kit.resolution.identifiers import identifier_index
from engram_kit.extraction.normalize import normalize_name
from engram_kit.answering.assertions import assertion_text
from engram_kit.kg.schema import GraphSchema
from engram_kit.retrieval.results import EDGE_MEANING_COLUMNS, EdgeEvidence, with_edge_meaning
from engram_kit.settings import Settings
from engram_kit.store.base import GraphStore

#: Most edges returned per direction by :func:`neighbourhood` unless the caller asks otherwise.
DEFAULT_NEIGHBOUR_LIMIT: int = Settings.neighbour_limit
#: Columns of :attr:`Neighbourhood.edges` (see :class:`Neighbourhood` for their meaning).
NEIGHBOUR_COLUMNS: tuple[str, ...] = (
    "source", "target", "rel_type", "direction", "neighbour_id", "neighbour_name", "neighbour_kind",
    "sources", "license", "unbiased", "pubmed_ids", *EDGE_MEANING_COLUMNS,
)

# ------------------------------------------------------------------------------------------ search
@dataclass(frozen=True)
class EntityMatch:
    """One search hit: a graph node and the surface form that matched.

    ``match`` is ``"id"``, ``"exact"``, ``"prefix"`` or ``"substring"`` (best first); ``source`` the lexicon
    source of the surface form (``"name"`` = the graph's own name, else a synonym table, see
    :data:`engram_kit.extraction.lexicon.SOURCES`), or ``"identifier"`` for an ``"id"`` match (``surface``
    is then the identifier, e.g. ``"HGNC:10848"``).
    """

    node_id: str
    name: str
    kind: str
    surface: str
    source: str
    match: str

    @property
    def label(self) -> str:
        """Display text: ``"BACE1 (Gene)"`` or ``"beta-secretase 1 → BACE1 (Gene)"`` for a synonym."""
        if self.source == "name" or self.surface == self.name:
            return f"{self.name} ({self.kind})"
        return f"{self.surface} → {self.name} ({self.kind})"


@dataclass
class EntitySearchResult:
    """Matches of one query, best first."""

    query: str
    matches: list[EntityMatch] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([m.__dict__ for m in self.matches],
                            columns=["node_id", "name", "kind", "surface", "source", "match"])


class EntitySearch:
    """Autocomplete over a :class:`~engram_kit.extraction.lexicon.Lexicon` (identifiers, names and synonyms).

    A query that is a node's identifier (``"HGNC:10848"``, ``"mondo:0010011"``, ``"DOID:1612"``, an
    unambiguous bare ``"7157"``) or whole node id (``"Gene::7157"``) returns that node first (match
    ``"id"``, see :func:`identifier_index`). Then come the lexicon's normalised forms (case-folded,
    punctuation collapsed, see :func:`~engram_kit.extraction.normalize.normalize_name`), so
    ``"alzheimer's"`` finds ``"Alzheimer Disease"``. Building sorts the keys once (~0.1 s for 107k keys); a
    query is a dictionary look-up for identifiers, a binary search for prefixes plus, when fewer than
    ``limit`` hits were found, a linear substring scan.

    Parameters
    ----------
    lexicon : the workspace lexicon (``Workspace.lexicon``); Hetionet or a Biolink KGX graph.
    """

    #: Shortest normalised query that triggers the substring scan (shorter ones match too much).
    MIN_SUBSTRING_CHARS = 3

    def __init__(self, lexicon: Lexicon, *, human_ids: set[str] | None = None) -> None:
        self.lexicon = lexicon
        self._keys = sorted(lexicon.keys())
        self._identifiers = identifier_index(lexicon.node_names)
        #: Nodes of a multi-species graph (KGX ``in_taxon`` NCBITaxon:9606) listed before their orthologues with
        #: the same name; None/empty for Hetionet (human only).
        self._human = human_ids or set()

    def search(self, text: str, *, limit: int = 20, kinds: set[str] | None = None) -> EntitySearchResult:
        """Entities whose name or synonym matches ``text``; one hit per node (its best surface form).

        Parameters
        ----------
        text : what the user typed (any case/punctuation).
        limit : most hits returned, >= 1.
        kinds : restrict to these node kinds (Hetionet ``"Side Effect"`` or Biolink ``"PhenotypicFeature"``;
            None: all).

        Raises
        ------
        QueryError
            If ``limit < 1``.
        """
        if limit < 1:
            raise QueryError(f"limit={limit}: ask for at least one match.")
        query = normalize_name(text or "")
        result = EntitySearchResult(text)
        seen: set[str] = set()
        # the identifier match comes first: typing a CURIE means exactly that node
        for node_id in self._identifiers.get((text or "").strip().casefold(), ()):
            name, kind = self.lexicon.node_names[node_id]
            if (kinds is None or kind in kinds) and len(result.matches) < limit:
                seen.add(node_id)
                result.matches.append(EntityMatch(node_id, name, kind, node_id.partition("::")[2],
                                                  "identifier", "id"))
        if not query:
            return result
        rank = {s: i for i, s in enumerate(SOURCES)}

        def take(keys: list[str], how: str) -> None:
            entries = [e for k in keys for e in self.lexicon.get(k) if kinds is None or e.kind in kinds]
            # shorter surface forms and authoritative sources first (a prefix "bace" -> BACE1 before BACE2-AS)
            entries.sort(key=lambda e: (e.node_id not in self._human if self._human else False,
                                        rank.get(e.source, len(rank)), len(e.surface), e.surface))
            for e in entries:
                if len(result.matches) >= limit:
                    return
                if e.node_id in seen:
                    continue
                seen.add(e.node_id)
                name, kind = self.lexicon.node_names.get(e.node_id, (e.surface, e.kind))
                result.matches.append(EntityMatch(e.node_id, name, kind, e.surface, e.source, how))

        take([query] if self.lexicon.get(query) else [], "exact")
        lo = bisect.bisect_left(self._keys, query)
        hi = bisect.bisect_left(self._keys, query + "\uffff")
        prefix = sorted((k for k in self._keys[lo:hi] if k != query), key=len)[: limit * 5]
        take(prefix, "prefix")
        if len(result.matches) < limit and len(query) >= self.MIN_SUBSTRING_CHARS:
            inner = sorted((k for k in self._keys if query in k and not k.startswith(query)), key=len)[: limit * 5]
            take(inner, "substring")
        return result


# ---------------------------------------------------------------------------------- neighbourhood
@dataclass
class Neighbourhood:
    """A node and its knowledge-graph edges, each with what it asserts and its provenance.

    Attributes
    ----------
    node_id, name, kind : the centre node.
    edges : DataFrame with columns :data:`NEIGHBOUR_COLUMNS`, one row per edge, sorted by ``rel_type`` then
        ``neighbour_name``:

        * ``source, target`` node ids as stored (subject -> object), ``rel_type`` the graph type;
        * ``direction``: ``"out"`` (the centre is the subject / stored source) or ``"in"``;
          ``directed`` (bool): whether that direction carries meaning (Biolink non-symmetric predicates,
          Hetionet ``Gr>G``);
        * ``neighbour_id, neighbour_name, neighbour_kind``: the other endpoint;
        * ``predicate``: Biolink CURIE (``"biolink:has_phenotype"``) or Hetionet metaedge abbreviation;
        * ``negated`` (bool): a negated assertion ("does NOT have phenotype"), listed but never to be read
          as the plain triple (PPR and agents never walk it);
        * ``qualifiers``: JSON object text of the KGX qualifiers (``'{"frequency_qualifier": "HP:0040283"}'``),
          ``""`` when none;
        * ``primary_knowledge_source``, ``aggregator_knowledge_source``, ``publications``: ``|``-joined
          (KGX infores CURIEs and publication CURIEs; Hetionet: its ``sources`` and ``PMID:`` CURIEs);
        * ``sources, license, unbiased, pubmed_ids``: Hetionet's provenance as recorded (strings,
          ``|``-joined, ``unbiased`` ``"true"``/``"false"``); for a KGX graph ``sources`` = primary and
          aggregator sources, ``pubmed_ids`` = the PubMed ids among ``publications``, the others ``""``.

        Every string column is ``""`` when the graph records nothing.
    rel_type_counts : edges per relationship type among the returned edges.
    truncated : True when a direction hit ``limit`` (more edges exist).
    graph_name : the graph's display name (for edge labels), ``""`` when unknown.
    """

    node_id: str
    name: str
    kind: str
    edges: pd.DataFrame
    rel_type_counts: dict[str, int]
    truncated: bool = False
    graph_name: str = ""

    def to_frame(self) -> pd.DataFrame:
        """The edges (one row per edge)."""
        return self.edges

    def provenance_summary(self) -> pd.DataFrame:
        """Edges per (relationship type, source, licence): where this node's knowledge comes from."""
        if self.edges.empty:
            return pd.DataFrame(columns=["rel_type", "sources", "license", "edges"])
        return (self.edges.groupby(["rel_type", "sources", "license"], dropna=False).size()
                .rename("edges").reset_index().sort_values("edges", ascending=False, ignore_index=True))

    def describe_edge(self, row: Any) -> str:
        """The assertion of an edge row, subject first: ``"BACE1 interacts with APP"`` (Hetionet verb phrase),
        ``"SHH (human) has phenotype Cleft palate (qualifiers: frequency HP:0040283 'Occasional')"``, or
        ``"NOT: ... (negated assertion, source ...)"`` for a negated edge (see
        :func:`engram_kit.answering.assertions.assertion_text`)."""
        a, b = (self.name, row.neighbour_name) if row.direction == "out" else (row.neighbour_name, self.name)
        return assertion_text(EdgeEvidence.from_row(row._asdict() if hasattr(row, "_asdict") else dict(row)), a, b)

    def to_cytoscape(self, *, max_neighbours: int | None = None) -> dict[str, list[dict[str, Any]]]:
        """Cytoscape.js JSON of the star (centre + neighbours; ``data.color`` is the Hetionet kind colour)."""
        edges = self.edges if max_neighbours is None else self.edges[
            self.edges["neighbour_id"].isin(list(dict.fromkeys(self.edges["neighbour_id"]))[:max_neighbours])]
        nodes = {self.node_id: {"data": {"id": self.node_id, "label": self.name, "kind": self.kind,
                                         "color": kind_color(self.kind), "is_seed": True}, "classes": "seed"}}
        for r in edges.itertuples(index=False):
            nodes.setdefault(r.neighbour_id, {"data": {"id": r.neighbour_id, "label": r.neighbour_name,
                                                       "kind": r.neighbour_kind, "color": kind_color(r.neighbour_kind),
                                                       "is_seed": False}, "classes": ""})
        out = []
        for r in edges.itertuples(index=False):
            negated = bool(getattr(r, "negated", False))
            predicate = str(getattr(r, "predicate", "") or r.rel_type)
            label = (predicate if ":" in predicate else r.rel_type)  # Biolink CURIE, else the Hetionet type
            meaning = {c: _plain(getattr(r, c)) for c in EDGE_MEANING_COLUMNS if hasattr(r, c)}
            out.append({"data": {"id": f"{r.source}|{r.rel_type}|{r.target}", "source": r.source, "target": r.target,
                                 "label": ("NOT " if negated else "") + label, "provenance": "curated",
                                 "sources": r.sources, "license": r.license, **meaning},
                        "classes": "curated negated" if negated else "curated"})
        return {"nodes": list(nodes.values()), "edges": out}


def _plain(value: Any) -> Any:
    """numpy scalars -> Python (Cytoscape JSON must serialise)."""
    return value.item() if hasattr(value, "item") else value


def neighbourhood(store: GraphStore, node_id: str, *, rel_types: set[str] | list[str] | None = None,
                  limit: int = DEFAULT_NEIGHBOUR_LIMIT, name: str = "", kind: str = "",
                  graph_name: str = "") -> Neighbourhood:
    """A node's knowledge-graph edges in both directions, with their meaning and provenance.

    Negated assertions are included and flagged (``negated`` column): the explorer is where a user asks to
    see them; retrieval and agents leave them out.

    Parameters
    ----------
    store : the workspace graph store (its ``schema`` says which graph it holds; Hetionet when absent).
    node_id : node id, e.g. ``"Gene::23621"`` (Hetionet) or ``"Gene::HGNC:10848"`` (KGX).
    rel_types : keep only these relationship types (``"INTERACTS_GiG"``, ``"HAS_PHENOTYPE"``) or Biolink
        predicates (``"biolink:has_phenotype"``); None keeps all.
    limit : most edges read per direction (of the wanted ``rel_types``), >= 1.
    name, kind : the centre's name and kind if known (else read from the store).
    graph_name : the graph's display name, kept on the result for labels.

    Returns
    -------
    Neighbourhood
        ``edges`` has the columns :data:`NEIGHBOUR_COLUMNS` (documented on :class:`Neighbourhood`).

    Raises
    ------
    DataError
        If ``node_id`` is not a knowledge-graph node of the store, or a relationship type is unknown.
    QueryError
        If ``limit < 1``.
    """
    if limit < 1:
        raise QueryError(f"limit={limit}: read at least one edge per direction.")
    schema: GraphSchema = store.schema
    wanted = _wanted_rel_types(schema, rel_types)
    label_to_kind = {label: k for k, label in schema.kinds.items()}
    if not name or not kind:
        found = store.get_nodes([node_id])
        if found.empty or found["label"].iloc[0] not in label_to_kind:
            raise DataError(f"{node_id!r} is not a knowledge-graph node of this workspace; find one with "
                            "EntitySearch (Workspace.search_entities).")
        name, kind = str(found["name"].iloc[0]), label_to_kind[str(found["label"].iloc[0])]
    frames, truncated = [], False
    for direction, statement_name in (("out", "neighbours_out"), ("in", "neighbours_in")):
        text = store.statements.statement(statement_name, schema=schema)
        # the relationship-type filter runs in the query, so ``limit`` counts only the wanted edges
        frame = store.query(text, {"id": node_id, "limit": int(limit),
                                   "rel_types": sorted(wanted) if wanted else list(schema.rel_types)})
        truncated = truncated or len(frame) >= limit
        frame["direction"] = direction
        frames.append(frame)
    edges = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if edges.empty:
        edges = pd.DataFrame(columns=list(NEIGHBOUR_COLUMNS))
    else:
        edges["neighbour_id"] = edges["target"].where(edges["direction"] == "out", edges["source"])
        edges["neighbour_kind"] = edges.pop("neighbour_label").map(label_to_kind).fillna("")
        edges = with_edge_meaning(edges, schema)
        edges = schema.profile.neighbour_provenance(edges)  # Hetionet-style sources/pubmed_ids columns
        for col in ("sources", "license", "unbiased", "pubmed_ids", "neighbour_name"):
            edges[col] = edges[col].fillna("").astype(str) if col in edges.columns else ""
        if wanted:
            edges = edges[edges["rel_type"].isin(wanted)]
        edges = edges[list(NEIGHBOUR_COLUMNS)].sort_values(["rel_type", "neighbour_name"], ignore_index=True)
    counts = dict(Counter(edges["rel_type"]).most_common())
    return Neighbourhood(node_id, name, kind, edges, counts, truncated, graph_name)


def _wanted_rel_types(schema: GraphSchema, rel_types: set[str] | list[str] | None) -> set[str]:
    """Relationship types asked for (predicates mapped to their types); empty = all.

    Raises
    ------
    DataError
        If a name is neither a relationship type nor a predicate of ``schema``.
    """
    by_name = {spec.rel_type: spec.rel_type for spec in schema.rel_specs}
    if schema.profile.predicates_are_names:  # Hetionet's abbreviations are not accepted here, as before
        by_name.update({spec.predicate: spec.rel_type for spec in schema.rel_specs})
    unknown = sorted(set(rel_types or ()) - set(by_name))
    if unknown:
        examples = ", ".join(schema.rel_types[:3])
        raise DataError(f"Unknown relationship type(s) {unknown} for the {schema.name} graph; use types such as "
                        f"{examples}.")
    return {by_name[r] for r in rel_types or ()}
