"""Deterministic crash points: stop the pipeline at every embedding call and after every index
write, rerun, and require exactly the chunks, hashes and vectors of a clean run.

The SIGKILL test (test_crash.py) kills a real process at random moments; this
one covers every boundary of the write protocol on purpose, so that a wrong
order of writes cannot hide behind lucky timing. The "kill" is a BaseException
raised from inside the embedder or right after the index transaction
committed: nothing after that point runs, as with kill -9.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tellmemore.index.base import Vector
from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.ingest.pipeline import ingest
from tellmemore.state.db import StateDB
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import Chunk, IngestReport

from .helpers import Project, snapshot
from .test_crash import make_corpus, mutate_corpus

N_DOCS = 20
WRITE_BATCH = 8
CHUNK_TOKENS = 64


class Killed(BaseException):
    """Stands for kill -9: not an Exception, so no `except Exception` can swallow it."""


class CountingEmbedder(FakeEmbedder):
    def __init__(self, kill_at: int | None) -> None:
        super().__init__()
        self.kill_at = kill_at

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if self.kill_at is not None and self.calls + 1 == self.kill_at:
            raise Killed
        return super().embed_documents(texts)


class KillAfterWrite:
    """The real SQLite index; the n-th write (upsert or delete) commits, then the process dies."""

    def __init__(self, index: SQLiteIndex, kill_after: int | None) -> None:
        self.inner = index
        self.kill_after = kill_after
        self.writes = 0
        self.engine = index.engine
        self.supports_hybrid = index.supports_hybrid

    def _wrote(self) -> None:
        self.writes += 1
        if self.writes == self.kill_after:
            raise Killed

    def upsert(self, chunks: Sequence[Chunk], vectors: Vector) -> None:
        self.inner.upsert(chunks, vectors)
        self._wrote()

    def delete(self, ids: Iterable[str]) -> int:
        n = self.inner.delete(ids)
        self._wrote()
        return n

    def ids(self, doc_id: str | None = None, *, tenant: str | None = None) -> dict[str, str]:
        return self.inner.ids(doc_id, tenant=tenant)

    def search(self, request):  # type: ignore[no-untyped-def]
        return self.inner.search(request)

    def term_stats(self, terms):  # type: ignore[no-untyped-def]
        return self.inner.term_stats(terms)

    def headings(self):  # type: ignore[no-untyped-def]
        return self.inner.headings()

    def count(self) -> int:
        return self.inner.count()

    def close(self) -> None:
        self.inner.close()


class KillAfterCommit(StateDB):
    """The real state.db; the n-th transaction commits, then the process dies."""

    def __init__(self, path: Path, kill_after: int | None) -> None:
        super().__init__(path)
        self.kill_after = kill_after
        self.commits = 0

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with super().transaction() as conn:
            yield conn
        self.commits += 1
        if self.commits == self.kill_after:
            raise Killed


def run(
    project: Path,
    corpus: Path,
    *,
    sync: bool,
    kill: tuple[str, int] | None = None,
) -> tuple[bool, dict[str, int], IngestReport | None]:
    """One ingest, killed at `kill` = (kind, n); returns (killed, counts per kind, the
    report of a run that finished)."""
    kind, n = kill or ("", 0)
    embedder = CountingEmbedder(n if kind == "embed" else None)
    index = KillAfterWrite(
        SQLiteIndex(project / "index.db", dimension=64), n if kind == "write" else None
    )
    state = KillAfterCommit(project / "state.db", n if kind == "commit" else None)
    report = None
    try:
        report = ingest(
            [corpus],
            index=index,
            embedder=embedder,
            state=state,
            chunk_tokens=CHUNK_TOKENS,
            sync=sync,
            write_batch=WRITE_BATCH,
        )
        killed = False
    except Killed:
        killed = True
    finally:
        index.close()
        state.close()
    counts = {"embed": embedder.calls, "write": index.writes, "commit": state.commits}
    return killed, counts, report


@pytest.mark.parametrize("update", [False, True], ids=["first-ingest", "update-with-sync"])
def test_every_crash_point_recovers_to_the_clean_result(tmp_path: Path, update: bool) -> None:
    corpus = tmp_path / "corpus"
    make_corpus(corpus, seed=5, n_docs=N_DOCS)
    base = tmp_path / "base"
    base.mkdir()
    if update:
        run(base, corpus, sync=True)
        mutate_corpus(corpus, seed=6)
    clean = tmp_path / "clean"
    shutil.copytree(base, clean)
    killed, counts, _ = run(clean, corpus, sync=update)
    assert not killed and min(counts.values()) >= 2
    expected = snapshot(clean / "index.db")

    # Every embedding call, every index write, and every state.db commit but the
    # last (which records the finished run: nothing is left to lose after it).
    counts["commit"] -= 1
    points = [(kind, n) for kind, total in counts.items() for n in range(1, total + 1)]
    for point in points:
        project = tmp_path / f"{point[0]}{point[1]}"
        shutil.copytree(base, project)
        killed, _, _ = run(project, corpus, sync=update, kill=point)
        assert killed, point
        run(project, corpus, sync=update)
        assert snapshot(project / "index.db") == expected, f"crash at {point}"
        p = Project(project)
        assert p.state_rows("SELECT * FROM journal") == []
        assert p.document_chunk_ids() == set(expected)
        shutil.rmtree(project)


def killed_first_ingest(tmp_path: Path) -> tuple[Path, Path]:
    """(project, corpus) after a first ingest killed at its second index write."""
    corpus = tmp_path / "corpus"
    make_corpus(corpus, seed=9, n_docs=N_DOCS)
    project = tmp_path / "p"
    project.mkdir()
    killed, _, _ = run(project, corpus, sync=False, kill=("write", 2))
    assert killed
    return project, corpus


def test_the_journal_names_the_documents_in_flight(tmp_path: Path) -> None:
    project, _ = killed_first_ingest(tmp_path)
    rows = Project(project).state_rows("SELECT doc_id, run_id FROM journal")
    assert rows and len({r["run_id"] for r in rows}) == 1
    [status] = Project(project).state_rows("SELECT status FROM ingest_runs")
    assert status["status"] == "failed"


def test_a_resumed_first_ingest_reports_added_documents_not_updated_ones(
    tmp_path: Path,
) -> None:
    """The run after a kill finishes the documents the killed run had started: on a first
    ingest they are added (the report said "updated 1")."""
    project, corpus = killed_first_ingest(tmp_path)
    _, _, report = run(project, corpus, sync=False)
    assert report is not None
    assert report.docs_updated == 0
    assert report.docs_added + report.docs_unchanged == N_DOCS
    assert report.docs_added > 0
