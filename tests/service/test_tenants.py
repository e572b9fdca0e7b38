"""API keys bind callers to tenants: retrieval, sessions, traces and feedback never cross."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.errors import ConfigError
from tellmemore.service import create_app

from .conftest import ACME, GLOBEX


def test_retrieval_is_filtered_to_the_keys_tenant(tenant_client: TestClient) -> None:
    question = {"message": "how long is the warranty?"}
    acme = tenant_client.post("/v1/chat", json=question, headers=ACME).json()
    globex = tenant_client.post("/v1/chat", json=question, headers=GLOBEX).json()
    assert acme["citations"] and globex["citations"]
    assert all("Acme" in c["snippet"] for c in acme["citations"])
    assert all("Globex" in c["snippet"] for c in globex["citations"])
    assert "three years" in acme["answer"] and "one year" not in acme["answer"]
    assert "one year" in globex["answer"] and "three years" not in globex["answer"]
    # naming the other tenant's product does not reach its document
    probe = tenant_client.post(
        "/v1/chat", json={"message": "Globex hover board warranty"}, headers=ACME
    ).json()
    assert "hover" not in probe["answer"].lower()
    assert all("hover" not in c["snippet"].lower() for c in probe["citations"])


def test_a_session_belongs_to_the_tenant_that_created_it(tenant_client: TestClient) -> None:
    first = tenant_client.post(
        "/v1/chat", json={"message": "rocket skates warranty"}, headers=ACME
    ).json()
    sid, trace_id = first["session_id"], first["trace_id"]
    assert tenant_client.get(f"/v1/sessions/{sid}", headers=ACME).status_code == 200
    assert tenant_client.get(f"/v1/sessions/{sid}", headers=GLOBEX).status_code == 404
    r = tenant_client.post(
        "/v1/chat", json={"message": "and how do I claim it?", "session_id": sid}, headers=GLOBEX
    )
    assert r.status_code == 404
    assert tenant_client.get(f"/v1/traces/{trace_id}", headers=GLOBEX).status_code == 404
    assert tenant_client.get(f"/v1/traces/{trace_id}", headers=ACME).json()["tenant"] == "acme"
    feedback = {"trace_id": trace_id, "rating": "down", "reason": "not mine"}
    assert tenant_client.post("/v1/feedback", json=feedback, headers=GLOBEX).status_code == 404
    correct = {"standalone_query": "hover board warranty"}
    r = tenant_client.post(f"/v1/chat/{trace_id}/correct", json=correct, headers=GLOBEX)
    assert r.status_code == 404
    # the owner still can, and the corrected turn stays inside its tenant
    fixed = tenant_client.post(f"/v1/chat/{trace_id}/correct", json=correct, headers=ACME).json()
    assert "hover" not in fixed["answer"].lower()


def test_a_key_bound_to_no_tenant_is_refused_at_startup(tmp_path, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    settings = Settings.load(tmp_path / "p", service={"api_keys": {"key-1234": ""}})
    with pytest.raises(ConfigError, match="empty tenant"):
        create_app(settings, assistant=Assistant(settings, embedder=fake_embedder))
