"""What an evaluation keeps between runs, so that only the first run pays for embedding.

- `QueryVectors`: query vectors by text, per embedder, in one SQLite file. All
  distinct query strings of a run are encoded in batches before searching, and
  strategies that produce the same string share its vector.
- `JsonlCache`: append-only JSONL rows by key, flushed as the runner goes; a
  killed run resumes from the rows already written and a rerun reuses them.
  Rankings are keyed by the retrieval code and settings fingerprint, so a
  change to retrieval never reuses a stale ranking.
- `code_fingerprint`: a hash of the source files a cached result depends on.

Plain artifacts only (SQLite, JSONL): no pickle.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tellmemore.index.base import Embedder, Vector

ENCODE_BATCH = 256
"""Query strings handed to the embedder per call (progress moves between calls)."""


def digest(*parts: Any) -> str:
    """A stable hex key for JSON-serialisable parts."""
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def slug(text: str) -> str:
    """A file-name-safe form of a name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def code_fingerprint(modules: Sequence[str]) -> str:
    """A hash of the source of `modules` (missing ones count by name)."""
    h = hashlib.sha256()
    for name in modules:
        h.update(name.encode())
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        origin = spec.origin if spec is not None else None
        if origin and Path(origin).is_file():
            h.update(Path(origin).read_bytes())
    return h.hexdigest()


class QueryVectors:
    """Query vectors by text for one embedder, persisted in `dir/<embedder>.db`.

    `encode(texts)` embeds the texts not seen before, in batches, with the
    embedder's `embed_queries` when it has one (the runtime a user's question
    runs on), else `embed_documents` (MiniLM is symmetric: a query and a
    passage are encoded alike). `embedder` is a view that the `Retriever` can use: it answers from
    the cache and encodes (and stores) only what is missing.
    """

    def __init__(self, directory: Path, embedder: Embedder) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.inner = embedder
        self.path = directory / f"{slug(embedder.name)}-{embedder.dimension}.db"
        self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
        )
        self._vectors: dict[str, Vector] = {}
        for key, blob in self._conn.execute("SELECT key, vector FROM vectors"):
            self._vectors[key] = np.frombuffer(blob, dtype=np.float32)
        self.encoded = 0
        self.encode_seconds = 0.0

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def __contains__(self, text: str) -> bool:
        return self._key(text) in self._vectors

    def missing(self, texts: Iterable[str]) -> list[str]:
        """The distinct texts of `texts` without a stored vector, in first-seen order."""
        out = dict.fromkeys(t for t in texts if self._key(t) not in self._vectors)
        return list(out)

    def encode(
        self, texts: Iterable[str], progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed and store the texts not seen before; returns how many were embedded."""
        todo = self.missing(texts)
        for start in range(0, len(todo), ENCODE_BATCH):
            batch = todo[start : start + ENCODE_BATCH]
            self._store(batch)
            if progress is not None:
                progress(min(start + ENCODE_BATCH, len(todo)), len(todo))
        return len(todo)

    def _store(self, texts: Sequence[str]) -> Vector:
        t0 = time.perf_counter()
        # the query runtime where the embedder has one (ONNX for the local model), else bulk
        encode = getattr(self.inner, "embed_queries", self.inner.embed_documents)
        vectors = np.asarray(encode(list(texts)), dtype=np.float32)
        self.encode_seconds += time.perf_counter() - t0
        self.encoded += len(texts)
        rows = []
        for text, vector in zip(texts, vectors, strict=True):
            key = self._key(text)
            self._vectors[key] = np.ascontiguousarray(vector)
            rows.append((key, vector.tobytes()))
        self._conn.execute("BEGIN")
        self._conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
        self._conn.execute("COMMIT")
        return vectors

    def get(self, texts: Sequence[str]) -> Vector:
        """Vectors for `texts` (rows in order), encoding any that are missing."""
        todo = self.missing(texts)
        if todo:
            self._store(todo)
        return np.stack([self._vectors[self._key(t)] for t in texts])

    @property
    def embedder(self) -> Embedder:
        return _CachedEmbedder(self)

    def close(self) -> None:
        self._conn.close()


class _CachedEmbedder:
    """The Embedder protocol over `QueryVectors`: for searching, never for ingestion."""

    def __init__(self, cache: QueryVectors) -> None:
        self._cache = cache
        inner = cache.inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.max_tokens = inner.max_tokens
        self.batch_size = inner.batch_size

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._cache.get(texts)

    def embed_query(self, text: str) -> Vector:
        vector: Vector = self._cache.get([text])[0]
        return vector

    def count_tokens(self, text: str) -> int:
        return self._cache.inner.count_tokens(text)


class JsonlCache:
    """Rows by key in an append-only JSONL file; the last row written for a key wins.

    Each `put` is written and flushed at once, so a killed run loses at most
    the row being written (a torn last line is ignored on reload).
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._rows: dict[str, dict[str, Any]] = {}
        if path.exists():
            with path.open(encoding="utf-8") as f:
                for line in f:
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if isinstance(row, dict) and isinstance(row.get("key"), str):
                        self._rows[row["key"]] = row
        self._file = path.open("a", encoding="utf-8")
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._rows.get(key)
        if row is None:
            self.misses += 1
        else:
            self.hits += 1
        return row

    def put(self, key: str, row: Mapping[str, Any]) -> None:
        record = {"key": key, **row}
        self._rows[key] = record
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def __len__(self) -> int:
        return len(self._rows)

    def close(self) -> None:
        self._file.close()
