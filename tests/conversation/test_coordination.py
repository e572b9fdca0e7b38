"""Asking which one when a follow-up speaks of one of the things the last question set side
by side (conversation/coordination.py), and binding or carrying as before otherwise."""

from __future__ import annotations

import pytest

from tellmemore.conversation import coordination
from tellmemore.conversation.coordination import coordinations
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.types import Resolution, Turn

from .histories import A, U, corpus_stats

EQUIPMENT = [
    U("When will my laptop and phone arrive?"),
    A(
        "Your laptop should be ready before your first day, but your phone may not be. "
        "It will be shipped via UPS and require signature upon delivery."
    ),
]
LEAVE = [
    U("What's the difference between FMLA and paid parental leave?"),
    A(
        "You have to be eligible for FMLA to receive Paid Parental Leave (PPL). If you use "
        "FMLA prior to PPL, it reduces the number of PPL hours you can receive."
    ),
]
CORPUS = [
    "Your laptop is shipped before your first day.",
    "Your work phone is shipped via UPS and needs a passcode.",
    "Keep Find My iPhone turned on and never share the passcode of your phone.",
    "FMLA entitles you to twelve weeks of unpaid leave.",
    "Paid parental leave gives twelve weeks of paid leave after a birth or adoption.",
    "To apply for paid parental leave, send the request form to HR.",
    "The office is open from nine to five.",
]


def resolve(message: str, history: list[Turn], on: bool = True) -> Resolution:
    ctx = ResolveContext(term_stats=corpus_stats(CORPUS), ask_coordinated=on)
    return EmbeddedResolver().resolve(message, history, ctx)


@pytest.mark.parametrize(
    ("question", "options", "contrast"),
    [
        ("When will my laptop and phone arrive?", [["laptop", "phone"]], False),
        (
            "What's the difference between FMLA and paid parental leave?",
            [["FMLA", "paid parental leave"]],
            True,
        ),
        ("Is Shylock a villain or a victim?", [["villain", "victim"]], True),
        ("Do you think that facilitated diffusion plays a role in passive transport?", [], False),
        ("How long is the sabbatical and then what?", [], False),
        (
            "When do the Starter plan and the Enterprise plan renew?",
            [["Starter plan", "Enterprise plan"]],
            False,
        ),
        (
            "Is the day pass or the monthly pass better for tourists?",
            [["day pass", "monthly pass"]],
            True,
        ),
        ("What are the billing plans available and differences between each of them?", [], True),
    ],
)
def test_the_conjuncts_of_a_question(
    question: str, options: list[list[str]], contrast: bool
) -> None:
    found = coordinations(question)
    assert [[p.text for p in c.options] for c in found] == options
    assert all(c.contrast is contrast for c in found)  # (no group: nothing to check)


def test_it_after_two_things_asked_about_together_asks_which() -> None:
    res = resolve("what rules do I have to follow with it?", EQUIPMENT)
    assert res.ambiguous
    assert [c.lower() for c in res.candidates] == ["laptop", "phone"]
    assert res.clarification is not None and res.clarification.startswith("Do you mean")


def test_a_message_that_names_one_of_them_asks_nothing() -> None:
    res = resolve("what rules do I have to follow with the phone?", EQUIPMENT)
    assert not res.ambiguous


def test_a_plural_pronoun_means_both() -> None:
    res = resolve("are they shipped by UPS?", EQUIPMENT)
    assert not res.ambiguous


def test_no_subject_after_two_things_set_against_each_other_asks_which() -> None:
    res = resolve("how do I apply?", LEAVE)
    assert res.ambiguous
    assert [c.lower() for c in res.candidates] == ["fmla", "paid parental leave"]


def test_the_reply_answers_the_original_question() -> None:
    asked = resolve("how do I apply?", LEAVE)
    history = [*LEAVE, U("how do I apply?"), A(asked.clarification or "")]
    res = resolve("paid parental leave", history)
    assert not res.ambiguous
    assert "apply" in res.query.lower() and "paid parental leave" in res.query.lower()


def test_a_rival_below_the_ratio_is_no_coin_flip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ratio is read: raised above any score, the same turn binds as before."""
    monkeypatch.setattr(coordination, "COORD_RATIO", 99.0)
    monkeypatch.setattr(coordination.asks, "__defaults__", (99.0,))
    monkeypatch.setattr(coordination.asks_carried, "__defaults__", (99.0,))
    assert not resolve("what rules do I have to follow with it?", EQUIPMENT).ambiguous
    assert not resolve("how do I apply?", LEAVE).ambiguous


def test_one_thing_asked_about_binds_it() -> None:
    history = [U("When will my laptop arrive?"), A("Your laptop is shipped before your first day.")]
    res = resolve("what rules do I have to follow with it?", history)
    assert not res.ambiguous
    assert "laptop" in res.query.lower()


def test_this_after_two_topics_means_both_at_once() -> None:
    """ "any good idea to this?" after "chemo and fertility" (MTRAG, resolved by a person to
    "this topic"): a demonstrative points at what was said, not at one conjunct."""
    history = [
        U("chemo and fertility, before puberty, still?"),
        A("Chemotherapy can affect fertility: it can damage the cells that produce eggs."),
    ]
    assert not resolve("any good idea to this?", history).ambiguous


def test_the_chosen_one_takes_the_pronoun_without_the_declined_one() -> None:
    """ "the phone" after "Do you mean laptop or phone?": the original question about the
    phone, with no "for laptop" added back as the topic's scope."""
    question = "what rules do I have to follow with it?"
    asked = resolve(question, EQUIPMENT)
    history = [*EQUIPMENT, U(question), A(asked.clarification or "")]
    res = resolve("the phone", history)
    assert not res.ambiguous
    assert "phone" in res.query.lower() and "rules" in res.query.lower()
    assert "laptop" not in res.query.lower()


def test_off_by_default_it_binds_as_before() -> None:
    """Opt-in (`conversation.ask_coordinated`): off, the pronoun binds and the bare question
    carries the topic, as before."""
    assert not resolve("what rules do I have to follow with it?", EQUIPMENT, on=False).ambiguous
    assert not resolve("how do I apply?", LEAVE, on=False).ambiguous
