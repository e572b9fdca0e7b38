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

from tellmemore.conversation.text import words
from tellmemore.types import Decision, Turn

SMALL_TALK = frozenset(
    """
        hello hi hey hiya howdy greetings yo morning afternoon evening night good thanks
        thank thx ty cheers appreciated appreciate great cool nice awesome perfect
        excellent wonderful brilliant lovely fine ok okay k alright got bye goodbye cya
        later see welcome helpful understood sure noted gotcha
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that make a message small talk on their own."""

_THANKS = frozenset("thanks thank thx ty cheers appreciated appreciate".split())  # noqa: SIM905
_FAREWELLS = frozenset("bye goodbye cya later".split())  # noqa: SIM905
_GREETINGS = frozenset(
    "hello hi hey hiya howdy greetings yo morning afternoon evening".split()  # noqa: SIM905
)

SMALL_TALK_FILLER = frozenset(
    """
        a an the so very much lot lots for that this it you your all again and too
        really indeed just well oh ah that's it's is was have nice day soon see u there
        everyone folks i
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Function words allowed around small talk ("thanks a lot", "thank you so much").

Question words and pointer phrases ("what", "the other one") are not here: "thanks,
what about the other one?" is a follow-up, not small talk.
"""

SMALL_TALK_PHRASES = frozenset({"how are you", "how are you doing", "how's it going"})

EDIT_CUES = frozenset(
    """
        shorter shorten longer lengthen simpler simplify simplified rephrase reword
        rewrite paraphrase summarise summarize summary tldr tl;dr concise briefer brief
        condense bullet bullets bulleted points list table translate repeat clearer
        clarify simply easier
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that ask to reshape an answer rather than to find something new."""

EDIT_FILLER = frozenset(
    """
        can could would will you please make it that this your the answer response reply
        last previous above a an in into as to me for more less bit little just again
        say put write turn give show format into form simple plain english terms words
        and with of them those points so explain version
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words allowed around an edit cue; anything else names a topic and retrieves."""

POINTERS = frozenset({"that", "it", "this", "answer", "response", "reply", "them", "those"})


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
