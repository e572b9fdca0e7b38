"""The Index conformance suite on the embedded SQLite engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.testing.conformance import IndexConformance


class TestSQLiteIndex(IndexConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[SQLiteIndex]:
        idx = SQLiteIndex(tmp_path / "index.db", dimension=64)
        yield idx
        idx.close()


class TestSQLiteIndexWithHNSW(IndexConformance):
    """The same contract when every search goes through the HNSW graph."""

    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[SQLiteIndex]:
        idx = SQLiteIndex(
            tmp_path / "index.db", dimension=64, hnsw_threshold=0, background_build=False
        )
        yield idx
        idx.close()
