"""Ask which one when "the <kind>" follows an answer that listed several things of that
kind and nothing since picks one ("Explain each plan" answered with six plans, then "How
many domains are included in the plan?"): `conversation.ambiguity.kind_asked`."""

from __future__ import annotations

from tellmemore.conversation.ambiguity import asks_kind, kind_in_history
from tellmemore.conversation.passes.base import Follow
from tellmemore.conversation.passes.state import RunState
from tellmemore.conversation.realize import clarification_question
from tellmemore.types import Resolution

NAME = "alternatives"


def applies(st: RunState, m: Follow) -> bool:
    return m.prefer is None and m.depth == 0 and not m.refs and " the " in f" {m.message.lower()}"


def run(st: RunState, m: Follow) -> Resolution | None:
    found = kind_in_history(m.message, st.history)
    if found is None or not asks_kind(found):
        return None
    items = list(found.items)
    return Resolution(
        query=m.message,
        ambiguous=True,
        clarification=clarification_question(items),
        candidates=tuple(st.surface(p) for p in items),
        passes=(NAME,),
    )
