"""The in-memory knowledge graph every loader produces and every store loads: :class:`KnowledgeGraph`.

A loader (:func:`engram_kit.kg.hetionet.load_hetionet`, :func:`engram_kit.kg.kgx.load_kgx`, or a new format's
module) returns a :class:`KnowledgeGraph`: node and edge tables, a load report, name, release and the
:class:`~engram_kit.kg.schema.GraphSchema` the store creates its tables from. What else differs per format
lives in the schema's profile (:mod:`engram_kit.kg.profiles`). :class:`KGNode` and :class:`KGEdge` are the
row views :meth:`KnowledgeGraph.iter_nodes` and :meth:`KnowledgeGraph.iter_edges` yield.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.kg.schema import GraphSchema, kind_to_label, metaedge

if TYPE_CHECKING:
    from engram_kit.kg.loading import LoadReport


# ------------------------------------------------------------------------------------------------
# Typed records
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KGNode:
    """One Hetionet node.

    Attributes
    ----------
    id : str
        Hetionet node id ``"<kind>::<identifier>"``, e.g. ``"Gene::7157"``.
    kind : str
        Hetionet node kind, e.g. ``"Gene"``, ``"Biological Process"``.
    identifier : str
        The source vocabulary's identifier, e.g. ``"7157"`` (Entrez), ``"DOID:10652"``.
    name : str
        Display name, e.g. ``"TP53"``.
    """

    id: str
    kind: str
    identifier: str
    name: str

    @property
    def label(self) -> str:
        """Graph label of the kind (``"Biological Process"`` -> ``"BiologicalProcess"``)."""
        return kind_to_label(self.kind)


@dataclass(frozen=True)
class KGEdge:
    """One Hetionet edge.

    Attributes
    ----------
    source, target : str
        Node ids of the endpoints, in the metaedge's direction (``Compound`` -> ``Gene`` for ``CbG``).
    metaedge : str
        Metaedge abbreviation, e.g. ``"CbG"``.
    properties : dict
        Parsed edge properties; only keys with a value are present: ``sources`` (list of str),
        ``license`` (str), ``unbiased`` (bool), ``pubmed_ids`` (list of str). Empty for SIF input.
    """

    source: str
    metaedge: str
    target: str
    properties: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def rel_type(self) -> str:
        """Neo4j-style relationship type, e.g. ``"BINDS_CbG"``."""
        return metaedge(self.metaedge).rel_type


# ------------------------------------------------------------------------------------------------
# Knowledge graph
# ------------------------------------------------------------------------------------------------
@dataclass
class KnowledgeGraph:
    """A loaded, validated knowledge graph, ready for :meth:`GraphStore.load_knowledge_graph`.

    Attributes
    ----------
    nodes : DataFrame
        Columns :data:`engram_kit.store.base.NODE_COLUMNS` (``id, kind, identifier, name``), str.
        Ids are unique.
    edges : DataFrame
        Columns :data:`engram_kit.store.base.EDGE_COLUMNS` (``source, metaedge, target, sources,
        license, unbiased, pubmed_ids``), all str. ``metaedge`` is an abbreviation (``"CbG"``);
        ``sources`` and ``pubmed_ids`` are ``|``-joined, ``unbiased`` is ``"true"``/``"false"``, and
        every property is ``""`` when absent. Every endpoint is a node id of ``nodes``.
    report : LoadReport
        Counts, skipped lines and timing.
    name, version : str
        The graph's name and release as its loader records them (``"Hetionet"``, ``"v1.0"``); required: a graph
        says what it is.
    schema : GraphSchema
        The domain layer the store creates for this graph; its ``name`` is the graph format's
        (:mod:`engram_kit.kg.formats`), which gives the profile. Required.
    synonyms_dir : Path or None
        A synonym-table folder the lexicon reads besides the node names (Hetionet's bundled ``synonyms/``);
        None when the graph brings its own names only.
    """

    nodes: pd.DataFrame
    edges: pd.DataFrame
    report: LoadReport
    name: str
    version: str
    schema: GraphSchema
    synonyms_dir: Path | None = None

    @property
    def format(self) -> str:
        """The graph format's name (``schema.name``: ``"hetionet"``, ``"kgx"``...)."""
        return self.schema.name

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.nodes)

    @property
    def n_edges(self) -> int:
        """Number of edges."""
        return len(self.edges)

    def iter_nodes(self) -> Iterator[KGNode]:
        """Yield every node as a :class:`KGNode`, in table order."""
        for row in self.nodes.itertuples(index=False):
            yield KGNode(id=row.id, kind=row.kind, identifier=row.identifier, name=row.name)

    def iter_edges(self) -> Iterator[KGEdge]:
        """Yield every edge as a :class:`KGEdge` (properties rebuilt from the property columns). For a KGX
        graph ``metaedge`` is the relationship type and ``properties`` every KGX edge column."""
        if "metaedge" not in self.edges.columns:
            props = [c for c in self.edges.columns if c not in ("source", "rel_type", "target")]
            for record in self.edges.to_dict("records"):
                yield KGEdge(source=record["source"], metaedge=record["rel_type"], target=record["target"],
                             properties={c: record[c] for c in props})
            return
        for row in self.edges.itertuples(index=False):
            yield KGEdge(
                source=row.source,
                metaedge=row.metaedge,
                target=row.target,
                properties=_properties_dict(row.sources, row.license, row.unbiased, row.pubmed_ids),
            )

    def __repr__(self) -> str:
        return (f"KnowledgeGraph(name={self.name!r}, version={self.version!r}, n_nodes={self.n_nodes}, "
                f"n_edges={self.n_edges}, skipped={self.report.n_skipped})")


def _properties_dict(sources: str, license: str, unbiased: str, pubmed_ids: str) -> dict[str, Any]:
    """Property columns of one edge -> the ``KGEdge.properties`` dict (absent values left out)."""
    props: dict[str, Any] = {}
    if sources:
        props["sources"] = sources.split("|")
    if license:
        props["license"] = license
    if unbiased:
        props["unbiased"] = unbiased == "true"
    if pubmed_ids:
        props["pubmed_ids"] = pubmed_ids.split("|")
    return props


