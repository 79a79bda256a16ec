"""The Neo4j statement pack: every Cypher text :class:`~engram_kit.store.neo4j.Neo4jStore` and the GDS engine send.

Neo4j 5 (schema-free labels, uniqueness constraints, range indexes) with Graph Data Science 2.x for PageRank.
``type(r)`` names a relationship's type, ``labels(n)[0]`` a node's label, ``split`` and list slices ``[0..n]``.
:func:`lint_payload` is what ``scripts/lint_cypher.mjs`` checks every text against (``tests/test_cypher_lint.py``).
"""

from __future__ import annotations

from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.store.cypher import (
    LITERATURE_LABELS,
    LITERATURE_NODE_PROPERTIES,
    LITERATURE_REL_TABLES,
    LITERATURE_REL_TYPES,
    META_LABEL,
    META_PROPERTIES,
    set_clause,
)
from engram_kit.store.statements import StatementPack
from engram_kit.store.statements.portable import PORTABLE_STATEMENTS, edge_row, entity_edge_statements

_NEIGHBOUR_RETURN = "a.id AS source, b.id AS target, type(r) AS rel_type, {rel_return}"

#: Statement name -> Neo4j text (the portable ones plus these).
STATEMENTS: dict[str, str] = {
    **PORTABLE_STATEMENTS,
    # --- bulk load ---------------------------------------------------------------------------------
    "copy_node_table": "UNWIND $rows AS row MERGE (n:{label} {id: row.id}) SET {node_set} RETURN count(n) AS n",
    # Both endpoints looked up by label so each is an index seek on the uniqueness constraint (an unlabelled
    # ``MATCH (a {id: ...})`` scans every node); returns the count for shortfall checks.
    "copy_rel_table": "UNWIND $rows AS row MATCH (a:{source_label} {id: row.source}) "
                      "MATCH (b:{target_label} {id: row.target}) "
                      "CREATE (a)-[r:{rel_type}]->(b) SET {rel_set} RETURN count(r) AS n",
    # --- literature writes -------------------------------------------------------------------------
    # Orphan: a NounPhrase nothing mentions and no alias points to (hubs of SAME_AS are kept).
    "delete_orphan_nounphrases": "MATCH (n:NounPhrase) WHERE n.id IN $ids "
                                 "AND NOT EXISTS { (n)<-[:MENTIONS]-() } AND NOT EXISTS { (n)<-[:SAME_AS]-() } "
                                 "DETACH DELETE n RETURN count(*) AS n",
    "create_articles": "UNWIND $rows AS row MERGE (a:Article {id: row.id}) SET "
                       + set_clause("a", LITERATURE_NODE_PROPERTIES["Article"]) + " RETURN count(a) AS n",
    # MERGE the node on its id first, then the edge (MERGE of a whole pattern with an unbound node would create a
    # second Section with the same id and break the uniqueness constraint).
    "create_sections": "UNWIND $rows AS row MATCH (a:Article {id: row.article_id}) "
                       "MERGE (s:Section {id: row.id}) SET "
                       + set_clause("s", LITERATURE_NODE_PROPERTIES["Section"])
                       + " MERGE (a)-[:HAS_SECTION]->(s) RETURN count(s) AS n",
    "create_passages": "UNWIND $rows AS row MATCH (s:Section {id: row.section_id}) "
                       "MERGE (p:Passage {id: row.id}) SET "
                       + set_clause("p", LITERATURE_NODE_PROPERTIES["Passage"])
                       + " MERGE (s)-[:CONTAINS]->(p) RETURN count(p) AS n",
    # --- reads -------------------------------------------------------------------------------------
    "passage_mention_edges": "MATCH (p:Passage)-[r:MENTIONS]->(n:NounPhrase) "
                             "RETURN p.id AS source, n.id AS target, toFloat(r.count) AS weight",
    "passage_mentions": "MATCH (p:Passage)-[m:MENTIONS]->(n:NounPhrase) WHERE p.id IN $ids "
                        "OPTIONAL MATCH (n)-[r:MAPS_TO]->(e) "
                        "RETURN p.id AS passage_id, n.id AS nounphrase_id, n.name AS mention, e.id AS entity_id, "
                        "e.name AS entity_name, labels(e)[0] AS entity_label, r.confidence AS confidence, "
                        "r.method AS method",
    "edges_among": "MATCH (a)-[r:{domain_rels}]->(b) WHERE a.id IN $ids AND b.id IN $ids "
                   "RETURN a.id AS source, b.id AS target, type(r) AS rel_type, {rel_return}",
    "neighbours_out": "MATCH (a {id: $id})-[r:{domain_rels}]->(b) WHERE type(r) IN $rel_types RETURN "
                      + _NEIGHBOUR_RETURN + ", b.name AS neighbour_name, labels(b)[0] AS neighbour_label LIMIT $limit",
    "neighbours_in": "MATCH (a)-[r:{domain_rels}]->(b {id: $id}) WHERE type(r) IN $rel_types RETURN "
                     + _NEIGHBOUR_RETURN + ", a.name AS neighbour_name, labels(a)[0] AS neighbour_label LIMIT $limit",
    **entity_edge_statements(edge_row("type(r)", "labels(s)[0]", "labels(t)[0]")),
    # --- Neo4j only: element ids and Graph Data Science ----------------------------------------------------
    # The GDS texts target GDS 2.x on Neo4j 5 (weighted ``sourceNodes: [[node, bias], ...]`` and the Cypher
    # projection function ``gds.graph.project(...)`` with ``undirectedRelationshipTypes``); see
    # :mod:`engram_kit.retrieval.gds` for how their parameters map to :class:`~engram_kit.settings.Settings`.
    # Neo4j element ids of nodes given by engram id; {label}: any schema label (index seek).
    "element_ids": "MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, elementId(n) AS element_id",
    "gds_graph_exists": "CALL gds.graph.exists($graph_name) YIELD exists RETURN exists",
    # failIfMissing = false: dropping an absent projection is a no-op.
    "gds_graph_drop": "CALL gds.graph.drop($graph_name, false) YIELD graphName RETURN graphName AS graph_name",
    # Undirected, weighted projection of exactly the graph the embedded PPR uses (GraphIndex): the domain rel types
    # (weight 1), Passage-MENTIONS->NounPhrase (weight = count), NounPhrase-MAPS_TO->entity (weight = confidence)
    # and SAME_AS (weight 1); self-loops dropped like CSRGraph does. Parallel relationships are kept, which
    # PageRank treats as one edge with the summed weight, as the CSR does when it sums duplicates.
    "gds_project_retrieval_graph": "MATCH (s)-[r:{retrieval_rels}]->(t) WHERE s <> t AND (type(r) <> 'MENTIONS' "
                                   "OR s:Passage) AND {not_negated} "
                                   "WITH s, t, CASE type(r) WHEN 'MAPS_TO' THEN r.confidence WHEN 'MENTIONS' THEN "
                                   "toFloat(r.count) ELSE 1.0 END AS weight "
                                   "WITH gds.graph.project($graph_name, s, t, {relationshipProperties: {weight: "
                                   "weight}}, {undirectedRelationshipTypes: ['*']}) AS g "
                                   "RETURN g.graphName AS graph_name, g.nodeCount AS node_count, "
                                   "g.relationshipCount AS relationship_count",
    # Memory estimate of a native projection of the same labels and types (GDS documents that an estimate of a
    # Cypher projection is not available; the native one bounds it closely).
    "gds_project_estimate": "CALL gds.graph.project.estimate($node_projection, $relationship_projection) "
                            "YIELD requiredMemory, bytesMin, bytesMax, nodeCount, relationshipCount "
                            "RETURN requiredMemory AS required_memory, bytesMin AS bytes_min, bytesMax AS bytes_max, "
                            "nodeCount AS node_count, relationshipCount AS relationship_count",
    # Weighted personalised PageRank over the named projection; only nodes with a positive score come back.
    # $seeds: list of {element_id, weight}; weights > 0 (GDS takes them as source-node biases).
    "gds_pagerank_stream": "UNWIND $seeds AS seed MATCH (n) WHERE elementId(n) = seed.element_id "
                           "WITH collect([n, seed.weight]) AS sources "
                           "CALL gds.pageRank.stream($graph_name, {sourceNodes: sources, dampingFactor: "
                           "$damping_factor, tolerance: $tolerance, maxIterations: $max_iterations, "
                           "relationshipWeightProperty: 'weight'}) "
                           "YIELD nodeId, score WITH nodeId, score WHERE score > 0 "
                           "RETURN gds.util.asNode(nodeId).id AS id, score",
    # The same over an unweighted source-node list (restart spread evenly): OpenGDS 2.13.9 (the open-source build
    # on Maven Central) rejects [[node, bias]] pairs; GDSPPREngine combines one call per weight group.
    "gds_pagerank_stream_uniform": "UNWIND $seeds AS seed MATCH (n) WHERE elementId(n) = seed.element_id "
                                   "WITH collect(n) AS sources "
                                   "CALL gds.pageRank.stream($graph_name, {sourceNodes: sources, dampingFactor: "
                                   "$damping_factor, tolerance: $tolerance, maxIterations: $max_iterations, "
                                   "relationshipWeightProperty: 'weight'}) "
                                   "YIELD nodeId, score WITH nodeId, score WHERE score > 0 "
                                   "RETURN gds.util.asNode(nodeId).id AS id, score",
}

#: Fragments of the evidence desk and the answer layer (:data:`engram_kit.store.statements.FRAGMENTS`).
FRAGMENTS: dict[str, str] = {
    "split_count": "CASE WHEN {expr} IS NULL OR {expr} = '' THEN 0 ELSE size(split({expr}, '|')) END",
    "first_distinct": "collect(DISTINCT {expr})[0..{n}]",
    "rel_type": "type({rel})",
    "node_label": "labels({node})[0]",
}


class Neo4jStatements(StatementPack):
    """Neo4j's pack: schema-free labels, so the DDL is one ``id`` (``key``) uniqueness constraint per label and range
    indexes (:meth:`index_statements`); no relationship schema."""

    def create_node_table(self, label: str, properties: dict[str, str], primary_key: str) -> str:
        name = "engram_meta_key" if label == META_LABEL else f"{label.lower()}_{primary_key}"
        return f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{label}) REQUIRE n.{primary_key} IS UNIQUE"

    def create_rel_table(self, rel_type: str, endpoints: tuple[tuple[str, str], ...],
                         properties: dict[str, str]) -> str | None:
        return None

    def index_statements(self, schema: GraphSchema | None = None) -> list[str]:
        """Range indexes beside the uniqueness constraints; idempotent.

        Returns
        -------
        list of str
            ``name`` indexes on the domain labels and NounPhrase (entity lookup by name, evidence queries),
            ``article_id`` indexes on Section and Passage (the delete/reprocess statements filter on it) and
            ``source``/``pmid`` indexes on Article: 16 statements for Hetionet.

        Raises
        ------
        DataError
            If ``schema`` is None (the store's ``schema`` names the domain layer; no graph format is assumed).
        """
        schema = require_schema(schema, "The neo4j pack's index_statements")
        out = [f"CREATE INDEX {label.lower()}_name IF NOT EXISTS FOR (n:{label}) ON (n.name)"
               for label in (*schema.labels, "NounPhrase")]
        out += [f"CREATE INDEX {label.lower()}_article_id IF NOT EXISTS FOR (n:{label}) ON (n.article_id)"
                for label in ("Section", "Passage")]
        out += [f"CREATE INDEX article_{prop} IF NOT EXISTS FOR (n:Article) ON (n.{prop})"
                for prop in ("source", "pmid")]
        return out


#: The pack :class:`~engram_kit.store.neo4j.Neo4jStore` and :mod:`engram_kit.retrieval.gds` send.
NEO4J_STATEMENTS = Neo4jStatements(
    "neo4j", STATEMENTS, fragments=FRAGMENTS,
    prompt_note="Neo4j 5 Cypher (use type(r) for a relationship's type and labels(n)[0] for a node's label)",
    description="Neo4j 5 with Graph Data Science 2.x (server)")
#: The name :func:`engram_kit.store.statements.pack_named` looks up.
PACK = NEO4J_STATEMENTS


# --- static validation (scripts/lint_cypher.mjs) -------------------------------------------------------
#: Every query parameter a Neo4j statement may use, with an example value (its type is what the linter checks). A
#: statement using a parameter missing here fails ``tests/test_cypher_lint.py``.
NEO4J_PARAMETERS: dict[str, object] = {
    "key": "", "value": "", "rel_types": [],
    "rows": [], "ids": [], "article_ids": [], "article_id": "", "id": "", "status": "", "error": "", "source": "",
    "graph_name": "engram_retrieval", "seeds": [], "damping_factor": 0.5, "tolerance": 1e-9,
    "max_iterations": 100, "node_projection": [], "relationship_projection": {}, "limit": 300,
    "include_negated": False,
}
#: Keys of the maps in list parameters (``$rows``, ``$seeds``): the linter sees ``row.source_id`` as a property
#: access, so these are declared beside the graph's property keys.
NEO4J_ROW_KEYS: tuple[str, ...] = ("source", "target", "source_id", "nounphrase_id", "entity_id", "hub_id",
                                   "element_id")
#: Built-in Cypher functions the Neo4j statements call (anything else is flagged by the linter).
NEO4J_BUILTIN_FUNCTIONS: tuple[str, ...] = ("count", "toFloat", "labels", "type", "elementId", "collect")
#: Graph Data Science routines the Neo4j backend calls, with their GDS 2.x signatures (GDS manual, "Operations
#: reference"). ``kind`` is ``procedure`` or ``function``.
GDS_ROUTINES: tuple[dict[str, object], ...] = (
    {"kind": "procedure", "name": "gds.graph.exists",
     "args": [("graphName", "STRING")], "returns": [("graphName", "STRING"), ("exists", "BOOLEAN")]},
    {"kind": "procedure", "name": "gds.graph.drop",
     "args": [("graphName", "ANY"), ("failIfMissing", "BOOLEAN"), ("dbName", "STRING"), ("username", "STRING")],
     "returns": [("graphName", "STRING"), ("database", "STRING"), ("nodeCount", "INTEGER"),
                 ("relationshipCount", "INTEGER")]},
    {"kind": "procedure", "name": "gds.graph.project.estimate",
     "args": [("nodeProjection", "ANY"), ("relationshipProjection", "ANY"), ("configuration", "MAP")],
     "returns": [("requiredMemory", "STRING"), ("treeView", "STRING"), ("mapView", "MAP"),
                 ("bytesMin", "INTEGER"), ("bytesMax", "INTEGER"), ("nodeCount", "INTEGER"),
                 ("relationshipCount", "INTEGER"), ("heapPercentageMin", "FLOAT"),
                 ("heapPercentageMax", "FLOAT")]},
    {"kind": "procedure", "name": "gds.pageRank.stream",
     "args": [("graphName", "STRING"), ("configuration", "MAP")],
     "returns": [("nodeId", "INTEGER"), ("score", "FLOAT")]},
    {"kind": "function", "name": "gds.graph.project", "aggregating": True,
     "args": [("graphName", "STRING"), ("sourceNode", "ANY"), ("targetNode", "ANY"), ("dataConfig", "ANY"),
              ("configuration", "ANY")], "returns": "MAP"},
    {"kind": "function", "name": "gds.util.asNode", "aggregating": False,
     "args": [("nodeId", "ANY")], "returns": "ANY"},
)


def lint_payload(pack: StatementPack, schema: GraphSchema | None) -> dict[str, object]:
    """What ``scripts/lint_cypher.mjs`` checks: every text of ``pack`` and the database schema they run against, for
    the domain layer ``schema`` (required: Hetionet's lints what a Hetionet workspace sends, a KGX graph's schema
    what a KGX workspace sends; ``python -m engram_kit.store.statements --schema`` names it).

    Returns
    -------
    dict
        ``dialect`` (the pack's name), ``statements`` (:meth:`StatementPack.all_statements`) and ``schema``:
        ``labels``, ``relationshipTypes``, ``propertyKeys``, ``parameters`` (:data:`NEO4J_PARAMETERS`),
        ``functions`` (:data:`NEO4J_BUILTIN_FUNCTIONS`) and ``routines`` (:data:`GDS_ROUTINES`).

    Raises
    ------
    DataError
        If ``schema`` is None (no graph format is assumed).
    """
    schema = require_schema(schema, "lint_payload")
    properties = (set(schema.node_properties) | set(schema.rel_properties) | {"weight"} | set(NEO4J_ROW_KEYS)
                  | set(META_PROPERTIES))
    for props in LITERATURE_NODE_PROPERTIES.values():
        properties |= set(props)
    for _, rel_props in LITERATURE_REL_TABLES.values():
        properties |= set(rel_props)
    return {
        "dialect": pack.name,
        "statements": pack.all_statements(schema),
        "schema": {
            "labels": list(schema.labels + LITERATURE_LABELS + (META_LABEL,)),
            "relationshipTypes": list(schema.rel_types + LITERATURE_REL_TYPES),
            "propertyKeys": sorted(properties),
            "parameters": NEO4J_PARAMETERS,
            "functions": list(NEO4J_BUILTIN_FUNCTIONS),
            "routines": [dict(r) for r in GDS_ROUTINES],
        },
    }
