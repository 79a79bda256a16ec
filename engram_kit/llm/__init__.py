"""LLM providers: one interface (complete, stream, structured), Anthropic, offline, record/replay."""

from engram_kit.llm.base import LLM, LLMResponse, LLMUsage

__all__ = ["LLM", "LLMResponse", "LLMUsage"]
