"""Conversation memory: window of exchanges and the rolling summary."""

from __future__ import annotations

from tellmemore.conversation.history import (
    RollingSummary,
    extractive_summary,
    recent,
    split_window,
)

from .histories import CLOUD_CONNECT_LONG, A, U, corpus_stats


def test_window_keeps_the_last_exchanges() -> None:
    older, window = split_window(CLOUD_CONNECT_LONG, 3)
    assert len(window) == 6 and window[0] == CLOUD_CONNECT_LONG[2]
    assert older == CLOUD_CONNECT_LONG[:2]
    assert recent(CLOUD_CONNECT_LONG, 1) == CLOUD_CONNECT_LONG[-2:]
    assert recent(CLOUD_CONNECT_LONG[:2], 3) == CLOUD_CONNECT_LONG[:2]


def test_window_counts_exchanges_not_turns() -> None:
    history = [U("a question"), A("part one"), A("part two"), U("next"), A("answer")]
    assert recent(history, 1) == history[3:]
    assert recent(history, 2) == history


def test_extractive_summary_names_the_users_subjects() -> None:
    text = extractive_summary(CLOUD_CONNECT_LONG[:4], term_stats=corpus_stats())
    assert "cloud connect" in text.lower()
    assert "escalation" in text.lower()
    assert "named responder" not in text  # the assistant's wording is not the user's subject


def test_rolling_summary_refreshes_every_few_turns() -> None:
    memory = RollingSummary(window=1, summary_every=4, term_stats=corpus_stats())
    assert not memory.due(CLOUD_CONNECT_LONG[:4], 0)  # 2 turns left the window
    assert memory.due(CLOUD_CONNECT_LONG, 0)  # 6 turns left the window
    summary, upto = memory.update(CLOUD_CONNECT_LONG, "", 0)
    assert upto == 6
    assert "cloud connect" in summary.lower()
    assert not memory.due(CLOUD_CONNECT_LONG, upto)
    again = memory.update(CLOUD_CONNECT_LONG, summary, upto)
    assert again == (summary, upto)
