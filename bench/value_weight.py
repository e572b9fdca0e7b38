"""The shipped sentence scorer plus one handbook-chosen weight for `wants_value` (Exp CN2,
issue 21: "the answer type the question asks for").

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/value_weight.py --cache /work/cache/bench_md \
        --cases bench/.cache/er_cases.pkl --handbook bench/.cache/hb_sentence_cases.pkl \
        --out bench/results/value_weight.json

`wants_value(unit)` = P(the answer states a value | the question) x [the unit states a value
of any kind] (`align_feature.value_wanted`: a logistic regression on the question's MiniLM
vector, fitted on the handbook turns' `expect` labels, leave one corpus out). Exp CN gave it
to the MTRAG fit as a 21st feature: MTRAG's long retelling references weigh it 0.01, so it
moved nothing. Here the shipped 20 weights stay and only the new column's weight `w` is
chosen, on the handbooks, leave one corpus out (each corpus judged at the `w` best on the
others); MTRAG's F1 on retrieved passages is the guard, at the `w` chosen on every handbook.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import extractive_fit_retrieved as efr  # noqa: E402
import handbook_sentence_fit as hsf  # noqa: E402
from align_feature import use_wants_value, value_wanted  # noqa: E402
from extractive_answers import DATA, DOMAINS, CachedEmbed  # noqa: E402
from handbook_corpora import DEV_NAMES  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402

GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)


def with_weight(base: scoring.Scorer, w: float) -> scoring.Scorer:
    """`base` with one more linear term of weight `w` (unstandardised)."""
    return replace(
        base,
        weights=(*base.weights, w),
        mean=(*base.mean, 0.0),
        scale=(*base.scale, 1.0),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--handbook", type=Path, required=True)
    parser.add_argument("--exclude", nargs="*", default=["ultralytics", "docker"])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    t0 = time.perf_counter()
    embed = CachedEmbed(ROOT / "bench" / ".cache" / "extractive_vectors.npz")
    turns = [t for t in pickle.loads(args.handbook.read_bytes()) if t.corpus not in args.exclude]
    probability = value_wanted(turns)
    base = scoring.shipped()
    use_wants_value(probability)
    names = sorted({t.corpus for t in turns})
    grid: dict[str, dict[str, dict[str, float]]] = {}
    for w in GRID:
        scorer = with_weight(base, w)
        grid[str(w)] = {
            c: hsf.judge([t for t in turns if t.corpus == c], embed, scorer) for c in names
        }
        print(w, sum(v["answered"] for v in grid[str(w)].values()), flush=True)

    def best_without(held: str | None) -> float:
        def score(w: float) -> tuple[float, float]:
            return (sum(v["answered"] for c, v in grid[str(w)].items() if c != held), -w)

        return max(GRID, key=score)

    chosen = {c: best_without(c) for c in names}
    loco = {c: grid[str(chosen[c])][c] for c in names}
    shipped = grid["0.0"]
    out: dict[str, Any] = {}
    for label, part in (("shipped", shipped), ("loco", loco)):
        out[label] = {
            "dev": hsf.total([part[c] for c in names if c in DEV_NAMES]),
            "held out": hsf.total([part[c] for c in names if c not in DEV_NAMES]),
        }
    out["worst corpus change"] = min(loco[c]["answered"] - shipped[c]["answered"] for c in names)
    out["chosen per corpus"] = sorted(set(chosen.values()))
    w_all = best_without(None)
    out["w (every handbook)"] = w_all
    retrieved = efr.retrieved_cases(args.cases, args.data, args.cache)
    out["mtrag F1 (retrieved)"] = {
        str(w): {d: efr.f1(retrieved[d], embed, with_weight(base, w), efr.GAP) for d in DOMAINS}
        for w in (0.0, w_all)
    }
    out["seconds"] = round(time.perf_counter() - t0)
    print(json.dumps(out, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
