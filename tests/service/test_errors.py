"""Every error is an RFC 9457 problem detail with a message that says what to do."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.model

PROBLEM = "application/problem+json"


def check_problem(r, status: int, slug: str) -> dict:  # type: ignore[no-untyped-def]
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["status"] == status
    assert body["type"] == f"urn:tellmemore:problem:{slug}"
    assert body["title"] and body["detail"]
    return body


def test_message_too_long_is_413_with_the_limit(make_client, sample_project) -> None:  # type: ignore[no-untyped-def]
    client = make_client(sample_project, conversation={"max_message_chars": 50})
    body = check_problem(
        client.post("/v1/chat", json={"message": "x" * 51}), 413, "message-too-long"
    )
    assert body["limit"] == 50 and body["length"] == 51
    assert "50" in body["detail"]
    streamed = client.post("/v1/chat", json={"message": "x" * 51, "stream": True})
    check_problem(streamed, 413, "message-too-long")


def test_empty_message_is_422(client: TestClient) -> None:
    body = check_problem(client.post("/v1/chat", json={"message": "  \n "}), 422, "empty-message")
    assert body["instance"] == "/v1/chat"


def test_malformed_body_is_422_naming_the_field(client: TestClient) -> None:
    body = check_problem(client.post("/v1/chat", json={"text": "hi"}), 422, "invalid-request")
    assert "message" in body["detail"]
    assert {tuple(e["loc"]) for e in body["errors"]} >= {("body", "message")}


def test_unknown_session_and_trace_are_404(client: TestClient) -> None:
    check_problem(client.get("/v1/sessions/nope"), 404, "unknown-session")
    check_problem(client.get("/v1/traces/nope"), 404, "unknown-trace")
    r = client.post("/v1/chat", json={"message": "hello there", "session_id": "nope"})
    check_problem(r, 404, "unknown-session")
    check_problem(
        client.post("/v1/chat/nope/correct", json={"standalone_query": "q"}), 404, "unknown-trace"
    )
    r = client.post("/v1/feedback", json={"trace_id": "nope", "rating": "up"})
    check_problem(r, 404, "unknown-trace")


def test_missing_and_bad_keys_are_401(tenant_client: TestClient) -> None:
    r = tenant_client.post("/v1/chat", json={"message": "warranty"})
    body = check_problem(r, 401, "unauthorized")
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert "Authorization: Bearer" in body["detail"]
    r = tenant_client.get("/v1/sessions/x", headers={"Authorization": "Bearer wrong"})
    check_problem(r, 401, "unauthorized")
    r = tenant_client.get("/v1/traces/x", headers={"Authorization": "Basic a2V5"})
    check_problem(r, 401, "unauthorized")


def test_unknown_route_is_a_problem_too(client: TestClient) -> None:
    r = client.get("/v1/nothing-here")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["type"] == "about:blank"


def test_a_failure_mid_stream_ends_with_an_error_event(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tellmemore.errors import EmbeddingError

    from .conftest import parse_sse

    def down(*args: object, **kwargs: object) -> None:
        raise EmbeddingError("the embedding server timed out after 5 retries")

    monkeypatch.setattr(client.app.state.assistant.retriever, "search", down)  # type: ignore[attr-defined]
    r = client.post("/v1/chat", json={"message": "How much is the Pro plan?", "stream": True})
    assert r.status_code == 200  # the stream had started: the error travels in-band
    events = parse_sse(r.text)
    assert [n for n, _ in events] == ["resolution", "error"]
    problem = events[-1][1]
    assert problem["status"] == 503
    assert problem["type"] == "urn:tellmemore:problem:embedder-unavailable"
    assert "timed out" in problem["detail"]
    whole = client.post("/v1/chat", json={"message": "How much is the Pro plan?"})
    check_problem(whole, 503, "embedder-unavailable")


def test_an_unexpected_error_is_a_500_problem_without_internals(
    make_client,
    sample_project,  # type: ignore[no-untyped-def]
) -> None:
    from tellmemore.service.deps import get_assistant

    client = make_client(sample_project)
    client.app.dependency_overrides[get_assistant] = lambda: 1 / 0
    quiet = TestClient(client.app, raise_server_exceptions=False)
    body = check_problem(quiet.get("/v1/traces/x"), 500, "internal")
    assert "ZeroDivisionError" not in body["detail"]


def test_a_body_over_the_limit_is_413_before_it_is_read(sample_project, minilm) -> None:  # type: ignore[no-untyped-def]
    """Over real HTTP on loopback: a declared length over service.max_body_bytes, and a
    chunked body with no length that passes it, are both refused with 413."""
    import httpx

    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings
    from tellmemore.service.app import create_app

    from .servers import serve_in_thread

    config = Settings.load(sample_project, service={"max_body_bytes": 4096})
    assistant = Assistant(config, embedder=minilm)
    try:
        with serve_in_thread(create_app(config, assistant=assistant)) as url:
            history = [{"role": "user", "content": "x" * 3000}] * 3
            declared = httpx.post(
                f"{url}/v1/chat", json={"message": "hi", "history": history}, timeout=30
            )
            body = check_problem(declared, 413, "body-too-large")
            assert body["limit"] == 4096

            def chunks():  # type: ignore[no-untyped-def]
                yield b'{"message": "hi", "history": ['
                for _ in range(10):
                    yield b'{"role": "user", "content": "' + b"x" * 1000 + b'"},'
                yield b'{"role": "user", "content": "x"}]}'

            chunked = httpx.post(
                f"{url}/v1/chat",
                content=chunks(),
                headers={"content-type": "application/json"},
                timeout=30,
            )
            check_problem(chunked, 413, "body-too-large")
            small = httpx.post(f"{url}/v1/chat", json={"message": "what does a day pass cost?"})
            assert small.status_code == 200
    finally:
        assistant.close()


def test_a_lone_surrogate_is_replaced_not_a_crash(client: TestClient) -> None:
    """'\\ud800' is valid JSON but no character: it becomes U+FFFD, plain and streamed."""
    headers = {"content-type": "application/json"}

    def body(**fields: object) -> str:
        return json.dumps({"message": "how much is a day pass \ud800?", **fields})  # as escaped

    r = client.post("/v1/chat", content=body(), headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["message"] == "how much is a day pass \ufffd?"
    with client.stream("POST", "/v1/chat", content=body(stream=True), headers=headers) as s:
        events = [ln.removeprefix("event: ") for ln in s.iter_lines() if ln.startswith("event:")]
    assert events[0] == "resolution" and events[-1] == "done"
