"""Tokenising helpers shared by decide, gate, binding and the resolvers.

The tokenizer, stemmer and word lists are the package's own (tellmemore.analysis and its
lexicon): the embedded resolver must stay around a millisecond, so there is no tagger
here, only word lists and regular expressions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from tellmemore.analysis import Token, lexicon, norm, tokenize
from tellmemore.analysis import stem as _stem
from tellmemore.conversation import constants as C

MONTHS = lexicon.words("months")

FUNCTION_WORDS = lexicon.words("function_words")
"""Words that carry no subject of their own (stopwords plus conversational filler)."""

COMMON_VERBS = lexicon.words("common_verbs")
"""Frequent verbs: phrase breakers for the noun-phrase chunker (no tagger at this speed)."""


GENERIC_NOUNS = lexicon.words("generic_nouns")
"""Nouns too generic to be what a pronoun points at when they stand alone."""

AUXILIARIES = lexicon.words("auxiliaries")
"""Auxiliary verbs: a message holding one is a clause, not a bare fragment."""

RELATIONAL_NOUNS = lexicon.words("relational_nouns")
"""Nouns that name an attribute of something else ("what's the maximum?", "the price?"):
however rare in the documents, alone they are no subject of their own."""


_CITATION = lexicon.pattern("citation")
"""A "[2]" citation marker of an answer: no word of the conversation."""


def strip_citations(text: str) -> str:
    """`text` without "[n]" markers, which hide sentence ends from the splitter. A marker
    between two words leaves a space: "Frankfurt[1]Berlin" is two words, not one."""
    if "[" not in text:
        return text
    return _CITATION.sub(lambda m: " " if _joins_words(text, m) else "", text)


_GROUP_HEADER = lexicon.pattern("group_header")


def answer_body(text: str) -> str:
    """A quoted answer without the titles it groups its sentences under (a line holding
    only "Cloud Connect escalation:", one per document when they come from two or more):
    a title says where the sentences below it come from; it is no alternative "the second
    one" counts, nor a subject "that one" points at. A single such line is left alone: a
    generated answer's "The plans are:" introduces its list."""
    if len(_GROUP_HEADER.findall(text)) < 2:
        return text
    return "\n".join(line for line in text.splitlines() if not _GROUP_HEADER.fullmatch(line))


_MARKUP_HINTS = ("http", "www.", "<", "](", "*", "`", "#", "__")
_LINK = lexicon.pattern("markdown_link")
_URL = lexicon.pattern("url")
_TAG = lexicon.pattern("markup_tag")
_EMPHASIS = lexicon.pattern("emphasis")


def readable(text: str) -> str:
    """`text` as words a user would bind to: citation markers, URLs, Markdown/HTML markup
    and emphasis removed, a link's text kept ("[the form](https://...)" -> "the form").
    "the first one" must never bind "https" of a link, nor "it" a tag's attribute."""
    text = strip_citations(text)
    if not any(h in text for h in _MARKUP_HINTS):
        return text
    text = _LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _TAG.sub(" ", text)
    return _EMPHASIS.sub(lambda m: " " if _joins_words(text, m) else "", text)


def _joins_words(text: str, m: re.Match[str]) -> bool:
    return (
        m.start() > 0
        and m.end() < len(text)
        and text[m.start() - 1].isalnum()
        and text[m.end()].isalnum()
    )


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, possessive "'s" removed."""
    if len(text) > C.CACHE_MAX_CHARS:  # a huge message is read once: keep nothing of it
        return [norm(t.text) for t in tokenize(text)]
    return list(_words(text))


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """Cached: every turn re-reads the same history turns for their words."""
    return tuple(norm(t.text) for t in tokenize(text))


def stem(word: str) -> str:
    """The package's one stemmer (Porter, as the index's FTS5 tokenizer) of a normalised word."""
    return _stem(norm(word))


def singular(word: str) -> str:
    """A word without its plural ending, written out ("Escalations" -> "Escalation"):
    for text shown to the user, where a stem ("escal") would not read."""
    w = word
    low = w.lower()
    if len(w) > 4 and low.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and low.endswith("es") and low[-3] in "sxz":
        return w[:-2]
    if len(w) > 3 and low.endswith("s") and not low.endswith(("ss", "us")):
        return w[:-1]
    return w


def is_content(word: str) -> bool:
    """A word that can name a subject: not a function word, not pure punctuation."""
    w = norm(word)
    return bool(w) and w not in FUNCTION_WORDS


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in FUNCTION_WORDS]


@functools.lru_cache(maxsize=65536)
def is_protected(token: str) -> bool:
    """Codes, numbers, dates and acronyms: kept exactly through any rewrite (seed 002)."""
    if token.isascii() and token.isalpha():  # the common case, decided without a loop
        return (len(token) >= 2 and token.isupper()) or (
            token[0].isupper() and token.lower() in MONTHS
        )
    if any(c.isdigit() for c in token):
        return True
    letters = [c for c in token if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return True
    return token[:1].isupper() and token.lower() in MONTHS


def protected_tokens(text: str) -> list[str]:
    """The tokens of `text` that a rewrite must keep verbatim."""
    return [t.text for t in tokenize(text) if is_protected(t.text)]


def missing_protected(message: str, query: str) -> list[str]:
    """Protected tokens of `message` absent from `query` (exact, case-sensitive)."""
    have = {t.text for t in tokenize(query)}
    return [t for t in protected_tokens(message) if t not in have]


def looks_plural(word: str) -> bool:
    """A plural "s" at the end ("plans", not "class", "status", "analysis"): number
    agreement and "one" -> head noun, guessed without a lexicon. An acronym's capital S
    is no plural ("MLS", "GPS"); its lower-case one is ("VMs")."""
    if len(word) > 1 and word.isupper():
        return False
    low = word.lower()
    return low.endswith("s") and not low.endswith(("ss", "us", "is"))


def surface_form(phrase: str, texts: Iterable[str]) -> str:
    """The best-cased occurrence of `phrase` in `texts` ("cloud connect" -> "Cloud Connect").

    Users type lower case; the assistant's answer or the documents usually carry the
    proper casing, which reads better in "Searching for: ..." and matches nothing worse.
    """
    best, best_upper = phrase, sum(c.isupper() for c in phrase)
    for text in texts:
        for start, found in _occurrences(phrase, text):
            upper = sum(c.isupper() for c in found)
            if upper > best_upper and not _opens_sentence(text, start, found):
                best, best_upper = found, upper
    return best


def _occurrences(phrase: str, text: str) -> list[tuple[int, str]]:
    """Where `phrase` occurs in `text` as a whole phrase, in any case, and as written
    there; not inside a code ("Pro" is not "PRO" of "CC-PRO-2026")."""
    needle = phrase.lower()
    low = _lowered(text)
    if not needle or len(low) != len(text):  # a letter whose lower case is longer
        pattern = re.compile(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", re.IGNORECASE)
        return [(m.start(), m.group(0)) for m in pattern.finditer(text)]
    out = []
    i = low.find(needle)
    while i >= 0:
        j = i + len(needle)
        if (i == 0 or not _inside_word(text[i - 1])) and (
            j == len(text) or not _inside_word(text[j])
        ):
            out.append((i, text[i:j]))
        i = low.find(needle, j if j > i else i + 1)
    return out


def _inside_word(c: str) -> bool:
    return c.isalnum() or c in "_-"


@functools.lru_cache(maxsize=4096)
def _lowered(text: str) -> str:
    """`text` lower-cased, once per text (every phrase shown is cased from the same turns)."""
    return text.lower()


_SENTENCE_START = lexicon.pattern("sentence_start")
"""Where a capital is the position's: a sentence, a list item, a table row's next label
("Plan: Pro; Sites included: 10")."""


def _opens_sentence(text: str, start: int, found: str) -> bool:
    """ "Damage reported in the app ...": a capital that only opens a sentence says
    nothing of how the word is written (a single capital, at a sentence start)."""
    if sum(c.isupper() for c in found) != 1 or not found[:1].isupper():
        return False
    return _SENTENCE_START.search(text[max(0, start - 8) : start]) is not None


TIME_WORDS = lexicon.words("time_words")
"""Days, parts of the day, seasons: a qualifier "on weekends" adds to a question, and the
"it" of "it's a weekend" points at no thing."""


__all__ = [
    "AUXILIARIES",
    "COMMON_VERBS",
    "FUNCTION_WORDS",
    "GENERIC_NOUNS",
    "MONTHS",
    "RELATIONAL_NOUNS",
    "TIME_WORDS",
    "Token",
    "answer_body",
    "content_words",
    "is_content",
    "is_protected",
    "looks_plural",
    "missing_protected",
    "norm",
    "protected_tokens",
    "readable",
    "singular",
    "stem",
    "strip_citations",
    "surface_form",
    "tokenize",
    "words",
]
