"""What the sentence scorer is fitted to: which candidates of a turn are "in the answer".

Shared by bench/extractive_answers.py (which fits the shipped weights) and
bench/extractive_labels.py (which compares the labels held out). A label scheme gives each
candidate sentence a gain against the turn's reference answer and picks the at most 3
sentences a greedy oracle would quote:

- `f1`: content-word F1 (`answer.overlap`), the first label;
- `idf`: IDF-weighted F1 (a shared rare word counts more than a shared common one);
- `facts`: the reference's key facts (`overlap.key_facts`: numbers, names, rare words the
  question does not say) first, F1 to break ties. MTRAG's references are long and retell
  a stretch of one passage, so under `f1` the oracle's picks are long early sentences of
  the top passage; under `facts` they are the sentences that state what was asked.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from tellmemore.answer.overlap import greedy as overlap_greedy
from tellmemore.answer.overlap import key_facts, recall_f1
from tellmemore.answer.words import terms
from tellmemore.ingest.sentences import split_sentences

LABELS = ("f1", "idf", "facts", "lead")
ORACLE_SENTENCES = 3
Idf = Callable[[str], float]


def rarity(passages: Iterable[str]) -> Idf:
    """IDF of a term over the distinct `passages` (the gold passages of every set)."""
    distinct = set(passages)
    df: Counter[str] = Counter()
    for p in distinct:
        df.update(set(terms(p)))
    n = len(distinct)
    return lambda t: math.log((1 + n) / (1 + df[t]))


def weighted_f1(said: set[str], ref: set[str], idf: Idf) -> float:
    """F1 of the words `said` against `ref`, each word weighted by its IDF."""
    shared = sum(idf(t) for t in said & ref)
    if not shared:
        return 0.0
    recall = shared / sum(idf(t) for t in ref)
    precision = shared / sum(idf(t) for t in said)
    return 2 * recall * precision / (recall + precision)


def greedy(bags: Sequence[set[str]], gain: Callable[[set[str]], tuple]) -> list[int]:
    """The at most ORACLE_SENTENCES candidates that greedily maximise `gain`."""
    return overlap_greedy(bags, gain, ORACLE_SENTENCES)


def labels(
    texts: Sequence[str], reference: str, query: str, scheme: str, idf: Idf
) -> tuple[np.ndarray, np.ndarray]:
    """(gain of each candidate, 1 for the candidates the scheme's oracle quotes)."""
    bags = [set(terms(t)) for t in texts]
    ref = set(terms(reference))
    f1 = np.array([recall_f1(b, ref)[1] for b in bags])
    if scheme == "f1":
        gain = f1
        chosen = greedy(bags, lambda s: (recall_f1(s, ref)[1],))
    elif scheme == "idf":
        gain = np.array([weighted_f1(b, ref, idf) for b in bags])
        chosen = greedy(bags, lambda s: (weighted_f1(s, ref, idf),))
    elif scheme == "facts":  # F1 breaks ties, and decides alone without a key fact
        facts = key_facts(reference, query, " ".join(texts), idf)
        share = np.array([len(b & facts) / len(facts) if facts else 0.0 for b in bags])
        gain = 0.5 * share + 0.5 * f1
        chosen = greedy(bags, lambda s: (len(s & facts), recall_f1(s, ref)[1]))
    elif scheme == "lead":  # the reference's opening sentence, less what the query says
        opening = split_sentences(reference.strip())[:1]
        lead = set(terms(" ".join(opening))) - set(terms(query))
        gain = np.array([weighted_f1(b, lead, idf) if lead else 0.0 for b in bags])
        gain = 0.5 * gain + 0.5 * f1
        chosen = greedy(
            bags,
            lambda s: (round(weighted_f1(s, lead, idf), 6) if lead else 0.0, recall_f1(s, ref)[1]),
        )
    else:
        raise ValueError(f"unknown label scheme {scheme!r}: one of {', '.join(LABELS)}")
    member = np.zeros(len(texts))
    member[chosen] = 1.0
    return gain, member


def fact_recall(answer: str, reference: str, query: str, passages: str, idf: Idf) -> float | None:
    """The share of the reference's key facts `answer` holds (None: it has none)."""
    facts = key_facts(reference, query, passages, idf)
    if not facts:
        return None
    return len(set(terms(answer)) & facts) / len(facts)
