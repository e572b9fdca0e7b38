"""Where one tag's default trials fail, one level below their categories (totals only).

    .venv/bin/python bench/failure_causes.py TAG [--exclude ultralytics docker]

`bench/trial_totals.py` counts each failure category. This splits the two largest:
- "right passage, wrong sentences": the rank (1-5) of the first hit holding every `expect`
  string, and whether the turn was searched as typed (standalone query = message);
- "wrong binding": the turn's resolution ("wrong": a labelled binding bound to something
  else; "unresolved": searched as typed and its gold passage not in the first three; "lost")
  and whether its answer still held every `expect` string.
Dev and held-out corpora are totalled apart; no turn's text is printed.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import tag_trials  # noqa: E402
from handbook_trial import _squash  # noqa: E402

MODE = "floor (default)"


def expect_rank(row: dict, passages: dict[str, str]) -> int | None:  # type: ignore[type-arg]
    """1-based rank of the first hit holding every `expect` string (None: no hit does)."""
    wants = [w if isinstance(w, list) else [w] for w in row["expect"]]
    for i, hit in enumerate(row["hits"]):
        text = _squash(passages.get(hit["id"], ""))
        if all(any(_squash(o) in text for o in opts) for opts in wants):
            return i + 1
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag")
    parser.add_argument("--exclude", nargs="*", default=[])
    args = parser.parse_args()
    counts = {"dev": Counter(), "held out": Counter()}  # type: ignore[var-annotated]
    for _, group, trial in tag_trials(args.tag, args.exclude):
        c = counts[group]
        for row in trial["rows"]:
            if row["mode"] != MODE:
                continue
            if row["label"] == "ANSWERABLE":
                c["answerable"] += 1
            if row["category"] == "right passage, wrong sentences":
                typed = _squash(row["standalone"] or "") == _squash(row["message"])
                c[
                    f"wrong sentences: expect passage rank {expect_rank(row, trial['passages'])}"
                ] += 1
                c[f"wrong sentences: searched as typed {typed}"] += 1
            elif row["category"] == "wrong binding":
                held = "answer holds the expect strings" if row["expect_ok"] else "answer misses"
                c[f"wrong binding: {row['resolution']}, {held}"] += 1
    for group, c in counts.items():
        print(f"## {group} ({c.pop('answerable', 0)} answerable turns)")
        for key, n in sorted(c.items()):
            print(f"  {key}: {n}")


if __name__ == "__main__":
    main()
