"""The conversational preamble ("By the way, ...", "wow, that sounds great. ...") is not
searched, and a switch marker carries no topic."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tellmemore.conversation.phrasings import search_phrasings
from tellmemore.conversation.preamble import split_preamble, without_preamble
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.types import Resolution

from .histories import A, U, corpus_stats


@pytest.mark.parametrize(
    ("message", "rest", "switches"),
    [
        (
            "By the way, how are cyclones on Earth formed?",
            "how are cyclones on Earth formed?",
            True,
        ),
        (
            "wow, that sounds great. maybe tell me more about the Attorney General's office",
            "maybe tell me more about the Attorney General's office",
            False,
        ),
        # one more question may be on the same topic: no switch by itself
        ("Great! One last thing, where can I find the SDK?", "where can I find the SDK?", False),
        (
            "Changing a little bit of subject, what are the services of VNF?",
            "what are the services of VNF?",
            True,
        ),
        ("I see. What a terrible war it was!", "What a terrible war it was!", False),
        ("Great...what does the monthly pass cost?", "what does the monthly pass cost?", False),
        (
            "ok, switching topics: what does the Pro plan include?",
            "what does the Pro plan include?",
            True,
        ),
        (
            "never mind, how do I reset my console password?",
            "how do I reset my console password?",
            True,
        ),
        ("On a different note, is there a student discount?", "is there a student discount?", True),
        ("Unrelated question: do you sell helmets?", "do you sell helmets?", True),
    ],
)
def test_the_preamble_is_split_from_the_question(message: str, rest: str, switches: bool) -> None:
    preamble = split_preamble(message)
    assert preamble is not None
    assert (preamble.rest, preamble.switches) == (rest, switches)
    assert preamble.text + preamble.rest == message


@pytest.mark.parametrize(
    "message",
    [
        "Ok, I have the Pro plan. Does it cover weekends?",  # the first sentence names a thing
        "Yes. The monthly one.",  # answers a question the assistant asked back
        "Great! Why?",  # nothing of its own after the reaction
        "How are cyclones formed? By the way, on Jupiter.",  # no preamble at the start
    ],
)
def test_a_sentence_that_says_something_is_kept(message: str) -> None:
    assert split_preamble(message) is None
    assert without_preamble(message) == message


RENTAL = [
    U("What does the monthly pass for the Kestrel bike rental cost?"),
    A("The monthly pass costs 30 dollars and includes helmets."),
]


def resolve(message: str) -> Resolution:
    return EmbeddedResolver().resolve(message, RENTAL, ResolveContext(term_stats=corpus_stats()))


def test_a_switch_marker_carries_no_topic() -> None:
    assert resolve("how do I pay?").bindings  # the topic is carried without the marker
    res = resolve("By the way, how do I pay?")
    assert res.query == "how do I pay?"
    assert not res.bindings


def test_never_mind_carries_no_topic() -> None:
    res = resolve("never mind, how do I reset my password?")
    assert res.query == "how do I reset my password?"
    assert not res.bindings


def test_a_switch_marker_is_no_antecedent_later() -> None:
    """ "how much is that one?" after "ok, switching topics: what does the Pro plan
    include?" points at the plan, never at "switching topics"."""
    history = [
        *RENTAL,
        U("ok, switching topics: what does the Pro plan include?"),
        A("Pro includes ten sites and five cloud links."),
    ]
    res = EmbeddedResolver().resolve(
        "how much is that one?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert "topic" not in res.query.lower()
    assert "switching" not in " ".join(res.bindings.values()).lower()


def test_a_pronoun_after_a_switch_marker_still_points_back() -> None:
    res = resolve("By the way, does it include a lock?")
    assert "it" in res.bindings
    assert not res.query.lower().startswith("by the way")


def test_the_typed_phrasing_and_the_history_leave_the_preamble_out() -> None:
    message = "By the way, how are cyclones on Earth formed?"
    p = search_phrasings(message, Resolution(query=without_preamble(message)), RENTAL)
    assert p.queries == ("how are cyclones on Earth formed?",)
    reaction = "wow, that sounds great. maybe tell me more about the Kestrel repair shop"
    p = search_phrasings(reaction, Resolution(query=without_preamble(reaction)), RENTAL)
    assert p.queries[0] == "maybe tell me more about the Kestrel repair shop"
    assert not any(q.startswith("wow") for q in p.queries)
    assert len(p.queries) == 2  # not a switch: the history phrasing stays


@given(
    st.lists(
        st.sampled_from(["Great!", "ok,", "By the way,", "I see.", "the", "pass", " ", ".", "?"])
        | st.text(max_size=12),
        max_size=12,
    ).map(" ".join)
)
def test_the_preamble_and_the_question_are_the_message(message: str) -> None:
    preamble = split_preamble(message)
    if preamble is not None:
        assert message.startswith(preamble.text)
        assert message[len(preamble.text) :].strip() == preamble.rest
        assert preamble.rest
    assert without_preamble(message) in message
