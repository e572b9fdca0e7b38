"""What the scorer's `rank` feature reads (`Scorer.rank_by`): the fused order, the read
passages' own dense cosine order, or nothing; a scorer fitted on one keeps it in its JSON
and the answer computes the feature the same way."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from tellmemore.answer import extractive, scoring
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit

RANK = scoring.FEATURES.index("rank")


def test_passage_ranks_by_fused_order_dense_cosine_or_nothing() -> None:
    dense = [0.71, 0.83, None, 0.73]
    assert scoring.passage_ranks(dense, "fused") == [0, 1, 2, 3]
    assert scoring.passage_ranks(dense, "dense") == [2, 0, 3, 1]  # BM25-only last
    assert scoring.passage_ranks(dense, "none") == [0, 0, 0, 0]
    assert scoring.passage_ranks([0.5, 0.5], "dense") == [0, 1]  # a tie keeps fused order
    with pytest.raises(ValueError, match="rank_by"):
        scoring.passage_ranks(dense, "bm25")


def test_the_rank_feature_reads_the_given_passage_ranks() -> None:
    candidates = [scoring.Candidate("Alpha beta.", 0, 0), scoring.Candidate("Gamma beta.", 1, 0)]
    fused = scoring.features("beta", candidates, ["", ""], None, None)
    swapped = scoring.features("beta", candidates, ["", ""], None, None, [1, 0])
    assert list(fused[:, RANK]) == [1.0, 0.5]
    assert list(swapped[:, RANK]) == [0.5, 1.0]
    others = [i for i in range(len(scoring.FEATURES)) if i != RANK]
    np.testing.assert_array_equal(fused[:, others], swapped[:, others])


def test_rank_by_survives_the_json_and_a_wrong_one_is_refused() -> None:
    shipped = scoring.shipped()
    again = scoring.Scorer.from_json(replace(shipped, rank_by="none").to_json())
    assert again.rank_by == "none"
    assert scoring.Scorer.from_json(shipped.to_json()).rank_by == "fused"
    data = json.loads(shipped.to_json())
    data["rank_by"] = "bm25"
    with pytest.raises(ValueError, match="rank_by"):
        scoring.Scorer.from_json(json.dumps(data))


def _hit(text: str, dense: float, score: float) -> Hit:
    chunk = make_chunk(f"d{score}", text, title="Leave")
    return Hit(chunk=chunk, score=score, rank=1, dense=dense)


def _toy_embed(texts):  # type: ignore[no-untyped-def]
    """Unit vectors from the letters' counts: enough for the scorer's cosine features."""
    out = np.zeros((len(texts), 26))
    for i, t in enumerate(texts):
        for ch in t.lower():
            if "a" <= ch <= "z":
                out[i, ord(ch) - 97] += 1
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def _scores(hits: list[Hit], scorer: scoring.Scorer) -> dict[str, float]:
    """Each candidate sentence's probability, by its text."""
    chunk_units = [extractive.units(h.chunk.text, h.chunk.header) for h in hits]
    scored, _ = extractive._fitted_scores(
        "how long is parental leave?", hits, chunk_units, _toy_embed, scorer
    )
    return {text: round(p, 9) for p, _, _, text in scored}


def test_a_scorer_not_fitted_on_the_fused_order_scores_alike_in_either_order() -> None:
    a = _hit("Parental leave is sixteen weeks of paid leave for every parent.", 0.8, 0.03)
    b = _hit("Sick leave has no fixed bank of days and is taken as needed.", 0.7, 0.02)
    fused = scoring.shipped()
    assert _scores([a, b], fused) != _scores([b, a], fused)
    for rank_by in ("none", "dense"):
        scorer = replace(fused, rank_by=rank_by)
        assert _scores([a, b], scorer) == _scores([b, a], scorer)
