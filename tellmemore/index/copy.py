"""Copy an index to another engine: chunks and their stored vectors, no re-embedding, resumable.

`tellmemore index copy --to URI` calls `copy_index(open_source(settings),
open_target(settings, uri))`. The source is read in chunk-id order, in
batches; each batch is one upsert into the target. The target is its own
checkpoint: before copying, the target's `ids()` (id -> content hash) are
read once, and a chunk already there with the same non-empty content hash is
skipped. So a copy killed halfway resumes where its last committed batch
ended, and a copy rerun after the source changed sends only what changed
(`--prune` also deletes from the target the chunks the source no longer has).

Works between any two engines (SQLite -> Milvus to scale out, Milvus ->
SQLite to switch back, Milvus -> Milvus to move servers). The dimension and
the embedder name travel with the data, so the target refuses later writes
from another embedder. Memory: the target's id -> hash map (about 200 bytes
per chunk in Python, ~200 MB per million chunks) plus one batch.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tellmemore.config import Settings
from tellmemore.errors import ConfigError, IndexError_
from tellmemore.index.base import Index, Vector
from tellmemore.types import Chunk

_MILVUS_PREFIXES = ("milvus://", "http://", "https://", "milvus-lite:")

Progress = Callable[[int, int], None]
"""Called after each batch with (chunks done, chunks in the source)."""


@dataclass(frozen=True)
class CopyReport:
    """What one copy did. `copied + skipped == total` when it ran to the end."""

    source: str
    target: str
    total: int
    copied: int
    skipped: int
    pruned: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "total": self.total,
            "copied": self.copied,
            "skipped": self.skipped,
            "pruned": self.pruned,
            "seconds": round(self.seconds, 3),
        }


# -- opening both ends ------------------------------------------------------------------


def describe(settings: Settings) -> str:
    """The index a settings object names, as a user would write it."""
    uri = settings.index.uri
    return str(settings.index_path) if uri is None or not uri.strip() else uri


def _sqlite_path(settings: Settings) -> Path:
    uri = settings.index.uri
    if uri is None or not uri.strip():
        return settings.index_path
    return Path(uri.removeprefix("sqlite:")).expanduser()


def _is_milvus(settings: Settings) -> bool:
    return (settings.index.uri or "").startswith(_MILVUS_PREFIXES)


def with_uri(settings: Settings, uri: str) -> Settings:
    """The same settings pointing at another index."""
    return settings.model_copy(update={"index": settings.index.model_copy(update={"uri": uri})})


def open_source(settings: Settings) -> Index:
    """The existing index of these settings, at its stored dimension (no embedder loaded)."""
    if _is_milvus(settings):
        from tellmemore.index.milvus import open_milvus

        return open_milvus(settings, dimension=None)
    path = _sqlite_path(settings)
    if not path.is_file():
        raise IndexError_(f"no index at {path}; ingest documents first (tellmemore ingest)")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        finally:
            conn.close()
        dimension = int(meta["dimension"])
    except (sqlite3.DatabaseError, KeyError, ValueError) as exc:
        raise IndexError_(f"{path} is not a readable tellmemore index: {exc}") from exc
    from tellmemore.index.sqlite import SQLiteIndex

    return SQLiteIndex(path, dimension=dimension, embedder=meta.get("embedder") or None)


def open_target(settings: Settings, uri: str, source: Index) -> Index:
    """The index at `uri` (created if new) for the source's dimension and embedder."""
    target_settings = with_uri(settings, uri)
    if describe(target_settings) == describe(settings) or (
        not _is_milvus(settings)
        and not _is_milvus(target_settings)
        and _sqlite_path(target_settings).resolve() == _sqlite_path(settings).resolve()
    ):
        raise ConfigError(f"--to {uri!r} is the source index itself; name another index")
    from tellmemore.index.factory import open_index

    dimension = int(getattr(source, "dimension", 0))
    embedder = getattr(source, "embedder_name", "") or None
    return open_index(target_settings, dimension=dimension, embedder=embedder)


# -- reading the source -----------------------------------------------------------------


def export_batches(index: Index, batch_size: int) -> Iterator[list[tuple[Chunk, Vector]]]:
    """Every chunk of `index` with its stored vector, in id order, `batch_size` at a time."""
    export = getattr(index, "export", None)
    if callable(export):
        yield from export(batch_size)
        return
    path = getattr(index, "path", None)
    if getattr(index, "engine", "") == "sqlite" and path is not None:
        yield from _export_sqlite(index, Path(path), batch_size)
        return
    raise IndexError_(f"cannot read chunks and vectors out of {index!r}: no export for its engine")


def _export_sqlite(index: Any, path: Path, batch_size: int) -> Iterator[list[tuple[Chunk, Vector]]]:
    """Keyset pages over `chunks(id, vector)`; the chunks themselves come from `index.get`."""
    dimension = int(index.dimension)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        after = ""
        while True:
            rows = conn.execute(
                "SELECT id, vector FROM chunks WHERE id > ? ORDER BY id LIMIT ?",
                (after, batch_size),
            ).fetchall()
            if not rows:
                return
            after = rows[-1][0]
            vectors = {
                cid: np.frombuffer(blob, dtype=np.float32, count=dimension) for cid, blob in rows
            }
            chunks = index.get([cid for cid, _ in rows])
            yield [(c, vectors[c.id]) for c in chunks]
    finally:
        conn.close()


# -- the copy ---------------------------------------------------------------------------


def copy_index(
    source: Index,
    target: Index,
    *,
    batch_size: int = 256,
    prune: bool = False,
    progress: Progress | None = None,
    source_name: str = "",
    target_name: str = "",
) -> CopyReport:
    """Copy every chunk and vector from `source` to `target`, skipping what is already there."""
    if batch_size < 1:
        raise ConfigError(f"copy batch size must be >= 1, got {batch_size}")
    source_dim = getattr(source, "dimension", None)
    target_dim = getattr(target, "dimension", None)
    if source_dim is not None and target_dim is not None and source_dim != target_dim:
        raise IndexError_(
            f"the source holds vectors of dimension {source_dim}, the target {target_dim}; "
            "copy into an empty index or another collection"
        )
    started = time.perf_counter()
    total = source.count()
    present = target.ids()
    seen: set[str] = set()
    copied = skipped = done = 0
    if progress is not None:
        progress(0, total)
    for batch in export_batches(source, batch_size):
        todo = []
        for chunk, vector in batch:
            seen.add(chunk.id)
            if chunk.content_hash and present.get(chunk.id) == chunk.content_hash:
                skipped += 1
            else:
                todo.append((chunk, vector))
        if todo:
            target.upsert([c for c, _ in todo], np.stack([v for _, v in todo]))
            copied += len(todo)
        done += len(batch)
        if progress is not None:
            progress(done, total)
    pruned = target.delete([cid for cid in present if cid not in seen]) if prune else 0
    return CopyReport(
        source=source_name or repr(source),
        target=target_name or repr(target),
        total=done,
        copied=copied,
        skipped=skipped,
        pruned=pruned,
        seconds=time.perf_counter() - started,
    )
