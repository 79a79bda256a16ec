"""Build a provider from a short name (CLI flags, notebook settings): offline, anthropic, record, replay."""

from __future__ import annotations

from pathlib import Path

from engram_kit.errors import LLMError
from engram_kit.llm.anthropic_llm import DEFAULT_MODEL, AnthropicLLM
from engram_kit.llm.base import LLM
from engram_kit.llm.cassette import RecordingLLM, ReplayLLM
from engram_kit.llm.offline import OfflineLLM

#: Provider names accepted by :func:`build_llm`.
PROVIDERS: tuple[str, ...] = ("none", "offline", "anthropic", "record", "replay")


def build_llm(provider: str = "none", *, model: str | None = None, cassette: str | Path | None = None) -> LLM | None:
    """The provider named ``provider``.

    Parameters
    ----------
    provider : str
        ``"none"`` (no LLM: None), ``"offline"`` (:class:`OfflineLLM`), ``"anthropic"`` (:class:`AnthropicLLM`,
        key from ``$ANTHROPIC_API_KEY``), ``"record"`` (Anthropic, every exchange written to ``cassette``) or
        ``"replay"`` (answers from ``cassette``, no network).
    model : str, optional
        Claude model id (default :data:`~engram_kit.llm.anthropic_llm.DEFAULT_MODEL`).
    cassette : path, optional
        Cassette file; required for ``record`` and ``replay``.

    Raises
    ------
    LLMError
        For an unknown provider name, a missing cassette path, or (anthropic/record) a missing key.
    """
    if provider not in PROVIDERS:
        raise LLMError(f"Unknown LLM provider {provider!r}; use one of {', '.join(PROVIDERS)}.")
    if provider in ("record", "replay") and cassette is None:
        raise LLMError(f"LLM provider {provider!r} needs a cassette file (CLI: --cassette PATH).")
    if provider == "none":
        return None
    if provider == "offline":
        return OfflineLLM()
    if provider == "replay":
        return ReplayLLM(Path(cassette))  # type: ignore[arg-type]
    claude = AnthropicLLM(model or DEFAULT_MODEL)
    return RecordingLLM(claude, Path(cassette)) if provider == "record" else claude  # type: ignore[arg-type]
