"""Deterministic test doubles that implement the real protocols.

`FakeEmbedder` is for fast unit tests of logic (ingestion bookkeeping,
fusion, conversation). Integration tests use the real MiniLM weights.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from tellmemore.index.base import Vector

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """A hashing-trick embedder: each lowercased word adds +-1 to one of `dimension` slots.

    Texts that share words get a high cosine; the same text always gets the
    same vector, in every process. A text without words maps to a fixed unit
    vector. `calls` and `texts_embedded` count the work done, so a test can
    assert that unchanged content is not embedded again.

        >>> emb = FakeEmbedder()
        >>> a, b = emb.embed_query("weekend support"), emb.embed_query("Support, weekend!")
        >>> round(float(a @ b), 3)
        1.0
    """

    max_tokens = 256
    batch_size = 32

    def __init__(self, dimension: int = 64) -> None:
        if dimension < 2:
            raise ValueError(f"FakeEmbedder dimension must be >= 2, got {dimension}")
        self.dimension = dimension
        self.name = f"fake-hashing-{dimension}"
        self.calls = 0
        self.texts_embedded = 0
        self._slots: dict[str, tuple[int, float]] = {}

    def _slot(self, word: str) -> tuple[int, float]:
        slot = self._slots.get(word)
        if slot is None:
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            slot = (value % self.dimension, 1.0 if (value >> 63) & 1 else -1.0)
            self._slots[word] = slot
        return slot

    def _vector(self, text: str) -> Vector:
        vector = np.zeros(self.dimension, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            index, sign = self._slot(word)
            vector[index] += sign
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            vector[0] = 1.0
            return vector
        return vector / np.float32(norm)

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        self.texts_embedded += len(texts)
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts]).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> Vector:
        self.calls += 1
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        """Words, as this embedder sees them."""
        return len(_WORD.findall(text))
