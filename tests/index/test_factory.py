"""open_index routes on settings.index.uri."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.config import Settings
from tellmemore.errors import ConfigError
from tellmemore.index import SQLiteIndex, open_index


def test_default_is_sqlite_in_the_project_dir(project_dir: Path) -> None:
    settings = Settings.load(project_dir)
    index = open_index(settings, dimension=8)
    assert isinstance(index, SQLiteIndex)
    assert index.path == project_dir / "index.db"
    assert index.path.exists()
    index.close()


@pytest.mark.parametrize("prefix", ["", "sqlite:"])
def test_a_path_opens_sqlite_there(tmp_path: Path, prefix: str) -> None:
    target = tmp_path / "elsewhere" / "my.db"
    settings = Settings.load(tmp_path, index={"uri": f"{prefix}{target}", "hnsw_threshold": 7})
    index = open_index(settings, dimension=8, embedder="e")
    assert isinstance(index, SQLiteIndex)
    assert (index.path, index.hnsw_threshold, index.embedder_name) == (target, 7, "e")
    index.close()


def test_an_unknown_scheme_lists_the_valid_ones(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path, index={"uri": "postgres://db"})
    with pytest.raises(ConfigError, match=r"unknown scheme.*milvus-lite:PATH"):
        open_index(settings, dimension=8)


def test_index_package_exports_are_sorted_and_importable() -> None:
    import tellmemore.index as package

    assert package.__all__ == sorted(package.__all__)
    for name in package.__all__:
        assert hasattr(package, name), name
