"""Fusion of ranked lists: reciprocal rank fusion and convex combination."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tellmemore.index.fusion import convex, minmax, rrf


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = dict(rrf([[("a", 9.0), ("b", 5.0)], [("b", 0.9), ("c", 0.1)]], k=60))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)


def test_rrf_orders_best_first_and_ignores_scores() -> None:
    fused = rrf([[("a", 0.0), ("b", 100.0)], [("b", 1.0), ("a", 2.0)], [("a", 1.0)]])
    assert [key for key, _ in fused] == ["a", "b"]


def test_rrf_weights_favour_a_list() -> None:
    lists = [[("raw", 1.0)], [("resolved", 1.0)]]
    assert rrf(lists, weights=[1.0, 2.0])[0][0] == "resolved"
    with pytest.raises(ValueError, match="2 lists but 1 weights"):
        rrf(lists, weights=[1.0])


def test_convex_counts_a_missing_signal_as_zero() -> None:
    bm25 = [("a", 12.0), ("b", 2.0)]
    dense = [("b", 0.8), ("c", 0.4)]
    fused = dict(convex(bm25, dense, weight=0.3))
    assert fused["a"] == pytest.approx(0.3 * 1.0 + 0.7 * 0.0)
    assert fused["b"] == pytest.approx(0.3 * 0.0 + 0.7 * 1.0)
    assert fused["c"] == pytest.approx(0.0)


def test_convex_weight_extremes_follow_one_signal() -> None:
    bm25 = [("a", 3.0), ("b", 1.0)]
    dense = [("b", 0.9), ("a", 0.1)]
    assert convex(bm25, dense, 1.0)[0][0] == "a"
    assert convex(bm25, dense, 0.0)[0][0] == "b"
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        convex(bm25, dense, 1.5)


def test_convex_with_empty_lists() -> None:
    assert convex([], [], 0.5) == []
    assert [k for k, _ in convex([], [("x", 0.2), ("y", 0.1)], 0.4)] == ["x", "y"]


def test_minmax_of_equal_scores_is_one() -> None:
    assert minmax([("a", 2.0), ("b", 2.0)]) == {"a": 1.0, "b": 1.0}
    assert minmax([]) == {}


ranked = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.floats(-100, 100)),
    max_size=8,
    unique_by=lambda t: t[0],
)


@given(ranked, ranked, st.floats(0.0, 1.0))
def test_convex_scores_stay_in_unit_range_and_sorted(a, b, w) -> None:  # type: ignore[no-untyped-def]
    fused = convex(a, b, w)
    assert {key for key, _ in fused} == {key for key, _ in a} | {key for key, _ in b}
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
    assert all(-1e-9 <= s <= 1.0 + 1e-9 for s in scores)


@given(st.lists(ranked, max_size=4))
def test_rrf_keeps_every_id_once(lists) -> None:  # type: ignore[no-untyped-def]
    fused = rrf(lists)
    keys = [key for key, _ in fused]
    assert len(keys) == len(set(keys))
    assert set(keys) == {key for hits in lists for key, _ in hits}
