"""Shared helpers of the ingestion tests: a project (real SQLite index + state.db) and snapshots."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tellmemore.index.base import Embedder
from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.ingest import sample_corpus_path
from tellmemore.ingest.pipeline import ingest
from tellmemore.state.db import StateDB
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import IngestReport


@dataclass
class Project:
    """index.db + state.db in one folder, reopened on demand (as the CLI does per run)."""

    root: Path
    embedder: Embedder = field(default_factory=FakeEmbedder)
    chunk_tokens: int = 96

    def run(self, *sources: str | Path, **kwargs: Any) -> IngestReport:
        index = SQLiteIndex(self.root / "index.db", dimension=self.embedder.dimension)
        state = StateDB(self.root / "state.db")
        try:
            return ingest(
                list(sources),
                index=index,
                embedder=self.embedder,
                state=state,
                chunk_tokens=kwargs.pop("chunk_tokens", self.chunk_tokens),
                **kwargs,
            )
        finally:
            index.close()
            state.close()

    def snapshot(self) -> dict[str, tuple[str, str, str, bytes]]:
        """Every stored chunk: id -> (doc id, tenant, content hash, vector bytes)."""
        return snapshot(self.root / "index.db")

    def state_rows(self, sql: str) -> list[sqlite3.Row]:
        conn = sqlite3.connect(self.root / "state.db")
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    def document_chunk_ids(self) -> set[str]:
        ids: set[str] = set()
        for row in self.state_rows("SELECT chunk_ids FROM documents"):
            ids.update(json.loads(row["chunk_ids"]))
        return ids


def snapshot(index_path: Path) -> dict[str, tuple[str, str, str, bytes]]:
    conn = sqlite3.connect(index_path)
    try:
        rows = conn.execute(
            "SELECT id, doc_id, tenant, content_hash, vector FROM chunks"
        ).fetchall()
    finally:
        conn.close()
    return {r[0]: (r[1], r[2], r[3], bytes(r[4])) for r in rows}


def copy_sample(dest: Path) -> Path:
    shutil.copytree(sample_corpus_path(), dest)
    return dest


@contextmanager
def one_document_assistant(project_dir: Path, embedder: Embedder, docs: Path) -> Iterator[Any]:
    """An Assistant over `docs` (real index, the given embedder), ingested, closed after:
    the end-to-end check of every loader, which must add its one document and skip none."""
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    assistant = Assistant(Settings(project_dir=project_dir / "p"), embedder=embedder)
    try:
        report = assistant.ingest([docs])
        assert report.docs_added == 1 and not report.skipped
        yield assistant
    finally:
        assistant.close()


def assert_a_broken_file_costs_only_itself(
    tmp_path: Path, suffix: str, write_good: Callable[[Path], object]
) -> None:
    """A folder with one good file of a zip-based format and one that only starts like a zip:
    the good one loads, the broken one is skipped with its reason, nothing else is lost."""
    from tellmemore.ingest.loaders import load_sources

    docs = tmp_path / "docs"
    docs.mkdir()
    write_good(docs / f"good{suffix}")
    (docs / f"broken{suffix}").write_bytes(b"PK\x03\x04 not really")
    result = load_sources([docs])
    assert [d.doc_id for d in result.documents] == [f"good{suffix}"]
    assert [s.path.rsplit("/", 1)[-1] for s in result.skipped] == [f"broken{suffix}"]


def assert_a_zip_bomb_is_skipped_unread(path: Path) -> None:
    """`path`, a zip-based document whose XML expands past the text limit, is small on disk
    and skipped for its size: its XML is never read (a look at the zip's directory)."""
    from tellmemore.ingest.loaders import load_sources

    assert path.stat().st_size < 1_000_000
    result = load_sources([path], max_text_chars=1_000_000)
    assert result.documents == ()
    [skipped] = result.skipped
    assert "text too long" in skipped.reason and "ingest.max_text_chars" in skipped.reason
