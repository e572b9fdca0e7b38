"""One tokenizer for the whole package: words, codes and numbers with their spans."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

WORD = re.compile(r"[^\W_](?:[\w'’./+&-]*[^\W_])?(?:(?<=\d),\d{3}(?!\d)(?:[\w'’./+&-]*[^\W_])?)*")
"""A word, a code ("ERR-4021", "v6.15.0", "4-hour") or a number ("1,500" is one);
inner punctuation kept. The thousands comma is tried only where a word ends, so the
common case costs what the plain pattern did (a per-character alternative cost 45%)."""


@dataclass(slots=True, unsafe_hash=True)
class Token:
    """One word of a text with its character span, so rewrites can splice the original.
    Read-only by convention, not frozen: a frozen dataclass is built through
    object.__setattr__, which made building the tokens twice as slow, and every text's
    tokens are built once per analysis (the largest share of analysing a new answer)."""

    text: str
    start: int
    end: int
    low: str
    """The text lower-cased (read by every rule: computed once)."""


CACHE_MAX_CHARS = 4000
"""Texts up to this long are tokenized once per process (a turn's history is read by many
rules, on every later turn); a longer one is tokenized each time and never kept."""


def tokenize(text: str) -> list[Token]:
    """Words, codes and numbers of `text` with their spans (never raises)."""
    if len(text) > CACHE_MAX_CHARS:
        return _tokenize(text)
    return list(_cached_tokens(text))


@functools.lru_cache(maxsize=8192)
def _cached_tokens(text: str) -> tuple[Token, ...]:
    return tuple(_tokenize(text))


def _tokenize(text: str) -> list[Token]:
    return [Token(w := m.group(0), m.start(), m.end(), w.lower()) for m in WORD.finditer(text)]


@functools.lru_cache(maxsize=65536)
def norm(word: str) -> str:
    """Lower case, curly apostrophes straightened, possessive "'s" removed."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    return w
