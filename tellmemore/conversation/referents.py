"""Find what a message points back at: referents ("that one", "it", "the second") and
ellipsis or bridging openers ("and on holidays?", "what about the enterprise one").

Pure pattern matching over tokens with character spans, so a resolver can splice
the antecedent into the message without touching anything else it contains
(codes, numbers and dates survive because they are never part of a referent).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.ellipses import (
    _STILL_TRUE_RE,
    Ellipsis,
    EllipsisKind,
    find_ellipsis,
    is_bare_time,
    is_repair,
    is_wh_fragment,
    no_answer_complaint,
    still_true,
)
from tellmemore.conversation.text import (
    COMMON_VERBS,
    FUNCTION_WORDS,
    TIME_WORDS,
    Token,
    tokenize,
)


class ReferentKind(enum.StrEnum):
    PRONOUN = "pronoun"
    """it, they, them, that (alone): the topic under discussion."""
    POSSESSIVE = "possessive"
    """its, their: the topic, in the genitive."""
    PERSON = "person"
    """he, she, his, her: a named person."""
    ONE = "one"
    """that one, this one, the enterprise one: one of several alternatives."""
    WHICH = "which"
    """which one, which of them: asks to compare the alternatives."""
    OTHER = "other"
    """the other one: the alternative not in focus."""
    ORDINAL = "ordinal"
    """the second one, the last option, the former: an item of the last answer's list."""
    DEMONSTRATIVE = "demonstrative"
    """that tier, those missions: a noun the history names more fully."""


@dataclass(frozen=True)
class Referent:
    text: str
    start: int
    end: int
    kind: ReferentKind
    modifier: str | None = None
    """A word that narrows it: "enterprise" in "the enterprise one", "tier" in "that tier"."""
    ordinal: int | None = None
    """1-based list position; -1 = last."""
    count: int = 1
    """How many items from that position: "the last two" is (-1, 2), "the first three" (1, 3)."""


ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "fifth": 5, "5th": 5, "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8,
    "8th": 8, "ninth": 9, "9th": 9, "tenth": 10, "10th": 10, "last": -1, "final": -1,
    "former": 1, "latter": 2,
}  # fmt: skip
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
"""Counts after "the first" / "the last" that point at several list items."""
NUMBERED_HEADS = lexicon.words("numbered_heads")
"""Heads a number after which points at a list position: "step 3", "option two". Not
"level 3" or "tier 2": those are names the documents use as they are."""
_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, **{str(n): n for n in range(1, 21)},
}  # fmt: skip
ORDINAL_HEADS = lexicon.words("ordinal_heads")
TIME_HEADS = lexicon.words("time_heads")
"""Heads after "the first/last" that make a date phrase, not a list pointer."""

PRONOUNS = {
    "it": ReferentKind.PRONOUN, "they": ReferentKind.PRONOUN, "them": ReferentKind.PRONOUN,
    "its": ReferentKind.POSSESSIVE, "their": ReferentKind.POSSESSIVE,
    "he": ReferentKind.PERSON, "she": ReferentKind.PERSON, "him": ReferentKind.PERSON,
    "his": ReferentKind.PERSON, "her": ReferentKind.PERSON, "hers": ReferentKind.PERSON,
}  # fmt: skip
"""No reflexives: "itself" is bound inside its own clause ("does it protect itself": the
referent is "it") or emphatic after its own noun ("the Attorney General itself")."""
DEMONSTRATIVES = lexicon.words("demonstratives")
_CONTRACTED_IT = lexicon.words("contracted_it")
_DO = lexicon.words("referents_do")
_HOW = lexicon.words("means_prepositions")
"""Words after "do it" that say how the action is done ("do it using Carthage")."""

_DUMMY_IT_NEXT = lexicon.words("dummy_it_next")
""""is it possible to ...", "if it rains": the dummy "it" points at nothing."""
_TIME_IT = TIME_WORDS | {"late", "early", "midnight", "noon"}
""""what if it's a weekend?", "it is Sunday": the time "it" says, no thing."""
_RAISING = lexicon.words("raising")
""""It seems NASA has ...": dummy unless "to" follows ("it seems to work": the thing)."""

_PRONOUN_AFTER_DEMONSTRATIVE = lexicon.words("pronoun_after_demonstrative")
_TAKES_BARE_VERB = lexicon.words("binding_do")
"""After "can", "does", "will": "that" is the subject and the clause's last word its verb
("how long can that last?"), not the demonstrative's noun."""
_NOT_A_HEAD = FUNCTION_WORDS | COMMON_VERBS
_PARTICLES = lexicon.words("particles")
_SAYING = lexicon.words("saying")
"""Verbs whose "that" is what was said ("I know that"), never a thing of the documents."""

_PREPOSITIONS = lexicon.words("compose_prepositions")


_SAID_OF_IT = lexicon.words("said_of_it")


def _typed_for_it_is(nxt: str | None, nxt2: str | None) -> bool:
    """ "its missed?", "its free": "it's" typed without its apostrophe, not a possessive
    ("its limited edition": a noun follows)."""
    if nxt is None or not (nxt.endswith("ed") or nxt in _SAID_OF_IT):
        return False
    return nxt2 is None or nxt2 in FUNCTION_WORDS


def find_referents(message: str) -> list[Referent]:
    """Referents in `message`, left to right, non-overlapping."""
    toks = tokenize(message)
    out: list[Referent] = []
    i = 0
    claim = _STILL_TRUE_RE.match(message.strip())
    if claim is not None:  # "is that also true for ...": the answer's claim, an ellipsis
        lead = len(message) - len(message.lstrip())
        while i < len(toks) and toks[i].start < lead + claim.end():
            i += 1
    while i < len(toks):
        ref = _referent_at(message, toks, i)
        if ref is None:
            i += 1
            continue
        out.append(ref)
        while i < len(toks) and toks[i].start < ref.end:
            i += 1
    return out


def _span(message: str, toks: list[Token], i: int, j: int, kind: ReferentKind,
          modifier: str | None = None, ordinal: int | None = None) -> Referent:  # fmt: skip
    return Referent(message[toks[i].start : toks[j].end], toks[i].start, toks[j].end,
                    kind, modifier, ordinal)  # fmt: skip


def _referent_at(message: str, toks: list[Token], i: int) -> Referent | None:
    w = toks[i].low
    nxt = toks[i + 1].low if i + 1 < len(toks) else None
    nxt2 = toks[i + 2].low if i + 2 < len(toks) else None
    gap = i + 1 < len(toks) and _boundary_between(message, toks[i], toks[i + 1])
    if w == "which" and nxt in ("one", "ones"):
        return _span(message, toks, i, i + 1, ReferentKind.WHICH)
    if w == "which" and nxt == "of" and nxt2 in ("them", "these", "those", "the"):
        return _span(message, toks, i, i + 2, ReferentKind.WHICH)
    if w == "which" and _compares(toks, i):
        return _span(message, toks, i, i, ReferentKind.WHICH)
    if w == "the" and nxt == "other":
        # "the other one", "the other option"; "the other parts of the world" is no pointer
        if nxt2 in ORDINAL_HEADS:
            mod = None if nxt2 in ("one", "ones") else nxt2
            return _span(message, toks, i, i + 2, ReferentKind.OTHER, modifier=mod)
        if nxt2 is None or nxt2 in FUNCTION_WORDS:
            return _span(message, toks, i, i + 1, ReferentKind.OTHER)
        return None
    if w == "the" and nxt in ("former", "latter"):
        return _span(message, toks, i, i + 1, ReferentKind.ORDINAL, None, ORDINALS[nxt])
    if w == "the" and nxt in ("first", "last") and nxt2 in _COUNTS:
        # "the last two", "the first three options"; not "the first two years"
        after = toks[i + 3].low if i + 3 < len(toks) else None
        ref = None
        if after in ORDINAL_HEADS:
            ref = _span(message, toks, i, i + 3, ReferentKind.ORDINAL, None, ORDINALS[nxt])
        elif after is None or after in FUNCTION_WORDS or gap2(message, toks, i + 2):
            ref = _span(message, toks, i, i + 2, ReferentKind.ORDINAL, None, ORDINALS[nxt])
        return None if ref is None else replace(ref, count=_COUNTS[nxt2])
    if w == "the" and nxt in ORDINALS:
        # "the second one", "the last option", "the former"; not "the final episode"
        head = nxt2
        if head in ORDINAL_HEADS:
            mod = None if head in ("one", "ones") else head
            return _span(message, toks, i, i + 2, ReferentKind.ORDINAL, mod, ORDINALS[nxt])
        if head is None or head in FUNCTION_WORDS or gap2(message, toks, i + 1):
            return _span(message, toks, i, i + 1, ReferentKind.ORDINAL, None, ORDINALS[nxt])
        return None
    if w in NUMBERED_HEADS and nxt in _NUMBERS and not gap:
        # "what's step 3?", "and option two?": the numbered item of the last list
        prev = toks[i - 1].low if i > 0 else None
        if prev not in ORDINALS and (nxt2 is None or not nxt2.isdigit()):
            return _span(message, toks, i, i + 1, ReferentKind.ORDINAL, w, _NUMBERS[nxt])
    if w in ("that", "this", "the") and nxt in ("one", "ones") and not gap:
        return _span(message, toks, i, i + 1, ReferentKind.ONE)
    if w in ("that", "this", "the") and nxt2 in ("one", "ones") and nxt not in FUNCTION_WORDS:
        return _span(message, toks, i, i + 2, ReferentKind.ONE, modifier=nxt)
    prev_low = toks[i - 1].low if i > 0 else None
    if w in ("it", "that", "this") and prev_low in _DO and (nxt is None or gap or nxt in _HOW):
        return None  # "how can I do that?", "do it using Carthage": the action, not a thing
    if w == "it" and prev_low in ("knew", "guessed") and (nxt is None or gap):
        return None  # "Of course I knew it!": an exclamation, no thing of the documents
    if w == "its" and _typed_for_it_is(nxt, nxt2):
        return _span(message, toks, i, i, ReferentKind.PRONOUN)  # "if its missed": "it's"
    if w in _CONTRACTED_IT:  # "if it's missed": "it" + "is"
        if nxt in _DUMMY_IT_NEXT or _it_takes_to(toks, i) or _says_a_time(toks, i + 1):
            return None
        return _span(message, toks, i, i, ReferentKind.PRONOUN)
    if w in PRONOUNS:
        if w == "it" and (
            nxt in _DUMMY_IT_NEXT
            or _it_takes_to(toks, i)
            or (nxt in _RAISING and nxt2 != "to")
            or (nxt in ("is", "was") and _says_a_time(toks, i + 2))
        ):
            return None
        if w == "her" and nxt and nxt not in _NOT_A_HEAD and not gap:
            return _span(message, toks, i, i, ReferentKind.PERSON)
        return _span(message, toks, i, i, PRONOUNS[w])
    if w in DEMONSTRATIVES:
        before = toks[i - 1] if i > 0 else None
        # "set that up", "turn this off": the object of a phrasal verb
        phrasal = before is not None and before.low not in FUNCTION_WORDS and nxt in _PARTICLES
        if (
            w == "that"
            and before is not None
            and before.low not in FUNCTION_WORDS
            and not phrasal
            and not _boundary_between(message, before, toks[i])
        ):
            return None  # "football that is popular", "know that ...": relative/complement
        if w == "that" and before is not None and before.low in _SAYING and (nxt is None or gap):
            return None  # "I know that", "I already read that": what was said
        if nxt in _DUMMY_IT_NEXT or _comments_on_the_answer(message, toks, i):
            return None  # "is that true?", "That is too bad.": the last answer, no entity
        if nxt is None or gap:
            return _span(message, toks, i, i, ReferentKind.PRONOUN)
        ends = nxt2 is None or gap2(message, toks, i + 1)
        if (
            nxt in _PRONOUN_AFTER_DEMONSTRATIVE
            or (before is not None and before.low in _TAKES_BARE_VERB and ends)  # "can that last?"
            or phrasal
            or nxt in ("a", "an")
            or (nxt, nxt2)
            == (
                "the",
                "same",
            )
        ):
            return _span(message, toks, i, i, ReferentKind.PRONOUN)
        if nxt not in _NOT_A_HEAD:
            if _names_itself(message, toks, i + 1):
                return None  # "this Deep Impact mission": the phrase names its subject
            return _span(message, toks, i, i + 1, ReferentKind.DEMONSTRATIVE, modifier=nxt)
        return None
    return None


def _names_itself(message: str, toks: list[Token], j: int) -> bool:
    """The noun phrase after a demonstrative is a name ("this Deep Impact mission") or long
    enough to stand alone ("this deep impact program")."""
    if toks[j].text[:1].isupper():
        return True
    n = 0
    while j + n < len(toks) and toks[j + n].low not in _NOT_A_HEAD:
        if n and _boundary_between(message, toks[j + n - 1], toks[j + n]):
            break
        n += 1
    return n >= C.NAMING_RUN


_DEIXIS_VERBS = lexicon.words("deixis_verbs")


def _comments_on_the_answer(message: str, toks: list[Token], i: int) -> bool:
    """ "That is too bad. ...", "That was not my question. ...", "That means ...": a
    sentence-initial that/this commenting on the last answer, followed by a sentence of
    its own, is discourse deixis: it points at no entity to search for."""
    if toks[i].low not in ("that", "this") or i + 1 >= len(toks):
        return False
    nxt = toks[i + 1].low
    if i > 0 and toks[i - 1].low in ("does", "did") and nxt in ("mean", "imply"):
        return True  # "So does that mean I should stick to the Lite plan?"
    if not _starts_sentence(message, toks, i) or nxt not in _DEIXIS_VERBS:
        return False
    if nxt in ("means", "meant", "sounds", "seems"):
        return True  # "that sounds great", "that means ...": about the answer, not a thing
    rest = message[toks[i].end :]
    return _NEXT_SENTENCE.search(rest) is not None


_NEXT_SENTENCE = lexicon.pattern("next_sentence")
"""Another sentence follows: after ". " or after dots with no space ("that is ok...but")."""


_INTERJECTIONS = lexicon.words("interjections")


def _starts_sentence(message: str, toks: list[Token], i: int) -> bool:
    """Token i opens a sentence, perhaps after an interjection ("well, that is ok")."""
    j = i
    while j > 0 and toks[j - 1].low in _INTERJECTIONS:
        j -= 1
    return j == 0 or any(c in ".?!" for c in message[toks[j - 1].end : toks[j].start])


def gap2(message: str, toks: list[Token], i: int) -> bool:
    """Clause punctuation right after token i."""
    return i + 1 < len(toks) and _boundary_between(message, toks[i], toks[i + 1])


def _boundary_between(message: str, a: Token, b: Token) -> bool:
    """Clause punctuation between two tokens ("about that? and ...")."""
    return any(c in ",.;:?!()" for c in message[a.end : b.start])


_COMPARATIVES = lexicon.words("comparatives")
_COMPARE_VERBS = lexicon.words("compare_verbs")


def _compares(toks: list[Token], i: int) -> bool:
    """ "which is better for a tourist?": a short question comparing the alternatives just
    discussed, with no subject of its own."""
    rest = [t.low for t in toks[i + 1 :]]
    return (
        bool(rest)
        and rest[0] in _COMPARE_VERBS
        and len(rest) <= C.COMPARE_WORDS
        and any(w in _COMPARATIVES for w in rest[:3])
    )


def _says_a_time(toks: list[Token], j: int) -> bool:
    """Tokens from j name a time ("a weekend", "Sunday", "late"): "it" before them is the
    time, as in "what if it's a weekend?"."""
    if j < len(toks) and toks[j].low in ("a", "an", "the"):
        j += 1
    return j < len(toks) and toks[j].low in _TIME_IT


def _it_takes_to(toks: list[Token], i: int) -> bool:
    """ "how long does it take to ...": dummy subject."""
    window = [t.low for t in toks[i + 1 : i + 4]]
    return bool(window) and window[0] in ("take", "takes") and "to" in window


__all__ = [
    "DEMONSTRATIVES",
    "NUMBERED_HEADS",
    "ORDINALS",
    "ORDINAL_HEADS",
    "PRONOUNS",
    "TIME_HEADS",
    "Ellipsis",
    "EllipsisKind",
    "Referent",
    "ReferentKind",
    "find_ellipsis",
    "find_referents",
    "gap2",
    "is_bare_time",
    "is_repair",
    "is_wh_fragment",
    "no_answer_complaint",
    "still_true",
]
