"""Retrieve or not: narrow rules for the two cases that need no documents.

Small talk ("thanks a lot!") and requests about the last answer ("can you make
that shorter?") skip retrieval. The rules are narrow on purpose (seed 001): a
wasted search costs milliseconds, a missed search costs a wrong answer, so
anything unrecognised retrieves. "Can you make the refund rule shorter?" names
a topic of its own and retrieves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from tellmemore.analysis import lexicon
from tellmemore.conversation.text import words
from tellmemore.types import Decision, Turn

SMALL_TALK = lexicon.words("small_talk")
"""Words that make a message small talk on their own."""

_THANKS = lexicon.words("thanks")
_FAREWELLS = lexicon.words("farewells")
_GREETINGS = lexicon.words("greetings")

SMALL_TALK_FILLER = lexicon.words("small_talk_filler")
"""Function words allowed around small talk ("thanks a lot", "thank you so much").

Question words and pointer phrases ("what", "the other one") are not here: "thanks,
what about the other one?" is a follow-up, not small talk.
"""

SMALL_TALK_PHRASES = lexicon.words("small_talk_phrases")

EDIT_CUES = lexicon.words("edit_cues")
"""Words that ask to reshape an answer rather than to find something new."""

EDIT_FILLER = lexicon.words("edit_filler")
"""Words allowed around an edit cue; anything else names a topic and retrieves."""

POINTERS = lexicon.words("pointers")


@dataclass(frozen=True)
class DecideResult:
    decision: Decision
    reason: str


def decide(message: str, history: Sequence[Turn]) -> DecideResult:
    """Whether `message` needs retrieval; never raises, defaults to RETRIEVE."""
    ws = words(message.lower().replace("tl;dr", "tldr"))
    if not ws:
        return DecideResult(Decision.RETRIEVE, "no words")
    text = " ".join(ws)
    if text in SMALL_TALK_PHRASES or _is_small_talk(ws):
        return DecideResult(Decision.SMALL_TALK, "small talk")
    if _about_last_answer(ws, history):
        return DecideResult(Decision.ABOUT_LAST_ANSWER, "about the last answer")
    return DecideResult(Decision.RETRIEVE, "retrieve")


def names_a_subject(history: Sequence[Turn], i: int) -> bool:
    """Whether user turn `i` of `history` asked the documents something: small talk and
    requests about the last answer ("make that shorter") name no subject, so later turns
    must not carry their words ("tell me more" searched as "tell me more (shorter, plans)").
    Cheap on any history: both are a few listed words, so a long message is neither and is
    not read, and only the first answer before turn `i` is looked for."""
    message = history[i].content
    if len(message) > _SHORT_REQUEST_CHARS:
        return True
    answer = next(
        (t for t in islice(history, i) if t.role == "assistant" and t.content.strip()), None
    )
    before = [answer] if answer is not None else []
    return decide(message, before).decision is Decision.RETRIEVE


_SHORT_REQUEST_CHARS = 200
"""Longer than any small talk or answer edit `decide` recognises (every word of those is
one of a few dozen listed words)."""


def small_talk_kind(message: str) -> str:
    """What small talk says: "thanks", "bye", "hello", or "ok" for an acknowledgement
    ("ok", "got it", "I see"), which is no greeting."""
    ws = set(words(message.lower()))
    if ws & _THANKS:
        return "thanks"
    if ws & _FAREWELLS or "see you" in message.lower():
        return "bye"
    if ws & _GREETINGS:
        return "hello"
    return "ok"


def _is_small_talk(ws: list[str]) -> bool:
    return any(w in SMALL_TALK for w in ws) and all(
        w in SMALL_TALK or w in SMALL_TALK_FILLER for w in ws
    )


def _about_last_answer(ws: list[str], history: Sequence[Turn]) -> bool:
    if not any(t.role == "assistant" and t.content.strip() for t in history):
        return False
    cue = any(w in EDIT_CUES for w in ws)
    if not cue or not all(w in EDIT_CUES or w in EDIT_FILLER for w in ws):
        return False
    # "in bullet points please" points implicitly; a longer request must point explicitly.
    return len(ws) <= 4 or any(w in POINTERS for w in ws)
