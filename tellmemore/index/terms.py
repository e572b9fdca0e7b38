"""Term statistics for engines that cannot answer them: Porter stems and a document-frequency table.

The embedded resolver needs `term_stats` (how many chunks contain each word)
in about a millisecond, whatever engine holds the chunks. SQLite answers from
its FTS5 vocabulary; Milvus has no such query, so its backend keeps the
counts here, in a small SQLite file, updated at every upsert and delete.

`Stemmer` tokenises exactly like the SQLite index (an in-memory FTS5 table
with `tokenize='porter unicode61'`), so "Running", "runs" and "run" are one
term on every engine, and the Milvus backend feeds the same stems to its
BM25 function (see `index.milvus`).

`TermStore` holds `df(term, df)` and `meta(key, value)` (chunk count, the
embedder, the schema version). One transaction per `apply`, so the counts
never half-move; if the writer dies between the engine write and `apply`,
the chunk count no longer matches the engine's and the backend rebuilds the
table from the engine on the next open.

A term of several tokens ("ERR-4032" -> "err 4032") gets the smallest
document frequency of its tokens: an upper bound of the phrase's (SQLite
counts the exact phrase). For the codes and names the resolver looks up, the
rarest token is nearly always the phrase itself.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from tellmemore.errors import IndexError_
from tellmemore.types import TermStats

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID",
)
_BATCH = 500


class Stemmer:
    """Texts -> their tokens as SQLite FTS5 `porter unicode61` indexes them, in order.

    >>> Stemmer().tokens(["Running jobs, ERR-4032!"])
    [['run', 'job', 'err', '4032']]
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize='porter unicode61')")
        self._conn.execute("CREATE VIRTUAL TABLE tv USING fts5vocab (t, 'instance')")

    def tokens(self, texts: Sequence[str]) -> list[list[str]]:
        out: list[list[str]] = [[] for _ in texts]
        if not texts:
            return out
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.executemany(
                    "INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(texts, start=1)
                )
                for doc, term in conn.execute("SELECT doc, term FROM tv ORDER BY doc, offset"):
                    out[doc - 1].append(term)
            finally:
                conn.execute("ROLLBACK")  # the table is scratch space: leave it empty
        return out

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class TermStore:
    """Document frequencies of stems in one SQLite file, kept by the index that writes chunks.

    >>> store = TermStore(Path("terms.sqlite"))
    >>> store.apply(added=[{"weekend", "support"}], removed=[])
    >>> store.term_stats(["weekends", "zyzzyva"]).df
    {'weekends': 1, 'zyzzyva': 0}
    """

    def __init__(self, path: Path, *, stemmer: Stemmer | None = None) -> None:
        self.path = Path(path)
        self.stemmer = stemmer or Stemmer()
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA busy_timeout=30000")
            for statement in _SCHEMA:
                self._conn.execute(statement)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise IndexError_(
                f"cannot open the term statistics file {self.path}: {exc}; delete it, it is "
                "rebuilt from the index on the next open"
            ) from exc

    # -- meta -------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    @property
    def n_chunks(self) -> int:
        value = self.get_meta("n_chunks")
        return int(value) if value is not None else 0

    # -- writes -----------------------------------------------------------------------

    def apply(self, *, added: Iterable[Iterable[str]], removed: Iterable[Iterable[str]]) -> None:
        """Count `added` chunks (each a set of stems) in and `removed` ones out, atomically."""
        delta: Counter[str] = Counter()
        n = 0
        for stems in added:
            delta.update(set(stems))
            n += 1
        for stems in removed:
            delta.subtract(set(stems))
            n -= 1
        changes = [(term, d) for term, d in delta.items() if d]
        if not changes and n == 0:
            return
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT INTO df (term, df) VALUES (?, ?) "
                    "ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
                    changes,
                )
                conn.execute("DELETE FROM df WHERE df <= 0")
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('n_chunks', MAX(0, ?)) "
                    "ON CONFLICT(key) DO UPDATE SET "
                    "value = MAX(0, CAST(value AS INTEGER) + ?)",
                    (n, n),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def reset(self) -> None:
        """Forget every count (before a rebuild from the engine)."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("DELETE FROM df")
            conn.execute("DELETE FROM meta WHERE key = 'n_chunks'")
            conn.execute("COMMIT")

    # -- reads ------------------------------------------------------------------------

    def term_stats(self, terms: Iterable[str]) -> TermStats:
        """Chunks containing each term after Porter stemming; several tokens: the rarest one."""
        originals = list(dict.fromkeys(terms))
        stems = self.stemmer.tokens(originals)
        with self._lock:
            n_chunks = self.n_chunks
            counts = self.df(s for tokens in stems for s in tokens)
        df = {
            term: min((counts.get(s, 0) for s in tokens), default=0)
            for term, tokens in zip(originals, stems, strict=True)
        }
        return TermStats(n_chunks=n_chunks, df=df)

    def df(self, stems: Iterable[str]) -> dict[str, int]:
        """Document frequency of each stem as stored (already stemmed; unknown: absent)."""
        wanted = sorted(set(stems))
        counts: dict[str, int] = {}
        with self._lock:
            for start in range(0, len(wanted), _BATCH):
                batch = wanted[start : start + _BATCH]
                marks = ",".join("?" * len(batch))
                counts.update(
                    self._conn.execute(f"SELECT term, df FROM df WHERE term IN ({marks})", batch)
                )
        return counts

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        self.stemmer.close()
