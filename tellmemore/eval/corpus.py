"""Index a dataset's corpus with the project's own ingestion, once per corpus.

The corpus is converted to the project's JSONL record format
(`{id, title, text, url, version, metadata}`) in the cache directory and
ingested by `tellmemore.ingest.pipeline.ingest`, so the index is chunked and
embedded exactly as a user's documents would be: a passage longer than the
model's window is split into several chunks, none truncated, and every chunk's
`doc_id` is the passage id (scores are rolled up to it before measuring).

The index lives in `<cache>/index/<dataset>-<key>/` where the key hashes the
corpus bytes, the embedder name and dimension, the chunk size and the sentence
overlap (only when set, so indexes built before it existed keep their key). `meta.json`
is written last: its presence means the index is complete and is reused as is
(nothing embedded); without it, ingestion runs again and resumes, since it
skips the chunks already stored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tellmemore.config import Settings
from tellmemore.eval.cache import digest, slug
from tellmemore.eval.datasets import Dataset, iter_corpus
from tellmemore.index.base import Embedder
from tellmemore.index.sqlite import SQLiteIndex

INDEX_FORMAT = "1"
"""Bump to invalidate every cached evaluation index (a change of the record conversion)."""

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class IndexInfo:
    """Where a dataset's index is, how it was made, and whether this run built it."""

    key: str
    path: Path
    chunks: int
    passages: int
    embedder: str
    chunk_tokens: int
    reused: bool
    chunks_embedded: int
    seconds: float
    skipped: tuple[str, ...] = ()
    """Passages left out of the index, with why (no text; refused by the loader)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "path": str(self.path),
            "chunks": self.chunks,
            "passages": self.passages,
            "embedder": self.embedder,
            "chunk_tokens": self.chunk_tokens,
            "reused": self.reused,
            "chunks_embedded": self.chunks_embedded,
            "seconds": round(self.seconds, 2),
            "skipped": list(self.skipped),
        }


def chunk_tokens_for(settings: Settings, embedder: Embedder) -> int:
    """The chunk size the project would use: the configured one or the default for top-k."""
    from tellmemore.ingest.chunking import default_chunk_tokens

    return settings.chunking.max_tokens or default_chunk_tokens(
        settings.retrieval.k, embedder.max_tokens
    )


def index_key(
    dataset: Dataset, embedder: Embedder, chunk_tokens: int, overlap_sentences: int = 0
) -> str:
    parts: list[Any] = [
        INDEX_FORMAT,
        dataset.corpus_hash,
        embedder.name,
        embedder.dimension,
        chunk_tokens,
    ]
    if overlap_sentences:  # only when set: the keys of existing cached indexes stay valid
        parts.append(f"overlap_sentences={overlap_sentences}")
    return digest(*parts)[:16]


def ensure_index(
    dataset: Dataset,
    *,
    embedder: Embedder,
    settings: Settings,
    cache_dir: Path,
    progress: Progress | None = None,
) -> tuple[SQLiteIndex, IndexInfo]:
    """The dataset's index, built on first use and reused while the corpus is unchanged."""
    chunk_tokens = chunk_tokens_for(settings, embedder)
    key = index_key(dataset, embedder, chunk_tokens, settings.chunking.overlap_sentences)
    home = cache_dir / "index" / f"{slug(dataset.name)}-{key}"
    meta_path = home / "meta.json"
    index_path = home / "index.db"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        built, current = _versions(meta), _versions(index_versions())
        if built[1] != current[1]:
            _discard(home)  # built by another index schema: rebuild from scratch
            return _build(dataset, embedder, settings, home, key, chunk_tokens, progress)
        if built[0] != current[0]:
            # another chunker: ingest again into the same index, as a user's re-ingest
            # does; chunks it cuts the same keep their vectors, the rest are re-embedded
            meta_path.unlink()
            return _build(dataset, embedder, settings, home, key, chunk_tokens, progress)
        index = _open(index_path, embedder, settings)
        if index.count() == meta.get("chunks"):
            info = IndexInfo(
                key=key,
                path=index_path,
                chunks=index.count(),
                passages=int(meta.get("passages", dataset.n_passages)),
                embedder=embedder.name,
                chunk_tokens=chunk_tokens,
                reused=True,
                chunks_embedded=0,
                seconds=0.0,
                skipped=tuple(meta.get("skipped", ())),
            )
            return index, info
        index.close()
        meta_path.unlink()
    return _build(dataset, embedder, settings, home, key, chunk_tokens, progress)


def _overlap_meta(settings: Settings) -> dict[str, int]:
    n = settings.chunking.overlap_sentences
    return {"overlap_sentences": n} if n else {}


def index_versions() -> dict[str, str]:
    """The chunker and schema this code builds indexes with: an index built by others is
    re-chunked or rebuilt, and rankings searched on it are stale."""
    from tellmemore.index.sqlite import SCHEMA_VERSION
    from tellmemore.ingest.chunking import CHUNKER_VERSION

    return {"chunker_version": CHUNKER_VERSION, "schema_version": SCHEMA_VERSION}


def _versions(meta: dict[str, Any]) -> tuple[str, str]:
    return str(meta.get("chunker_version", "1")), str(meta.get("schema_version", "1"))


def _discard(home: Path) -> None:
    for name in (
        "meta.json",
        "index.db",
        "index.db-wal",
        "index.db-shm",
        "state.db",
        "state.db-wal",
        "state.db-shm",
    ):
        (home / name).unlink(missing_ok=True)


def _open(path: Path, embedder: Embedder, settings: Settings) -> SQLiteIndex:
    return SQLiteIndex(
        path,
        dimension=embedder.dimension,
        hnsw_threshold=settings.index.hnsw_threshold,
        embedder=embedder.name,
    )


def _build(
    dataset: Dataset,
    embedder: Embedder,
    settings: Settings,
    home: Path,
    key: str,
    chunk_tokens: int,
    progress: Progress | None,
) -> tuple[SQLiteIndex, IndexInfo]:
    from tellmemore.ingest.pipeline import ingest
    from tellmemore.state.db import StateDB

    home.mkdir(parents=True, exist_ok=True)
    records = home / "records.jsonl"
    passages, skipped = write_records(dataset.corpus_path, records)
    index = _open(home / "index.db", embedder, settings)
    state = StateDB(home / "state.db")
    started = time.perf_counter()
    try:
        report = ingest(
            [records],
            index=index,
            embedder=embedder,
            state=state,
            chunk_tokens=chunk_tokens,
            overlap_sentences=settings.chunking.overlap_sentences,
            progress=progress,
        )
    finally:
        state.close()
    seconds = time.perf_counter() - started
    from tellmemore.index import encoding_info

    encoding_info.record(index, embedder, chunks=report.chunks_embedded, seconds=seconds)
    skipped += [f"{s.path}: {s.reason}" for s in report.skipped]
    meta = {
        "format": INDEX_FORMAT,
        "dataset": dataset.name,
        "corpus": str(dataset.corpus_path),
        "corpus_hash": dataset.corpus_hash,
        "embedder": embedder.name,
        "dimension": embedder.dimension,
        "encoding": encoding_info.stored(index),
        "chunk_tokens": chunk_tokens,
        **_overlap_meta(settings),
        **index_versions(),
        "passages": passages,
        "chunks": index.count(),
        "chunks_embedded": report.chunks_embedded,
        "seconds": round(seconds, 1),
        "skipped": skipped,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    (home / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    info = IndexInfo(
        key=key,
        path=home / "index.db",
        chunks=index.count(),
        passages=passages,
        embedder=embedder.name,
        chunk_tokens=chunk_tokens,
        reused=False,
        chunks_embedded=report.chunks_embedded,
        seconds=seconds,
        skipped=tuple(skipped),
    )
    return index, info


def write_records(corpus: Path, out: Path) -> tuple[int, list[str]]:
    """Convert an MTRAG corpus to the project's JSONL records.

    Returns the passages written and the ones left out (a passage with no text
    cannot be indexed; it is named, never dropped silently).
    """
    tmp = out.with_suffix(".tmp")
    n = 0
    skipped: list[str] = []
    with tmp.open("w", encoding="utf-8") as f:
        for p in iter_corpus(corpus):
            if not p.text.strip():
                skipped.append(f"{corpus}: passage {p.id!r} has no text")
                continue
            record = {"id": p.id, "title": p.title, "text": p.text, "url": "", "version": ""}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    if out.exists() and out.read_bytes() == tmp.read_bytes():
        tmp.unlink()  # unchanged: keep the file (and its mtime) the journal already knows
    else:
        tmp.replace(out)
    return n, skipped
