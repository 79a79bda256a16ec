"""Every Cypher statement the graph stores send, in one registry keyed by name and dialect.

Callers never write Cypher: a store asks for ``statement("merge_nounphrases", "ladybug")`` and runs the
text with parameters. Values are *always* passed as query parameters (``$rows``, ``$ids``); the only
text interpolated into a statement is a node label or relationship type taken from the fixed schema
(:mod:`engram_kit.kg.schema` plus the literature labels below), and :func:`statement` refuses anything
else, so no user-supplied string ever reaches the query text.

Dialects
--------
``"ladybug"``
    LadybugDB 0.22 (the maintained fork of Kuzu): typed node/rel tables, ``COPY ... FROM $frame`` from a
    pandas DataFrame, multi-endpoint rel tables (``FROM Passage TO NounPhrase, FROM Section TO ...``).
``"neo4j"``
    Neo4j 5 (schema-free labels, uniqueness constraints). Where the Neo4j form is known it is included;
    the Neo4j store (not written yet) may add the missing ones. :func:`statement` names the gap.

Graph model
-----------
See :mod:`engram_kit.store.base`. ``index`` is a reserved word in LadybugDB's Cypher, so the record field
``index`` of sections and passages is stored as the property ``idx`` (stores rename it back on read).
"""

from __future__ import annotations

import re

from engram_kit.errors import DataError, QueryError
from engram_kit.kg.schema import (
    HETIONET_NODE_PROPERTIES,
    HETIONET_REL_PROPERTIES,
    HETIONET_SCHEMA,
    METAEDGES,
    NODE_KINDS,
    GraphSchema,
)

#: Cypher dialects known to the registry.
DIALECTS: tuple[str, ...] = ("ladybug", "neo4j")

#: Labels of the 11 Hetionet node tables, in schema order.
DOMAIN_LABELS: tuple[str, ...] = tuple(NODE_KINDS.values())
#: Relationship types of the 24 Hetionet metaedges, in schema order.
DOMAIN_REL_TYPES: tuple[str, ...] = tuple(m.rel_type for m in METAEDGES)
#: Labels of the literature layer.
LITERATURE_LABELS: tuple[str, ...] = ("Article", "Section", "Passage", "NounPhrase")
#: Relationship types of the literature layer.
LITERATURE_REL_TYPES: tuple[str, ...] = ("HAS_SECTION", "CONTAINS", "MENTIONS", "MAPS_TO", "SAME_AS")
#: Labels that may be the source of a ``MENTIONS`` edge.
MENTION_SOURCE_LABELS: tuple[str, ...] = ("Passage", "Section", "Article")

#: Properties of every Hetionet domain node table (a KGX graph has its own: ``GraphSchema.node_properties``).
DOMAIN_NODE_PROPERTIES: dict[str, str] = HETIONET_NODE_PROPERTIES
#: Properties of every Hetionet domain rel table (a KGX graph has its own: ``GraphSchema.rel_properties``).
DOMAIN_REL_PROPERTIES: dict[str, str] = HETIONET_REL_PROPERTIES
#: Workspace metadata table (key -> JSON text): the graph schema the store was created with lives here, so a
#: second process (dashboard, read-only) knows the domain layer without the workspace manifest.
META_LABEL = "EngramMeta"
META_PROPERTIES: dict[str, str] = {"key": "STRING", "value": "STRING"}
#: Literature node tables: label -> property -> LadybugDB type. ``id`` is the primary key of each.
LITERATURE_NODE_PROPERTIES: dict[str, dict[str, str]] = {
    "Article": {
        "id": "STRING", "source": "STRING", "title": "STRING", "pmid": "STRING", "year": "INT64",
        "doi": "STRING", "authors": "STRING", "status": "STRING", "error": "STRING",
        "content_hash": "STRING",
    },
    "Section": {
        "id": "STRING", "article_id": "STRING", "title": "STRING", "idx": "INT64", "summary": "STRING",
    },
    "Passage": {
        "id": "STRING", "article_id": "STRING", "section_id": "STRING", "text": "STRING",
        "source": "STRING", "idx": "INT64", "pmid": "STRING", "title": "STRING", "year": "INT64",
        "section_title": "STRING", "page_start": "INT64", "page_end": "INT64", "char_start": "INT64",
        "char_end": "INT64",
    },
    "NounPhrase": {"id": "STRING", "name": "STRING", "normalized": "STRING", "entity_type": "STRING"},
}
#: Literature rel tables: type -> (list of (from, to) label pairs, properties).
LITERATURE_REL_TABLES: dict[str, tuple[tuple[tuple[str, str], ...], dict[str, str]]] = {
    "HAS_SECTION": ((("Article", "Section"),), {}),
    "CONTAINS": ((("Section", "Passage"),), {}),
    "MENTIONS": (tuple((src, "NounPhrase") for src in MENTION_SOURCE_LABELS), {"count": "INT64"}),
    "MAPS_TO": (tuple(("NounPhrase", label) for label in DOMAIN_LABELS),
                {"confidence": "DOUBLE", "method": "STRING"}),
    "SAME_AS": ((("NounPhrase", "NounPhrase"),), {}),
}

#: Every identifier that may be interpolated into a statement template.
SCHEMA_IDENTIFIERS: frozenset[str] = frozenset(
    DOMAIN_LABELS + DOMAIN_REL_TYPES + LITERATURE_LABELS + LITERATURE_REL_TYPES + ("EngramMeta",)
)

_PASSAGE_RETURN = ", ".join(
    f"p.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Passage"]
)
_ARTICLE_RETURN = ", ".join(
    f"a.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Article"]
)
_SECTION_RETURN = ", ".join(f"s.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Section"])
_NOUNPHRASE_RETURN = ", ".join(f"n.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["NounPhrase"])
#: Relationship types the PPR graph uses (domain layer + the literature edges of GraphIndex).
RETRIEVAL_REL_TYPES: tuple[str, ...] = DOMAIN_REL_TYPES + ("MENTIONS", "MAPS_TO", "SAME_AS")


def _set_clause(variable: str, properties: dict[str, str], *, skip: tuple[str, ...] = ("id",)) -> str:
    """``n.name = row.name, n.title = row.title`` for every property except ``skip``."""
    return ", ".join(f"{variable}.{p} = row.{p}" for p in properties if p not in skip)


def _create_map(properties: dict[str, str]) -> str:
    """``{id: row.id, name: row.name}`` for every property."""
    return "{" + ", ".join(f"{p}: row.{p}" for p in properties) + "}"


def _frame_map(properties: dict[str, str]) -> str:
    """``{id: id, name: name}`` for every property: a ``LOAD FROM`` row's columns are bare variables."""
    return "{" + ", ".join(f"{p}: {p}" for p in properties) + "}"


#: name -> dialect -> statement text. ``{label}``/``{rel_type}`` placeholders take schema identifiers only.
#: LadybugDB note: after ``UNWIND``, two node lookups must be two ``MATCH`` clauses
#: (``MATCH (a {id: row.x}) MATCH (b {id: row.y})``); the comma form ``MATCH (a ...), (b ...)`` is planned
#: as a cross product of both tables and was 60x slower (2.5 s vs 0.04 s for 2,000 rows).
STATEMENTS: dict[str, dict[str, str]] = {
    # --- bulk load ---------------------------------------------------------------------------------
    "copy_node_table": {
        # The frame's columns must be the table's properties, in table order.
        "ladybug": "COPY {label} FROM $frame",
        "neo4j": "UNWIND $rows AS row MERGE (n:{label} {id: row.id}) SET {node_set} RETURN count(n) AS n",
    },
    "copy_rel_table_pair": {
        # A rel table connecting several label pairs (a Biolink predicate) is copied one pair at a time.
        "ladybug": "COPY {rel_type} FROM $frame (from='{source_label}', to='{target_label}')",
    },
    "copy_rel_table": {
        # The frame's columns: from id, to id, then the rel properties in table order.
        "ladybug": "COPY {rel_type} FROM $frame",
        # Neo4j: both endpoints looked up by label so each is an index seek on the uniqueness constraint
        # (an unlabelled ``MATCH (a {id: ...})`` scans every node); returns the count for shortfall checks.
        "neo4j": "UNWIND $rows AS row MATCH (a:{source_label} {id: row.source}) "
                 "MATCH (b:{target_label} {id: row.target}) "
                 "CREATE (a)-[r:{rel_type}]->(b) SET {rel_set} RETURN count(r) AS n",
    },
    # --- counts ------------------------------------------------------------------------------------
    "count_nodes": {
        "ladybug": "MATCH (n:{label}) RETURN count(n) AS n",
        "neo4j": "MATCH (n:{label}) RETURN count(n) AS n",
    },
    "count_rels": {
        "ladybug": "MATCH ()-[r:{rel_type}]->() RETURN count(r) AS n",
        "neo4j": "MATCH ()-[r:{rel_type}]->() RETURN count(r) AS n",
    },
    # --- literature writes -------------------------------------------------------------------------
    "nounphrases_mentioned_by_passages": {
        "ladybug": "MATCH (p:Passage)-[:MENTIONS]->(n:NounPhrase) WHERE p.article_id IN $article_ids "
                   "RETURN DISTINCT n.id AS id",
        "neo4j": "MATCH (p:Passage)-[:MENTIONS]->(n:NounPhrase) WHERE p.article_id IN $article_ids "
                 "RETURN DISTINCT n.id AS id",
    },
    "nounphrases_mentioned_by_sections": {
        "ladybug": "MATCH (s:Section)-[:MENTIONS]->(n:NounPhrase) WHERE s.article_id IN $article_ids "
                   "RETURN DISTINCT n.id AS id",
        "neo4j": "MATCH (s:Section)-[:MENTIONS]->(n:NounPhrase) WHERE s.article_id IN $article_ids "
                 "RETURN DISTINCT n.id AS id",
    },
    "nounphrases_mentioned_by_articles": {
        "ladybug": "MATCH (a:Article)-[:MENTIONS]->(n:NounPhrase) WHERE a.id IN $article_ids "
                   "RETURN DISTINCT n.id AS id",
        "neo4j": "MATCH (a:Article)-[:MENTIONS]->(n:NounPhrase) WHERE a.id IN $article_ids "
                 "RETURN DISTINCT n.id AS id",
    },
    "delete_passages_of_articles": {
        "ladybug": "MATCH (p:Passage) WHERE p.article_id IN $article_ids DETACH DELETE p",
        "neo4j": "MATCH (p:Passage) WHERE p.article_id IN $article_ids DETACH DELETE p",
    },
    "count_passages_of_articles": {
        "ladybug": "MATCH (p:Passage) WHERE p.article_id IN $article_ids RETURN count(p) AS n",
        "neo4j": "MATCH (p:Passage) WHERE p.article_id IN $article_ids RETURN count(p) AS n",
    },
    "delete_sections_of_articles": {
        "ladybug": "MATCH (s:Section) WHERE s.article_id IN $article_ids DETACH DELETE s",
        "neo4j": "MATCH (s:Section) WHERE s.article_id IN $article_ids DETACH DELETE s",
    },
    "count_articles_by_id": {
        # The replace-on-rewrite check of a literature write: are any of the batch's articles stored?
        "ladybug": "MATCH (a:Article) WHERE a.id IN $ids RETURN count(a) AS n",
        "neo4j": "MATCH (a:Article) WHERE a.id IN $ids RETURN count(a) AS n",
    },
    "delete_articles": {
        "ladybug": "MATCH (a:Article) WHERE a.id IN $article_ids DETACH DELETE a",
        "neo4j": "MATCH (a:Article) WHERE a.id IN $article_ids DETACH DELETE a",
    },
    "delete_orphan_nounphrases": {
        # Orphan: a NounPhrase nothing mentions and no alias points to (hubs of SAME_AS are kept).
        "ladybug": "MATCH (n:NounPhrase) WHERE n.id IN $ids "
                   "AND NOT EXISTS { MATCH (n)<-[:MENTIONS]-() } AND NOT EXISTS { MATCH (n)<-[:SAME_AS]-() } "
                   "DETACH DELETE n RETURN count(*) AS n",
        "neo4j": "MATCH (n:NounPhrase) WHERE n.id IN $ids "
                 "AND NOT EXISTS { (n)<-[:MENTIONS]-() } AND NOT EXISTS { (n)<-[:SAME_AS]-() } "
                 "DETACH DELETE n RETURN count(*) AS n",
    },
    "create_articles": {
        "ladybug": "UNWIND $rows AS row CREATE (a:Article "
                   + _create_map(LITERATURE_NODE_PROPERTIES["Article"]) + ") RETURN count(a) AS n",
        "neo4j": "UNWIND $rows AS row MERGE (a:Article {id: row.id}) SET "
                 + _set_clause("a", LITERATURE_NODE_PROPERTIES["Article"]) + " RETURN count(a) AS n",
    },
    "create_sections": {
        "ladybug": "UNWIND $rows AS row MATCH (a:Article {id: row.article_id}) "
                   "CREATE (a)-[:HAS_SECTION]->(s:Section "
                   + _create_map(LITERATURE_NODE_PROPERTIES["Section"]) + ") RETURN count(s) AS n",
        # Neo4j: MERGE the node on its id first, then the edge (MERGE of a whole pattern with an unbound
        # node would create a second Section with the same id and break the uniqueness constraint).
        "neo4j": "UNWIND $rows AS row MATCH (a:Article {id: row.article_id}) "
                 "MERGE (s:Section {id: row.id}) SET "
                 + _set_clause("s", LITERATURE_NODE_PROPERTIES["Section"])
                 + " MERGE (a)-[:HAS_SECTION]->(s) RETURN count(s) AS n",
    },
    "create_passages": {
        "ladybug": "UNWIND $rows AS row MATCH (s:Section {id: row.section_id}) "
                   "CREATE (s)-[:CONTAINS]->(p:Passage "
                   + _create_map(LITERATURE_NODE_PROPERTIES["Passage"]) + ") RETURN count(p) AS n",
        "neo4j": "UNWIND $rows AS row MATCH (s:Section {id: row.section_id}) "
                 "MERGE (p:Passage {id: row.id}) SET "
                 + _set_clause("p", LITERATURE_NODE_PROPERTIES["Passage"])
                 + " MERGE (s)-[:CONTAINS]->(p) RETURN count(p) AS n",
    },
    "merge_nounphrases": {
        "ladybug": "UNWIND $rows AS row MERGE (n:NounPhrase {id: row.id}) "
                   "ON CREATE SET n.name = row.name, n.normalized = row.normalized, "
                   "n.entity_type = row.entity_type RETURN count(n) AS n",
        "neo4j": "UNWIND $rows AS row MERGE (n:NounPhrase {id: row.id}) "
                 "ON CREATE SET n.name = row.name, n.normalized = row.normalized, "
                 "n.entity_type = row.entity_type RETURN count(n) AS n",
    },
    "merge_mentions": {
        # {label}: Passage, Section or Article.
        "ladybug": "UNWIND $rows AS row MATCH (x:{label} {id: row.source_id}) "
                   "MATCH (n:NounPhrase {id: row.nounphrase_id}) MERGE (x)-[r:MENTIONS]->(n) "
                   "SET r.count = row.count RETURN count(r) AS n",
        "neo4j": "UNWIND $rows AS row MATCH (x:{label} {id: row.source_id}) "
                 "MATCH (n:NounPhrase {id: row.nounphrase_id}) MERGE (x)-[r:MENTIONS]->(n) "
                 "SET r.count = row.count RETURN count(r) AS n",
    },
    "merge_maps_to": {
        # {label}: the domain label of the entity (one statement per label keeps lookups on one table).
        "ladybug": "UNWIND $rows AS row MATCH (n:NounPhrase {id: row.nounphrase_id}) "
                   "MATCH (e:{label} {id: row.entity_id}) MERGE (n)-[r:MAPS_TO]->(e) "
                   "SET r.confidence = row.confidence, r.method = row.method RETURN count(r) AS n",
        "neo4j": "UNWIND $rows AS row MATCH (n:NounPhrase {id: row.nounphrase_id}) "
                 "MATCH (e:{label} {id: row.entity_id}) MERGE (n)-[r:MAPS_TO]->(e) "
                 "SET r.confidence = row.confidence, r.method = row.method RETURN count(r) AS n",
    },
    "merge_same_as": {
        "ladybug": "UNWIND $rows AS row MATCH (n:NounPhrase {id: row.nounphrase_id}) "
                   "MATCH (h:NounPhrase {id: row.hub_id}) MERGE (n)-[r:SAME_AS]->(h) RETURN count(r) AS n",
        "neo4j": "UNWIND $rows AS row MATCH (n:NounPhrase {id: row.nounphrase_id}) "
                 "MATCH (h:NounPhrase {id: row.hub_id}) MERGE (n)-[r:SAME_AS]->(h) RETURN count(r) AS n",
    },
    # LadybugDB forms of the literature writes above that scan an Arrow table (``LOAD FROM $frame``) instead
    # of a list of maps (``UNWIND $rows``): same clauses, same count, the frame's columns are the row keys
    # (see FRAME_STATEMENTS). ``create_mentions``/``create_maps_to`` CREATE the edge where it cannot exist yet
    # (its source, or its NounPhrase, is new in the batch); the ``merge_*`` forms keep MERGE semantics.
    "load_count_articles": {
        # Index lookups (``WHERE a.id IN $ids`` scans the table): how many of the frame's ids are stored.
        "ladybug": "LOAD FROM $frame MATCH (a:Article {id: id}) RETURN count(a) AS n",
    },
    "load_nounphrase_links": {
        # The stored MAPS_TO edges of the frame's NounPhrase ids.
        "ladybug": "LOAD FROM $frame MATCH (n:NounPhrase {id: id})-[r:MAPS_TO]->(e) "
                   "RETURN n.id AS nounphrase_id, e.id AS entity_id, r.confidence AS confidence, "
                   "r.method AS method",
    },
    "load_update_maps_to": {
        # New confidence/method on stored MAPS_TO edges, every entity label at once (the NounPhrase's few
        # MAPS_TO edges are expanded and filtered on the entity id).
        "ladybug": "LOAD FROM $frame MATCH (n:NounPhrase {id: nounphrase_id})-[r:MAPS_TO]->(e) "
                   "WHERE e.id = entity_id SET r.confidence = confidence, r.method = method RETURN count(r) AS n",
    },
    "load_articles": {
        "ladybug": "LOAD FROM $frame CREATE (a:Article " + _frame_map(LITERATURE_NODE_PROPERTIES["Article"])
                   + ") RETURN count(a) AS n",
    },
    "load_sections": {
        "ladybug": "LOAD FROM $frame MATCH (a:Article {id: article_id}) CREATE (a)-[:HAS_SECTION]->(s:Section "
                   + _frame_map(LITERATURE_NODE_PROPERTIES["Section"]) + ") RETURN count(s) AS n",
    },
    "load_passages": {
        "ladybug": "LOAD FROM $frame MATCH (s:Section {id: section_id}) CREATE (s)-[:CONTAINS]->(p:Passage "
                   + _frame_map(LITERATURE_NODE_PROPERTIES["Passage"]) + ") RETURN count(p) AS n",
    },
    "load_merge_nounphrases": {
        "ladybug": "LOAD FROM $frame MERGE (n:NounPhrase {id: id}) ON CREATE SET n.name = name, "
                   "n.normalized = normalized, n.entity_type = entity_type RETURN count(n) AS n",
    },
    "load_merge_mentions": {
        "ladybug": "LOAD FROM $frame MATCH (x:{label} {id: source_id}) MATCH (n:NounPhrase {id: nounphrase_id}) "
                   "MERGE (x)-[r:MENTIONS]->(n) SET r.count = count RETURN count(r) AS n",
    },
    "load_create_mentions": {
        "ladybug": "LOAD FROM $frame MATCH (x:{label} {id: source_id}) MATCH (n:NounPhrase {id: nounphrase_id}) "
                   "CREATE (x)-[r:MENTIONS {count: count}]->(n) RETURN count(r) AS n",
    },
    "load_merge_maps_to": {
        "ladybug": "LOAD FROM $frame MATCH (n:NounPhrase {id: nounphrase_id}) MATCH (e:{label} {id: entity_id}) "
                   "MERGE (n)-[r:MAPS_TO]->(e) SET r.confidence = confidence, r.method = method RETURN count(r) AS n",
    },
    "load_create_maps_to": {
        "ladybug": "LOAD FROM $frame MATCH (n:NounPhrase {id: nounphrase_id}) MATCH (e:{label} {id: entity_id}) "
                   "CREATE (n)-[r:MAPS_TO {confidence: confidence, method: method}]->(e) RETURN count(r) AS n",
    },
    "set_article_status": {
        "ladybug": "MATCH (a:Article {id: $id}) SET a.status = $status, a.error = $error RETURN count(a) AS n",
        "neo4j": "MATCH (a:Article {id: $id}) SET a.status = $status, a.error = $error RETURN count(a) AS n",
    },
    # --- reads -------------------------------------------------------------------------------------
    "nodes_by_id": {
        # {label}: one domain label or NounPhrase.
        "ladybug": "MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, n.name AS name",
        "neo4j": "MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, n.name AS name",
    },
    "node_ids": {
        "ladybug": "MATCH (n:{label}) RETURN n.id AS id ORDER BY id",
        "neo4j": "MATCH (n:{label}) RETURN n.id AS id ORDER BY id",
    },
    "rel_endpoints": {
        # All edges of one rel table (used to build the in-memory CSR graph).
        "ladybug": "MATCH (a)-[r:{rel_type}]->(b) RETURN a.id AS source, b.id AS target",
        "neo4j": "MATCH (a)-[r:{rel_type}]->(b) RETURN a.id AS source, b.id AS target",
    },
    "rel_endpoints_asserted": {
        # The same without negated assertions (KGX ``negated = true``): what PPR and agents traverse.
        "ladybug": "MATCH (a)-[r:{rel_type}]->(b) WHERE {not_negated} RETURN a.id AS source, b.id AS target",
        "neo4j": "MATCH (a)-[r:{rel_type}]->(b) WHERE {not_negated} RETURN a.id AS source, b.id AS target",
    },
    "passages_by_id": {
        "ladybug": f"MATCH (p:Passage) WHERE p.id IN $ids RETURN {_PASSAGE_RETURN}",
        "neo4j": f"MATCH (p:Passage) WHERE p.id IN $ids RETURN {_PASSAGE_RETURN}",
    },
    "articles_all": {
        "ladybug": "MATCH (a:Article) OPTIONAL MATCH (a)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                   f"RETURN {_ARTICLE_RETURN}, count(p) AS passages ORDER BY id",
        "neo4j": "MATCH (a:Article) OPTIONAL MATCH (a)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                 f"RETURN {_ARTICLE_RETURN}, count(p) AS passages ORDER BY id",
    },
    "articles_by_source": {
        "ladybug": "MATCH (a:Article) WHERE a.source = $source "
                   "OPTIONAL MATCH (a)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                   f"RETURN {_ARTICLE_RETURN}, count(p) AS passages ORDER BY id",
        "neo4j": "MATCH (a:Article) WHERE a.source = $source "
                 "OPTIONAL MATCH (a)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                 f"RETURN {_ARTICLE_RETURN}, count(p) AS passages ORDER BY id",
    },
    "passage_mention_edges": {
        "ladybug": "MATCH (p:Passage)-[r:MENTIONS]->(n:NounPhrase) "
                   "RETURN p.id AS source, n.id AS target, CAST(r.count AS DOUBLE) AS weight",
        "neo4j": "MATCH (p:Passage)-[r:MENTIONS]->(n:NounPhrase) "
                 "RETURN p.id AS source, n.id AS target, toFloat(r.count) AS weight",
    },
    "maps_to_edges": {
        "ladybug": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS source, e.id AS target, "
                   "r.confidence AS weight",
        "neo4j": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS source, e.id AS target, "
                 "r.confidence AS weight",
    },
    "same_as_edges": {
        "ladybug": "MATCH (n:NounPhrase)-[r:SAME_AS]->(h:NounPhrase) RETURN n.id AS source, h.id AS target, "
                   "1.0 AS weight",
        "neo4j": "MATCH (n:NounPhrase)-[r:SAME_AS]->(h:NounPhrase) RETURN n.id AS source, h.id AS target, "
                 "1.0 AS weight",
    },
    "passage_mentions": {
        "ladybug": "MATCH (p:Passage)-[m:MENTIONS]->(n:NounPhrase) WHERE p.id IN $ids "
                   "OPTIONAL MATCH (n)-[r:MAPS_TO]->(e) "
                   "RETURN p.id AS passage_id, n.id AS nounphrase_id, n.name AS mention, e.id AS entity_id, "
                   "e.name AS entity_name, label(e) AS entity_label, r.confidence AS confidence, "
                   "r.method AS method",
        "neo4j": "MATCH (p:Passage)-[m:MENTIONS]->(n:NounPhrase) WHERE p.id IN $ids "
                 "OPTIONAL MATCH (n)-[r:MAPS_TO]->(e) "
                 "RETURN p.id AS passage_id, n.id AS nounphrase_id, n.name AS mention, e.id AS entity_id, "
                 "e.name AS entity_name, labels(e)[0] AS entity_label, r.confidence AS confidence, "
                 "r.method AS method",
    },
    "edges_among": {
        # One query over the schema's domain rel tables; both endpoints filtered by the same id list. Every rel
        # property comes back ({rel_return}: predicate, negated, sources, publications, qualifiers...) so the
        # meaning of an edge travels with it; the store drops negated assertions unless asked to keep them.
        "ladybug": "MATCH (a)-[r:{domain_rels}]->(b) WHERE a.id IN $ids AND b.id IN $ids "
                   "RETURN a.id AS source, b.id AS target, label(r) AS rel_type, {rel_return}",
        "neo4j": "MATCH (a)-[r:{domain_rels}]->(b) WHERE a.id IN $ids AND b.id IN $ids "
                 "RETURN a.id AS source, b.id AS target, type(r) AS rel_type, {rel_return}",
    },
    # --- agents (engram_kit.agents): typed one-hop neighbourhoods ------------------------------------
    "agent_neighbours": {
        # {label} -[{rel_type}]- {other_label}, either direction; one row per (start node, neighbour).
        "ladybug": "MATCH (a:{label})-[:{rel_type}]-(b:{other_label}) WHERE a.id IN $ids "
                   "RETURN a.id AS source_id, b.id AS id, b.name AS name",
        "neo4j": "MATCH (a:{label})-[:{rel_type}]-(b:{other_label}) WHERE a.id IN $ids "
                 "RETURN a.id AS source_id, b.id AS id, b.name AS name",
    },
    "agent_neighbour_counts": {
        # Number of {other_label} neighbours through {rel_type} of each start node (absent when 0).
        "ladybug": "MATCH (a:{label})-[:{rel_type}]-(b:{other_label}) WHERE a.id IN $ids "
                   "RETURN a.id AS id, count(b) AS n",
        "neo4j": "MATCH (a:{label})-[:{rel_type}]-(b:{other_label}) WHERE a.id IN $ids "
                 "RETURN a.id AS id, count(b) AS n",
    },
    # --- full reads for export and migration (engram export / engram migrate) -----------------------
    "export_domain_nodes": {
        "ladybug": "MATCH (n:{label}) RETURN {node_return} ORDER BY id",
        "neo4j": "MATCH (n:{label}) RETURN {node_return} ORDER BY id",
    },
    "export_domain_rels": {
        "ladybug": "MATCH (a)-[r:{rel_type}]->(b) RETURN a.id AS source, b.id AS target, {rel_return}",
        "neo4j": "MATCH (a)-[r:{rel_type}]->(b) RETURN a.id AS source, b.id AS target, {rel_return}",
    },
    "export_sections": {
        "ladybug": f"MATCH (s:Section) RETURN {_SECTION_RETURN} ORDER BY id",
        "neo4j": f"MATCH (s:Section) RETURN {_SECTION_RETURN} ORDER BY id",
    },
    "export_passages": {
        "ladybug": f"MATCH (p:Passage) RETURN {_PASSAGE_RETURN} ORDER BY id",
        "neo4j": f"MATCH (p:Passage) RETURN {_PASSAGE_RETURN} ORDER BY id",
    },
    "export_nounphrases": {
        "ladybug": f"MATCH (n:NounPhrase) RETURN {_NOUNPHRASE_RETURN} ORDER BY id",
        "neo4j": f"MATCH (n:NounPhrase) RETURN {_NOUNPHRASE_RETURN} ORDER BY id",
    },
    "export_mentions": {
        # {label}: Passage, Section or Article.
        "ladybug": "MATCH (x:{label})-[r:MENTIONS]->(n:NounPhrase) RETURN x.id AS source, n.id AS target, "
                   "r.count AS count",
        "neo4j": "MATCH (x:{label})-[r:MENTIONS]->(n:NounPhrase) RETURN x.id AS source, n.id AS target, "
                 "r.count AS count",
    },
    "export_maps_to": {
        "ladybug": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS source, e.id AS target, "
                   "r.confidence AS confidence, r.method AS method",
        "neo4j": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS source, e.id AS target, "
                 "r.confidence AS confidence, r.method AS method",
    },
}

#: Columns (row keys) of the MENTIONS and MAPS_TO ``LOAD FROM $frame`` statements -> LadybugDB type.
MENTION_FRAME_COLUMNS: dict[str, str] = {"source_id": "STRING", "nounphrase_id": "STRING", "count": "INT64"}
MAPS_TO_FRAME_COLUMNS: dict[str, str] = {"nounphrase_id": "STRING", "entity_id": "STRING", "confidence": "DOUBLE",
                                         "method": "STRING"}
#: ``UNWIND $rows`` literature write -> (its ``LOAD FROM $frame`` form, the frame's columns and their types).
#: A LadybugDB store runs the form on an Arrow table of the rows: the engine scans typed columns instead of a
#: list of maps, and ladybug's Python wrapper does not walk every value to type the parameter.
#: (``load_create_mentions``/``load_create_maps_to`` have no UNWIND original: the LadybugDB store picks them
#: itself for edges that cannot exist yet.)
FRAME_STATEMENTS: dict[str, tuple[str, dict[str, str]]] = {
    "create_articles": ("load_articles", LITERATURE_NODE_PROPERTIES["Article"]),
    "create_sections": ("load_sections", LITERATURE_NODE_PROPERTIES["Section"]),
    "create_passages": ("load_passages", LITERATURE_NODE_PROPERTIES["Passage"]),
    "merge_nounphrases": ("load_merge_nounphrases", LITERATURE_NODE_PROPERTIES["NounPhrase"]),
    "merge_mentions": ("load_merge_mentions", MENTION_FRAME_COLUMNS),
    "merge_maps_to": ("load_merge_maps_to", MAPS_TO_FRAME_COLUMNS),
}

#: Statements only a Neo4j server can run (Graph Data Science procedures, element ids). Kept apart from
#: :data:`STATEMENTS` (whose entries all have an embedded version) but served by the same :func:`statement`.
#: The GDS texts target GDS 2.x on Neo4j 5 (weighted ``sourceNodes: [[node, bias], ...]`` and the Cypher
#: projection function ``gds.graph.project(...)`` with ``undirectedRelationshipTypes``); see
#: :mod:`engram_kit.store.gds` for how their parameters map to :class:`~engram_kit.settings.Settings`.
NEO4J_ONLY_STATEMENTS: dict[str, dict[str, str]] = {
    "element_ids": {
        # Neo4j element ids of nodes given by engram id; {label}: any schema label (index seek).
        "neo4j": "MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, elementId(n) AS element_id",
    },
    "gds_graph_exists": {
        "neo4j": "CALL gds.graph.exists($graph_name) YIELD exists RETURN exists",
    },
    "gds_graph_drop": {
        # failIfMissing = false: dropping an absent projection is a no-op.
        "neo4j": "CALL gds.graph.drop($graph_name, false) YIELD graphName RETURN graphName AS graph_name",
    },
    "gds_project_retrieval_graph": {
        # Undirected, weighted projection of exactly the graph the embedded PPR uses (GraphIndex): the 24
        # domain rel types (weight 1), Passage-MENTIONS->NounPhrase (weight = count), NounPhrase-MAPS_TO->
        # entity (weight = confidence) and SAME_AS (weight 1); self-loops dropped like CSRGraph does.
        # Parallel relationships are kept, which PageRank treats as one edge with the summed weight, as the
        # CSR does when it sums duplicates.
        "neo4j": "MATCH (s)-[r:{retrieval_rels}]->(t) WHERE s <> t AND (type(r) <> 'MENTIONS' OR s:Passage) "
                 "AND {not_negated} "
                 "WITH s, t, CASE type(r) WHEN 'MAPS_TO' THEN r.confidence WHEN 'MENTIONS' THEN toFloat(r.count) "
                 "ELSE 1.0 END AS weight "
                 "WITH gds.graph.project($graph_name, s, t, {relationshipProperties: {weight: weight}}, "
                 "{undirectedRelationshipTypes: ['*']}) AS g "
                 "RETURN g.graphName AS graph_name, g.nodeCount AS node_count, "
                 "g.relationshipCount AS relationship_count",
    },
    "gds_project_estimate": {
        # Memory estimate of a native projection of the same labels and types (GDS documents that an
        # estimate of a Cypher projection is not available; the native one bounds it closely).
        "neo4j": "CALL gds.graph.project.estimate($node_projection, $relationship_projection) "
                 "YIELD requiredMemory, bytesMin, bytesMax, nodeCount, relationshipCount "
                 "RETURN requiredMemory AS required_memory, bytesMin AS bytes_min, bytesMax AS bytes_max, "
                 "nodeCount AS node_count, relationshipCount AS relationship_count",
    },
    "gds_pagerank_stream": {
        # Weighted personalised PageRank over the named projection; only nodes with a positive score come
        # back. $seeds: list of {element_id, weight}; weights > 0 (GDS takes them as source-node biases).
        "neo4j": "UNWIND $seeds AS seed MATCH (n) WHERE elementId(n) = seed.element_id "
                 "WITH collect([n, seed.weight]) AS sources "
                 "CALL gds.pageRank.stream($graph_name, {sourceNodes: sources, dampingFactor: $damping_factor, "
                 "tolerance: $tolerance, maxIterations: $max_iterations, relationshipWeightProperty: 'weight'}) "
                 "YIELD nodeId, score WITH nodeId, score WHERE score > 0 "
                 "RETURN gds.util.asNode(nodeId).id AS id, score",
    },
    "gds_pagerank_stream_uniform": {
        # The same over an unweighted source-node list (restart spread evenly): OpenGDS 2.13.9 (the open-source
        # build on Maven Central) rejects [[node, bias]] pairs; GDSPPREngine combines one call per weight group.
        "neo4j": "UNWIND $seeds AS seed MATCH (n) WHERE elementId(n) = seed.element_id "
                 "WITH collect(n) AS sources "
                 "CALL gds.pageRank.stream($graph_name, {sourceNodes: sources, dampingFactor: $damping_factor, "
                 "tolerance: $tolerance, maxIterations: $max_iterations, relationshipWeightProperty: 'weight'}) "
                 "YIELD nodeId, score WITH nodeId, score WHERE score > 0 "
                 "RETURN gds.util.asNode(nodeId).id AS id, score",
    },
}

def _both(text: str) -> dict[str, str]:
    """The same text for both dialects (statements using only portable Cypher)."""
    return {"ladybug": text, "neo4j": text}


#: Statements of the document repository (listing, detail view, alias hubs); portable Cypher, so both
#: dialects share one text. Merged into :data:`STATEMENTS` below.
DOCUMENT_STATEMENTS: dict[str, dict[str, str]] = {
    "article_passages": _both(f"MATCH (p:Passage) WHERE p.article_id = $article_id RETURN {_PASSAGE_RETURN} "
                              "ORDER BY idx"),
    "article_sections": _both("MATCH (s:Section) WHERE s.article_id = $article_id RETURN "
                              + ", ".join(f"s.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Section"])
                              + " ORDER BY idx"),
    # {label}: Passage or Section (both carry article_id).
    "article_mentions_from": _both("MATCH (x:{label})-[m:MENTIONS]->(n:NounPhrase) WHERE x.article_id IN $article_ids "
                                   "RETURN x.article_id AS article_id, x.id AS source_id, n.id AS nounphrase_id, "
                                   "n.name AS name, n.entity_type AS entity_type, m.count AS count"),
    "article_mentions_from_articles": _both("MATCH (x:Article)-[m:MENTIONS]->(n:NounPhrase) WHERE x.id IN $article_ids "
                                            "RETURN x.id AS article_id, x.id AS source_id, n.id AS nounphrase_id, "
                                            "n.name AS name, n.entity_type AS entity_type, m.count AS count"),
    "nounphrase_links": _both("MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) WHERE n.id IN $ids RETURN n.id AS nounphrase_id, "
                              "n.name AS name, n.entity_type AS entity_type, e.id AS entity_id, e.name AS entity_name, "
                              "r.confidence AS confidence, r.method AS method"),
    "nounphrases_linked_to": _both("MATCH (n:NounPhrase)-[:MAPS_TO]->(e) WHERE e.id IN $ids RETURN DISTINCT n.id AS id"),
    # {label}: Passage or Section.
    "nounphrase_articles_from": _both("MATCH (x:{label})-[:MENTIONS]->(n:NounPhrase) WHERE n.id IN $ids "
                                      "RETURN DISTINCT n.id AS nounphrase_id, x.article_id AS article_id"),
    "nounphrase_articles_from_articles": _both("MATCH (x:Article)-[:MENTIONS]->(n:NounPhrase) WHERE n.id IN $ids "
                                               "RETURN DISTINCT n.id AS nounphrase_id, x.id AS article_id"),
    "same_as_from": _both("MATCH (n:NounPhrase)-[:SAME_AS]->(h:NounPhrase) WHERE n.id IN $ids "
                          "RETURN n.id AS nounphrase_id, h.id AS hub_id"),
    "delete_same_as_from": _both("MATCH (n:NounPhrase)-[r:SAME_AS]->(:NounPhrase) WHERE n.id IN $ids DELETE r"),
}
STATEMENTS.update(DOCUMENT_STATEMENTS)

#: Workspace metadata (:data:`META_LABEL`): the stored graph schema and anything else a store must know.
STATEMENTS.update({
    "read_meta": _both("MATCH (m:EngramMeta) RETURN m.key AS key, m.value AS value"),
    "write_meta": _both("MERGE (m:EngramMeta {key: $key}) SET m.value = $value RETURN count(m) AS n"),
})

_NEIGHBOUR_RETURN = "a.id AS source, b.id AS target, label(r) AS rel_type, {rel_return}"
_NEIGHBOUR_RETURN_NEO4J = _NEIGHBOUR_RETURN.replace("label(r)", "type(r)")
#: One-hop neighbourhood reads of a domain node (graph explorer, :mod:`engram_kit.exploration`), with
#: edge provenance (every rel property of the schema). ``$id`` is the node id, ``$limit`` the most edges per
#: direction. Negated assertions (KGX ``negated = true``) are included: the explorer shows them as negated.
EXPLORATION_STATEMENTS: dict[str, dict[str, str]] = {
    "neighbours_out": {
        "ladybug": "MATCH (a)-[r:{domain_rels}]->(b) WHERE a.id = $id AND label(r) IN $rel_types RETURN "
                   + _NEIGHBOUR_RETURN + ", b.name AS neighbour_name, label(b) AS neighbour_label LIMIT $limit",
        "neo4j": "MATCH (a {id: $id})-[r:{domain_rels}]->(b) WHERE type(r) IN $rel_types RETURN "
                 + _NEIGHBOUR_RETURN_NEO4J + ", b.name AS neighbour_name, labels(b)[0] AS neighbour_label LIMIT $limit",
    },
    "neighbours_in": {
        "ladybug": "MATCH (a)-[r:{domain_rels}]->(b) WHERE b.id = $id AND label(r) IN $rel_types RETURN "
                   + _NEIGHBOUR_RETURN + ", a.name AS neighbour_name, label(a) AS neighbour_label LIMIT $limit",
        "neo4j": "MATCH (a)-[r:{domain_rels}]->(b {id: $id}) WHERE type(r) IN $rel_types RETURN "
                 + _NEIGHBOUR_RETURN_NEO4J + ", a.name AS neighbour_name, labels(a)[0] AS neighbour_label LIMIT $limit",
    },
}
STATEMENTS.update(EXPLORATION_STATEMENTS)

_EDGE_ROW = ("s.name AS subject, s.id AS subject_id, label(s) AS subject_label, label(r) AS rel_type, {rel_return}, "
             "t.name AS object, t.id AS object_id, label(t) AS object_label")
_EDGE_ROW_NEO4J = (_EDGE_ROW.replace("label(s)", "labels(s)[0]").replace("label(r)", "type(r)")
                   .replace("label(t)", "labels(t)[0]"))
#: Negated assertions (KGX ``negated = true``) only when ``$include_negated`` is true; Hetionet has none.
_EDGE_FILTER = "($include_negated OR {not_negated})"


def _edge_statement(pattern: str, anchor: str, order: str) -> dict[str, str]:
    """Both dialects of one edge listing: ``pattern`` binds ``s -[r]-> t`` (subject -> object as stored)."""
    where = f" WHERE {anchor}.id IN $ids AND {_EDGE_FILTER} RETURN "
    tail = f" ORDER BY {order} LIMIT $limit"
    return {"ladybug": f"MATCH {pattern}{where}{_EDGE_ROW}{tail}",
            "neo4j": f"MATCH {pattern}{where}{_EDGE_ROW_NEO4J}{tail}"}


#: Edges of given entities with what each asserts and who says so (evidence desk templates, phenotype agent):
#: one row per edge, ``subject, subject_id, subject_label, rel_type``, every rel property of the schema (KGX:
#: ``edge_id, predicate, negated, ..., primary_knowledge_source, publications, qualifiers, ...``; Hetionet:
#: ``sources, license, unbiased, pubmed_ids``), then ``object, object_id, object_label``. The stored
#: direction is kept (subject -> object), so ``_out`` lists edges whose subject is in ``$ids`` and ``_in``
#: those whose object is; ``{label}`` restricts the other end's label. ``$include_negated`` (bool) adds
#: negated assertions (their ``negated`` column says so); ``$limit`` caps the rows.
ENTITY_EDGE_STATEMENTS: dict[str, dict[str, str]] = {
    "entity_edges_out": _edge_statement("(s)-[r:{domain_rels}]->(t)", "s", "subject_id, rel_type, object, object_id"),
    "entity_edges_in": _edge_statement("(s)-[r:{domain_rels}]->(t)", "t", "object_id, rel_type, subject, subject_id"),
    "entity_edges_out_to": _edge_statement("(s)-[r:{domain_rels}]->(t:{label})", "s",
                                           "subject_id, rel_type, object, object_id"),
    "entity_edges_in_from": _edge_statement("(s:{label})-[r:{domain_rels}]->(t)", "t",
                                            "object_id, rel_type, subject, subject_id"),
}
STATEMENTS.update(ENTITY_EDGE_STATEMENTS)


#: Placeholders :func:`statement` fills from the graph schema itself (never from caller input).
AUTO_PLACEHOLDERS: tuple[str, ...] = ("domain_rels", "retrieval_rels", "rel_return", "not_negated", "node_set",
                                      "rel_set", "node_return")


def schema_identifiers(schema: GraphSchema | None = None) -> frozenset[str]:
    """Labels and relationship types that may be interpolated into a statement for ``schema``
    (default Hetionet): the domain layer's, the literature layer's and :data:`META_LABEL`."""
    if schema is None or schema is HETIONET_SCHEMA:
        return SCHEMA_IDENTIFIERS
    return frozenset(schema.labels + schema.rel_types + LITERATURE_LABELS + LITERATURE_REL_TYPES + (META_LABEL,))


def _auto_values(schema: GraphSchema) -> dict[str, str]:
    """Text of the :data:`AUTO_PLACEHOLDERS` for ``schema`` (names already checked by GraphSchema)."""
    negation = schema.negation_property
    return {
        "domain_rels": "|".join(schema.rel_types),
        "retrieval_rels": "|".join(schema.rel_types + ("MENTIONS", "MAPS_TO", "SAME_AS")),
        "rel_return": ", ".join(f"r.{prop} AS {prop}" for prop in schema.rel_properties),
        "node_return": ", ".join(f"n.{prop} AS {prop}" for prop in schema.node_properties),
        # Negated assertions (Biolink ``negated``) never carry PPR relevance; literature edges have no such
        # property, hence the IS NULL.
        "not_negated": f"(r.{negation} IS NULL OR r.{negation} = false)" if negation else "true",
        "node_set": _set_clause("n", schema.node_properties),
        "rel_set": _set_clause("r", schema.rel_properties, skip=()),
    }


def statement(name: str, dialect: str, *, schema: GraphSchema | None = None, **identifiers: str) -> str:
    """Return the text of a registered statement, with schema identifiers filled in.

    Parameters
    ----------
    name : str
        Key of :data:`STATEMENTS`, e.g. ``"merge_nounphrases"``.
    dialect : str
        One of :data:`DIALECTS`.
    schema : GraphSchema, optional
        The store's domain layer (default Hetionet v1.0). It fills the :data:`AUTO_PLACEHOLDERS`
        (``{domain_rels}``: the union of its relationship types; ``{rel_return}``: its edge properties) and
        bounds which identifiers are accepted.
    **identifiers : str
        Values for ``{label}`` / ``{rel_type}`` placeholders. Each must be a label or relationship type of
        ``schema`` or the literature layer (:func:`schema_identifiers`); data values go in query parameters.

    Returns
    -------
    str
        The Cypher text, ready to run with its parameters.

    Raises
    ------
    QueryError
        If the statement name is unknown, or has no text for this dialect yet.
    DataError
        If an identifier is not part of the schema.

    Examples
    --------
    >>> statement("count_nodes", "ladybug", label="Gene")
    'MATCH (n:Gene) RETURN count(n) AS n'
    """
    by_dialect = STATEMENTS.get(name) or NEO4J_ONLY_STATEMENTS.get(name)
    if by_dialect is None:
        raise QueryError(f"Unknown Cypher statement {name!r}; registered names: "
                         f"{', '.join(sorted([*STATEMENTS, *NEO4J_ONLY_STATEMENTS]))}.")
    text = by_dialect.get(dialect)
    if text is None:
        raise QueryError(
            f"Cypher statement {name!r} has no {dialect!r} version yet (has: {', '.join(sorted(by_dialect))}); "
            f"add it to engram_kit.store.cypher.STATEMENTS."
        )
    schema = schema or HETIONET_SCHEMA
    allowed = schema_identifiers(schema)
    for key, value in identifiers.items():
        if key in AUTO_PLACEHOLDERS or value not in allowed:
            raise DataError(
                f"{key}={value!r} is not a label or relationship type of the {schema.name} schema; only schema "
                f"identifiers may be interpolated into Cypher (pass data values as parameters)."
            )
        placeholder = "{" + key + "}"
        if placeholder not in text:
            raise QueryError(f"Cypher statement {name!r} has no {placeholder} placeholder to fill.")
        text = text.replace(placeholder, value)
    for key, value in _auto_values(schema).items():
        text = text.replace("{" + key + "}", value)
    return text


# --- DDL builders ------------------------------------------------------------------------------------
def _check_dialect(dialect: str) -> None:
    if dialect not in DIALECTS:
        raise QueryError(f"Unknown Cypher dialect {dialect!r}; use one of {', '.join(DIALECTS)}.")


def _property_list(properties: dict[str, str], *, primary_key: str | None = None) -> str:
    parts = []
    for prop, type_ in properties.items():
        suffix = " PRIMARY KEY" if prop == primary_key else ""
        parts.append(f"{prop} {type_}{suffix}")
    return ", ".join(parts)


def node_table_ddl(label: str, properties: dict[str, str], dialect: str = "ladybug", *,
                   schema: GraphSchema | None = None) -> str:
    """DDL creating one node table (LadybugDB) or the ``id`` uniqueness constraint (Neo4j); idempotent.

    Parameters
    ----------
    label : str
        A schema label (:data:`SCHEMA_IDENTIFIERS`).
    properties : dict
        Property name -> LadybugDB type; must contain ``id`` (the primary key).
    dialect : str
        ``"ladybug"`` or ``"neo4j"``.

    Raises
    ------
    DataError
        If the label is not a schema label or ``id`` is missing.
    """
    _check_dialect(dialect)
    if label not in schema_identifiers(schema):
        raise DataError(f"Label {label!r} is not part of the engram-kit schema.")
    if label == META_LABEL:  # keyed by ``key``, not ``id``
        if dialect == "neo4j":
            return f"CREATE CONSTRAINT engram_meta_key IF NOT EXISTS FOR (n:{label}) REQUIRE n.key IS UNIQUE"
        return f"CREATE NODE TABLE IF NOT EXISTS {label}({_property_list(properties, primary_key='key')})"
    if "id" not in properties:
        raise DataError(f"Node table {label!r} needs an 'id' property (its primary key).")
    if dialect == "neo4j":
        return (f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS "
                f"FOR (n:{label}) REQUIRE n.id IS UNIQUE")
    return f"CREATE NODE TABLE IF NOT EXISTS {label}({_property_list(properties, primary_key='id')})"


def rel_table_ddl(rel_type: str, endpoints: tuple[tuple[str, str], ...], properties: dict[str, str],
                  dialect: str = "ladybug", *, schema: GraphSchema | None = None) -> str | None:
    """DDL creating one relationship table (LadybugDB); ``None`` for Neo4j (no rel schema there).

    Parameters
    ----------
    rel_type : str
        A schema relationship type.
    endpoints : tuple of (from_label, to_label)
        One pair per allowed endpoint combination; several give a multi-endpoint rel table
        (``CREATE REL TABLE MENTIONS(FROM Passage TO NounPhrase, FROM Section TO NounPhrase, ...)``).
    properties : dict
        Property name -> LadybugDB type.
    """
    _check_dialect(dialect)
    if rel_type not in schema_identifiers(schema):
        raise DataError(f"Relationship type {rel_type!r} is not part of the engram-kit schema.")
    if dialect == "neo4j":
        return None
    pairs = ", ".join(f"FROM {src} TO {dst}" for src, dst in endpoints)
    props = _property_list(properties)
    body = f"{pairs}, {props}" if props else pairs
    return f"CREATE REL TABLE IF NOT EXISTS {rel_type}({body})"


def schema_statements(dialect: str = "ladybug", schema: GraphSchema | None = None) -> list[str]:
    """All DDL of the engram-kit graph model, in dependency order (node tables before rel tables).

    Parameters
    ----------
    dialect : ``"ladybug"`` or ``"neo4j"``.
    schema : the domain layer (default Hetionet v1.0); a KGX graph passes the schema derived from its data.

    Returns
    -------
    list of str
        For Hetionet on LadybugDB: 11 domain node tables, 4 literature node tables, the metadata table, 24
        metaedge rel tables and 5 literature rel tables (45 statements); for Neo4j the uniqueness
        constraints only (16 statements). ``MAPS_TO`` may point at every domain label of ``schema``.
    """
    _check_dialect(dialect)
    schema = schema or HETIONET_SCHEMA
    out = [node_table_ddl(label, schema.node_properties, dialect, schema=schema) for label in schema.labels]
    out += [node_table_ddl(label, props, dialect, schema=schema) for label, props in LITERATURE_NODE_PROPERTIES.items()]
    out.append(node_table_ddl(META_LABEL, META_PROPERTIES, dialect, schema=schema))
    rels: list[str | None] = [rel_table_ddl(spec.rel_type, spec.pairs, schema.rel_properties, dialect, schema=schema)
                              for spec in schema.rel_specs]
    literature = {**LITERATURE_REL_TABLES,
                  "MAPS_TO": (tuple(("NounPhrase", label) for label in schema.labels), LITERATURE_REL_TABLES["MAPS_TO"][1])}
    rels += [rel_table_ddl(rel, ends, props, dialect, schema=schema) for rel, (ends, props) in literature.items()]
    out += [text for text in rels if text is not None]
    return out


def neo4j_index_statements(schema: GraphSchema | None = None) -> list[str]:
    """Neo4j range indexes beside the uniqueness constraints of :func:`schema_statements`; idempotent.

    Returns
    -------
    list of str
        ``name`` indexes on the 11 domain labels and NounPhrase (entity lookup by name, evidence queries),
        ``article_id`` indexes on Section and Passage (the delete/reprocess statements filter on it) and
        ``source``/``pmid`` indexes on Article: 16 statements.
    """
    out = [f"CREATE INDEX {label.lower()}_name IF NOT EXISTS FOR (n:{label}) ON (n.name)"
           for label in (*(schema or HETIONET_SCHEMA).labels, "NounPhrase")]
    out += [f"CREATE INDEX {label.lower()}_article_id IF NOT EXISTS FOR (n:{label}) ON (n.article_id)"
            for label in ("Section", "Passage")]
    out += [f"CREATE INDEX article_{prop} IF NOT EXISTS FOR (n:Article) ON (n.{prop})" for prop in ("source", "pmid")]
    return out


# --- static validation (scripts/lint_cypher.mjs) -------------------------------------------------------
#: Every query parameter a Neo4j statement may use, with an example value (its type is what the linter
#: checks). A statement using a parameter missing here fails ``tests/test_cypher_lint.py``.
NEO4J_PARAMETERS: dict[str, object] = {
    "key": "", "value": "", "rel_types": [],
    "rows": [], "ids": [], "article_ids": [], "article_id": "", "id": "", "status": "", "error": "", "source": "",
    "graph_name": "engram_retrieval", "seeds": [], "damping_factor": 0.5, "tolerance": 1e-9,
    "max_iterations": 100, "node_projection": [], "relationship_projection": {}, "limit": 300,
    "include_negated": False,
}
#: Keys of the maps in list parameters (``$rows``, ``$seeds``): the linter sees ``row.source_id`` as a
#: property access, so these are declared beside the graph's property keys.
NEO4J_ROW_KEYS: tuple[str, ...] = ("source", "target", "source_id", "nounphrase_id", "entity_id", "hub_id",
                                   "element_id")
#: Built-in Cypher functions the Neo4j statements call (anything else is flagged by the linter).
NEO4J_BUILTIN_FUNCTIONS: tuple[str, ...] = ("count", "toFloat", "labels", "type", "elementId", "collect")
#: Graph Data Science routines the Neo4j backend calls, with their GDS 2.x signatures (GDS manual,
#: "Operations reference"). ``kind`` is ``procedure`` or ``function``.
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

def _expansions(text: str, schema: GraphSchema | None = None) -> list[dict[str, str]]:
    """Every schema identifier assignment of a statement's placeholders (one empty dict if it has none).

    ``{rel_type}`` with one or two label placeholders (``{label}``/``{other_label}``,
    ``{source_label}``/``{target_label}``) is expanded per Hetionet metaedge, labels in order of appearance
    taking its source and target labels; ``{rel_type}`` alone over every relationship type; one label
    placeholder alone over every label.

    Raises
    ------
    QueryError
        For a placeholder this expansion does not know (extend it with the new placeholder's values).
    """
    schema = schema or HETIONET_SCHEMA
    names = [n for n in dict.fromkeys(re.findall(r"\{(\w+)\}", text)) if n not in AUTO_PLACEHOLDERS]
    labels = [n for n in names if n.endswith("label")]
    unknown = [n for n in names if n != "rel_type" and n not in labels]
    if unknown or len(labels) > 2:
        raise QueryError(f"Statement placeholders {names} are not known to engram_kit.store.cypher._expansions; "
                         f"teach it their values so the statement can be linted.")
    if "rel_type" in names and labels:
        return [{"rel_type": spec.rel_type, **dict(zip(labels, pair))} for spec in schema.rel_specs for pair in spec.pairs]
    if "rel_type" in names:
        return [{"rel_type": rel} for rel in schema.rel_types + LITERATURE_REL_TYPES]
    if labels:
        return [{labels[0]: label} for label in schema.labels + LITERATURE_LABELS]
    return [{}]


def dialect_statements(dialect: str, schema: GraphSchema | None = None) -> list[dict[str, str]]:
    """Every Cypher text a backend of ``dialect`` can send, placeholders filled with each schema identifier.

    Returns
    -------
    list of dict
        ``{"name", "text"}``: registry statements (and, for ``"neo4j"``, the Neo4j-only and GDS ones)
        expanded over the labels/relationship types they may take, then the schema DDL. Names carry the
        identifiers, e.g. ``"count_nodes[label=Gene]"`` or ``"ddl[3]"``.
    """
    _check_dialect(dialect)
    registry = {**STATEMENTS, **(NEO4J_ONLY_STATEMENTS if dialect == "neo4j" else {})}
    out: list[dict[str, str]] = []
    for name, by_dialect in registry.items():
        if dialect not in by_dialect:
            continue
        for identifiers in _expansions(by_dialect[dialect], schema):
            suffix = ",".join(f"{k}={v}" for k, v in identifiers.items())
            out.append({"name": f"{name}[{suffix}]" if suffix else name,
                        "text": statement(name, dialect, schema=schema, **identifiers)})
    ddl = schema_statements(dialect, schema) + (neo4j_index_statements(schema) if dialect == "neo4j" else [])
    out += [{"name": f"ddl[{i}]", "text": text} for i, text in enumerate(ddl)]
    return out


def lint_payload(dialect: str = "neo4j", schema: GraphSchema | None = None) -> dict[str, object]:
    """What ``scripts/lint_cypher.mjs`` checks: the statements and the database schema they run against, for the
    domain layer ``schema`` (default Hetionet; a KGX graph's schema lints the statements a KGX workspace sends).

    Returns
    -------
    dict
        ``statements`` (see :func:`dialect_statements`) and ``schema``: ``labels``, ``relationshipTypes``,
        ``propertyKeys``, ``parameters`` (:data:`NEO4J_PARAMETERS`), ``functions``
        (:data:`NEO4J_BUILTIN_FUNCTIONS`) and ``routines`` (:data:`GDS_ROUTINES`).
    """
    schema = schema or HETIONET_SCHEMA
    properties = (set(schema.node_properties) | set(schema.rel_properties) | {"weight"} | set(NEO4J_ROW_KEYS)
                  | set(META_PROPERTIES))
    for props in LITERATURE_NODE_PROPERTIES.values():
        properties |= set(props)
    for _, rel_props in LITERATURE_REL_TABLES.values():
        properties |= set(rel_props)
    return {
        "dialect": dialect,
        "statements": dialect_statements(dialect, schema),
        "schema": {
            "labels": list(schema.labels + LITERATURE_LABELS + (META_LABEL,)),
            "relationshipTypes": list(schema.rel_types + LITERATURE_REL_TYPES),
            "propertyKeys": sorted(properties),
            "parameters": NEO4J_PARAMETERS,
            "functions": list(NEO4J_BUILTIN_FUNCTIONS),
            "routines": [dict(r) for r in GDS_ROUTINES],
        },
    }


def _main(argv: list[str] | None = None) -> int:
    """``python -m engram_kit.store.cypher --dump neo4j``: print :func:`lint_payload` as JSON."""
    import argparse
    import json
    import sys

    parser = argparse.ArgumentParser(prog="python -m engram_kit.store.cypher",
                                     description="Dump every Cypher statement of a dialect, with its schema, as JSON.")
    parser.add_argument("--dump", choices=DIALECTS, required=True, help="dialect to dump")
    args = parser.parse_args(argv)
    json.dump(lint_payload(args.dump), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(_main())
