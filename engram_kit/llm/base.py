"""The one small LLM interface every provider implements (Anthropic, offline, record/replay).

Messages follow the Anthropic Messages API shape: a list of ``{"role": "user"|"assistant",
"content": str}`` plus a separate ``system`` string. Providers never log or write API keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class LLMUsage:
    """Token and cost accounting of one call. ``cost_usd`` is 0.0 when the price is unknown."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: LLMUsage) -> LLMUsage:
        """Summed usage of two calls (token counts and cost add up)."""
        return LLMUsage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                        round(self.cost_usd + other.cost_usd, 8))


@dataclass(frozen=True)
class LLMResponse:
    """One completion: its text, the model that produced it, why it stopped, and its usage."""

    text: str
    model: str
    stop_reason: str = "end_turn"
    usage: LLMUsage = LLMUsage()


class LLM(Protocol):
    """A chat-completion provider.

    Methods raise :class:`~engram_kit.errors.LLMError` on provider failure (after retries), on a
    missing key, or (replay mode) on a request that was never recorded.
    """

    #: Provider and model, e.g. ``"anthropic:claude-sonnet-4-5"`` or ``"offline"``.
    name: str

    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                 temperature: float = 0.0) -> LLMResponse:
        """Return the full completion for ``messages``."""
        ...

    def stream(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
               temperature: float = 0.0) -> Iterator[str]:
        """Yield the completion text in chunks as they arrive (concatenated = ``complete().text``)."""
        ...

    def structured(self, messages: Sequence[dict[str, str]], schema: type[ModelT], *, system: str = "",
                   max_tokens: int = 1024) -> ModelT:
        """Return the completion parsed and validated into ``schema`` (JSON-schema constrained output)."""
        ...
