"""The Index protocol: one contract, several engines (SQLite by default, Milvus at scale).

Semantics every engine must keep (checked by `tellmemore.testing.conformance`):
- `upsert` is idempotent by chunk id: the same id twice leaves one chunk, the later text.
  Chunk and vector are written in one transaction where the engine has transactions.
- `delete` of an unknown id is not an error; it returns how many were removed.
- `search` returns at most `k` hits, best first, ranks 1..n, never a chunk outside the
  filter. An empty index or an empty query returns `[]`, never raises.
- `term_stats` counts, for each term, how many chunks contain it (after the engine's
  own normalisation of the term: lowercase + Porter stem for SQLite FTS5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from tellmemore.types import Chunk, Hit, SearchFilter, SearchMode, TermStats

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class SearchRequest:
    """One search. `vector` may be None for `bm25` mode.

    `bm25_weight` applies to convex fusion in hybrid mode: score =
    w * norm(bm25) + (1 - w) * norm(dense). `fusion="rrf"` uses reciprocal rank
    fusion with constant `rrf_k` instead.
    """

    text: str
    vector: Vector | None
    k: int = 5
    mode: SearchMode = SearchMode.HYBRID
    filter: SearchFilter = field(default_factory=SearchFilter)
    fusion: str = "convex"
    bm25_weight: float = 0.35
    rrf_k: int = 60
    candidates: int = 50
    dense_floor: float | None = None
    """Convex fusion only: the cosine unrelated questions reach in this index
    (`answer.calibration`); dense hits at or below it count little. None: plain min-max."""


@runtime_checkable
class Index(Protocol):
    """A store of chunks and their vectors that searches by BM25, dense, or both."""

    engine: ClassVar[str]
    supports_hybrid: ClassVar[bool]

    def upsert(self, chunks: Sequence[Chunk], vectors: Vector) -> None:
        """Insert or replace chunks by id, with their vectors (row i belongs to chunks[i])."""
        ...

    def delete(self, ids: Iterable[str]) -> int:
        """Remove chunks by id; unknown ids are ignored. Returns how many were removed."""
        ...

    def ids(self, doc_id: str | None = None, *, tenant: str | None = None) -> dict[str, str]:
        """Stored chunk ids -> content hash, optionally for one document or tenant."""
        ...

    def search(self, request: SearchRequest) -> list[Hit]:
        """Ranked hits for one query, filtered before ranking."""
        ...

    def term_stats(self, terms: Iterable[str], *, tenant: str | None = None) -> TermStats:
        """Document frequency of each term (engine-normalised) and the chunk count; with
        `tenant`, over that tenant's chunks only (what one tenant's turn may read)."""
        ...

    def headings(self, *, tenant: str | None = None) -> Sequence[str]:
        """The distinct headings of the stored chunks, "Title > Section > Subsection": what
        the documents name as subjects (`conversation.headings`). The same sequence object
        while the index is unchanged, so callers can cache what they derive from it."""
        ...

    def count(self) -> int:
        """How many chunks are stored."""
        ...

    def close(self) -> None:
        """Release files and connections."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors.

    `max_tokens` is the model's window; chunking sizes chunks in this model's
    tokens (`count_tokens`) so that nothing is silently truncated.
    `batch_size` is a capability the ingestion pipeline routes on.
    """

    name: str
    dimension: int
    max_tokens: int
    batch_size: int

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        """Vectors for passages, shape (len(texts), dimension), L2-normalised."""
        ...

    def embed_query(self, text: str) -> Vector:
        """One query vector, shape (dimension,), L2-normalised."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in this model's tokenizer (without special tokens)."""
        ...


def prepare_upsert(
    chunks: Sequence[Chunk], vectors: Vector, dimension: int
) -> tuple[list[Chunk], Vector]:
    """The chunks and unit-length float32 rows every engine writes, checked once.

    Shapes must match (`InputError` otherwise); zero vectors stay zero; when an id
    appears twice in one batch the later chunk wins, as an upsert by id would decide.
    """
    from tellmemore.errors import InputError

    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape != (len(chunks), dimension):
        raise InputError(
            f"upsert got {len(chunks)} chunks and vectors of shape {matrix.shape}; expected "
            f"({len(chunks)}, {dimension})"
        )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    matrix = np.ascontiguousarray(matrix / norms, dtype=np.float32)
    latest: dict[str, int] = {}
    for i, chunk in enumerate(chunks):
        latest[chunk.id] = i
    order = list(latest.values())
    return [chunks[i] for i in order], matrix[order]


def query_vector(vector: Vector | None, mode: SearchMode, dimension: int) -> Vector:
    """A search request's vector as unit-length float32, checked against the index
    (shared by every engine, so they refuse the same bad input the same way)."""
    from tellmemore.errors import InputError

    if vector is None:
        raise InputError(f"{mode.value} search needs a query vector; got None")
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    if q.shape[0] != dimension:
        raise InputError(f"query vector has dimension {q.shape[0]}, the index holds {dimension}")
    norm = float(np.linalg.norm(q))
    return q / np.float32(norm) if norm > 0 else q
