"""Fixtures shared by the answer tests that run turns over a real handbook."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings

CLEF = Path(__file__).resolve().parents[2] / "bench" / "data" / "clef_handbook"
BUDGETS = Path(__file__).resolve().parents[1] / "data" / "budgets"
"""Three short budget policies (learning, travel, home office equipment): every policy fits a
question for "the budget", one answers "when do the receipts go to finance?"."""
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


@pytest.fixture(scope="session")
def budgets_project(tmp_path_factory: pytest.TempPathFactory, minilm: Any) -> Path:
    """The three budget policies ingested once with the real MiniLM: the project directory."""
    path = tmp_path_factory.mktemp("budgets")
    assistant = Assistant(Settings(project_dir=path), embedder=minilm)
    assistant.ingest([BUDGETS])
    assistant.close()
    return path


def budgets_assistant(project: Path, tmp_path: Path, minilm: Any, **retrieval: Any) -> Assistant:
    """An `Assistant` on a copy of `budgets_project` (a test's turns stay its own) with these
    retrieval settings."""
    target = tmp_path / "budgets"
    shutil.copytree(project, target)
    return Assistant(Settings(project_dir=target, retrieval=retrieval), embedder=minilm)


def budgets_with(setting: str) -> Callable[..., Iterator[tuple[Assistant, bool]]]:
    """A `budgets` fixture for a module: the budget policies' assistant with the retrieval
    setting `setting` off and on, as (assistant, on)."""

    @pytest.fixture(params=[False, True], ids=[f"{setting} off", f"{setting} on"], name="budgets")
    def fixture(
        request: pytest.FixtureRequest, budgets_project: Path, tmp_path: Path, minilm: Any
    ) -> Iterator[tuple[Assistant, bool]]:
        assistant = budgets_assistant(budgets_project, tmp_path, minilm, **{setting: request.param})
        yield assistant, request.param
        assistant.close()

    return fixture


def with_threshold(monkeypatch: pytest.MonkeyPatch, gate: Any, threshold: float) -> None:
    """`gate`'s bundled scorer (`gate.shipped()`) with this threshold for one test: at 0 it
    says yes to every turn it reads, so what is measured is which turns it reads."""
    scorer = replace(gate.shipped(), threshold=threshold)
    monkeypatch.setattr(gate, "shipped", lambda: scorer)
