"""Shared fixtures: an isolated environment, a fresh project dir, real models loaded once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Property tests draw the same examples on every run, so a red run is reproducible and CI
# is never red by luck; `pytest --hypothesis-profile=explore` (with -m slow for the large
# runs) draws new ones, which is how the cases in their @example lines were found.
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False)
# The ingestion fuzzing tier (tests/reliability/test_ingest_fuzz.py) draws 10 fixed examples
# per test by default; this profile draws 500 new ones each (several minutes).
settings.register_profile("fuzz", derandomize=False, max_examples=500, deadline=None)
settings.load_profile("default")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No TELLMEMORE_* variable or tellmemore.toml from the developer leaks into a test."""
    for key in list(os.environ):
        if key.startswith("TELLMEMORE_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("TELLMEMORE_CONFIG", str(tmp_path / "no-such-tellmemore.toml"))
    yield


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def minilm():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 embedder from the bundled weights, loaded once per session."""
    from tellmemore.index.embedders import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture
def fake_embedder():  # type: ignore[no-untyped-def]
    from tellmemore.testing.fakes import FakeEmbedder

    return FakeEmbedder()


@pytest.fixture(scope="session")
def _sample_project_template(tmp_path_factory: pytest.TempPathFactory, minilm):  # type: ignore[no-untyped-def]
    """The bundled sample corpus ingested once with the real MiniLM."""
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings
    from tellmemore.ingest import sample_corpus_path

    path = tmp_path_factory.mktemp("sample-project")
    assistant = Assistant(Settings(project_dir=path), embedder=minilm)
    assistant.ingest([sample_corpus_path()])
    assistant.close()
    return path


@pytest.fixture
def sample_assistant_with(_sample_project_template: Path, tmp_path: Path, minilm):  # type: ignore[no-untyped-def]
    """Opens fresh copies of the ingested sample project with the shared MiniLM, each with
    its own settings sections (`conversation={"ask_coordinated": True}`); all closed after
    the test."""
    import shutil

    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    opened: list[Assistant] = []

    def open_copy(**sections: object) -> Assistant:
        target = tmp_path / f"sample-project-{len(opened)}"
        shutil.copytree(_sample_project_template, target)
        assistant = Assistant(Settings(project_dir=target, **sections), embedder=minilm)
        opened.append(assistant)
        return assistant

    yield open_copy
    for assistant in opened:
        assistant.close()


@pytest.fixture
def sample_assistant(sample_assistant_with):  # type: ignore[no-untyped-def]
    """A fresh copy of the ingested sample project, opened with the shared MiniLM."""
    return sample_assistant_with()
