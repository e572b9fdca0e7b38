"""Which referent bindings to withhold, replayed from two end-to-end runs (issue 20, Exp BL/BM).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/gate_replay.py --bound off44 --withheld wh44

Two default-mode trials of every corpus (`bench/default_trials.sh`) differ only in the
binding gate: `--bound` with the gate off (`TELLMEMORE_CONVERSATION__BINDING_GATE=false`), and
`--withheld` with every referent binding withheld (a tree whose `CONFIRM_FIT` and
`CONFIRM_GAIN` are set out of reach, e.g. 9). Each conversation of the first is asked again
of the resolver alone (`binding_replay.resolved_turns`'s way, gate off), and at each turn the
gate would judge (a pronoun, definite or ordinal binding that is not a cue's) the gate's
inputs are recorded: the bound question's and the typed message's best passage cosine, and
the index's calibration. A turn is good when it passed the trial's judgement (an answerable
turn fully right, an unanswerable one abstained on, an underspecified one asked back); a rule
that withholds at a turn takes that turn's outcome from the second run, else from the first
(the rest of the conversation is taken as it was: a replay, not a run). Prints, for the dev
and the held-out corpora (totals only): the shipped confirmation rule, always binding, always
withholding, the rule with `Calibration.typed_floor` at several shares, and a learned gate
(logistic, ten features, leave one corpus out; Exp BL). The features are cached in
bench/.cache/gate_replay.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import numpy as np  # noqa: E402
from binding_replay import replayed  # noqa: E402
from handbook_corpora import DEV_NAMES, HELD_OUT_NAMES  # noqa: E402

from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation import constants as C  # noqa: E402
from tellmemore.conversation.gating import REFERENT_PASSES  # noqa: E402
from tellmemore.conversation.preamble import split_preamble  # noqa: E402
from tellmemore.turn import TurnRequest  # noqa: E402

TRIALS = Path(os.environ.get("TRIALS_OUT", ROOT / "bench" / ".trials"))
CACHE = TRIALS.parent / ".cache" / "gate_replay"
FEATURES = ("bound", "typed", "gain", "pronoun", "definite", "ordinal", "ant_words", "in_user")
FEATURES += ("in_reply", "turn_ix")
SHARES = (1.0, 0.75, 0.5, 0.4, 0.3, 0.2, 0.0)


def judged_turns(corpus: str, tag: str) -> list[dict[str, Any]]:
    """The gate's inputs at each turn of `tag`'s run of `corpus` where it would judge."""
    cached = CACHE / f"{tag}_{corpus}.json"
    if cached.exists():
        return list(json.loads(cached.read_text()))
    trial = json.loads((TRIALS / f"trial_{tag}_{corpus}.json").read_text())
    out = []
    gate_off = Settings(conversation={"binding_gate": False})
    for assistant, cid, row, res, history in replayed(trial, gate_off):
        referents = [v for k, v in res.bindings.items() if k not in res.cues]
        req = TurnRequest(message=row["message"], history=history)
        fit = assistant.runner._index_reads(req)["passage_fit"]
        if fit is None or not REFERENT_PASSES & set(res.passes) or not referents:
            continue
        preamble = split_preamble(row["message"])
        asked = preamble.rest if preamble is not None else row["message"]
        bound, typed = fit([res.query, asked])
        said = [t.content.lower() for t in history if t.role == "user"]
        replies = [t.content.lower() for t in history if t.role == "assistant"]
        out.append(
            {
                "conversation": cid,
                "turn": row["turn"],
                "bound": bound,
                "typed": typed,
                "gain": bound - typed,
                **{p: int(p in res.passes) for p in ("pronoun", "definite", "ordinal")},
                "ant_words": math.log1p(sum(len(a.split()) for a in referents)),
                "in_user": int(bool(said) and all(a.lower() in said[-1] for a in referents)),
                "in_reply": int(bool(replies) and all(a.lower() in replies[-1] for a in referents)),
                "turn_ix": min(row["turn"], 5),
            }
        )
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(out))
    return out


def outcomes(corpus: str, tag: str) -> tuple[dict[tuple[str, int], bool], dict[str, float]]:
    trial = json.loads((TRIALS / f"trial_{tag}_{corpus}.json").read_text())
    good = {(r["conversation"], r["turn"]): r["category"] is None for r in trial["rows"]}
    return good, trial["calibration"]


class Replay:
    """One corpus: its judged turns with both outcomes, and every turn's outcome bound."""

    def __init__(self, corpus: str, bound_tag: str, withheld_tag: str) -> None:
        self.units = judged_turns(corpus, bound_tag)
        bound, self.calibration = outcomes(corpus, bound_tag)
        withheld, _ = outcomes(corpus, withheld_tag)
        for u in self.units:
            key = (u["conversation"], u["turn"])
            u["good_bound"], u["good_withheld"] = bound[key], withheld[key]
        self.base = sum(bound.values())

    def total(self, withhold: list[bool]) -> int:
        return self.base + sum(
            int(u["good_withheld"]) - int(u["good_bound"])
            for u, w in zip(self.units, withhold, strict=True)
            if w
        )

    def typed_floor(self, share: float) -> float:
        cal = self.calibration
        span = max(cal["own_p50"] - cal["foreign_p90"], 0.05)
        return float(cal["foreign_p90"] + share * span)


def shipped(replay: Replay, share: float | None) -> list[bool]:
    """The confirmation rule (CONFIRM_FIT, CONFIRM_GAIN), with the typed floor at `share`."""
    floor = replay.typed_floor(share) if share is not None else math.inf
    return [
        u["typed"] >= floor or (u["bound"] < C.CONFIRM_FIT and u["gain"] < C.CONFIRM_GAIN)
        for u in replay.units
    ]


def learned(train: list[dict[str, Any]], units: list[dict[str, Any]]) -> list[bool]:
    """Exp BL: a logistic gate fitted on the turns whose two outcomes differ (withhold iff
    P(withholding is the better outcome) > 0.5); L2 as sklearn's C = 1."""
    from sklearn.linear_model import LogisticRegression

    rows = [u for u in train if u["good_bound"] != u["good_withheld"]]
    if not units or not rows:
        return [False] * len(units)
    x = np.array([[u[f] for f in FEATURES] for u in rows], dtype=float)
    mean, scale = x.mean(0), x.std(0) + 1e-9
    model = LogisticRegression(C=1.0).fit(
        (x - mean) / scale, [int(u["good_withheld"]) for u in rows]
    )
    test = np.array([[u[f] for f in FEATURES] for u in units], dtype=float)
    return [bool(p > 0.5) for p in model.predict_proba((test - mean) / scale)[:, 1]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bound", required=True, help="trial tag with the gate off")
    parser.add_argument("--withheld", required=True, help="trial tag withholding every binding")
    args = parser.parse_args()
    names = [
        n
        for n in (*DEV_NAMES, *HELD_OUT_NAMES)
        if (TRIALS / f"trial_{args.withheld}_{n}.json").exists()
    ]
    replays = {n: Replay(n, args.bound, args.withheld) for n in names}
    groups = {
        "dev": [n for n in names if n in DEV_NAMES],
        "held out": [n for n in names if n in HELD_OUT_NAMES],
    }
    rules: dict[str, dict[str, list[bool]]] = {
        "always bind": {n: [False] * len(r.units) for n, r in replays.items()},
        "always withhold": {n: [True] * len(r.units) for n, r in replays.items()},
        "confirmation rule (0.5 / 0.15)": {n: shipped(r, None) for n, r in replays.items()},
    }
    for share in SHARES:
        rules[f"... or typed >= floor at {share}"] = {
            n: shipped(r, share) for n, r in replays.items()
        }
    rules["learned (Exp BL, leave one corpus out)"] = {
        n: learned([u for m in names if m != n for u in replays[m].units], replays[n].units)
        for n in names
    }
    units = sum(len(r.units) for r in replays.values())
    print(f"{len(names)} corpora, {units} judged turns; good turns (all labels) per rule")
    print("| rule | " + " | ".join(groups) + " | corpora down 3+ vs the confirmation rule |")
    print("| --- |" + " --- |" * (len(groups) + 1))
    reference = rules["confirmation rule (0.5 / 0.15)"]
    for rule, decisions in rules.items():
        totals = {n: replays[n].total(decisions[n]) for n in names}
        down = sum(1 for n in names if totals[n] - replays[n].total(reference[n]) <= -3)
        cells = " | ".join(str(sum(totals[n] for n in g)) for g in groups.values())
        print(f"| {rule} | {cells} | {down} |")


if __name__ == "__main__":
    main()
