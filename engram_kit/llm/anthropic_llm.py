"""Claude through the official ``anthropic`` SDK: complete, stream and structured output.

Retries: the SDK retries rate limits (429), overload (529) and other 5xx/408/409 responses with
exponential backoff (0.5 s doubling to at most 8 s, with jitter, honouring ``retry-after``/``retry-after-ms``
headers); ``max_retries`` sets how many times. After the last retry the SDK error becomes
:class:`~engram_kit.errors.LLMError`.

Keys: taken from the ``api_key`` argument or ``ANTHROPIC_API_KEY``, handed to the SDK client and never
stored on this object, logged, written or shown in ``repr``.

Sampling: Claude 5 models reject non-default sampling parameters (HTTP 400), and SDK 2.x no longer has
a ``temperature`` argument, so ``temperature`` is only sent (as an extra body field) when
``send_temperature=True``.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import ValidationError

from engram_kit.errors import LLMError
from engram_kit.llm.base import LLMResponse, LLMUsage, ModelT
from engram_kit.llm.pricing import usage_with_cost
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

#: Default model: Claude Sonnet 5.5, Anthropic's recommended balance of speed and quality (Nov 2026).
DEFAULT_MODEL = "claude-sonnet-5-5"
#: Environment variable holding the API key.
API_KEY_ENV = "ANTHROPIC_API_KEY"
#: SDK retries on 429/529/5xx before giving up (each waits 0.5 s * 2^n, at most 8 s).
DEFAULT_MAX_RETRIES: int = Settings.llm_max_retries


class AnthropicLLM:
    """Claude chat completions with token and cost accounting per call.

    Parameters
    ----------
    model : str
        Claude model id (default :data:`DEFAULT_MODEL`).
    api_key : str, optional
        API key; default ``$ANTHROPIC_API_KEY``. Never stored on the object or logged.
    base_url : str, optional
        API base URL (a local stub in tests); default the SDK's (``$ANTHROPIC_BASE_URL`` or Anthropic's).
    max_retries : int
        Retries on rate limit / overload / server errors, with the SDK's exponential backoff, >= 0.
    timeout : float
        Seconds per HTTP request.
    prices : dict, optional
        Price table (see :mod:`engram_kit.llm.pricing`); default :data:`~engram_kit.llm.pricing.PRICES_PER_MTOK`.
    send_temperature : bool
        Send ``temperature`` (older models only; Claude 5 models reject it).

    Attributes
    ----------
    calls : list of LLMUsage
        Usage and cost of every successful call, in order (``total_usage`` sums them).

    Raises
    ------
    LLMError
        If no key is given and ``$ANTHROPIC_API_KEY`` is unset.

    Examples
    --------
    >>> llm = AnthropicLLM()                                  # doctest: +SKIP
    >>> llm.complete([{"role": "user", "content": "Name one BACE1 inhibitor."}]).text  # doctest: +SKIP
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, api_key: str | None = None, base_url: str | None = None,
                 max_retries: int = DEFAULT_MAX_RETRIES, timeout: float = 120.0,
                 prices: dict[str, tuple[float, float]] | None = None, send_temperature: bool = False) -> None:
        import anthropic

        key = api_key or os.environ.get(API_KEY_ENV)
        if not key:
            raise LLMError(f"No Anthropic API key: pass api_key=... or set {API_KEY_ENV}; without a key use "
                           "OfflineLLM (extractive) or ReplayLLM (a recorded cassette).")
        self.model = model
        self.name = f"anthropic:{model}"
        self.prices = prices
        self.send_temperature = send_temperature
        self.calls: list[LLMUsage] = []
        self._base_url = base_url
        self._client = anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)

    def __repr__(self) -> str:
        where = f", base_url={self._base_url!r}" if self._base_url else ""
        return f"AnthropicLLM(model={self.model!r}{where})"

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("AnthropicLLM holds an API client and is not picklable (its key must not be written).")

    @property
    def total_usage(self) -> LLMUsage:
        """Summed usage and cost of every call made so far."""
        total = LLMUsage()
        for usage in self.calls:
            total = total + usage
        return total

    # --- the LLM protocol ---------------------------------------------------------------------------
    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                 temperature: float = 0.0) -> LLMResponse:
        """Return the full completion (text blocks concatenated). Raises LLMError after retries."""
        message = self._call(self._client.messages.create, self._request(messages, system, max_tokens, temperature))
        return self._response(message)

    def stream(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
               temperature: float = 0.0) -> Iterator[str]:
        """Yield text deltas as the server sends them (SSE); usage is recorded when the stream ends.

        After the stream is exhausted, :attr:`last_response` holds the final :class:`LLMResponse`.
        """
        import anthropic

        request = self._request(messages, system, max_tokens, temperature)
        try:
            with self._client.messages.stream(**request) as stream:
                yield from stream.text_stream
                final = stream.get_final_message()
        except anthropic.APIError as exc:
            raise _llm_error(exc, self.model) from exc
        self.last_response = self._response(final)

    def structured(self, messages: Sequence[dict[str, str]], schema: type[ModelT], *, system: str = "",
                   max_tokens: int = 1024) -> ModelT:
        """Completion constrained to ``schema``'s JSON schema (structured outputs), validated by pydantic.

        Raises
        ------
        LLMError
            On provider failure, or if the returned JSON does not validate against ``schema``.
        """
        request = self._request(messages, system, max_tokens, 0.0)
        try:  # the SDK validates while parsing; we validate again below to own the error message
            message = self._call(self._client.messages.parse, {**request, "output_format": schema})
        except ValidationError as exc:
            raise LLMError(f"{self.name} returned output that does not match {schema.__name__}: "
                           f"{_first_error(exc)}. Retry, raise max_tokens if the output was cut, or simplify "
                           "the schema.") from exc
        response = self._response(message)
        return parse_structured(response.text, schema, source=self.name)

    # --- internals --------------------------------------------------------------------------------------
    def _request(self, messages: Sequence[dict[str, str]], system: str, max_tokens: int,
                 temperature: float) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "max_tokens": int(max_tokens),
                                   "messages": [dict(m) for m in messages]}
        if system:
            request["system"] = system
        if self.send_temperature:
            request["extra_body"] = {"temperature": float(temperature)}
        return request

    def _call(self, method: Any, request: dict[str, Any]) -> Any:
        import anthropic

        try:
            return method(**request)
        except anthropic.APIError as exc:
            raise _llm_error(exc, self.model) from exc

    def _response(self, message: Any) -> LLMResponse:
        text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
        usage = usage_with_cost(message.model or self.model, message.usage.input_tokens,
                                message.usage.output_tokens, self.prices)
        self.calls.append(usage)
        log.debug("%s: %d in / %d out tokens, $%.6f", self.name, usage.input_tokens, usage.output_tokens,
                  usage.cost_usd)
        response = LLMResponse(text=text, model=message.model or self.model,
                               stop_reason=message.stop_reason or "end_turn", usage=usage)
        self.last_response = response
        return response


def parse_structured(text: str, schema: type[ModelT], *, source: str) -> ModelT:
    """Validate JSON ``text`` into ``schema``; LLMError naming the source and the validation problem."""
    try:
        return schema.model_validate_json(text)
    except ValidationError as exc:
        preview = text[:200].replace("\n", " ")
        raise LLMError(f"{source} returned output that does not match {schema.__name__}: "
                       f"{_first_error(exc)} (output starts {preview!r}). "
                       "Retry, raise max_tokens if the output was cut, or simplify the schema.") from exc


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return str(exc)
    where = ".".join(str(p) for p in errors[0].get("loc", ()))
    return f"{where}: {errors[0]['msg']}" if where else str(errors[0]["msg"])


def _llm_error(exc: Exception, model: str) -> LLMError:
    """The SDK's error as an LLMError naming status, cause and fix (the key is never part of it)."""
    import anthropic

    if isinstance(exc, anthropic.AuthenticationError):
        return LLMError(f"Anthropic rejected the API key (401) for {model}: check {API_KEY_ENV}.")
    if isinstance(exc, anthropic.RateLimitError):
        return LLMError(f"Anthropic rate limit (429) for {model} persisted after retries; wait and retry, "
                        "or raise max_retries.")
    if isinstance(exc, anthropic.APIStatusError):
        detail = _error_detail(exc)
        return LLMError(f"Anthropic API error {exc.status_code} for {model}: {detail}.")
    if isinstance(exc, anthropic.APIConnectionError):
        return LLMError(f"Could not reach the Anthropic API for {model} ({type(exc).__name__}); check the "
                        "network or base_url, or work offline with OfflineLLM / ReplayLLM.")
    return LLMError(f"Anthropic call for {model} failed: {exc}")


def _error_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and "message" in error:
            return str(error["message"])
        return json.dumps(body)[:300]
    return str(exc)[:300]


__all__ = ["API_KEY_ENV", "AnthropicLLM", "DEFAULT_MAX_RETRIES", "DEFAULT_MODEL", "parse_structured"]
