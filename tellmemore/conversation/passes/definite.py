"""The definite pass: "the projector" after the user said "a pinhole projector" becomes
"the pinhole projector" (conversation/definites.py finds it; the gate says when to look)."""

from __future__ import annotations

from tellmemore.conversation.definites import find_definite
from tellmemore.conversation.passes.base import Follow
from tellmemore.conversation.passes.state import RunState
from tellmemore.conversation.realize import splice_word
from tellmemore.types import Resolution

NAME = "definite"


def applies(st: RunState, m: Follow) -> bool:
    return m.verdict is not None and m.verdict.reason.startswith("definite")


def run(st: RunState, m: Follow) -> Resolution | None:
    definite = find_definite(m.message, st.history)
    if definite is None:
        return None
    text = st.surface(definite.antecedent)
    return Resolution(
        query=splice_word(m.message, definite.start, definite.word, text),
        bindings={definite.text: text},
        passes=(NAME,),
    )
