"""The ellipsis pass: "and for Enterprise?", "what about Sundays?" rebuilt from the
previous question made standalone."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import (
    Candidate,
)
from tellmemore.conversation.passes.base import Follow
from tellmemore.conversation.passes.carry import carry
from tellmemore.conversation.passes.cue import cue_key, narrower
from tellmemore.conversation.passes.state import with_passes
from tellmemore.conversation.phrases import phrases
from tellmemore.conversation.realize import (
    same_ordinal,
    splice_modifier,
    substitute_subject,
    time_qualifier,
)
from tellmemore.conversation.referents import (
    Ellipsis,
    EllipsisKind,
    find_ellipsis,
    is_bare_time,
    is_repair,
    still_true,
)
from tellmemore.conversation.text import (
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    content_words,
    stem,
    tokenize,
)
from tellmemore.types import Resolution

NAME = "ellipsis"

if TYPE_CHECKING:
    from tellmemore.conversation.passes.state import RunState


def applies(st: RunState, m: Follow) -> bool:
    return m.ellipsis is not None


def run(st: RunState, m: Follow) -> Resolution | None:
    if m.ellipsis is None:
        return None
    return rebuild_ellipsis(st, m.message, m.ellipsis, m.cands, m.depth)


def rebuild_ellipsis(
    st: RunState,
    message: str,
    ellipsis: Ellipsis,
    cands: list[Candidate],
    depth: int,
    *,
    typed_fragment: str | None = None,
    typed: str | None = None,
    taken: Collection[str] = (),
) -> Resolution:
    """`taken`: the keys of the message's referent bindings (the whole-message binding is
    keyed by the message's cue: conversation/passes/cue.py). `typed_fragment`: the fragment
    as the user typed it, when a referent in it was just bound ("and the monthly one?" ->
    "and Monthly pass?"): whether it names a subject of its own is judged on the user's
    words, not on the antecedent's capitals."""
    own = [
        t.text
        for t in tokenize(ellipsis.fragment if typed_fragment is None else typed_fragment)
        if t.low not in FUNCTION_WORDS and t.low not in GENERIC_NOUNS
    ]
    distinctive = [w for w in own if w[:1].isupper() or st.salience.weight(w) >= C.DISTINCTIVE_IDF]
    asks_again = still_true(ellipsis.opener)  # "is that different for Cloud Connect?"
    adjunct = (
        ellipsis.kind is EllipsisKind.MODIFIER
        and not is_repair(ellipsis.opener)  # "I meant to ask how ...": a question anew
        and adjunct_clause(ellipsis.fragment)
    )
    if (
        not asks_again
        and not adjunct
        and (
            len(distinctive) >= C.OWN_SUBJECT_WORDS
            or (distinctive and len(own) >= C.OWN_SUBJECT_RUN)
        )
    ):
        # "and about North Carolina in the Civil War", "what about the major discoveries
        # made by the spacecraft Galileo?": the fragment names its subject, and is what
        # is searched: the opener is conversation, which the dense model reads as words
        if typed_fragment is None and ellipsis.kind is EllipsisKind.SUBJECT:
            return Resolution(query=ellipsis.fragment, passes=(NAME,))
        return Resolution(query=message)
    if asks_after_comma(ellipsis.fragment):
        # "and if I drive instead, what's the mileage rate?", "and a 401k, do I get one
        # over here?": the fragment asks a question of its own after the comma; spliced
        # into the previous question it made two questions in one
        return Resolution(query=message)
    opener = ellipsis.opener.strip().lower()
    if opener == "what if" and len(content_words(ellipsis.fragment)) >= 2:
        # "what if I lose the bike?" brings a clause of its own: carrying the last
        # subject ("students, passes") searched for passes, not for the lost bike
        return Resolution(query=message)
    # "tell me more" carries the topic: the previous question is not resolved for it
    prev = None if ellipsis.kind == EllipsisKind.MORE else st.previous_question(depth)
    if prev is None:
        return _carried(st, message, cands, typed, taken)
    previous, base = prev
    fragment = ellipsis.fragment
    if ellipsis.kind == EllipsisKind.MODIFIER:
        if is_bare_time(fragment):
            fragment = time_qualifier(fragment)
        query = parallel_object(st, base, fragment) or splice_modifier(base, fragment)
    else:
        varied = _varied(previous) or sibling_in(st, base, fragment)
        query = substitute_subject(base, fragment, st.salience, varied=varied)
    if query is None:
        return _carried(st, message, cands, typed, taken)
    if typed_fragment is not None:
        query = same_ordinal(query, typed_fragment)
    # bound to the previous question made standalone: "Answering about: does the Pro
    # plan include escalation?" says what "it" was, where the typed question would not
    shown = typed if typed is not None else message
    key = cue_key(shown, taken)
    return Resolution(query=query, bindings={key: base}, passes=(NAME,), cues=narrower(key, shown))


def parallel_object(st: RunState, base: str, fragment: str) -> str | None:
    """ "and for the Starter plan?" after "How much is the Pro plan?": the qualifier's object
    is a thing of the kind the question names (the same head word, "plan"), so it takes that
    thing's place rather than qualifying the question ("How much is the Pro plan for the
    Starter plan?"). A base with the same preposition already is `splice_modifier`'s swap
    ("for Pro" -> "for Enterprise"); None when nothing is parallel."""
    toks = tokenize(fragment)
    if len(toks) < 2 or toks[0].low not in _PREPOSITIONS:
        return None
    if any(t.low == toks[0].low for t in tokenize(base)):
        return None
    obj = fragment[toks[1].start :]
    words = content_words(obj)
    if not words or words[-1] != toks[-1].low:
        return None  # the object's head is not its last word ("the text to speech one")
    head = stem(words[-1])
    if not any(p.stems and p.stems[-1] == head for p in phrases(base)):
        return None
    return substitute_subject(base, obj, st.salience)


def adjunct_clause(fragment: str) -> bool:
    """ "to care for a veteran who is ill", "if we adopt": a purpose or a condition added
    to the previous question, which never names its subject, however rare its words."""
    toks = tokenize(fragment)
    if len(toks) < 2:
        return False
    if toks[0].low in _CONDITIONS:
        return True
    second = toks[1]
    return toks[0].low == "to" and second.text.islower() and second.low not in FUNCTION_WORDS


_CONDITIONS = lexicon.words("conditions")
_PREPOSITIONS = lexicon.words("compose_prepositions")
_ASKING = lexicon.words("question_words") | lexicon.words("auxiliaries")


def asks_after_comma(fragment: str) -> bool:
    """A clause after a comma that opens as a question does ("what's ...", "do I ...")."""
    _, comma, rest = fragment.partition(",")
    toks = tokenize(rest) if comma else []
    return len(toks) >= 2 and toks[0].low.split("'")[0] in _ASKING


def sibling_in(st: RunState, base: str, fragment: str) -> str | None:
    """An item of a recent list that `base` names, when `fragment` names another item of
    that list: "what about the Norrland ones?" after "is the Kestrel Edge K7 supported
    on the Starter plan?" replaces the Kestrel model, not the plan."""
    low = base.lower()
    for items, _ in st.recent_lists():
        if any(p.text in fragment for p in items):
            named = [p for p in items if p.text not in fragment and p.text.lower() in low]
            if named:
                return named[0].text
    return None


def _varied(question: str) -> str | None:
    """The phrase a follow-up put in place ("Enterprise" in "and for Enterprise?")."""
    previous = find_ellipsis(question)
    if previous is None or previous.kind is EllipsisKind.MORE:
        return None
    toks = tokenize(previous.fragment)
    if previous.kind is EllipsisKind.MODIFIER and toks:
        toks = toks[1:]  # "for Enterprise": the preposition stays
    if not toks:
        return None
    return previous.fragment[toks[0].start : toks[-1].end]


def _carried(
    st: RunState,
    message: str,
    cands: list[Candidate],
    typed: str | None,
    taken: Collection[str] = (),
) -> Resolution:
    """An ellipsis with no previous question to rebuild ("tell me more"): the topic carried."""
    shown = typed if typed is not None else message
    res = carry(st, message, cands, topic=False, typed=shown, taken=taken)
    return with_passes(res, NAME) if res.passes else res
