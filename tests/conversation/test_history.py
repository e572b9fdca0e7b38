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


def test_llm_summary_is_used_and_a_failure_falls_back_to_extractive() -> None:
    from tellmemore.config import LLMSettings
    from tellmemore.llm import LLMClient
    from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer

    with ScriptedLLMServer() as server:
        server.enqueue("Cloud Connect escalation tiers, weekend cover and tickets.")
        server.enqueue(Reply.error(500), Reply.error(500), Reply.error(500))
        settings = LLMSettings(base_url=server.base_url, max_retries=1, deadline_s=3.0)
        with LLMClient(settings) as client:
            memory = RollingSummary(window=1, summary_every=2, llm=client)
            summary, upto = memory.update(CLOUD_CONNECT_LONG, "", 0)
            assert summary == "Cloud Connect escalation tiers, weekend cover and tickets."
            assert upto == 6
            assert "what escalation options" in server.requests[0].prompt
            longer = [*CLOUD_CONNECT_LONG, U("and attachments?"), A("Up to 10 files.")]
            summary2, upto2 = memory.update(longer, summary, upto)
        assert upto2 == 8
        assert "cloud connect" in summary2.lower()  # extractive, from the previous summary too
