"""Content terms for the binding measures: lowercase words, no stopwords, Porter stems.

Binding is judged on terms, not strings, so that "rooms" in a query binds
"room" in the rewrite. The stemmer is the package's one (`tellmemore.analysis.stem`:
Porter's 1980 algorithm, the one the SQLite FTS5 `porter` tokenizer applies).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tellmemore.analysis import lexicon, stem

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


STOPWORDS = lexicon.words("measure_stopwords")
"""English function words (Lucene/NLTK style) plus conversational filler."""


def words(text: str) -> list[str]:
    """Lowercase word tokens of `text` (letters and digits; punctuation splits)."""
    return _WORD.findall(text.lower())


def content_terms(text: str) -> dict[str, str]:
    """Stem -> first surface word, for the content words of `text`.

    A content word is not a stopword and is longer than one character unless
    it is a digit ("2" in "tier 2" carries meaning).
    """
    out: dict[str, str] = {}
    for word in words(text):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        out.setdefault(stem(word), word)
    return out


def term_set(texts: Iterable[str]) -> set[str]:
    """The stems of the content words of several texts together."""
    out: set[str] = set()
    for text in texts:
        out.update(content_terms(text))
    return out
