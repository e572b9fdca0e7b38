"""Learned gates over the default decisions, fitted and replayed on the default trials
(issue 22; Exp BW2: ask back; Exp BX and CB: abstain; Exp BY: answer instead of
abstaining).

    .venv/bin/python bench/learned_gate.py ask off48 --exclude ultralytics docker \
        [--out bench/results/learned_gate_ask.json] [--write] [--loco-dir DIR]
    .venv/bin/python bench/learned_gate.py abstain base45 --exclude ultralytics docker ...
    .venv/bin/python bench/learned_gate.py override base45 --exclude ultralytics docker ...

Each gate is a logistic scorer (`answer.scorer`) over a few `answer.turn_signals`, read from
each recorded turn exactly as a turn reads them:

- `ask` (`answer.ask_gate`, `retrieval.learned_ask`): turns whose top five span two documents
  or more (an ask needs options); positive when labelled UNDERSPECIFIED;
- `abstain` (`answer.abstain_gate`, `retrieval.learned_abstain`): every turn the default
  answered; positive when labelled UNANSWERABLE;
- `override` (`answer.abstain_override`, `retrieval.learned_answer`): every turn the default
  abstained on; positive when labelled ANSWERABLE.

Each corpus is decided by the gate fitted on the others, its threshold the lowest at which
at most a share (`Gate.rates`) of the fitting turns' negatives pass; dev and held-out
corpora are totalled apart, no turn is printed. `--write` ships the gate fitted on every
corpus at its last rate; `--loco-dir DIR` writes DIR/<corpus>.json fitted without that
corpus, for an end-to-end run (`bench/loco_trials.sh`).

Fit on trials run with the learned gates off (`TELLMEMORE_RETRIEVAL__LEARNED_ABSTAIN=false
TELLMEMORE_RETRIEVAL__LEARNED_ANSWER=false`, tag `off48` since session 48, `base45` before):
each gate decides the floor's own verdicts, so the turns another gate moved would leave its
population. The shipped ask gate is fitted on `off48` (41 corpora), the abstention gates on
`base45` (29 corpora; their refit on `off48` failed its test: bench/results/abstain_gate.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import tag_trials  # noqa: E402

from tellmemore.answer import ask_gate, edits, own_gates, turn_signals  # noqa: E402
from tellmemore.answer.calibration import DEFAULT, Calibration  # noqa: E402
from tellmemore.answer.scorer import Scorer, fit  # noqa: E402

MODE = "floor (default)"
L2 = own_gates.L2


@dataclass(frozen=True)
class Gate:
    name: str
    features: tuple[str, ...]
    label: str
    model: str | None
    """The weights file the product reads (None: measured only)."""
    scope: str
    """Which turns it decides, in words (the weights file says it)."""
    action: str
    """The default's action on the turns it decides."""
    rates: tuple[float, ...]
    """Thresholds replayed; the last is the shipped one."""

    def reads(self, values: dict[str, float]) -> bool:
        """The turns this gate decides (the ask gate needs two documents to offer)."""
        return self.name != "ask" or ask_gate.reachable(values)


SPEC = {spec.name: spec for spec in own_gates.GATES}
"""The product's own description of each gate (features, weights file, shipped false rate):
`tellmemore eval --fit-gates` refits the same gates on a user's turns."""

GATES = {
    "ask": Gate(
        "ask",
        SPEC["ask"].features,
        "UNDERSPECIFIED",
        SPEC["ask"].model,
        "the turns the default answered whose top 5 span two documents",
        "answer",
        (0.02, SPEC["ask"].max_false),  # Exp BW registered 0.02 (it failed its rule)
    ),
    "abstain": Gate(
        "abstain",
        SPEC["abstain"].features,
        "UNANSWERABLE",
        SPEC["abstain"].model,
        "the turns the default answered",
        "answer",
        (0.02, SPEC["abstain"].max_false),  # Exp BX: 0.01 failed alone; CB: with the override
    ),
    "override": Gate(
        "override",
        SPEC["override"].features,
        "ANSWERABLE",
        SPEC["override"].model,
        "the turns the default abstained on",
        "abstain",
        (0.1, SPEC["override"].max_false),  # Exp BY: 0.1 (failed its rule by two catches)
    ),
}


def signals(
    row: dict[str, Any], calibration: Calibration, passages: dict[str, str]
) -> dict[str, float]:
    """A recorded turn's `turn_signals`, from its hits and the trial's passage texts."""
    hits = row["hits"][: turn_signals.TOP]
    return turn_signals.signals(
        row["message"],
        row["standalone"] or row["message"],
        row["turn"] == 0,
        [h.get("dense") for h in hits],
        [h["doc"] for h in hits],
        [passages.get(h["id"], "") for h in hits],
        calibration,
    )


Rows = dict[str, tuple[str, np.ndarray, np.ndarray, np.ndarray]]


def collect(gate: Gate, tag: str, exclude: list[str]) -> Rows:
    """Per corpus: (group, features, positive?, label) of the turns the gate decides."""
    out = {}
    for name, group, trial in tag_trials(tag, exclude):
        calibration = Calibration(**trial["calibration"]) if trial.get("calibration") else DEFAULT
        xs, ys, labels = [], [], []
        for row in trial["rows"]:
            if row["mode"] != MODE or row["action"] != gate.action or not row["hits"]:
                continue
            if gate.name == "abstain" and edits.asks_for_more(row["message"]):
                continue  # "tell me more" is not judged: more of what was just answered
            values = signals(row, calibration, trial["passages"])
            if gate.reads(values):
                xs.append([values[f] for f in gate.features])
                ys.append(float(row["label"] == gate.label))
                labels.append(row["label"])
        # (0, features) when the default never took the gate's action on this corpus
        out[name] = (
            group,
            np.array(xs).reshape(-1, len(gate.features)),
            np.array(ys),
            np.array(labels),
        )
    return out


def fitted(
    gate: Gate, rows: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]], rate: float
) -> Scorer:
    return fit(
        f"{gate.name}_gate",
        gate.features,
        np.vstack([r[1] for r in rows]),
        np.concatenate([r[2] for r in rows]),
        l2=L2,
        max_positive_rate=rate,
        fitted_on=f"the default trials of {len(rows)} handbook and help-site corpora: "
        f"{gate.scope}; positive when labelled {gate.label}; L2 {L2:g}, "
        f"threshold at {rate:g} of the negatives (bench/learned_gate.py {gate.name} --write)",
    )


def replay(gate: Gate, data: Rows, rate: float) -> dict[str, dict[str, int]]:
    """Each corpus decided by the gate fitted on the others, totalled by group."""
    totals: dict[str, Counter[str]] = {}
    for name, (group, x, y, labels) in data.items():
        model = fitted(gate, [v for k, v in data.items() if k != name], rate)
        says = np.array([model.decide(dict(zip(gate.features, r, strict=True))) for r in x], bool)
        t = totals.setdefault(group, Counter())
        t["turns"] += len(y)
        for label in ("ANSWERABLE", "UNANSWERABLE", "UNDERSPECIFIED"):
            t[label] += int((labels == label).sum())
            t[f"{gate.name}: {label}"] += int((says & (labels == label)).sum())
    return {g: dict(t) for g, t in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gate", choices=sorted(GATES))
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
    gate = GATES[args.gate]
    if gate.model is None and (args.write or args.loco_dir):
        parser.error(f"the {gate.name} gate is measured only: nothing reads its weights")
    data = collect(gate, args.tag, args.exclude)
    result: dict[str, Any] = {"gate": gate.name, "tag": args.tag, "replay": {}}
    for rate in gate.rates:
        result["replay"][str(rate)] = replay(gate, data, rate)
    whole = fitted(gate, list(data.values()), gate.rates[-1])
    result["shipped"] = whole.to_json()
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.loco_dir:
        args.loco_dir.mkdir(parents=True, exist_ok=True)
        for name in data:
            model = fitted(gate, [v for k, v in data.items() if k != name], gate.rates[-1])
            (args.loco_dir / f"{name}.json").write_text(
                json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8"
            )
    if args.write and gate.model:
        path = ROOT / "tellmemore" / "answer" / f"{gate.model}.json"
        path.write_text(json.dumps(whole.to_json(), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
