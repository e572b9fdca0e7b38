"""How much of a reference answer a quoted answer says: content-word recall and F1.

The measure of `bench/extractive_answers.py` and the label of the sentence scorer's fit
(`answer.scoring`): a sentence is a good quote when it says words the reference says.
Words are `extractive.terms` (content words, plurals folded), compared as sets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tellmemore.answer.words import fold, terms


def recall_f1(said: set[str], reference: set[str]) -> tuple[float, float]:
    """(recall, F1) of the words `said` against the `reference` words."""
    if not said or not reference:
        return 0.0, 0.0
    shared = len(said & reference)
    if not shared:
        return 0.0, 0.0
    recall, precision = shared / len(reference), shared / len(said)
    return recall, 2 * recall * precision / (recall + precision)


def score_text(answer: str, reference: str) -> tuple[float, float]:
    """(recall, F1) of `answer` against `reference`."""
    return recall_f1(set(terms(answer)), set(terms(reference)))


def oracle(sentences: Sequence[str], reference: str, k: int = 3) -> list[int]:
    """The at most `k` sentences whose words best match `reference` (greedy on F1): the
    best a quoting answer of `k` sentences could do, chosen by looking at the answer."""
    ref = set(terms(reference))
    return greedy([set(terms(s)) for s in sentences], lambda said: (recall_f1(said, ref)[1],), k)


def greedy(
    bags: Sequence[set[str]], gain: Callable[[set[str]], tuple[float, ...]], k: int
) -> list[int]:
    """The at most `k` bags (by index, in order) that greedily raise `gain` of their union,
    each pick the best next one (ties to the earlier), stopping when none raises it."""
    chosen: list[int] = []
    said: set[str] = set()
    best = gain(set())
    for _ in range(k):
        options = [(gain(said | bag), -i) for i, bag in enumerate(bags) if i not in chosen]
        if not options:
            break
        value, neg = max(options)
        if value <= best:
            break
        best = value
        chosen.append(-neg)
        said |= bags[-neg]
    return sorted(chosen)


_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][A-Za-z0-9\-']*")
RARE_IDF = 4.5
"""A word of fewer than ~1 in 90 passages (IDF log(N/df) >= 4.5) is rare: a name or a
term of art, which tells one answer from another."""


def key_facts(reference: str, query: str, passages: str, idf: Callable[[str], float]) -> set[str]:
    """The content of `reference` that distinguishes it as an answer: its numbers, its
    capitalised words inside a sentence (names) and its rare words (`idf` >= RARE_IDF),
    less the words the `query` already says, and only those the `passages` hold (what a
    quoting answer could say at all). "1 hour of sick leave for every 30 hours" holds
    "1" and "30"; "sick" and "leave" were asked."""
    asked = set(terms(query))
    named = {fold(w.lower()) for w in _CAPITALISED.findall(reference)}
    found = set(terms(passages))
    out = set()
    for t in set(terms(reference)):
        if t in asked or t not in found:
            continue
        if any(ch.isdigit() for ch in t) or t in named or idf(t) >= RARE_IDF:
            out.add(t)
    return out
