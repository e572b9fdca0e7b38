"""One stemmer for the whole package: Porter's algorithm as SQLite FTS5's `porter`
tokenizer applies it, from PyStemmer (the Snowball project's C implementation).

The index counts Porter stems, the binding measures compare Porter stems and the
conversation layer matches words across turns by them: one algorithm, so "rooms",
"tiers" and "billed" mean the same thing at every stage.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable

import Stemmer

_local = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    """A Stemmer per thread: PyStemmer's objects are not safe to share between threads."""
    s: Stemmer.Stemmer | None = getattr(_local, "stemmer", None)
    if s is None:
        s = _local.stemmer = Stemmer.Stemmer("porter")
    return s


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of one lower-case word. Words of two letters or fewer and words with a
    digit or other non-letter ("v6", "e-bike") are kept as they are, as FTS5 keeps codes."""
    if len(word) <= 2 or not word.isalpha():
        return word
    out: str = _stemmer().stemWord(word)
    return out


def stems(words: Iterable[str]) -> list[str]:
    """`stem` of each word, in order."""
    return [stem(w) for w in words]
