"""Portable Cypher: the statements whose text is the same on every engine engram-kit ships a pack for.

A pack starts from :data:`PORTABLE_STATEMENTS` and adds (or replaces) its own forms; ``{label}``/``{rel_type}``
placeholders take schema identifiers only, the ``{domain_rels}``-style ones are filled from the graph schema
(:data:`engram_kit.store.cypher.AUTO_PLACEHOLDERS`). Values are always query parameters (``$rows``, ``$ids``).
"""

from __future__ import annotations

from engram_kit.store.cypher import (
    ARTICLE_RETURN,
    LITERATURE_NODE_PROPERTIES,
    NOUNPHRASE_RETURN,
    PASSAGE_RETURN,
    SECTION_RETURN,
)

#: Statement name -> text, shared by the LadybugDB and Neo4j packs.
PORTABLE_STATEMENTS: dict[str, str] = {
    # --- counts ------------------------------------------------------------------------------------
    "count_nodes": "MATCH (n:{label}) RETURN count(n) AS n",
    "count_rels": "MATCH ()-[r:{rel_type}]->() RETURN count(r) AS n",
    # --- literature writes -------------------------------------------------------------------------
    "nounphrases_mentioned_by_passages": "MATCH (p:Passage)-[:MENTIONS]->(n:NounPhrase) "
                                         "WHERE p.article_id IN $article_ids RETURN DISTINCT n.id AS id",
    "nounphrases_mentioned_by_sections": "MATCH (s:Section)-[:MENTIONS]->(n:NounPhrase) "
                                         "WHERE s.article_id IN $article_ids RETURN DISTINCT n.id AS id",
    "nounphrases_mentioned_by_articles": "MATCH (a:Article)-[:MENTIONS]->(n:NounPhrase) WHERE a.id IN $article_ids "
                                         "RETURN DISTINCT n.id AS id",
    "delete_passages_of_articles": "MATCH (p:Passage) WHERE p.article_id IN $article_ids DETACH DELETE p",
    "count_passages_of_articles": "MATCH (p:Passage) WHERE p.article_id IN $article_ids RETURN count(p) AS n",
    "delete_sections_of_articles": "MATCH (s:Section) WHERE s.article_id IN $article_ids DETACH DELETE s",
    # The replace-on-rewrite check of a literature write: are any of the batch's articles stored?
    "count_articles_by_id": "MATCH (a:Article) WHERE a.id IN $ids RETURN count(a) AS n",
    "delete_articles": "MATCH (a:Article) WHERE a.id IN $article_ids DETACH DELETE a",
    "merge_nounphrases": "UNWIND $rows AS row MERGE (n:NounPhrase {id: row.id}) "
                         "ON CREATE SET n.name = row.name, n.normalized = row.normalized, "
                         "n.entity_type = row.entity_type RETURN count(n) AS n",
    # {label}: Passage, Section or Article.
    "merge_mentions": "UNWIND $rows AS row MATCH (x:{label} {id: row.source_id}) "
                      "MATCH (n:NounPhrase {id: row.nounphrase_id}) MERGE (x)-[r:MENTIONS]->(n) "
                      "SET r.count = row.count RETURN count(r) AS n",
    # {label}: the domain label of the entity (one statement per label keeps lookups on one table).
    "merge_maps_to": "UNWIND $rows AS row MATCH (n:NounPhrase {id: row.nounphrase_id}) "
                     "MATCH (e:{label} {id: row.entity_id}) MERGE (n)-[r:MAPS_TO]->(e) "
                     "SET r.confidence = row.confidence, r.method = row.method RETURN count(r) AS n",
    "merge_same_as": "UNWIND $rows AS row MATCH (n:NounPhrase {id: row.nounphrase_id}) "
                     "MATCH (h:NounPhrase {id: row.hub_id}) MERGE (n)-[r:SAME_AS]->(h) RETURN count(r) AS n",
    "set_article_status": "MATCH (a:Article {id: $id}) SET a.status = $status, a.error = $error RETURN count(a) AS n",
    # The commit point of an ingest batch (engram_kit.ingestion.pipeline.mark_complete): its articles complete.
    "mark_articles_complete": "UNWIND $ids AS i MATCH (a:Article {id: i}) SET a.status = 'complete' "
                              "RETURN count(a) AS n",
    # Passage ids, their article and the article's status and source (engram_kit.ingestion.consistency).
    "passages_with_status": "MATCH (a:Article) OPTIONAL MATCH (p:Passage) WHERE p.article_id = a.id "
                            "RETURN a.id AS article_id, a.status AS status, a.source AS source, p.id AS passage_id",
    # --- reads -------------------------------------------------------------------------------------
    # {label}: one domain label or NounPhrase.
    "nodes_by_id": "MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, n.name AS name",
    "node_ids": "MATCH (n:{label}) RETURN n.id AS id ORDER BY id",
    # All edges of one rel table (used to build the in-memory CSR graph).
    "rel_endpoints": "MATCH (a)-[r:{rel_type}]->(b) RETURN a.id AS source, b.id AS target",
    # The same without negated assertions (KGX ``negated = true``): what PPR and agents traverse.
    "rel_endpoints_asserted": "MATCH (a)-[r:{rel_type}]->(b) WHERE {not_negated} RETURN a.id AS source, b.id AS target",
    "passages_by_id": f"MATCH (p:Passage) WHERE p.id IN $ids RETURN {PASSAGE_RETURN}",
    "articles_all": "MATCH (a:Article) OPTIONAL MATCH (a)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                    f"RETURN {ARTICLE_RETURN}, count(p) AS passages ORDER BY id",
    "articles_by_source": "MATCH (a:Article) WHERE a.source = $source "
                          "OPTIONAL MATCH (a)-[:HAS_SECTION]->(:Section)-[:CONTAINS]->(p:Passage) "
                          f"RETURN {ARTICLE_RETURN}, count(p) AS passages ORDER BY id",
    "maps_to_edges": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS source, e.id AS target, "
                     "r.confidence AS weight",
    "same_as_edges": "MATCH (n:NounPhrase)-[r:SAME_AS]->(h:NounPhrase) RETURN n.id AS source, h.id AS target, "
                     "1.0 AS weight",
    # --- agents (engram_kit.agents): typed one-hop neighbourhoods ------------------------------------
    # {label} -[{rel_type}]- {other_label}, either direction; one row per (start node, neighbour).
    "agent_neighbours": "MATCH (a:{label})-[:{rel_type}]-(b:{other_label}) WHERE a.id IN $ids "
                        "RETURN a.id AS source_id, b.id AS id, b.name AS name",
    # Number of {other_label} neighbours through {rel_type} of each start node (absent when 0).
    "agent_neighbour_counts": "MATCH (a:{label})-[:{rel_type}]-(b:{other_label}) WHERE a.id IN $ids "
                              "RETURN a.id AS id, count(b) AS n",
    # --- full reads for export and migration (engram export / engram migrate) -----------------------
    "export_domain_nodes": "MATCH (n:{label}) RETURN {node_return} ORDER BY id",
    "export_domain_rels": "MATCH (a)-[r:{rel_type}]->(b) RETURN a.id AS source, b.id AS target, {rel_return}",
    "export_sections": f"MATCH (s:Section) RETURN {SECTION_RETURN} ORDER BY id",
    "export_passages": f"MATCH (p:Passage) RETURN {PASSAGE_RETURN} ORDER BY id",
    "export_nounphrases": f"MATCH (n:NounPhrase) RETURN {NOUNPHRASE_RETURN} ORDER BY id",
    # {label}: Passage, Section or Article.
    "export_mentions": "MATCH (x:{label})-[r:MENTIONS]->(n:NounPhrase) RETURN x.id AS source, n.id AS target, "
                       "r.count AS count",
    "export_maps_to": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) RETURN n.id AS source, e.id AS target, "
                      "r.confidence AS confidence, r.method AS method",
    # --- the document repository (listing, detail view, alias hubs) ----------------------------------
    "article_passages": f"MATCH (p:Passage) WHERE p.article_id = $article_id RETURN {PASSAGE_RETURN} ORDER BY idx",
    "article_sections": "MATCH (s:Section) WHERE s.article_id = $article_id RETURN "
                        + ", ".join(f"s.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Section"])
                        + " ORDER BY idx",
    # {label}: Passage or Section (both carry article_id).
    "article_mentions_from": "MATCH (x:{label})-[m:MENTIONS]->(n:NounPhrase) WHERE x.article_id IN $article_ids "
                             "RETURN x.article_id AS article_id, x.id AS source_id, n.id AS nounphrase_id, "
                             "n.name AS name, n.entity_type AS entity_type, m.count AS count",
    "article_mentions_from_articles": "MATCH (x:Article)-[m:MENTIONS]->(n:NounPhrase) WHERE x.id IN $article_ids "
                                      "RETURN x.id AS article_id, x.id AS source_id, n.id AS nounphrase_id, "
                                      "n.name AS name, n.entity_type AS entity_type, m.count AS count",
    "nounphrase_links": "MATCH (n:NounPhrase)-[r:MAPS_TO]->(e) WHERE n.id IN $ids RETURN n.id AS nounphrase_id, "
                        "n.name AS name, n.entity_type AS entity_type, e.id AS entity_id, e.name AS entity_name, "
                        "r.confidence AS confidence, r.method AS method",
    "nounphrases_linked_to": "MATCH (n:NounPhrase)-[:MAPS_TO]->(e) WHERE e.id IN $ids RETURN DISTINCT n.id AS id",
    # {label}: Passage or Section.
    "nounphrase_articles_from": "MATCH (x:{label})-[:MENTIONS]->(n:NounPhrase) WHERE n.id IN $ids "
                                "RETURN DISTINCT n.id AS nounphrase_id, x.article_id AS article_id",
    "nounphrase_articles_from_articles": "MATCH (x:Article)-[:MENTIONS]->(n:NounPhrase) WHERE n.id IN $ids "
                                         "RETURN DISTINCT n.id AS nounphrase_id, x.id AS article_id",
    "same_as_from": "MATCH (n:NounPhrase)-[:SAME_AS]->(h:NounPhrase) WHERE n.id IN $ids "
                    "RETURN n.id AS nounphrase_id, h.id AS hub_id",
    "delete_same_as_from": "MATCH (n:NounPhrase)-[r:SAME_AS]->(:NounPhrase) WHERE n.id IN $ids DELETE r",
    # --- workspace metadata (EngramMeta): the stored graph schema and anything else a store must know -------
    "read_meta": "MATCH (m:EngramMeta) RETURN m.key AS key, m.value AS value",
    "write_meta": "MERGE (m:EngramMeta {key: $key}) SET m.value = $value RETURN count(m) AS n",
}

#: Negated assertions (KGX ``negated = true``) only when ``$include_negated`` is true; Hetionet has none.
EDGE_FILTER = "($include_negated OR {not_negated})"


def edge_row(rel_type: str, subject_label: str, object_label: str) -> str:
    """The RETURN list of an ``entity_edges_*`` row, given the dialect's expressions for ``r``'s type and the
    labels of ``s`` and ``t``: ``subject, subject_id, subject_label, rel_type``, every rel property
    (``{rel_return}``), then ``object, object_id, object_label``."""
    return (f"s.name AS subject, s.id AS subject_id, {subject_label} AS subject_label, {rel_type} AS rel_type, "
            + "{rel_return}, "
            + f"t.name AS object, t.id AS object_id, {object_label} AS object_label")


def entity_edge_statements(row: str) -> dict[str, str]:
    """The four ``entity_edges_*`` listings with RETURN list ``row`` (:func:`edge_row`).

    Edges of given entities with what each asserts and who says so (evidence desk templates, phenotype agent): one
    row per edge. The stored direction is kept (subject -> object), so ``_out`` lists edges whose subject is in
    ``$ids`` and ``_in`` those whose object is; ``{label}`` restricts the other end's label.
    ``$include_negated`` (bool) adds negated assertions (their ``negated`` column says so); ``$limit`` caps the
    rows.
    """
    def listing(pattern: str, anchor: str, order: str) -> str:
        return f"MATCH {pattern} WHERE {anchor}.id IN $ids AND {EDGE_FILTER} RETURN {row} ORDER BY {order} LIMIT $limit"

    return {
        "entity_edges_out": listing("(s)-[r:{domain_rels}]->(t)", "s", "subject_id, rel_type, object, object_id"),
        "entity_edges_in": listing("(s)-[r:{domain_rels}]->(t)", "t", "object_id, rel_type, subject, subject_id"),
        "entity_edges_out_to": listing("(s)-[r:{domain_rels}]->(t:{label})", "s",
                                       "subject_id, rel_type, object, object_id"),
        "entity_edges_in_from": listing("(s:{label})-[r:{domain_rels}]->(t)", "t",
                                        "object_id, rel_type, subject, subject_id"),
    }
