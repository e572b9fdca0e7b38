"""An HNSW graph (usearch) over chunk rowids, updated in place and saved beside the index.

Used above `hnsw_threshold` chunks, where an exact scan costs more than the
graph. Measured here (bench/search_latency.md, 2 cores shared with other
jobs, load ~8): building is the expensive part, 611 vectors/s for 100k x 384
(164 s; several minutes would be needed for 1M), while a search takes ~2 ms
and recall@10 after exact rescoring is 0.9995. Hence:

- the graph is keyed by the chunk rowid and kept in memory across writes:
  after a write only the changed rows (`chunks.vgen` newer than the graph)
  are removed and re-added, and rows gone from the table are removed;
- it is saved beside the database (`index.db.<uid>.g<generation>.usearch`,
  written to a temporary name then renamed) after a build and after updates
  touching 10% of it, so a restart or a second process (the service's
  workers) loads it instead of rebuilding. The file name carries the index's
  uid (a rebuilt index.db never picks up a stale graph) and the generation
  it reflects, so a reader applies exactly the changes made since.

Vectors are stored as f16 with `expansion_add=64`: 3.7x faster to build than
f32 with 128 (20k clustered vectors: 2353 vs 632 vectors/s), with the same
recall@10 (1.000) once the candidates are rescored exactly from the float32
matrix (see `DenseMatrix`). Loading a saved 100k graph takes ~2 s.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

CONNECTIVITY = 16
EXPANSION_ADD = 64
EXPANSION_SEARCH = 128
DTYPE = "f16"
SAVE_AFTER_FRACTION = 0.1


def _load_onnxruntime_first() -> None:
    """Load ONNX Runtime's native library before usearch's.

    With usearch 2.26 loaded first, `import onnxruntime` (1.32) dies with SIGSEGV inside its
    module init (a C++ locale facet in libstdc++): a process with a graph (an index over
    `index.hnsw_threshold` chunks) would crash on its first query encoded on the ONNX path.
    In this order both work (tests/index/test_hnsw_onnx_order.py). Costs ~0.1 s, once.
    """
    with contextlib.suppress(ImportError):  # a torch-only install has nothing to order
        import onnxruntime  # noqa: F401


def _new_index(dimension: int) -> Any:
    _load_onnxruntime_first()
    from usearch.index import Index

    return Index(
        ndim=dimension,
        metric="ip",
        dtype=DTYPE,
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )


class Graph:
    """The HNSW graph of one index at one generation (the write counter in `meta`)."""

    def __init__(self, index: Any, generation: int) -> None:
        self._index = index
        self.generation = generation
        self.changes_since_save = 0

    def __len__(self) -> int:
        return len(self._index)

    @property
    def dimension(self) -> int:
        return int(self._index.ndim)

    @classmethod
    def build(
        cls, rids: npt.NDArray[np.int64], matrix: npt.NDArray[np.float32], generation: int,
        *, threads: int = 0,
    ) -> Graph:  # fmt: skip
        index = _new_index(matrix.shape[1])
        if len(rids):
            index.add(rids.astype(np.uint64), matrix, threads=threads)
        return cls(index, generation)

    def update(
        self,
        changed_rids: npt.NDArray[np.int64],
        changed_vectors: npt.NDArray[np.float32],
        live_rids: npt.NDArray[np.int64],
        generation: int,
        *,
        threads: int = 0,
    ) -> None:
        """Re-add rows written since the graph's generation; drop rows no longer live."""
        keys = np.asarray(self._index.keys, dtype=np.int64)
        gone = np.setdiff1d(keys, live_rids, assume_unique=True)
        stale = np.intersect1d(keys, changed_rids, assume_unique=True)
        drop = np.concatenate([gone, stale])
        if drop.size:
            self._index.remove(drop.astype(np.uint64))
        if changed_rids.size:
            self._index.add(changed_rids.astype(np.uint64), changed_vectors, threads=threads)
        self.changes_since_save += int(gone.size + changed_rids.size)
        self.generation = generation

    def search(self, query: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.int64]:
        """Rowids of about the `count` nearest rows (approximate), best first."""
        if len(self._index) == 0 or count <= 0:
            return np.zeros(0, dtype=np.int64)
        matches = self._index.search(query, min(count, len(self._index)), threads=1)
        return np.asarray(matches.keys, dtype=np.int64)

    # -- files ------------------------------------------------------------------------

    @staticmethod
    def _pattern(db_path: Path, uid: str) -> re.Pattern[str]:
        return re.compile(re.escape(f"{db_path.name}.{uid}.g") + r"(\d+)\.usearch$")

    @classmethod
    def load(cls, db_path: Path, uid: str, dimension: int, generation: int) -> Graph | None:
        """The newest saved graph of this index not newer than `generation`, or None."""
        pattern = cls._pattern(db_path, uid)
        found = []
        for path in db_path.parent.glob(f"{db_path.name}.{uid}.g*.usearch"):
            match = pattern.search(path.name)
            if match and int(match.group(1)) <= generation:
                found.append((int(match.group(1)), path))
        for saved, path in sorted(found, reverse=True):
            try:
                index = _new_index(dimension)
                index.load(str(path))
            except Exception as exc:  # a torn or foreign file: rebuild instead
                log.warning("ignoring HNSW file %s: %s", path, exc)
                continue
            if int(index.ndim) == dimension:
                return cls(index, saved)
        return None

    def save(self, db_path: Path, uid: str) -> Path:
        """Write the graph beside the database, then remove older saves of this index."""
        target = db_path.with_name(f"{db_path.name}.{uid}.g{self.generation}.usearch")
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        self._index.save(str(tmp))
        os.replace(tmp, target)
        self.changes_since_save = 0
        for old in db_path.parent.glob(f"{db_path.name}.*.usearch"):
            if old != target:
                with contextlib.suppress(OSError):
                    old.unlink()
        return target
