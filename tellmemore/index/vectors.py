"""The in-memory copy of the SQLite index's vectors and filter columns.

Read whole on the first search, then patched after each write: only rows
whose `vgen` (the generation of their last write) is newer are read again,
and rows deleted since are dropped by comparing rowids, so one batch written
into a 100k-chunk index costs milliseconds instead of a full reload. Tenants
and documents are kept as integer codes so that a filter is one vectorised
comparison over all rows, applied before top-k.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tellmemore.index.dense import DenseMatrix
from tellmemore.types import SearchFilter


@dataclass
class Rows:
    """Rows in rowid order: ids, float32 vectors, tenant and document codes."""

    rids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    tenants: npt.NDArray[np.int32]
    tenant_codes: dict[str, int]
    docs: npt.NDArray[np.int32]
    doc_codes: dict[str, int]


@dataclass
class VectorState:
    """The rows at one generation of the index, with the matrix that searches them."""

    generation: int
    rows: Rows
    matrix: DenseMatrix

    def mask(self, flt: SearchFilter) -> npt.NDArray[np.bool_] | None:
        """Rows the filter allows (None: all)."""
        rows = self.rows
        mask: npt.NDArray[np.bool_] | None = None
        if flt.tenant is not None:
            code = rows.tenant_codes.get(flt.tenant)
            if code is None:
                return np.zeros(len(rows.rids), dtype=bool)
            mask = rows.tenants == code
        if flt.doc_ids is not None:
            codes = [rows.doc_codes[d] for d in flt.doc_ids if d in rows.doc_codes]
            docs = np.isin(rows.docs, np.asarray(codes, dtype=np.int32))
            mask = docs if mask is None else mask & docs
        return mask


def written_since(
    conn: sqlite3.Connection, generation: int, dimension: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Rowids and vectors of the rows written after `generation`, in rowid order."""
    found = conn.execute(
        "SELECT rid, vector FROM chunks WHERE vgen > ? ORDER BY rid", (generation,)
    ).fetchall()
    rids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    vectors = np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32)
    return rids, vectors.reshape(len(found), dimension)


def read_rows(
    conn: sqlite3.Connection, dimension: int, previous: VectorState | None = None
) -> Rows:
    """All rows, or `previous` patched with the rows written since its generation."""
    if previous is None:
        found = conn.execute("SELECT rid, tenant, doc_id, vector FROM chunks ORDER BY rid")
        tenant_codes: dict[str, int] = {}
        doc_codes: dict[str, int] = {}
    else:
        found = conn.execute(
            "SELECT rid, tenant, doc_id, vector FROM chunks WHERE vgen > ? ORDER BY rid",
            (previous.generation,),
        )
        tenant_codes = dict(previous.rows.tenant_codes)
        doc_codes = dict(previous.rows.doc_codes)
    records = found.fetchall()
    n = len(records)
    rids = np.fromiter((r[0] for r in records), dtype=np.int64, count=n)
    matrix = np.frombuffer(b"".join(r[3] for r in records), dtype=np.float32)
    matrix = matrix.reshape(n, dimension)
    tenants = np.fromiter(
        (tenant_codes.setdefault(r[1], len(tenant_codes)) for r in records),
        dtype=np.int32,
        count=n,
    )
    docs = np.fromiter(
        (doc_codes.setdefault(r[2], len(doc_codes)) for r in records), dtype=np.int32, count=n
    )
    if previous is not None:
        old = previous.rows
        live = np.fromiter(
            (r[0] for r in conn.execute("SELECT rid FROM chunks ORDER BY rid")), dtype=np.int64
        )
        keep = np.isin(old.rids, live, assume_unique=True) & ~np.isin(
            old.rids, rids, assume_unique=True
        )
        merged = np.concatenate([old.rids[keep], rids])
        order = np.argsort(merged, kind="stable")
        rids = merged[order]
        matrix = np.concatenate([previous.matrix.matrix[keep], matrix])[order]
        tenants = np.concatenate([old.tenants[keep], tenants])[order]
        docs = np.concatenate([old.docs[keep], docs])[order]
    return Rows(rids, matrix, tenants, tenant_codes, docs, doc_codes)
