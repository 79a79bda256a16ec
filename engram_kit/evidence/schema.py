"""Schema inspection for the evidence desk: labels, relationship types, properties and live counts.

Counts come live from the store (:meth:`GraphStore.counts`); labels, relationship types, their endpoints,
predicates and properties come from the store's graph schema (``store.schema``, a
:class:`engram_kit.kg.schema.GraphSchema`: Hetionet v1.0's metaedges, or the Biolink predicates of a KGX
graph) plus the literature layer (:mod:`engram_kit.store.cypher`). :meth:`GraphSchema.describe` renders it
for an LLM planner's prompt; on a KGX graph it also names each relationship's Biolink predicate and
direction, the edge properties that carry provenance, and how negated assertions are marked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from engram_kit.kg.profiles import profile_for
from engram_kit.kg.schema import GraphSchema as DomainSchema
from engram_kit.store.base import GraphStore
from engram_kit.store.cypher import LITERATURE_NODE_PROPERTIES, LITERATURE_REL_TABLES

#: Edge properties a KGX planner is asked to return with every edge (what it asserts and who says so).
PROVENANCE_PROPERTIES: tuple[str, ...] = ("predicate", "negated", "primary_knowledge_source",
                                          "aggregator_knowledge_source", "publications", "qualifiers")


@dataclass(frozen=True)
class LabelInfo:
    """A node label, its properties and how many nodes it has."""

    label: str
    properties: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class RelTypeInfo:
    """A relationship type, its endpoint labels, properties and count.

    ``predicate`` is the source vocabulary's name (Hetionet metaedge abbreviation ``"CbG"``, Biolink CURIE
    ``"biolink:has_phenotype"``; ``""`` for the literature layer); ``directed`` says whether the stored
    direction (subject -> object) carries meaning.
    """

    rel_type: str
    endpoints: tuple[tuple[str, str], ...]
    properties: tuple[str, ...]
    count: int
    predicate: str = ""
    directed: bool = True


@dataclass
class GraphSchema:
    """The live schema of a workspace graph (see module docstring).

    Attributes
    ----------
    labels, rel_types : domain layer first, then the literature layer.
    graph : the domain schema's (= graph format's) name, ``"hetionet"``, ``"kgx"``...; ``""`` unknown.
    graph_name : display name of the graph (``"Hetionet v1.0"``, ``"Monarch KG sample"``; ``""`` unknown).
    negation_property : boolean edge property marking negated assertions (``"negated"``; ``""`` for none).
    """

    labels: list[LabelInfo] = field(default_factory=list)
    rel_types: list[RelTypeInfo] = field(default_factory=list)
    graph: str = ""
    graph_name: str = ""
    negation_property: str = ""

    def to_frame(self) -> pd.DataFrame:
        """One row per label and relationship type: ``kind, name, endpoints, properties, count, predicate,
        directed``."""
        rows = [{"kind": "label", "name": x.label, "endpoints": "", "properties": ", ".join(x.properties),
                 "count": x.count, "predicate": "", "directed": None} for x in self.labels]
        rows += [{"kind": "relationship", "name": r.rel_type,
                  "endpoints": "; ".join(f"({a})->({b})" for a, b in r.endpoints),
                  "properties": ", ".join(r.properties), "count": r.count, "predicate": r.predicate,
                  "directed": r.directed} for r in self.rel_types]
        return pd.DataFrame(rows, columns=["kind", "name", "endpoints", "properties", "count", "predicate", "directed"])

    def to_dict(self) -> dict[str, Any]:
        return {"graph": self.graph, "graph_name": self.graph_name, "negation_property": self.negation_property,
                "labels": [asdict(x) for x in self.labels], "rel_types": [asdict(r) for r in self.rel_types]}

    def describe(self, *, include_empty: bool = False) -> str:
        """Compact text for a prompt: node labels with properties and counts, then relationship patterns.

        Hetionet's text is kept exactly as before (recorded LLM cassettes hash the prompt). A KGX graph adds,
        per relationship, its Biolink predicate and whether it is directed, then the edge properties and the
        negation rule.
        """
        lines = ["Node labels (properties) [count]:"]
        lines += [f"  {x.label}({', '.join(x.properties)}) [{x.count:,}]" for x in self.labels
                  if include_empty or x.count]
        lines.append("Relationships (pattern) [count]:")
        kgx = profile_for(self.graph).edge_label == "predicate"  # Hetionet's text is kept exactly
        for r in self.rel_types:
            if r.count or include_empty:
                ends = " | ".join(f"(:{a})-[:{r.rel_type}]->(:{b})" for a, b in r.endpoints[:3])
                more = f" (+{len(r.endpoints) - 3} more)" if len(r.endpoints) > 3 else ""
                meaning = (f" predicate {r.predicate}, {'directed: subject -> object' if r.directed else 'symmetric'}"
                           if kgx and r.predicate else "")
                lines.append(f"  {ends}{more}{meaning} [{r.count:,}]")
        if kgx:
            domain = next((r for r in self.rel_types if r.predicate), None)
            if domain is not None:
                lines.append(f"Every domain relationship has the properties: {', '.join(domain.properties)} "
                             "(publications and aggregator_knowledge_source are |-joined; qualifiers is a JSON "
                             "object text).")
                shown = [p for p in PROVENANCE_PROPERTIES if p in domain.properties]
                lines.append(f"Return with every edge r: {', '.join(f'r.{p}' for p in shown)}.")
            if self.negation_property:
                p = self.negation_property
                lines.append(f"Negated assertions have r.{p} = true (the source states the relation does NOT "
                             f"hold): exclude them with WHERE r.{p} = false unless the question asks about "
                             "negated or absent relations, and never state them as facts.")
        return "\n".join(lines)


def _display_name(domain: DomainSchema) -> str:
    return domain.profile.description


def inspect_schema(store: GraphStore, *, graph_name: str = "") -> GraphSchema:
    """The schema of ``store`` with live counts.

    Parameters
    ----------
    store : the workspace store; its ``schema`` attribute (default Hetionet v1.0) gives the domain layer.
    graph_name : display name of the graph (workspace manifest ``knowledge_graph.name``); default
        ``"Hetionet v1.0"`` or ``"a Biolink KGX graph"``.

    Returns
    -------
    GraphSchema
        Hetionet: 15 labels, 29 relationship types. KGX: the graph's labels and predicates (Monarch KG sample:
        8 + 4 labels, 8 + 5 relationship types).

    Raises
    ------
    QueryError
        If the store cannot count (closed or failing).
    """
    domain: DomainSchema = store.schema
    counts = store.counts()
    labels = [LabelInfo(label, tuple(domain.node_properties), int(counts.get(label, 0))) for label in domain.labels]
    labels += [LabelInfo(label, tuple(props), int(counts.get(label, 0)))
               for label, props in LITERATURE_NODE_PROPERTIES.items()]
    rels = [RelTypeInfo(spec.rel_type, spec.pairs, tuple(domain.rel_properties), int(counts.get(spec.rel_type, 0)),
                        spec.predicate, spec.directed) for spec in domain.rel_specs]
    maps_to = (tuple(("NounPhrase", label) for label in domain.labels), LITERATURE_REL_TABLES["MAPS_TO"][1])
    literature = {**LITERATURE_REL_TABLES, "MAPS_TO": maps_to}  # MAPS_TO reaches every domain label
    rels += [RelTypeInfo(rel, ends, tuple(props), int(counts.get(rel, 0)))
             for rel, (ends, props) in literature.items()]
    return GraphSchema(labels, rels, domain.name, graph_name or _display_name(domain), domain.negation_property)
