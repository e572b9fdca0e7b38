"""Hostile requests to the service (issue 24): each gets a documented 4xx problem, never a 500."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tellmemore.assistant import Assistant
from tellmemore.service.app import create_app

PROBLEM = "application/problem+json"
JSON = {"content-type": "application/json"}


@pytest.fixture
def client(fake_project: Path, open_assistant: Callable[..., Assistant]) -> Iterator[TestClient]:
    assistant = open_assistant(fake_project)
    with TestClient(
        create_app(assistant.settings, assistant=assistant), raise_server_exceptions=False
    ) as c:
        yield c


def _problem(r, status: int, slug: str) -> dict:  # type: ignore[no-untyped-def]
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["type"] == f"urn:tellmemore:problem:{slug}"
    return body


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/v1/chat", '{"message": "day pass?", "session_id": "\\ud800"}'),
        ("/v1/chat", '{"message": "day pass?", "session_id": "ab\\udfffcd", "stream": true}'),
        ("/v1/feedback", '{"trace_id": "\\ud800", "rating": "up"}'),
    ],
)
def test_a_lone_surrogate_in_an_id_is_a_422_problem(
    client: TestClient, url: str, body: str
) -> None:
    r = client.post(url, content=body, headers=JSON)
    problem = _problem(r, 422, "invalid-request")
    assert "surrogate" in problem["detail"]
    # The connection keeps serving: the next request on the same client works.
    assert client.get("/healthz").status_code == 200


def test_a_lone_surrogate_in_a_feedback_reason_is_replaced(client: TestClient) -> None:
    trace = client.post("/v1/chat", json={"message": "how much is a day pass?"}).json()["trace_id"]
    body = '{"trace_id": "TRACE", "rating": "down", "reason": "wrong \\ud800 price"}'
    body = body.replace("TRACE", trace)
    r = client.post("/v1/feedback", content=body, headers=JSON)
    assert r.status_code == 201, r.text
    assert r.json()["reason"] == "wrong \ufffd price"


def test_an_invalid_utf8_body_is_a_documented_problem(client: TestClient) -> None:
    r = client.post("/v1/chat", content=b'{"message": "caf\xe9"}', headers=JSON)
    problem = _problem(r, 422, "invalid-request")
    assert "UTF-8" in problem["detail"]
    table = (Path(__file__).parents[2] / "docs" / "service.md").read_text()
    assert "not valid UTF-8" in table
