"""Analysis stage: literature maps built from sentence co-occurrence of resolved entities.

Pipeline (each step a small module):

1. :mod:`~engram_kit.analysis.sentences` splits documents into sentences with offsets;
2. :mod:`~engram_kit.analysis.cooccurrence` (:class:`LiteratureMapBuilder`) extracts and resolves entities,
   drops boilerplate (:mod:`~engram_kit.analysis.noise`), pairs entities per sentence and applies the typed
   verb patterns of :mod:`~engram_kit.analysis.relations`, giving one :class:`DocumentGraph` per document;
3. :class:`LiteratureMap` merges the selected documents on request and applies noise control
   (:class:`MapConfig`: minimum occurrence, generic-entity stoplist, document-frequency weights, PMI);
4. analyses take the merged ``networkx.Graph``: :func:`analyze_structure` (Louvain, betweenness,
   bridges), :func:`link_to_knowledge_graph` (curated vs new edges), :class:`EntityIndex` (entity-indexed
   retrieval) and :func:`open_discovery` (Swanson ABC).
"""

from __future__ import annotations

from engram_kit.analysis.cooccurrence import (
    MAX_EVIDENCE,
    UNLINKED,
    DocumentGraph,
    EdgeStats,
    EntityInfo,
    Evidence,
    LiteratureMapBuilder,
    pair_key,
)
from engram_kit.analysis.discovery import DiscoveryResult, open_discovery
from engram_kit.analysis.entity_index import EntityIndex, EntityRetrieval
from engram_kit.analysis.kg_link import KG_STATUSES, CuratedEdgeIndex, EdgeLookup, link_to_knowledge_graph
from engram_kit.analysis.literature_map import RELATION_BONUS, LiteratureMap, MapConfig, MergedMap
from engram_kit.analysis.noise import (
    DEFAULT_MIN_OCCURRENCE,
    GENERIC_ENTITY_NAMES,
    boilerplate_reason,
    document_frequency_factor,
    pmi_weights,
)
from engram_kit.analysis.relations import DEFAULT_PATTERNS, RELATION_TYPES, RelationHit, RelationPattern, find_relations
from engram_kit.analysis.sentences import Sentence, split_sentences
from engram_kit.analysis.structure import DEFAULT_SEED, MapStructure, analyze_structure

__all__ = [
    "CuratedEdgeIndex",
    "DEFAULT_MIN_OCCURRENCE",
    "DEFAULT_PATTERNS",
    "DEFAULT_SEED",
    "DiscoveryResult",
    "DocumentGraph",
    "EdgeLookup",
    "EdgeStats",
    "EntityIndex",
    "EntityInfo",
    "EntityRetrieval",
    "Evidence",
    "GENERIC_ENTITY_NAMES",
    "KG_STATUSES",
    "LiteratureMap",
    "LiteratureMapBuilder",
    "MAX_EVIDENCE",
    "MapConfig",
    "MapStructure",
    "MergedMap",
    "RELATION_BONUS",
    "RELATION_TYPES",
    "RelationHit",
    "RelationPattern",
    "Sentence",
    "UNLINKED",
    "analyze_structure",
    "boilerplate_reason",
    "document_frequency_factor",
    "find_relations",
    "link_to_knowledge_graph",
    "open_discovery",
    "pair_key",
    "pmi_weights",
    "split_sentences",
]
