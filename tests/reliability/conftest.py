"""Reliability fixtures: the sample corpus ingested once with the FakeEmbedder (fast, the
real SQLite index and state.db), copied per test; assistants built over such copies."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.ingest import sample_corpus_path
from tellmemore.testing.fakes import FakeEmbedder


@pytest.fixture(scope="session")
def fake_sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample corpus ingested with the FakeEmbedder, once per session (read-only)."""
    root = tmp_path_factory.mktemp("fake-sample") / "project"
    with pytest.MonkeyPatch.context() as mp:  # the per-test env isolation is not active yet
        mp.setenv("TELLMEMORE_CONFIG", str(root.parent / "no-such.toml"))
        settings = Settings.load(root)
    assistant = Assistant(settings, embedder=FakeEmbedder())
    report = assistant.ingest([sample_corpus_path()])
    assert report.chunks_added > 0
    assistant.close()
    return root


@pytest.fixture
def fake_project(fake_sample_template: Path, tmp_path: Path) -> Path:
    """A private copy of the FakeEmbedder sample project (each test writes its own state.db)."""
    dest = tmp_path / "fake-sample"
    shutil.copytree(fake_sample_template, dest)
    return dest


@pytest.fixture
def open_assistant() -> Iterator[Callable[..., Assistant]]:
    """Open an Assistant with the FakeEmbedder on a project dir; closed at the end."""
    opened: list[Assistant] = []

    def make(project: Path, **settings: Any) -> Assistant:
        assistant = Assistant(Settings.load(project, **settings), embedder=FakeEmbedder())
        opened.append(assistant)
        return assistant

    yield make
    for assistant in opened:
        assistant.close()
