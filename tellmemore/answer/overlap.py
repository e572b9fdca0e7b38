"""How much of a reference answer a quoted answer says: content-word recall and F1.

The measure of `bench/extractive_answers.py` and the label of the sentence scorer's fit
(`answer.scoring`): a sentence is a good quote when it says words the reference says.
Words are `extractive.terms` (content words, plurals folded), compared as sets.
"""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.answer.words import terms


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
    bags = [set(terms(s)) for s in sentences]
    chosen: list[int] = []
    said: set[str] = set()
    best = 0.0
    for _ in range(k):
        gains = [
            (recall_f1(said | bag, ref)[1], -i) for i, bag in enumerate(bags) if i not in chosen
        ]
        if not gains:
            break
        f1, neg = max(gains)
        if f1 <= best:
            break
        best = f1
        chosen.append(-neg)
        said |= bags[-neg]
    return sorted(chosen)
