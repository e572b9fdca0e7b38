"""The ingestion bookkeeping in state.db: documents, runs, and the in-flight journal.

Tables of migration 0001. The write protocol that makes a run resumable:

1. before a document's chunks go to the index, a `journal` row records it
   (doc key, run id, content hash);
2. the index write happens (one transaction per batch in SQLite);
3. in one state.db transaction, the document's `documents` row is written
   (its content hash and chunk ids) and its journal row removed.

A kill -9 between 1 and 3 leaves the journal row and the old documents row,
so the next run cannot mistake the document for unchanged and redoes it;
chunks already written with the right content hash are not embedded again.

Keys: `(tenant, doc_id)` is the primary key of `documents` and `journal`, in two
columns (migration 0006), so two tenants may both have a `faq.md` and no doc id,
whatever characters it holds, can name another tenant's row. `doc_key` is that pair.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tellmemore.state.db import StateDB
from tellmemore.types import IngestReport

DocKey = tuple[str, str]
"""(tenant, doc_id): the state.db key of a document."""


def doc_key(doc_id: str, tenant: str = "") -> DocKey:
    """The state.db key of a document: (tenant, doc id), never one joined string."""
    return (tenant, doc_id)


def split_key(key: DocKey) -> tuple[str, str]:
    """(tenant, doc_id) of a key made by `doc_key`."""
    return key


@dataclass(frozen=True)
class DocumentRow:
    """What state.db remembers of an ingested document."""

    doc_id: str
    tenant: str
    source: str
    content_hash: str
    chunk_ids: tuple[str, ...]
    title: str = ""
    version: str = ""

    @property
    def key(self) -> DocKey:
        return doc_key(self.doc_id, self.tenant)


class Journal:
    """Reads and writes the ingestion tables; each method is one short transaction."""

    def __init__(self, state: StateDB) -> None:
        self.state = state

    # -- runs ---------------------------------------------------------------------------

    def begin_run(self, sources: Sequence[str]) -> str:
        """Record a new run. Runs still marked running were killed: they become interrupted.

        (Two ingestions into one project at the same time are not supported: the
        second would mark the first interrupted, and they could redo each other's work.)
        """
        run_id = uuid.uuid4().hex
        with self.state.transaction() as conn:
            conn.execute("UPDATE ingest_runs SET status = 'interrupted' WHERE status = 'running'")
            conn.execute(
                "INSERT INTO ingest_runs (run_id, started_at, status, sources) "
                "VALUES (?, ?, 'running', ?)",
                (run_id, time.time(), json.dumps(list(sources))),
            )
        return run_id

    def finish_run(self, run_id: str, status: str, report: IngestReport | None = None) -> None:
        payload = json.dumps(report.to_dict()) if report is not None else None
        with self.state.transaction() as conn:
            conn.execute(
                "UPDATE ingest_runs SET finished_at = ?, status = ?, report = ? WHERE run_id = ?",
                (time.time(), status, payload, run_id),
            )

    # -- documents ----------------------------------------------------------------------

    def documents(self, tenant: str = "") -> dict[DocKey, DocumentRow]:
        """Every document row of a tenant, by key."""
        rows = self.state.query(
            "SELECT doc_id, tenant, source, content_hash, chunk_ids, title, version "
            "FROM documents WHERE tenant = ?",
            (tenant,),
        )
        out: dict[DocKey, DocumentRow] = {}
        for row in rows:
            doc = DocumentRow(
                doc_id=row["doc_id"],
                tenant=row["tenant"],
                source=row["source"],
                content_hash=row["content_hash"],
                chunk_ids=tuple(json.loads(row["chunk_ids"])),
                title=row["title"],
                version=row["version"],
            )
            out[doc.key] = doc
        return out

    def in_flight(self) -> dict[DocKey, str]:
        """Journal rows left by runs that did not finish a document: key -> content hash."""
        rows = self.state.query("SELECT tenant, doc_id, content_hash FROM journal")
        return {(row["tenant"], row["doc_id"]): row["content_hash"] for row in rows}

    def mark_in_flight(self, run_id: str, docs: Iterable[tuple[DocKey, str]]) -> None:
        """Record (key, content hash) of documents whose index write is about to start."""
        now = time.time()
        with self.state.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO journal "
                "(tenant, doc_id, run_id, content_hash, started_at) VALUES (?, ?, ?, ?, ?)",
                [(*key, run_id, h, now) for key, h in docs],
            )

    def commit_documents(self, rows: Sequence[DocumentRow]) -> None:
        """Write the documents rows and clear their journal rows, atomically."""
        if not rows:
            return
        now = time.time()
        with self.state.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO documents "
                "(doc_id, tenant, source, content_hash, chunk_ids, title, version, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.doc_id,
                        r.tenant,
                        r.source,
                        r.content_hash,
                        json.dumps(list(r.chunk_ids)),
                        r.title,
                        r.version,
                        now,
                    )
                    for r in rows
                ],
            )
            conn.executemany(
                "DELETE FROM journal WHERE tenant = ? AND doc_id = ?", [r.key for r in rows]
            )

    def forget(self, keys: Iterable[DocKey]) -> None:
        """Remove documents (and any journal rows) whose chunks were deleted from the index."""
        params = list(keys)
        if not params:
            return
        with self.state.transaction() as conn:
            conn.executemany("DELETE FROM documents WHERE tenant = ? AND doc_id = ?", params)
            conn.executemany("DELETE FROM journal WHERE tenant = ? AND doc_id = ?", params)
