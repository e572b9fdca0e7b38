"""`open_index`: the index engine that `settings.index.uri` names."""

from __future__ import annotations

from pathlib import Path

from tellmemore.config import Settings
from tellmemore.errors import ConfigError
from tellmemore.index.base import Index

_MILVUS_PREFIXES = ("milvus://", "http://", "https://", "milvus-lite:")
VALID_URIS = (
    "none (the SQLite index.db in the project dir), a file path or sqlite:PATH (SQLite); "
    "milvus://HOST:PORT, http(s)://HOST:PORT or milvus-lite:PATH (Milvus)"
)


def open_index(settings: Settings, *, dimension: int, embedder: str | None = None) -> Index:
    """Open (or create) the index of these settings for vectors of `dimension`.

    `embedder` names the embedder that writes the vectors; an index built with
    another one refuses to open (see `SQLiteIndex`).
    """
    uri = settings.index.uri
    if uri is None or not uri.strip():
        path = settings.index_path
    elif uri.startswith(_MILVUS_PREFIXES):
        from tellmemore.index.milvus import open_milvus

        return open_milvus(settings, dimension=dimension, embedder=embedder)
    elif "://" in uri and not uri.startswith("sqlite:"):
        raise ConfigError(f"index.uri={uri!r} has an unknown scheme; valid values: {VALID_URIS}")
    else:
        path = Path(uri.removeprefix("sqlite:")).expanduser()
    from tellmemore.index.sqlite import SQLiteIndex

    return SQLiteIndex(
        path,
        dimension=dimension,
        hnsw_threshold=settings.index.hnsw_threshold,
        embedder=embedder,
    )
