"""A first question too short to say which of several things in the documents it means.

"Is it paid?", "Who do I report it to?" (a pronoun with nothing before it to point at),
"How many days do I get?", "How much notice do I need to give?" (a quantity of something
several policies state): a new user's first question to a handbook often names no policy,
and the top passages come from several documents that each fit. Quoting the best one
answers a question the user may not have asked, so `answer.clarify.ask_back` asks which
one, offering the passages' subjects.

One signal, read from the message and the passages, no word list of its own:

- the conversation has not started (a follow-up's pronoun is the resolver's to bind; a
  follow-up's bare question carries the conversation's topic) and the resolver bound
  nothing;
- the message has at most `MAX_WORDS` content words, so there is no room for a word
  that tells the subjects apart;
- it points at something it does not name (a bare pronoun or demonstrative: "it",
  "they", "this"), or asks for a quantity (`stated.asked_value`) while every one of
  its content words occurs in the passages of two or more of the top subjects and none
  names the best one ("How much vacation do I get?" is answered from "Vacation and Sick
  Leave", "What's the bereavement policy?" from the one document that says
  "bereavement").

Chosen on the Clef handbook (bench/data/clef_handbook, 4 of its 10 UNDERSPECIFIED turns
asked, none of its 97 answerable ones); measured on the TTS handbook and MTRAG-UN (no
first turn there fits) in the handbook trials (bench/results/missed_askbacks.md says which
gate stops each turn it misses).
"""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.answer import stated
from tellmemore.conversation.referents import ReferentKind, find_referents
from tellmemore.conversation.text import content_words, stem
from tellmemore.types import Hit, Resolution, Turn

MAX_WORDS = 2
"""Content words a message may have and still name nothing that picks a subject
(chosen on the Clef handbook: "Who will I report to?" has one and is answered, because
it points at nothing; "How many stock options do new employees get?" has four)."""

_BARE = {ReferentKind.PRONOUN, ReferentKind.POSSESSIVE, ReferentKind.PERSON}


def _words(message: str) -> set[str]:
    return {stem(w) for w in content_words(message)}


def points_at_nothing(message: str) -> bool:
    """A bare pronoun or demonstrative ("it", "their", "this"), not a description ("this
    county" is `answer.unanchored`'s)."""
    return any(
        r.kind in _BARE or (r.kind is ReferentKind.DEMONSTRATIVE and " " not in r.text.strip())
        for r in find_referents(message)
    )


def candidate(message: str, history: Sequence[Turn], resolution: Resolution) -> str:
    """Why the message may be too vague to answer: "pointer", "quantity", or "" (not a
    first question, something bound, too many words, or neither)."""
    if history or resolution.bindings or len(_words(message)) > MAX_WORDS:
        return ""
    if points_at_nothing(message):
        return "pointer"
    return "quantity" if stated.asked_value(message) is not None else ""


def spread(
    message: str,
    hits: Sequence[Hit],
    names: Sequence[str],
    best: frozenset[str],
) -> bool:
    """Every content word of `message` occurs in the passages of two or more subjects
    (`names`, one per hit, "" for none), and none is a word of the best subject's own
    name (`best`): no word picks one."""
    asked = _words(message)
    if not asked or asked & best:
        return False
    held: dict[str, set[str]] = {}
    for h, name in zip(hits, names, strict=True):
        if name:
            c = h.chunk
            text = " ".join((c.title, *c.section, c.text))
            held.setdefault(name.lower(), set()).update(stem(w) for w in content_words(text))
    return all(sum(w in words for words in held.values()) >= 2 for w in asked)
