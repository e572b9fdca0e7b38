"""Service fixtures: the sample corpus ingested once with the real MiniLM, copied per test;
a two-tenant project on the FakeEmbedder; apps and clients built from them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.service import create_app

KEYS = {"key-acme-0001": "acme", "key-globex-0002": "globex"}
ACME = {"Authorization": "Bearer key-acme-0001"}
GLOBEX = {"X-API-Key": "key-globex-0002"}


@pytest.fixture(scope="session")
def sample_project_template(tmp_path_factory: pytest.TempPathFactory, minilm: Any) -> Path:
    """The bundled sample corpus ingested with MiniLM, once per test session (read-only)."""
    from tellmemore.ingest import sample_corpus_path

    root = tmp_path_factory.mktemp("sample") / "project"
    with pytest.MonkeyPatch.context() as mp:  # the per-test env isolation is not active yet
        mp.setenv("TELLMEMORE_CONFIG", str(root.parent / "no-such.toml"))
        settings = Settings.load(root)
    assistant = Assistant(settings, embedder=minilm)
    report = assistant.ingest([sample_corpus_path()], sync=True)
    assert report.chunks_added > 0
    assistant.close()
    return root


@pytest.fixture
def sample_project(sample_project_template: Path, tmp_path: Path) -> Path:
    """A private copy, so each test writes its own state.db."""
    dest = tmp_path / "sample-project"
    shutil.copytree(sample_project_template, dest)
    return dest


@pytest.fixture
def make_client(minilm: Any) -> Iterator[Callable[..., TestClient]]:
    """Build a TestClient for a project dir (lifespan run, assistant closed at the end)."""
    opened: list[tuple[TestClient, Assistant]] = []

    def make(project: Path, *, embedder: Any = None, **settings: Any) -> TestClient:
        config = Settings.load(project, **settings)
        assistant = Assistant(config, embedder=embedder or minilm)
        client = TestClient(create_app(config, assistant=assistant))
        client.__enter__()
        opened.append((client, assistant))
        return client

    yield make
    for client, assistant in opened:
        client.__exit__(None, None, None)
        assistant.close()


@pytest.fixture
def client(make_client: Callable[..., TestClient], sample_project: Path) -> TestClient:
    return make_client(sample_project)


@pytest.fixture
def tenant_project(tmp_path: Path, minilm: Any) -> Path:
    """Two tenants, each with one document that only it may see (real MiniLM vectors: the
    abstention floor is calibrated for its cosines, not for the hashing fake's)."""
    docs = tmp_path / "docs"
    for tenant, text in {
        "acme": "# Acme rocket skates warranty\n\nAcme rocket skates carry a warranty of "
        "three years. Rocket skates warranty claims go to the Acme service desk.\n",
        "globex": "# Globex hover board warranty\n\nGlobex hover boards carry a warranty of "
        "one year. Hover board warranty claims go to the Globex repair shop.\n",
    }.items():
        (docs / tenant).mkdir(parents=True)
        (docs / tenant / "warranty.md").write_text(text, encoding="utf-8")
    project = tmp_path / "tenants"
    assistant = Assistant(Settings.load(project), embedder=minilm)
    for tenant in ("acme", "globex"):
        assistant.ingest([docs / tenant], tenant=tenant, sync=False)
    assistant.close()
    return project


@pytest.fixture
def tenant_client(make_client: Callable[..., TestClient], tenant_project: Path) -> TestClient:
    return make_client(tenant_project, service={"api_keys": KEYS})


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Frames of a text/event-stream body as (event, data) pairs."""
    import json

    events: list[tuple[str, dict[str, Any]]] = []
    for frame in text.replace("\r\n", "\n").split("\n\n"):
        if not frame.strip():
            continue
        name, data = "message", []
        for line in frame.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        events.append((name, json.loads("\n".join(data))))
    return events


@pytest.fixture
def live_server(minilm: Any) -> Iterator[Callable[..., str]]:
    """Serve a project with real uvicorn on loopback; returns the base URL."""
    from contextlib import ExitStack

    from .servers import serve_in_thread

    with ExitStack() as stack:

        def start(project: Path, **settings: Any) -> str:
            config = Settings.load(project, **settings)
            assistant = Assistant(config, embedder=minilm)
            stack.callback(assistant.close)
            return stack.enter_context(serve_in_thread(create_app(config, assistant=assistant)))

        yield start
