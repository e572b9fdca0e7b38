"""Sentences as the chunker cuts them: after ".", "!" or "?" before a capital or a digit,
never after an abbreviation or an initial ("e.g. Vacation days", "the U.S. Army").

Part of the chunk contract: a change here moves chunk boundaries, so it goes with a
`chunking.CHUNKER_VERSION` bump. The answer quotes sentences with the same splitter, so a
quoted sentence is never a fragment the chunker would have kept whole.
"""

from __future__ import annotations

import re

ABBREVIATIONS = frozenset(
    """
    e.g eg i.e ie etc vs cf al approx appt dept govt mr mrs ms dr prof sr jr st ave blvd
    inc ltd corp jan feb apr jun jul aug sep sept oct nov dec tue tues thu thur thurs
    a.m p.m u.s u.k u.n e.u d.c
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that end with a full stop without ending the sentence ("e.g. Vacation", "U.S.
Army"): lowercased, without their final stop."""
BEFORE_NUMBERS = frozenset("no nos p pp vol vols fig figs sec art ch para".split())  # noqa: SIM905
"""Abbreviations only before a number ("No. 5", "p. 12"); "No. The limit is ..." ends."""

_BOUNDARY = re.compile(r"([.!?][\"')\]]*)\s+(?=([\"'(\[]?[A-Z0-9]))")
_LAST_WORD = re.compile(r"(\S+)$")
_INITIALS = re.compile(r"^(?:[A-Za-z]\.)*[A-Za-z]$")
"""Dotted initials: "U.S", "e.g", "J" (the stop is stripped before the test)."""


def is_abbreviation(word: str, following: str = "") -> bool:
    """`word` (with its final stop) is an abbreviation or an initial, not a sentence end:
    "e.g.", "U.S.", "Dr.", "J.", "No." before "5"; not "it." or "Sweden."."""
    if not word.endswith("."):
        return False
    core = word.rstrip(".").lstrip("(\"'[").lower()
    if core in BEFORE_NUMBERS:
        return following[:1].isdigit()
    return core in ABBREVIATIONS or bool(_INITIALS.match(core))


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph, cut after ".", "!" or "?" before a capital or a digit,
    never after an abbreviation or an initial ("e.g. Vacation days", "the U.S. Army")."""
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        stop = m.start(1) + 1  # just after the ".", "!" or "?"
        last = _LAST_WORD.search(text[start:stop])
        if last is not None and is_abbreviation(last.group(1), text[m.end() :]):
            continue
        piece = text[start : m.end(1)].strip()
        if piece:
            out.append(piece)
        start = m.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out
