"""An abstain scorer fitted on handbook trials, judged leave-one-corpus-out (issue 22).

    .venv/bin/python bench/handbook_abstain_fit.py --features DIR --models OUT [--out REPORT]

Reads the per-turn records of `bench/handbook_abstain_features.py` (one JSON a corpus).
For each corpus, a logistic scorer (`answer.scorer.fit`) is fitted on the other corpora's
judged turns (UNANSWERABLE against ANSWERABLE; turns the missing-focus or unstated-phrase
rule abstains on are left out, the scorer never decides them), at the operating point of
the floor it would replace: the lowest threshold whose false-abstention rate on those
corpora's answerable turns is at most the floor's there. The default decision is then
replayed on the held-out corpus with the scorer in the floor's place (the rules first,
then the scorer, then the ask back), and the counts compared with the floor's.

Writes OUT/<variant>/<corpus>.json (the model that corpus is judged with, for an
end-to-end run: `retrieval.abstain_model`) OUT/<variant>/all.json (fitted on every
corpus) and OUT/<variant>/dev.json (on the dev corpora). `--typed-only MODEL` replays MODEL
deciding only on the follow-ups the resolver left as typed, the floor elsewhere (Exp BE,
bench/results/handbook_abstain_scorer.md), and stops.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "scripts")]

from fit_behaviour import floor_decision  # noqa: E402
from handbook_corpora import DEV_NAMES  # noqa: E402

from tellmemore.answer.answerability import FEATURES  # noqa: E402
from tellmemore.answer.scorer import Scorer, fit  # noqa: E402

VARIANTS: dict[str, tuple[str, ...]] = {
    "V1": FEATURES,
    "V2": (*FEATURES, "cos", "sentence_cos"),
}
"""Fixed before any record was collected (STATUS, Exp AA): the shipped scorer's features,
and the same with the two cosines on the index's own scale."""
L2 = 10.0


def judged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turns the scorer decides: reached the judge, no rule abstained first, labelled."""
    return [
        r
        for r in rows
        if r["record"] is not None
        and not r["record"]["lost"]
        and r["label"] in ("ANSWERABLE", "UNANSWERABLE")
    ]


def floor_rate(rows: list[dict[str, Any]]) -> float:
    negatives = [r for r in judged(rows) if r["label"] == "ANSWERABLE"]
    return sum(r["record"]["floor"] for r in negatives) / max(1, len(negatives))


def fit_on(rows: list[dict[str, Any]], names: tuple[str, ...], on: str) -> Scorer:
    train = judged(rows)
    return fit(
        "abstain",
        names,
        [[float(r["record"]["features"][n]) for n in names] for r in train],
        [r["label"] == "UNANSWERABLE" for r in train],
        l2=L2,
        max_positive_rate=floor_rate(rows),
        fitted_on=on,
    )


def replay(row: dict[str, Any], model: Scorer | None) -> str:
    """The default decision with `model` in the floor's place (None: the floor)."""
    rec = row["record"]
    if rec is None:
        return str(row["action"])
    if rec["lost"]:
        return "abstain"
    refuses = rec["floor"] if model is None else model.decide(rec["features"])
    if refuses:
        return "abstain"
    return "ask" if rec["asks_back"] else "answer"


def counts(rows: list[dict[str, Any]], model: Scorer | None) -> Counter[str]:
    c: Counter[str] = Counter()
    for r in rows:
        did = replay(r, model)
        c[f"{r['label']}:{did}"] += 1
    return c


def mtrag_un(
    rows: list[dict[str, Any]], model: Scorer | None, typed: bool = False
) -> dict[str, Counter[str]]:
    """The default decision on MTRAG-UN's labelled turns (`bench/behaviour_features.py`
    rows) with `model` in the floor's place (None: the floor, as `scripts/fit_behaviour.py`
    replays it), per domain: a turn a rule abstained on before the scorer (the phrase rule:
    no features kept) abstains. `typed`: `model` decides only on a follow-up searched as
    typed (nothing bound, the query is the message), the floor on the others."""
    out: dict[str, Counter[str]] = {}
    for r in rows:
        bound = (r.get("retrieved") or {}).get("bindings")
        as_typed = not r["first_turn"] and not bound and r.get("query") == r["message"]
        if r["path"] == "judged" and "abstain.raw_cos" not in r["features"]:
            did = "abstain"
        elif model is None or r["path"] != "judged" or (typed and not as_typed):
            did = floor_decision(r)
        else:
            f = {k.removeprefix("abstain."): v for k, v in r["features"].items()}
            did = "abstain" if model.decide(f) else "ask" if r.get("asks_back") else "answer"
        label = "ANSWERABLE" if r["label"] in ("ANSWERABLE", "PARTIAL") else r["label"]
        out.setdefault(r["domain"], Counter())[f"{label}:{did}"] += 1
    return out


def typed_follow_up(row: dict[str, Any]) -> bool:
    """A follow-up the resolver left as typed: turn 2 or later, nothing bound, the
    standalone query is the message (a trial row of `bench/handbook_trial.py`)."""
    standalone = (row["standalone"] or "").strip()
    return row["turn"] > 0 and not row["bindings"] and standalone == row["message"].strip()


def typed_only(
    data: dict[str, list[dict[str, Any]]], model: Scorer, trials: Path, tag: str
) -> list[str]:
    """Exp BE: `model` decides on the typed follow-ups only, the floor on every other turn;
    caught / false abstentions per group against the floor's."""
    totals: dict[str, Counter[str]] = {}
    for corpus, rows in data.items():
        trial = json.loads((trials / f"trial_{tag}_{corpus}.json").read_text())
        typed = {(t["conversation"], t["turn"]) for t in trial["rows"] if typed_follow_up(t)}
        group = "dev" if corpus in DEV_NAMES else "held out"
        for r in rows:
            on_typed = (r["conversation"], r["turn"]) in typed
            for name, did in (
                ("floor", replay(r, None)),
                ("typed", replay(r, model if on_typed else None)),
            ):
                totals.setdefault(f"{group} {name}", Counter())[f"{r['label']}:{did}"] += 1
    return [
        f"{key}: caught {c['UNANSWERABLE:abstain']}, false abstentions {c['ANSWERABLE:abstain']}"
        for key, c in totals.items()
    ]


def _rates(c: Counter[str]) -> str:
    def n(label: str) -> int:
        return sum(v for k, v in c.items() if k.startswith(f"{label}:"))

    return (
        f"abstain UNANSWERABLE {c['UNANSWERABLE:abstain']}/{n('UNANSWERABLE')}, "
        f"ANSWERABLE+PARTIAL {c['ANSWERABLE:abstain']}/{n('ANSWERABLE')}; "
        f"ask UNDERSPECIFIED {c['UNDERSPECIFIED:ask']}/{n('UNDERSPECIFIED')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--behaviour", type=Path, help="bench/behaviour_features.py rows: MTRAG-UN figures too"
    )
    parser.add_argument(
        "--typed-only",
        type=Path,
        metavar="MODEL",
        help="only replay MODEL deciding on follow-ups left as typed (Exp BE) and stop",
    )
    parser.add_argument("--trials", type=Path, default=ROOT / "bench" / ".trials")
    parser.add_argument("--tag", default="named40c", help="the trials the features were read on")
    args = parser.parse_args()
    data = {p.stem: json.loads(p.read_text())["rows"] for p in sorted(args.features.glob("*.json"))}
    if args.typed_only:
        model = Scorer.from_json(json.loads(args.typed_only.read_text()))
        lines = typed_only(data, model, args.trials, args.tag)
        if args.behaviour:
            behaviour = json.loads(args.behaviour.read_text())["rows"]
            for name, m in (("floor", None), ("typed", model)):
                for domain, c in mtrag_un(behaviour, m, typed=True).items():
                    lines.append(f"mtrag-un {domain} {name}: " + _rates(c))
        print("\n".join(lines))
        return
    lines = []
    totals: dict[str, Counter[str]] = {}
    for variant, names in VARIANTS.items():
        folder = args.models / variant
        folder.mkdir(parents=True, exist_ok=True)
        for corpus, rows in data.items():
            others = [r for c, rs in data.items() if c != corpus for r in rs]
            model = fit_on(others, names, f"handbooks without {corpus}")
            (folder / f"{corpus}.json").write_text(json.dumps(model.to_json(), indent=1) + "\n")
            group = "dev" if corpus in DEV_NAMES else "held out"
            if variant == next(iter(VARIANTS)):
                totals.setdefault(f"{group} floor", Counter()).update(counts(rows, None))
            totals.setdefault(f"{group} {variant}", Counter()).update(counts(rows, model))
        dev = [r for c, rs in data.items() if c in DEV_NAMES for r in rs]
        model = fit_on(dev, names, "dev handbooks")
        (folder / "dev.json").write_text(json.dumps(model.to_json(), indent=1) + "\n")
        for corpus, rows in data.items():
            if corpus not in DEV_NAMES:
                totals.setdefault(f"held out {variant} fitted on dev", Counter()).update(
                    counts(rows, model)
                )
        everything = [r for rs in data.values() for r in rs]
        (folder / "all.json").write_text(
            json.dumps(fit_on(everything, names, "all handbooks").to_json(), indent=1) + "\n"
        )
    for key, c in totals.items():
        lines.append(
            f"{key}: caught {c['UNANSWERABLE:abstain']}/"
            f"{sum(v for k, v in c.items() if k.startswith('UNANSWERABLE'))}, "
            f"false abstentions {c['ANSWERABLE:abstain']}/"
            f"{sum(v for k, v in c.items() if k.startswith('ANSWERABLE'))}, "
            f"underspecified asked {c['UNDERSPECIFIED:ask']}, "
            f"underspecified abstained {c['UNDERSPECIFIED:abstain']}"
        )
    if args.behaviour:
        behaviour = json.loads(args.behaviour.read_text())["rows"]
        for name in ("floor", *(f"{v}/{m}" for v in VARIANTS for m in ("dev", "all"))):
            model = None
            if name != "floor":
                path = args.models / f"{name}.json"
                model = Scorer.from_json(json.loads(path.read_text()))
            for domain, c in mtrag_un(behaviour, model).items():
                lines.append(f"mtrag-un {domain} {name}: " + _rates(c))
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
