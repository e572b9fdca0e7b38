"""Term statistics and headings of one tenant, for the SQLite index.

The typo fixer, the gate and the resolver read the index's vocabulary, headings and
document frequencies. Read over the whole index, they let one tenant learn another's
words: as tenant B, "frankfrt" was corrected to "frankfurt", a word only tenant A's
documents hold, and the gate took A's headings for subjects. A turn now reads these
through its own tenant (`SQLiteIndex.term_stats(..., tenant=)`, `headings(tenant=)`).

When the index holds one tenant only (the usual single-tenant project, or the default
tenant ""), that tenant's statistics are the whole index's: the fast global path (the
cached FTS5 vocabulary) answers. Otherwise each stem is counted with an FTS5 match
joined to the tenant's chunks, cached per index generation.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence

from tellmemore.index.lexical import match_expression
from tellmemore.types import TermStats, header_line

CACHE_SIZE = 100_000
"""Per-tenant counts kept per index generation (bounded like the global stem cache)."""


class TenantStats:
    """Per-tenant counts and headings over one SQLite index connection (caller holds the
    index lock for every call)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._generation = -1
        self._tenants: frozenset[str] = frozenset()
        self._n_chunks: dict[str, int] = {}
        self._df: dict[tuple[str, str], int] = {}
        self._headings: dict[str, tuple[str, ...]] = {}

    def _at(self, generation: int) -> None:
        if generation != self._generation:
            rows = self.conn.execute("SELECT tenant, COUNT(*) FROM chunks GROUP BY tenant")
            self._n_chunks = {str(t): int(n) for t, n in rows}
            self._tenants = frozenset(self._n_chunks)
            self._df = {}
            self._headings = {}
            self._generation = generation

    def only(self, tenant: str, generation: int) -> bool:
        """Whether the index holds no chunk of another tenant (global stats are the tenant's)."""
        self._at(generation)
        return self._tenants <= {tenant}

    def term_stats(
        self,
        originals: Sequence[str],
        tenant: str,
        generation: int,
        stems: Callable[[Sequence[str]], dict[str, tuple[str, ...]]],
    ) -> TermStats:
        self._at(generation)
        tokens_of = stems(originals)
        if len(self._df) + len(originals) > CACHE_SIZE:
            self._df.clear()
        df: dict[str, int] = {}
        for term in originals:
            tokens = tokens_of[term]
            key = " ".join(tokens)
            if not tokens:
                df[term] = 0
                continue
            cached = self._df.get((tenant, key))
            if cached is None:
                cached = int(
                    self.conn.execute(
                        "SELECT COUNT(*) FROM chunks_fts JOIN chunks "
                        "ON chunks.rid = chunks_fts.rowid "
                        "WHERE chunks_fts MATCH ? AND chunks.tenant = ?",
                        (match_expression([key]), tenant),
                    ).fetchone()[0]
                )
                self._df[(tenant, key)] = cached
            df[term] = cached
        return TermStats(n_chunks=self._n_chunks.get(tenant, 0), df=df)

    def headings(self, tenant: str, generation: int) -> tuple[str, ...]:
        """The tenant's distinct headings; the same tuple while the index is unchanged."""
        self._at(generation)
        found = self._headings.get(tenant)
        if found is None:
            rows = self.conn.execute(
                "SELECT DISTINCT title, section FROM chunks WHERE tenant = ?", (tenant,)
            )
            found = tuple(sorted({header_line(t, json.loads(s)) for t, s in rows}))
            self._headings[tenant] = found
        return found
