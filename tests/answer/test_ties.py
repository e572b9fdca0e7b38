"""Near-tied passages read in dense-cosine order (`answer.ties`), so a change of the
fusion's weights that only swaps near ties does not change the answer."""

from __future__ import annotations

from tellmemore.answer import extractive, ties
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit


def _hit(name: str, score: float, dense: float | None, text: str = "") -> Hit:
    chunk = make_chunk(name, text or f"About {name}.", title=name)
    return Hit(chunk=chunk, score=score, rank=1, dense=dense)


def test_near_ties_are_ordered_by_their_cosine_and_the_rest_stay() -> None:
    hits = [
        _hit("a", 0.0300, 0.70),
        _hit("b", 0.0289, 0.60),
        _hit("c", 0.0286, 0.75),  # within 2% of b, not of a
        _hit("d", 0.0200, 0.90),
        _hit("e", 0.0199, None),
        _hit("f", 0.0198, 0.99),  # below the depth: never moved
    ]
    assert ties.tied_order(hits, 0.02) == [0, 2, 1, 3, 4, 5]
    assert ties.tied_order(hits, 0.0) == [0, 1, 2, 3, 4, 5]
    assert ties.tied_order(hits, 0.05) == [2, 0, 1, 3, 4, 5]  # d+e tie; e has no cosine


def test_a_group_is_measured_from_its_best_so_ties_do_not_chain() -> None:
    hits = [_hit(n, s, d) for n, s, d in (("a", 1.0, 0.1), ("b", 0.985, 0.2), ("c", 0.97, 0.3))]
    # c is within 2% of b but not of a: {a, b} then {c}
    assert ties.tied_order(hits, 0.02) == [1, 0, 2]


def test_the_answer_is_the_same_whichever_near_tie_fusion_put_first() -> None:
    texts = {
        "leave": "Parental leave is sixteen weeks, paid in full.",
        "sick": "There is no bank of sick days; take what you need.",
        "bikes": "Bikes can be parked in the basement.",
        "desk": "Desks are booked in the app.",
    }

    def hits(first: str, second: str) -> list[Hit]:
        dense = {"leave": 0.8, "sick": 0.7, "bikes": 0.3, "desk": 0.2}
        score = {first: 0.0300, second: 0.0299, "bikes": 0.0200, "desk": 0.0100}
        return [_hit(n, score[n], dense[n], texts[n]) for n in (first, second, "bikes", "desk")]

    def answer(hs: list[Hit]) -> list[tuple[str, str]]:
        got = extractive.best_sentences("how long is parental leave?", hs, tie_gap=0.02)
        return sorted((hs[e.hit_index].chunk.doc_id, e.sentence) for e in got)

    one, other = hits("leave", "sick"), hits("sick", "leave")
    assert answer(one) == answer(other)
    assert any("sixteen weeks" in s for _, s in answer(other))
    plain = extractive.best_sentences("how long is parental leave?", other, tie_gap=0.0)
    assert all(0 <= e.hit_index < len(other) for e in plain)
