"""Clarifying questions: written when two alternatives are a coin flip ("Do you mean
Standard or Enterprise escalation?") and read back when the user replies (seed 003)."""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.analysis import lexicon
from tellmemore.conversation.binding import Phrase

_CLARIFY = lexicon.pattern("clarify")


_OPTION_SPLIT = lexicon.pattern("option_split")


def clarification_question(options: Sequence[Phrase]) -> str:
    """ "Do you mean Standard or Enterprise escalation?" (a shared head is said once)."""
    texts = [o.text for o in options]
    split = [t.split() for t in texts]
    suffix: list[str] = []
    while all(len(s) > len(suffix) + 1 for s in split):
        cand = [s[-1 - len(suffix)].lower() for s in split]
        if len(set(cand)) != 1:
            break
        suffix.insert(0, split[0][-1 - len(suffix)])
    if suffix:
        heads = [" ".join(s[: len(s) - len(suffix)]) for s in split[:-1]]
        heads.append(texts[-1])
    else:
        heads = texts
    joined = heads[0] if len(heads) == 1 else ", ".join(heads[:-1]) + " or " + heads[-1]
    return f"Do you mean {joined}?"


def parse_clarification(text: str) -> list[str] | None:
    """The alternatives of a "Do you mean X or Y?" question, a shared head restored
    ("Standard", "Enterprise escalation" -> "Standard escalation", "Enterprise escalation")."""
    if "mean" not in text.lower():  # the pattern's own word, found without it (any case)
        return None
    m = _CLARIFY.search(text)
    if m is None:
        return None
    options = [o.strip(" '\"") for o in _OPTION_SPLIT.split(m.group(1)) if o.strip(" '\"")]
    if len(options) < 2:
        return None
    last = options[-1].split()
    width = max(len(o.split()) for o in options[:-1])
    if len(last) > width:
        tail = " ".join(last[width:])
        options = [o if len(o.split()) >= len(last) else f"{o} {tail}" for o in options[:-1]] + [
            options[-1]
        ]
    return options
