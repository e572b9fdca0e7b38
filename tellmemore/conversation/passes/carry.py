"""The carry pass: a message with too little signal of its own gets the salient phrases
of the user's recent and first turns, unless the learned selector sees nothing a person
would carry."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from tellmemore.conversation import constants as C
from tellmemore.conversation import coordination
from tellmemore.conversation.binding import (
    Candidate,
)
from tellmemore.conversation.gate import GateResult, gate
from tellmemore.conversation.passes.base import Follow
from tellmemore.conversation.passes.cue import cue_key, narrower
from tellmemore.conversation.realize import (
    append_phrases,
    clarification_question,
)
from tellmemore.conversation.selector import default_model, each_candidate
from tellmemore.conversation.subject import REASON as SUBJECT_REASON
from tellmemore.types import Resolution

NAME = "carry"

if TYPE_CHECKING:
    from tellmemore.conversation.passes.state import RunState


def applies(st: RunState, m: Follow) -> bool:
    return True  # the last resort: the gate said the message needs its topic


def run(st: RunState, m: Follow) -> Resolution | None:
    if selector_vetoes(st, m.message, m.verdict):
        return Resolution(query=m.message)  # vetoed before any candidate is read
    if not m.cands:
        from tellmemore.conversation.passes.dispatch import read_candidates

        read_candidates(st, m)
    res = carry(st, m.message, m.cands, topic=True, verdict=m.verdict, vetted=True)
    if res.passes and m.verdict is not None and m.verdict.reason == SUBJECT_REASON:
        # the gate found the message less specific than the subject: no guess of a topic
        # for a message with too little signal, so searched at full weight (phrasings.py)
        return replace(res, passes=(*res.passes, "subject"))
    return res


def carry(
    st: RunState,
    message: str,
    cands: list[Candidate],
    *,
    topic: bool,
    typed: str | None = None,
    verdict: GateResult | None = None,
    vetted: bool = False,
    taken: Collection[str] = (),
) -> Resolution:
    """Too little signal: append the salient phrases of the user's recent and first
    turns (design.md: phrases carry better than single high-IDF terms), unless the
    learned selector sees nothing in the history a person would carry (a new
    subject in few words: "Is privacy protected?"). `topic`: the message lacks a subject
    (the selector may veto); else an ellipsis asked for more. `typed`: the message as the
    user typed it, the binding's key (`message` may hold bindings already). `vetted`:
    the selector was asked already. `taken`: the keys of the message's referent bindings
    (the key is the message's cue: conversation/passes/cue.py)."""
    if topic and not vetted and selector_vetoes(st, message, verdict):
        return Resolution(query=message)
    user = [c for c in cands if c.role in ("user", "summary")]
    picked: list[Candidate] = []
    if user:
        last_turn = max(c.turn for c in user)
        picked.append(max((c for c in user if c.turn == last_turn), key=lambda c: c.score))
        # then the best phrase of any other user turn (often the first: the topic)
        for c in user:
            if len(picked) >= C.CARRY_PHRASES:
                break
            if not set(c.stems) & {s for p in picked for s in p.stems}:
                picked.append(c)
    # no phrase of the user's: nothing is carried from the answer alone, whose best phrase
    # may be padding ("how often will we meet?" after "Who will I report to?" had carried
    # "stub", from "every pay stub" in a quoted sentence)
    picked = [c for c in picked if c.score >= C.MIN_ANTECEDENT]
    if not picked:
        return Resolution(query=message)
    if (
        topic
        and st.depth == 0
        and st.context.ask_coordinated
        and (asked := _one_of_contrasted(st, message, picked, user))
    ):
        return asked
    texts = [st.surface(c.phrase) for c in picked]
    query = append_phrases(message, [(c.phrase, t) for c, t in zip(picked, texts, strict=True)])
    shown = typed if typed is not None else message
    key = cue_key(shown, taken)
    return Resolution(
        query=query,
        bindings={key: ", ".join(texts)},
        passes=(NAME,),
        cues=narrower(key, shown),
    )


def _one_of_contrasted(
    st: RunState, message: str, picked: list[Candidate], user: list[Candidate]
) -> Resolution | None:
    """Ask which one when the topic to carry is one of two things the user's last question
    set against each other ("the difference between FMLA and paid parental leave", then
    "how do I apply?"): carrying the more salient one is a guess
    (`conversation.coordination`)."""
    previous = st.previous()
    if previous is None:
        return None
    ranked = sorted(((c, c.score) for c in user), key=lambda cs: -cs[1])
    found = next(  # "difference, FMLA": the carried conjunct need not come first
        (
            hit
            for c in picked
            if c.turn == previous[0]
            and (hit := coordination.one_of(previous[1], message, c.phrase, ranked)) is not None
        ),
        None,
    )
    if not coordination.asks_carried(found):
        return None
    assert found is not None
    options = [replace(p, text=st.surface(p)) for p in found.options]
    return Resolution(
        query=message,
        ambiguous=True,
        clarification=clarification_question(options),
        candidates=tuple(p.text for p in options),
        passes=(NAME,),
    )


def selector_vetoes(st: RunState, message: str, verdict: GateResult | None) -> bool:
    """The selector's best history phrase is below C.SELECTOR_VETO: carry nothing."""
    model = default_model()
    if model is None or C.SELECTOR_VETO <= 0 or st.context.term_stats is None:
        return False  # trained on an index's IDF: without one its features mean little
    if verdict is None:
        verdict = gate(message, st.history, salience=st.salience, headings=st.headings)
    scored = each_candidate(message, st.history, st.salience, verdict)
    return not any(model.probability(s.features) >= C.SELECTOR_VETO for s in scored)
