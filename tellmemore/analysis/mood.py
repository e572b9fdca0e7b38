"""Does a message ask something, or only say something?

"So, no game meat from now on!" and "What a terrible war!" are remarks: a rule that
replies "nothing about game meat" to them answers a question nobody asked. A message
*asks* when:

- it holds a question mark, or repairs the previous question ("I meant sick leave": that
  question again);
- its last sentence is not closed by "." or "!" (typed as a query: "gym stipend", "where
  does water go after it enters a storm drain");
- a sentence, past its interjections ("so", "oh", "well", "no"), opens with a question
  word or an auxiliary ("what", "is", "can"), or a request: a request's verb ("list",
  "please explain"), a verb and its object "me" ("tell me", "show us");
- a sentence wants to know: "to" and a verb of knowing ("I would like to know ..."), such
  a verb before a question word ("I'm not sure I understand what X is"), or "you", a
  verb and its object "me" ("what can you tell me about ...");
- a sentence closed by "." has no verb: a topic typed as one ("New Zealand climate.").

Anything else is a remark: every sentence a clause that states, or an exclamation ("!":
there only a request asks). Only the lexicon's lists are read (`question_start`,
`imperatives`, `interjections`, `reaction_words`, `object_pronouns`, `saying`,
`auxiliaries`, `common_verbs`, `repair`). A request worded as a plain statement ("I am
interested in the parking subsidy.") reads as a remark, so a rule gated on `asks` misses
it rather than answering a remark.
"""

from __future__ import annotations

import re
from itertools import dropwhile, pairwise

from tellmemore.analysis import lexicon
from tellmemore.analysis.tokens import norm, tokenize

_PIECES = re.compile(r"(?<=[.!?…])\s+")
"""Where a sentence ends, whatever case the next one opens in ("ok. what about X")."""
_CLOSES = (".", "!", "…")
_TRAILING = "\"'”’)]*_ "


def _words(name: str) -> frozenset[str]:
    return lexicon.words(name)


def _opens_asking(words: list[str], exclaims: bool) -> bool:
    """Past its interjections the sentence opens with a question word (not after "!":
    "What a war!"), a request's verb ("list", "please explain") or a verb whose object
    is the asker ("tell me")."""
    skipped = _words("interjections") | _words("reaction_words")
    rest = list(dropwhile(lambda w: w in skipped, words))
    if not rest:
        return False
    if not exclaims and rest[0] in _words("question_start"):
        return True
    if any(w in _words("imperatives") for w in rest[:2]):
        return True
    objects = _words("object_pronouns") - _words("subject_pronouns")
    return len(rest) > 1 and rest[1] in objects and rest[0] not in objects


def _wants_to_know(words: list[str]) -> bool:
    """ "to" and a verb of knowing ("I would like to know", "I want to understand"), such
    a verb and a question word ("I'm not sure I understand what X is"), or "you", a verb
    and the asker ("..., what can you tell me about X.")."""
    saying, wh = _words("saying"), _words("question_words")
    objects = _words("object_pronouns") - _words("subject_pronouns")
    if any((a == "to" and b in saying) or (a in saying and b in wh) for a, b in pairwise(words)):
        return True
    return any(a == "you" and c in objects for a, c in zip(words, words[2:], strict=False))


def _has_verb(words: list[str]) -> bool:
    return any(w in _words("auxiliaries") or w in _words("common_verbs") for w in words)


def asks(message: str) -> bool:
    """The message is a question or a request, not only a statement or a remark."""
    text = message.strip()
    if not text or "?" in text or lexicon.pattern("repair").match(text):
        return True
    pieces = [p for p in _PIECES.split(text) if p.strip()]
    if not pieces[-1].rstrip(_TRAILING).endswith(_CLOSES):
        return True  # typed as a query, not closed as a sentence
    for piece in pieces:
        words = [norm(t.text) for t in tokenize(piece)]
        exclaims = piece.rstrip(_TRAILING).endswith("!")
        if _opens_asking(words, exclaims) or _wants_to_know(words):
            return True
        if words and not exclaims and not _has_verb(words):
            return True  # a topic typed as a sentence: "New Zealand climate."
    return False
