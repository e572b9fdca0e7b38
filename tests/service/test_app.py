"""The app around the routes: health, the web chat's files, OpenAPI, overridable deps."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.service import create_app
from tellmemore.service.deps import get_assistant


def _app_client(project: Path, fake_embedder, **settings) -> TestClient:  # type: ignore[no-untyped-def]
    config = Settings.load(project, **settings)
    return TestClient(create_app(config, assistant=Assistant(config, embedder=fake_embedder)))


def test_health_does_not_need_a_key_or_the_model(project_dir: Path, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    client = _app_client(project_dir, fake_embedder, service={"api_keys": {"k-0001": "t"}})
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "version": "0.1.0", "api_version": "1", "auth": True}
    assert fake_embedder.calls == 0


def test_web_chat_is_served_from_the_same_app(project_dir: Path, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    client = _app_client(project_dir, fake_embedder)
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/static/chat.js"' in page.text
    assert 'name="viewport"' in page.text
    js = client.get("/static/chat.js")
    assert js.status_code == 200 and "/v1/chat" in js.text and "/correct" in js.text
    assert client.get("/static/chat.css").status_code == 200


def test_openapi_lists_every_v1_route(project_dir: Path, fake_embedder) -> None:  # type: ignore[no-untyped-def]
    client = _app_client(project_dir, fake_embedder)
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths) == {
        "/v1/chat",
        "/v1/chat/completions",
        "/v1/chat/{trace_id}/correct",
        "/v1/models",
        "/v1/models/{model}",
        "/v1/feedback",
        "/v1/traces/{trace_id}",
        "/v1/sessions/{session_id}",
        "/healthz",
    }
    assert client.get("/docs").status_code == 200


def test_dependencies_can_be_overridden(project_dir: Path, fake_embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    client = _app_client(project_dir, fake_embedder)
    other = Assistant(Settings.load(tmp_path / "other"), embedder=fake_embedder)
    client.app.dependency_overrides[get_assistant] = lambda: other  # type: ignore[attr-defined]
    client.post("/v1/feedback", json={"trace_id": "t", "rating": "up"})
    assert (tmp_path / "other" / "state.db").exists()
    other.close()
