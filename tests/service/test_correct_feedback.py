"""Correcting a binding re-answers and links the traces; feedback lands in state.db."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.model

CORRECTED = "does enterprise escalation on cloud connect cover weekends?"


def _follow_up(client: TestClient) -> dict:  # type: ignore[type-arg]
    first = client.post(
        "/v1/chat", json={"message": "what escalation options do we have on cloud connect"}
    ).json()
    return client.post(
        "/v1/chat",
        json={"message": "does that one cover weekends?", "session_id": first["session_id"]},
    ).json()


def test_correct_reanswers_with_the_query_and_links_both_traces(
    client: TestClient, sample_project: Path
) -> None:
    original = _follow_up(client)
    r = client.post(
        f"/v1/chat/{original['trace_id']}/correct", json={"standalone_query": CORRECTED}
    )
    assert r.status_code == 200
    fixed = r.json()
    assert fixed["trace_id"] != original["trace_id"]
    assert fixed["standalone_query"] == CORRECTED
    assert fixed["message"] == original["message"]
    assert fixed["session_id"] == original["session_id"]
    assert any("Enterprise" in " ".join(c["section"]) for c in fixed["citations"])
    parent = client.get(f"/v1/traces/{original['trace_id']}").json()
    child = client.get(f"/v1/traces/{fixed['trace_id']}").json()
    assert parent["children"] == [fixed["trace_id"]]
    assert child["parent_trace_id"] == original["trace_id"]
    assert child["resolution"]["resolver"] == "user-corrected"
    with sqlite3.connect(sample_project / "state.db") as db:
        assert db.execute("SELECT COUNT(*) FROM traces").fetchone()[0] == 3


def test_correct_refuses_an_empty_query(client: TestClient) -> None:
    original = _follow_up(client)
    r = client.post(f"/v1/chat/{original['trace_id']}/correct", json={"standalone_query": " "})
    assert r.status_code == 422
    assert "standalone_query" in r.json()["detail"]


def test_feedback_is_stored_next_to_its_trace(client: TestClient, sample_project: Path) -> None:
    answer = client.post("/v1/chat", json={"message": "How much is the Pro plan?"}).json()
    r = client.post(
        "/v1/feedback",
        json={"trace_id": answer["trace_id"], "rating": "down", "reason": "  wrong plan  "},
    )
    assert r.status_code == 201
    assert r.json()["reason"] == "wrong plan"
    with sqlite3.connect(sample_project / "state.db") as db:
        rows = db.execute("SELECT trace_id, rating, reason FROM feedback").fetchall()
    assert rows == [(answer["trace_id"], "down", "wrong plan")]
    trace = client.get(f"/v1/traces/{answer['trace_id']}").json()
    assert [(f["rating"], f["reason"]) for f in trace["feedback"]] == [("down", "wrong plan")]


def test_feedback_rating_must_be_up_or_down(client: TestClient) -> None:
    answer = client.post("/v1/chat", json={"message": "How much is the Pro plan?"}).json()
    r = client.post("/v1/feedback", json={"trace_id": answer["trace_id"], "rating": "meh"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["loc"] == ["body", "rating"]
