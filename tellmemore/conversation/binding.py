"""Antecedents: the phrases of the conversation a referent can be bound to, and how salient
each one is.

Candidates are noun-phrase-like runs of content words from the recent turns (user
turns over assistant turns, recent over old, the first user turn kept as the
conversation's topic), scored by IDF from the index's term statistics. The last
assistant answer's list items ("Two tiers. Standard escalation ... Enterprise
escalation ...") are kept apart, in order, for ordinals and for "that one".
All constants live in `tellmemore.conversation.constants`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.decide import names_a_subject
from tellmemore.conversation.phrases import (
    PREDICATES,
    PREPOSITIONS,
    Phrase,
    phrases,
    sentences,
)
from tellmemore.conversation.preamble import without_preamble
from tellmemore.conversation.referents import Referent
from tellmemore.conversation.text import (
    COMMON_VERBS,
    FUNCTION_WORDS,
    MONTHS,
    content_words,
    looks_plural,
    norm,
    stem,
)
from tellmemore.types import TermStats, Turn

TermStatsLookup = Callable[[Iterable[str]], TermStats]


@dataclass
class Candidate:
    """An antecedent phrase with its accumulated salience."""

    phrase: Phrase
    score: float
    turn: int
    """Index in the history of its most salient mention."""
    role: str
    mentions: int = 1

    @property
    def text(self) -> str:
        return self.phrase.text

    @property
    def stems(self) -> tuple[str, ...]:
        return self.phrase.stems


@dataclass
class Salience:
    """Per-word distinctiveness in [0, 1]: normalised IDF, or a heuristic without an index.

    One `term_stats` call per resolution: all words are looked up at once.
    """

    term_stats: TermStatsLookup | None
    _weights: dict[str, float] = field(default_factory=dict)
    unseen: set[str] = field(default_factory=set)
    """Words the index has never seen: no help to the search, but a subject of their own."""
    _primed: set[frozenset[str]] = field(default_factory=set)
    """Vocabularies (a text's `Analysis.vocabulary`) looked up already."""

    def prime(self, texts: Iterable[str]) -> None:
        """Look up the content words of `texts` not looked up yet, in one call."""
        self.prime_words(_vocabulary(t) for t in texts)

    def prime_words(self, vocabularies: Iterable[frozenset[str]]) -> None:
        """Look up the words of `vocabularies` not looked up yet, in one call."""
        vocab: set[str] = set()
        for words_ in vocabularies:
            if words_ in self._primed:
                continue  # the same history text, asked again by another rule
            vocab.update(words_)
            self._primed.add(words_)
        vocab.difference_update(self._weights.keys())
        if not vocab:
            return
        if self.term_stats is None:
            for w in vocab:
                self._weights[w] = _heuristic_weight(w)
            return
        try:
            stats = self.term_stats(sorted(vocab))
        except Exception:
            for w in vocab:
                self._weights[w] = _heuristic_weight(w)
            return
        top = math.log(1.0 + (max(stats.n_chunks, 1) + 0.5) / 0.5)
        for w in vocab:
            if stats.n_chunks > 0 and stats.df.get(w, 0) == 0:
                # A word the index never saw cannot help it find anything.
                self._weights[w] = C.UNSEEN_WEIGHT
                self.unseen.add(w)
            else:
                self._weights[w] = min(1.0, stats.idf(w) / top) if top > 0 else 0.5

    def weight(self, word: str) -> float:
        w = norm(word)
        if w in FUNCTION_WORDS:
            return 0.0
        if w not in self._weights:
            self.prime_words([frozenset((w,))])
        return self._weights.get(w, 0.5)

    def phrase(self, stems_or_words: Sequence[str]) -> float:
        """Salience of a phrase: its most distinctive word, a little for the rest."""
        weights = self._weights
        missing = [w for w in stems_or_words if w not in weights]
        if missing:
            self.prime_words([word_vocabulary(missing)])  # one look-up for the words not seen
        ws = [self.weight(w) for w in stems_or_words]
        if not ws:
            return 0.0
        bonus = C.MULTIWORD_BONUS * min(len(ws) - 1, 2)
        return max(ws) * (1 - C.PHRASE_MEAN_SHARE) + sum(ws) / len(ws) * C.PHRASE_MEAN_SHARE + bonus


def word_vocabulary(words_: Iterable[str]) -> frozenset[str]:
    """The content words among single words or stems (each is one token already)."""
    return frozenset(n for n in map(norm, words_) if n and n not in FUNCTION_WORDS)


def _vocabulary(text: str) -> frozenset[str]:
    """The content words of `text` (its analysis: every turn primes the same history)."""
    return analyze(text).vocabulary


def _heuristic_weight(word: str) -> float:
    """Without an index: digits and long words look distinctive, short words do not."""
    if any(c.isdigit() for c in word):
        return 0.9
    if word in COMMON_VERBS:
        return 0.15
    if len(word) >= 7:
        return 0.65
    if len(word) >= 5:
        return 0.45
    return 0.3


def collect_candidates(
    history: Sequence[Turn], salience: Salience, *, window: int, summary: str = ""
) -> list[Candidate]:
    """Antecedent candidates of the last `window` exchanges (+ first user turn, summary),
    best first."""
    ages = exchange_ages(history)
    first_user = next((i for i, t in enumerate(history) if t.role == "user"), None)
    last_asst = max((i for i, t in enumerate(history) if t.role == "assistant"), default=None)
    pool: dict[tuple[str, ...], Candidate] = {}

    def add(p: Phrase, i: int, role: str, base: float) -> None:
        score = salience.phrase(p.stems) * base
        key = p.stems
        cur = pool.get(key)
        if cur is None:
            pool[key] = Candidate(p, score, i, role)
            return
        cur.mentions += 1
        if score > cur.score:
            cur.phrase, cur.turn, cur.role = p, i, role
        cur.score = max(cur.score, score) + C.REPEAT_BONUS * min(score, cur.score)

    if summary:
        for p in analyze(summary).phrases:
            add(p, -1, "summary", C.SUMMARY_WEIGHT)
    for i, turn in enumerate(history):
        age = ages[i]
        in_window = age < window
        if turn.role == "user":
            if (not in_window and i != first_user) or not names_a_subject(history, i):
                continue
            recency = C.RECENCY_DECAY**age if in_window else 0.0
            if i == first_user:
                recency = max(recency, C.FIRST_TURN_WEIGHT)
            for p in analyze(without_preamble(turn.content)).phrases:  # "switching topics"
                add(p, i, "user", recency)
        elif i == last_asst:
            asked = next((t.content for t in reversed(history[:i]) if t.role == "user"), "")
            answer = analyze(turn.content)
            kept = [n for n, s in enumerate(answer.sentences) if not _padding_row(s, asked)]
            for p in answer.phrases_in(kept[: C.ASSISTANT_SENTENCES]):
                add(p, i, "assistant", C.ASSISTANT_WEIGHT)
    return sorted(pool.values(), key=lambda c: -c.score)


_ROW = lexicon.pattern("row")
_BULLET = lexicon.pattern("bullet")


def _padding_row(sentence: str, asked: str) -> bool:
    """A quoted table row ("Level: Senior; Title: Staff engineer; ...") that shares no word
    with the question it answered: padding from a table the question does not name, whose
    words "it" must not bind (handbook: "it" bound a word of a padding row)."""
    bullet = _BULLET.match(sentence)
    line = bullet.group(1) if bullet is not None else sentence
    if _ROW.match(line) is None:
        return False
    return not analyze(asked).stems & analyze(line).stems


def exchange_ages(history: Sequence[Turn]) -> list[int]:
    """0 for the last exchange (last user turn and the answers after it), 1 before, ..."""
    ages = [0] * len(history)
    age = 0
    for i in range(len(history) - 1, -1, -1):
        ages[i] = age
        if history[i].role == "user":
            age += 1
    return ages


def overlaps(stems: Iterable[str], others: Iterable[str]) -> bool:
    return bool(set(stems) & set(others))


_SINGULAR = lexicon.words("singular_pronouns")
_PLURAL = lexicon.words("plural_pronouns")


def agreement(ref: Referent, phrase: Phrase) -> float:
    """Number agreement, guessed from the last word's plural "s" or a coordination ("Norrland
    NR-500 and Norrland NR-900" are they)."""
    word = ref.text.lower()
    if word not in _SINGULAR and word not in _PLURAL:
        return 1.0
    last = phrase.text.split()[-1] if phrase.text.split() else ""
    if (word in _PLURAL) != (looks_plural(last) or " and " in phrase.text):
        return C.NUMBER_MISMATCH
    return 1.0


def singular(ref: Referent) -> bool:
    """ "it", "this", "that": a pronoun that names one thing."""
    return ref.text.lower() in _SINGULAR


def same_number(ref: Referent, earlier: Referent) -> bool:
    """Both referents are marked for the same number by their first word ("those sports
    ... them"), whatever the antecedent bound to the earlier one looks like."""

    def plural(r: Referent) -> bool | None:
        first = r.text.lower().split()[0]
        return True if first in _PLURAL else False if first in _SINGULAR else None

    a, b = plural(ref), plural(earlier)
    return a is not None and a == b


def same_head_pair(found: Sequence[Phrase]) -> tuple[Phrase, Phrase] | None:
    """The first two phrases (best first) that share a head word but differ before it."""
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            both_long = len(a.stems) >= 2 and len(b.stems) >= 2
            if both_long and a.stems[-1] == b.stems[-1] and a.stems[:-1] != b.stems[:-1]:
                return a, b
    return None


def matching(prefer: str, items: list[Phrase]) -> Phrase | None:
    want = set(map(stem, content_words(prefer)))
    for it in items:
        if set(it.stems) == want:
            return it
    return None


def containing(modifier: str, pool: list[Phrase]) -> Phrase | None:
    s = stem(modifier)
    for p in pool:
        if s in p.stems:
            return p
    return None


__all__ = [
    "PREDICATES",
    "PREPOSITIONS",
    "Candidate",
    "Phrase",
    "Salience",
    "TermStatsLookup",
    "agreement",
    "collect_candidates",
    "containing",
    "exchange_ages",
    "matching",
    "overlaps",
    "phrases",
    "same_head_pair",
    "same_number",
    "sentences",
]


def can_be_pointed_at(c: Candidate) -> bool:
    """A number or date alone ("324-337 AD", "thousands") is no thing "it" names, nor is a
    lone lower-case word of the assistant's wording ("purple"): the user's subject is."""
    words = c.phrase.text.split()
    if len(words) > 1 and words[0][:1].isdigit() and _UNIT.match(words[-1].lower()):
        return False  # "12 contiguous weeks": a measure, however it is qualified
    dated = any(ch.isdigit() for ch in c.phrase.text)
    if all(
        any(ch.isdigit() for ch in w)
        or (dated and w.lower().rstrip(".,") in MONTHS)  # "1 January 2026": a date
        or (w.isupper() and len(w) <= 2)
        or w.lower() in _QUANTITY_WORDS
        or (i > 0 and _UNIT.match(w.lower()) is not None and words[i - 1][:1].isdigit())
        for i, w in enumerate(words)
    ):
        return False
    return not (c.role == "assistant" and len(words) == 1 and words[0][:1].islower())


_QUANTITY_WORDS = lexicon.words("quantity_words")


_UNIT = lexicon.pattern("unit")
"""A unit after a number ("10 Gbit/s", "30 minutes"): with it, a measure, no thing."""
