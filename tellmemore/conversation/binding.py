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
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from tellmemore.conversation import constants as C
from tellmemore.conversation.text import (
    COMMON_VERBS,
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    Token,
    is_protected,
    norm,
    stem,
    tokenize,
)
from tellmemore.types import TermStats, Turn

TermStatsLookup = Callable[[Iterable[str]], TermStats]

_PREPS = frozenset(
    """
        on in at for of about with to from by under during
        """.split()  # noqa: SIM905 - a word list reads better as text
)
_DETS = frozenset(
    """
        the a an this that these those my your our their its
        """.split()  # noqa: SIM905 - a word list reads better as text
)
_JOINERS = frozenset({"of", "and", "&", "de", "du", "la", "von", "van"})
"""Joiners allowed inside a capitalised name ("Bank of America")."""
_BREAK_PUNCT = re.compile(r"[,.;:?!()\[\]\"“”]|\s[-–—]\s")
_SENTENCE_END = re.compile(r"[.!?:]\s|\n")
_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "seem", "seems"})
_ADJECTIVE_ENDINGS = (
    "al", "ive", "ous", "ful", "able", "ible", "ic", "ant", "ent", "less", "ing", "ed", "ly",
)  # fmt: skip
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•·▪●]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+(.*\S)")
_LEAD_CHARS = 80
"""Only a sentence's opening can hold its list label."""
_COUNT_WORDS = frozenset(  # an announcement ("Two tiers.") is no item
    """
        two three four five both several following options tiers
        """.split()  # noqa: SIM905 - a word list reads better as text
)


@dataclass(frozen=True)
class Phrase:
    """A run of content words in one text, as written there."""

    text: str
    stems: tuple[str, ...]
    prep: str | None = None
    """The preposition before it in its sentence ("on" in "on cloud connect")."""
    capitalized: bool = False
    det: bool = False
    """Written after a determiner ("the monthly pass"): substitutions keep one."""


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

    def prime(self, texts: Iterable[str]) -> None:
        vocab = {norm(t.text) for text in texts for t in tokenize(text)}
        vocab -= FUNCTION_WORDS
        vocab -= self._weights.keys()
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
            else:
                self._weights[w] = min(1.0, stats.idf(w) / top) if top > 0 else 0.5

    def weight(self, word: str) -> float:
        w = norm(word)
        if w in FUNCTION_WORDS:
            return 0.0
        if w not in self._weights:
            self.prime([w])
        return self._weights.get(w, 0.5)

    def phrase(self, stems_or_words: Sequence[str]) -> float:
        """Salience of a phrase: its most distinctive word, a little for the rest."""
        ws = [self.weight(w) for w in stems_or_words]
        if not ws:
            return 0.0
        bonus = C.MULTIWORD_BONUS * min(len(ws) - 1, 2)
        return max(ws) * (1 - C.PHRASE_MEAN_SHARE) + sum(ws) / len(ws) * C.PHRASE_MEAN_SHARE + bonus


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


def phrases(text: str) -> list[Phrase]:
    """Noun-phrase-like runs of content words of `text`, left to right.

    No tagger: runs break at function words, frequent verbs and punctuation; a lone
    word that reads as an adjective, a participle, a predicate ("is crucial") or a
    generic noun ("week", "things") is no antecedent.
    """
    toks = tokenize(text)
    out: list[Phrase] = []
    run: list[Token] = []
    prep: str | None = None
    last_prep: str | None = None
    det = False
    last_det = False
    before = ""
    last_fn = ""
    initial: set[int] = set()

    def flush() -> None:
        nonlocal run
        while run and run[-1].low in _JOINERS:
            run.pop()
        if run and _is_antecedent(run, before, det, initial):
            out.extend(_cut(text, run, prep, det, initial))
        run = []

    for i, tok in enumerate(toks):
        between = text[toks[i - 1].end : tok.start] if i else ""
        if i == 0 or _SENTENCE_END.search(between):
            initial.add(tok.start)
        if i > 0 and _BREAK_PUNCT.search(between):
            flush()
            last_prep, last_det, last_fn = None, False, ""
        low = norm(tok.text)
        joiner = (
            low in _JOINERS
            and run
            and run[-1].text[:1].isupper()
            and i + 1 < len(toks)
            and toks[i + 1].text[:1].isupper()
        )
        if joiner or (low not in FUNCTION_WORDS and low not in COMMON_VERBS and low):
            if not run:
                prep, det, before = last_prep, last_det, last_fn
            run.append(tok)
            continue
        flush()
        last_fn = low
        if low in _DETS:
            last_det = True
        else:
            last_prep, last_det = (low if low in _PREPS else None), False
    flush()
    return out


def _is_antecedent(run: list[Token], before: str, det: bool, initial: set[int]) -> bool:
    if len(run) > 1:
        return True
    tok = run[0]
    low = norm(tok.text)
    named = tok.text[:1].isupper() and tok.start not in initial
    if named or is_protected(tok.text):
        return True
    if low in GENERIC_NOUNS or (before in _COPULAS and not det):
        return False
    return not low.endswith(_ADJECTIVE_ENDINGS)


def _cut(
    text: str, run: list[Token], prep: str | None, det: bool, initial: set[int]
) -> list[Phrase]:
    """Runs longer than MAX_PHRASE_WORDS are cut into pieces of that size."""
    pieces = [run[i : i + C.MAX_PHRASE_WORDS] for i in range(0, len(run), C.MAX_PHRASE_WORDS)]
    out = []
    for n, piece in enumerate(pieces):
        stems = tuple(stem(t.text) for t in piece if norm(t.text) not in _JOINERS)
        if not stems:
            continue
        caps = any(
            (t.text[:1].isupper() and t.start not in initial) or is_protected(t.text) for t in piece
        )
        out.append(
            Phrase(
                text=text[piece[0].start : piece[-1].end],
                stems=stems,
                prep=prep if n == 0 else None,
                capitalized=caps,
                det=det and n == 0,
            )
        )
    return out


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def list_items(answer: str, *, loose: bool = False) -> list[Phrase]:
    """The alternatives an answer enumerates, in order (bullets, numbers, or parallel
    sentences such as "Standard escalation routes ... Enterprise escalation adds ...").

    `loose` also splits a short answer into coordinated clauses ("Late returns cost ...,
    and damage must be reported"): good enough for "the second one", too weak to call
    two alternatives a coin flip."""
    lines = [m.group(1) for line in answer.splitlines() if (m := _BULLET.match(line))]
    if len(lines) >= 2:
        return [p for p in (_label(line) for line in lines) if p is not None]
    items = _parallel_sentences(sentences(answer), answer)
    if items or not loose:
        return items
    return _clauses(answer)


def _label(item: str) -> Phrase | None:
    """ "Standard: routes to the on-call queue" -> "Standard"; else the item's first phrase."""
    head = re.split(r"\s*(?::|\s[-–—]\s)\s*", item, maxsplit=1)[0]
    if head != item and 0 < len(tokenize(head)) <= C.MAX_LABEL_WORDS:
        ps = phrases(head)
        if ps:
            label = head.strip(" *_")
            return Phrase(label, tuple(s for p in ps for s in p.stems), None, True)
    ps = phrases(item)
    return ps[0] if ps else None


def _parallel_sentences(sents: list[str], answer: str) -> list[Phrase]:
    """Consecutive sentences opening with capitalised phrases that share a head word."""
    leads: list[Phrase | None] = []
    for s in sents:
        ps = phrases(s[:_LEAD_CHARS])
        starts = bool(ps) and s.startswith(ps[0].text) and ps[0].text[:1].isupper()
        leads.append(ps[0] if starts else None)
    best: list[Phrase] = []
    i = 0
    while i < len(leads):
        j = i
        while j < len(leads) and leads[j] is not None:
            j += 1
        group = [p for p in leads[i:j] if p is not None and p.stems[0] not in _COUNT_WORDS]
        for labels in _shared_runs(group):
            if len(labels) > len(best):
                best = labels
        if not best and len(group) >= 2 and _COUNT_WORDS & set(answer.lower().split()):
            best = [_truncate(p, 2) for p in group]
        i = j + 1
    return best


def _shared_runs(group: list[Phrase]) -> Iterator[list[Phrase]]:
    """Maximal consecutive sub-runs (2+) of lead phrases sharing a head word."""
    start = 0
    while start < len(group) - 1:
        end = start + 1
        while end < len(group) and _shared_head_labels(group[start : end + 1]) is not None:
            end += 1
        if end - start >= 2:
            labels = _shared_head_labels(group[start:end])
            if labels is not None:
                yield labels
        start = max(end, start + 1) if end - start >= 2 else start + 1


def _shared_head_labels(group: list[Phrase]) -> list[Phrase] | None:
    """Cut every lead phrase after the word all of them share ("escalation")."""
    common = set(group[0].stems[1:])
    for p in group[1:]:
        common &= set(p.stems[1:])
    if not common:
        return None
    out = []
    for p in group:
        cut = max(i for i, s in enumerate(p.stems) if s in common)
        out.append(_truncate(p, cut + 1))
    return out


def _truncate(p: Phrase, n: int) -> Phrase:
    toks = tokenize(p.text)[:n]
    if not toks:
        return p
    return Phrase(p.text[: toks[-1].end], p.stems[:n], p.prep, p.capitalized, p.det)


def _clauses(answer: str) -> list[Phrase]:
    """A short answer of coordinated clauses ("Late returns cost ..., and damage must ...")."""
    sents = sentences(answer)
    if len(sents) > 2:
        return []
    parts = [c for s in sents for c in re.split(r";\s+|,\s+(?:and|but|while)\s+", s) if c]
    if len(parts) < 2:
        return []
    out = []
    for part in parts:
        ps = phrases(part)
        if not ps:
            return []
        out.append(ps[0])
    return out


def collect_candidates(
    history: Sequence[Turn], salience: Salience, *, window: int, summary: str = ""
) -> list[Candidate]:
    """Antecedent candidates of the last `window` exchanges (+ first user turn, summary),
    best first."""
    ages = _exchange_ages(history)
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
        for p in phrases(summary):
            add(p, -1, "summary", C.SUMMARY_WEIGHT)
    for i, turn in enumerate(history):
        age = ages[i]
        in_window = age < window
        if turn.role == "user":
            if not in_window and i != first_user:
                continue
            recency = C.RECENCY_DECAY**age if in_window else 0.0
            if i == first_user:
                recency = max(recency, C.FIRST_TURN_WEIGHT)
            for p in phrases(turn.content):
                add(p, i, "user", recency)
        elif i == last_asst:
            text = " ".join(sentences(turn.content)[: C.ASSISTANT_SENTENCES])
            for p in phrases(text):
                add(p, i, "assistant", C.ASSISTANT_WEIGHT)
    return sorted(pool.values(), key=lambda c: -c.score)


def _exchange_ages(history: Sequence[Turn]) -> list[int]:
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
