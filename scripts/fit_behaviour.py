"""Fit the abstain and ask-back scorers on one MTRAG-UN domain, report them on the other.

    .venv/bin/python scripts/fit_behaviour.py [--features bench/results/behaviour_features.json]

Reads the features `bench/behaviour_features.py` wrote for every labelled turn. For each
direction (fit on clapnq, report on cloud; fit on cloud, report on clapnq) it fits both
scorers (`answer.scorer.fit`: logistic regression, threshold at `--max-false` of the
fitting domain's negatives) and replays the turn's decision as `answer.judge` makes it
(ask back first, then abstain). Writes bench/results/behaviour.{md,json}; with `--write`,
also the shipped models (`tellmemore/answer/{abstain,clarify}_model.json`), fitted on both
domains together.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.answer import answerability, clarify  # noqa: E402
from tellmemore.answer.scorer import Scorer, fit  # noqa: E402
from tellmemore.config import RetrievalSettings  # noqa: E402

FEATURES = ROOT / "bench" / "results" / "behaviour_features.json"
OUT = ROOT / "bench" / "results" / "behaviour"
MODELS = ROOT / "tellmemore" / "answer"
ANSWERABLE = ("ANSWERABLE", "PARTIAL")


def _x(rows: list[dict[str, Any]], prefix: str, names: tuple[str, ...]) -> list[list[float]]:
    return [[float(r["features"][f"{prefix}.{n}"]) for n in names] for r in rows]


def fit_models(
    rows: list[dict[str, Any]],
    l2: float,
    max_false: float,
    on: str,
    abstain_features: tuple[str, ...] = answerability.FEATURES,
    clarify_features: tuple[str, ...] = clarify.FEATURES,
) -> tuple[Scorer, Scorer]:
    judged = [r for r in rows if r["path"] == "judged"]
    ab = [r for r in judged if r["label"] == "UNANSWERABLE" or r["label"] in ANSWERABLE]
    abstain = fit(
        "abstain",
        abstain_features,
        _x(ab, "abstain", abstain_features),
        [r["label"] == "UNANSWERABLE" for r in ab],
        l2=l2,
        max_positive_rate=max_false,
        fitted_on=on,
    )
    ask = fit(
        "clarify",
        clarify_features,
        _x(judged, "clarify", clarify_features),
        [r["label"] == "UNDERSPECIFIED" for r in judged],
        l2=l2,
        max_positive_rate=max_false,
        fitted_on=on,
    )
    return abstain, ask


VALUE_SHARE = RetrievalSettings().min_value_share
"""The configured `min_value_share` (0.0: the stated-value rule off, the default)."""
STATED = 0.5
"""The opt-in `min_value_share` (chosen held out: the section "The stated-value rule")."""


def unstated(row: dict[str, Any], least: float) -> bool:
    """The question asks for a value no sentence about it states (`answer.stated`, the
    rule of `retrieval.min_value_share` both modes run)."""
    return float(row["features"].get("abstain.value_share", 1.0)) < least


def decide(row: dict[str, Any], abstain: Scorer, ask: Scorer, least: float = VALUE_SHARE) -> str:
    """What the turn does, as `answer.judge` decides it."""
    if row["path"] == "resolver asked back":
        return "ask"
    if row["path"] == "nothing retrieved":
        return "abstain"
    if row["path"] != "judged":
        return "answer"
    f = row["features"]
    a = {n: f[f"abstain.{n}"] for n in abstain.features}
    abstains = abstain.decide(a) or unstated(row, least)
    if row.get("asks_back") and not abstains:
        return "ask"  # answer.clarify.ask_back, the rule both modes run
    c = {n: f[f"clarify.{n}"] for n in ask.features}
    if ask.decide(c) and len(row["options"]) >= 2:
        return "ask"
    return "abstain" if abstains else "answer"


def floor_decision(row: dict[str, Any], least: float = VALUE_SHARE) -> str:
    """What the default (`retrieval.abstention = "floor"`) does: abstain when the best
    cosine of the question's own hits is under `min_dense_score` and the lexical coverage
    under `min_lexical_coverage`, or when the question asks for a value no sentence about
    it states (`least`: `min_value_share`, 0.0 off), else ask back by the rule of
    `answer.clarify.ask_back`."""
    if row["path"] in ("resolver asked back", "nothing retrieved"):
        return "ask" if row["path"] == "resolver asked back" else "abstain"
    if row["path"] != "judged":
        return "answer"
    f = row["features"]
    cut = RetrievalSettings()
    low = f["abstain.raw_cos"] < cut.min_dense_score
    if low and f["abstain.coverage"] < cut.min_lexical_coverage:
        return "abstain"
    if unstated(row, least):
        return "abstain"
    return "ask" if row.get("asks_back") else "answer"


def rates(
    rows: list[dict[str, Any]],
    abstain: Scorer | None = None,
    ask: Scorer | None = None,
    least: float = VALUE_SHARE,
) -> dict[str, Any]:
    """The decisions' rates by label: the scorers' (`decide`), or the floor's without them;
    `least`: the `min_value_share` of the stated-value rule both run (0.0: off)."""
    acts = [
        (
            r["label"],
            decide(r, abstain, ask, least) if abstain and ask else floor_decision(r, least),
        )
        for r in rows
    ]

    def share(labels: tuple[str, ...], act: str, negate: bool = False) -> dict[str, Any]:
        picked = [a for lab, a in acts if (lab not in labels if negate else lab in labels)]
        n = sum(a == act for a in picked)
        return {"n": len(picked), "acted": n, "rate": round(n / len(picked), 4) if picked else None}

    return {
        "abstain_unanswerable": share(("UNANSWERABLE",), "abstain"),
        "abstain_answerable": share(ANSWERABLE, "abstain"),
        "ask_underspecified": share(("UNDERSPECIFIED",), "ask"),
        "ask_others": share(("UNDERSPECIFIED",), "ask", negate=True),
        "by_label": {
            lab: {
                act: sum(1 for lb, a in acts if lb == lab and a == act)
                for act in ("answer", "abstain", "ask")
            }
            for lab in ("ANSWERABLE", "PARTIAL", "UNANSWERABLE", "UNDERSPECIFIED")
        },
    }


CALIBRATED = (
    "cos",
    "coverage",
    "missing",
    "type_missing",
    "flat",
    "new_coverage",
    "sentence_cos",
    "sentence_gain",
)
"""The abstain features shipped before: the cosines on the index's own scale."""
GRID = (0.01, 0.02, 0.03, 0.05)


def operating_points(rows: list[dict[str, Any]], l2: float) -> list[dict[str, Any]]:
    """Held-out abstain rates of both feature sets at several fitting false rates: how the
    operating point was chosen, in the open."""
    out = []
    domains = sorted({r["domain"] for r in rows})
    for name, feats in (("shipped", answerability.FEATURES), ("calibrated (before)", CALIBRATED)):
        for max_false in GRID:
            for fit_on in domains:
                for test_on in [d for d in domains if d != fit_on]:
                    mine = [r for r in rows if r["domain"] == fit_on]
                    abstain, _ = fit_models(mine, l2, max_false, fit_on, feats, ("first_turn",))
                    never = Scorer("clarify", ("first_turn",), (0.0,), -30.0, (0.0,), (1.0,), 1.0)
                    test = [r for r in rows if r["domain"] == test_on]
                    part = rates(test, abstain, never)
                    out.append(
                        {
                            "features": name,
                            "max_false": max_false,
                            "fit_on": fit_on,
                            "test_on": test_on,
                            "unanswerable": part["abstain_unanswerable"],
                            "answerable": part["abstain_answerable"],
                        }
                    )
    return out


SHARES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""The `min_value_share` grid (0.0: the rule off)."""
SHARE_FALSE = (0.02, 0.03, 0.05)


def value_shares(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The stated-value rule on top of the floor: its rates at every `min_value_share`, and
    the value chosen on one domain (most UNANSWERABLE abstentions with at most the fitting
    false rate of its ANSWERABLE+PARTIAL turns, the floor's own included; the smaller value
    on a tie) reported on the other, both ways."""
    domains = sorted({r["domain"] for r in rows})
    grid = []
    for least in SHARES:
        for d in domains:
            part = rates([r for r in rows if r["domain"] == d], least=least)
            grid.append(
                {
                    "min_value_share": least,
                    "domain": d,
                    "unanswerable": part["abstain_unanswerable"],
                    "answerable": part["abstain_answerable"],
                }
            )
    chosen = []
    for max_false in SHARE_FALSE:
        for fit_on in domains:
            fits = [g for g in grid if g["domain"] == fit_on]
            ok = [g for g in fits if g["answerable"]["acted"] <= max_false * g["answerable"]["n"]]
            best = max(ok, key=lambda g: (g["unanswerable"]["acted"], -g["min_value_share"]))
            least = best["min_value_share"]
            for test_on in [d for d in domains if d != fit_on]:
                held = next(
                    g for g in grid if g["domain"] == test_on and g["min_value_share"] == least
                )
                chosen.append(
                    {
                        "max_false": max_false,
                        "fit_on": fit_on,
                        "test_on": test_on,
                        "min_value_share": least,
                        "fitted": {k: best[k] for k in ("unanswerable", "answerable")},
                        "held_out": {k: held[k] for k in ("unanswerable", "answerable")},
                    }
                )
    return {"grid": grid, "chosen": chosen}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", type=Path, default=FEATURES)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--max-false", type=float, default=0.03)
    parser.add_argument("--write", action="store_true", help="write the shipped models")
    parser.add_argument("--abstain-features", default=",".join(answerability.FEATURES))
    parser.add_argument("--clarify-features", default=",".join(clarify.FEATURES))
    args = parser.parse_args()
    rows = json.loads(args.features.read_text())["rows"]
    chosen = (
        tuple(f for f in args.abstain_features.split(",") if f),
        tuple(f for f in args.clarify_features.split(",") if f),
    )
    if len({r["domain"] for r in rows}) == 1:
        # one domain only: its conversations split in two halves stand in for two domains
        only = rows[0]["domain"]
        for r in rows:
            conversation = r["task_id"].split("<::>")[0]
            half = int(hashlib.sha256(conversation.encode()).hexdigest(), 16) % 2
            r["domain"] = f"{only} half {'AB'[half]}"
    domains = sorted({r["domain"] for r in rows})
    results = []
    for fit_on in domains:
        for test_on in domains:
            if test_on == fit_on:
                continue
            abstain, ask = fit_models(
                [r for r in rows if r["domain"] == fit_on], args.l2, args.max_false, fit_on, *chosen
            )
            test = [r for r in rows if r["domain"] == test_on]
            results.append(
                {
                    "fit_on": fit_on,
                    "test_on": test_on,
                    "held_out": rates(test, abstain, ask),
                    "in_domain": rates([r for r in rows if r["domain"] == fit_on], abstain, ask),
                    "abstain_model": abstain.to_json(),
                    "clarify_model": ask.to_json(),
                }
            )
    floor = {d: rates([r for r in rows if r["domain"] == d]) for d in domains}
    floor_stated = {d: rates([r for r in rows if r["domain"] == d], least=STATED) for d in domains}
    both = fit_models(rows, args.l2, args.max_false, "+".join(domains), *chosen)
    payload = {
        "command": (
            f"scripts/fit_behaviour.py --l2 {args.l2} --max-false {args.max_false} "
            f"--abstain-features {','.join(chosen[0])} --clarify-features {','.join(chosen[1])}"
        ),
        "features_file": str(args.features),
        "results": results,
        "floor": floor,
        "floor_stated": floor_stated,
        "min_value_share": VALUE_SHARE,
        "value_shares": value_shares(rows),
        "operating_points": operating_points(rows, args.l2),
        "shipped": {"abstain_model": both[0].to_json(), "clarify_model": both[1].to_json()},
    }
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(render(payload, rows))
    if args.write:
        for name, model in (("abstain_model", both[0]), ("clarify_model", both[1])):
            (MODELS / f"{name}.json").write_text(json.dumps(model.to_json(), indent=1) + "\n")
    for r in results:
        h = r["held_out"]
        print(
            f"fit {r['fit_on']} -> {r['test_on']}: abstain U {h['abstain_unanswerable']['rate']} "
            f"A+P {h['abstain_answerable']['rate']} | ask U {h['ask_underspecified']['rate']} "
            f"others {h['ask_others']['rate']}"
        )


def _pct(v: dict[str, Any]) -> str:
    return f"{v['acted']}/{v['n']} ({100 * v['rate']:.1f}%)" if v["rate"] is not None else "–"


def render(payload: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    lines = [
        "# Abstain and ask back on MTRAG-UN, fitted on one domain, reported on the other",
        "",
        "```",
        ".venv/bin/python bench/behaviour_features.py --data ../shared/bench/mtrag-un "
        "--cache /work/cache/bench  # resolve, search, judge: ~15 min on two loaded cores",
        ".venv/bin/python bench/behaviour_replay.py --data ../shared/bench/mtrag-un "
        "--cache /work/cache/bench  # the features again from the kept hits: ~3 min",
        f".venv/bin/python {payload['command']}",
        "```",
        "",
        "**Reading.** No decision meets the targets held out (>= 50% of UNANSWERABLE). "
        "The stated-value rule (`answer.stated`, opt-in `retrieval.min_value_share = 0.5`, "
        'section below) is the one gain held out: a question for a quantity ("how many", '
        '"how much", "how long") abstains when no sentence of its top passages that '
        'states a quantity holds half of its focus words ("How many languages do they '
        'provide assistance in?", "what is the cost of restoring toolchain?": the '
        "passages hold the words and some figures, never together). On top of the floor it "
        "abstains on cloud 8/36 UNANSWERABLE (floor alone 2/36) and clapnq 5/22 (2/22), "
        "with no added false abstention (1/86, 1/83: the floor's own); chosen on either "
        "domain at a fitting false rate of 2-5%, the threshold is 0.5 and these are its "
        "held-out figures. It is not the default: on the licences it abstains on an "
        "answerable question worded otherwise than the text, and on MTRAG's answerable "
        "turns it adds false abstentions (bench/results/stated_value.md). The rest of "
        "MTRAG-UN's UNANSWERABLE turns (many yes/no questions about a property the passages "
        'do not state: "Is Cloud Shell workspace free?") are not separated by any '
        "sentence-level word coverage measured (bench/results/sentence_evidence.md). The "
        'floor (`retrieval.abstention = "floor"`, nothing fitted) abstains on as many or '
        "more UNANSWERABLE turns than the fitted scorer, so it stays the default; the judged "
        "mode stays opt-in. The abstain scorer shipped before "
        "read the cosines on the index's own scale (`answer.calibration`); held out that "
        "scale did not carry: on clapnq (Wikipedia) the everyday foreign probes score "
        "higher than the index's own probes (foreign p90 0.663 > own p50 0.646), so fitted "
        "on cloud it abstained on 54-68% of clapnq's answerable turns (table below). The "
        "shipped scorer reads the raw cosines and lexical evidence instead (the rarer half "
        "of the question's words held by a top passage, BM25 and dense agreeing on the top "
        "passages), at a fitting false rate of 1%, chosen after seeing the table below (a "
        "margin for the shift between domains; at 2-3% it is 6.0% false on clapnq): held "
        "out it stayed at or under 5% false both ways, and found 0% (cloud) and 9% (clapnq) of "
        "UNANSWERABLE "
        "(the rule off; the judged mode runs it too when it is set). "
        '(The "before" rows abstain more than the figures landed before this change '
        "because its clarify scorer then asked back on many of those turns.) Ask back: "
        "both modes first run the rule of `answer.clarify.ask_back` (a description of a "
        "kind of thing nothing in the conversation picks out, several subjects in the top "
        "passages), unless the turn abstains; its two thresholds were chosen on clapnq "
        "(bench/results/clarify_detect.md, which also reports them chosen on cloud and "
        "MTRAG's specified turns as negatives), so its clapnq figures here are in domain "
        "in every row: 14% (5/37) of UNDERSPECIFIED at 0% false in the default mode "
        "(since 2ac2103 it offers only subjects of the kind asked about; 35% at 2.9% "
        "before). On cloud it "
        "asks nothing: its passages have no titles (their ids are not options to offer). "
        "The fitted clarify scorer adds four asks on clapnq when fitted there (in domain).",
        "",
        "Every labelled last turn of `mtrag-un/{clapnq,cloud}/behaviour.jsonl` is run as a "
        "turn runs it (bench/behaviour_features.py), and the decision replayed as "
        "`answer.judge` makes it: ask back by the rule (`asks_back`) unless the abstain "
        "scorer abstains, or when the clarify scorer says so and the passages "
        "offer two or more subjects the conversation does not name, else abstain when the "
        "abstain scorer or the stated-value rule says so. The scorers (logistic, a few features, "
        "`tellmemore/answer/scorer.py`) are **fitted on one domain and reported on the "
        "other**, both ways; each threshold lets at most the `--max-false` share of the "
        "fitting domain's negatives through. Targets: abstain on >= 50% of UNANSWERABLE and "
        "<= 5% of ANSWERABLE + PARTIAL; ask back on >= 40% of UNDERSPECIFIED and <= 5% of "
        "the others.",
        "",
        "| fitted on | reported on | abstain: UNANSWERABLE | abstain: ANSWERABLE+PARTIAL | "
        "ask back: UNDERSPECIFIED | ask back: others |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in payload["results"]:
        for name, part in (("held out", r["held_out"]), ("in domain", r["in_domain"])):
            where = r["test_on"] if name == "held out" else f"{r['fit_on']} (in domain)"
            lines.append(
                f"| {r['fit_on']} | {where} | {_pct(part['abstain_unanswerable'])} | "
                f"{_pct(part['abstain_answerable'])} | {_pct(part['ask_underspecified'])} | "
                f"{_pct(part['ask_others'])} |"
            )
    for name, key in (
        ("floor (default, nothing fitted)", "floor"),
        (f"floor + stated value {STATED} (opt-in)", "floor_stated"),
    ):
        for d, part in payload[key].items():
            lines.append(
                f"| {name} | {d} | {_pct(part['abstain_unanswerable'])} | "
                f"{_pct(part['abstain_answerable'])} | {_pct(part['ask_underspecified'])} | "
                f"{_pct(part['ask_others'])} |"
            )
    vs = payload["value_shares"]
    lines += [
        "",
        "## The stated-value rule: `min_value_share` chosen on one domain, reported on the other",
        "",
        "On top of the floor (`answer.stated`): a question for a quantity (a count, an "
        "amount, a duration) abstains when no sentence of its top five passages that states "
        "a quantity holds `min_value_share` of its IDF-weighted focus words. Chosen on "
        "the fitting domain: most UNANSWERABLE abstentions with at most the fitting false "
        "rate of its ANSWERABLE+PARTIAL turns (the floor's own false abstentions count); "
        "the smaller value on a tie.",
        "",
        "| fitting false rate | fitted on | min_value_share | fitting UNANSWERABLE | "
        "fitting ANS+PARTIAL | reported on | UNANSWERABLE | ANS+PARTIAL |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in vs["chosen"]:
        lines.append(
            f"| {c['max_false']} | {c['fit_on']} | {c['min_value_share']} | "
            f"{_pct(c['fitted']['unanswerable'])} | {_pct(c['fitted']['answerable'])} | "
            f"{c['test_on']} | {_pct(c['held_out']['unanswerable'])} | "
            f"{_pct(c['held_out']['answerable'])} |"
        )
    lines += ["", "| min_value_share | domain | UNANSWERABLE | ANS+PARTIAL |"]
    lines += ["| --- | --- | --- | --- |"]
    for g in vs["grid"]:
        lines.append(
            f"| {g['min_value_share']} | {g['domain']} | {_pct(g['unanswerable'])} | "
            f"{_pct(g['answerable'])} |"
        )
    lines += ["", "## Abstain: held-out rates by fitting false rate (`--max-false`)", ""]
    lines += ["| features | --max-false | fitted on | reported on | UNANSWERABLE | ANS+PARTIAL |"]
    lines += ["| --- | --- | --- | --- | --- | --- |"]
    for p in payload["operating_points"]:
        lines.append(
            f"| {p['features']} | {p['max_false']} | {p['fit_on']} | {p['test_on']} | "
            f"{_pct(p['unanswerable'])} | {_pct(p['answerable'])} |"
        )
    lines += ["", "## Held-out decisions by label", ""]
    lines += ["| fitted on | reported on | label | answered | abstained | asked back |"]
    lines += ["| --- | --- | --- | --- | --- | --- |"]
    for r in payload["results"]:
        for lab, v in r["held_out"]["by_label"].items():
            lines.append(
                f"| {r['fit_on']} | {r['test_on']} | {lab} | {v['answer']} | {v['abstain']} | "
                f"{v['ask']} |"
            )
    lines += ["", "## Weights (standardised features)", ""]
    for r in payload["results"]:
        for key in ("abstain_model", "clarify_model"):
            m = r[key]
            ws = ", ".join(
                f"{f} {w:+.2f}" for f, w in zip(m["features"], m["weights"], strict=True)
            )
            lines.append(
                f"- fit on {r['fit_on']}, {m['name']}: {ws}; threshold {m['threshold']:.3f}"
            )
    s = payload["shipped"]
    lines += [
        "",
        "The shipped models (`tellmemore/answer/abstain_model.json`, `clarify_model.json`) "
        f"are fitted on both domains ({s['abstain_model']['fitted_on']}); the figures above "
        "are the held-out ones. Paths other than the scorers: "
        + ", ".join(
            f"{p} {sum(r['path'] == p for r in rows)}"
            for p in ("resolver asked back", "no retrieval", "nothing retrieved")
        )
        + " turns.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
