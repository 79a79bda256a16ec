"""The graph model every Cypher backend shares, and the rules for putting schema identifiers into statement text.

The statements themselves live in each backend's statement pack (:mod:`engram_kit.store.statements`:
:data:`~engram_kit.store.statements.ladybug.LADYBUG_STATEMENTS`,
:data:`~engram_kit.store.statements.neo4j.NEO4J_STATEMENTS`); a store sends ``self.statements.statement(name, ...)``
and callers never write Cypher. Values are *always* passed as query parameters (``$rows``, ``$ids``); the only text
interpolated into a statement is a node label or relationship type taken from the graph schema
(:mod:`engram_kit.kg.schema` plus the literature labels below), and
:meth:`~engram_kit.store.statements.StatementPack.statement` refuses anything else, so no user-supplied string ever
reaches the query text.

This module holds what is the same on every engine: the literature layer's tables (:data:`LITERATURE_NODE_PROPERTIES`,
:data:`LITERATURE_REL_TABLES`), the metadata table, :func:`schema_identifiers`, the placeholders filled from the
schema (:data:`AUTO_PLACEHOLDERS`, :func:`auto_values`), the expansion of a statement over every identifier it may
take (:func:`expansions`, for linting) and the text helpers the packs build statements with.

Graph model
-----------
See :mod:`engram_kit.store.base`. ``index`` is a reserved word in LadybugDB's Cypher, so the record field
``index`` of sections and passages is stored as the property ``idx`` (stores rename it back on read).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engram_kit.errors import QueryError
from engram_kit.kg.schema import (
    HETIONET_NODE_PROPERTIES,
    HETIONET_REL_PROPERTIES,
    METAEDGES,
    NODE_KINDS,
    GraphSchema,
    require_schema,
)

if TYPE_CHECKING:
    pass


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


#: RETURN lists of every literature property (``p.id AS id, ...``), by node variable.
PASSAGE_RETURN = ", ".join(f"p.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Passage"])
ARTICLE_RETURN = ", ".join(f"a.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Article"])
SECTION_RETURN = ", ".join(f"s.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["Section"])
NOUNPHRASE_RETURN = ", ".join(f"n.{prop} AS {prop}" for prop in LITERATURE_NODE_PROPERTIES["NounPhrase"])


#: Relationship types the PPR graph uses (domain layer + the literature edges of GraphIndex).
RETRIEVAL_REL_TYPES: tuple[str, ...] = DOMAIN_REL_TYPES + ("MENTIONS", "MAPS_TO", "SAME_AS")

def set_clause(variable: str, properties: dict[str, str], *, skip: tuple[str, ...] = ("id",)) -> str:
    """``n.name = row.name, n.title = row.title`` for every property except ``skip``."""
    return ", ".join(f"{variable}.{p} = row.{p}" for p in properties if p not in skip)


def create_map(properties: dict[str, str]) -> str:
    """``{id: row.id, name: row.name}`` for every property."""
    return "{" + ", ".join(f"{p}: row.{p}" for p in properties) + "}"


def frame_map(properties: dict[str, str]) -> str:
    """``{id: id, name: name}`` for every property: a ``LOAD FROM`` row's columns are bare variables."""
    return "{" + ", ".join(f"{p}: {p}" for p in properties) + "}"


#: Placeholders :meth:`~engram_kit.store.statements.StatementPack.statement` fills from the graph schema itself (never from caller input).
AUTO_PLACEHOLDERS: tuple[str, ...] = ("domain_rels", "retrieval_rels", "rel_return", "not_negated", "node_set",
                                      "rel_set", "node_return")


def schema_identifiers(schema: GraphSchema | None = None) -> frozenset[str]:
    """Labels and relationship types that may be interpolated into a statement for ``schema``: the domain
    layer's, the literature layer's and :data:`META_LABEL`; with no schema only the literature layer's and
    :data:`META_LABEL` (no graph format is assumed)."""
    if schema is None:
        return frozenset(LITERATURE_LABELS + LITERATURE_REL_TYPES + (META_LABEL,))
    return frozenset(schema.labels + schema.rel_types + LITERATURE_LABELS + LITERATURE_REL_TYPES + (META_LABEL,))


def auto_values(schema: GraphSchema) -> dict[str, str]:
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
        "node_set": set_clause("n", schema.node_properties),
        "rel_set": set_clause("r", schema.rel_properties, skip=()),
    }


def expansions(text: str, schema: GraphSchema | None) -> list[dict[str, str]]:
    """Every schema identifier assignment of a statement's placeholders (one empty dict if it has none).

    ``{rel_type}`` with one or two label placeholders (``{label}``/``{other_label}``,
    ``{source_label}``/``{target_label}``) is expanded per relationship type of ``schema`` (the graph's domain
    layer, e.g. ``store.schema``) and each of its endpoint pairs, labels in order of appearance
    taking its source and target labels; ``{rel_type}`` alone over every relationship type; one label
    placeholder alone over every label.

    Raises
    ------
    QueryError
        For a placeholder this expansion does not know (extend it with the new placeholder's values).
    DataError
        If ``schema`` is None (no graph format is assumed).
    """
    schema = require_schema(schema, "engram_kit.store.cypher.expansions")
    names = [n for n in dict.fromkeys(re.findall(r"\{(\w+)\}", text)) if n not in AUTO_PLACEHOLDERS]
    labels = [n for n in names if n.endswith("label")]
    unknown = [n for n in names if n != "rel_type" and n not in labels]
    if unknown or len(labels) > 2:
        raise QueryError(f"Statement placeholders {names} are not known to engram_kit.store.cypher.expansions; "
                         f"teach it their values so the statement can be linted.")
    if "rel_type" in names and labels:
        return [{"rel_type": spec.rel_type, **dict(zip(labels, pair))} for spec in schema.rel_specs for pair in spec.pairs]
    if "rel_type" in names:
        return [{"rel_type": rel} for rel in schema.rel_types + LITERATURE_REL_TYPES]
    if labels:
        return [{labels[0]: label} for label in schema.labels + LITERATURE_LABELS]
    return [{}]
