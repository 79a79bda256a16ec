"""A workspace refuses an embedder that did not make its vectors (issue 31 item 4)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from engram_kit.embeddings.base import BaseEmbedder, EmbedderSpec
from engram_kit.errors import WorkspaceError
from engram_kit.workspace import Workspace, check_embedder


class _OtherModel(BaseEmbedder):
    """A 384-dimensional model that is not the recorded one (same dimension, same pooling, other weights)."""

    spec = EmbedderSpec(name="another 384-d model", backend="other-384", dimension=384,
                        tokenizer="all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocabulary, 30,522 pieces)",
                        max_tokens=None)

    def _encode_fitting(self, texts: list[str], batch_size: int) -> np.ndarray:
        return np.ones((len(texts), self.dimension), dtype=np.float32)


class _Static256(_OtherModel):
    spec = EmbedderSpec(name="a 256-d static model", backend="static", dimension=256, tokenizer="whitespace",
                        max_tokens=None)


def test_another_384_d_model_is_refused_naming_both_models(workspace_path):
    with pytest.raises(WorkspaceError) as caught:
        Workspace.open(workspace_path, read_only=True, embedder=_OtherModel())
    message = str(caught.value)
    assert "'another 384-d model' (384 dims, backend 'other-384')" in message
    assert "all-MiniLM-L6-v2" in message and "allow_embedder_mismatch=True" in message
    assert "name: 'another 384-d model' given" in message


def test_a_256_d_model_is_refused_with_each_sides_model_even_with_the_override(workspace_path):
    for override in (False, True):
        with pytest.raises(WorkspaceError) as caught:
            Workspace.open(workspace_path, read_only=True, embedder=_Static256(), allow_embedder_mismatch=override)
        message = str(caught.value)
        assert "256-dimensional vectors of 'a 256-d static model'" in message
        assert "384-dimensional vectors of 'sentence-transformers/all-MiniLM-L6-v2" in message


def test_the_recorded_model_is_accepted_and_the_override_is_logged(workspace, caplog):
    recorded = workspace.manifest["embedding_model"]
    check_embedder(workspace.path, recorded, workspace.embedder)  # the dashboard reopens with this one
    with caplog.at_level(logging.WARNING, logger="engram_kit.workspace"):
        check_embedder(workspace.path, recorded, _OtherModel(), allow_mismatch=True)
    assert "by override" in caplog.text and "another 384-d model" in caplog.text


def test_an_unregistered_embedder_is_compared_by_name_and_dimension(workspace):
    class Plain:
        name = workspace.manifest["embedding_model"]["name"]
        dimension = 384

        def encode(self, texts, *, batch_size=64, progress=False):
            return np.zeros((len(texts), 384), dtype=np.float32)

    check_embedder(workspace.path, workspace.manifest["embedding_model"], Plain())
    Plain.name = "renamed"
    with pytest.raises(WorkspaceError, match="'renamed' \\(384 dims, backend 'unregistered'\\)"):
        check_embedder(workspace.path, workspace.manifest["embedding_model"], Plain())
