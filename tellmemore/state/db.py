"""state.db: sessions, turns, traces, feedback and the ingestion journal.

One SQLite file in WAL mode so that several workers (the service, the CLI) can
share it; never rebuilt and never silently truncated.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tellmemore.state.migrations import MIGRATIONS


def connect(path: Path) -> sqlite3.Connection:
    """Open a SQLite file for several processes: WAL, a busy timeout, foreign keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded; returns the names applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    applied: list[str] = []
    for name, sql in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone()
            if done is None:
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, time.time())
                )
                applied.append(name)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return applied


def _statements(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]


class StateDB:
    """A migrated connection to state.db, safe to share between threads.

    Use `transaction()` for writes: `BEGIN IMMEDIATE` takes the write lock up
    front so that two processes never deadlock upgrading a read lock.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = connect(path)
        self._lock = threading.RLock()
        migrate(self.conn)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self.conn.execute(sql, params).fetchall())

    def close(self) -> None:
        self.conn.close()
