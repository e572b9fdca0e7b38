"""gate: which messages need resolving (issue 3)."""

from __future__ import annotations

import pytest

from tellmemore.conversation.gate import gate
from tellmemore.types import TermStats

from .histories import CLOUD_CONNECT, CLOUD_CONNECT_LONG, MONTHLY_PASS, SHOPS, A, U, corpus_stats


def test_first_turn_needs_nothing() -> None:
    result = gate("does that one cover weekends?", [])
    assert (result.needs_resolution, result.reason) == (False, "first turn")


@pytest.mark.parametrize(
    ("message", "trigger"),
    [
        ("does that one cover weekends?", "referent"),
        ("How much is it?", "referent"),
        ("what are its limits?", "referent"),
        ("do they cover weekends?", "referent"),
        ("tell me about those", "referent"),
        ("what about the second one?", "referent"),
        ("Do I pay for the other one?", "referent"),
        ("is the former cheaper?", "referent"),
        ("and on holidays?", "ellipsis"),
        ("what about the enterprise one", "referent"),
        ("same question for Frankfurt", "ellipsis"),
        ("how about Frankfurt?", "ellipsis"),
        ("and for kids?", "ellipsis"),
        ("tell me more", "ellipsis"),
        ("why?", "ellipsis"),
        ("weekends?", ""),  # too little signal or a keyword fragment, by the statistics
        ("Enterprise", "keyword fragment"),
    ],
)
def test_follow_ups_need_resolution(message: str, trigger: str) -> None:
    result = gate(message, CLOUD_CONNECT, corpus_stats())
    assert result.needs_resolution, result
    assert result.reason.startswith(trigger)


@pytest.mark.parametrize(
    "message",
    [
        "what's the SLA on status page incidents?",
        "What does the monthly pass cost?",
        "how long does it take to open a cloud connect ticket?",
        "is it possible to get helmets for kids at the bike rental?",
        "Do status page subscribers receive incident updates by email?",
    ],
)
def test_self_contained_messages_pass(message: str) -> None:
    for history in (CLOUD_CONNECT_LONG, SHOPS, MONTHLY_PASS):
        result = gate(message, history, corpus_stats())
        assert (result.needs_resolution, result.reason) == (False, "self-contained"), message


def test_few_common_words_are_too_little_signal() -> None:
    def stats(terms):  # type: ignore[no-untyped-def]
        return TermStats(1000, {t: 400 for t in terms})  # every word is everywhere

    result = gate("does this cover weekends?", CLOUD_CONNECT, stats)
    assert result.needs_resolution  # "this" points back anyway
    result = gate("cover weekends too?", CLOUD_CONNECT, stats)
    assert (result.needs_resolution, result.reason) == (True, "too little signal")
    rare = gate(
        "cover weekends too?", CLOUD_CONNECT, lambda ts: TermStats(1000, dict.fromkeys(ts, 1))
    )
    assert not rare.needs_resolution


def test_without_term_stats_the_heuristics_still_gate() -> None:
    assert gate("weekends?", CLOUD_CONNECT).needs_resolution
    assert not gate("what's the SLA on status page incidents?", CLOUD_CONNECT).needs_resolution


def test_a_failing_term_stats_lookup_does_not_raise() -> None:
    def broken(terms):  # type: ignore[no-untyped-def]
        raise RuntimeError("index closed")

    assert gate("weekends?", CLOUD_CONNECT, broken).needs_resolution


def test_a_reply_to_a_clarifying_question_is_resolved() -> None:
    history = [
        *CLOUD_CONNECT,
        U("does that one cover weekends?"),
        A("Do you mean Standard or Enterprise escalation?"),
    ]
    result = gate("the enterprise escalation tier on cloud connect", history, corpus_stats())
    assert (result.needs_resolution, result.reason) == (True, "reply to a clarifying question")


def test_a_name_in_a_short_question_is_its_own_subject() -> None:
    def common(terms):  # type: ignore[no-untyped-def]
        return TermStats(1000, {t: 400 for t in terms})

    assert not gate("Does NASA have an intern program?", CLOUD_CONNECT, common).needs_resolution
    assert gate("does it have an intern program?", CLOUD_CONNECT, common).needs_resolution
