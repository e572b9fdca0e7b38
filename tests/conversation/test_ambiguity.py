"""Asking back when what a follow-up points at is a coin flip between things of one kind
(conversation/ambiguity.py), and binding as before when one thing is meant."""

from __future__ import annotations

from tellmemore.conversation import ambiguity
from tellmemore.conversation.binding import Phrase
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.text import content_words, stem
from tellmemore.types import Resolution, Turn

from .histories import PLANS_LIST, A, U, corpus_stats

CHARTS = [
    U("Which is better: the query runtime distribution chart or the query throughput chart?"),
    A(
        "Neither is better: the query runtime distribution chart shows how long queries take, "
        "and the query throughput chart shows how many queries run per second."
    ),
]
ONE_CHART = [
    U("What does the query throughput chart show?"),
    A("The query throughput chart shows how many queries run per second over time."),
]
CORPUS = [
    "The query runtime distribution chart shows how long queries take.",
    "The query throughput chart shows how many queries run per second.",
    "Queries that run long slow the system down.",
    "The dashboard shows the system's performance over time.",
    "A day pass costs 12 dollars; a monthly pass costs 25 dollars.",
    "The annual membership is the cheapest per ride.",
]


def resolve(message: str, history: list[Turn]) -> Resolution:
    ctx = ResolveContext(term_stats=corpus_stats(CORPUS))
    return EmbeddedResolver().resolve(message, history, ctx)


def _phrase(text: str) -> Phrase:
    return Phrase(text, tuple(stem(w) for w in content_words(text)))


def test_it_after_two_charts_set_side_by_side_asks_which() -> None:
    res = resolve("How does it help us understand the system's performance?", CHARTS)
    assert res.ambiguous
    assert {c.lower() for c in res.candidates} >= {
        "query runtime distribution chart",
        "query throughput chart",
    }
    assert res.clarification is not None and res.clarification.startswith("Do you mean")


def test_it_after_one_chart_binds_it() -> None:
    res = resolve("How does it help us understand the system's performance?", ONE_CHART)
    assert not res.ambiguous
    assert "query throughput chart" in res.query.lower()


def test_the_reply_answers_the_original_question() -> None:
    asked = resolve("How does it help us understand the system's performance?", CHARTS)
    history = [
        *CHARTS,
        U("How does it help us understand the system's performance?"),
        A(asked.clarification or ""),
    ]
    res = resolve("the throughput one", history)
    assert not res.ambiguous
    assert "throughput chart" in res.query.lower()
    assert "performance" in res.query.lower()


def test_the_kind_the_answer_listed_asks_which_of_them() -> None:
    res = resolve("how much does the plan cost?", PLANS_LIST)
    assert res.ambiguous
    assert list(res.candidates) == ["Day pass", "Monthly pass", "Annual membership"]


def test_the_kind_once_the_user_named_one_binds_nothing_new() -> None:
    history = [*PLANS_LIST, U("tell me about the monthly pass"), A("Unlimited 30-minute rides.")]
    res = resolve("how much does the plan cost?", history)
    assert not res.ambiguous


def test_a_definite_of_another_kind_is_not_asked_about() -> None:
    res = resolve("how much does the helmet cost?", PLANS_LIST)
    assert not res.ambiguous


def test_same_kind_needs_a_shared_head_and_different_words_before_it() -> None:
    assert ambiguity.same_kind(_phrase("query runtime chart"), _phrase("query throughput chart"))
    assert not ambiguity.same_kind(_phrase("disk UUIDs"), _phrase("different disk UUIDs"))
    assert not ambiguity.same_kind(_phrase("vMotion"), _phrase("bulk migration"))


def test_the_pass_offers_the_passes_of_a_mixed_list() -> None:
    items = [_phrase("Single ride"), _phrase("Day pass"), _phrase("Monthly pass")]
    found = ambiguity.kind_asked(
        "how much does the pass cost?", "What passes are there?", items, []
    )
    assert found is not None
    assert [p.text for p in found.items] == ["Day pass", "Monthly pass"]


def test_steps_that_mention_the_kind_are_no_choice() -> None:
    steps = [_phrase("Click the Dialog tab"), _phrase("Test the dialog as you build it")]
    assert ambiguity.kind_asked("how does context pass in the dialog?", "dialog", steps, []) is None
