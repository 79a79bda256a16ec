"""The LadybugDB statement pack: every Cypher text :class:`~engram_kit.store.ladybug.LadybugStore` sends.

LadybugDB 0.22 (the maintained fork of Kuzu): typed node/rel tables, ``COPY ... FROM $frame`` from a pandas
DataFrame, multi-endpoint rel tables (``FROM Passage TO NounPhrase, FROM Section TO ...``), ``label(x)`` for both
a node's label and a relationship's type, ``string_split``, ``list_slice``. ``index`` is a reserved word, so the
record field ``index`` of sections and passages is stored as the property ``idx`` (stores rename it back on read).

After ``UNWIND``, two node lookups must be two ``MATCH`` clauses (``MATCH (a {id: row.x}) MATCH (b {id: row.y})``);
the comma form ``MATCH (a ...), (b ...)`` is planned as a cross product of both tables and was 60x slower (2.5 s vs
0.04 s for 2,000 rows).
"""

from __future__ import annotations

from engram_kit.store.cypher import LITERATURE_NODE_PROPERTIES, create_map, frame_map
from engram_kit.store.statements import StatementPack
from engram_kit.store.statements.portable import PORTABLE_STATEMENTS, edge_row, entity_edge_statements

_NEIGHBOUR_RETURN = "a.id AS source, b.id AS target, label(r) AS rel_type, {rel_return}"

#: Statement name -> LadybugDB text (the portable ones plus these).
STATEMENTS: dict[str, str] = {
    **PORTABLE_STATEMENTS,
    # --- bulk load ---------------------------------------------------------------------------------
    # The frame's columns must be the table's properties, in table order.
    "copy_node_table": "COPY {label} FROM $frame",
    # A rel table connecting several label pairs (a Biolink predicate) is copied one pair at a time.
    "copy_rel_table_pair": "COPY {rel_type} FROM $frame (from='{source_label}', to='{target_label}')",
    # The frame's columns: from id, to id, then the rel properties in table order.
    "copy_rel_table": "COPY {rel_type} FROM $frame",
    # --- literature writes -------------------------------------------------------------------------
    # Orphan: a NounPhrase nothing mentions and no alias points to (hubs of SAME_AS are kept).
    "delete_orphan_nounphrases": "MATCH (n:NounPhrase) WHERE n.id IN $ids "
                                 "AND NOT EXISTS { MATCH (n)<-[:MENTIONS]-() } "
                                 "AND NOT EXISTS { MATCH (n)<-[:SAME_AS]-() } "
                                 "DETACH DELETE n RETURN count(*) AS n",
    "create_articles": "UNWIND $rows AS row CREATE (a:Article "
                       + create_map(LITERATURE_NODE_PROPERTIES["Article"]) + ") RETURN count(a) AS n",
    "create_sections": "UNWIND $rows AS row MATCH (a:Article {id: row.article_id}) "
                       "CREATE (a)-[:HAS_SECTION]->(s:Section "
                       + create_map(LITERATURE_NODE_PROPERTIES["Section"]) + ") RETURN count(s) AS n",
    "create_passages": "UNWIND $rows AS row MATCH (s:Section {id: row.section_id}) "
                       "CREATE (s)-[:CONTAINS]->(p:Passage "
                       + create_map(LITERATURE_NODE_PROPERTIES["Passage"]) + ") RETURN count(p) AS n",
    # Forms of the literature writes that scan an Arrow table (``LOAD FROM $frame``) instead of a list of maps
    # (``UNWIND $rows``): same clauses, same count, the frame's columns are the row keys (see FRAME_STATEMENTS).
    # ``load_create_mentions``/``load_create_maps_to`` CREATE the edge where it cannot exist yet (its source, or
    # its NounPhrase, is new in the batch); the ``load_merge_*`` forms keep MERGE semantics.
    # Index lookups (``WHERE a.id IN $ids`` scans the table): how many of the frame's ids are stored.
    "load_count_articles": "LOAD FROM $frame MATCH (a:Article {id: id}) RETURN count(a) AS n",
    # The stored MAPS_TO edges of the frame's NounPhrase ids.
    "load_nounphrase_links": "LOAD FROM $frame MATCH (n:NounPhrase {id: id})-[r:MAPS_TO]->(e) "
                             "RETURN n.id AS nounphrase_id, e.id AS entity_id, r.confidence AS confidence, "
                             "r.method AS method",
    # New confidence/method on stored MAPS_TO edges, every entity label at once (the NounPhrase's few MAPS_TO edges
    # are expanded and filtered on the entity id).
    "load_update_maps_to": "LOAD FROM $frame MATCH (n:NounPhrase {id: nounphrase_id})-[r:MAPS_TO]->(e) "
                           "WHERE e.id = entity_id SET r.confidence = confidence, r.method = method "
                           "RETURN count(r) AS n",
    "load_articles": "LOAD FROM $frame CREATE (a:Article " + frame_map(LITERATURE_NODE_PROPERTIES["Article"])
                     + ") RETURN count(a) AS n",
    "load_sections": "LOAD FROM $frame MATCH (a:Article {id: article_id}) CREATE (a)-[:HAS_SECTION]->(s:Section "
                     + frame_map(LITERATURE_NODE_PROPERTIES["Section"]) + ") RETURN count(s) AS n",
    "load_passages": "LOAD FROM $frame MATCH (s:Section {id: section_id}) CREATE (s)-[:CONTAINS]->(p:Passage "
                     + frame_map(LITERATURE_NODE_PROPERTIES["Passage"]) + ") RETURN count(p) AS n",
    "load_merge_nounphrases": "LOAD FROM $frame MERGE (n:NounPhrase {id: id}) ON CREATE SET n.name = name, "
                              "n.normalized = normalized, n.entity_type = entity_type RETURN count(n) AS n",
    "load_merge_mentions": "LOAD FROM $frame MATCH (x:{label} {id: source_id}) "
                           "MATCH (n:NounPhrase {id: nounphrase_id}) "
                           "MERGE (x)-[r:MENTIONS]->(n) SET r.count = count RETURN count(r) AS n",
    "load_create_mentions": "LOAD FROM $frame MATCH (x:{label} {id: source_id}) "
                            "MATCH (n:NounPhrase {id: nounphrase_id}) "
                            "CREATE (x)-[r:MENTIONS {count: count}]->(n) RETURN count(r) AS n",
    "load_merge_maps_to": "LOAD FROM $frame MATCH (n:NounPhrase {id: nounphrase_id}) "
                          "MATCH (e:{label} {id: entity_id}) "
                          "MERGE (n)-[r:MAPS_TO]->(e) SET r.confidence = confidence, r.method = method "
                          "RETURN count(r) AS n",
    "load_create_maps_to": "LOAD FROM $frame MATCH (n:NounPhrase {id: nounphrase_id}) "
                           "MATCH (e:{label} {id: entity_id}) "
                           "CREATE (n)-[r:MAPS_TO {confidence: confidence, method: method}]->(e) RETURN count(r) AS n",
    # --- reads -------------------------------------------------------------------------------------
    "passage_mention_edges": "MATCH (p:Passage)-[r:MENTIONS]->(n:NounPhrase) "
                             "RETURN p.id AS source, n.id AS target, CAST(r.count AS DOUBLE) AS weight",
    "passage_mentions": "MATCH (p:Passage)-[m:MENTIONS]->(n:NounPhrase) WHERE p.id IN $ids "
                        "OPTIONAL MATCH (n)-[r:MAPS_TO]->(e) "
                        "RETURN p.id AS passage_id, n.id AS nounphrase_id, n.name AS mention, e.id AS entity_id, "
                        "e.name AS entity_name, label(e) AS entity_label, r.confidence AS confidence, "
                        "r.method AS method",
    # One query over the schema's domain rel tables; both endpoints filtered by the same id list. Every rel
    # property comes back ({rel_return}: predicate, negated, sources, publications, qualifiers...) so the meaning of
    # an edge travels with it; the store drops negated assertions unless asked to keep them.
    "edges_among": "MATCH (a)-[r:{domain_rels}]->(b) WHERE a.id IN $ids AND b.id IN $ids "
                   "RETURN a.id AS source, b.id AS target, label(r) AS rel_type, {rel_return}",
    # One-hop neighbourhood reads of a domain node (graph explorer, engram_kit.exploration), with edge provenance:
    # ``$id`` the node id, ``$limit`` the most edges per direction; negated assertions included (shown as negated).
    "neighbours_out": "MATCH (a)-[r:{domain_rels}]->(b) WHERE a.id = $id AND label(r) IN $rel_types RETURN "
                      + _NEIGHBOUR_RETURN + ", b.name AS neighbour_name, label(b) AS neighbour_label LIMIT $limit",
    "neighbours_in": "MATCH (a)-[r:{domain_rels}]->(b) WHERE b.id = $id AND label(r) IN $rel_types RETURN "
                     + _NEIGHBOUR_RETURN + ", a.name AS neighbour_name, label(a) AS neighbour_label LIMIT $limit",
    **entity_edge_statements(edge_row("label(r)", "label(s)", "label(t)")),
}

#: Columns (row keys) of the MENTIONS and MAPS_TO ``LOAD FROM $frame`` statements -> LadybugDB type.
MENTION_FRAME_COLUMNS: dict[str, str] = {"source_id": "STRING", "nounphrase_id": "STRING", "count": "INT64"}
MAPS_TO_FRAME_COLUMNS: dict[str, str] = {"nounphrase_id": "STRING", "entity_id": "STRING", "confidence": "DOUBLE",
                                         "method": "STRING"}
#: ``UNWIND $rows`` literature write -> (its ``LOAD FROM $frame`` form, the frame's columns and their types).
#: The LadybugDB store runs the form on an Arrow table of the rows: the engine scans typed columns instead of a list
#: of maps, and ladybug's Python wrapper does not walk every value to type the parameter.
#: (``load_create_mentions``/``load_create_maps_to`` have no UNWIND original: the store picks them itself for edges
#: that cannot exist yet.)
FRAME_STATEMENTS: dict[str, tuple[str, dict[str, str]]] = {
    "create_articles": ("load_articles", LITERATURE_NODE_PROPERTIES["Article"]),
    "create_sections": ("load_sections", LITERATURE_NODE_PROPERTIES["Section"]),
    "create_passages": ("load_passages", LITERATURE_NODE_PROPERTIES["Passage"]),
    "merge_nounphrases": ("load_merge_nounphrases", LITERATURE_NODE_PROPERTIES["NounPhrase"]),
    "merge_mentions": ("load_merge_mentions", MENTION_FRAME_COLUMNS),
    "merge_maps_to": ("load_merge_maps_to", MAPS_TO_FRAME_COLUMNS),
}

#: Fragments of the evidence desk and the answer layer (:data:`engram_kit.store.statements.FRAGMENTS`).
FRAGMENTS: dict[str, str] = {
    "split_count": "CASE WHEN {expr} IS NULL OR {expr} = '' THEN 0 ELSE size(string_split({expr}, '|')) END",
    "first_distinct": "list_slice(collect(DISTINCT {expr}), 0, {n})",
    "rel_type": "label({rel})",
    "node_label": "label({node})",
}


def _property_list(properties: dict[str, str], *, primary_key: str | None = None) -> str:
    return ", ".join(f"{prop} {type_}{' PRIMARY KEY' if prop == primary_key else ''}"
                     for prop, type_ in properties.items())


class LadybugStatements(StatementPack):
    """LadybugDB's pack: typed tables (``CREATE NODE TABLE``/``CREATE REL TABLE``, ``IF NOT EXISTS``)."""

    def create_node_table(self, label: str, properties: dict[str, str], primary_key: str) -> str:
        return f"CREATE NODE TABLE IF NOT EXISTS {label}({_property_list(properties, primary_key=primary_key)})"

    def create_rel_table(self, rel_type: str, endpoints: tuple[tuple[str, str], ...],
                         properties: dict[str, str]) -> str | None:
        pairs = ", ".join(f"FROM {src} TO {dst}" for src, dst in endpoints)
        props = _property_list(properties)
        return f"CREATE REL TABLE IF NOT EXISTS {rel_type}({pairs}, {props})" if props else \
            f"CREATE REL TABLE IF NOT EXISTS {rel_type}({pairs})"


#: The pack :class:`~engram_kit.store.ladybug.LadybugStore` sends.
LADYBUG_STATEMENTS = LadybugStatements(
    "ladybug", STATEMENTS, fragments=FRAGMENTS,
    prompt_note="the LadybugDB dialect (Neo4j-like; typed relationship tables; use label(n) instead of labels(n))",
    description="LadybugDB 0.22 (embedded; the maintained fork of Kuzu)")
#: The name :func:`engram_kit.store.statements.pack_named` looks up.
PACK = LADYBUG_STATEMENTS
