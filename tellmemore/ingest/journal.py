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

Keys: `documents.doc_id` is the primary key, so with tenants the key is
scoped: `doc_key(doc_id, tenant)` is the doc id itself for the default tenant
"" and `tenant + "\\x1f" + doc_id` otherwise (two tenants may both have a
`faq.md`). The `tenant` column keeps the tenant for queries.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tellmemore.state.db import StateDB
from tellmemore.types import IngestReport

_SEP = "\x1f"


def doc_key(doc_id: str, tenant: str = "") -> str:
    """The state.db key of a document: its id, scoped by tenant when there is one."""
    return f"{tenant}{_SEP}{doc_id}" if tenant else doc_id


def split_key(key: str) -> tuple[str, str]:
    """(tenant, doc_id) of a key made by `doc_key`."""
    if _SEP in key:
        tenant, _, doc_id = key.partition(_SEP)
        return tenant, doc_id
    return "", key


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
    def key(self) -> str:
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

    def documents(self, tenant: str = "") -> dict[str, DocumentRow]:
        """Every document row of a tenant, by key."""
        rows = self.state.query(
            "SELECT doc_id, tenant, source, content_hash, chunk_ids, title, version "
            "FROM documents WHERE tenant = ?",
            (tenant,),
        )
        out: dict[str, DocumentRow] = {}
        for row in rows:
            _, doc_id = split_key(row["doc_id"])
            doc = DocumentRow(
                doc_id=doc_id,
                tenant=row["tenant"],
                source=row["source"],
                content_hash=row["content_hash"],
                chunk_ids=tuple(json.loads(row["chunk_ids"])),
                title=row["title"],
                version=row["version"],
            )
            out[doc.key] = doc
        return out

    def in_flight(self) -> dict[str, str]:
        """Journal rows left by runs that did not finish a document: key -> content hash."""
        rows = self.state.query("SELECT doc_id, content_hash FROM journal")
        return {row["doc_id"]: row["content_hash"] for row in rows}

    def mark_in_flight(self, run_id: str, docs: Iterable[tuple[str, str]]) -> None:
        """Record (key, content hash) of documents whose index write is about to start."""
        now = time.time()
        with self.state.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO journal (doc_id, run_id, content_hash, started_at) "
                "VALUES (?, ?, ?, ?)",
                [(key, run_id, h, now) for key, h in docs],
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
                        r.key,
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
            conn.executemany("DELETE FROM journal WHERE doc_id = ?", [(r.key,) for r in rows])

    def forget(self, keys: Iterable[str]) -> None:
        """Remove documents (and any journal rows) whose chunks were deleted from the index."""
        params = [(k,) for k in keys]
        if not params:
            return
        with self.state.transaction() as conn:
            conn.executemany("DELETE FROM documents WHERE doc_id = ?", params)
            conn.executemany("DELETE FROM journal WHERE doc_id = ?", params)
