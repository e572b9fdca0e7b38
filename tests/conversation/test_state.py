"""State instead of recursion (issue 20): earlier turns' resolutions come from the session,
stateless callers re-resolve a bounded history, and a huge turn is read in part."""

from __future__ import annotations

import pytest

from tellmemore.conversation import constants as C
from tellmemore.conversation.passes.readable import _readable
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.types import Resolution, Turn

from .histories import A, U

RESOLVER = EmbeddedResolver()


def test_a_stored_resolution_is_read_instead_of_resolving_again() -> None:
    """The user corrected the last search to "how many staff work in Berlin?": the next
    ellipsis varies that query, which re-resolving the typed history cannot know."""
    corrected = Resolution(query="how many staff work in Berlin?", resolver="user-corrected")
    history = [
        U("how many offices are in Frankfurt?"),
        A("There are 3 offices in Frankfurt."),
        Turn("user", "and Berlin?", resolution=corrected),
        A("Berlin has 120 staff."),
    ]
    res = RESOLVER.resolve("what about Paris?", history, ResolveContext())
    assert res.query == "how many staff work in Paris?"
    assert res.passes == ("ellipsis",)
    stateless = [Turn(t.role, t.content) for t in history]
    again = RESOLVER.resolve("what about Paris?", stateless, ResolveContext())
    assert again.query == "how many offices are in Paris?"


def test_a_long_chain_of_ellipses_is_bounded_without_state() -> None:
    """660 "what about X?" turns overflowed the stack (each re-resolved the one before)."""
    history = [U("What does the monthly pass cost?"), A("The monthly pass costs 30 dollars.")]
    for i in range(660):
        history += [U(f"what about plan{i}?"), A(f"Plan{i} costs {i} dollars.")]
    res = RESOLVER.resolve("and the weekly one?", history, ResolveContext())
    assert res.degraded is None
    assert res.query != ""


def test_a_huge_history_turn_is_read_up_to_a_bound() -> None:
    """A pasted 1.9 MB turn cost 14 s of parsing on every later turn."""
    huge = "The monthly pass costs 30 dollars. " + "Lorem ipsum dolor sit amet. " * 70_000
    history = [U("What does the monthly pass cost?"), A(huge)]
    read, _ = _readable(history, window=3)
    assert len(read[1].content) <= C.MAX_READ_CHARS
    res = RESOLVER.resolve("does it include e-bikes?", history, ResolveContext())
    assert res.query == "does the monthly pass include e-bikes?"


@pytest.mark.model
def test_a_session_stores_each_turns_resolution(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    chat = sample_assistant.session()
    chat.ask("What are the shop opening hours?")
    answer = chat.ask("and on public holidays?")
    turns = sample_assistant.conversations.history(chat.id)
    users = [t for t in turns if t.role == "user"]
    assert users[1].resolution is not None
    assert users[1].resolution.query == answer.standalone_query
    assert users[1].resolution.passes == ("ellipsis",)
    assert all(t.resolution is None for t in turns if t.role == "assistant")
    third = chat.ask("what about Sundays?")
    assert third.standalone_query != "what about Sundays?"
