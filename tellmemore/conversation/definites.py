"""Definite descriptions that point back: "the projector" after "a pinhole projector".

A bare "the <noun>" whose noun is the head of a longer phrase in the user's last two
turns names that thing, as a pronoun would, though the gate would call the message
self-contained ("how can I make the projector?"). Only the user's own turns are read:
on the MTRAG dev conversations the rule fired on 4 follow-ups, all bound as the human
rewrite did; reading the answers too fired on 19, only 6 of them right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation.binding import Phrase, phrases
from tellmemore.conversation.text import (
    COMMON_VERBS,
    FUNCTION_WORDS,
    RELATIONAL_NOUNS,
    content_words,
    norm,
    stem,
    tokenize,
)
from tellmemore.types import Turn

_THE = lexicon.pattern("the")
USER_TURNS = 2
"""How many of the user's latest turns may hold the longer phrase."""


@dataclass(frozen=True)
class Definite:
    text: str
    """As written in the message: "the projector", "the Patriot's"."""
    word: str
    """The head word as written ("projector", "Patriot's")."""
    start: int
    """Offset of the head word in the message."""
    antecedent: Phrase


def find_definite(message: str, history: Sequence[Turn]) -> Definite | None:
    """The first bare definite description of `message` that a longer phrase of the user's
    recent turns names, or None."""
    users = [t.content for t in history if t.role == "user"][-USER_TURNS:]
    if not users:
        return None
    toks = tokenize(message)
    heads: list[tuple[re.Match[str], str]] = []
    for m in _THE.finditer(message):
        word = m.group(1)
        low = norm(word)
        if low in FUNCTION_WORDS:
            continue
        possessive = low != word.lower().replace("’", "'")
        after = next((t for t in toks if t.start >= m.end()), None)
        if after is not None and not possessive and _names_more(norm(after.text)):
            continue  # "the query API": the word is a modifier, not the head
        heads.append((m, stem(low)))
    if not heads:
        return None  # the common case: no phrase of the history needs reading
    own = {stem(w) for w in content_words(message)}
    texts = list(reversed(users))
    if any(norm(m.group(1)) in RELATIONAL_NOUNS for m, _ in heads):
        # "how much is the fee?" after an answer that named "a late fee": an attribute
        # noun is always of something just said, so the last answer counts too
        texts += [t.content for t in history[-1:] if t.role == "assistant"]
    longer = [
        p for text in texts for p in phrases(text) if len(p.stems) >= 2 and not set(p.stems) <= own
    ]
    for m, head in heads:
        for p in longer:
            if p.stems[-1] == head:
                return Definite(m.group(0), m.group(1), m.start(1), p)
    return None


def _names_more(word: str) -> bool:
    """The word after "the X" continues the noun phrase ("the query API"), unless it is a
    function word or a verb ("how is the fee calculated?", "does the pass cover ...")."""
    return word not in FUNCTION_WORDS and word not in COMMON_VERBS and not word.endswith("ed")
