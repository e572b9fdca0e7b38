"""decide: narrow no-retrieval rules (seed 001's expected table), retrieve by default."""

from __future__ import annotations

import pytest

from tellmemore.conversation.decide import decide, names_a_subject, small_talk_kind
from tellmemore.types import Decision, Turn

from .histories import A, U

PRIOR = [U("How do refunds work?"), A("Refunds are paid within 14 days to the original card.")]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("hello", Decision.SMALL_TALK),
        ("hi!", Decision.SMALL_TALK),
        ("Thanks a lot!", Decision.SMALL_TALK),
        ("ok thanks", Decision.SMALL_TALK),
        ("thank you so much", Decision.SMALL_TALK),
        ("bye", Decision.SMALL_TALK),
        ("hi there", Decision.SMALL_TALK),
        ("ok", Decision.SMALL_TALK),
        ("I see", Decision.SMALL_TALK),
        ("got it, thanks", Decision.SMALL_TALK),
        ("Can you make that shorter?", Decision.ABOUT_LAST_ANSWER),
        ("rephrase that", Decision.ABOUT_LAST_ANSWER),
        ("summarise your answer", Decision.ABOUT_LAST_ANSWER),
        ("in bullet points please", Decision.ABOUT_LAST_ANSWER),
        ("hi, how do I reset my password?", Decision.RETRIEVE),
        ("What does the monthly pass cost?", Decision.RETRIEVE),
        ("Can you make the refund rule shorter?", Decision.RETRIEVE),
        ("thanks, what about the other one?", Decision.RETRIEVE),
        ("tell me more", Decision.RETRIEVE),
        ("and on holidays?", Decision.RETRIEVE),
        ("", Decision.RETRIEVE),
        ("???", Decision.RETRIEVE),
    ],
)
def test_decide_table(message: str, expected: Decision) -> None:
    assert decide(message, PRIOR).decision is expected


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("hi there", "hello"),
        ("good morning", "hello"),
        ("thanks a lot!", "thanks"),
        ("ok thanks", "thanks"),
        ("bye, see you later", "bye"),
        ("ok", "ok"),
        ("got it", "ok"),
        ("great", "ok"),
    ],
)
def test_small_talk_is_answered_in_kind(message: str, kind: str) -> None:
    """ "ok" is an acknowledgement, not a greeting: no "Hello!" in reply."""
    assert small_talk_kind(message) == kind


def test_edit_request_without_a_previous_answer_retrieves() -> None:
    assert decide("Can you make that shorter?", []).decision is Decision.RETRIEVE
    assert decide("Can you make that shorter?", [U("hi")]).decision is Decision.RETRIEVE


def test_small_talk_needs_no_history() -> None:
    result = decide("hello", [])
    assert result.decision is Decision.SMALL_TALK
    assert result.reason == "small talk"


def test_a_long_edit_request_must_point_at_the_answer() -> None:
    assert decide("could you please make it a bit shorter", PRIOR).decision is (
        Decision.ABOUT_LAST_ANSWER
    )
    assert decide("could you please give me a summary in plain english", PRIOR).decision is (
        Decision.RETRIEVE
    )


@pytest.mark.parametrize(
    "message",
    ["explain that in simpler terms", "shorter please", "a shorter version please", "tl;dr"],
)
def test_more_requests_about_the_last_answer(message: str) -> None:
    assert decide(message, PRIOR).decision is Decision.ABOUT_LAST_ANSWER


def test_only_a_turn_that_asks_the_documents_names_a_subject() -> None:
    """Small talk and answer edits lend later turns no words; a question does."""
    history = [
        Turn("user", "what plans does Cloud Connect have?"),
        Turn("assistant", "Three plans: Starter, Pro and Enterprise."),
        Turn("user", "make that shorter"),
        Turn("assistant", "Starter, Pro, Enterprise."),
        Turn("user", "thanks!"),
        Turn("assistant", "You're welcome!"),
        Turn("user", "and how do I move my sites from the Starter plan to Pro? " * 5),
    ]
    assert [names_a_subject(history, i) for i in (0, 2, 4, 6)] == [True, False, False, True]
    # the same words before any answer are no edit: nothing to make shorter yet
    assert names_a_subject([Turn("user", "make that shorter")], 0)
