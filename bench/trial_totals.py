"""Two tags of `bench/default_trials.sh`, compared corpus by corpus and in totals.

    .venv/bin/python bench/trial_totals.py BEFORE_TAG AFTER_TAG [--trials bench/.trials]

`bench/trial_diff.py` compares one corpus's two runs. A change is judged on all of them at
once: the dev handbooks (their turns may be read) and the held-out corpora (totals only).
For each group this prints every corpus's ANSWERABLE turns fully right before -> after, the
group's total, and each failure category whose total moved, plus the turns abstained on and
asked back on by label. A corpus missing from either tag is left out and said so. No turn's
text is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from handbook_corpora import CORPORA

MODE = "floor (default)"


def tally(path: Path) -> tuple[int, Counter[str]]:
    """(ANSWERABLE turns fully right, counts by failure category and by label x action)."""
    rows = [r for r in json.loads(path.read_text(encoding="utf-8"))["rows"] if r["mode"] == MODE]
    counts: Counter[str] = Counter()
    for r in rows:
        if r["category"]:
            counts[r["category"]] += 1
        if r["label"] != "ANSWERABLE" and r["action"] != "answer":
            counts[f"{r['label']} turns: {r['action']}"] += 1
    right = sum(r["label"] == "ANSWERABLE" and r["category"] is None for r in rows)
    return right, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--trials", type=Path, default=Path(__file__).parent / ".trials")
    args = parser.parse_args()
    groups = {
        "dev": [n for n, c in CORPORA.items() if not c.held_out],
        "held out": [n for n, c in CORPORA.items() if c.held_out],
    }
    for group, names in groups.items():
        right = [0, 0]
        counts: list[Counter[str]] = [Counter(), Counter()]
        for name in names:
            paths = [args.trials / f"trial_{tag}_{name}.json" for tag in (args.before, args.after)]
            if not all(p.exists() for p in paths):
                print(f"  {name}: left out (no trial for both tags)")
                continue
            (r0, c0), (r1, c1) = tally(paths[0]), tally(paths[1])
            print(f"  {name:14} {r0} -> {r1}")
            right[0] += r0
            right[1] += r1
            counts[0] += c0
            counts[1] += c1
        print(f"{group}: fully right {right[0]} -> {right[1]}")
        for key in sorted(set(counts[0]) | set(counts[1])):
            if counts[0][key] != counts[1][key]:
                print(f"    {key}: {counts[0][key]} -> {counts[1][key]}")


if __name__ == "__main__":
    main()
