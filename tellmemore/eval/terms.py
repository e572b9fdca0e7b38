"""Content terms for the binding measures: lowercase words, no stopwords, Porter stems.

Binding is judged on terms, not strings, so that "rooms" in a query binds
"room" in the rewrite. The stemmer is Porter's 1980 algorithm (the one the
SQLite FTS5 `porter` tokenizer applies), small enough to keep here instead of
adding a dependency.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_STOPWORD_TEXT = """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each few for from further had hadn has hasn have haven having he her here
    hers herself him himself his how i if in into is isn it its itself just let me more most
    mustn my myself no nor not now of off on once only or other ought our ours ourselves out
    over own same shan she should shouldn so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was wasn we
    were weren what when where which while who whom why will with won would wouldn you your
    yours yourself yourselves s t d ll m o re ve y
    ok okay yes yeah please thank thanks hi hello
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
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


# --- Porter (1980) ------------------------------------------------------------------------


def _is_cons(w: str, i: int) -> bool:
    c = w[i]
    if c in "aeiou":
        return False
    if c == "y":
        return i == 0 or not _is_cons(w, i - 1)
    return True


def _measure(stem_: str) -> int:
    """m in [C](VC)^m[V]: how many vowel-consonant sequences the stem holds."""
    n, i, size = 0, 0, len(stem_)
    while i < size and _is_cons(stem_, i):
        i += 1
    while i < size:
        while i < size and not _is_cons(stem_, i):
            i += 1
        if i >= size:
            break
        while i < size and _is_cons(stem_, i):
            i += 1
        n += 1
    return n


def _has_vowel(stem_: str) -> bool:
    return any(not _is_cons(stem_, i) for i in range(len(stem_)))


def _ends_double_cons(w: str) -> bool:
    return len(w) >= 2 and w[-1] == w[-2] and _is_cons(w, len(w) - 1)


def _ends_cvc(w: str) -> bool:
    if len(w) < 3:
        return False
    n = len(w)
    return (
        _is_cons(w, n - 3) and not _is_cons(w, n - 2) and _is_cons(w, n - 1) and w[-1] not in "wxy"
    )


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _longest(w: str, suffixes: Iterable[str]) -> str | None:
    best: str | None = None
    for s in suffixes:
        if w.endswith(s) and (best is None or len(s) > len(best)):
            best = s
    return best


def _step1ab(w: str) -> str:
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
        return w
    for suffix in ("ed", "ing"):
        if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
            w = w[: -len(suffix)]
            if w.endswith(("at", "bl", "iz")):
                return w + "e"
            if _ends_double_cons(w) and w[-1] not in "lsz":
                return w[:-1]
            if _measure(w) == 1 and _ends_cvc(w):
                return w + "e"
            return w
    return w


def _step1c(w: str) -> str:
    if w.endswith("y") and _has_vowel(w[:-1]):
        return w[:-1] + "i"
    return w


def _replace(w: str, rules: tuple[tuple[str, str], ...], min_m: int) -> str:
    suffix = _longest(w, (s for s, _ in rules))
    if suffix is None:
        return w
    stem_ = w[: -len(suffix)]
    if _measure(stem_) > min_m:
        return stem_ + dict(rules)[suffix]
    return w


def _step4(w: str) -> str:
    suffix = _longest(w, _STEP4)
    if suffix is None:
        return w
    stem_ = w[: -len(suffix)]
    if _measure(stem_) <= 1:
        return w
    if suffix == "ion" and not stem_.endswith(("s", "t")):
        return w
    return stem_


def _step5(w: str) -> str:
    if w.endswith("e"):
        m = _measure(w[:-1])
        if m > 1 or (m == 1 and not _ends_cvc(w[:-1])):
            w = w[:-1]
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w


def stem(word: str) -> str:
    """Porter stem of one lowercase word; words of two letters or fewer are kept."""
    if len(word) <= 2 or not word.isalpha():
        return word
    w = _step1ab(word)
    w = _step1c(w)
    w = _replace(w, _STEP2, 0)
    w = _replace(w, _STEP3, 0)
    w = _step4(w)
    return _step5(w)
