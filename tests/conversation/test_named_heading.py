"""The documents' name for a follow-up's antecedent (`conversation.named`): the heading of
the section the last answer cited first is searched and shown beside the user's words,
in stored sessions only, and the next turn reads the user's words again."""

from __future__ import annotations

from pathlib import Path

from tellmemore.conversation.named import name_of, with_heading, without_heading
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.state.conversations import ConversationStore
from tellmemore.state.db import StateDB
from tellmemore.types import Answer, Citation, Decision, Resolution, Trace, Turn

from .histories import A, U

RESOLVER = EmbeddedResolver()
ASKED = U("How much is the gym stipend?")
ANSWERED = "Every team member gets $100 a month for their wellbeing. [1]"
FOLLOW_UP = "could I spend it on a meditation app instead?"


def cited(heading: str) -> Turn:
    return Turn("assistant", ANSWERED, about=(heading,))


def test_the_cited_heading_stands_beside_the_antecedent() -> None:
    res = RESOLVER.resolve(FOLLOW_UP, [ASKED, cited("Self Care Stipend")], ResolveContext())
    assert res.bindings == {"it": "gym stipend (Self Care Stipend)"}, res
    assert "gym stipend (Self Care Stipend)" in res.query


def test_a_stateless_history_or_the_setting_off_changes_nothing() -> None:
    stateless = RESOLVER.resolve(FOLLOW_UP, [ASKED, A(ANSWERED)], ResolveContext())
    off = RESOLVER.resolve(
        FOLLOW_UP, [ASKED, cited("Self Care Stipend")], ResolveContext(name_by_heading=False)
    )
    assert stateless.bindings == off.bindings == {"it": "gym stipend"}
    assert stateless.query == off.query


def test_a_heading_is_not_added_when_it_adds_nothing_or_is_a_sentence() -> None:
    said = RESOLVER.resolve(FOLLOW_UP, [ASKED, cited("Gym stipend")], ResolveContext())
    assert said.bindings == {"it": "gym stipend"}
    long = "Q: Can I spend my stipend on anything that helps me stay well?"
    sentence = RESOLVER.resolve(FOLLOW_UP, [ASKED, cited(long)], ResolveContext())
    assert sentence.bindings == {"it": "gym stipend"}


def test_an_antecedent_from_an_earlier_exchange_keeps_its_own_name() -> None:
    res = Resolution(query="does the gym stipend renew?", bindings={"it": "gym stipend"})
    history = [ASKED, A(ANSWERED), U("and the laptop?"), cited("Laptop configurations")]
    assert with_heading(res, "does it renew?", history) == res


def test_a_possessive_and_a_carried_topic_are_left_alone() -> None:
    history = [U("Do I get a Mac?"), cited("Admin rights")]
    owned = Resolution(query="can I upgrade Mac's OS myself?", bindings={"its": "Mac"})
    assert with_heading(owned, "can I upgrade its OS myself?", history) == owned
    inside = Resolution(query="is a Macbook like the Mac?", bindings={"it": "Mac"})
    named = with_heading(inside, "is a Macbook like it?", history)
    assert named.query == "is a Macbook like the Mac (Admin rights)?", named
    carried = Resolution(
        query="what kinds are there (FSA)?", bindings={"what kinds are there": "FSA"}
    )
    fsa = [U("What's an FSA?"), cited("Flexible spending accounts")]
    assert with_heading(carried, "what kinds are there?", fsa) == carried


def test_the_next_turn_reads_the_stored_question_without_the_heading() -> None:
    history = [ASKED, cited("Self Care Stipend")]
    first = RESOLVER.resolve(FOLLOW_UP, history, ResolveContext())
    asked = Turn("user", FOLLOW_UP, resolution=first)
    later = [*history, asked, cited("Reimbursements")]
    plain = "could I spend the gym stipend on a meditation app instead?"
    assert without_heading(first, later, 2).query == plain
    assert without_heading(first, later, 2).bindings == {"it": "gym stipend"}
    nxt = RESOLVER.resolve("and on a yoga class?", later, ResolveContext())
    assert "Self Care Stipend" not in nxt.query, nxt


def test_a_session_reads_the_headings_its_last_answers_cited(tmp_path: Path) -> None:
    store = ConversationStore(StateDB(tmp_path / "state.db"))
    sid = store.ensure_session(None)
    sections = [("Perks", "Gym"), (), ("Travel", "Visiting")]
    for n, section in enumerate(sections):
        source = Citation(id=f"c{n}", doc="perks.md", title="Perks", section=tuple(section))
        answer = Answer(trace_id=f"t{n}", answer="...", message=f"q{n}", citations=(source,))
        store.record_turn(Trace(f"t{n}", sid, f"q{n}", Decision.RETRIEVE, "", None, (), answer))
    about = [t.about for t in store.history(sid) if t.role == "assistant"]
    # the last two answers only; a first citation with no section names no heading ("")
    assert about == [None, ("",), ("Visiting",)]


def test_a_heading_reads_as_a_name() -> None:
    assert name_of("1. Company-wide travel") == "Company-wide travel"
    assert name_of("\U0001f3c3 Wellness") == "Wellness"
    assert name_of("Dining expenses:") == "Dining expenses"
    assert name_of("Q. When can I enroll?") == ""  # a FAQ entry asks, it names nothing
    res = RESOLVER.resolve(FOLLOW_UP, [ASKED, cited("2) Self Care Stipend:")], ResolveContext())
    assert res.bindings == {"it": "gym stipend (Self Care Stipend)"}, res


def test_inside_a_parenthesis_the_heading_joins_it() -> None:
    history = [U("My tyre went flat during a ride."), cited("Damage and flat tyres")]
    scoped = Resolution(
        query="Do I pay for the other one (tyre)?", bindings={"the other one": "tyre"}
    )
    named = with_heading(scoped, "Do I pay for the other one?", history)
    assert named.query == "Do I pay for the other one (tyre, Damage and flat tyres)?"
    assert named.bindings == {"the other one": "tyre (Damage and flat tyres)"}
    later = [*history, Turn("user", "Do I pay for the other one?", resolution=named), A("...")]
    assert without_heading(named, later, 2) == scoped
