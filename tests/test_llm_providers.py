"""LLM providers: the real ``anthropic`` SDK against a local Messages API stub, offline, record/replay.

The stub (``127.0.0.1``, random port) speaks the Messages API: plain JSON and SSE streaming, and can
answer 429 first to exercise the SDK's retry with backoff. No test needs a key or the network.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pydantic import BaseModel

from engram_kit.errors import LLMError
from engram_kit.llm import (
    AnthropicLLM,
    OfflineLLM,
    RecordingLLM,
    ReplayLLM,
    request_hash,
    request_payload,
    usage_with_cost,
)

CASSETTES = Path(__file__).parent / "cassettes"
FAKE_KEY = "sk-ant-test-" + "0" * 20


class Targets(BaseModel):
    gene: str
    compounds: list[str]


class Stub:
    """State of the stub server: queued responses and every request received."""

    def __init__(self) -> None:
        self.queue: list[tuple[int, dict[str, str], bytes, str]] = []
        self.requests: list[dict] = []

    def reply_json(self, body: dict, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.queue.append((status, headers or {}, json.dumps(body).encode(), "application/json"))

    def reply_sse(self, events: list[tuple[str, dict]]) -> None:
        data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events).encode()
        self.queue.append((200, {}, data, "text/event-stream"))


def message(text: str, *, input_tokens: int = 12, output_tokens: int = 7, model: str = "claude-sonnet-5-5") -> dict:
    return {"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def sse_message(chunks: list[str], *, input_tokens: int = 20, output_tokens: int = 9,
                model: str = "claude-sonnet-5-5") -> list[tuple[str, dict]]:
    start = message("", input_tokens=input_tokens, output_tokens=1, model=model)
    start["content"], start["stop_reason"] = [], None
    events = [("message_start", {"type": "message_start", "message": start}),
              ("content_block_start", {"type": "content_block_start", "index": 0,
                                       "content_block": {"type": "text", "text": ""}})]
    events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": c}}) for c in chunks]
    events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
               ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                  "usage": {"output_tokens": output_tokens}}),
               ("message_stop", {"type": "message_stop"})]
    return events


@contextmanager
def messages_api_stub() -> Iterator[tuple[Stub, str]]:
    """Serve the Messages API stub on 127.0.0.1 (random port); yield its state and base URL."""
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # http.server API
            length = int(self.headers.get("content-length", 0))
            state.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                   "body": json.loads(self.rfile.read(length) or b"{}")})
            if not state.queue:
                empty = b'{"type":"error","error":{"type":"api_error","message":"no queued reply"}}'
                status, headers, body, ctype = 500, {}, empty, "application/json"
            else:
                status, headers, body, ctype = state.queue.pop(0)
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def stub() -> Iterator[tuple[Stub, str]]:
    with messages_api_stub() as served:
        yield served


def test_complete_retries_429_and_accounts_tokens(stub, caplog):
    state, url = stub
    state.reply_json({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}, status=429,
                     headers={"retry-after-ms": "20"})
    state.reply_json(message("BACE1 is beta-secretase 1.", input_tokens=1000, output_tokens=500))
    llm = AnthropicLLM("claude-sonnet-5-5", api_key=FAKE_KEY, base_url=url, max_retries=2)
    with caplog.at_level(logging.DEBUG):
        response = llm.complete([{"role": "user", "content": "What is BACE1?"}], system="Be brief.")
    assert response.text == "BACE1 is beta-secretase 1."
    assert len(state.requests) == 2  # the 429, then the retry
    body = state.requests[-1]["body"]
    assert body["model"] == "claude-sonnet-5-5" and body["system"] == "Be brief."
    assert "temperature" not in body  # Claude 5 rejects non-default sampling parameters
    assert state.requests[-1]["headers"]["authorization"] == f"Bearer {FAKE_KEY}"  # SDK 2.x auth header
    # Sonnet 5.5: $2 / $10 per million tokens -> 1000 * 2e-6 + 500 * 1e-5 = 0.007
    assert response.usage.input_tokens == 1000 and response.usage.output_tokens == 500
    assert response.usage.cost_usd == pytest.approx(0.007)
    assert llm.total_usage.cost_usd == pytest.approx(0.007) and len(llm.calls) == 1
    assert FAKE_KEY not in repr(llm) and FAKE_KEY not in caplog.text


def test_rate_limit_after_retries_is_llm_error(stub):
    state, url = stub
    for _ in range(2):
        state.reply_json({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
                         status=429, headers={"retry-after-ms": "5"})
    llm = AnthropicLLM(api_key=FAKE_KEY, base_url=url, max_retries=1)
    with pytest.raises(LLMError, match="rate limit"):
        llm.complete([{"role": "user", "content": "hi"}])
    assert len(state.requests) == 2


def test_stream_sse_chunks_and_usage(stub):
    state, url = stub
    state.reply_sse(sse_message(["Metformin ", "treats ", "type 2 diabetes."], input_tokens=40, output_tokens=9,
                               model="claude-haiku-4-5-20251001"))
    llm = AnthropicLLM("claude-haiku-4-5", api_key=FAKE_KEY, base_url=url)
    chunks = list(llm.stream([{"role": "user", "content": "What does metformin treat?"}]))
    assert chunks == ["Metformin ", "treats ", "type 2 diabetes."]
    assert state.requests[0]["body"]["stream"] is True
    assert llm.last_response.text == "".join(chunks)
    assert llm.last_response.usage.output_tokens == 9
    assert llm.last_response.usage.cost_usd == pytest.approx((40 * 1.0 + 9 * 5.0) / 1e6)


def test_structured_sends_json_schema_and_validates(stub):
    state, url = stub
    state.reply_json(message(json.dumps({"gene": "BACE1", "compounds": ["verubecestat"]})))
    state.reply_json(message(json.dumps({"gene": "BACE1"})))  # missing a required field
    llm = AnthropicLLM(api_key=FAKE_KEY, base_url=url)
    value = llm.structured([{"role": "user", "content": "BACE1 binders?"}], Targets)
    assert value == Targets(gene="BACE1", compounds=["verubecestat"])
    fmt = state.requests[0]["body"]["output_config"]["format"]
    assert fmt["type"] == "json_schema" and set(fmt["schema"]["properties"]) == {"gene", "compounds"}
    with pytest.raises(LLMError, match="does not match Targets"):
        llm.structured([{"role": "user", "content": "BACE1 binders?"}], Targets)


def test_missing_key_is_llm_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LLMError, match="ANTHROPIC_API_KEY"):
        AnthropicLLM()


def test_price_table_prefix_and_unknown():
    assert usage_with_cost("claude-haiku-4-5-20251001", 2_000_000, 0).cost_usd == pytest.approx(2.0)
    assert usage_with_cost("some-unknown-model", 10, 10).cost_usd == 0.0


# --- offline -----------------------------------------------------------------------------------------
CONTEXT = ("[P1] Metformin is a first-line treatment for type 2 diabetes. It lowers hepatic glucose output.\n"
           "[P2] BACE1 cleaves the amyloid precursor protein.\n"
           "Question: What does metformin treat?")


def test_offline_is_extractive_and_deterministic():
    llm = OfflineLLM(max_sentences=2)
    messages = [{"role": "user", "content": CONTEXT}]
    first = llm.complete(messages)
    assert first.text == "[P1] Metformin is a first-line treatment for type 2 diabetes."
    assert llm.complete(messages) == first
    assert "".join(llm.stream(messages)) == first.text
    # every output sentence is verbatim from the input
    for sentence in first.text.split("[P1] ")[1:]:
        assert sentence.strip() in CONTEXT
    empty = llm.complete([{"role": "user", "content": "[P1] Rain is wet.\nQuestion: what does metformin treat?"}])
    assert empty.text == "" and empty.stop_reason == "no_evidence"


def test_offline_structured_never_invents():
    llm = OfflineLLM()
    value = llm.structured([{"role": "user", "content": 'Known: {"gene": "APP", "compounds": ["x"]}'}], Targets)
    assert value.gene == "APP"
    with pytest.raises(LLMError, match="never invents"):
        llm.structured([{"role": "user", "content": "Which compounds bind BACE1?"}], Targets)


# --- record / replay -----------------------------------------------------------------------------------
def test_record_then_replay_without_network(stub, tmp_path):
    state, url = stub
    state.reply_json(message("Donepezil treats Alzheimer's disease.", input_tokens=10, output_tokens=6))
    state.reply_sse(sse_message(["Done", "pezil."]))
    state.reply_json(message(json.dumps({"gene": "ACHE", "compounds": ["donepezil"]})))
    cassette = tmp_path / "run.json"
    recorder = RecordingLLM(AnthropicLLM(api_key=FAKE_KEY, base_url=url), cassette)
    ask = [{"role": "user", "content": "What treats Alzheimer's?"}]
    recorded = recorder.complete(ask)
    streamed = list(recorder.stream(ask))
    structured = recorder.structured(ask, Targets)
    assert FAKE_KEY not in cassette.read_text()

    replay = ReplayLLM(cassette)
    assert replay.complete(ask) == recorded
    assert list(replay.stream(ask)) == streamed == ["Done", "pezil."]
    assert replay.structured(ask, Targets) == structured
    assert replay.calls[0].input_tokens == 10
    assert len(state.requests) == 3  # replay made no request

    other = [{"role": "user", "content": "What treats Parkinson's disease?"}]
    key = request_hash(request_payload("complete", other))
    with pytest.raises(LLMError, match=key[:16]) as err:
        replay.complete(other)
    assert "Parkinson" in str(err.value)
    with pytest.raises(LLMError, match="Unrecorded"):
        replay.stream(other)


def test_committed_cassette_replays_offline():
    """A cassette committed under tests/cassettes (recorded through the stub SDK path) replays."""
    replay = ReplayLLM(CASSETTES / "llm_providers.json")
    ask = [{"role": "user", "content": "What treats Alzheimer's?"}]
    assert replay.complete(ask).text == "Donepezil treats Alzheimer's disease."
    assert replay.structured(ask, Targets).compounds == ["donepezil"]
    assert "".join(replay.stream(ask)) == "Donepezil."


def test_missing_cassette_is_llm_error(tmp_path):
    with pytest.raises(LLMError, match="RecordingLLM"):
        ReplayLLM(tmp_path / "nope.json")
