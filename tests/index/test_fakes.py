"""FakeEmbedder: deterministic, protocol-conformant, similar texts are similar."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from tellmemore.index.base import Embedder
from tellmemore.testing.fakes import FakeEmbedder


def test_fake_implements_the_protocol() -> None:
    emb = FakeEmbedder(32)
    assert isinstance(emb, Embedder)
    vectors = emb.embed_documents(["a b", "", "c"])
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert emb.embed_documents([]).shape == (0, 32)
    assert emb.count_tokens("Weekend support, please!") == 3


def test_shared_words_mean_similar_vectors() -> None:
    emb = FakeEmbedder()
    q = emb.embed_query("weekend support")
    near = emb.embed_query("Support on the weekend")
    far = emb.embed_query("refund policy for cancelled bookings")
    assert float(q @ near) > 0.5 > float(q @ far)


def test_same_vector_in_another_process() -> None:
    code = (
        "from tellmemore.testing.fakes import FakeEmbedder;"
        "print(FakeEmbedder().embed_query('weekend support').tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    other = np.array(json.loads(out.stdout), dtype=np.float32)
    np.testing.assert_array_equal(other, FakeEmbedder().embed_query("weekend support"))


def test_counts_work() -> None:
    emb = FakeEmbedder()
    emb.embed_documents(["a", "b"])
    emb.embed_query("c")
    assert (emb.calls, emb.texts_embedded) == (2, 2)
