"""How much of the extractive oracle's lead is ranking and how much is answer length.

    .venv/bin/python bench/extractive_selection.py

The same cases as `bench/extractive_answers.py` (MTRAG turns, gold passages, the
assistant's reply as the reference), leave-one-domain-out. Each ranker orders the units
(sentences, list items, table rows) of the passages; the answer is its best `k` units
as they are (no list completion, no pronoun's antecedent: the ranking alone), for k = 1..5,
scored on content-word F1 with its mean length in words:

- `linear`: the logistic scorer over the features (`answer.scoring.FEATURES`), l2 1
  (the shipped kind);
- `pairs`: the same features with their pairwise products (`interactions`), l2 30,
  100 and 300 (not shipped: bench/results/extractive_answers_pairs.md);
- `perfect`: the units ranked by their own F1 against the reference, looking at it: what a
  better ranker could reach at each length.

Needs the bundled MiniLM (embeddings cached with extractive_answers'). Results:
bench/results/extractive_selection.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extractive_answers import (  # noqa: E402
    DATA,
    DOMAINS,
    ORACLE_SENTENCES,
    CachedEmbed,
    Case,
    _units,
    mtrag_cases,
)

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.overlap import oracle, recall_f1  # noqa: E402
from tellmemore.answer.words import terms  # noqa: E402

OUT = ROOT / "bench" / "results" / "extractive_selection"
KS = (1, 2, 3, 4, 5)


@dataclass
class Turn:
    """One case's units with their features, word sets and lengths."""

    x: np.ndarray
    bags: list[set[str]]
    words: list[int]
    reference: set[str]
    oracle: list[int]


def turns(cases: Sequence[Case], embed: CachedEmbed) -> list[Turn]:
    out = []
    for case in cases:
        candidates = extractive.candidates_of(_units(case))
        if not candidates:
            continue
        headers = [h.chunk.header or h.chunk.title or "" for h in case.hits]
        x = scoring.features(case.query, candidates, headers, asked_type(case.query), embed)
        texts = [c.text for c in candidates]
        out.append(
            Turn(
                x=x,
                bags=[set(terms(t)) for t in texts],
                words=[len(t.split()) for t in texts],
                reference=set(terms(case.reference)),
                oracle=oracle(texts, case.reference, ORACLE_SENTENCES),
            )
        )
    return out


def top_k(turn: Turn, scores: np.ndarray, k: int) -> tuple[float, int]:
    """(F1, words) of the `k` best-scored units."""
    best = np.argsort(-scores, kind="stable")[:k]
    said = set().union(*(turn.bags[i] for i in best))
    return recall_f1(said, turn.reference)[1], sum(turn.words[i] for i in best)


def _fit(train: Sequence[Turn], **kw: float | bool) -> Callable[[Turn], np.ndarray]:
    x = np.vstack([t.x for t in train])
    y = np.concatenate([[float(i in t.oracle) for i in range(len(t.bags))] for t in train])
    scorer = scoring.fit(x, y, **kw)  # type: ignore[arg-type]
    return lambda t: scorer.probabilities(t.x)


def _perfect(turn: Turn) -> np.ndarray:
    return np.array([recall_f1(b, turn.reference)[1] for b in turn.bags])


RANKERS: dict[str, Callable[[Sequence[Turn]], Callable[[Turn], np.ndarray]]] = {
    "linear": lambda tr: _fit(tr, l2=1.0),
    "pairs l2 30": lambda tr: _fit(tr, l2=30.0, interactions=True),
    "pairs l2 100": lambda tr: _fit(tr, l2=100.0, interactions=True),
    "pairs l2 300": lambda tr: _fit(tr, l2=300.0, interactions=True),
    "perfect": lambda tr: _perfect,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--embeddings", type=Path, default=ROOT / "bench" / ".cache" / "extractive_vectors.npz"
    )
    args = parser.parse_args()
    embed = CachedEmbed(args.embeddings)
    cases = {d: list(mtrag_cases(args.data, d)) for d in DOMAINS}
    embed.warm([c for group in cases.values() for c in group])
    data = {d: turns(cases[d], embed) for d in DOMAINS}
    results: dict[str, dict[str, dict[str, list[float]]]] = {}
    for held in DOMAINS:
        train = [t for d in DOMAINS if d != held for t in data[d]]
        results[held] = {}
        for name, make in RANKERS.items():
            rank = make(train)
            scored = [(rank(t), t) for t in data[held]]
            pairs = [[top_k(t, s, k) for s, t in scored] for k in KS]
            results[held][name] = {
                "f1": [round(float(np.mean([f for f, _ in p])), 4) for p in pairs],
                "words": [round(float(np.mean([w for _, w in p])), 1) for p in pairs],
            }
            print(held, name, results[held][name], flush=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(report(results))
    print(report(results))


def report(results: dict[str, dict[str, dict[str, list[float]]]]) -> str:
    head = " | ".join(f"k={k}" for k in KS)
    lines = [
        "# Sentence selection: ranking against answer length",
        "",
        "`bench/extractive_selection.py`: MTRAG turns with their gold passages and the "
        "assistant's reply as the reference, leave-one-domain-out. Each cell: the mean "
        "content-word F1 of the `k` best units of a ranker, quoted as they are, and the mean "
        "length in words. `perfect` ranks the units by their own F1 against the reference "
        "(looking at it): what ranking alone could reach at each length. The shipped answer "
        "(`bench/results/extractive_answers.md`) quotes up to 3 units with the `linear` "
        "ranker and completes lists and pronouns around them; `pairs l2 100` in the whole "
        "answer: `bench/results/extractive_answers_pairs.md` (not shipped).",
        "",
        f"| held out | ranker | {head} |",
        "| --- | --- | " + " | ".join("---" for _ in KS) + " |",
    ]
    for held, rankers in results.items():
        for name, r in rankers.items():
            pairs = zip(r["f1"], r["words"], strict=True)
            cells = " | ".join(f"{f:.3f} ({w:.0f} w)" for f, w in pairs)
            lines.append(f"| {held} | {name} | {cells} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
