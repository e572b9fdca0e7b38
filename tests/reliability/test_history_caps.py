"""History caps (issue 24, items 6 and 9): what a turn reads from history is bounded per item
and in total, so a hostile history can neither burn CPU nor recurse the resolver to death,
and a failure is reported as a stable code, never as exception text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tellmemore.assistant import Assistant
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.service.app import create_app
from tellmemore.types import Resolution, Turn


class _Recording:
    """Wraps the assistant's resolver and keeps the history each call received."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.name = inner.name
        self.seen: list[list[Turn]] = []

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        self.seen.append(list(history))
        return self.inner.resolve(message, history, context)


def _recording(assistant: Assistant) -> _Recording:
    runner = assistant.runner
    rec = _Recording(runner.resolver)
    runner.resolver = rec  # type: ignore[assignment]
    return rec


def test_a_huge_history_item_is_capped_before_the_turn_reads_it(
    fake_project: Path, open_assistant: Callable[..., Assistant]
) -> None:
    assistant = open_assistant(fake_project)
    rec = _recording(assistant)
    conv = assistant.settings.conversation
    huge = "the monthly pass " * 120_000  # ~2 MB, as the attacker sent
    history = [
        {"role": "user", "content": "how much is the monthly pass?"},
        {"role": "assistant", "content": huge},
    ] * 200
    answer = assistant.ask("does it include e-bikes?", history=history)
    assert answer.answer
    [seen] = rec.seen
    assert len(seen) <= conv.max_history_turns
    assert all(len(t.content) <= conv.max_history_item_chars for t in seen)
    assert sum(len(t.content) for t in seen) <= conv.max_history_chars
    assert seen[-1].role == "assistant"  # the newest turns are the ones kept


def test_the_caps_are_settings(
    fake_project: Path, open_assistant: Callable[..., Assistant]
) -> None:
    assistant = open_assistant(
        fake_project,
        conversation={"max_history_turns": 4, "max_history_item_chars": 50},
    )
    rec = _recording(assistant)
    history = [{"role": "user", "content": f"question {i} " * 20} for i in range(10)]
    assistant.ask("what about the day pass?", history=history)
    [seen] = rec.seen
    assert len(seen) == 4 and all(len(t.content) <= 50 for t in seen)
    assert seen[-1].content.startswith("question 9")


@pytest.mark.parametrize("turns", [None, 300])
def test_660_what_about_follow_ups_neither_crash_nor_leak_exception_text(
    fake_project: Path, open_assistant: Callable[..., Assistant], turns: int | None
) -> None:
    """Each "what about X?" re-resolves the one before it: 700 of them recursed past
    Python's limit, and the RecursionError text reached the client in `degraded`. Also at
    the largest max_history_turns the settings allow."""
    extra = {"conversation": {"max_history_turns": turns}} if turns else {}
    assistant = open_assistant(fake_project, **extra)
    history: list[dict[str, str]] = [
        {"role": "user", "content": "how much is the monthly pass?"},
        {"role": "assistant", "content": "The monthly pass costs 30 dollars. [1]"},
    ]
    for i in range(349):  # 700 history items
        history.append({"role": "user", "content": f"what about plan{i}?"})
        history.append({"role": "assistant", "content": f"Plan{i} costs {i} dollars. [1]"})
    answer = assistant.ask("what about the day pass?", history=history)
    assert answer.answer
    assert answer.degraded == ()


class _Failing:
    name = "failing"

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        return Resolution(
            query=message,
            degraded="embedded resolver error: RecursionError('maximum recursion depth')",
        )


def test_a_resolver_failure_is_a_stable_code_not_its_text(
    fake_project: Path, open_assistant: Callable[..., Assistant]
) -> None:
    assistant = open_assistant(fake_project)
    assistant.runner.resolver = _Failing()  # type: ignore[assignment]
    history = [
        {"role": "user", "content": "how much is the monthly pass?"},
        {"role": "assistant", "content": "The monthly pass costs 30 dollars."},
    ]
    answer = assistant.ask("does it include e-bikes?", history=history)
    assert answer.degraded == ("resolve:error",)
    trace = assistant.trace(answer.trace_id)
    assert "Recursion" not in str(trace)


def test_the_http_history_has_an_item_limit(
    fake_project: Path, open_assistant: Callable[..., Assistant]
) -> None:
    assistant = open_assistant(fake_project)
    with TestClient(create_app(assistant.settings, assistant=assistant)) as client:
        many = [{"role": "user", "content": "hi"}] * 1001
        r = client.post("/v1/chat", json={"message": "day pass?", "history": many})
        assert r.status_code == 422, r.text
        assert r.json()["type"].endswith("invalid-request")
        ok = client.post("/v1/chat", json={"message": "day pass?", "history": many[:1000]})
        assert ok.status_code == 200, ok.text


def test_a_history_file_has_the_same_item_limit(tmp_path: Path) -> None:
    import json

    from tellmemore.assistant import parse_history
    from tellmemore.errors import InputError

    path = tmp_path / "h.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}] * 1001))
    with pytest.raises(InputError, match="1000"):
        parse_history(path)
