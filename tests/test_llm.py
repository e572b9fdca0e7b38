"""LLMClient against a real OpenAI-compatible HTTP server on loopback (ScriptedLLMServer),
driven by the real `openai` SDK: replies, JSON output, streams, and every fault kind."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pydantic
import pytest

from tellmemore.config import LLMSettings
from tellmemore.errors import LLMError, MissingDependencyError
from tellmemore.llm import LLMClient, retry_after_seconds
from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer

MESSAGES = [{"role": "user", "content": "Say hi"}]


class Out(pydantic.BaseModel):
    query: str
    ambiguous: bool = False


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as s:
        yield s


def client_for(server: ScriptedLLMServer, **overrides: object) -> LLMClient:
    settings = {"base_url": server.base_url, "timeout_s": 2.0, "deadline_s": 5.0, **overrides}
    return LLMClient(LLMSettings(**settings))  # type: ignore[arg-type]


def test_complete_text_sends_the_messages(server: ScriptedLLMServer) -> None:
    server.enqueue("hi there")
    with client_for(server, model="m1", api_key=None) as client:
        assert client.complete_text(MESSAGES) == "hi there"
    req = server.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.body["model"] == "m1"
    assert req.messages == MESSAGES
    assert req.headers["authorization"] == "Bearer not-needed"


def test_complete_json_asks_for_a_schema_and_validates(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.json({"query": "q?", "ambiguous": True}))
    with client_for(server) as client:
        out = client.complete_json(MESSAGES, Out)
    assert out == Out(query="q?", ambiguous=True)
    fmt = server.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"]["properties"]["query"]["type"] == "string"


def test_json_object_when_the_server_has_no_json_schema() -> None:
    with ScriptedLLMServer(supports_json_schema=False) as server:
        server.enqueue('```json\n{"query": "fenced"}\n```', Reply.json({"query": "again"}))
        with client_for(server) as client:
            assert client.complete_json(MESSAGES, Out).query == "fenced"
            assert client.complete_json(MESSAGES, Out).query == "again"
        kinds = [r.body["response_format"]["type"] for r in server.requests]
        assert kinds == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize("content", ["not json {", '{"ambiguous": true}', "[1, 2]"])
def test_malformed_json_is_a_malformed_error(server: ScriptedLLMServer, content: str) -> None:
    server.enqueue(content)
    with client_for(server) as client, pytest.raises(LLMError) as info:
        client.complete_json(MESSAGES, Out)
    assert info.value.kind == "malformed"


def test_empty_reply(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.empty())
    with client_for(server) as client, pytest.raises(LLMError) as info:
        client.complete_text(MESSAGES)
    assert info.value.kind == "empty"


def test_stream_text_yields_pieces(server: ScriptedLLMServer) -> None:
    server.enqueue("Refunds are paid within 14 days [1].")
    with client_for(server) as client:
        pieces = list(client.stream_text(MESSAGES))
    assert len(pieces) > 3
    assert "".join(pieces) == "Refunds are paid within 14 days [1]."
    assert server.requests[0].body["stream"] is True


def test_a_cut_stream_raises_after_the_pieces_it_got(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.cut("one two three four five six", after_chunks=2))
    got: list[str] = []
    with client_for(server) as client, pytest.raises(LLMError) as info:
        for piece in client.stream_text(MESSAGES):
            got.append(piece)
    assert info.value.kind == "stream_cut"
    assert "".join(got) == "one two "


def test_429_waits_the_retry_after_then_succeeds(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.error(429, {"Retry-After": "1"}), "ok")
    with client_for(server, max_retry_after_s=2.0) as client:
        start = time.monotonic()
        assert client.complete_text(MESSAGES) == "ok"
        elapsed = time.monotonic() - start
    assert 0.9 <= elapsed < 3.0
    assert server.requests[1].at - server.requests[0].at >= 0.9


def test_429_with_a_long_retry_after_fails_fast(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.error(429, {"Retry-After": "120"}), "never served")
    with client_for(server, max_retry_after_s=5.0) as client:
        start = time.monotonic()
        with pytest.raises(LLMError) as info:
            client.complete_text(MESSAGES)
    assert info.value.kind == "rate_limit"
    assert time.monotonic() - start < 1.0
    assert server.pending == 1


def test_500_backs_off_and_retries(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.error(500), Reply.error(503), "recovered")
    with client_for(server, max_retries=2) as client:
        assert client.complete_text(MESSAGES) == "recovered"
    assert len(server.requests) == 3


def test_500_past_the_retries_is_a_server_error(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.error(500), Reply.error(500), "unused")
    with client_for(server, max_retries=1) as client, pytest.raises(LLMError) as info:
        client.complete_text(MESSAGES)
    assert info.value.kind == "server"
    assert len(server.requests) == 2


def test_a_client_error_is_not_retried(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.error(401), "unused")
    with client_for(server) as client, pytest.raises(LLMError) as info:
        client.complete_text(MESSAGES)
    assert info.value.kind == "client"
    assert "401" in str(info.value)


def test_timeout_returns_within_the_deadline(server: ScriptedLLMServer) -> None:
    server.enqueue(Reply.delay(3.0))
    with client_for(server, timeout_s=0.5, deadline_s=1.0) as client:
        start = time.monotonic()
        with pytest.raises(LLMError) as info:
            client.complete_text(MESSAGES)
    assert info.value.kind == "timeout"
    assert time.monotonic() - start < 1.5


def test_connection_refused_is_a_connection_error() -> None:
    with ScriptedLLMServer() as server:
        url = server.base_url
    settings = LLMSettings(base_url=url, max_retries=1, deadline_s=3.0)
    with LLMClient(settings) as client, pytest.raises(LLMError) as info:
        client.complete_text(MESSAGES)
    assert info.value.kind == "connection"


def test_no_endpoint_configured_says_how_to_set_one() -> None:
    with pytest.raises(LLMError, match="TELLMEMORE_LLM__BASE_URL"):
        LLMClient(LLMSettings())


def test_missing_openai_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingDependencyError, match=r"tellmemore\[llm\]"):
        LLMClient(LLMSettings(base_url="http://127.0.0.1:9/v1"))


def test_an_exhausted_script_answers_500(server: ScriptedLLMServer) -> None:
    with client_for(server, max_retries=0) as client, pytest.raises(LLMError) as info:
        client.complete_text(MESSAGES)
    assert "no scripted reply left" in str(info.value)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"retry-after": "3"}, 3.0), ({"retry-after-ms": "1500"}, 1.5), ({}, None),
     ({"retry-after": "soon"}, None)],
)  # fmt: skip
def test_retry_after_parsing(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_seconds(headers) == expected
