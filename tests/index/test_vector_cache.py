"""The process's vector cache, over the real MiniLM query runtime."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from tellmemore.index.base import Vector
from tellmemore.index.embedders import SentenceTransformerEmbedder
from tellmemore.index.vector_cache import VectorCache, cache_for, cached

SENTENCES = [
    "Employees get 15 days of paid vacation a year.",
    "Unused vacation days roll over, up to five.",
    "Sick leave accrues at one hour for every 30 hours worked.",
]


class Counting:
    """The real encoder, recording every batch it was asked to encode."""

    def __init__(self, minilm: SentenceTransformerEmbedder) -> None:
        self.minilm = minilm
        self.batches: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> Vector:
        self.batches.append(list(texts))
        return self.minilm.embed_queries(texts)


@pytest.mark.model
def test_cached_vectors_are_the_encoders_and_only_new_texts_are_encoded(
    minilm: SentenceTransformerEmbedder,
) -> None:
    encode = Counting(minilm)
    cache = VectorCache()
    first = cache.get(encode, SENTENCES[:2])
    asked = [SENTENCES[1], SENTENCES[2], SENTENCES[1], SENTENCES[0]]
    second = cache.get(encode, asked)
    assert encode.batches == [SENTENCES[:2], [SENTENCES[2]]]  # duplicates encoded once
    direct = minilm.embed_queries(asked)
    np.testing.assert_allclose(second, direct, atol=1e-5)  # in the order asked
    np.testing.assert_allclose(first, direct[[3, 0]], atol=1e-5)
    assert second.dtype == np.float32 and second.shape == (4, 384)
    assert (cache.hits, cache.misses) == (3, 3)


@pytest.mark.model
def test_the_least_recently_used_text_is_evicted(minilm: SentenceTransformerEmbedder) -> None:
    encode = Counting(minilm)
    cache = VectorCache(limit=2)
    cache.get(encode, SENTENCES[:2])
    cache.get(encode, [SENTENCES[0]])  # the first is now the most recent
    cache.get(encode, [SENTENCES[2]])  # evicts the second
    assert len(cache) == 2
    cache.get(encode, [SENTENCES[0], SENTENCES[1]])
    assert encode.batches[-1] == [SENTENCES[1]]


@pytest.mark.model
def test_a_returned_array_is_a_copy_the_caller_may_change(
    minilm: SentenceTransformerEmbedder,
) -> None:
    cache = VectorCache()
    got = cache.get(minilm.embed_queries, SENTENCES[:1])
    got[:] = 0.0
    again = cache.get(minilm.embed_queries, SENTENCES[:1])
    np.testing.assert_allclose(np.linalg.norm(again, axis=1), 1.0, atol=1e-5)


@pytest.mark.model
def test_nothing_asked_gives_an_empty_batch_of_the_models_width(
    minilm: SentenceTransformerEmbedder,
) -> None:
    assert VectorCache().get(minilm.embed_queries, []).shape == (0, 384)


@pytest.mark.model
def test_each_runtime_of_each_model_has_its_own_cache(
    minilm: SentenceTransformerEmbedder,
) -> None:
    other = SentenceTransformerEmbedder()
    assert cache_for(minilm.embed_queries) is cache_for(other.embed_queries)  # same model
    assert cache_for(minilm.embed_queries) is not cache_for(minilm.embed_documents)
    quantised = SentenceTransformerEmbedder(precision="int8")
    assert cache_for(quantised.embed_queries) is not cache_for(minilm.embed_queries)
    encode = cached(minilm.embed_queries)
    before = cache_for(minilm.embed_queries).misses
    encode(["a sentence this test alone embeds"])
    encode(["a sentence this test alone embeds"])
    assert cache_for(minilm.embed_queries).misses == before + 1


@pytest.mark.model
def test_threads_sharing_a_cache_each_get_their_own_texts_vectors(
    minilm: SentenceTransformerEmbedder,
) -> None:
    cache = VectorCache(limit=3)  # small: threads evict each other's texts
    texts = [f"Policy number {i} covers weekend support." for i in range(12)]
    expected = minilm.embed_queries(texts)
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            for step in range(12):
                i = (offset + step) % len(texts)
                got = cache.get(minilm.embed_queries, [texts[i], texts[(i + 1) % len(texts)]])
                np.testing.assert_allclose(got, expected[[i, (i + 1) % len(texts)]], atol=1e-5)
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k * 3,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(cache) <= 3


def test_a_cache_keeps_at_least_one_text() -> None:
    with pytest.raises(ValueError, match="limit=0"):
        VectorCache(limit=0)


def test_a_function_s_cache_dies_with_it_and_is_never_another_s() -> None:
    """A closure's cache was keyed by its id: a new closure that reused a dead one's id read
    the dead one's vectors, of another size ("all input arrays must have the same shape")."""
    import gc

    for width in range(2, 40):  # freed and made again: CPython soon reuses an id

        def encode(texts: Sequence[str], width: int = width) -> Vector:
            return np.full((len(texts), width), float(width), dtype=np.float32)

        assert cache_for(encode).get(encode, ["same text"]).shape == (1, width)
        del encode
        gc.collect()


def test_a_cached_encoder_gives_its_own_cache_back(minilm: SentenceTransformerEmbedder) -> None:
    counting = Counting(minilm)
    wrapped = cached(counting)
    assert cache_for(wrapped) is cache_for(counting)
    wrapped(SENTENCES[:1])
    cache_for(wrapped).get(wrapped, SENTENCES[:2])  # as the answer rules call it
    assert counting.batches == [SENTENCES[:1], SENTENCES[1:2]]
