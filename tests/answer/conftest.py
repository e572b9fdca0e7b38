"""Fixtures shared by the answer tests that run turns over a real handbook."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings

CLEF = Path(__file__).resolve().parents[2] / "bench" / "data" / "clef_handbook"
NOT_DOCUMENTS = ("README.md", "LICENSE.md")


@pytest.fixture(scope="session")
def clef_project(tmp_path_factory: pytest.TempPathFactory, minilm: Any) -> Path:
    """Clef's handbook ingested once with the real MiniLM: the project directory. Tests open
    their own `Assistant` on it with the settings they measure."""
    root = tmp_path_factory.mktemp("clef")
    shutil.copytree(CLEF, root / "docs", ignore=shutil.ignore_patterns(*NOT_DOCUMENTS))
    assistant = Assistant(Settings(project_dir=root / "project"), embedder=minilm)
    assistant.ingest([root / "docs"])
    assistant.close()
    return root / "project"
