"""Fusing the lists of several phrasings: weighted RRF, scaled by how close each list's
best hit is (a phrasing that finds nothing close counts less)."""

from __future__ import annotations

import pytest

from tellmemore import retrieval
from tellmemore.retrieval import fuse_lists
from tellmemore.types import Chunk, Hit


def _hits(prefix: str, dense: list[float | None]) -> list[Hit]:
    return [
        Hit(Chunk(id=f"{prefix}{i}", doc_id="d", text=f"{prefix}{i}"), 1.0 - i / 10, i + 1, 2.0, d)
        for i, d in enumerate(dense)
    ]


def test_the_list_with_the_closer_best_hit_wins_a_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    far = _hits("a", [0.4, 0.3])
    close = _hits("b", [0.8, 0.7])
    fused = [h.chunk.id for h in fuse_lists([far, close], [1.0, 1.0], k=4)]
    assert fused == ["b0", "b1", "a0", "a1"]
    monkeypatch.setattr(retrieval, "MULTI_QUERY_QPP", 0.0)
    plain = fuse_lists([far, close], [1.0, 1.0], k=4)
    assert plain[0].score == pytest.approx(plain[1].score)  # a plain tie without it


def test_scaling_is_relative_so_equally_close_lists_keep_their_weights() -> None:
    fused = fuse_lists([_hits("a", [0.6, 0.5]), _hits("b", [0.6, 0.5])], [1.0, 0.5], k=4)
    score = {h.chunk.id: h.score for h in fused}
    assert score["a0"] == pytest.approx(1.0 / (retrieval.MULTI_QUERY_RRF_K + 1))
    assert score["b0"] == pytest.approx(0.5 / (retrieval.MULTI_QUERY_RRF_K + 1))


def test_without_dense_scores_the_weights_stay_as_given() -> None:
    """BM25 alone has no comparable score: plain weighted RRF, nothing zeroed."""
    fused = fuse_lists([_hits("a", [None, None]), _hits("b", [None])], [1.0, 0.5], k=3)
    assert [h.chunk.id for h in fused] == ["a0", "a1", "b0"]
    assert all(h.score > 0 for h in fused)
