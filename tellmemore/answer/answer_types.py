"""What kind of answer a question asks for, and whether a sentence holds one.

"within how long do I have to report damage?" asks for a duration; "how much is the
day pass?" for an amount; "when do shops open on Sundays?" for a time; "who approves
leave?" for a person; "is there a cap?" for a yes or no. An extractive answer ranks
sentences by what they share with the question, and the sentence that holds the answer
("Damage reported within 30 minutes of the end of the ride is never charged.") often
shares fewer words than one that repeats the question. Whether a sentence holds an answer
of the asked kind is one feature of the sentence scorer (`answer.scoring`).

The cues are data (`answer_types.json`), not code: a new cue is one pattern there, and
the scorer's weight for the feature is fitted, leave-one-domain-out.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from importlib import resources


class AnswerType(enum.StrEnum):
    DURATION = "duration"
    PRICE = "price"
    """An amount: a price, a limit, a percentage."""
    TIME = "time"
    COUNT = "count"
    PERSON = "person"
    TOOL = "tool"
    LIST = "list"
    YES_NO = "yes_no"


VALUE_KINDS = frozenset((AnswerType.DURATION, AnswerType.PRICE, AnswerType.TIME, AnswerType.COUNT))
"""The kinds that are a value a passage states or not (`answer.answerability` reads them)."""


def _compile(patterns: list[str], flags: int = 0) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), flags)


@functools.cache
def _lexicon() -> tuple[
    tuple[tuple[AnswerType, re.Pattern[str]], ...], dict[AnswerType, re.Pattern[str]]
]:
    text = resources.files("tellmemore.answer").joinpath("answer_types.json").read_text("utf-8")
    data = json.loads(text)
    asks = tuple((AnswerType(kind), _compile(ps)) for kind, ps in data["asks"])
    holds = {
        AnswerType(kind): _compile(ps, 0 if kind in ("person", "tool") else re.IGNORECASE)
        for kind, ps in data["holds"].items()
    }
    return asks, holds


@functools.cache
def amount_columns() -> frozenset[str]:
    """Stems of column headings that hold amounts ("Price per month", "Fee"): what "how
    much ...?" names in a table."""
    from tellmemore.answer.scoring import content_stems

    text = resources.files("tellmemore.answer").joinpath("answer_types.json").read_text("utf-8")
    return frozenset(content_stems(" ".join(json.loads(text)["amount_columns"])))


def asked_type(question: str) -> AnswerType | None:
    """The kind of answer `question` asks for, or None ("what is X?", "how do I ...?")."""
    low = " ".join(question.lower().split())
    return next((kind for kind, pattern in _lexicon()[0] if pattern.search(low)), None)


def asked_types(question: str) -> list[AnswerType]:
    """Every kind of answer `question` asks for, in the order `asked_type` tries them."""
    low = " ".join(question.lower().split())
    return [kind for kind, pattern in _lexicon()[0] if pattern.search(low)]


def cue_words(question: str, kind: AnswerType) -> set[str]:
    """The words of `question` that ask for `kind` ("how", "long"; "cost" in "what is the
    cost of ..."): they name the kind of answer, not what it is about."""
    low = " ".join(question.lower().split())
    pattern = next((p for k, p in _lexicon()[0] if k == kind), None)
    if pattern is None:
        return set()
    return {w for m in pattern.finditer(low) for w in re.findall(r"[a-z']+", m.group())}


def cue_spans(low: str, kind: AnswerType) -> list[int]:
    """Where in `low` (lower case, spaces squashed) a phrase asking for `kind` starts."""
    pattern = next((p for k, p in _lexicon()[0] if k == kind), None)
    return [m.start() for m in pattern.finditer(low)] if pattern is not None else []


def holds(sentence: str, kind: AnswerType) -> bool:
    """`sentence` states an answer of `kind` ("within 30 minutes", "$49", "10:00")."""
    return _lexicon()[1][kind].search(sentence) is not None
