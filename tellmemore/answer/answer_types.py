"""What kind of answer a question asks for, and whether a sentence holds one.

"within how long do I have to report damage?" asks for a duration; "how much is the
day pass?" for a price; "when do shops open on Sundays?" for a time or a date. An
extractive answer ranks sentences by the words they share with the question, and the
sentence that holds the answer ("Damage reported within 30 minutes of the end of the
ride is never charged.") often shares fewer of them than one that repeats the question
("Report damage in the app before your next ride."). A sentence holding an answer of the
asked kind gets a bonus (`extractive.ANSWER_TYPE_WEIGHT`).
"""

from __future__ import annotations

import enum
import re


class AnswerType(enum.StrEnum):
    DURATION = "duration"
    PRICE = "price"
    TIME = "time"
    COUNT = "count"


_ASKS = (
    (AnswerType.DURATION, re.compile(r"\bhow (?:long|soon|quickly|fast)\b|\bwithin how\b")),
    (AnswerType.PRICE, re.compile(r"\bhow much (?:is|are|does|do|will|would|did|for)\b|"
                                  r"\bwhat(?:'s| is| are) the (?:price|cost|fee)s?\b")),
    (AnswerType.TIME, re.compile(r"\bwhen\b|\bwhat time\b|\bwhich days?\b|\bwhat hours\b")),
    (AnswerType.COUNT, re.compile(r"\bhow many\b")),
)  # fmt: skip
"""The question's wording, first match wins ("how long ... how much" is a duration)."""

_UNIT = r"(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"
_HOLDS = {
    AnswerType.DURATION: re.compile(
        rf"\b(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|ten|twelve|fifteen|thirty)"
        rf"[\s-]*(?:business |working |calendar )?{_UNIT}\b",
        re.IGNORECASE,
    ),
    AnswerType.PRICE: re.compile(
        r"[$€£]\s?\d|\b\d[\d,.]*\s*(?:dollars?|euros?|pounds?|usd|eur|gbp)\b|\bfree\b",
        re.IGNORECASE,
    ),
    AnswerType.TIME: re.compile(
        r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day"
        r"s?\b|\b(?:january|february|march|april|may|june|july|august|september|october|"
        r"november|december)\b|\b(?:19|20)\d{2}\b|\bweekends?\b|\bholidays?\b",
        re.IGNORECASE,
    ),
    AnswerType.COUNT: re.compile(
        r"\b\d[\d,]*\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|unlimited)\b",
        re.IGNORECASE,
    ),
}


def asked_type(question: str) -> AnswerType | None:
    """The kind of answer `question` asks for, or None (a yes/no or "what is" question)."""
    low = question.lower()
    return next((kind for kind, pattern in _ASKS if pattern.search(low)), None)


def holds(sentence: str, kind: AnswerType) -> bool:
    """`sentence` states an answer of `kind` ("within 30 minutes", "$49", "10:00")."""
    return _HOLDS[kind].search(sentence) is not None
