"""A toy embedder: character-trigram hashing into 64 dimensions (deterministic, no model, no download)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class HashingEmbedder:
    """Texts -> L2-normalised float32 vectors of shape (n, 64) from hashed character trigrams."""

    name = "toy/hashing-trigrams-64"
    dimension = 64

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()}  "
            for i in range(len(padded) - 2):
                digest = hashlib.blake2b(padded[i:i + 3].encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dimension] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)
