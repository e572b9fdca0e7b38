"""What the conversation layer reads back from a quoted answer (issue 21): the titles it
groups sentences under are no antecedents, and a session's stored list items are read
as data, not parsed back out of the answer text."""

from __future__ import annotations

from pathlib import Path

from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.text import answer_body
from tellmemore.state.conversations import ConversationStore
from tellmemore.state.db import StateDB
from tellmemore.types import Answer, Decision, Trace, Turn

from .histories import A, U

RESOLVER = EmbeddedResolver()

GROUPED = (
    "Cloud Connect escalation:\n"
    "Enterprise escalations cover weekends and public holidays. [1] Standard escalations"
    " are handled during business hours only. [2]\n"
    "Cloud Connect plans and pricing:\n"
    "Enterprise starts at $1,450 per month for unlimited sites. [3]"
)


def test_group_titles_are_dropped_and_a_single_intro_line_is_kept() -> None:
    body = answer_body(GROUPED)
    assert "Cloud Connect escalation" not in body and "plans and pricing" not in body
    assert body.splitlines()[0].startswith("Enterprise escalations cover weekends")
    intro = "The plans are:\n- Starter: $49\n- Pro: $299"
    assert answer_body(intro) == intro


def test_a_group_title_is_not_an_alternative() -> None:
    history = [U("does the enterprise one cover weekends?"), A(GROUPED)]
    res = RESOLVER.resolve("and the second one?", history, ResolveContext())
    bound = " ".join(res.bindings.values())
    assert "Cloud Connect escalation" not in bound and "plans and pricing" not in bound
    assert "Standard" in bound, res


LEVELS = ("Junior engineer", "Engineer", "Senior engineer", "Staff engineer", "Principal")


def test_the_ordinal_pass_reads_the_stored_items_not_the_text() -> None:
    """The answer's text quotes the levels as one run-on sentence, which no text reading
    splits into five; the items stored with the turn are the list."""
    text = "The career levels are " + ", ".join(LEVELS) + ". [1]"
    question = U("what are the career levels?")
    stored = [question, Turn("assistant", text, items=LEVELS)]
    res = RESOLVER.resolve("what's the fourth one?", stored, ResolveContext())
    assert res.bindings == {"the fourth one": "Staff engineer"}, res
    stateless = [question, A(text)]
    again = RESOLVER.resolve("what's the fourth one?", stateless, ResolveContext())
    assert again.bindings.get("the fourth one") != "Staff engineer"


def test_a_session_stores_an_answers_items(tmp_path: Path) -> None:
    store = ConversationStore(StateDB(tmp_path / "state.db"))
    sid = store.ensure_session(None)
    for message, items in (("what are the levels?", LEVELS), ("thanks", ())):
        answer = Answer(trace_id=message, answer="...", message=message, items=items)
        trace = Trace(message, sid, message, Decision.RETRIEVE, "", None, (), answer)
        store.record_turn(trace)
    turns = store.history(sid)
    assert [t.items for t in turns] == [None, LEVELS, None, ()]
