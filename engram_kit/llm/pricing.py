"""Token prices of Claude models, for per-call cost accounting.

Prices are US dollars per million tokens (input, output), standard (non-batch, non-cached) rates.

Source: Anthropic, "Models overview" and per-model pages on platform.claude.com/docs (models and
pricing), read 2026-11-29. Prices change: pass your own table to :class:`~engram_kit.llm.AnthropicLLM`
(``prices=``) when they do. A model missing from the table costs 0.0 (unknown), never a guess.
"""

from __future__ import annotations

from engram_kit.llm.base import LLMUsage

#: Date the table below was read from the source.
PRICES_AS_OF = "2026-11-29"
#: Model id (or id prefix) -> (USD per million input tokens, USD per million output tokens).
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-fable-5-1": (10.0, 50.0),
    "claude-opus-5-5": (4.0, 20.0),
    "claude-opus-5": (5.0, 25.0),
    "claude-sonnet-5-5": (2.0, 10.0),
    "claude-sonnet-5": (2.0, 10.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
}


def price_of(model: str, prices: dict[str, tuple[float, float]] | None = None) -> tuple[float, float] | None:
    """(input, output) USD per million tokens of ``model``: exact id first, else the longest matching
    prefix (``"claude-haiku-4-5-20251001"`` -> ``"claude-haiku-4-5"``); None when unknown."""
    table = PRICES_PER_MTOK if prices is None else prices
    if model in table:
        return table[model]
    matches = [key for key in table if model.startswith(key)]
    return table[max(matches, key=len)] if matches else None


def usage_with_cost(model: str, input_tokens: int, output_tokens: int,
                    prices: dict[str, tuple[float, float]] | None = None) -> LLMUsage:
    """Usage of one call with its cost in USD (0.0 when the model's price is unknown).

    Examples
    --------
    >>> usage_with_cost("claude-haiku-4-5", 1_000_000, 200_000).cost_usd
    2.0
    """
    price = price_of(model, prices)
    cost = 0.0 if price is None else (input_tokens * price[0] + output_tokens * price[1]) / 1e6
    return LLMUsage(input_tokens=int(input_tokens), output_tokens=int(output_tokens), cost_usd=round(cost, 8))
