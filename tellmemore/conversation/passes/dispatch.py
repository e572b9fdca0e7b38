"""The order of the passes: which kind of follow-up a message is, and the pass that
resolves it. Each pass keeps one contract (passes/base.py: `applies`, `run`); the first
that applies and does not decline gives the resolution, recorded in `Resolution.passes`.
A new kind of follow-up is one cue row in the lexicon, one pass module in this list and
its cases."""

from __future__ import annotations

from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.binding import collect_candidates
from tellmemore.conversation.gate import gate
from tellmemore.conversation.passes import bind, carry, definite, ellipsis, kind, repair
from tellmemore.conversation.passes.alternatives import clarification_reply
from tellmemore.conversation.passes.base import Follow, Pass
from tellmemore.conversation.passes.state import ALTERNATIVE_KINDS, RunState, with_passes
from tellmemore.conversation.referents import ReferentKind
from tellmemore.types import Resolution


class _SelfContained:
    """Not a pass: a message with neither referent nor ellipsis that the gate finds
    self-sufficient is searched as typed, and no later pass runs."""

    NAME = ""

    @staticmethod
    def applies(st: RunState, m: Follow) -> bool:
        if m.refs or m.ellipsis is not None or m.prefer is not None:
            return False
        m.verdict = gate(m.message, st.history, salience=st.salience, headings=st.headings)
        return not m.verdict.needs_resolution

    @staticmethod
    def run(st: RunState, m: Follow) -> Resolution | None:
        return Resolution(query=m.message)  # its own subject: carry nothing


PASSES: tuple[Pass, ...] = (repair, kind, _SelfContained(), definite, bind, ellipsis, carry)
"""In order. `bind` runs the pronoun, ordinal and alternatives passes, one referent each."""


def resolve(st: RunState, message: str, *, depth: int, prefer: str | None = None) -> Resolution:
    """`message` made standalone over `st`'s history; `prefer`: the option a clarification
    reply chose (a sub-run re-resolving the question it answered)."""
    st.depth = depth
    if not analyze(message).tokens:
        return Resolution(query=message)
    if prefer is None and not any(t.content.strip() for t in st.history):
        # a first question binds nothing, unless a clarification reply chose for it
        return Resolution(query=message)
    if prefer is None and "alternatives" not in st.context.disabled_passes:
        chained = clarification_reply(st, message, depth)
        if chained is not None:
            return with_passes(chained, "alternatives")
    said = [analyze(message).vocabulary, analyze(st.context.summary).vocabulary]
    st.salience.prime_words([*said, *st.read_vocabularies()])
    a = analyze(message)
    found = a.ellipsis
    complaint = a.complaint if found is None else None
    m = Follow(message, depth, prefer, list(a.referents), found, complaint)
    off = st.context.disabled_passes
    for p in PASSES:
        if p.NAME in off and p is not bind:  # bind skips its referents one pass at a time
            continue
        if not p.applies(st, m):
            continue
        if p in (bind, ellipsis) and not m.cands:
            read_candidates(st, m)  # carry reads them itself, after the selector's veto
        res = p.run(st, m)
        if res is not None:
            return res
    return Resolution(query=message)


def read_candidates(st: RunState, m: Follow) -> None:
    """The antecedent candidates (none the message already says, no table column, nothing
    the previous ellipsis swapped out) and, when a referent asks for them, list items."""
    cands = collect_candidates(
        st.history, st.salience, window=st.context.window, summary=st.context.summary
    )
    own = analyze(m.message).stems
    dropped = st.swapped_out()
    m.cands = [
        c
        for c in cands
        if not set(c.stems) <= own and not st.is_column(c) and not set(c.stems) & dropped
    ]
    needs_items = m.prefer is not None or any(
        r.kind in (*ALTERNATIVE_KINDS, ReferentKind.ORDINAL) for r in m.refs
    )
    if needs_items:
        m.items, m.list_turn = st.items()
