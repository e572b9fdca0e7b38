"""The embedded index: one SQLite file with FTS5 BM25 and float32 vectors.

Layout of `index.db` (WAL mode):
- `chunks`: one row per chunk with its metadata and its vector (float32 blob).
- `chunks_fts`: a contentless FTS5 table (`tokenize='porter unicode61'`) over
  the searchable text (header + text), rowid = `chunks.rid`. Contentless keeps
  the text stored once; an update or delete first sends FTS5 the old text
  (recomputed from the row) with the 'delete' command. Chunk, vector and FTS
  entry are written in one transaction, so a crash leaves all or none.
- `chunks_vocab`: fts5vocab 'row' table (term, doc, cnt) for `term_stats`. A point
  look-up there counts the term's whole posting list (0.1-0.25 ms for a common stem),
  while one scan of the table costs ~2 us per term; so after each write a helper
  thread reads the whole vocabulary once (indexes up to `VOCAB_MAX_CHUNKS`) and
  `term_stats` answers from memory from then on, with point look-ups meanwhile.
- `meta`: schema version, dimension, embedder name, and a `generation`
  counter bumped by every write so that any process sees another's writes
  (its in-memory vector matrix is reloaded when the counter moves).

BM25 is FTS5's `bm25()` negated (higher is better). The query text is
tokenised here: stopwords and FTS5 syntax are dropped, each term quoted and
the terms OR-ed, so "AND OR NOT * (" can never be a syntax error and common
words cannot swamp the score. Dense search is exact (NumPy) up to
`hnsw_threshold` chunks; above, an HNSW graph (usearch) proposes candidates
that the float32 matrix rescores (`index.dense`). The graph is built lazily
on the first search, kept in memory, updated in place from the rows whose
`vgen` (generation of their last write) is newer than the graph, and saved
beside the database (`index.hnsw` says why: building costs minutes at 1M
chunks, updating and loading cost seconds). The first build runs on a helper
thread, searches staying exact meanwhile, unless `background_build=False`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from tellmemore.errors import IndexError_, InputError
from tellmemore.index import fusion
from tellmemore.index.base import SearchRequest, Vector, prepare_upsert, query_vector
from tellmemore.index.dense import DenseMatrix, default_threads
from tellmemore.index.hnsw import SAVE_AFTER_FRACTION, Graph
from tellmemore.index.lexical import (
    STOPWORDS,
    fts_query,
    match_expression,
    query_terms,
    searchable_text,
)
from tellmemore.index.tenant_stats import TenantStats
from tellmemore.index.vectors import VectorState, read_rows, written_since
from tellmemore.types import Chunk, Hit, SearchFilter, SearchMode, TermStats, header_line

log = logging.getLogger(__name__)

__all__ = [
    "MAX_DF_FRACTION",
    "PRUNE_MIN_CHUNKS",
    "SCHEMA_VERSION",
    "STOPWORDS",
    "SQLiteIndex",
    "fts_query",
    "query_terms",
    "searchable_text",
]

SCHEMA_VERSION = "1"
_SQL_BATCH = 500
# A query term in more than this fraction of chunks is left out of the MATCH
# (unless it is among the two rarest terms): its IDF is small, its posting list
# long. Measured on the pooled MTRAG corpora (bench/search_latency.md): at 0.2
# BM25 recall@5/@50 is unchanged (0.385/0.729 vs 0.384/0.730) and p50 latency
# falls by a third; at 0.1 recall@5 drops by 0.015.
MAX_DF_FRACTION = 0.2
# Pruning only pays (and only approximates) on large indexes; below this every term is kept.
PRUNE_MIN_CHUNKS = 20_000
_STEM_CACHE_SIZE = 100_000
VOCAB_MAX_CHUNKS = 250_000
"""Up to this many chunks the whole FTS5 vocabulary (term -> chunk count) is held in
memory per generation: 45k terms read in ~0.1 s at 39k chunks. Larger indexes keep the
per-term look-ups (memory grows with the vocabulary)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL,
    tenant TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    section TEXT NOT NULL DEFAULT '[]',
    text TEXT NOT NULL,
    version TEXT NOT NULL DEFAULT '',
    url TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL DEFAULT '',
    metadata TEXT NOT NULL DEFAULT '{}',
    vector BLOB NOT NULL,
    vgen INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id);
CREATE INDEX IF NOT EXISTS chunks_tenant_doc ON chunks (tenant, doc_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5 (
    body, content='', tokenize='porter unicode61'
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab (chunks_fts, 'row')
"""

_VGEN_INDEX = "CREATE INDEX IF NOT EXISTS chunks_vgen ON chunks (vgen)"
_FIELDS = "id, doc_id, tenant, title, section, text, version, url, content_hash, metadata"
_COLUMNS = f"rid, {_FIELDS}"


class SQLiteIndex:
    """The default index: one SQLite file, BM25 + dense + hybrid, filters before ranking.

    Example:
        >>> from tellmemore.testing.fakes import FakeEmbedder
        >>> emb = FakeEmbedder()
        >>> index = SQLiteIndex(Path("index.db"), dimension=emb.dimension)
        >>> chunk = Chunk(id="c1", doc_id="d1", text="Weekend support is included.")
        >>> index.upsert([chunk], emb.embed_documents([chunk.text]))
        >>> hits = index.search(SearchRequest("weekend", emb.embed_query("weekend")))
        >>> hits[0].chunk.id
        'c1'

    `embedder` (optional) records which embedder wrote the vectors; opening
    with another name or another `dimension` raises `IndexError_` telling to
    rebuild. Safe to share between threads (one lock around the connection).
    """

    engine: ClassVar[str] = "sqlite"
    supports_hybrid: ClassVar[bool] = True

    def __init__(
        self,
        path: Path,
        *,
        dimension: int,
        hnsw_threshold: int = 50_000,
        embedder: str | None = None,
        background_build: bool = True,
    ) -> None:
        if dimension < 1:
            raise IndexError_(f"index dimension must be >= 1, got {dimension}")
        self.path = Path(path)
        self.dimension = dimension
        self.hnsw_threshold = hnsw_threshold
        self._lock = threading.RLock()
        self._dense: VectorState | None = None
        self._count: tuple[int, int] | None = None
        self._stem_cache: dict[str, tuple[str, ...]] = {}
        self._exact_df: tuple[int, dict[str, int]] = (-1, {})
        self._headings: tuple[int, tuple[str, ...]] = (-1, ())
        self._df_cache: dict[str, int] = {}
        self._df_cache_n = 0
        self._vocab: tuple[int, dict[str, int]] = (-1, {})
        self._vocab_loader: threading.Thread | None = None
        self._tok_conn: sqlite3.Connection | None = None
        self._graph: Graph | None = None
        self._built: Graph | None = None
        self._builder: threading.Thread | None = None
        self.background_build = background_build
        self.uid = ""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute("PRAGMA busy_timeout=30000")
            # FTS5 posting lists are read through the page cache: 64 MB instead of the
            # default 2 MB cut BM25 p50 by ~20% on the MTRAG pool (23k passages, 100 MB).
            self._conn.execute("PRAGMA cache_size=-65536")
            self._init_schema(embedder)
            self._tenant_stats = TenantStats(self._conn)
        except sqlite3.DatabaseError as exc:
            raise IndexError_(
                f"cannot open index {self.path}: {exc}; if the file is damaged or not an index, "
                "delete it and ingest again"
            ) from exc

    # -- setup ------------------------------------------------------------------------

    def _init_schema(self, embedder: str | None) -> None:
        with self._write(bump=False) as conn:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}
            if "vgen" not in columns:  # files written before vgen existed (additive)
                conn.execute("ALTER TABLE chunks ADD COLUMN vgen INTEGER NOT NULL DEFAULT 0")
            conn.execute(_VGEN_INDEX)
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if not meta:
                conn.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [
                        ("schema_version", SCHEMA_VERSION),
                        ("engine", self.engine),
                        ("dimension", str(self.dimension)),
                        ("embedder", embedder or ""),
                        ("generation", "0"),
                        ("uid", uuid.uuid4().hex[:12]),
                    ],
                )
                self.uid = dict(conn.execute("SELECT key, value FROM meta").fetchall())["uid"]
                return
            if meta.get("schema_version") != SCHEMA_VERSION:
                raise IndexError_(
                    f"index {self.path} has schema version {meta.get('schema_version')!r}, this "
                    f"tellmemore reads version {SCHEMA_VERSION!r}; rebuild it: delete the file "
                    "and ingest again"
                )
            stored_dim = int(meta["dimension"])
            if stored_dim != self.dimension:
                raise IndexError_(
                    f"index {self.path} holds vectors of dimension {stored_dim} "
                    f"(embedder {meta.get('embedder') or 'unknown'!r}) but the embedder gives "
                    f"dimension {self.dimension}; rebuild the index (delete {self.path} and "
                    "ingest again) or configure the embedder it was built with"
                )
            stored_embedder = meta.get("embedder", "")
            if embedder and stored_embedder and embedder != stored_embedder:
                raise IndexError_(
                    f"index {self.path} was built with embedder {stored_embedder!r}, not "
                    f"{embedder!r}; rebuild the index (delete {self.path} and ingest again) or "
                    f"configure embedder {stored_embedder!r}"
                )
            if embedder and not stored_embedder:
                conn.execute("UPDATE meta SET value = ? WHERE key = 'embedder'", (embedder,))
            if "uid" not in meta:  # files written before the HNSW graph was saved
                meta["uid"] = uuid.uuid4().hex[:12]
                conn.execute("INSERT INTO meta (key, value) VALUES ('uid', ?)", (meta["uid"],))
            self.uid = meta["uid"]

    @contextmanager
    def _write(self, *, bump: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction; `bump` moves the generation so readers reload vectors."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                if bump:
                    conn.execute(
                        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 "
                        "WHERE key = 'generation'"
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    @property
    def generation(self) -> int:
        """Bumped by every write: what a value derived from the chunks is keyed on
        (`answer.calibration`)."""
        with self._lock:
            return self._generation()

    @property
    def embedder_name(self) -> str:
        return self.get_meta("embedder") or ""

    def get_meta(self, key: str) -> str | None:
        """A value of the `meta` table (None when unset)."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Record a fact about the index (e.g. how its vectors were encoded); not a content
        change, so readers' vectors are not reloaded."""
        with self._write(bump=False) as conn:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- writes -----------------------------------------------------------------------

    def upsert(self, chunks: Sequence[Chunk], vectors: Vector) -> None:
        if len(chunks) == 0:
            return
        chunks, matrix = prepare_upsert(chunks, vectors, self.dimension)
        order = range(len(chunks))
        with self._write() as conn:
            existing = self._rows_by_id(conn, [chunks[i].id for i in order])
            vgen = self._generation() + 1  # the generation this transaction commits
            next_rid = conn.execute("SELECT COALESCE(MAX(rid), 0) FROM chunks").fetchone()[0] + 1
            fts_deletes = []
            updates = []
            inserts = []
            fts_inserts = []
            for i in order:
                chunk = chunks[i]
                row = (*_row_values(chunk, matrix[i]), vgen)
                old = existing.get(chunk.id)
                if old is not None:
                    rid = old[0]
                    fts_deletes.append((rid, searchable_text(old[1], json.loads(old[2]), old[3])))
                    updates.append((*row[1:], rid))
                else:
                    rid = next_rid
                    next_rid += 1
                    inserts.append((rid, *row))
                fts_inserts.append((rid, searchable_text(chunk.title, chunk.section, chunk.text)))
            if fts_deletes:
                conn.executemany(
                    "INSERT INTO chunks_fts (chunks_fts, rowid, body) VALUES ('delete', ?, ?)",
                    fts_deletes,
                )
            if updates:
                conn.executemany(
                    "UPDATE chunks SET doc_id = ?, tenant = ?, title = ?, section = ?, text = ?, "
                    "version = ?, url = ?, content_hash = ?, metadata = ?, vector = ?, vgen = ? "
                    "WHERE rid = ?",
                    updates,
                )
            if inserts:
                conn.executemany(
                    f"INSERT INTO chunks (rid, {_FIELDS}, vector, vgen) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    inserts,
                )
            conn.executemany("INSERT INTO chunks_fts (rowid, body) VALUES (?, ?)", fts_inserts)

    def delete(self, ids: Iterable[str]) -> int:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        with self._write() as conn:
            existing = self._rows_by_id(conn, wanted)
            if not existing:
                return 0
            conn.executemany(
                "INSERT INTO chunks_fts (chunks_fts, rowid, body) VALUES ('delete', ?, ?)",
                [
                    (rid, searchable_text(title, json.loads(section), text))
                    for rid, title, section, text in existing.values()
                ],
            )
            conn.executemany(
                "DELETE FROM chunks WHERE rid = ?", [(row[0],) for row in existing.values()]
            )
            return len(existing)

    @staticmethod
    def _rows_by_id(
        conn: sqlite3.Connection, ids: Sequence[str]
    ) -> dict[str, tuple[int, str, str, str]]:
        found: dict[str, tuple[int, str, str, str]] = {}
        for start in range(0, len(ids), _SQL_BATCH):
            batch = ids[start : start + _SQL_BATCH]
            marks = ",".join("?" * len(batch))
            for rid, cid, title, section, text in conn.execute(
                f"SELECT rid, id, title, section, text FROM chunks WHERE id IN ({marks})", batch
            ):
                found[cid] = (rid, title, section, text)
        return found

    # -- reads ------------------------------------------------------------------------

    def ids(self, doc_id: str | None = None, *, tenant: str | None = None) -> dict[str, str]:
        sql = "SELECT id, content_hash FROM chunks"
        where, params = [], []
        if doc_id is not None:
            where.append("doc_id = ?")
            params.append(doc_id)
        if tenant is not None:
            where.append("tenant = ?")
            params.append(tenant)
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._lock:
            return dict(self._conn.execute(sql, params).fetchall())

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks for these ids, in the given order; unknown ids are skipped."""
        with self._lock:
            found: dict[str, Chunk] = {}
            for start in range(0, len(ids), _SQL_BATCH):
                batch = list(ids[start : start + _SQL_BATCH])
                marks = ",".join("?" * len(batch))
                for row in self._conn.execute(
                    f"SELECT {_COLUMNS} FROM chunks WHERE id IN ({marks})", batch
                ):
                    found[row[1]] = _chunk(row)
        return [found[i] for i in ids if i in found]

    def headings(self, *, tenant: str | None = None) -> tuple[str, ...]:
        """Distinct "Title > Section" headings, read once per index generation (~20 ms at
        40k chunks); with `tenant`, that tenant's only (`index.tenant_stats`)."""
        with self._lock:
            generation = self._generation()
            if tenant is not None and not self._tenant_stats.only(tenant, generation):
                return self._tenant_stats.headings(tenant, generation)
            if self._headings[0] != generation:
                rows = self._conn.execute("SELECT DISTINCT title, section FROM chunks")
                found = {header_line(t, json.loads(s)) for t, s in rows}
                self._headings = (generation, tuple(sorted(found)))
            return self._headings[1]

    def term_stats(self, terms: Iterable[str], *, tenant: str | None = None) -> TermStats:
        """Chunks containing each term, after FTS5's own lowercase + Porter stemming.

        The terms are tokenised by FTS5 itself (an in-memory table with the same
        tokenizer), so "Running" counts chunks containing "runs". A term of
        several words counts chunks containing that phrase. With `tenant`, only that
        tenant's chunks count (`index.tenant_stats`).
        """
        originals = list(dict.fromkeys(terms))
        with self._lock:
            generation = self._generation()
            if tenant is not None and not self._tenant_stats.only(tenant, generation):
                return self._tenant_stats.term_stats(originals, tenant, generation, self._stems)
            n_chunks = self._cached_count(generation)
            stems = self._stems(originals)
            # Exact counts are cached per index generation (any write starts a new one):
            # counting a common stem scans its whole posting list, and the resolver asks
            # for the same history terms turn after turn.
            if self._exact_df[0] != generation:
                self._exact_df = (generation, {})
            known = self._exact_df[1]
            if len(known) + len(originals) > _STEM_CACHE_SIZE:
                known.clear()  # bounded like the stem cache: every word users type lands here
            vocab = self._vocabulary(generation, n_chunks)
            df: dict[str, int] = {}
            for term in originals:
                tokens = stems[term]
                key = " ".join(tokens)
                if not tokens:
                    df[term] = 0
                elif key in known:
                    df[term] = known[key]
                elif len(tokens) == 1:
                    hit = vocab.get(key, 0) if vocab is not None else self._vocab_df(key)
                    df[term] = known[key] = hit
                else:
                    df[term] = known[key] = int(
                        self._conn.execute(
                            "SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                            (match_expression([key]),),
                        ).fetchone()[0]
                    )
        return TermStats(n_chunks=n_chunks, df=df)

    def _vocab_df(self, stem: str) -> int:
        row = self._conn.execute("SELECT doc FROM chunks_vocab WHERE term = ?", (stem,)).fetchone()
        return int(row[0]) if row else 0

    def _vocabulary(self, generation: int, n_chunks: int) -> dict[str, int] | None:
        """Every stem's chunk count at `generation`, or None while it is being read (the
        caller looks terms up one by one meanwhile, so nobody waits for the scan)."""
        if self._vocab[0] == generation:
            return self._vocab[1]
        if n_chunks <= VOCAB_MAX_CHUNKS:
            self._load_vocabulary_in_background()
        return None

    def _load_vocabulary_in_background(self) -> None:
        if self._vocab_loader is not None and self._vocab_loader.is_alive():
            return

        def load() -> None:
            try:
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
                try:
                    conn.execute("BEGIN")  # one snapshot: the counts match the generation
                    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'")
                    generation = int(row.fetchone()[0])
                    vocab = dict(conn.execute("SELECT term, doc FROM chunks_vocab"))
                    conn.execute("COMMIT")
                finally:
                    conn.close()
            except sqlite3.Error as exc:  # closed or removed meanwhile: stay on look-ups
                log.debug("cannot read the vocabulary of %s: %s", self.path, exc)
                return
            if generation > self._vocab[0]:
                self._vocab = (generation, vocab)

        self._vocab_loader = threading.Thread(target=load, name="tellmemore-vocab", daemon=True)
        self._vocab_loader.start()

    def wait_for_vocabulary(self, timeout: float | None = None) -> bool:
        """Block until a background vocabulary read finishes; True if none is running now."""
        return _joined(self._vocab_loader, timeout)

    def _stems(self, terms: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each term's tokens as FTS5 indexes them (porter unicode61), cached."""
        cache = self._stem_cache
        missing = [t for t in dict.fromkeys(terms) if t not in cache]
        if not missing:
            return {t: cache[t] for t in terms}
        conn = self._tokenizer()
        conn.execute("DELETE FROM t")
        conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(missing, 1))
        found: dict[str, list[str]] = {t: [] for t in missing}
        for doc, token in conn.execute("SELECT doc, term FROM tv ORDER BY doc, offset"):
            found[missing[doc - 1]].append(token)
        out = {t: tuple(found[t]) if t in found else cache[t] for t in terms}
        if len(cache) + len(found) > _STEM_CACHE_SIZE:
            cache.clear()  # after `out`: a term cached before the clear is still answered
        cache.update({t: tuple(v) for t, v in found.items()})
        return out

    def _tokenizer(self) -> sqlite3.Connection:
        if self._tok_conn is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            # FTS5 has handed back a token that is not valid UTF-8 (a long run of mixed
            # scripts, found by the explore profile): a replacement character, not a crash
            conn.text_factory = lambda b: b.decode("utf-8", "replace")
            conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize='porter unicode61')")
            conn.execute("CREATE VIRTUAL TABLE tv USING fts5vocab (t, 'instance')")
            self._tok_conn = conn
        return self._tok_conn

    def _cached_count(self, generation: int | None = None) -> int:
        """The chunk count at the current generation (COUNT(*) scans the table)."""
        if generation is None:
            generation = self._generation()
        if self._count is None or self._count[0] != generation:
            self._count = (generation, self.count())
        return self._count[1]

    def _match(self, text: str, *, prune: bool = True) -> str | None:
        """The MATCH expression for a query, without terms too common to be worth scanning.

        Pruning applies from `PRUNE_MIN_CHUNKS` chunks on and never under a
        doc_ids filter (searching inside a few documents must not lose the one
        common word they match on).

        Document frequencies are cached and reused until the chunk count has
        moved by 10%: the pruning decision is coarse and a lookup of a common
        term costs a scan of its posting list.
        """
        terms = query_terms(text)
        if not prune or len(terms) <= 2:
            return match_expression(terms)
        n = self._cached_count()
        if n < PRUNE_MIN_CHUNKS:
            return match_expression(terms)
        if self._df_cache_n == 0 or abs(n - self._df_cache_n) > 0.1 * self._df_cache_n:
            self._df_cache = {}
            self._df_cache_n = n
        stems = self._stems([t for t in terms if " " not in t])
        df: dict[str, int] = {}
        for term in terms:
            tokens = stems.get(term, ())
            if len(tokens) != 1:
                df[term] = 0  # codes and phrases are kept: rare by nature
                continue
            if tokens[0] not in self._df_cache:
                vocab = self._vocab[1] if self._vocab[0] >= 0 else None
                self._df_cache[tokens[0]] = (
                    vocab.get(tokens[0], 0) if vocab is not None else self._vocab_df(tokens[0])
                )
            df[term] = self._df_cache[tokens[0]]
        rarest = set(sorted(terms, key=lambda t: df[t])[:2])
        kept = [t for t in terms if t in rarest or df[t] <= MAX_DF_FRACTION * n]
        return match_expression(kept)

    # -- search -----------------------------------------------------------------------

    def search(self, request: SearchRequest) -> list[Hit]:
        if request.k <= 0 or not request.text.strip():
            return []
        mode = request.mode
        if mode is SearchMode.BM25:
            with self._lock:
                bm25 = self._bm25(request.text, request.filter, request.k)
                return self._hits(bm25, bm25=dict(bm25))
        vector = query_vector(request.vector, mode, self.dimension)
        if mode is SearchMode.HYBRID and request.fusion not in ("convex", "rrf"):
            raise InputError(f"unknown fusion {request.fusion!r}; valid: convex, rrf")
        with self._lock:
            if mode is SearchMode.DENSE:
                dense = self._dense_search(vector, request.filter, request.k)()
                return self._hits(dense, dense=dict(dense))
            n = max(request.candidates, request.k)
            # Sequential on purpose: running the dense product on a helper thread
            # while FTS5 ranks was 2.6x slower on 2 loaded cores (MTRAG 23k: hybrid
            # p50 56 ms vs 22 ms), as every extra thread waits for a time slice.
            bm25 = self._bm25(request.text, request.filter, n)
            dense = self._dense_search(vector, request.filter, n)()
            if request.fusion == "rrf":
                fused = fusion.rrf([bm25, dense], k=request.rrf_k)
            else:
                fused = fusion.convex(
                    bm25, dense, request.bm25_weight, dense_floor=request.dense_floor
                )
            return self._hits(fused[: request.k], bm25=dict(bm25), dense=dict(dense))

    def _bm25(self, text: str, flt: SearchFilter, limit: int) -> list[tuple[int, float]]:
        if flt.doc_ids is not None and not flt.doc_ids:
            return []
        match = self._match(text, prune=flt.doc_ids is None)
        if match is None:
            return []
        where, params = _filter_sql(flt)
        if where:
            sql = (
                "SELECT chunks_fts.rowid, bm25(chunks_fts) FROM chunks_fts "
                "JOIN chunks ON chunks.rid = chunks_fts.rowid "
                f"WHERE chunks_fts MATCH ? AND {where} ORDER BY bm25(chunks_fts) LIMIT ?"
            )
        else:
            sql = (
                "SELECT rowid, bm25(chunks_fts) FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?"
            )
        rows = self._conn.execute(sql, [match, *params, limit]).fetchall()
        return [(int(rid), -float(score)) for rid, score in rows]

    def _dense_search(
        self, query: Vector, flt: SearchFilter, k: int
    ) -> Callable[[], list[tuple[int, float]]]:
        """Prepare (under the lock) a dense search; the returned call needs no connection."""
        dense = self._dense_state()
        mask = dense.mask(flt)

        def run() -> list[tuple[int, float]]:
            if len(dense.matrix) == 0 or (mask is not None and not mask.any()):
                return []
            positions, scores = dense.matrix.search(query, k, mask)
            return list(zip(dense.rows.rids[positions].tolist(), scores.tolist(), strict=True))

        return run

    def _generation(self) -> int:
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0])

    def _dense_state(self) -> VectorState:
        generation = self._generation()
        dense = self._dense
        if dense is None or dense.generation > generation:
            dense = self._load_dense(generation, None)
        elif dense.generation != generation:
            dense = self._load_dense(generation, dense)
        elif self._built is not None and dense.matrix.graph is None:
            rows = dense.rows
            graph = self._graph_for(rows.rids, rows.matrix, generation)
            dense.matrix = DenseMatrix(rows.matrix, keys=rows.rids, graph=graph)
        self._dense = dense
        return dense

    def _load_dense(self, generation: int, previous: VectorState | None) -> VectorState:
        rows = read_rows(self._conn, self.dimension, previous)
        graph = self._graph_for(rows.rids, rows.matrix, generation)
        return VectorState(generation, rows, DenseMatrix(rows.matrix, keys=rows.rids, graph=graph))

    def _graph_for(
        self, rids: npt.NDArray[np.int64], matrix: npt.NDArray[np.float32], generation: int
    ) -> Graph | None:
        """The HNSW graph at this generation: kept, loaded from disk, updated or built."""
        if len(rids) <= self.hnsw_threshold:
            self._graph = None
            return None
        graph = self._graph
        if graph is None or graph.generation > generation:
            graph, self._built = self._built, None
            if graph is None or graph.generation > generation:
                graph = Graph.load(self.path, self.uid, self.dimension, generation)
        threads = default_threads()
        if graph is None:
            if self.background_build:
                self._build_in_background(rids, matrix, generation)
                return None  # exact search until the graph is ready
            graph = Graph.build(rids, matrix, generation, threads=threads)
            self._save_graph(graph)
        elif graph.generation != generation:
            changed, vectors = written_since(self._conn, graph.generation, self.dimension)
            graph.update(changed, vectors, rids, generation, threads=threads)
            if graph.changes_since_save > SAVE_AFTER_FRACTION * len(graph):
                self._save_graph(graph)
        self._graph = graph
        return graph

    def _build_in_background(
        self, rids: npt.NDArray[np.int64], matrix: npt.NDArray[np.float32], generation: int
    ) -> None:
        """Build the graph on a helper thread; searches stay exact until the next one finds it.

        Building takes minutes at 1M chunks; a first query must not wait for it.
        The arrays are never modified in place (a write makes new ones), so the
        thread can read them without the lock.
        """
        if self._builder is not None and self._builder.is_alive():
            return

        def build() -> None:
            graph = Graph.build(rids, matrix, generation, threads=default_threads())
            self._save_graph(graph)
            self._built = graph

        self._builder = threading.Thread(target=build, name="tellmemore-hnsw", daemon=True)
        self._builder.start()

    def wait_for_graph(self, timeout: float | None = None) -> bool:
        """Block until a background graph build finishes; True if none is running now."""
        return _joined(self._builder, timeout)

    def _save_graph(self, graph: Graph) -> None:
        try:
            graph.save(self.path, self.uid)
        except OSError as exc:  # a read-only directory: keep it in memory only
            log.warning("cannot save the HNSW graph beside %s: %s", self.path, exc)

    def _hits(
        self,
        ranked: Sequence[tuple[int, float]],
        *,
        bm25: dict[int, float] | None = None,
        dense: dict[int, float] | None = None,
    ) -> list[Hit]:
        if not ranked:
            return []
        rids = [rid for rid, _ in ranked]
        marks = ",".join("?" * len(rids))
        chunks = {
            row[0]: _chunk(row)
            for row in self._conn.execute(
                f"SELECT {_COLUMNS} FROM chunks WHERE rid IN ({marks})", rids
            )
        }
        hits: list[Hit] = []
        for rid, score in ranked:
            chunk = chunks.get(rid)
            if chunk is None:  # deleted by another process since the matrix was loaded
                continue
            hits.append(
                Hit(
                    chunk=chunk,
                    score=float(score),
                    rank=len(hits) + 1,
                    bm25=None if bm25 is None else bm25.get(rid),
                    dense=None if dense is None else dense.get(rid),
                )
            )
        return hits

    def close(self) -> None:
        with self._lock:
            self._dense = None
            self._graph = None
            self._conn.close()
            if self._tok_conn is not None:
                self._tok_conn.close()
                self._tok_conn = None

    def __enter__(self) -> SQLiteIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteIndex({str(self.path)!r}, dimension={self.dimension})"


def _joined(thread: threading.Thread | None, timeout: float | None) -> bool:
    """Wait up to `timeout` for a helper thread; True when none is running any more."""
    if thread is not None:
        thread.join(timeout)
        return not thread.is_alive()
    return True


def _filter_sql(flt: SearchFilter) -> tuple[str, list[Any]]:
    where, params = [], []
    if flt.tenant is not None:
        where.append("chunks.tenant = ?")
        params.append(flt.tenant)
    if flt.doc_ids is not None:
        where.append(f"chunks.doc_id IN ({','.join('?' * len(flt.doc_ids))})")
        params.extend(flt.doc_ids)
    return " AND ".join(where), params


def _row_values(chunk: Chunk, vector: Vector) -> tuple[Any, ...]:
    return (
        chunk.id,
        chunk.doc_id,
        chunk.tenant,
        chunk.title,
        json.dumps(list(chunk.section), ensure_ascii=False),
        chunk.text,
        chunk.version,
        chunk.url,
        chunk.content_hash,
        json.dumps(dict(chunk.metadata), ensure_ascii=False, sort_keys=True, default=str),
        vector.tobytes(),
    )


def _chunk(row: Sequence[Any]) -> Chunk:
    _, cid, doc_id, tenant, title, section, text, version, url, content_hash, metadata = row
    return Chunk(
        id=cid,
        doc_id=doc_id,
        text=text,
        title=title,
        section=tuple(json.loads(section)),
        version=version,
        url=url,
        tenant=tenant,
        content_hash=content_hash,
        metadata=json.loads(metadata),
    )
