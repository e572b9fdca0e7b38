"""Dense top-k over an in-memory float32 matrix: exact (NumPy) or HNSW (usearch).

Exact search is one matrix-vector product. It is memory-bound (100k x 384
float32 is 150 MB read per query): one BLAS thread takes ~12 ms on an idle
core here, so large matrices are split in row blocks over a small pool of
Python threads, each calling BLAS with ONE thread (~6 ms on 2 idle cores; no
gain, and no loss, when other work already fills both cores). BLAS is held at one
thread during the product because OpenBLAS's own threads keep spinning after
a search and starve torch's query encoding on 2 cores (design.md: dense p95
100 ms with OpenBLAS threads, 14 ms with one); Python pool threads block
instead of spinning.

Filters are a boolean mask over rows applied before top-k: a selective mask
scores only its rows. With an HNSW graph (`index.hnsw`, attached by the
SQLite index above `hnsw_threshold` chunks) the graph proposes candidates
that the float32 rows rescore exactly; a filter is applied by over-fetching
(1/fraction kept) and post-filtering, falling back to exact search when the
filter is selective or too few candidates survive.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from tellmemore.index.base import Vector
from tellmemore.index.hnsw import Graph

# Below this many rows one BLAS call beats the thread hand-off.
PARALLEL_MIN_ROWS = 16_384
# A mask selecting fewer than this fraction of rows scores only those rows.
SUBSET_FRACTION = 0.25
# With a graph: a filter keeping fewer than this fraction of rows is searched exactly;
# otherwise the graph over-fetches by 1/fraction and the filter applies afterwards.
GRAPH_MIN_FRACTION = 0.05
# Candidates asked of the graph (at least), all rescored exactly.
GRAPH_MIN_FETCH = 100

_blas_lock = threading.Lock()
_blas_depth = 0
_blas_limiter: Any = None


@functools.cache
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def blas_single_thread() -> Iterator[None]:
    """Hold BLAS at one thread; nested and concurrent uses share one limit."""
    global _blas_depth, _blas_limiter
    with _blas_lock:
        if _blas_depth == 0:
            _blas_limiter = _controller().limit(limits=1, user_api="blas")
        _blas_depth += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_depth -= 1
            if _blas_depth == 0 and _blas_limiter is not None:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None


@functools.cache
def _pool(workers: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tellmemore-dense")


def default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def top_k(scores: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.int64]:
    """Positions of the k highest scores, best first (ties by position)."""
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k >= n:
        return np.argsort(-scores, kind="stable").astype(np.int64)
    part = np.argpartition(-scores, k - 1)[:k]
    order = np.lexsort((part, -scores[part]))
    return part[order].astype(np.int64)


class DenseMatrix:
    """Unit vectors in rows, keyed by sorted chunk rowids; optionally an HNSW graph over them.

    `search` returns (positions, cosine scores), best first. With a graph, the
    graph proposes candidates and the float32 rows rescore them exactly.
    """

    def __init__(
        self,
        matrix: Vector,
        *,
        keys: npt.NDArray[np.int64] | None = None,
        graph: Graph | None = None,
        threads: int | None = None,
    ) -> None:
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        n = self.matrix.shape[0]
        self.keys = np.arange(n, dtype=np.int64) if keys is None else keys
        self.graph = graph
        self.threads = threads or default_threads()

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def uses_hnsw(self) -> bool:
        return self.graph is not None

    def scores(self, query: Vector) -> npt.NDArray[np.float32]:
        """Cosine of the query with every row (exact)."""
        n = len(self)
        with blas_single_thread():
            if n < PARALLEL_MIN_ROWS or self.threads == 1:
                return self.matrix @ query
            out = np.empty(n, dtype=np.float32)
            step = -(-n // self.threads)
            bounds = [(i, min(n, i + step)) for i in range(0, n, step)]

            def block(span: tuple[int, int]) -> None:
                lo, hi = span
                np.matmul(self.matrix[lo:hi], query, out=out[lo:hi])

            # The calling thread computes the last block itself.
            others = [_pool(self.threads).submit(block, span) for span in bounds[:-1]]
            block(bounds[-1])
            for future in others:
                future.result()
            return out

    def search(
        self, query: Vector, k: int, mask: npt.NDArray[np.bool_] | None = None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        n = len(self)
        if n == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if self.graph is not None:
            found = self._search_graph(query, k, mask)
            if found is not None:
                return found
        return self.search_exact(query, k, mask)

    def search_exact(
        self, query: Vector, k: int, mask: npt.NDArray[np.bool_] | None = None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        n = len(self)
        if mask is None:
            scores = self.scores(query)
            best = top_k(scores, k)
            return best, scores[best]
        rows = np.flatnonzero(mask)
        if rows.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if rows.size < SUBSET_FRACTION * n:
            with blas_single_thread():
                sub = self.matrix[rows] @ query
        else:
            sub = self.scores(query)[rows]
        best = top_k(sub, k)
        return rows[best], sub[best]

    def _search_graph(
        self, query: Vector, k: int, mask: npt.NDArray[np.bool_] | None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None:
        """Graph candidates rescored exactly; None means: search exactly instead."""
        graph = self.graph
        if graph is None:
            return None
        n = len(self)
        allowed = n if mask is None else int(mask.sum())
        if allowed == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if allowed < GRAPH_MIN_FRACTION * n:
            return None  # a selective filter: scanning its rows is cheap and exact
        fetch = int(max(GRAPH_MIN_FETCH, 2 * k) * n / allowed)
        if fetch > n // 2:
            return None  # a beam that wide is no cheaper than a scan, and less exact
        keys = graph.search(query, fetch)
        positions = np.searchsorted(self.keys, keys)
        inside = positions < n
        positions, keys = positions[inside], keys[inside]
        positions = positions[self.keys[positions] == keys]  # drop rows the matrix lacks
        if mask is not None:
            positions = positions[mask[positions]]
        if positions.size < min(k, allowed):
            return None  # the filter left too few candidates
        with blas_single_thread():
            scores = self.matrix[positions] @ query
        best = top_k(scores, k)
        return positions[best], scores[best]
