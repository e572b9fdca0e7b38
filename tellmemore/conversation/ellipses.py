"""Ellipses and repairs: "and for Enterprise?", "what about Sundays?", "for kids too?",
"oh I meant saturn", "why cannot you answer that?". Their openers are cue rows."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.preamble import INTERJECTIONS
from tellmemore.conversation.text import (
    AUXILIARIES,
    COMMON_VERBS,
    TIME_WORDS,
    tokenize,
)

_PREPOSITIONS = lexicon.words("compose_prepositions")


class EllipsisKind(enum.StrEnum):
    MODIFIER = "modifier"
    """"and on holidays?": the previous question with a new qualifier."""
    SUBJECT = "subject"
    """"what about Frankfurt": the previous question about a new subject."""
    MORE = "more"
    """"tell me more", "why?": more on the current topic."""


@dataclass(frozen=True)
class Ellipsis:
    opener: str
    fragment: str
    """What the opener introduces ("on holidays", "Frankfurt"); may be empty."""
    kind: EllipsisKind


_STILL_TRUE_RE = lexicon.pattern("still_true")
_REPAIR_RE = lexicon.pattern("repair")
_OPENERS: tuple[tuple[re.Pattern[str], EllipsisKind | None, bool], ...] = tuple(
    (
        row["compiled"],
        EllipsisKind(row["kind"]) if row["kind"] else None,
        bool(row.get("repair", False)),
    )
    for row in lexicon.cue_rows("ellipsis_openers")
)
"""The opener table of the lexicon: (pattern, fixed kind or None, is a repair), in order."""


def is_repair(opener: str) -> bool:
    """The opener corrects the previous question ("oh I meant", "sorry, I mean")."""
    return _REPAIR_RE.match(opener.strip()) is not None


_NO_ANSWER_RE = lexicon.pattern("no_answer_re")
"""The user says the assistant did not answer ("you cannot answer", "don't you provide")."""


def no_answer_complaint(message: str) -> str | None:
    """ "why can't you answer such a simple question?", "why don't you provide that?": the
    user still wants the answer to the previous question. The complaint's words, or None."""
    m = _NO_ANSWER_RE.search(message)
    return m.group(0) if m is not None else None


def still_true(opener: str) -> bool:
    """The opener asks whether the last answer holds elsewhere ("is that also true")."""
    return _STILL_TRUE_RE.match(opener.strip()) is not None


def find_ellipsis(message: str) -> Ellipsis | None:
    """An ellipsis or bridging opener at the start of `message`, with its fragment."""
    text = message.strip()
    text = re.sub(rf"^(?:{INTERJECTIONS})[,.!]?\s+", "", text, flags=re.IGNORECASE)
    for pattern, kind, repairs in _OPENERS:
        m = pattern.match(text)
        if m is None:
            continue
        opener = m.group(0)
        rest = text[m.end() :]
        end = re.search(r"[.?!;]\s", rest)
        if end is not None and len(tokenize(rest[end.end() :])) >= 2:
            return None  # "What about Status Page? does it send emails?": a topic + a question
        fragment = rest.strip(" ,.;:?!-\t\n")
        if repairs:
            if _is_full_question(fragment):
                return None  # "no, I meant which series was best?": a question of its own
            fragment = re.sub(r",?\s+(?:rather|instead)$", "", fragment, flags=re.IGNORECASE)
            # "I meant a training course, not a conference": what is meant, without what is not
            fragment = _CONTRAST.sub("", fragment) or fragment
        if kind is None:
            kind = _fragment_kind(fragment)
        if _is_full_question(fragment) and (
            opener.lower().strip() in ("and", "or", "also", "plus")
            or tokenize(fragment)[0].low in _WH_WORDS
        ):
            # "and how do I reset it?", "what about why can't I apply a feature code?": a
            # question of its own, not an ellipsis
            return None
        return Ellipsis(opener=opener, fragment=fragment, kind=kind)
    return _prepositional_fragment(text) or _wh_fragment(text)


_CONTRAST = re.compile(r",\s*(?:not|rather than|instead of)\s+[^,]+$", re.IGNORECASE)
"""A contrast after a comma that ends a repair: what the user did not mean. Without the
comma, "rather than" is part of the thought ("better off occupied by US rather than
USSR")."""


_WH_FRAGMENT = lexicon.pattern("wh_fragment")
"""A bare question word ("within how long?", "and when?"): the previous question, asked
about when, how long or how much."""


def is_wh_fragment(message: str) -> bool:
    """Only a question word ("within how long?"): searched alone it finds noise."""
    return _WH_FRAGMENT.match(message.strip()) is not None


def _wh_fragment(text: str) -> Ellipsis | None:
    """ "within how long?" after "how do I report damage?": a qualifier of the previous
    question, like "on weekends?"."""
    m = _WH_FRAGMENT.match(text)
    if m is None:
        return None
    fragment = m.group("fragment")
    opener = m.group("opener").strip() or fragment
    return Ellipsis(opener=opener, fragment=fragment, kind=EllipsisKind.MODIFIER)


_PP_FRAGMENT_CHARS = 120
"""Longer than any PP_FRAGMENT_WORDS-word qualifier with "as well"."""


_ALSO_END = lexicon.pattern("also_end")


def _prepositional_fragment(text: str) -> Ellipsis | None:
    """ "for kids too?", "on weekends?", "In water": a bare qualifier of the previous
    question (no verb, no question word, a few words)."""
    if len(text) > _PP_FRAGMENT_CHARS:  # a long message is no bare qualifier: not tokenised
        return None
    fragment = _ALSO_END.sub("", text).strip(" ,.;:?!-\t\n")
    toks = tokenize(fragment)
    if not 2 <= len(toks) <= C.PP_FRAGMENT_WORDS or toks[0].low not in _PREPOSITIONS:
        return None
    if {t.low for t in toks[1:]} & (AUXILIARIES | COMMON_VERBS | _WH_WORDS):
        return None
    fragment = toks[0].low + fragment[len(toks[0].text) :]  # "In water" -> "in water"
    return Ellipsis(opener=toks[0].low, fragment=fragment, kind=EllipsisKind.MODIFIER)


def _fragment_kind(fragment: str) -> EllipsisKind:
    toks = tokenize(fragment)
    if not toks:
        return EllipsisKind.MORE
    if toks[0].low in _PREPOSITIONS or toks[0].low in ("if", "when", "while"):
        return EllipsisKind.MODIFIER
    if all(t.low.endswith("ally") for t in toks):
        return EllipsisKind.MODIFIER  # "I mean historically": how the question is asked
    if is_bare_time(fragment):
        return EllipsisKind.MODIFIER  # "what about Sundays?": when, not what
    return EllipsisKind.SUBJECT


_TIME_MODIFIERS = lexicon.words("time_modifiers")
"""Words that may come before a time word in a bare time fragment ("public holidays")."""


def is_bare_time(fragment: str) -> bool:
    """ "Sundays", "the weekend", "public holidays": a time with no preposition, which
    qualifies the previous question ("... opening hours on Sundays?") rather than replacing
    its subject ("what are the Sundays?")."""
    toks = tokenize(fragment)
    return (
        0 < len(toks) <= 3
        and toks[-1].low in TIME_WORDS
        and all(t.low in TIME_WORDS or t.low in _TIME_MODIFIERS for t in toks[:-1])
    )


_QUESTION_START = lexicon.words("question_start")


_WH_WORDS = lexicon.words("question_words")


def _is_full_question(fragment: str) -> bool:
    toks = tokenize(fragment)
    return len(toks) >= 3 and toks[0].low in _QUESTION_START
