"""Retrieval and binding measures on hand-made cases with hand-computed values."""

from __future__ import annotations

import math

import pytest

from tellmemore.eval.measures import (
    binding,
    measure_names,
    pooled_binding,
    probe_over_binding,
    score_turns,
)
from tellmemore.eval.terms import content_terms, stem

HISTORY = [
    "How much is the monthly pass?",
    "The monthly pass costs 30 euros; the annual pass costs 200 euros.",
]


def test_measure_names_follow_the_cut_offs() -> None:
    assert measure_names([10, 5]) == ("R@5", "R@10", "nDCG@5", "nDCG@10", "RR@10")
    with pytest.raises(ValueError, match="positive"):
        measure_names([0])


def test_a_turn_never_retrieved_scores_zero_and_stays_in_the_mean() -> None:
    gold = {"q1": ["a", "b"], "q2": ["c"], "q3": ["d"]}
    ranked = {"q1": ["x", "a", "y"], "q2": ["z"]}  # q3 has no ranking at all
    values = score_turns(gold, ranked, measure_names([5, 10]))
    assert set(values) == {"q1", "q2", "q3"}
    assert values["q1"]["R@5"] == 0.5
    assert values["q1"]["RR@10"] == 0.5
    # nDCG@5 of q1: gain 1/log2(3) over the ideal 1 + 1/log2(3)
    ideal = 1 + 1 / math.log2(3)
    assert values["q1"]["nDCG@5"] == pytest.approx((1 / math.log2(3)) / ideal)
    assert values["q2"] == dict.fromkeys(measure_names([5, 10]), 0.0)
    assert values["q3"] == dict.fromkeys(measure_names([5, 10]), 0.0)


def test_rank_order_is_kept_exactly_even_with_equal_scores() -> None:
    values = score_turns({"q": ["b"]}, {"q": ["a", "b"]}, ["RR@10"])
    assert values["q"]["RR@10"] == 0.5


def test_stems_and_stopwords() -> None:
    assert stem("rooms") == "room"
    assert stem("relational") == "relat"
    assert stem("generalizations") == "gener"
    assert content_terms("Is the 2 rooms' escalation covered?") == {
        "2": "2",
        "room": "rooms",
        "escal": "escalation",
        "cover": "covered",
    }


def test_binding_of_the_human_rewrite_is_complete_and_exact() -> None:
    b = binding(
        "Can I get a refund for it?",
        HISTORY,
        "Can I get a refund for the monthly pass?",
        "Can I get a refund for the monthly pass?",
    )
    assert sorted(b.expected) == ["monthly", "pass"]
    assert b.recall == 1.0
    assert b.over_binding == 0.0


def test_binding_recall_and_over_binding_are_separate_numbers() -> None:
    # expected {monthli, pass}; the query carries {pass, annual, 200}: one bound, two the
    # human did not add.
    b = binding(
        "Can I get a refund for it?",
        HISTORY,
        "Can I get a refund for the monthly pass?",
        "refund for the annual pass 200",
    )
    assert b.recall == pytest.approx(1 / 2)
    assert b.over_binding == pytest.approx(2 / 3)
    assert sorted(b.carried) == ["200", "annual", "pass"]


def test_words_new_to_the_conversation_are_not_carried() -> None:
    # "price" is in neither the message nor the history: a paraphrase, not a binding.
    b = binding(
        "Can I get a refund for it?",
        HISTORY,
        "Can I get a refund for the monthly pass?",
        "refund price monthly",
    )
    assert b.carried == ("monthly",)
    assert b.recall == pytest.approx(1 / 2)
    assert b.over_binding == 0.0


def test_pooled_binding_sums_terms_over_turns() -> None:
    rewrite = "Can I get a refund for the monthly pass?"
    msg = "Can I get a refund for it?"
    full = binding(msg, HISTORY, rewrite, rewrite)  # 2 expected, 2 carried, 2 bound, 0 over
    wrong = binding(msg, HISTORY, rewrite, "refund annual 200")  # 2 expected, 2 carried, 0, 2
    raw = binding(msg, HISTORY, rewrite, msg)  # 2 expected, nothing carried
    pooled = pooled_binding([full, wrong, raw])
    assert pooled["recall"] == pytest.approx(2 / 6)
    assert pooled["over_binding"] == pytest.approx(2 / 4)
    assert pooled_binding([raw]) == {"recall": 0.0, "over_binding": 0.0}
    assert pooled_binding([]) == {"recall": None, "over_binding": 0.0}


def test_topic_switch_probe_counts_any_carried_term() -> None:
    switch = "When do shops close on public holidays?"
    kept = binding(switch, HISTORY, switch, switch)
    dragged = binding(switch, HISTORY, switch, "monthly pass shops close public holidays")
    assert kept.topic_switch and dragged.topic_switch
    assert dragged.over_binding == 1.0
    first = binding("How much is it?", [], "How much is it?", "How much is it?", followup=False)
    assert not first.topic_switch
    share, n = probe_over_binding([kept, dragged, first])
    assert (share, n) == (0.5, 2)
    assert probe_over_binding([first]) == (None, 0)


def test_strict_probes_leave_out_rewrites_that_kept_a_referent() -> None:
    """An annotator who left "does it include e-bikes?" as typed carried nothing, but did
    not judge the turn a topic switch: the strict probe figure leaves it out."""
    left_as_typed = "does it include e-bikes?"
    bound = binding(left_as_typed, HISTORY, left_as_typed, "does the monthly pass include e-bikes?")
    switch = "When do shops close on public holidays?"
    kept = binding(switch, HISTORY, switch, switch)
    assert bound.topic_switch and not bound.strict_topic_switch
    assert kept.strict_topic_switch
    assert probe_over_binding([bound, kept]) == (0.5, 2)
    assert probe_over_binding([bound, kept], strict=True) == (0.0, 1)


def test_a_carried_term_spelt_right_still_counts_as_carried() -> None:
    """The resolver fixes typos in the history it reads: "bevarage" typed, "beverage"
    carried is a carry (a probe that carried it is over-bound), and a typo the message
    itself fixed ("Sollutions" -> "solutions") is the message's own word."""
    b = binding("how do I script it?", ["can I make a bevarage sprite?"], "how do I script it?",
                "how do I script the beverage?")  # fmt: skip
    assert b.carried == ("beverage",)
    assert b.topic_switch and b.over == 1
    own = binding("Sollutions", ["what is water pollution?"], "solutions for water pollution",
                  "solutions (water pollution)")  # fmt: skip
    assert set(own.carried) == {"water", "pollution"}
    assert own.recall == 1.0


@pytest.mark.parametrize(
    ("a", "b", "one"),
    [("climage", "climate", True), ("bevarage", "beverage", True), ("state", "stat", True),
     ("abcde", "abdce", True), ("planet", "plane", True), ("cloud", "crowd", False),
     ("water", "water", False)],
)  # fmt: skip
def test_one_edit_apart(a, b, one) -> None:
    from tellmemore.eval.measures import _one_edit

    assert _one_edit(a, b) is one
