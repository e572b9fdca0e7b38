"""One sentence splitter for the whole package.

A sentence ends at ".", "!" or "?" followed by space and a capital, a digit or a quote,
and at every line break, except after an abbreviation from the lexicon ("e.g.",
"i.e.", "U.S.", "Dr."): its full stop ends no sentence.
"""

from __future__ import annotations

import functools
import re

from tellmemore.analysis import lexicon

_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“])|\n+")
_LAST_WORD = re.compile(r"(\S+)\s*$")


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, none empty (cached for texts up to 4,000 chars)."""
    if len(text) > 4000:
        return _split(text)
    return list(_cached(text))


@functools.lru_cache(maxsize=4096)
def _cached(text: str) -> tuple[str, ...]:
    return tuple(_split(text))


def _split(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    pending = ""
    for m in _BOUNDARY.finditer(text):
        piece = text[start : m.start()]
        start = m.end()
        if "\n" not in m.group(0) and _ends_in_abbreviation(piece):
            pending += piece + m.group(0)
            continue
        sentence = (pending + piece).strip()
        pending = ""
        if sentence:
            out.append(sentence)
    last = (pending + text[start:]).strip()
    if last:
        out.append(last)
    return out


def _ends_in_abbreviation(piece: str) -> bool:
    """ "... such as e.g." or "... in the U.S.": the full stop is the abbreviation's."""
    if not piece.endswith("."):
        return False
    m = _LAST_WORD.search(piece)
    if m is None:
        return False
    return m.group(1).lstrip("(\"“'").lower() in lexicon.words("abbreviations")
