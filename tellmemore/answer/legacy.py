"""The first extractive ranking, hand-set: query words shared with a sentence, weighted
by their rarity in the retrieved set, plus a chunk-rank prior and bonuses.

Kept as the baseline of `bench/extractive_answers.py` (`best_sentences(legacy=True)`):
the fitted scorer (`answer.scoring`) replaced it as the default.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from tellmemore.answer.answer_types import AnswerType, asked_type, holds
from tellmemore.answer.units import Unit
from tellmemore.answer.words import terms
from tellmemore.types import Hit

HEADER_WEIGHT = 0.5
"""Weight of query terms a sentence inherits from its chunk header."""
RELATIVE_FLOOR = 0.5
"""A sentence scoring below half the best one is not worth quoting."""
ANSWER_TYPE_WEIGHT = 2.0
"""Bonus of a sentence that shares a query word and states an answer of the kind asked
("how long" and "within 30 minutes"): about one rare shared word."""


_LEGACY_KINDS = frozenset(
    (AnswerType.DURATION, AnswerType.PRICE, AnswerType.TIME, AnswerType.COUNT)
)
"""The kinds the hand-set score knew (`legacy=True` reproduces it)."""

Scored = tuple[float, int, int, str]
"""(score, chunk index, unit index, text) of a candidate."""


def scores(
    query: str, hits: Sequence[Hit], chunk_units: Sequence[Sequence[Unit]], q_terms: set[str]
) -> list[Scored]:
    """The hand-set score: query words shared (weighted by rarity in the retrieved set),
    a row's named key, the chunk heading's words at a discount, a chunk-rank prior and the
    answer-type bonus."""
    kind = asked_type(query)
    if kind not in _LEGACY_KINDS:
        kind = None
    candidates: list[tuple[int, int, str, list[str], set[str]]] = []
    for hi, us in enumerate(chunk_units):
        for si, unit in enumerate(us):
            row_key = set(terms(unit.key)) if unit.row else set()  # a label: no bonus (F1)
            candidates.append((hi, si, unit.text, terms(unit.text), row_key))
    df: Counter[str] = Counter()
    for *_, toks, _key in candidates:
        df.update(set(toks))
    n = len(candidates)
    scored: list[Scored] = []
    header_terms = [set(terms(h.chunk.header)) for h in hits[: len(chunk_units)]]
    typed = set(terms(query))
    for hi, si, sentence, toks, key in candidates:
        overlap = typed.intersection(toks)
        # sorted: a float sum in set order would depend on the process's string hash seed,
        # and a near-tie at RELATIVE_FLOOR could then quote other sentences on another run
        lexical = sum(math.log(1 + n / df[t]) for t in sorted(overlap))
        days = sorted((q_terms - typed).intersection(toks))
        if days:  # "weekends" held by "Saturday and Sunday": one word's worth, not two
            lexical += max(math.log(1 + n / df[t]) for t in days)
        # A row is about its first cell: "Business" in the query picks the Business row,
        # not the Starter row that mentions "business days" (the whole cell: "Sev 2", not
        # the "Sev" of every row).
        if key and key <= q_terms:
            lexical += sum(math.log(1 + n / df[t]) for t in sorted(key & overlap))
        # A sentence is also about its chunk's subject ("... > Enterprise tier"), at a discount.
        inherited = (q_terms & header_terms[hi]) - overlap
        lexical += HEADER_WEIGHT * sum(math.log(1 + n / max(df[t], 1)) for t in sorted(inherited))
        prior = 1.0 / (1 + hi)
        if kind is not None and (overlap or inherited) and holds(sentence, kind):
            lexical += ANSWER_TYPE_WEIGHT  # "within how long?": the sentence with a duration
        length_penalty = 1.0 if len(toks) >= 3 else 0.5
        scored.append(((lexical + prior) * length_penalty, hi, si, sentence))
    return scored


def choice(scored: list[Scored], max_sentences: int) -> list[Scored]:
    """One sentence per chunk first (the best of each good chunk), so an answer over two
    tiers quotes both; then the next best, all above RELATIVE_FLOOR of the best."""
    scored = sorted(scored, key=lambda s: (-s[0], s[1], s[2]))
    top = scored[0][0]
    chosen: list[Scored] = []
    seen_chunks: set[int] = set()
    for cand in scored:
        if cand[1] not in seen_chunks and cand[0] >= RELATIVE_FLOOR * top:
            chosen.append(cand)
            seen_chunks.add(cand[1])
    for cand in scored:
        if len(chosen) >= max_sentences:
            break
        if cand not in chosen and cand[0] >= RELATIVE_FLOOR * top:
            chosen.append(cand)
    return chosen
