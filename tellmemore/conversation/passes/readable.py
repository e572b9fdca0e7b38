"""The history as the resolver reads it: citations and markup stripped, typos fixed, and a
reply to a clarifying question read as the option it chose; and how a reply chooses."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import (
    TermStatsLookup,
    phrases,
    same_head_pair,
)
from tellmemore.conversation.realize import (
    parse_clarification,
)
from tellmemore.conversation.referents import (
    ReferentKind,
    find_referents,
)
from tellmemore.conversation.spelling import correct_spelling
from tellmemore.conversation.text import (
    answer_body,
    content_words,
    readable,
    stem,
    strip_citations,
)
from tellmemore.types import Turn


def _readable(
    history: list[Turn],
    window: int,
    term_stats: TermStatsLookup | None = None,
    prepared: Set[int] = frozenset(),
) -> tuple[list[Turn], list[int]]:
    """The history with citations and markup stripped (`text.readable`), an answer's group
    titles dropped (`text.answer_body`), the user's typos fixed (as the turn fixed them for
    its own search: "climage" would otherwise be the rarest, most salient word of the
    conversation) and clarification replies read as their option, on the turns the
    resolver reads; and those turns' indices: the first exchange and the last
    max(READ_TURNS, 2 x (window + 2)) turns (candidates, selector, ellipsis chain), each cut
    to its first MAX_READ_CHARS characters. A long session, or a huge
    pasted turn, costs no more per turn. A turn keeps its stored resolution."""
    tail = max(C.READ_TURNS, 2 * (window + 2))
    read = sorted({*range(min(2, len(history))), *range(max(0, len(history) - tail), len(history))})
    out = list(history)
    for i in read:
        if i in prepared:
            continue
        clean = read_form(out[i].role, out[i].content)
        if clean != out[i].content:
            out[i] = replace(out[i], content=clean)
        if out[i].role == "user" and term_stats is not None:
            fixed, _ = correct_spelling(out[i].content, term_stats)
            if fixed != out[i].content:
                out[i] = replace(out[i], content=fixed)
    return _chosen_options(out, read), read


def read_form(role: str, content: str) -> str:
    """A turn as the resolver reads it: its first MAX_READ_CHARS characters, an answer
    without its group titles, citations and markup stripped (what `prepare` analyses)."""
    text = content[: C.MAX_READ_CHARS]
    return readable(answer_body(text) if role == "assistant" else text)


def _chosen_options(history: list[Turn], read: list[int]) -> list[Turn]:
    """A reply to a clarifying question ("enterprise" after "Do you mean Standard or
    Enterprise escalation?") reads as the option it chose ("Enterprise escalation"): the
    subject later pronouns point at."""
    out = history
    for i in read:
        if i == 0 or out[i].role != "user" or out[i - 1].role != "assistant":
            continue
        options = parse_clarification(out[i - 1].content)
        if not options or len(content_words(out[i].content)) > C.CLARIFY_REPLY_WORDS:
            continue
        chosen = named_options(out[i].content, options)
        if len(chosen) == 1:
            out[i] = replace(out[i], content=chosen[0])
    return out


def named_options(reply: str, options: list[str]) -> list[str]:
    """The options whose own words (not those all options share) the reply says."""
    said = {stem(w) for w in content_words(reply)}
    words = [set(map(stem, content_words(o))) for o in options]
    shared = set.intersection(*words)
    return [o for o, ws in zip(options, words, strict=True) if (ws - shared) & said]


def offered_choice(answer: str) -> list[str] | None:
    """The alternatives an answer asks the user to choose between: our own "Do you mean X
    or Y?", or two phrases of one head in an answer that asks which one is meant."""
    options = parse_clarification(answer)
    if options or not _ASKS_TO_CHOOSE.search(answer):
        return options
    pair = same_head_pair(phrases(strip_citations(answer)))
    return [pair[0].text, pair[1].text] if pair is not None else None


def chosen_option(reply: str, options: list[str]) -> str | None:
    """The option a short reply picks by one of its own words ("enterprise"); "the regular
    one", naming none of them, is that kind of the options' shared head ("regular
    Instruction Permit")."""
    named = named_options(reply, options)
    if named:
        return named[0] if len(named) == 1 else None
    one = next((r for r in find_referents(reply) if r.kind == ReferentKind.ONE), None)
    shared = set.intersection(*(set(map(stem, content_words(o))) for o in options))
    if one is None or not one.modifier or stem(one.modifier) in shared:
        return None
    tail = _shared_tail(options)
    return f"{one.modifier} {tail}" if tail else None


def _shared_tail(options: list[str]) -> str:
    """The words every option ends with: "Instruction Permit" of "California Instruction
    Permit" and "California Motorcycle Instruction Permit"."""
    split = [o.split() for o in options]
    n = 0
    while all(len(s) > n for s in split) and len({s[-1 - n].lower() for s in split}) == 1:
        n += 1
    return " ".join(split[0][len(split[0]) - n :]) if n else ""


_ASKS_TO_CHOOSE = lexicon.pattern("asks_to_choose")
"""An answer that asks the user to choose ("If you tell me which type of permit ...")."""
