"""Knowledge graph loading: Hetionet v1.0 schema, readers and download; Biolink KGX graphs."""

from __future__ import annotations

from engram_kit.kg.hetionet import (
    HETIONET_BASE_URL,
    HETIONET_FILES,
    HETIONET_SHA256,
    HetionetFiles,
    KGEdge,
    KGNode,
    KnowledgeGraph,
    LoadReport,
    download_hetionet,
    file_sha256,
    is_gzip_file,
    load_hetionet,
)
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
    "KGEdge",
    "KGNode",
    "KGXLoadReport",
    "KnowledgeGraph",
    "LoadReport",
    "Metaedge",
    "download_hetionet",
    "file_sha256",
    "is_gzip_file",
    "kind_to_label",
    "load_hetionet",
    "load_kgx",
    "metaedge",
    "split_node_id",
]
