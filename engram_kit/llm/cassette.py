"""Record and replay LLM exchanges: a run recorded once with a key replays anywhere with no network.

A **cassette** is a JSON file::

    {"format": "engram-llm-cassette", "version": 1, "recorded_with": "anthropic:claude-sonnet-5-5",
     "exchanges": {"<request hash>": {"kind": "complete" | "stream" | "structured",
                                      "request": {...}, "response": {text, model, stop_reason, usage},
                                      "chunks": [...],            # stream only
                                      "structured": {...}}}}      # structured only: the validated JSON

The **request hash** is the SHA-256 of the canonical JSON (sorted keys, no whitespace) of the call kind,
messages, system prompt, max_tokens, temperature and (structured) the schema's name and JSON schema.
The model name is not part of it, so a cassette recorded with one model replays without knowing it.
API keys are never part of a request, so they never reach a cassette.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engram_kit.files import write_atomic
from engram_kit.errors import LLMError
from engram_kit.llm.base import LLM, LLMResponse, LLMUsage, ModelT

log = logging.getLogger(__name__)

CASSETTE_FORMAT = "engram-llm-cassette"
CASSETTE_VERSION = 1


def request_payload(kind: str, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                    temperature: float = 0.0, schema: type[BaseModel] | None = None) -> dict[str, Any]:
    """The JSON-ready request that is hashed and stored (see module docstring)."""
    payload: dict[str, Any] = {"kind": kind, "messages": [dict(m) for m in messages], "system": system,
                               "max_tokens": int(max_tokens), "temperature": float(temperature)}
    if schema is not None:
        payload["schema"] = {"name": schema.__name__, "json_schema": schema.model_json_schema()}
    return payload


def request_hash(payload: dict[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON of a :func:`request_payload`."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _preview(payload: dict[str, Any], limit: int = 160) -> str:
    last = payload["messages"][-1]["content"] if payload["messages"] else payload.get("system", "")
    text = " ".join(str(last).split())
    return text[:limit] + ("..." if len(text) > limit else "")


def _response_to_dict(response: LLMResponse) -> dict[str, Any]:
    return {"text": response.text, "model": response.model, "stop_reason": response.stop_reason,
            "usage": {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens,
                      "cost_usd": response.usage.cost_usd}}


def _response_from_dict(data: dict[str, Any]) -> LLMResponse:
    return LLMResponse(text=data["text"], model=data["model"], stop_reason=data.get("stop_reason", "end_turn"),
                       usage=LLMUsage(**data.get("usage", {})))


class Cassette:
    """The exchanges of one cassette file, loaded into memory; :meth:`save` writes atomically.

    Raises
    ------
    LLMError
        If the file exists but is not a cassette of a supported format version.
    """

    def __init__(self, path: str | Path, *, recorded_with: str = "", note: str = "") -> None:
        self.path = Path(path)
        self.recorded_with = recorded_with
        self.note = note
        self.exchanges: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LLMError(f"Cannot read the LLM cassette {self.path}: {exc}. Re-record it with RecordingLLM.") from exc
        if data.get("format") != CASSETTE_FORMAT or data.get("version") != CASSETTE_VERSION:
            raise LLMError(f"{self.path} is not an engram-kit LLM cassette (format {CASSETTE_FORMAT!r} "
                           f"v{CASSETTE_VERSION}); re-record it with RecordingLLM.")
        self.recorded_with = data.get("recorded_with", self.recorded_with)
        self.note = data.get("note", self.note)
        self.exchanges = dict(data.get("exchanges", {}))

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.to_dict(), indent=1, sort_keys=True, ensure_ascii=False))

    def __len__(self) -> int:
        return len(self.exchanges)

    def to_dict(self) -> dict[str, Any]:
        data = {"format": CASSETTE_FORMAT, "version": CASSETTE_VERSION, "recorded_with": self.recorded_with,
                "exchanges": self.exchanges}
        if self.note:
            data["note"] = self.note  # provenance, e.g. "scripted responses served by a local stub"
        return data


class RecordingLLM:
    """Wrap a provider and write every exchange to a cassette (saved after each call).

    Parameters
    ----------
    inner : LLM
        The provider that answers (e.g. :class:`~engram_kit.llm.AnthropicLLM`).
    cassette_path : str or Path
        Cassette file; created if missing, extended if present (same request = overwritten).
    reuse : bool
        Answer requests already in the cassette from it instead of calling ``inner`` (re-recording a
        run only pays for the new requests).
    note : str
        Provenance stored in the cassette (how and from what it was recorded).
    """

    def __init__(self, inner: LLM, cassette_path: str | Path, *, reuse: bool = False, note: str = "") -> None:
        self.inner = inner
        self.name = inner.name
        self.reuse = reuse
        self.cassette = Cassette(cassette_path, recorded_with=inner.name, note=note)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RecordingLLM({self.inner!r}, {str(self.cassette.path)!r})"

    def _store(self, key: str, entry: dict[str, Any]) -> None:
        with self._lock:
            self.cassette.exchanges[key] = entry
            self.cassette.save()

    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                 temperature: float = 0.0) -> LLMResponse:
        payload = request_payload("complete", messages, system=system, max_tokens=max_tokens, temperature=temperature)
        key = request_hash(payload)
        if self.reuse and key in self.cassette.exchanges:
            return _response_from_dict(self.cassette.exchanges[key]["response"])
        response = self.inner.complete(messages, system=system, max_tokens=max_tokens, temperature=temperature)
        self._store(key, {"kind": "complete", "request": payload, "response": _response_to_dict(response)})
        return response

    def stream(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
               temperature: float = 0.0) -> Iterator[str]:
        payload = request_payload("stream", messages, system=system, max_tokens=max_tokens, temperature=temperature)
        key = request_hash(payload)
        if self.reuse and key in self.cassette.exchanges:
            yield from self.cassette.exchanges[key]["chunks"]
            return
        chunks: list[str] = []
        for chunk in self.inner.stream(messages, system=system, max_tokens=max_tokens, temperature=temperature):
            chunks.append(chunk)
            yield chunk
        final = getattr(self.inner, "last_response", None)
        text = "".join(chunks)
        if not isinstance(final, LLMResponse) or final.text != text:
            final = LLMResponse(text=text, model=self.inner.name)
        self._store(key, {"kind": "stream", "request": payload, "response": _response_to_dict(final),
                          "chunks": chunks})

    def structured(self, messages: Sequence[dict[str, str]], schema: type[ModelT], *, system: str = "",
                   max_tokens: int = 1024) -> ModelT:
        payload = request_payload("structured", messages, system=system, max_tokens=max_tokens, schema=schema)
        key = request_hash(payload)
        if self.reuse and key in self.cassette.exchanges:
            return schema.model_validate(self.cassette.exchanges[key]["structured"])
        value = self.inner.structured(messages, schema, system=system, max_tokens=max_tokens)
        dumped = value.model_dump(mode="json")
        final = getattr(self.inner, "last_response", None)
        response = final if isinstance(final, LLMResponse) else LLMResponse(json.dumps(dumped), self.inner.name)
        self._store(key, {"kind": "structured", "request": payload, "response": _response_to_dict(response),
                          "structured": dumped})
        return value


class ReplayLLM:
    """Answer only from a cassette: no network, no key; an unrecorded request fails loudly.

    Parameters
    ----------
    cassette_path : str or Path
        A cassette written by :class:`RecordingLLM`.

    Raises
    ------
    LLMError
        At construction if the file is missing or not a cassette; on a call whose request hash is not in
        the cassette (the message names the hash and a preview of the request).
    """

    def __init__(self, cassette_path: str | Path) -> None:
        path = Path(cassette_path)
        if not path.exists():
            raise LLMError(f"No LLM cassette at {path}: record one with RecordingLLM(inner, {str(path)!r}) first.")
        self.cassette = Cassette(path)
        self.name = self.cassette.recorded_with or "replay"
        self.calls: list[LLMUsage] = []

    def __repr__(self) -> str:
        return f"ReplayLLM({str(self.cassette.path)!r}, {len(self.cassette)} exchanges)"

    def _lookup(self, payload: dict[str, Any]) -> dict[str, Any]:
        key = request_hash(payload)
        entry = self.cassette.exchanges.get(key)
        if entry is None:
            raise LLMError(
                f"Unrecorded LLM request {key[:16]} ({payload['kind']}) in replay mode, cassette "
                f"{self.cassette.path}: {_preview(payload)!r}. The prompt or settings changed since recording; "
                "re-record with RecordingLLM (needs a key) or restore the recorded inputs."
            )
        self.calls.append(LLMUsage(**entry["response"].get("usage", {})))
        return entry

    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                 temperature: float = 0.0) -> LLMResponse:
        payload = request_payload("complete", messages, system=system, max_tokens=max_tokens, temperature=temperature)
        return _response_from_dict(self._lookup(payload)["response"])

    def stream(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
               temperature: float = 0.0) -> Iterator[str]:
        payload = request_payload("stream", messages, system=system, max_tokens=max_tokens, temperature=temperature)
        entry = self._lookup(payload)  # fails at the call, before the first chunk is consumed
        return iter(list(entry["chunks"]))

    def structured(self, messages: Sequence[dict[str, str]], schema: type[ModelT], *, system: str = "",
                   max_tokens: int = 1024) -> ModelT:
        payload = request_payload("structured", messages, system=system, max_tokens=max_tokens, schema=schema)
        return schema.model_validate(self._lookup(payload)["structured"])
