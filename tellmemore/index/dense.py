"""Dense top-k over an in-memory float32 matrix: exact (NumPy) or HNSW (usearch).

Exact search is one matrix-vector product. It is memory-bound (100k x 384
float32 is 150 MB read per query): one BLAS thread takes ~12 ms here, so
large matrices are split in row blocks over a small pool of Python threads,
each calling BLAS with ONE thread (~6 ms on 2 cores). BLAS is held at one
thread during the product because OpenBLAS's own threads keep spinning after
a search and starve torch's query encoding on 2 cores (design.md: dense p95
100 ms with OpenBLAS threads, 14 ms with one); Python pool threads block
instead of spinning.

Filters are a boolean mask over rows applied before top-k: a selective mask
scores only its rows. Above `hnsw_threshold` rows an HNSW graph (usearch,
inner product) answers instead; a mask is then applied by over-fetching and
post-filtering, falling back to exact when too few rows survive.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from tellmemore.index.base import Vector

# Below this many rows one BLAS call beats the thread hand-off.
PARALLEL_MIN_ROWS = 16_384
# A mask selecting fewer than this fraction of rows scores only those rows.
SUBSET_FRACTION = 0.25

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


T = TypeVar("T")


@functools.cache
def _beside() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="tellmemore-beside")


def run_beside(task: Callable[[], T], *, inline: bool = False) -> Callable[[], T]:
    """Start `task` on a helper thread so the caller can work meanwhile; call the result to wait.

    `inline=True` runs it now instead (for small work the hand-off costs more).
    """
    if inline:
        value = task()
        return lambda: value
    return _beside().submit(task).result


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
    """Unit vectors in rows; `search` returns (positions, cosine scores), best first."""

    def __init__(
        self, matrix: Vector, *, hnsw_threshold: int = 200_000, threads: int | None = None
    ) -> None:
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.hnsw_threshold = hnsw_threshold
        self.threads = threads or default_threads()
        self._hnsw: Any = None
        self._hnsw_lock = threading.Lock()

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def uses_hnsw(self) -> bool:
        return len(self) > self.hnsw_threshold

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
        if self.uses_hnsw:
            found = self._search_hnsw(query, k, mask)
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

    def _index(self) -> Any:
        with self._hnsw_lock:
            if self._hnsw is None:
                from usearch.index import Index as UIndex

                index = UIndex(
                    ndim=self.matrix.shape[1],
                    metric="ip",
                    dtype="f32",
                    connectivity=16,
                    expansion_add=128,
                    expansion_search=96,
                )
                index.add(np.arange(len(self), dtype=np.uint64), self.matrix, threads=self.threads)
                self._hnsw = index
            return self._hnsw

    def _search_hnsw(
        self, query: Vector, k: int, mask: npt.NDArray[np.bool_] | None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None:
        index = self._index()
        if mask is None:
            fetch = k
        else:
            allowed = int(mask.sum())
            if allowed == 0:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
            if allowed <= self.hnsw_threshold:
                return None  # the filtered set is small enough for exact search
            fetch = min(len(self), int(k * len(self) / allowed * 2) + k)
        matches = index.search(query, fetch, threads=1)
        keys = np.asarray(matches.keys, dtype=np.int64)
        scores = (1.0 - np.asarray(matches.distances, dtype=np.float32)).astype(np.float32)
        if mask is not None:
            keep = mask[keys]
            keys, scores = keys[keep], scores[keep]
            if keys.size < k:
                return None
        return keys[:k], scores[:k]
