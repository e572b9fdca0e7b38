"""The offline answer: which sentences, rows and items of the retrieved chunks it quotes."""

from __future__ import annotations

from tellmemore.answer.extractive import best_sentences, units
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit

PLANS = (
    "Cloud Connect is sold in three plans. Prices exclude taxes.\n\n"
    "| Plan | Price |\n| --- | --- |\n| Starter | $49 |\n| Pro | $299 |\n\n"
    "Annual billing takes 15% off."
)


def hit(text: str) -> Hit:
    return Hit(chunk=make_chunk("plans", text, title="Plans"), score=1.0, rank=1)


def test_table_rows_and_list_items_are_units_of_their_own() -> None:
    assert [u.item for u in units(PLANS)] == [False, False, True, True, False]
    steps = units("Do this:\n\n- Open the app. Then wait.\n- Tap Report.")
    assert [(u.text, u.item) for u in steps] == [
        ("Do this:", False),
        ("Open the app. Then wait.", True),
        ("Tap Report.", True),
    ]


def test_a_sentence_announcing_a_list_is_quoted_with_its_items() -> None:
    quoted = [e.sentence for e in best_sentences("what plans are there?", [hit(PLANS)])]
    assert quoted[:3] == [
        "Cloud Connect is sold in three plans.",
        "Plan: Starter; Price: $49.",
        "Plan: Pro; Price: $299.",
    ]


def test_the_items_come_only_with_a_sentence_announcing_them_for_the_question() -> None:
    quoted = [e.sentence for e in best_sentences("is annual billing cheaper?", [hit(PLANS)])]
    assert "Plan: Starter; Price: $49." not in quoted
