"""Does the sentence scorer carry over with other supervision or one feature cleaned?
Two variants of the shipped fit, judged where they were not fitted (issue 21).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/scorer_transfer.py \
        --cases /work/cache/fr_cases.pkl --cache /work/cache/bench_md \
        --embeddings /work/cache/bench_md/extractive_vectors.npz

The shipped weights are fitted on MTRAG's retrieved passages, whose references are long
retellings (`bench/extractive_fit_retrieved.py`). The handbooks ask short factual
questions ("when does the referral bonus get paid out?"), and their misses are mostly the
right passage quoted by the wrong sentences. So:

- **handbook labels** (`--reps`): the Clef trial's labelled turns (the dev handbook: the
  sentences of the read passages holding an `expect` string are positive) are added to the
  MTRAG rows, repeated `rep` times to weigh more. Judged on MTRAG leave-one-domain-out
  (Clef is in every fit), MTRAG-UN (test only), and by replaying the TTS and PostHog trials'
  answers from their kept hits (`bench/trial_answers.py`; PostHog as a count only).
- **answer type without yes/no** (`--variants`): the `answer_type` feature fires for a
  yes/no question on any sentence holding "not", "can", "must" ... and per-turn AUC shows
  it is noise there (0.47-0.55) while it ranks for value questions (when, how many, who:
  0.56-0.80). The variant sets it to 0 for yes/no questions, so its weight is fitted on the
  value questions alone.

Every fit is the shipped one (`extractive_fit_retrieved.rows` and `scoring.fit`, L2 10);
the threshold is chosen on the fitting MTRAG domains as the shipped fit chooses it, or
fixed (`--threshold`) to tell the ranking from the answer length apart. Results:
bench/results/scorer_transfer.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extractive_answers import DATA, DOMAINS, UN_DOMAINS, CachedEmbed  # noqa: E402
from extractive_fit_retrieved import (  # noqa: E402
    GAP,
    THRESHOLDS,
    f1,
    retrieved_cases,
    rows,
    turn_f1s,
)
from paired_f1 import compare  # noqa: E402
from trial_answers import answerable_rows, hits_of, holds, replay  # noqa: E402

import tellmemore.answer.scoring as scoring  # noqa: E402
from tellmemore.answer import extractive  # noqa: E402
from tellmemore.answer.answer_types import AnswerType, asked_type  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402

TRIALS = {
    "clef": ROOT / "bench" / "results" / "handbook_trial.json",
    "tts": ROOT / "bench" / "results" / "tts_handbook_trial.json",
    "posthog": ROOT / "bench" / "results" / "posthog_handbook_trial.json",
}
L2 = 10.0
"""The shipped fit's penalty (sentence_weights.json)."""


def handbook_rows(trial: dict[str, Any], embed: CachedEmbed) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows of the candidates each labelled turn's answer reads (its top
    MAX_CHUNKS kept hits), 1 for a candidate holding one of the turn's `expect` strings;
    turns none of whose candidates holds one are left out."""
    xs, ys = [], []
    for row in answerable_rows(trial):
        hits = hits_of(row, trial["passages"])[: extractive.MAX_CHUNKS]
        units = [quotable(extractive.units(h.chunk.text, h.chunk.header)) for h in hits]
        candidates = extractive.candidates_of(units)
        y = np.array([float(any(holds(c.text, [e]) for e in row["expect"])) for c in candidates])
        if not y.any():
            continue
        query = row["standalone"]
        headers = [h.chunk.header or h.chunk.title or "" for h in hits]
        ranks = scoring.passage_ranks([h.dense for h in hits])
        xs.append(scoring.features(query, candidates, headers, asked_type(query), embed, ranks))
        ys.append(y)
    return np.vstack(xs), np.concatenate(ys)


def fit(
    cases: Sequence[Any],
    embed: CachedEmbed,
    extra: tuple[np.ndarray, np.ndarray] | None,
    rep: int,
    threshold: float | None,
) -> scoring.Scorer:
    """The shipped fit on `cases` (MTRAG turns), with `extra` rows repeated `rep` times."""
    x, y = rows(cases, embed)
    if extra is not None and rep > 0:
        x = np.vstack([x, *[extra[0]] * rep])
        y = np.concatenate([y, *[extra[1]] * rep])
    scorer = scoring.fit(x, y, l2=L2)
    if threshold is not None:
        return replace(scorer, threshold=threshold)
    best = max(THRESHOLDS, key=lambda t: f1(cases, embed, replace(scorer, threshold=t), GAP))
    return replace(scorer, threshold=best)


def replayed(trial: dict[str, Any], embed: CachedEmbed, scorer: scoring.Scorer) -> list[bool]:
    """Per labelled turn of `trial`: every `expect` string in the replayed answer."""
    return [
        holds(replay(row, trial["passages"], embed, scorer), row["expect"])
        for row in answerable_rows(trial)
    ]


def measure(
    cases: dict[str, list[Any]],
    embed: CachedEmbed,
    trials: dict[str, dict[str, Any]],
    extra: tuple[np.ndarray, np.ndarray] | None,
    rep: int,
    threshold: float | None,
) -> dict[str, Any]:
    """Held-out answer F1 per MTRAG domain (fitted on the other two, plus `extra`), MTRAG-UN
    (fitted on all three) and the trials replayed with that all-three fit."""
    out: dict[str, Any] = {}
    for d in DOMAINS:
        train = [c for o in DOMAINS if o != d for c in cases[o]]
        out[d] = turn_f1s(cases[d], embed, fit(train, embed, extra, rep, threshold), GAP).tolist()
    scorer = fit([c for o in DOMAINS for c in cases[o]], embed, extra, rep, threshold)
    for d in UN_DOMAINS:
        out[f"un/{d}"] = turn_f1s(cases[f"un/{d}"], embed, scorer, GAP).tolist()
    out["trials"] = {name: replayed(t, embed, scorer) for name, t in trials.items()}
    out["threshold"] = scorer.threshold
    out["weights"] = {k: round(w, 4) for k, w in zip(scoring.FEATURES, scorer.weights, strict=True)}
    return out


def without_yes_no(holds_fn: Callable[[str, AnswerType], bool]) -> Callable[..., bool]:
    """`answer_types.holds` as the scorer reads it, never true for a yes/no question."""

    def held(text: str, kind: AnswerType) -> bool:
        return kind is not AnswerType.YES_NO and holds_fn(text, kind)

    return held


def render(payloads: Sequence[dict[str, Any]]) -> str:
    """Each run against its base: mean F1 and the paired interval per set, trial counts."""
    sets = [*DOMAINS, *(f"un/{d}" for d in UN_DOMAINS)]
    head = ["run", "threshold", *sets, *(f"{t} replayed" for t in TRIALS)]
    lines = []
    for payload in payloads:
        base = payload["runs"]["base"]
        lines += [f"`{payload['command']}`", "", "| " + " | ".join(head) + " |"]
        lines.append("| " + " | ".join("---" for _ in head) + " |")
        for name, run in payload["runs"].items():
            cells = [name, f"{run['threshold']:g}"]
            for s in sets:
                mean = float(np.mean(run[s]))
                if name == "base":
                    cells.append(f"{mean:.4f}")
                    continue
                c = compare(base[s], run[s])
                cells.append(f"{mean:.4f} ({c['mean']:+.4f} [{c['low']:+.3f}, {c['high']:+.3f}])")
            cells += [f"{sum(run['trials'][t])}/{len(run['trials'][t])}" for t in TRIALS]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, required=True, help="the retrieved turns, kept")
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--embeddings", type=Path, required=True)
    ap.add_argument("--reps", default="1,3,10", help="weights of the Clef rows to try")
    ap.add_argument("--threshold", type=float, help="fix the threshold (default: fitted)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scorer_transfer")
    ap.add_argument("--render", type=Path, nargs="*", help="only write the tables of these runs")
    args = ap.parse_args()
    if args.render:
        payloads = [json.loads(p.read_text(encoding="utf-8")) for p in args.render]
        print(render(payloads))
        return
    started = time.time()
    embed = CachedEmbed(args.embeddings)
    cases = retrieved_cases(args.cases, DATA, args.cache)
    trials = {k: json.loads(p.read_text(encoding="utf-8")) for k, p in TRIALS.items()}
    clef = handbook_rows(trials["clef"], embed)
    runs: dict[str, Any] = {"base": measure(cases, embed, trials, None, 0, args.threshold)}
    for rep in (int(r) for r in args.reps.split(",") if r):
        runs[f"clef x{rep}"] = measure(cases, embed, trials, clef, rep, args.threshold)
        print(f"clef x{rep}", round(time.time() - started), "s", flush=True)
    shipped_holds = scoring.holds
    scoring.holds = without_yes_no(shipped_holds)  # type: ignore[assignment]
    try:
        runs["no yes/no type"] = measure(cases, embed, trials, None, 0, args.threshold)
    finally:
        scoring.holds = shipped_holds  # type: ignore[assignment]
    payload = {
        "command": " ".join(["bench/scorer_transfer.py", *sys.argv[1:]]),
        "clef_rows": len(clef[1]),
        "clef_positives": int(clef[1].sum()),
        "runs": runs,
        "seconds": round(time.time() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(payload) + "\n", encoding="utf-8")
    print(f"{args.out.with_suffix('.json')}: {payload['seconds']} s")


if __name__ == "__main__":
    main()
