"""Referents of a message bound one by one (pronoun, ordinal, alternatives), then the
edits realised in one splice; a bound phrase of the assistant's wording gets the user's
topic as scope."""

from __future__ import annotations

from dataclasses import replace

from tellmemore.conversation import ambiguity, coordination
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import (
    Candidate,
    Phrase,
    agreement,
    can_be_pointed_at,
    containing,
    matching,
    same_head_pair,
    same_number,
    singular,
)
from tellmemore.conversation.passes.alternatives import (
    alternative,
    asked_between,
    both,
    left_behind,
)
from tellmemore.conversation.passes.base import Follow
from tellmemore.conversation.passes.ellipsis import rebuild_ellipsis
from tellmemore.conversation.passes.fit import by_passage_fit
from tellmemore.conversation.passes.ordinal import bind_ordinal
from tellmemore.conversation.passes.pronoun import (
    ends_in_predicate,
    stands_alone,
)
from tellmemore.conversation.passes.state import (
    ALTERNATIVE_KINDS,
    CHAINED_KINDS,
    Ambiguous,
    RunState,
    with_passes,
)
from tellmemore.conversation.realize import (
    clarification_question,
    replacement,
    scope_text,
    splice,
)
from tellmemore.conversation.referents import (
    ORDINAL_HEADS,
    Ellipsis,
    EllipsisKind,
    Referent,
    ReferentKind,
    find_ellipsis,
)
from tellmemore.conversation.text import (
    RELATIONAL_NOUNS,
    content_words,
    looks_plural,
    stem,
)
from tellmemore.types import Resolution

NAME = "pronoun"
"""The pass that binds referents; each bound one is recorded as pronoun, ordinal or
alternatives (`pass_of`)."""


def applies(st: RunState, m: Follow) -> bool:
    return bool(m.refs)


def run(st: RunState, m: Follow) -> Resolution | None:
    return bind_referents(
        st, m.message, m.refs, m.ellipsis, m.cands, m.items, m.list_turn, m.prefer, m.depth
    )


def bind_referents(
    st: RunState,
    message: str,
    refs: list[Referent],
    ellipsis: Ellipsis | None,
    cands: list[Candidate],
    items: list[Phrase],
    list_turn: int,
    prefer: str | None,
    depth: int,
) -> Resolution:
    edits: list[tuple[Referent, str]] = []
    bindings: dict[str, str] = {}
    fired: list[str] = []
    from_assistant = False
    bound_before: tuple[Referent, Phrase] | None = None
    off = st.context.disabled_passes
    for ref in refs:
        if off and pass_of(ref, prefer is not None) in off:
            continue  # an ablation: this kind of referent is left as typed
        if prefer is None and stands_alone(st, message, ref, cands, items):
            continue
        if (
            ref.kind in CHAINED_KINDS
            and bound_before is not None
            and (agreement(ref, bound_before[1]) >= 1.0 or same_number(ref, bound_before[0]))
        ):
            # "the second one, does it include helmets?": "it" is that one; "are
            # those sport played by women, can they play them?": "them" is those
            continue
        paired = both(st, ref, message, cands)
        out = paired or bind_one(st, message, ref, cands, items, list_turn, prefer)
        if isinstance(out, Ambiguous):  # a coin flip between alternatives: ask
            return Resolution(
                query=message,
                ambiguous=True,
                clarification=clarification_question(out.options),
                candidates=tuple(p.text for p in out.options),
                passes=("alternatives",),
            )
        if out is None:
            continue
        phrase, source_role = out
        if ref.kind in CHAINED_KINDS and ends_in_predicate(phrase):
            # "is Sydney available?" then "the latency to it": Sydney, not "Sydney available"
            phrase = replace(phrase, text=phrase.text.rsplit(None, 1)[0], stems=phrase.stems[:-1])
        bound_before = (ref, phrase)
        text = st.surface(phrase)
        bindings[ref.text] = text
        fired.append(pass_of(ref, paired is not None or prefer is not None))
        if st.refit and not paired:
            fired.append("fit")  # the documents chose this antecedent (passes.fit)
        edits.append((ref, replacement(ref, phrase, text, message)))
        from_assistant |= source_role != "user"
    if not edits and all(stands_alone(st, message, r, cands, items) for r in refs):
        if ellipsis is not None:
            return rebuild_ellipsis(st, message, ellipsis, cands, depth)
        return Resolution(query=message)  # "North Carolina ... its weather": inside
    if not edits:
        if ellipsis is not None and not _only_an_ordinal(ellipsis, refs):
            return rebuild_ellipsis(st, message, ellipsis, cands, depth)
        return Resolution(query=message, unbound_referent=True)
    query = splice(message, edits)
    listed = ellipsis is not None and answers_previous(st, fired, list_turn)
    if ellipsis is not None and ellipsis.kind != EllipsisKind.MORE and not listed:
        again = find_ellipsis(query) or ellipsis
        res = rebuild_ellipsis(
            st,
            query,
            again,
            cands,
            depth,
            typed_fragment=ellipsis.fragment,
            typed=message,
            taken=tuple(bindings),
        )
        return with_passes(replace(res, bindings={**bindings, **res.bindings}), *fired)
    if from_assistant:
        found = topic_scope(st, query, bindings, cands)
        if found is not None and not listed_under(st, fired, found, list_turn):
            scope = found.phrase
            first = edits[0][0]
            query = splice(message, edits, scope=(first, scope_text(scope.prep, st.surface(scope))))
            fired.append("carry")  # searched and shown in the query, bound to no referent
    if listed and ellipsis is not None and ellipsis.kind is EllipsisKind.SUBJECT:
        # the fragment names its subject now: searched alone, as the ellipsis pass searches
        # "what about the discoveries made by Galileo?" ("and the last one?" -> "Maxiflex")
        query = fragment_of(query, message, ellipsis.fragment)
        fired.append("ellipsis")
    return Resolution(query=query, bindings=bindings, passes=tuple(dict.fromkeys(fired)))


def fragment_of(query: str, message: str, fragment: str) -> str:
    """The part of `query` (`message` with spans inside `fragment` replaced) that stands
    for `fragment`: the realizer keeps the characters around the spans as typed."""
    start = message.find(fragment)
    if start < 0:
        return query
    tail = len(message) - start - len(fragment)
    return query[start : len(query) - tail]


def answers_previous(st: RunState, fired: list[str], list_turn: int) -> bool:
    """An ordinal counted into the list that answered the previous question ("What kinds
    of flexible schedules does GSA allow?", then "and the last one?"): that question has no
    place the item could take, so the item is asked about as it stands, not put in the
    place of its subject ("What kinds of flexible schedules does Maxiflex allow?")."""
    previous = st.previous()
    return "ordinal" in fired and previous is not None and list_turn > previous[0]


def listed_under(st: RunState, fired: list[str], scope: Candidate, list_turn: int) -> bool:
    """The scope is the topic of the question the counted list answered ("What kinds of
    flexible schedules does GSA allow?"): the item is one of that topic's already. The turn
    searches the user's turns beside the query (`conversation.phrasings`), so the topic
    reaches retrieval anyway; in the query as well ("how does Gliding of flexible schedules
    work?") it ranked the list's overview above the item's own section
    (`bench/ordinal_items.py`). A topic said after the list stays ("what's the last step?"
    after "and for macOS?": "Click Connect for macOS")."""
    if fired != ["ordinal"] or list_turn < 0:
        return False
    asked = max((i for i in range(list_turn) if st.history[i].role == "user"), default=-1)
    return scope.turn == asked


def _only_an_ordinal(ellipsis: Ellipsis, refs: list[Referent]) -> bool:
    """The fragment is an ordinal that bound nothing ("what about the second one?" after
    an answer with no list): rebuilt into the previous question, its ordinal took the
    place of a word there ("share second code"); the message is searched as typed."""
    fragment = ellipsis.fragment.strip(" ?!.").lower()
    return any(r.kind is ReferentKind.ORDINAL and r.text.lower() == fragment for r in refs)


def pass_of(ref: Referent, chose: bool) -> str:
    """The pass a bound referent belongs to. `chose`: it picked among alternatives ("they
    both", a reply to a clarifying question)."""
    if chose or ref.kind in ALTERNATIVE_KINDS:
        return "alternatives"
    if ref.kind is ReferentKind.ORDINAL:
        return "ordinal"
    return "pronoun"


def _names_head(option: str, modifier: str | None) -> bool:
    """The chosen option carries the demonstrative's noun ("Ventura County" for "this
    county")."""
    return modifier is not None and stem(modifier) in {stem(w) for w in content_words(option)}


def bind_one(
    st: RunState,
    message: str,
    ref: Referent,
    cands: list[Candidate],
    items: list[Phrase],
    list_turn: int,
    prefer: str | None,
) -> tuple[Phrase, str] | Ambiguous | None:
    st.refit = False
    if prefer is not None and (
        ref.kind is not ReferentKind.DEMONSTRATIVE or _names_head(prefer, ref.modifier)
    ):
        # "this county" takes the chosen "Ventura County"; a bare "this" stays as typed
        match = matching(prefer, items) or Phrase(prefer, tuple(map(stem, prefer.split())))
        return match, "assistant"
    if ref.kind == ReferentKind.ORDINAL:
        return bind_ordinal(st, ref, items)
    if ref.modifier and ref.kind in (ReferentKind.ONE, ReferentKind.DEMONSTRATIVE):
        named = [p for p in items if stem(ref.modifier) in p.stems]
        named = named or st.items_naming(ref.modifier)
        if len(named) >= 2 and ref.kind is ReferentKind.ONE:
            if ref.text.lower().endswith("ones"):  # "the Norrland ones": all of them
                joined = " and ".join(st.surface(p) for p in named)
                return Phrase(joined, tuple(s for p in named for s in p.stems)), "assistant"
            return Ambiguous(named)  # "the Kestrel one" of two Kestrel models: ask
        hit = named[0] if named else containing(ref.modifier, [c.phrase for c in cands])
        if hit is not None:
            return hit, "assistant"
        if ref.kind == ReferentKind.ONE:
            return None  # "the regular one" among items none of which is regular
    if ref.kind == ReferentKind.ONE and not ref.modifier:
        picked = st.picked_alternative()  # "how much is that one?" after "which ...?"
        if picked is not None:
            return picked, "user"  # the user asked for it: no scope to add
    # a list the user moved on from ("My tyre went flat." after the shop hours) holds
    # no "other one": it is said of the current topic ("the other one (tyre)"), below
    if ref.kind == ReferentKind.WHICH:
        asked = asked_between(st)
        if asked is not None:  # "the difference between Starter and Pro?" then "which one"
            return asked, "user"
    if ref.kind in ALTERNATIVE_KINDS and len(items) >= 2 and not left_behind(st, items, list_turn):
        return alternative(st, ref, items, list_turn)
    if ref.kind == ReferentKind.WHICH:
        pair = same_head_pair([c.phrase for c in cands])
        if pair is not None:  # "static secrets" ... "dynamic secrets": which one?
            joined = " or ".join(st.surface(p) for p in pair)
            return Phrase(joined, tuple(s for p in pair for s in p.stems)), "assistant"
        chained = st.chained_antecedent() if st.depth < C.ELLIPSIS_DEPTH else None
        if chained is not None and " and " in chained[0].text:
            # "how do I set them up?" was about two models: "which one" is one of them
            options = chained[0].text.replace(" and ", " or ")
            return Phrase(options, chained[0].stems), "user"
    if ref.kind in CHAINED_KINDS and st.depth < C.ELLIPSIS_DEPTH:
        picked = st.picked_alternative()
        if picked is not None and agreement(ref, picked) >= 1.0:
            return picked, "user"  # the user asked for it: no scope to add
        chained = st.chained_antecedent()
        if chained is not None and (agreement(ref, chained[0]) >= 1.0 or _same_word(st, ref)):
            return chained
    pool = [c for c in cands if can_be_pointed_at(c)]
    if ref.kind == ReferentKind.PERSON:
        pool = [c for c in pool if st.is_name(c.phrase)] or pool
    if not pool:
        return None
    ranked = sorted(((c, c.score * agreement(ref, c.phrase)) for c in pool), key=lambda cs: -cs[1])
    if ranked[0][0].score < C.MIN_ANTECEDENT:
        return None
    best = by_passage_fit(st, message, ref, ranked)  # the coin flip still reads the salience
    refit = best is not ranked[0][0]
    if ref.kind in CHAINED_KINDS and st.depth == 0:
        flip = (
            coin_flip(st, ranked)
            or one_of_listed_kind(st, message, ref, best)
            or one_of_coordinated(st, message, ref, best, ranked)
        )
        if flip is not None:
            return flip
    st.refit = refit
    return best.phrase, best.role


def _same_word(st: RunState, ref: Referent) -> bool:
    """The previous question used the same pronoun ("how long is it?" then "and is it
    paid?"): its binding was accepted for this word once, so number agreement cannot
    undo it ("it" had bound "sabbaticals", then the answer's "12 contiguous weeks")."""
    return any(r.text.lower() == ref.text.lower() for r in st.previous_parts()[0])


def coin_flip(st: RunState, ranked: list[tuple[Candidate, float]]) -> Ambiguous | None:
    """Ask which one is meant when the best antecedent has a rival of the same kind that
    comes too close (`conversation.ambiguity`)."""
    found = ambiguity.rivals(ranked)
    if found is None or not ambiguity.asks(found):
        return None
    return Ambiguous([replace(p, text=st.surface(p)) for p in found.options])


def one_of_listed_kind(
    st: RunState, message: str, ref: Referent, best: Candidate
) -> Ambiguous | None:
    """Ask which one when a singular pronoun's best antecedent is the plural kind the
    user's last question asked about, or one of the several things of that kind the answer
    listed (`conversation.ambiguity.plural_kind_in_history`): binding the kind or the first
    item is a guess."""
    if not singular(ref):
        return None
    found = ambiguity.plural_kind_in_history(message, st.history)
    if found is None or not ambiguity.asks_kind(found):
        return None
    kind = best.role == "user" and looks_plural(best.phrase.text.split()[-1])
    if not kind and not any(set(best.phrase.stems) == set(it.stems) for it in found.items):
        return None  # "how is it treated?" after the flu's symptoms: the flu
    return Ambiguous([replace(p, text=st.surface(p)) for p in found.items])


def one_of_coordinated(
    st: RunState,
    message: str,
    ref: Referent,
    best: Candidate,
    ranked: list[tuple[Candidate, float]],
) -> Ambiguous | None:
    """Ask which one when a singular pronoun's best antecedent is one of the things the
    user's last question set side by side ("When will my laptop and phone arrive?", then
    "what rules do I have to follow with it?"): `conversation.coordination`."""
    if not st.context.ask_coordinated or ref.text.lower() not in coordination.THING_PRONOUNS:
        return None
    previous = st.previous()
    if previous is None:
        return None
    found = coordination.one_of(previous[1], message, best.phrase, ranked)
    if not coordination.asks(found):
        return None
    assert found is not None
    return Ambiguous([replace(p, text=st.surface(p)) for p in found.options])


def topic_scope(
    st: RunState, query: str, bindings: dict[str, str], cands: list[Candidate]
) -> Candidate | None:
    """The user's topic phrase the bound query still lacks ("on Cloud Connect")."""
    have = {stem(w) for w in content_words(query)}
    for b in bindings.values():
        have |= {stem(w) for w in content_words(b)}
    since = st.last_own_subject()
    siblings = st.siblings_of(bindings.values())
    for c in cands:
        if c.turn < since:
            continue  # before the user's last question of its own: a topic left behind
        if any(s and s <= set(c.stems) for s in siblings):
            continue  # "the Enterprise one" after "and for the Starter plan?": the contrast
        if c.role not in ("user", "summary") or c.score < C.MIN_ANTECEDENT:
            continue
        if set(c.stems) & st.declined:
            continue  # "what rules ... with the phone" is not "for laptop": declined
        if c.score < C.SCOPE_MIN and not st.is_name(c.phrase):
            continue  # a product name is scope even when every document names it
        words = c.phrase.text.split()
        if all(w.lower() in ORDINAL_HEADS or w.lower() in RELATIONAL_NOUNS for w in words) or (
            len(words) == 1 and looks_plural(words[0]) and not st.is_name(c.phrase)
        ):
            # a class noun or an attribute scopes nothing: "is Kestrel Edge K3 for
            # routers ...", "which of Starter or Pro for difference ..."
            continue
        if not set(c.stems) & have:
            return c
    return None
