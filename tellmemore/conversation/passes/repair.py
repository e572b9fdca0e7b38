"""The repair pass: "why can't you answer that?" asks the previous question again, as it
was made standalone; the complaint is no subject to search for."""

from __future__ import annotations

from tellmemore.analysis import lexicon
from tellmemore.conversation.passes.base import Follow
from tellmemore.conversation.passes.state import RunState
from tellmemore.conversation.referents import Referent, no_answer_complaint
from tellmemore.types import Resolution

NAME = "repair"
_ANSWER_POINTERS = lexicon.words("answer_pointers")


def applies(st: RunState, m: Follow) -> bool:
    return m.prefer is None and m.complaint is not None and _only_pointing_at_the_answer(m)


def run(st: RunState, m: Follow) -> Resolution | None:
    prev = st.previous_question(m.depth)
    if prev is None or m.complaint is None:
        return None
    # keyed by the complaint as typed: "why can't you answer that" -> the question again
    at = m.message.lower().find(m.complaint.lower())
    typed = m.message[at : at + len(m.complaint)] if at >= 0 else m.complaint
    return Resolution(query=prev[1], bindings={typed: prev[1]}, passes=(NAME,))


def _only_pointing_at_the_answer(m: Follow) -> bool:
    """ "why can't you answer that?": the complaint's only referents are what it could not
    answer, not a thing to search for."""
    complaint = no_answer_complaint(m.message) or ""
    end = m.message.lower().find(complaint.lower()) + len(complaint)
    return all(_points_at_the_answer(r, end) for r in m.refs)


def _points_at_the_answer(ref: Referent, end: int) -> bool:
    return ref.start >= end and ref.text.lower() in _ANSWER_POINTERS
