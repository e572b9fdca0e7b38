"""Is a difference in extractive F1 between two runs more than noise? Paired, per turn.

    .venv/bin/python bench/paired_f1.py A.json B.json [--gap 0.1]

Reads two `bench/extractive_retrieved.py` results (the same turns, two settings or two
commits) and, per set, reports the mean F1 difference B - A, the turns better / worse, a
95% paired bootstrap interval of the mean difference (10,000 resamples of the turns, seeded)
and the two-sided sign test's p-value over the changed turns. A difference whose interval
holds 0 is not told apart from noise by these turns.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

RESAMPLES = 10_000


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact binomial p-value of `better` against `worse` at 1/2."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(better, worse) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare(
    a: Sequence[float], b: Sequence[float], seed: int = 0, resamples: int = RESAMPLES
) -> dict[str, float]:
    """Mean difference b - a, turns better / worse, bootstrap interval, sign-test p."""
    diff = np.asarray(b) - np.asarray(a)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(resamples, len(diff)))].mean(axis=1)
    better, worse = int((diff > 1e-9).sum()), int((diff < -1e-9).sum())
    return {
        "n": len(diff),
        "mean": float(diff.mean()),
        "better": better,
        "worse": worse,
        "low": float(np.percentile(means, 2.5)),
        "high": float(np.percentile(means, 97.5)),
        "p_sign": sign_test(better, worse),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--gap", default="0.1", help="the spread_gap column to compare")
    args = parser.parse_args()
    a = json.loads(args.before.read_text())["groups"]
    b = json.loads(args.after.read_text())["groups"]
    print("| set | turns | F1 diff | better / worse | 95% interval | sign test p |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in a:
        if name not in b or "per_turn_f1" not in a[name][args.gap]:
            continue
        got = compare(a[name][args.gap]["per_turn_f1"], b[name][args.gap]["per_turn_f1"])
        print(
            f"| {name} | {got['n']} | {got['mean']:+.4f} | {got['better']} / {got['worse']} | "
            f"[{got['low']:+.4f}, {got['high']:+.4f}] | {got['p_sign']:.2f} |"
        )


if __name__ == "__main__":
    main()
