"""The order of the passes: which kind of follow-up a message is, and the pass that
resolves it."""

from __future__ import annotations

from tellmemore.analysis import lexicon
from tellmemore.conversation.binding import (
    collect_candidates,
)
from tellmemore.conversation.definites import find_definite, spliced
from tellmemore.conversation.gate import GateResult, gate
from tellmemore.conversation.passes.alternatives import clarification_reply
from tellmemore.conversation.passes.bind import bind_referents
from tellmemore.conversation.passes.carry import carry
from tellmemore.conversation.passes.ellipsis import rebuild_ellipsis
from tellmemore.conversation.passes.state import ALTERNATIVE_KINDS, RunState
from tellmemore.conversation.referents import (
    Referent,
    ReferentKind,
    find_ellipsis,
    find_referents,
    no_answer_complaint,
)
from tellmemore.conversation.text import (
    content_words,
    stem,
    tokenize,
)
from tellmemore.types import Resolution


def resolve(st: RunState, message: str, *, depth: int, prefer: str | None = None) -> Resolution:
    st._depth = depth
    history = st.history
    if not any(t.content.strip() for t in history) or not tokenize(message):
        return Resolution(query=message)
    if prefer is None:
        chained = clarification_reply(st, message, depth)
        if chained is not None:
            return chained
    st.salience.prime([message, st.context.summary, *st.read_texts()])
    refs = find_referents(message)
    ellipsis = find_ellipsis(message)
    verdict: GateResult | None = None
    complaint = no_answer_complaint(message) if ellipsis is None else None
    if complaint is not None and prefer is None and _only_pointing_at_the_answer(message, refs):
        prev = st.previous_question(depth)
        if prev is not None:  # the previous question, still unanswered, asked again
            return Resolution(query=prev[1], bindings={complaint.lower(): prev[1]})
    if not refs and ellipsis is None and prefer is None:
        verdict = gate(message, history, salience=st.salience, headings=st.headings)
        if not verdict.needs_resolution:
            return Resolution(query=message)  # its own subject: carry nothing
        definite = (
            find_definite(message, history) if verdict.reason.startswith("definite") else None
        )
        if definite is not None:
            text = st.surface(definite.antecedent)
            return Resolution(
                query=spliced(message, definite, text), bindings={definite.text: text}
            )
    cands = collect_candidates(
        history, st.salience, window=st.context.window, summary=st.context.summary
    )
    own = {stem(w) for w in content_words(message)}
    dropped = st.swapped_out()
    cands = [
        c
        for c in cands
        if not set(c.stems) <= own and not st.is_column(c) and not set(c.stems) & dropped
    ]
    needs_items = prefer is not None or any(
        r.kind in (*ALTERNATIVE_KINDS, ReferentKind.ORDINAL) for r in refs
    )
    items, list_turn = st.items() if needs_items else ([], -1)
    if refs:
        return bind_referents(st, message, refs, ellipsis, cands, items, list_turn, prefer, depth)
    if ellipsis is not None:
        return rebuild_ellipsis(st, message, ellipsis, cands, depth)
    return carry(st, message, cands, key="topic", verdict=verdict)


def _only_pointing_at_the_answer(message: str, refs: list[Referent]) -> bool:
    """ "why can't you answer that?": the complaint's only referents are what it could not
    answer, not a thing to search for."""
    complaint = no_answer_complaint(message) or ""
    end = message.lower().find(complaint.lower()) + len(complaint)
    return all(r.start >= end and r.text.lower() in _ANSWER_POINTERS for r in refs)


_ANSWER_POINTERS = lexicon.words("answer_pointers")
