"""Does the carry pass earn its place on a domain it was not fitted on, and how is it gated?

    .venv/bin/python bench/loo_carry.py --cache /work/cache/bench

The carry pass appends the salient phrases of the user's turns to a message with too little
signal of its own ("Clusters" -> "Clusters (NodeSync, worker node)") unless the learned
selector's best history phrase stays under SELECTOR_VETO. Its leave-one-domain-out ablation
lost 0.0054 (cloud) and 0.0067 (govt) against 0.004 / 0.014 gained on clapnq / mtrag-un
clapnq. Variants tried (`VARIANTS`): carry off, the veto raised, and the carry's query
searched at a lower fusion weight next to the message as typed. For each held-out MTRAG
domain D the variant is chosen by mean follow-up nDCG@5 on the other two (the current
default wins ties), with the selector fitted without D and the phrasing constants chosen
without D (as `bench/loo_eval.py` chose them); mtrag-un (never fitted on) gets the variant
chosen on all three. Results: bench/results/loo_carry.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import loo_eval as L

from tellmemore.conversation import constants as C
from tellmemore.eval.strategies import build_strategies

VARIANTS: dict[str, dict[str, float]] = {
    "on": {},
    "off": {"off": 1.0},
    "veto 0.3": {"SELECTOR_VETO": 0.3},
    "veto 0.4": {"SELECTOR_VETO": 0.4},
    "veto 0.5": {"SELECTOR_VETO": 0.5},
    "weight 0.5": {"CARRY_QUERY_WEIGHT": 0.5},
    "weight 0.5, veto 0.3": {"CARRY_QUERY_WEIGHT": 0.5, "SELECTOR_VETO": 0.3},
    "veto 0.1": {"SELECTOR_VETO": 0.1},
    "phrases 1": {"CARRY_PHRASES": 1.0},
    "phrases 3": {"CARRY_PHRASES": 3.0},
    "weight 0.75": {"CARRY_QUERY_WEIGHT": 0.75},
    "weight 1.0": {"CARRY_QUERY_WEIGHT": 1.0},
}
"""Carry variants: constants of conversation/constants.py set, or the pass switched off."""
DEFAULT = "on"


def set_variant(name: str, domain: L.Domain, kept: dict[str, Any]) -> None:
    """Apply variant `name` (constants from `kept`, the committed values, first)."""
    for k, v in kept.items():
        setattr(C, k, v)
    values = VARIANTS[name]
    off = frozenset({"carry"}) if values.get("off") else frozenset()
    domain.context = replace(domain.context, disabled_passes=off)
    for k, v in values.items():
        if k != "off":
            setattr(C, k, int(v) if k == "CARRY_PHRASES" else v)


def chosen_points(path: Path) -> dict[str, L.Point]:
    """The phrasing constants bench/loo_eval.py chose per test (its loo_eval.json)."""
    data = json.loads(path.read_text())
    return {
        test: tuple((k, float(v)) for k, v in t["chosen"].items())
        for test, t in data["tests"].items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=L.ROOT / "bench" / ".cache")
    ap.add_argument("--loo", type=Path, default=L.OUT / "loo_eval.json")
    ap.add_argument("--models", type=Path, default=L.OUT / "loo")
    ap.add_argument("--out", type=Path, default=L.OUT)
    args = ap.parse_args()
    started = time.time()
    opened = L.open_for_variants(args.cache)
    vectors, domains = opened.vectors, opened.domains
    mtrag, names, un = opened.mtrag, opened.names, opened.un
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    points = chosen_points(args.loo)
    strategies, _ = build_strategies(["embedded"])
    kept = {k: getattr(C, k) for v in VARIANTS.values() for k in v if k != "off"}
    scores: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for held in (*mtrag, "none"):
        L.use_selector(args.models / f"selector-without-{held}.json")
        for name in [*mtrag, *(un if held == "none" else [])]:
            d = domains[name]
            test = held if held != "none" else name
            point = points.get(test, L.defaults())
            row: dict[str, dict[str, float]] = {}
            for variant in VARIANTS:
                set_variant(variant, d, kept)
                plans = L.plan(d, strategies)["embedded"]
                got = L.measure(d, vectors, plans, point)
                row[variant] = {
                    "nDCG@5": got["nDCG@5"],
                    "binding_recall": got["binding_recall"],
                    "binding_over_binding": got["binding_over_binding"],
                    "probe_over_binding": got["probe_over_binding"],
                }
                log(f"selector without {held}, {name}, {variant}: {got['nDCG@5']:.4f}")
            set_variant(DEFAULT, d, kept)
            scores.setdefault(held, {})[name] = row
    for d in domains.values():
        d.index.close()
    vectors.close()
    write(args.out, scores, mtrag, names, time.time() - started)


def _ndcg(row: dict[str, dict[str, float]]) -> dict[str, float]:
    return {v: row[v]["nDCG@5"] for v in VARIANTS}


def choose(rows: list[dict[str, dict[str, float]]], *, rule: bool) -> str:
    """The variant with the best mean nDCG@5 on `rows` (with `rule`: among those losing at
    most RULE against `off` on every row; `off` wins ties)."""
    return L.choose_variant([_ndcg(r) for r in rows], list(VARIANTS), "off", rule=rule)


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def write(out: Path, scores: Any, mtrag: list[str], names: list[str], seconds: float) -> None:
    """Two ways to choose, both blind to the test domain: (1) as bench/loo_eval.py chooses
    constants, the best mean on the fit domains with the selector fitted without the test
    domain; (2) with the issue's rule as a constraint, on the fit domains' own held-out rows
    (each with the selector fitted without it): the best mean gain over `off` among the
    variants that lose at most RULE on every one of them."""
    held_rows = {d: scores[d][d] for d in mtrag}
    lines = [
        "# The carry pass, held out (issue 20: no rule may lose more than 0.005 on any domain)",
        "",
        f"`bench/loo_carry.py`, {seconds / 60:.0f} min. Follow-up nDCG@5 of `embedded`, "
        "default hybrid retriever; per test domain the selector fitted without it and the "
        "phrasing constants chosen without it (`bench/loo_eval.py`); mtrag-un is never "
        "fitted on. Variants: " + "; ".join(f"`{k}` {v or 'as committed'}" for k, v in
        VARIANTS.items()) + ".",
        "",
        "(1) chosen as loo_eval chooses constants (best mean on the fit domains); (2) chosen "
        "with the rule as a constraint on the fit domains' held-out rows (best mean gain over "
        "`off` among variants losing at most 0.005 on each). 'vs off' is the chosen variant "
        "against carry switched off on the test domain: the rule asks >= -0.005.",
        "",
        "| test | " + " | ".join(VARIANTS)
        + " | (1) chosen | (1) vs off | (2) chosen | (2) vs off |",
        "| --- | " + " | ".join("---" for _ in VARIANTS) + " | --- | --- | --- | --- |",
    ]  # fmt: skip
    result: dict[str, Any] = {"variants": VARIANTS, "scores": scores, "tests": {}}
    for test in names:
        held = test if test in mtrag else "none"
        fit = [d for d in mtrag if d != held]
        row = scores[held][test]
        first = L.choose_variant(
            [_ndcg(scores[held][f]) for f in fit], list(VARIANTS), "off", rule=False, ties=DEFAULT
        )
        second = choose([held_rows[f] for f in fit], rule=True)
        cells = " | ".join(f"{row[v]['nDCG@5']:.4f}" for v in VARIANTS)
        d1 = row[first]["nDCG@5"] - row["off"]["nDCG@5"]
        d2 = row[second]["nDCG@5"] - row["off"]["nDCG@5"]
        lines.append(f"| {test} | {cells} | {first} | {d1:+.4f} | {second} | {d2:+.4f} |")
        result["tests"][test] = {"fit": fit, "chosen_mean": first, "chosen_rule": second}
    every = [_ndcg(scores[t if t in mtrag else "none"][t]) for t in names]
    within = [v for v in VARIANTS if all(r[v] - r["off"] >= -L.RULE for r in every)]
    lines += [
        "",
        f"Variants losing at most {L.RULE} against `off` on every held-out row: "
        + (", ".join(f"`{v}`" for v in within) or "none")
        + ". Chosen by (2) on all three MTRAG domains (what ships): "
        + f"`{choose(list(held_rows.values()), rule=True)}`.",
        "",
        "Binding (recall / over-binding / probe over-binding) of each variant:",
        "",
        "| test | " + " | ".join(VARIANTS) + " |",
        "| --- | " + " | ".join("---" for _ in VARIANTS) + " |",
    ]
    for test in names:
        held = test if test in mtrag else "none"
        row = scores[held][test]
        cells = " | ".join(
            f"{_fmt(row[v]['binding_recall'])} / {_fmt(row[v]['binding_over_binding'])} / "
            f"{_fmt(row[v]['probe_over_binding'])}"
            for v in VARIANTS
        )
        lines.append(f"| {test} | {cells} |")
    out.mkdir(parents=True, exist_ok=True)
    (out / "loo_carry.md").write_text("\n".join(lines) + "\n")
    (out / "loo_carry.json").write_text(json.dumps(result, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
