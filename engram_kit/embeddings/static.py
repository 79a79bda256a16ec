"""``static``: a static (token-lookup) embedding model distilled locally from the bundled MiniLM.

The recipe is model2vec's distillation (Tulkens & van Dongen, "Model2Vec", MinishLab 2024): every word
piece of the MiniLM vocabulary is passed through MiniLM alone (``[CLS] piece [SEP]``), the output is
mean-pooled, the 30,522 x 384 table is reduced by PCA to :data:`STATIC_DIMENSION` dimensions and each row
is weighted by SIF (``a / (a + p)``, ``a = 1e-4``, ``p`` from a Zipf law over the vocabulary rank). A text's
vector is the mean of its pieces' rows, normalised: no attention, no input limit, ~100x cheaper than MiniLM.
model2vec's own ``distill`` cannot be installed beside transformers 5 (its ``distill`` extra pins
transformers < 5.4), so the three steps are done here with torch/numpy; inference uses model2vec's
:class:`~model2vec.StaticModel`. Distilled once (~30-90 s on 2 cores) into :func:`model_cache_dir`.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from engram_kit.embeddings.base import BaseEmbedder, EmbedderSpec, model_cache_dir
from engram_kit.embeddings.minilm import MINILM_NAME, MINILM_TOKENIZER, bundled_model_dir, bundled_tokenizer
from engram_kit.errors import BackendUnavailableError

log = logging.getLogger(__name__)

#: PCA dimensions of the static table (model2vec's default, 256).
STATIC_DIMENSION = 256
#: SIF coefficient ``a`` (model2vec's default, 1e-4).
SIF_COEFFICIENT = 1e-4


class StaticEmbedder(BaseEmbedder):
    """Static embeddings distilled from the bundled MiniLM (see module docstring); 256 dimensions.

    Raises
    ------
    BackendUnavailableError
        On first use, if model2vec is not installed (``pip install model2vec``).
    """

    spec = EmbedderSpec(name=f"model2vec-style static distillation of {MINILM_NAME} (pca {STATIC_DIMENSION}, sif 1e-4)",
                        backend="static", dimension=STATIC_DIMENSION, tokenizer=MINILM_TOKENIZER, max_tokens=None)
    FILE = "minilm-l6-v2-static-v1.npy"

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from model2vec import StaticModel
                except ImportError as exc:
                    raise BackendUnavailableError("The static embedder needs model2vec: pip install model2vec") from exc
                path = model_cache_dir() / self.FILE
                if not path.exists():
                    distill_static(path)
                table = np.load(path)
                tokenizer = bundled_tokenizer()
                self._model = StaticModel(vectors=table, tokenizer=tokenizer, normalize=True,
                                          base_model_name=MINILM_NAME, max_length=None)
            return self._model

    def _encode_fitting(self, texts: list[str], batch_size: int) -> np.ndarray:
        # model2vec's multiprocessing only pays off beyond 10k texts per call; keep it in-process.
        return np.asarray(self._load().encode(texts, max_length=None, batch_size=max(batch_size, 1024),
                                              use_multiprocessing=False), dtype=np.float32)


def distill_static(path: Path, *, batch_size: int = 1024) -> Path:
    """Distil the static table from the bundled MiniLM into ``path`` (``.npy``, float32, ``(30522, 256)``).

    Written to a temporary file and renamed, so an interrupted distillation leaves nothing behind.
    """
    import torch
    from transformers import AutoModel

    log.info("distilling the static embedder from the bundled MiniLM into %s (once)", path)
    model = AutoModel.from_pretrained(str(bundled_model_dir())).eval()
    tok = bundled_tokenizer()
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    vocab = tok.get_vocab_size()
    rows = np.zeros((vocab, model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, vocab, batch_size):
            ids = torch.arange(start, min(vocab, start + batch_size))
            batch = torch.stack([torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], dim=1)
            hidden = model(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            rows[start: start + len(ids)] = hidden.mean(dim=1).numpy()
    # PCA (centred, eigenvectors of the covariance, largest first), as model2vec's apply_pca.
    centred = rows - rows.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred / (len(rows) - 1))
    table = centred @ vectors[:, ::-1][:, :STATIC_DIMENSION]
    proba = 1.0 / np.arange(2, vocab + 2)
    proba /= proba.sum()
    table *= (SIF_COEFFICIENT / (SIF_COEFFICIENT + proba))[:, None]
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npy", delete=False) as fh:
        np.save(fh, table.astype(np.float32))
    os.replace(fh.name, path)
    return path
