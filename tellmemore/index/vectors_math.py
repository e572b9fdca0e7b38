"""Unit-length float32 rows: what every embedder returns, whatever runtime made them."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


def normalise(vectors: npt.ArrayLike) -> Vector:
    """Rows scaled to unit length in float32 (zero rows stay zero), contiguous."""
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    if out.ndim == 1:
        norm = float(np.linalg.norm(out))
        return out / norm if norm > 0 else out
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(out / norms, dtype=np.float32)
