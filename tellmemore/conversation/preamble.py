"""The conversational preamble of a message: words about the conversation, not its subject.

"wow, that sounds great. maybe tell me more about the Office of the Attorney General",
"By the way, how are cyclones on Earth formed?", "Great! One last thing, where can I find
the SDK?". Searched as typed, the preamble is words the dense model reads like any others,
and it pulls passages that sound like chat; the question after it is what the user asks.
A switch marker ("by the way", "changing the subject") also says that the history's topic
is left behind: nothing is carried from it unless a pronoun points back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation.text import COMMON_VERBS, FUNCTION_WORDS, tokenize

_SWITCH = lexicon.pattern("switch")
"""A marker that the user turns to something else."""
INTERJECTIONS = r"ok(?:ay)?|alright|all right|right|well|so|hmm+|great|thanks|cool"
"""Words that open a message without saying anything of its subject (a regex
alternation, shared with `referents.find_ellipsis`)."""
_INTERJECTION = re.compile(rf"(?:{INTERJECTIONS})\s*[,:;.!-]+\s*(?=\S)", re.IGNORECASE)
"""A word that opens a preamble before its marker: "ok, switching topics: ..."."""
_ANOTHER = lexicon.pattern("another")
"""A marker of one more question, on the same topic or not: no switch by itself."""

_REACTION_SENTENCE = lexicon.pattern("reaction_sentence")
"""A short first sentence that ends in "." or "!" ("wow, that sounds great. ...")."""

_REACTION_WORDS = lexicon.words("reaction_words")
"""Words of a reaction to the last answer; "yes"/"no" are left out, since they answer a
question the assistant asked back."""

_ANSWERS = lexicon.words("answers")
"""A sentence with one of these answers the assistant's question: it is no reaction."""

_MIN_REST_TOKENS = 3
"""What follows the preamble must be a question of its own, not a fragment ("Great! Why?")."""


@dataclass(frozen=True)
class Preamble:
    text: str
    """What is dropped: "By the way, "."""
    rest: str
    """The message without it: what the user asks."""
    switches: bool
    """A switch marker was among it: the history's topic is left behind."""


def split_preamble(message: str) -> Preamble | None:
    """The message's leading reaction sentences and switch markers, or None."""
    start = pos = len(message) - len(message.lstrip())
    switches = False
    for _ in range(3):  # "Great! One last thing, where ...": a reaction, then a marker
        interjection = _INTERJECTION.match(message, pos)
        after = interjection.end() if interjection is not None else pos
        switch = _SWITCH.match(message, after) or _SWITCH.match(message, pos)
        if switch is not None:
            pos, switches = switch.end(), True
            continue
        another = _ANOTHER.match(message, after) or _ANOTHER.match(message, pos)
        if another is not None:
            pos = another.end()
            continue
        sentence = _REACTION_SENTENCE.match(message, pos)
        if sentence is None or not _only_reaction(sentence.group(0)):
            break
        pos = sentence.end()
    rest = message[pos:].strip()
    if pos == start or len(tokenize(rest)) < _MIN_REST_TOKENS:
        return None
    return Preamble(text=message[:pos], rest=rest, switches=switches)


def _only_reaction(sentence: str) -> bool:
    """Every word says how the answer landed ("I see.", "ok, you don't get it."), none
    names a thing ("Ok, I have the Pro plan." is kept)."""
    words = [t.low for t in tokenize(sentence)]
    if set(words) & _ANSWERS:
        return False  # "Yes. The monthly one.": the answer to a question asked back
    return bool(words) and all(
        w in _REACTION_WORDS or w in FUNCTION_WORDS or w in COMMON_VERBS for w in words
    )


def without_preamble(message: str) -> str:
    """The message with its preamble dropped: what a self-contained message searches."""
    preamble = split_preamble(message)
    return message if preamble is None else preamble.rest
