"""The alternatives pass: "the other one", "which one", "the cheaper one", "they both",
and a reply to a clarifying question choose among the alternatives just discussed; a
coin flip asks instead of guessing (seed 003)."""

from __future__ import annotations

from dataclasses import replace

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import (
    Candidate,
    Phrase,
    same_head_pair,
)
from tellmemore.conversation.passes.cue import cue_key, narrower
from tellmemore.conversation.passes.readable import chosen_option, offered_choice
from tellmemore.conversation.passes.state import Ambiguous, RunState
from tellmemore.conversation.realize import (
    append_phrases,
)
from tellmemore.conversation.referents import (
    Referent,
    ReferentKind,
    find_ellipsis,
    find_referents,
)
from tellmemore.conversation.text import (
    content_words,
    stem,
)
from tellmemore.types import Resolution


def both(
    st: RunState, ref: Referent, message: str, cands: list[Candidate]
) -> tuple[Phrase, str] | None:
    """ "do they both rotate secrets?" after "which one, static or dynamic secrets?": a
    plural pronoun with "both" is the pair just set side by side, not the most salient
    plural ("vulnerabilities")."""
    if ref.text.lower() not in ("they", "them") or not _BOTH.match(message[ref.end :]):
        return None
    pair = previous_pair(st) if st.depth < C.ELLIPSIS_DEPTH else None
    if pair is None and (asked := asked_between(st)) is not None:
        pair = asked, "user"
    if pair is None and (heads := same_head_pair([c.phrase for c in cands])) is not None:
        text = " and ".join(st.surface(p) for p in heads)
        pair = Phrase(text, tuple(s for p in heads for s in p.stems)), "assistant"
    if pair is None:
        return None
    phrase, role = pair
    return replace(phrase, text=_JOINS.sub(" and ", phrase.text)), role


def previous_pair(st: RunState) -> tuple[Phrase, str] | None:
    """Two things the previous question was bound to ("which one protects more?" ->
    "Static secret or Dynamic secrets")."""
    resolved = st.previous_resolved()
    if resolved is None:
        return None
    value = next((v for v in resolved[1].bindings.values() if _JOINS.search(v)), None)
    if value is None:
        return None
    return Phrase(value, tuple(stem(w) for w in content_words(value))), "user"


def asked_between(st: RunState) -> Phrase | None:
    """The two things the user's last question set side by side ("between Starter and
    Pro", "Starter or Pro"): what "which one" then chooses from."""
    last = next((t.content for t in reversed(st.history) if t.role == "user"), "")
    m = _BETWEEN.search(last)
    if m is None:
        return None
    pair = [m.group("a").strip(), m.group("b").strip()]
    if not all(content_words(p) and len(p.split()) <= C.MAX_LABEL_WORDS for p in pair):
        return None
    text = " or ".join(pair)
    return Phrase(text, tuple(stem(w) for w in content_words(text)))


def left_behind(st: RunState, items: list[Phrase], list_turn: int) -> bool:
    """The list is in an older answer and the user's last turn moved on: it names none
    of the items ("and the other one?" after "tell me about Enterprise" still means
    the list; after "My tyre went flat." it does not, even when a turn between named an
    item: "and on public holidays?" then "My tyre went flat.")."""
    last_answer = max((i for i, t in enumerate(st.history) if t.role == "assistant"))
    if list_turn >= last_answer:
        return False
    last_user = next((t for t in reversed(st.history[list_turn + 1 :]) if t.role == "user"), None)
    said = {stem(w) for w in content_words(last_user.content)} if last_user else set()
    return not any(set(it.stems) & said for it in items)


def alternative(
    st: RunState, ref: Referent, items: list[Phrase], list_turn: int
) -> tuple[Phrase, str] | Ambiguous:
    """Pick among list items by focus: which one the user (then the assistant) named
    since, or just before, the list. Equal focus is a coin flip."""
    shared = set(items[0].stems)
    for it in items[1:]:
        shared &= set(it.stems)
    focus = []
    for it in items:
        own = set(it.stems) - shared
        score = 0.0
        for i, turn in enumerate(st.history):
            if i < list_turn - 1 or not own:
                continue
            if i == list_turn:
                continue  # the list itself names every item once
            turn_stems = {stem(w) for w in content_words(turn.content)}
            if own & turn_stems:
                score += 1.0 if turn.role == "user" else C.ASSISTANT_WEIGHT
        focus.append(score)
    chained = st.chained_antecedent() if st.depth < C.ELLIPSIS_DEPTH else None
    if chained is not None:  # "what firmware does it need?" (it = NR-900): NR-900 has focus
        for k, it in enumerate(items):
            if set(it.stems) == set(chained[0].stems):
                focus[k] += 1.0
    if ref.kind == ReferentKind.WHICH:
        joined = " or ".join(it.text for it in items)
        return Phrase(joined, tuple(s for it in items for s in it.stems)), "assistant"
    order = sorted(range(len(items)), key=lambda k: -focus[k])
    best, second = order[0], order[1]
    if focus[best] - focus[second] < C.AMBIGUITY_MARGIN:
        tied = [items[k] for k in order if focus[best] - focus[k] < C.AMBIGUITY_MARGIN]
        return Ambiguous(sorted(tied, key=items.index))
    if ref.kind == ReferentKind.OTHER:
        if len(items) == 2:
            return items[second], "assistant"
        return Ambiguous([items[k] for k in sorted(order[1:])])
    return items[best], "assistant"


def clarification_reply(st: RunState, message: str, depth: int) -> Resolution | None:
    """ "enterprise" after "Do you mean Standard or Enterprise escalation?" resolves the
    question that got the clarification, with the chosen alternative. So does "the
    regular one" after an answer that asks which of two permits the user means."""
    h = st.history
    if len(h) < 2 or h[-1].role != "assistant":
        return None
    if len(content_words(message)) > C.CLARIFY_REPLY_WORDS:
        return None
    options = offered_choice(h[-1].content)
    if not options:
        return None
    chosen = chosen_option(message, options)
    if chosen is None:
        return None
    orig = max((i for i, t in enumerate(h[:-1]) if t.role == "user"), default=None)
    if orig is None:
        return None
    question = h[orig].content.strip()
    chosen_phrase = Phrase(chosen, tuple(stem(w) for w in content_words(chosen)))
    key = cue_key(message)  # "the regular one", "enterprise": the choice as typed
    qualified = Resolution(
        query=append_phrases(question, [(chosen_phrase, chosen)]),
        bindings={key: chosen},
        cues=narrower(key, message),
    )
    if not find_referents(question) and find_ellipsis(question) is None:
        # "How do I apply?" has nothing to bind the choice to: it qualifies the question
        return qualified
    sub = st.sub_run(orig)
    sub.declined = frozenset(
        stem(w) for o in options if o != chosen for w in content_words(o)
    ) - set(chosen_phrase.stems)
    res = sub.resolve(question, depth=depth + 1, prefer=chosen)
    if res.ambiguous:
        return None
    said = {stem(w) for w in content_words(res.query)}
    # the choice reaches the search even when no referent could take it ("is this one
    # free?" answered "the Pro plan" binds "this one"; "is that allowed?" does not)
    return res if set(chosen_phrase.stems) <= said else qualified


_BOTH = lexicon.pattern("both")
"""Right after the pronoun: "do they both ...", "compare them both"."""


_JOINS = lexicon.pattern("joins")
"""Two alternatives as one phrase: "Static secret or Dynamic secrets"."""


_BETWEEN = lexicon.pattern("between")
