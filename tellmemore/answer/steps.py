"""The step a question asks for by number: "what's step 4?", "the second step".

A procedure is quoted whole when a question is about it ("how do I connect my sites?");
a question about one of its steps wants that step alone, and says which by number, by
ordinal, or (once the resolver bound "the last one") by the step's own action.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tellmemore.conversation.referents import ORDINALS

_ORDINAL_WORDS = {w: n for w, n in ORDINALS.items() if w not in ("former", "latter")}
"""The resolver's ordinals ("second", "3rd", "last"); "the former step" is no step."""
_STEP_ASKED = re.compile(
    r"\bstep\s+(?:number\s+)?(\d{1,2})\b|\b(" + "|".join(_ORDINAL_WORDS) + r")\s+step\b",
    re.IGNORECASE,
)


def asked_step(query: str) -> int | None:
    """ "what's step 4?" -> 4, "the second step" -> 2, "the last step" -> -1."""
    m = _STEP_ASKED.search(query)
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1))
    return _ORDINAL_WORDS[m.group(2).lower()]


def pick_step(query: str, procedures: Sequence[Sequence[str]]) -> tuple[int, int, str] | None:
    """(procedure index, step number from 1, step text) of the step `query` asks for, from
    the first procedure (of 2+ steps) that has it; None when it asks for no step."""
    n = asked_step(query)
    if n is None:
        return None
    low = query.lower()
    for at, steps in enumerate(procedures):
        named = [k for k, text in enumerate(steps, 1) if _action(text) in low]
        if len(named) == 1:  # the step the resolver bound, named in the query
            return at, named[0], steps[named[0] - 1]
        if len(steps) >= 2 and (n == -1 or 1 <= n <= len(steps)):
            k = n if n > 0 else len(steps)
            return at, k, steps[k - 1]
    return None


def _action(text: str) -> str:
    """A step's action as the resolver names it: its text up to the first comma, colon
    or "for example" ("Pick the region closest to your sites")."""
    return re.split(r"[,:;.(]|\s(?:for example|then)\s", text, maxsplit=1)[0].strip().lower()
