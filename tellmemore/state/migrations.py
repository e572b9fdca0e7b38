"""Named, append-only migrations of state.db.

Never edit or reorder a migration that has shipped: add a new one at the end.
Each runs once, in its own transaction, and is recorded in `_migrations`.
"""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_ingestion_journal",
        """
        CREATE TABLE documents (
            doc_id       TEXT PRIMARY KEY,
            tenant       TEXT NOT NULL DEFAULT '',
            source       TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            chunk_ids    TEXT NOT NULL,           -- JSON list, the document's chunk ids
            title        TEXT NOT NULL DEFAULT '',
            version      TEXT NOT NULL DEFAULT '',
            updated_at   REAL NOT NULL
        );
        CREATE INDEX documents_source ON documents(source);
        CREATE TABLE ingest_runs (
            run_id      TEXT PRIMARY KEY,
            started_at  REAL NOT NULL,
            finished_at REAL,
            status      TEXT NOT NULL,            -- running | done | failed
            sources     TEXT NOT NULL,            -- JSON list of paths
            report      TEXT                      -- JSON IngestReport when done
        );
        -- One row per document whose index write is in flight. A crashed run
        -- leaves rows here, and the next run redoes exactly those documents.
        CREATE TABLE journal (
            doc_id       TEXT PRIMARY KEY,
            run_id       TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            started_at   REAL NOT NULL
        );
        """,
    ),
    (
        "0002_conversations",
        """
        CREATE TABLE sessions (
            session_id  TEXT PRIMARY KEY,
            tenant      TEXT NOT NULL DEFAULT '',
            created_at  REAL NOT NULL,
            summary     TEXT NOT NULL DEFAULT '',
            summary_upto INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE turns (
            session_id  TEXT NOT NULL REFERENCES sessions(session_id),
            position    INTEGER NOT NULL,
            role        TEXT NOT NULL,
            content     TEXT NOT NULL,
            trace_id    TEXT,
            created_at  REAL NOT NULL,
            PRIMARY KEY (session_id, position)
        );
        CREATE TABLE traces (
            trace_id        TEXT PRIMARY KEY,
            session_id      TEXT,
            parent_trace_id TEXT,
            created_at      REAL NOT NULL,
            message         TEXT NOT NULL,
            payload         TEXT NOT NULL        -- JSON Trace
        );
        CREATE INDEX traces_session ON traces(session_id);
        CREATE TABLE feedback (
            feedback_id INTEGER PRIMARY KEY AUTOINCREMENT,
            trace_id    TEXT NOT NULL REFERENCES traces(trace_id),
            rating      TEXT NOT NULL CHECK (rating IN ('up', 'down')),
            reason      TEXT,
            created_at  REAL NOT NULL
        );
        CREATE INDEX feedback_trace ON feedback(trace_id);
        """,
    ),
    (
        "0005_turn_resolutions",
        """
        ALTER TABLE turns ADD COLUMN resolution TEXT;   -- JSON Resolution of a user turn
        """,
    ),
    (
        # A document's key was tenant + U+001F + doc id, and the bare id for the default
        # tenant, so a default-tenant id "acme\x1ffalcon.md" overwrote tenant acme's row.
        # (tenant, doc_id) are separate columns now. Rows are copied, never dropped: a
        # tenant's key loses its prefix; a journal row (no tenant column before) is split at
        # its first U+001F, as the old code read it.
        "0006_document_keys",
        """
        CREATE TABLE documents_by_tenant (
            tenant       TEXT NOT NULL DEFAULT '',
            doc_id       TEXT NOT NULL,
            source       TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            chunk_ids    TEXT NOT NULL,
            title        TEXT NOT NULL DEFAULT '',
            version      TEXT NOT NULL DEFAULT '',
            updated_at   REAL NOT NULL,
            PRIMARY KEY (tenant, doc_id)
        );
        INSERT INTO documents_by_tenant
            SELECT tenant,
                   CASE WHEN tenant <> '' AND substr(doc_id, 1, length(tenant) + 1)
                                              = tenant || char(31)
                        THEN substr(doc_id, length(tenant) + 2) ELSE doc_id END,
                   source, content_hash, chunk_ids, title, version, updated_at
            FROM documents;
        DROP TABLE documents;
        ALTER TABLE documents_by_tenant RENAME TO documents;
        CREATE INDEX documents_source ON documents(source);
        CREATE TABLE journal_by_tenant (
            tenant       TEXT NOT NULL DEFAULT '',
            doc_id       TEXT NOT NULL,
            run_id       TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            started_at   REAL NOT NULL,
            PRIMARY KEY (tenant, doc_id)
        );
        INSERT OR REPLACE INTO journal_by_tenant
            SELECT CASE WHEN instr(doc_id, char(31)) > 0
                        THEN substr(doc_id, 1, instr(doc_id, char(31)) - 1) ELSE '' END,
                   CASE WHEN instr(doc_id, char(31)) > 0
                        THEN substr(doc_id, instr(doc_id, char(31)) + 1) ELSE doc_id END,
                   run_id, content_hash, started_at
            FROM journal;
        DROP TABLE journal;
        ALTER TABLE journal_by_tenant RENAME TO journal;
        """,
    ),
    (
        # A trace's tenant was only inside its JSON payload, so the service loaded a trace
        # before it could check the tenant: a foreign id answered 404 measurably slower
        # than a missing one. The tenant is a column now, checked in the query itself.
        "0007_trace_tenant",
        """
        ALTER TABLE traces ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
        UPDATE traces SET tenant = COALESCE(json_extract(payload, '$.tenant'), '')
        """,
    ),
    (
        # An answer's quoted list as data (Answer.items), so "the fourth one" of a stored
        # session reads the items instead of parsing them back out of the answer text.
        # Older rows keep NULL: their text is read, as before.
        "0008_turn_items",
        """
        ALTER TABLE turns ADD COLUMN items TEXT;   -- JSON list: Answer.items of an answer
        """,
    ),
]
