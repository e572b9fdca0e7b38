"""The ordinal pass: "the first one", "step 3", "the last two" pick items of the most
recent list an answer gave (or, failing that, a looser reading of its lines)."""

from __future__ import annotations

from tellmemore.conversation.binding import Phrase
from tellmemore.conversation.passes.state import RunState
from tellmemore.conversation.referents import Referent, ReferentKind

NAME = "ordinal"


def applies(ref: Referent) -> bool:
    return ref.kind is ReferentKind.ORDINAL


def bind_ordinal(st: RunState, ref: Referent, items: list[Phrase]) -> tuple[Phrase, str] | None:
    """The item(s) `ref` counts to, and the role they were said in; None past the list."""
    if not items:
        items = st.items(loose=True)[0]
    if not items:
        return None
    n = ref.ordinal or 1
    if 1 < ref.count <= len(items):  # "the last two"
        picked = items[-ref.count :] if n == -1 else items[: ref.count]
        joined = " and ".join(st.surface(p) for p in picked)
        return Phrase(joined, tuple(s for p in picked for s in p.stems)), "assistant"
    if n == -1 or n <= len(items):
        return items[n - 1 if n > 0 else -1], "assistant"
    return None
