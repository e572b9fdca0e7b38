"""Vectors of texts a process has already embedded, kept for the next turn.

A conversation's turns read the same passages again and again: the offline answer embeds
each top passage's sentences, and the focus and phrase rules embed the passages' words.
Over Clef's 33 bundled conversations, 54% of the sentences a turn embedded had been
embedded by an earlier turn (1,756 texts, 815 distinct). The cache keeps each text's
vector per encoder (a runtime of one model: the query runtime and the bulk runtime can
differ in the third decimal, so they never mix), evicting the least recently used text past
`limit` (50,000 MiniLM vectors are about 77 MB).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from tellmemore.index.base import Vector

Encode = Callable[[list[str]], Vector]

LIMIT = 50_000
"""Texts kept per encoder at most."""


class VectorCache:
    """An LRU map of text -> vector for one encoder; thread-safe (the service's workers
    share it)."""

    def __init__(self, limit: int = LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"a vector cache keeps at least 1 text, got limit={limit}")
        self.limit = limit
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self._vectors)

    def get(self, encode: Encode, texts: Sequence[str]) -> np.ndarray:
        """The vectors of `texts`, in order (a float32 array, one row per text), encoding
        in one batch only the texts this cache does not hold."""
        if isinstance(encode, CachedEncode) and encode.cache is self:
            encode = encode.encode  # the wrapper of this very cache: encode once, count once
        if not texts:
            return np.asarray(encode([]), dtype=np.float32)
        distinct = list(dict.fromkeys(texts))
        known: dict[str, np.ndarray] = {}
        with self._lock:
            for text in distinct:
                vector = self._vectors.get(text)
                if vector is not None:
                    self._vectors.move_to_end(text)
                    known[text] = vector
            todo = [t for t in distinct if t not in known]
            self.hits += len(texts) - len(todo)
            self.misses += len(todo)
        if todo:  # encoded outside the lock: the service's workers encode side by side
            made = np.asarray(encode(todo), dtype=np.float32)
            known.update(zip(todo, made, strict=True))
            with self._lock:
                for text, vector in zip(todo, made, strict=True):
                    self._vectors[text] = vector.copy()  # a row, not a view of the batch
                while len(self._vectors) > self.limit:
                    self._vectors.popitem(last=False)
        return np.stack([known[t] for t in texts])


_CACHES: dict[tuple[str, ...], VectorCache] = {}
_BY_CALLABLE: weakref.WeakKeyDictionary[object, VectorCache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


class CachedEncode:
    """An encoder answered from its cache (`cached`); `cache_for` finds that cache again
    from the wrapper, never from the wrapper's own identity."""

    def __init__(self, encode: Encode, cache: VectorCache) -> None:
        self.encode = encode
        self.cache = cache

    def __call__(self, texts: Sequence[str]) -> Vector:
        return self.cache.get(self.encode, texts)


def cache_for(encode: Encode) -> VectorCache:
    """The process's cache for `encode`: one per embedder class, model name, precision,
    backend and method, so two models, or two runtimes or precisions of one model (bf16
    and fp32 differ in the third decimal), never share vectors. A `cached` wrapper gives
    the cache it reads. Any other callable (a function, a closure, a method of an object
    with no model name) has a cache of its own that lives as long as it does: keyed by an
    id, a new closure that reused a dead one's id read the dead one's vectors, of another
    model and size."""
    if isinstance(encode, CachedEncode):
        return encode.cache
    owner = getattr(encode, "__self__", None)
    if owner is None or not hasattr(owner, "name"):
        with _CACHES_LOCK:
            try:
                cache = _BY_CALLABLE.get(encode)
                if cache is None:
                    cache = _BY_CALLABLE[encode] = VectorCache()
            except TypeError:  # no weak reference to it: a cache for this call only
                cache = VectorCache()
            return cache
    key = (
        type(owner).__qualname__,
        str(owner.name),
        str(getattr(owner, "precision", "")),
        str(getattr(owner, "backend", "")),
        getattr(encode, "__name__", ""),
    )
    with _CACHES_LOCK:
        return _CACHES.setdefault(key, VectorCache())


def cached(encode: Encode) -> CachedEncode:
    """`encode` answered from the process's cache, for callers that take an encoder."""
    return CachedEncode(encode, cache_for(encode))
