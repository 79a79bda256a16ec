"""Schema inspection for the evidence desk: labels, relationship types, properties and live counts.

Counts come live from the store (:meth:`GraphStore.counts`); properties and endpoints come from the
engram-kit graph model every store implements (:mod:`engram_kit.store.cypher`, Hetionet v1.0 metaedges).
:meth:`GraphSchema.describe` renders the schema for an LLM planner's prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from engram_kit.kg.schema import METAEDGES
from engram_kit.store.base import GraphStore
from engram_kit.store.cypher import (
    DOMAIN_LABELS,
    DOMAIN_NODE_PROPERTIES,
    DOMAIN_REL_PROPERTIES,
    LITERATURE_NODE_PROPERTIES,
    LITERATURE_REL_TABLES,
)


@dataclass(frozen=True)
class LabelInfo:
    """A node label, its properties and how many nodes it has."""

    label: str
    properties: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class RelTypeInfo:
    """A relationship type, its endpoint labels, properties and count."""

    rel_type: str
    endpoints: tuple[tuple[str, str], ...]
    properties: tuple[str, ...]
    count: int


@dataclass
class GraphSchema:
    """The live schema of a workspace graph (see module docstring)."""

    labels: list[LabelInfo] = field(default_factory=list)
    rel_types: list[RelTypeInfo] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """One row per label and relationship type: ``kind, name, endpoints, properties, count``."""
        rows = [{"kind": "label", "name": x.label, "endpoints": "", "properties": ", ".join(x.properties),
                 "count": x.count} for x in self.labels]
        rows += [{"kind": "relationship", "name": r.rel_type,
                  "endpoints": "; ".join(f"({a})->({b})" for a, b in r.endpoints),
                  "properties": ", ".join(r.properties), "count": r.count} for r in self.rel_types]
        return pd.DataFrame(rows, columns=["kind", "name", "endpoints", "properties", "count"])

    def to_dict(self) -> dict[str, Any]:
        return {"labels": [vars(x) for x in self.labels], "rel_types": [vars(r) for r in self.rel_types]}

    def describe(self, *, include_empty: bool = False) -> str:
        """Compact text for a prompt: node labels with properties and counts, then relationship patterns."""
        lines = ["Node labels (properties) [count]:"]
        lines += [f"  {x.label}({', '.join(x.properties)}) [{x.count:,}]" for x in self.labels
                  if include_empty or x.count]
        lines.append("Relationships (pattern) [count]:")
        for r in self.rel_types:
            if r.count or include_empty:
                ends = " | ".join(f"(:{a})-[:{r.rel_type}]->(:{b})" for a, b in r.endpoints[:3])
                more = f" (+{len(r.endpoints) - 3} more)" if len(r.endpoints) > 3 else ""
                lines.append(f"  {ends}{more} [{r.count:,}]")
        return "\n".join(lines)


def inspect_schema(store: GraphStore) -> GraphSchema:
    """The schema of ``store`` with live counts (15 labels, 29 relationship types).

    Raises
    ------
    QueryError
        If the store cannot count (closed or failing).
    """
    counts = store.counts()
    labels = [LabelInfo(label, tuple(DOMAIN_NODE_PROPERTIES), int(counts.get(label, 0))) for label in DOMAIN_LABELS]
    labels += [LabelInfo(label, tuple(props), int(counts.get(label, 0)))
               for label, props in LITERATURE_NODE_PROPERTIES.items()]
    rels = [RelTypeInfo(m.rel_type, ((m.source_label, m.target_label),), tuple(DOMAIN_REL_PROPERTIES),
                        int(counts.get(m.rel_type, 0))) for m in METAEDGES]
    rels += [RelTypeInfo(rel, ends, tuple(props), int(counts.get(rel, 0)))
             for rel, (ends, props) in LITERATURE_REL_TABLES.items()]
    return GraphSchema(labels, rels)
