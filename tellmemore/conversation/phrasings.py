"""The phrasings a turn searches, and the weight of each in the fusion.

One function, shared by the turn runner (`turn.py`) and the evaluation
(`eval/strategies.py`), so that what `tellmemore eval` measures is what a turn
does. A turn searches:

1. the resolved standalone query (shown to the user as "Searching for: ...");
2. the message as typed, when it differs (design.md: the largest and steadiest gain,
   and it protects turns that needed no resolution), unless it only points: a bare
   question word ("within how long?"), list positions bound for sure ("the last
   two"), a bound pronoun and nothing else ("how much is it?") or a resolved repair
   ("oh I meant saturn"), which alone match any "within 30 days", "you pay the
   difference", price or page on Saturn;
3. on a follow-up, a history phrasing at a lower weight (HISTORY_PHRASING_WEIGHT): the
   message followed by the user's last and first turns (HQE-like; HISTORY_PHRASING
   "turns"), or by the most salient phrases of those turns ("phrases"). Whole turns won
   the cross-domain check (bench/results/resolver_cross_domain.md). It is never shown
   and binds nothing; it lets retrieval see the conversation's subject when the message
   names it nowhere (a "self-contained" follow-up such as "What are the suppliers for
   the city?"), while the message's own lists dominate the fusion. A message that
   switches to a subject of its own ("What about the discoveries made by Galileo?",
   searched as "the discoveries made by Galileo") gets none: the history is the topic it
   leaves, and the opener as typed is conversation, not subject;
4. when the gate asked for resolution, the conversation's own wording at a low weight
   (CONTEXT_QUERY_WEIGHT): the last user turns and the message, as concat would search
   them. Never shown, binds nothing; it keeps the subject in reach when the binding
   missed it or bound the wrong phrase;
5. when the resolver bound a referent, the message followed by the start of the last reply
   (REPLY_PHRASING_WEIGHT): the reply is where the referent's subject was last spoken of,
   in the documents' own words rather than the user's. Never shown, binds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import Salience, TermStatsLookup, collect_candidates
from tellmemore.conversation.decide import names_a_subject
from tellmemore.conversation.preamble import split_preamble, without_preamble
from tellmemore.conversation.referents import (
    EllipsisKind,
    ReferentKind,
    find_ellipsis,
    find_referents,
    is_repair,
    is_wh_fragment,
)
from tellmemore.conversation.spelling import correct_spelling
from tellmemore.conversation.text import content_words, stem, strip_citations
from tellmemore.types import Resolution, Turn


@dataclass(frozen=True)
class Phrasings:
    """Texts to search, best first, and their fusion weights (same length)."""

    queries: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    context: tuple[str, ...] = ()
    """Queries searched for context only (the history phrasing): they steer the ranking,
    but a match for them is no evidence that the documents answer this message."""

    def evidence(self) -> tuple[str, ...]:
        """The queries that say what the user asks: their matches decide abstention."""
        return tuple(q for q in self.queries if q not in self.context)


def search_phrasings(
    message: str,
    resolution: Resolution,
    history: Sequence[Turn] = (),
    term_stats: TermStatsLookup | None = None,
    *,
    window: int = 3,
    searched: str | None = None,
) -> Phrasings:
    """What a turn searches for `resolution` of `message` (nothing when it asks back).
    `searched`: the message with its typos fixed, when the caller already fixed them (the
    turn runner does, before the gate)."""
    if resolution.ambiguous and resolution.clarification:
        return Phrasings()
    queries = [resolution.query]
    carried = tuple(p for p in resolution.passes if p != "terms")  # words: bench/loo_terms
    weights = [C.CARRY_QUERY_WEIGHT if carried == ("carry",) else 1.0]
    preamble = split_preamble(message)
    if preamble is not None:  # "By the way, how ...": the question is what was typed
        message = preamble.rest
    if resolution.query.strip() != message.strip() and not _typed_is_noise(message, resolution):
        queries.append(message)
        weights.append(C.MESSAGE_WEIGHT)
    extra = None
    switches = preamble is not None and preamble.switches and not resolution.bindings
    if not switches and not _switches_topic(message, resolution):
        # the message as searched: "Sollutions In water ..." matched nothing of "solutions"
        if searched is None:
            searched, _ = correct_spelling(message, term_stats)
        else:
            searched = without_preamble(searched)
        extra = history_phrasing(searched, history, term_stats, window=window)
    context: list[str] = []
    if extra is not None and extra.strip() not in {q.strip() for q in queries}:
        queries.append(extra)
        weights.append(C.HISTORY_PHRASING_WEIGHT)
        context.append(extra)
    for extra, weight in (
        (context_query(message, resolution, history), C.CONTEXT_QUERY_WEIGHT),
        (reply_phrasing(message, resolution, history), C.REPLY_PHRASING_WEIGHT),
    ):
        if extra is not None and extra.strip() not in {q.strip() for q in queries}:
            queries.append(extra)
            weights.append(weight)
            context.append(extra)
    if resolution.withheld:
        # the referent was left as typed: what it points back to is in the conversation's
        # wording, which is then evidence too (`conversation.gating`)
        context = []
    return Phrasings(tuple(queries), tuple(weights), context=tuple(context))


def reply_phrasing(message: str, resolution: Resolution, history: Sequence[Turn]) -> str | None:
    """`message`, then the first REPLY_PHRASING_WORDS words of the last reply, for a message
    whose referent the resolver bound; None otherwise. A message read as self-contained
    gets none: the last reply is then the topic it may be leaving."""
    if C.REPLY_PHRASING_WEIGHT <= 0 or not resolution.bindings:
        return None
    replies = [t.content for t in history if t.role == "assistant" and t.content.strip()]
    if not replies:
        return None
    words = strip_citations(replies[-1]).split()[: C.REPLY_PHRASING_WORDS]
    return f"{message.strip()}\n{' '.join(words)}"


def context_query(message: str, resolution: Resolution, history: Sequence[Turn]) -> str | None:
    """The last CONTEXT_USER_TURNS user turns, then `message` (its preamble dropped), for a
    message the embedded resolver resolved (the gate asked for it: "none" is a message it
    read as self-contained); None on a first turn. Only the embedded resolver's turns get
    it: that is where it was measured (concat's own query is this already)."""
    if C.CONTEXT_QUERY_WEIGHT <= 0 or resolution.resolver != "embedded":
        return None
    users = [
        t.content
        for i, t in enumerate(history)
        if t.role == "user" and t.content.strip() and names_a_subject(history, i)
    ]
    if not users:
        return None
    return "\n".join([*users[-C.CONTEXT_USER_TURNS :], message])


def _typed_is_noise(message: str, resolution: Resolution) -> bool:
    """Words that only point ("within how long?", "the difference between the last two",
    "how much is it?") or repair ("oh I meant saturn"): searched as typed they match any
    "within 30 days", "you pay the difference", price or page on Saturn, and what they point
    at, bound for sure, is in the resolved query."""
    if "repair" in resolution.passes:
        return True  # "why can't you answer?" matches any page that says "answer"
    if "subject" in resolution.passes:
        # the gate found it less specific than its subject (conversation/subject.py): "how
        # much notice?" alone ranked every page on notice above the sabbatical's
        return True
    if is_wh_fragment(message) or _switches_topic(message, resolution):
        return True  # a switch: "what about" searched as typed is conversation, not subject
    ellipsis = find_ellipsis(message)
    if ellipsis is not None and is_repair(ellipsis.opener):
        # "oh I meant saturn", resolved as the previous question about saturn: the
        # fragment alone finds whatever says saturn
        return bool({"ellipsis", "carry"} & set(resolution.passes))
    refs = find_referents(message)
    replaced = set(resolution.bindings) - set(resolution.cues)  # a cue replaced nothing
    if not refs or not all(r.text in replaced for r in refs):
        return False
    if all(r.kind is ReferentKind.ORDINAL for r in refs):
        return True
    rest = message  # "how much is it?": nothing but the pointer, which matches any price
    for r in sorted(refs, key=lambda r: -r.start):
        rest = rest[: r.start] + " " + rest[r.end :]
    return not content_words(rest)


def _switches_topic(message: str, resolution: Resolution) -> bool:
    """ "What about <a subject of its own>?", which the resolver searches as that subject."""
    if resolution.bindings:
        return False
    ellipsis = find_ellipsis(message)
    return (
        ellipsis is not None
        and ellipsis.kind is EllipsisKind.SUBJECT
        and resolution.query.strip() in (message.strip(), ellipsis.fragment)
    )


def history_phrasing(
    message: str,
    history: Sequence[Turn],
    term_stats: TermStatsLookup | None = None,
    *,
    window: int = 3,
) -> str | None:
    """The message followed by the user's last and first turns (or their salient phrases);
    None on a first turn or when the user's turns offer nothing the message lacks."""
    if C.HISTORY_PHRASING_WEIGHT <= 0 or not any(t.role == "user" for t in history):
        return None
    turns = [
        Turn(t.role, strip_citations(t.content))
        for i, t in enumerate(history)
        if t.role == "user" and names_a_subject(history, i)
    ]
    if not turns:
        return None
    if C.HISTORY_PHRASING == "turns":  # the user's last and first turns, whole
        kept = dict.fromkeys(t.content.strip() for t in (turns[-1], turns[0]))
        return " ".join([message.strip(), *kept])
    salience = Salience(term_stats)
    salience.prime([message, *(t.content for t in turns[-window:]), turns[0].content])
    own = {stem(w) for w in content_words(message)}
    user = [
        c
        for c in collect_candidates(turns, salience, window=window)
        if not set(c.stems) <= own and c.score >= C.MIN_ANTECEDENT
    ]
    if not user:
        return None
    last = max(c.turn for c in user)
    picked = [max((c for c in user if c.turn == last), key=lambda c: c.score)]
    for c in user:  # best first: then the best phrase of another turn
        if len(picked) >= C.HISTORY_PHRASES:
            break
        if not set(c.stems) & {s for p in picked for s in p.stems}:
            picked.append(c)
    return " ".join([message.strip(), *(c.text for c in picked)])
