"""Knowledge graph loading: the in-memory graph (:mod:`~engram_kit.kg.graph`), graph formats (a loader + a profile,
:mod:`~engram_kit.kg.formats`, registered in ``engram_kit.plugins.formats``), the loaders' shared helpers
(:mod:`~engram_kit.kg.loading`), per-format profiles (:mod:`~engram_kit.kg.profiles`); the built-in formats are
listed by ``engram_kit.plugins.formats.names()``."""

from __future__ import annotations

from engram_kit.kg.formats import GraphFormat, format_names, get_format, load_graph
from engram_kit.kg.graph import KGEdge, KGNode, KnowledgeGraph
from engram_kit.kg.hetionet import (
    HETIONET_BASE_URL,
    HETIONET_FILES,
    HETIONET_SHA256,
    HetionetFiles,
    download_hetionet,
    load_hetionet,
)
from engram_kit.kg.loading import LoadReport, file_sha256, is_gzip_file
from engram_kit.kg.profiles import GraphProfile, profile_for, register_profile
from engram_kit.kg.kgx import KGX_EDGE_COLUMNS, KGX_NODE_COLUMNS, KGXLoadReport, load_kgx
from engram_kit.kg.schema import (
    HETIONET_EDGE_COUNT,
    HETIONET_NODE_COUNT,
    METAEDGES,
    NODE_KINDS,
    Metaedge,
    kind_to_label,
    metaedge,
    split_node_id,
)

__all__ = [
    "HETIONET_BASE_URL",
    "HETIONET_EDGE_COUNT",
    "HETIONET_FILES",
    "HETIONET_NODE_COUNT",
    "HETIONET_SHA256",
    "KGX_EDGE_COLUMNS",
    "KGX_NODE_COLUMNS",
    "METAEDGES",
    "NODE_KINDS",
    "HetionetFiles",
    "GraphFormat",
    "KGEdge",
    "KGNode",
    "GraphProfile",
    "KGXLoadReport",
    "KnowledgeGraph",
    "LoadReport",
    "Metaedge",
    "download_hetionet",
    "file_sha256",
    "format_names",
    "get_format",
    "is_gzip_file",
    "kind_to_label",
    "load_graph",
    "load_hetionet",
    "load_kgx",
    "metaedge",
    "profile_for",
    "register_profile",
    "split_node_id",
]
