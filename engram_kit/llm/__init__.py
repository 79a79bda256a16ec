"""LLM providers: one interface (complete, stream, structured), Anthropic, offline, record/replay.

* :class:`AnthropicLLM` -- Claude via the official ``anthropic`` SDK (key from argument or
  ``$ANTHROPIC_API_KEY``), retries with backoff, token and cost accounting per call.
* :class:`OfflineLLM` -- deterministic and extractive: returns only sentences found in its input.
* :class:`RecordingLLM` / :class:`ReplayLLM` -- write every exchange to a JSON cassette / answer from
  it with no network, failing loudly on a request that was never recorded.
"""

from engram_kit.llm.anthropic_llm import DEFAULT_MODEL, AnthropicLLM
from engram_kit.llm.base import LLM, LLMResponse, LLMUsage
from engram_kit.llm.cassette import Cassette, RecordingLLM, ReplayLLM, request_hash, request_payload
from engram_kit.llm.factory import PROVIDERS, build_llm
from engram_kit.llm.offline import OfflineLLM
from engram_kit.llm.pricing import PRICES_AS_OF, PRICES_PER_MTOK, usage_with_cost

__all__ = [
    "AnthropicLLM", "Cassette", "PROVIDERS", "build_llm", "DEFAULT_MODEL", "LLM", "LLMResponse", "LLMUsage", "OfflineLLM", "PRICES_AS_OF",
    "PRICES_PER_MTOK", "RecordingLLM", "ReplayLLM", "request_hash", "request_payload", "usage_with_cost",
]
