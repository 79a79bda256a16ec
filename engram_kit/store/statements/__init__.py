"""Statement packs: every Cypher text one graph backend sends, owned by that backend.

A :class:`StatementPack` holds the whole dialect of one backend:

* its **statements** (name -> text: the store's reads and writes, the agents' and explorer's reads, the evidence
  desk's ``entity_edges_*`` listings), with ``{label}``/``{rel_type}`` placeholders that take schema identifiers
  only (:func:`engram_kit.store.cypher.schema_identifiers`) and the schema-derived
  :data:`~engram_kit.store.cypher.AUTO_PLACEHOLDERS`;
* its **fragments** (name -> expression with ``{name}`` slots): the pieces of Cypher that the evidence desk's
  templates and intent plans (:mod:`engram_kit.evidence`) and the answer layer build queries from and that differ
  between engines (splitting a ``|``-joined string, the first *n* of a collected list, a relationship's type, a
  node's label). :data:`FRAGMENTS` names the ones every pack must define;
* its **DDL** (:meth:`StatementPack.node_table_ddl`, :meth:`StatementPack.rel_table_ddl`,
  :meth:`StatementPack.index_statements`), which subclasses implement;
* the sentence the desk's planning prompt uses to tell an LLM which dialect to write (:attr:`StatementPack.prompt_note`).

A backend class (a :class:`~engram_kit.store.cypher_store.CypherStore` subclass) sets ``statements = ITS_PACK``;
callers ask the store for text by name (``store.statements.statement("count_nodes", schema=..., label="Gene")``,
``store.statements.fragment("split_count", expr="r.sources")``) and never branch on a dialect name. The two packs
shipped are :data:`engram_kit.store.statements.ladybug.LADYBUG_STATEMENTS` (embedded LadybugDB) and
:data:`engram_kit.store.statements.neo4j.NEO4J_STATEMENTS` (Neo4j 5 + GDS); both start from the portable texts of
:data:`engram_kit.store.statements.portable.PORTABLE_STATEMENTS`. A new backend writes its pack beside its module
(subclass :class:`StatementPack`, or :meth:`StatementPack.derive` an existing one) and needs no edit here:
``tests/test_store_backends.py`` adds a toy one.
"""

from __future__ import annotations

import copy
import importlib
import re
import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping

from engram_kit.errors import DataError, QueryError
from engram_kit.kg.schema import GraphSchema, require_schema
from engram_kit.store.cypher import (
    AUTO_PLACEHOLDERS,
    LITERATURE_NODE_PROPERTIES,
    LITERATURE_REL_TABLES,
    META_LABEL,
    META_PROPERTIES,
    auto_values,
    expansions,
    schema_identifiers,
)

#: Fragments every pack defines (name -> the slots its text takes), used by :mod:`engram_kit.evidence` and
#: :mod:`engram_kit.answering`. Each slot takes Cypher built by the caller from schema identifiers and variable
#: names, never a data value.
FRAGMENTS: dict[str, tuple[str, ...]] = {
    # number of ``|``-joined values in the string expression ``expr`` (0 when null or empty)
    "split_count": ("expr",),
    # the first ``n`` distinct values of ``expr`` collected over the group (aggregating)
    "first_distinct": ("expr", "n"),
    # the type name of relationship variable ``rel``
    "rel_type": ("rel",),
    # the (first) label of node variable ``node``
    "node_label": ("node",),
}


#: What a statement may name with no graph schema: the literature layer and the metadata table (no domain label).
LITERATURE_IDENTIFIERS: frozenset[str] = schema_identifiers(None)


class StatementPack(ABC):
    """Every Cypher text of one backend: statements by name, dialect fragments, DDL and the desk's prompt note.

    Parameters
    ----------
    name : str
        The dialect's name (``"ladybug"``, ``"neo4j"``), shown in messages and kept as ``GraphStore.dialect``; no
        code branches on it.
    statements : mapping of str to str
        Statement name -> text (see the module docstring for placeholders).
    fragments : mapping of str to str
        Fragment name -> expression text with ``{slot}`` placeholders; must define every name of :data:`FRAGMENTS`
        with exactly its slots.
    prompt_note : str
        How the desk's planning prompt names the dialect the LLM is to write (after "read-only Cypher in").
    description : str
        One line for help and error messages.

    Raises
    ------
    QueryError
        If a fragment of :data:`FRAGMENTS` is missing or uses other slots than listed there.
    """

    def __init__(self, name: str, statements: Mapping[str, str], *, fragments: Mapping[str, str],
                 prompt_note: str, description: str = "") -> None:
        self.name = name
        self.statements: dict[str, str] = dict(statements)
        self.fragments: dict[str, str] = dict(fragments)
        self.prompt_note = prompt_note
        self.description = description
        for fragment, slots in FRAGMENTS.items():
            text = self.fragments.get(fragment)
            if text is None:
                raise QueryError(f"Statement pack {name!r} lacks the fragment {fragment!r} (slots {slots}); every "
                                 f"pack defines {', '.join(FRAGMENTS)}.")
            used = set(re.findall(r"\{(\w+)\}", text))
            if used != set(slots):
                raise QueryError(f"Fragment {fragment!r} of pack {name!r} uses slots {sorted(used)}; it must use "
                                 f"exactly {list(slots)}.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {len(self.statements)} statements>"

    def __contains__(self, name: object) -> bool:
        return name in self.statements

    def names(self) -> tuple[str, ...]:
        """Statement names, in definition order."""
        return tuple(self.statements)

    # --- text by name ----------------------------------------------------------------------------------------------
    def statement(self, name: str, *, schema: GraphSchema | None = None, **identifiers: str) -> str:
        """The text of statement ``name``, with schema identifiers filled in.

        Parameters
        ----------
        name : str
            A key of :attr:`statements`, e.g. ``"merge_nounphrases"``.
        schema : GraphSchema, optional
            The store's domain layer (``store.schema``). It fills the
            :data:`~engram_kit.store.cypher.AUTO_PLACEHOLDERS` (``{domain_rels}``: the union of its relationship
            types; ``{rel_return}``: its edge properties) and bounds which identifiers are accepted. Only a
            statement of the literature layer alone (no auto placeholder, no domain identifier, e.g. ``read_meta``)
            may omit it; no graph format is assumed.
        **identifiers : str
            Values for ``{label}`` / ``{rel_type}`` placeholders. Each must be a label or relationship type of
            ``schema`` or the literature layer; data values go in query parameters.

        Returns
        -------
        str
            The Cypher text, ready to run with its parameters.

        Raises
        ------
        QueryError
            If this pack has no statement ``name`` (the message lists the ones it has), or ``name`` has no
            placeholder for an identifier given.
        DataError
            If an identifier is not part of the schema, or the statement needs a schema and none was given.

        Examples
        --------
        >>> from engram_kit.store.statements.ladybug import LADYBUG_STATEMENTS
        >>> LADYBUG_STATEMENTS.statement("count_nodes", label="Passage")
        'MATCH (n:Passage) RETURN count(n) AS n'
        """
        text = self.statements.get(name)
        if text is None:
            raise QueryError(f"The {self.name} statement pack has no Cypher statement {name!r}; its statements: "
                             f"{', '.join(sorted(self.statements))}. Add it to the backend's statement pack.")
        needs_schema = (any("{" + key + "}" in text for key in AUTO_PLACEHOLDERS)
                        or any(value not in LITERATURE_IDENTIFIERS for value in identifiers.values()))
        if schema is None and needs_schema:
            require_schema(schema, f"The {self.name} statement {name!r}")
        allowed = schema_identifiers(schema)
        for key, value in identifiers.items():
            if key in AUTO_PLACEHOLDERS or value not in allowed:
                raise DataError(
                    f"{key}={value!r} is not a label or relationship type of the "
                    f"{schema.name if schema is not None else 'literature'} schema; only schema "
                    f"identifiers may be interpolated into Cypher (pass data values as parameters)."
                )
            placeholder = "{" + key + "}"
            if placeholder not in text:
                raise QueryError(f"Cypher statement {name!r} has no {placeholder} placeholder to fill.")
            text = text.replace(placeholder, value)
        if schema is not None:
            for key, value in auto_values(schema).items():
                text = text.replace("{" + key + "}", value)
        return text

    def fragment(self, name: str, **slots: object) -> str:
        """The expression ``name`` of :data:`FRAGMENTS` in this dialect, its slots filled.

        Slots take Cypher the caller built from variable names, property names of the schema and integers, never
        data values (those are query parameters).

        Raises
        ------
        QueryError
            If the fragment is unknown or a slot is missing or extra.

        Examples
        --------
        >>> from engram_kit.store.statements.neo4j import NEO4J_STATEMENTS
        >>> NEO4J_STATEMENTS.fragment("first_distinct", expr="v.id", n=3)
        'collect(DISTINCT v.id)[0..3]'
        """
        text = self.fragments.get(name)
        if text is None:
            raise QueryError(f"Unknown Cypher fragment {name!r}; fragments: {', '.join(self.fragments)}.")
        expected = set(re.findall(r"\{(\w+)\}", text))
        if set(slots) != expected:
            raise QueryError(f"Fragment {name!r} takes slots {sorted(expected)}; got {sorted(slots)}.")
        for key, value in slots.items():
            text = text.replace("{" + key + "}", str(value))
        return text

    # --- DDL -------------------------------------------------------------------------------------------------------
    @abstractmethod
    def create_node_table(self, label: str, properties: dict[str, str], primary_key: str) -> str:
        """DDL for one node table (or the uniqueness constraint of ``primary_key``); idempotent. Inputs are
        checked by :meth:`node_table_ddl`."""

    @abstractmethod
    def create_rel_table(self, rel_type: str, endpoints: tuple[tuple[str, str], ...],
                         properties: dict[str, str]) -> str | None:
        """DDL for one relationship table, or None where the engine keeps no relationship schema; idempotent."""

    def index_statements(self, schema: GraphSchema | None = None) -> list[str]:
        """Indexes created after :meth:`schema_statements` (none by default); idempotent."""
        return []

    def node_table_ddl(self, label: str, properties: dict[str, str], *, schema: GraphSchema | None = None) -> str:
        """DDL creating one node table (or its key constraint); ``id`` is the key, ``key`` for :data:`META_LABEL`.

        Parameters
        ----------
        label : str
            A label of ``schema`` or the literature layer.
        properties : dict
            Property name -> LadybugDB type (``STRING``, ``INT64``, ``DOUBLE``); must contain ``id``.

        Raises
        ------
        DataError
            If the label is not a schema label or ``id`` is missing.
        """
        if label not in schema_identifiers(schema):
            raise DataError(f"Label {label!r} is not part of the engram-kit schema.")
        if label == META_LABEL:  # keyed by ``key``, not ``id``
            return self.create_node_table(label, properties, "key")
        if "id" not in properties:
            raise DataError(f"Node table {label!r} needs an 'id' property (its primary key).")
        return self.create_node_table(label, properties, "id")

    def rel_table_ddl(self, rel_type: str, endpoints: tuple[tuple[str, str], ...], properties: dict[str, str], *,
                      schema: GraphSchema | None = None) -> str | None:
        """DDL creating one relationship table (None where the engine has no relationship schema).

        Parameters
        ----------
        rel_type : str
            A relationship type of ``schema`` or the literature layer.
        endpoints : tuple of (from_label, to_label)
            One pair per allowed endpoint combination.
        properties : dict
            Property name -> LadybugDB type.

        Raises
        ------
        DataError
            If ``rel_type`` is not part of the schema.
        """
        if rel_type not in schema_identifiers(schema):
            raise DataError(f"Relationship type {rel_type!r} is not part of the engram-kit schema.")
        return self.create_rel_table(rel_type, endpoints, properties)

    def schema_statements(self, schema: GraphSchema | None = None) -> list[str]:
        """All table DDL of the engram-kit graph model, node tables before relationship tables.

        Returns
        -------
        list of str
            The domain node tables of ``schema``, the 4 literature node tables, the metadata table, then (where the
            engine has them) the domain and the 5 literature relationship tables; ``MAPS_TO`` may point at every
            domain label of ``schema``. Hetionet on LadybugDB: 45 statements; on Neo4j: 16 constraints.

        Raises
        ------
        DataError
            If ``schema`` is None (the store's ``schema`` names the domain layer; no graph format is assumed).
        """
        schema = require_schema(schema, f"The {self.name} pack's schema_statements")
        out = [self.node_table_ddl(label, schema.node_properties, schema=schema) for label in schema.labels]
        out += [self.node_table_ddl(label, props, schema=schema) for label, props in LITERATURE_NODE_PROPERTIES.items()]
        out.append(self.node_table_ddl(META_LABEL, META_PROPERTIES, schema=schema))
        rels = [self.rel_table_ddl(spec.rel_type, spec.pairs, schema.rel_properties, schema=schema)
                for spec in schema.rel_specs]
        literature = {**LITERATURE_REL_TABLES,
                      "MAPS_TO": (tuple(("NounPhrase", label) for label in schema.labels),
                                  LITERATURE_REL_TABLES["MAPS_TO"][1])}
        rels += [self.rel_table_ddl(rel, ends, props, schema=schema) for rel, (ends, props) in literature.items()]
        out += [text for text in rels if text is not None]
        return out

    def ddl(self, schema: GraphSchema | None = None) -> list[str]:
        """What a backend's ``create_schema`` runs: :meth:`schema_statements` then :meth:`index_statements`.

        Raises
        ------
        DataError
            If ``schema`` is None.
        """
        schema = require_schema(schema, f"The {self.name} pack's ddl")
        return self.schema_statements(schema) + self.index_statements(schema)

    # --- everything, for linting -----------------------------------------------------------------------------------
    def all_statements(self, schema: GraphSchema | None = None) -> list[dict[str, str]]:
        """Every Cypher text this pack can send, placeholders filled with each schema identifier they may take.

        Returns
        -------
        list of dict
            ``{"name", "text"}``: the statements expanded over their labels/relationship types
            (:func:`~engram_kit.store.cypher.expansions`), then :meth:`ddl`. Names carry the identifiers, e.g.
            ``"count_nodes[label=Gene]"`` or ``"ddl[3]"``.

        Raises
        ------
        DataError
            If ``schema`` is None (lint against a named schema, e.g. the one a workspace stores).
        """
        schema = require_schema(schema, f"The {self.name} pack's all_statements")
        out: list[dict[str, str]] = []
        for name, text in self.statements.items():
            for identifiers in expansions(text, schema):
                suffix = ",".join(f"{k}={v}" for k, v in identifiers.items())
                out.append({"name": f"{name}[{suffix}]" if suffix else name,
                            "text": self.statement(name, schema=schema, **identifiers)})
        out += [{"name": f"ddl[{i}]", "text": text} for i, text in enumerate(self.ddl(schema))]
        return out

    # --- variants --------------------------------------------------------------------------------------------------
    def derive(self, name: str, *, statements: Mapping[str, str] | None = None,
               fragments: Mapping[str, str] | None = None, prompt_note: str | None = None,
               description: str | None = None) -> StatementPack:
        """A copy of this pack named ``name`` (same DDL methods) with some statements/fragments replaced or added.

        Raises
        ------
        QueryError
            As the constructor, if a replaced fragment breaks the :data:`FRAGMENTS` contract.
        """
        out = copy.copy(self)
        StatementPack.__init__(out, name, {**self.statements, **(statements or {})},
                               fragments={**self.fragments, **(fragments or {})},
                               prompt_note=self.prompt_note if prompt_note is None else prompt_note,
                               description=self.description if description is None else description)
        return out


def pack_named(name: str) -> StatementPack:
    """A statement pack by dialect name (a module ``engram_kit.store.statements.<name>`` defining ``PACK``) or by
    import path ``"module:attribute"`` (an outside backend's pack).

    For the command line (``python -m engram_kit.store.statements --dump neo4j``) and the deprecated
    :func:`engram_kit.store.cypher.statement`; code holding a store uses ``store.statements``.

    Raises
    ------
    QueryError
        If no pack is found there, naming the fix.
    """
    module_name, _, attribute = name.partition(":") if ":" in name else (f"{__name__}.{name}", ":", "PACK")
    try:
        pack = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError):
        pack = None
    if not isinstance(pack, StatementPack):
        raise QueryError(f"No statement pack {name!r}: give a dialect with a module {__name__}.<name> defining "
                         f"PACK (ladybug, neo4j) or an import path 'module:attribute' of a StatementPack.")
    return pack


# --- deprecated: statements by dialect name (use the store's pack: ``store.statements``) --------------------------
def statement(name: str, dialect: str | StatementPack, *, schema: GraphSchema | None = None,
              **identifiers: str) -> str:
    """Deprecated: ``pack.statement(name, schema=..., **identifiers)`` of the pack ``dialect`` names.

    ``dialect`` is a pack (``store.statements``) or a name :func:`~engram_kit.store.statements.pack_named` resolves
    (``"ladybug"``, ``"neo4j"``, ``"module:attribute"``).

    Raises
    ------
    QueryError
        For an unknown pack or statement name.
    DataError
        If an identifier is not part of the schema.
    """
    warnings.warn("engram_kit.store.cypher.statement(name, dialect) (now engram_kit.store.statement) is deprecated; ask the store's pack: "
                  "store.statements.statement(name, schema=...).", DeprecationWarning, stacklevel=2)
    return _pack(dialect).statement(name, schema=schema, **identifiers)


def schema_statements(dialect: str | StatementPack = "ladybug", schema: GraphSchema | None = None) -> list[str]:
    """Deprecated: ``pack.schema_statements(schema)`` of the pack ``dialect`` names (see :func:`statement`)."""
    warnings.warn("engram_kit.store.cypher.schema_statements(dialect) is deprecated; ask the store's pack: "
                  "store.statements.schema_statements(schema).", DeprecationWarning, stacklevel=2)
    return _pack(dialect).schema_statements(schema)


def _pack(dialect: str | StatementPack) -> StatementPack:
    return dialect if isinstance(dialect, StatementPack) else pack_named(dialect)
