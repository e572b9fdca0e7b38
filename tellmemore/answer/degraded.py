"""What a user is told when part of a turn fell back (`Answer.degraded`).

A wrong API key or a rate-limited endpoint must not pass for a working setup: the
answer still comes (quoted from the sources), and this note says why it is not the
model's.
"""

from __future__ import annotations

from collections.abc import Iterable

_STAGES = {
    "generate": "The LLM could not answer ({why}); this answer is quoted from the sources.",
    "rewrite": "The LLM could not rewrite the answer ({why}); it was shortened by rule.",
    "resolve": "The LLM could not resolve the follow-up ({why}); the rules resolved it.",
    "summary": "The conversation summary could not be refreshed ({why}).",
}
_UNCITED = "generate:uncited"


def degraded_notes(degraded: Iterable[str]) -> list[str]:
    """One sentence per fallback, in order; unknown stages are named as they are."""
    notes: list[str] = []
    for item in degraded:
        if item == _UNCITED:
            notes.append("The model cited no source for this answer: check it against them.")
            continue
        stage, _, kind = item.partition(":")
        why = kind.replace("_", " ") or "unknown error"
        notes.append(_STAGES.get(stage, f"{stage} fell back ({{why}}).").format(why=why))
    return notes
