"""Where the answer's missing sentence stood: a handbook trial's misses, by cause.

    .venv/bin/python bench/wrong_sentence_ranks.py bench/results/tts_handbook_trial.json [--quiet]

Each labelled turn of the trial (`trial_answers.answerable_rows`) is answered again from its
kept hits with the shipped settings (`trial_answers.replay`). For every turn whose answer
misses an `expect` string, it tells where a sentence holding one stood:

- `not read`: only in a hit below the top MAX_CHUNKS, which the answer does not read;
- `ranked 2-4`: read, and the scorer put it second to fourth, yet it was not quoted (the
  choice of the quoted sentences passed it over: spread, asked words, nearest);
- `ranked 5+`: read, ranked lower;
- `not a sentence`: read passages hold the string, no candidate does (a heading, a string
  across two units);
- `nowhere`: no hit holds it (retrieval, or a binding that searched for something else).

Session 27 read the Clef and TTS turns this way: 11 of 27 wrong-sentence turns were
`ranked 2-4`, which led to `retrieval.spread_gap_single` 0.05 -> 0.02
(bench/results/spread_gap.md). `--quiet` prints the counts only (PostHog is held out: never
read its turns).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from sentence_screen import CachedEmbed  # noqa: E402
from trial_answers import answerable_rows, hits_of, holds, replay  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402


def cause(row: dict[str, Any], passages: dict[str, str], embed: Any) -> tuple[str, list[int]]:
    """The cause of a missed turn, and the scorer's ranks (0 = best) of the read
    candidates holding an `expect` string."""
    hits = hits_of(row, passages)
    read = hits[: extractive.MAX_CHUNKS]
    units = [quotable(extractive.units(h.chunk.text, h.chunk.header)) for h in read]
    candidates = extractive.candidates_of(units)
    query = row["standalone"]
    ranks: list[int] = []
    if candidates:
        headers = [h.chunk.header or h.chunk.title or "" for h in read]
        x = scoring.features(
            query,
            candidates,
            headers,
            asked_type(query),
            embed,
            scoring.passage_ranks([h.dense for h in read]),
        )
        order = list(np.argsort(-scoring.shipped().probabilities(x)))
        ranks = sorted(
            order.index(i)
            for i, c in enumerate(candidates)
            if any(holds(c.text, [e]) for e in row["expect"])
        )
    if ranks:
        return ("ranked 2-4" if ranks[0] <= 3 else "ranked 5+"), ranks
    if any(holds(h.chunk.text, [e]) for h in read for e in row["expect"]):
        return "not a sentence", ranks
    if any(holds(h.chunk.text, [e]) for h in hits for e in row["expect"]):
        return "not read", ranks
    return "nowhere", ranks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trial", type=Path)
    ap.add_argument("--quiet", action="store_true", help="counts only (held-out trials)")
    args = ap.parse_args()
    trial = json.loads(args.trial.read_text(encoding="utf-8"))
    passages = trial["passages"]
    embed = CachedEmbed({})
    counts: Counter[str] = Counter()
    rows = answerable_rows(trial)
    for row in rows:
        if holds(replay(row, passages, embed), row["expect"]):
            continue
        why, ranks = cause(row, passages, embed)
        counts[why] += 1
        if not args.quiet:
            print(f"{row['conversation']}.{row['turn']}: {why} {ranks} | {row['standalone']}")
    print(
        f"{args.trial.name}: {sum(counts.values())} of {len(rows)} answers miss; "
        + ", ".join(f"{k} {v}" for k, v in counts.most_common())
    )


if __name__ == "__main__":
    main()
