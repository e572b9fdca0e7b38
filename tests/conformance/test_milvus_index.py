"""The Index conformance suite on Milvus, through milvus-lite in tmp_path (`pytest -m milvus`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tellmemore.index.milvus import MilvusIndex, parse_uri
from tellmemore.testing.conformance import IndexConformance

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


pytestmark = pytest.mark.milvus


class TestMilvusLiteIndex(IndexConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[MilvusIndex]:
        location = parse_uri(
            f"milvus-lite:{tmp_path / 'milvus.db'}", project_dir=tmp_path, collection="chunks"
        )
        idx = MilvusIndex(location, dimension=64, collection="chunks")
        yield idx
        idx.close()
