"""The sentence scorer's vector terms: what query and sentence share direction by
direction (`scoring.pair_terms`), fitted beside the scalar features and kept in the JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tellmemore.answer import extractive, scoring
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit

DIM = 8


def _turns(n: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Turns of one query and four unit sentences, with scalar features that carry no
    signal; a sentence is positive when it agrees with the query on dimension 0, which
    no cosine says."""
    rng = np.random.default_rng(3)
    xs, ys, ps, vecs = [], [], [], []
    for _ in range(n):
        v = rng.normal(size=(5, DIM))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        xs.append(rng.normal(size=(4, len(scoring.FEATURES))))
        ys.append((v[1:, 0] * v[0, 0] > 0).astype(float))
        ps.append(scoring.pair_terms(v))
        vecs.append(v)
    return np.vstack(xs), np.concatenate(ys), np.vstack(ps), vecs


def _accuracy(scorer: scoring.Scorer, x: np.ndarray, y: np.ndarray, vecs: list) -> float:
    p = np.concatenate([scorer.probabilities(x[4 * i : 4 * i + 4], v) for i, v in enumerate(vecs)])
    return float(((p >= 0.5) == (y == 1)).mean())


def test_the_vector_terms_learn_what_the_scalar_features_cannot() -> None:
    x, y, pairs, vecs = _turns()
    scalar = scoring.fit(x, y)
    vectors = scoring.fit(x, y, pairs=pairs, l2_pairs=1.0)
    assert vectors.reads_vectors and not scalar.reads_vectors
    assert len(vectors.pair_weights) == 2 * DIM
    assert _accuracy(scalar, x, y, vecs) < 0.6
    assert _accuracy(vectors, x, y, vecs) > 0.85


def test_a_scorer_with_vector_terms_survives_its_json() -> None:
    x, y, pairs, vecs = _turns()
    fitted = scoring.fit(x, y, pairs=pairs, l2_pairs=1.0)
    again = scoring.Scorer.from_json(fitted.to_json(note="test"))
    assert again.reads_vectors
    np.testing.assert_allclose(
        again.probabilities(x[:4], vecs[0]), fitted.probabilities(x[:4], vecs[0]), atol=1e-4
    )


def test_without_vectors_the_terms_sit_at_their_mean() -> None:
    x, y, pairs, _ = _turns()
    fitted = scoring.fit(x, y, pairs=pairs, l2_pairs=1.0)
    scalar_part = scoring.Scorer(
        weights=fitted.weights,
        bias=fitted.bias,
        threshold=fitted.threshold,
        mean=fitted.mean,
        scale=fitted.scale,
    )
    np.testing.assert_allclose(fitted.probabilities(x[:4]), scalar_part.probabilities(x[:4]))


def test_vector_weights_of_mismatched_lengths_are_refused() -> None:
    x, y, pairs, _ = _turns(50)
    data = json.loads(scoring.fit(x, y, pairs=pairs, l2_pairs=1.0).to_json())
    data["pair_mean"] = data["pair_mean"][:-1]
    with pytest.raises(ValueError, match="vector weights"):
        scoring.Scorer.from_json(json.dumps(data))


def test_small_scales_survive_the_json() -> None:
    x, y, pairs, vecs = _turns()
    fitted = scoring.fit(x, y, pairs=pairs * 1e-4, l2_pairs=1.0)
    again = scoring.Scorer.from_json(fitted.to_json())
    assert min(again.pair_scale) > 0
    small = [v * 1e-2 for v in vecs[:1]]
    np.testing.assert_allclose(
        again.probabilities(x[:4], small[0]), fitted.probabilities(x[:4], small[0]), rtol=1e-3
    )


def test_the_opt_in_weights_read_the_minilm_vectors() -> None:
    vectors = scoring.shipped(vectors=True)
    assert vectors.reads_vectors and len(vectors.pair_weights) == 2 * 384
    assert not scoring.shipped().reads_vectors  # the default scorer reads the scalars only


def test_the_opt_in_scorer_quotes_the_sentence_that_answers(minilm) -> None:  # type: ignore[no-untyped-def]
    text = (
        "Employees accrue paid time off from their first day. "
        "Requests go to your manager through the HR portal. "
        "Parental leave is 16 weeks at full pay for every new parent. "
        "The office is closed on public holidays."
    )
    hit = Hit(chunk=make_chunk("leave", text, title="Leave policy"), score=1.0, rank=1)
    quoted = extractive.best_sentences(
        "How much parental leave do we get?",
        [hit],
        embed=minilm.embed_documents,
        scorer=scoring.shipped(vectors=True),
    )
    assert any("16 weeks" in e.sentence for e in quoted)
    assert len(quoted) <= extractive.MAX_SENTENCES
