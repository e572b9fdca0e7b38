"""One sentence splitter for the whole package.

A sentence ends at ".", "!" or "?" followed by space and a capital, a digit or a quote,
and at every line break, except after an abbreviation from the lexicon ("e.g.",
"i.e.", "U.S.", "Dr."): its full stop ends no sentence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from tellmemore.analysis import lexicon

_OPENS = re.compile(r"[A-Z0-9\"“]")
_STOPS = re.compile(r"[.!?\n]")
_SPACES = re.compile(r"\s+")
_NEWLINES = re.compile(r"\n+")


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, none empty (cached for texts up to 4,000 chars)."""
    if len(text) > 4000:
        return [text[a:b] for a, b in _spans(text)]
    return list(_cached(text))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `split_sentences(text)` starts and ends in `text`."""
    return _spans(text)


@functools.lru_cache(maxsize=4096)
def _cached(text: str) -> tuple[str, ...]:
    return tuple(text[a:b] for a, b in _spans(text))


def _spans(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    begin = 0  # where the sentence being read began (before an abbreviation's stop)
    for a, b in _boundaries(text):
        stop = a > start and text[a - 1] == "." and "\n" not in text[a:b]
        if stop and _ends_in_abbreviation(text[start:a]):  # "e.g.": no sentence ends
            start = b
            continue
        _add_stripped(text, begin, a, out)
        start = begin = b
    _add_stripped(text, begin, len(text), out)
    return out


def _boundaries(text: str) -> Iterator[tuple[int, int]]:
    r"""Where a sentence boundary is, left to right: the spaces after ".", "!" or "?" that
    a capital, a digit or a quote follows, and each run of line breaks (the matches of
    `(?<=[.!?])\s+(?=[A-Z0-9"“])|\n+`). Found from the few characters that can end or
    open one: that pattern tried at every character was the splitter's whole cost."""
    pos = 0  # where the pattern's scan would resume
    n = len(text)
    for m in _STOPS.finditer(text):
        k = m.start()
        if text[k] == "\n":
            if k >= pos:
                run = _NEWLINES.match(text, k)
                pos = run.end() if run is not None else k + 1
                yield k, pos
            continue
        spaces = _SPACES.match(text, k + 1) if k + 1 < n else None
        if spaces is not None and _OPENS.match(text, spaces.end()) is not None:
            pos = spaces.end()
            yield k + 1, pos


def _add_stripped(text: str, a: int, b: int, out: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if a < b:
        out.append((a, b))


def still_split(first: str, second: str) -> bool:
    """Two consecutive sentences of one text (as split here) still split where they meet
    when joined by one space: the first ends a sentence ("." not of an abbreviation) and
    the second opens one. Then the joined text's sentences are these two as they were."""
    return (
        first[-1:] in (".", "!", "?")
        and _OPENS.match(second) is not None
        and not _ends_in_abbreviation(first)
    )


def _ends_in_abbreviation(piece: str) -> bool:
    """ "... such as e.g." or "... in the U.S.": the full stop is the abbreviation's."""
    if not piece.endswith("."):
        return False
    last = piece.rsplit(None, 1)[-1]  # its last word (a search for it was a scan per char)
    return last.lstrip("(\"“'").lower() in lexicon.words("abbreviations")
