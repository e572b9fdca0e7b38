"""A learned ask-back gate, replayed on the default trials (issue 22, Exp BW).

    .venv/bin/python bench/ask_gate_replay.py base45 --exclude ultralytics docker \
        [--out bench/results/ask_gate_replay.json]

The default asks back by hand-set gates (`answer.clarify.ask_back`: a first question of at
most two content words that points at nothing or asks a quantity, a description nothing
picks out, ...). On 25 held-out corpora it asks on 27% of the UNDERSPECIFIED turns and on 1%
of the answerable ones; the issue allows 5%. Here a logistic scorer over eight signals read
from the message and its hits decides whether to ask as well, where the default did not:

- the best dense cosine on the corpus's own scale ((d - foreign p50) / (own p50 - foreign
  p50), the index's calibration) and how far the fifth falls below it;
- how many documents the top five come from (an ask needs two to offer);
- the message's content words (log), whether it is the first turn, whether the resolver
  changed it, whether it points at nothing (`vague.points_at_nothing`) and whether it asks a
  value (`stated.asked_value`).

Turns: the default's own turns where it neither asked nor abstained and whose top 5 span two
documents or more. Label: UNDERSPECIFIED. Each corpus is scored by a model fitted on the
others, its threshold the lowest whose added asks on the training corpora's other turns stay
within `FALSE_RATE`. Dev and held-out corpora are totalled apart; no turn is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import tag_trials  # noqa: E402

from tellmemore.answer import ask_gate  # noqa: E402
from tellmemore.answer.calibration import DEFAULT, Calibration  # noqa: E402
from tellmemore.answer.scorer import Scorer, fit  # noqa: E402

MODE = "floor (default)"
FALSE_RATES = (0.02, 0.01)
"""Exp BW registered 0.02 (it failed its rule); 0.01 is the shipped gate's (Exp BW2)."""
L2 = 1.0


def features(row: dict[str, Any], calibration: Calibration) -> list[float] | None:
    """A turn's signals as `ask_gate` reads them, or None when the default already decided
    (ask, abstain) or the top five come from one document (nothing to offer)."""
    if row["action"] != "answer":
        return None
    hits = row["hits"]
    values = ask_gate.signals(
        row["message"],
        row["standalone"] or row["message"],
        row["turn"] == 0,
        [h.get("dense") for h in hits],
        [h["doc"] for h in hits],
        calibration,
    )
    return None if values is None else [values[f] for f in ask_gate.FEATURES]


Rows = dict[str, tuple[str, np.ndarray, np.ndarray, np.ndarray]]


def collect(tag: str, exclude: list[str]) -> Rows:
    """Per corpus: (group, features, underspecified?, answerable?)."""
    out = {}
    for name, group, trial in tag_trials(tag, exclude):
        calibration = Calibration(**trial["calibration"]) if trial.get("calibration") else DEFAULT
        xs, ys, answerable = [], [], []
        for row in trial["rows"]:
            x = features(row, calibration) if row["mode"] == MODE else None
            if x is not None:
                xs.append(x)
                ys.append(float(row["label"] == "UNDERSPECIFIED"))
                answerable.append(row["label"] == "ANSWERABLE")
        out[name] = (group, np.array(xs), np.array(ys), np.array(answerable))
    return out


def fitted(rows: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]], rate: float) -> Scorer:
    return fit(
        "ask_gate",
        ask_gate.FEATURES,
        np.vstack([r[1] for r in rows]),
        np.concatenate([r[2] for r in rows]),
        l2=L2,
        max_positive_rate=rate,
        fitted_on="the default trials of 27 handbook and help-site corpora: a turn the "
        "default answered whose top 5 span two documents; positive when labelled "
        f"UNDERSPECIFIED; L2 {L2:g}, threshold at {rate:g} of the negatives "
        "(bench/ask_gate_replay.py --write)",
    )


def replay(data: Rows, rate: float) -> dict[str, dict[str, int]]:
    """Each corpus decided by the gate fitted on the others, totalled by group."""
    totals: dict[str, dict[str, int]] = {}
    for name, (group, x, y, answerable) in data.items():
        model = fitted([v for k, v in data.items() if k != name], rate)
        asks = np.array([model.decide(dict(zip(ask_gate.FEATURES, r, strict=True))) for r in x])
        t = totals.setdefault(group, Counter())
        t["turns"] += len(y)
        t["underspecified"] += int(y.sum())
        t["asked right"] += int((asks & (y == 1)).sum())
        t["asked answerable"] += int((asks & answerable).sum())
        t["asked other"] += int((asks & (y == 0) & ~answerable).sum())
    return {g: dict(t) for g, t in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag")
    parser.add_argument("--exclude", nargs="*", default=[])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--write", action="store_true", help="ship the gate fitted on all")
    parser.add_argument(
        "--loco-dir",
        type=Path,
        help="write DIR/<corpus>.json: the shipped rate's gate fitted without that corpus, for "
        "an end-to-end run of each corpus with a gate that never saw it",
    )
    args = parser.parse_args()
    data = collect(args.tag, args.exclude)
    result: dict[str, Any] = {"tag": args.tag, "replay": {}}
    for rate in FALSE_RATES:
        result["replay"][str(rate)] = replay(data, rate)
    whole = fitted(list(data.values()), FALSE_RATES[-1])
    result["shipped"] = whole.to_json()
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.loco_dir:
        args.loco_dir.mkdir(parents=True, exist_ok=True)
        for name in data:
            gate = fitted([v for k, v in data.items() if k != name], FALSE_RATES[-1])
            (args.loco_dir / f"{name}.json").write_text(
                json.dumps(gate.to_json(), indent=1) + "\n", encoding="utf-8"
            )
    if args.write:
        path = ROOT / "tellmemore" / "answer" / f"{ask_gate.MODEL}.json"
        path.write_text(json.dumps(whole.to_json(), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
