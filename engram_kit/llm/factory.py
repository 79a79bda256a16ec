"""Build a provider from a short name (CLI flags, notebook settings), through :data:`engram_kit.plugins.llm`.

Each entry of the registry is a factory ``factory(*, model, cassette) -> LLM | None``; the built-in ones are below
(``none``, ``offline``, ``anthropic``, ``record``, ``replay``) and are registered lazily in
:mod:`engram_kit.plugins`, so listing them imports no provider. A new provider is one module plus one line::

    plugins.llm.register("my-llm", lambda *, model=None, cassette=None: MyLLM(model), description="my provider")

or an entry point in the group ``engram_kit.llm``. The providers' modules are imported only by the factory that
builds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engram_kit import plugins
from engram_kit.errors import LLMError
from engram_kit.llm.base import LLM


class _Providers(Sequence[str]):
    """Deprecated: the registered provider names (``plugins.llm.names()``), read at each use."""

    def __getitem__(self, index):  # type: ignore[no-untyped-def]  # Sequence's overloads
        return plugins.llm.names()[index]

    def __len__(self) -> int:
        return len(plugins.llm.names())

    def __repr__(self) -> str:
        return repr(plugins.llm.names())


#: Deprecated: provider names accepted by :func:`build_llm` (``plugins.llm.names()``).
PROVIDERS: Sequence[str] = _Providers()


def _cassette(name: str, cassette: str | Path | None) -> Path:
    if cassette is None:
        raise LLMError(f"LLM provider {name!r} needs a cassette file (CLI: --cassette PATH).")
    return Path(cassette)


def no_llm(*, model: str | None = None, cassette: str | Path | None = None) -> None:
    """Provider ``none``: no LLM (templates and extractive answers)."""
    return None


def offline_llm(*, model: str | None = None, cassette: str | Path | None = None) -> LLM:
    """Provider ``offline``: :class:`~engram_kit.llm.offline.OfflineLLM` (deterministic, extractive)."""
    from engram_kit.llm.offline import OfflineLLM

    return OfflineLLM()


def anthropic_llm(*, model: str | None = None, cassette: str | Path | None = None) -> LLM:
    """Provider ``anthropic``: :class:`~engram_kit.llm.anthropic_llm.AnthropicLLM` (key from ``$ANTHROPIC_API_KEY``;
    ``model`` default :data:`~engram_kit.llm.anthropic_llm.DEFAULT_MODEL`).

    Raises
    ------
    LLMError
        If no API key is set.
    """
    from engram_kit.llm.anthropic_llm import DEFAULT_MODEL, AnthropicLLM

    return AnthropicLLM(model or DEFAULT_MODEL)


def recording_llm(*, model: str | None = None, cassette: str | Path | None = None) -> LLM:
    """Provider ``record``: Anthropic, every exchange written to ``cassette``.

    Raises
    ------
    LLMError
        If ``cassette`` is None or no API key is set.
    """
    from engram_kit.llm.cassette import RecordingLLM

    path = _cassette("record", cassette)
    return RecordingLLM(anthropic_llm(model=model), path)


def replaying_llm(*, model: str | None = None, cassette: str | Path | None = None) -> LLM:
    """Provider ``replay``: answers from ``cassette``, no network.

    Raises
    ------
    LLMError
        If ``cassette`` is None.
    """
    from engram_kit.llm.cassette import ReplayLLM

    return ReplayLLM(_cassette("replay", cassette))


def build_llm(provider: str = "none", *, model: str | None = None, cassette: str | Path | None = None) -> LLM | None:
    """The provider registered as ``provider`` in :data:`engram_kit.plugins.llm`.

    Parameters
    ----------
    provider : str
        ``"none"`` (no LLM: None), ``"offline"`` (:class:`~engram_kit.llm.offline.OfflineLLM`), ``"anthropic"``
        (:class:`~engram_kit.llm.anthropic_llm.AnthropicLLM`, key from ``$ANTHROPIC_API_KEY``), ``"record"``
        (Anthropic, every exchange written to ``cassette``), ``"replay"`` (answers from ``cassette``, no network),
        or any other registered provider.
    model : str, optional
        Model id (Claude: default :data:`~engram_kit.llm.anthropic_llm.DEFAULT_MODEL`).
    cassette : path, optional
        Cassette file; required for ``record`` and ``replay``.

    Raises
    ------
    PluginError
        For an unknown provider name (the message lists the registered ones).
    LLMError
        For a missing cassette path, or (anthropic/record) a missing key.
    """
    factory = plugins.llm.get(provider)
    llm: LLM | None = factory(model=model, cassette=cassette)
    return llm
