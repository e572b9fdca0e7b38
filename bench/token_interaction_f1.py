"""The token (late-interaction) features in the offline answer itself: held-out F1 on
MTRAG's retrieved passages (follow-up to bench/token_interaction.py's ranking probe).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/token_interaction_f1.py \
        --cache /work/cache/bench_md --cases bench/.cache/tok_cases.pkl \
        --out bench/results/token_interaction_f1.json

Bench only: `scoring.features_and_vectors` is wrapped so the scorer also reads the pair
features of bench/token_interaction.py (the shipped code is unchanged). Variants:

- `base`: the shipped features, refitted here (the control);
- `+token`: plus `tok_mean`, `word_mean`, `word_min`, `share_0.7`, `sent_cov`;
- `cosine->word_mean`: the `cosine` and `cosine_gap` columns (and so the selection rules'
  evidence) read the token `word_mean` instead of the pooled cosine.

Each is fitted as bench/extractive_fit_retrieved.py fits the shipped weights (top 3 of the
top 5 retrieved, F1-oracle labels, L2 10, threshold chosen on the fitting domains), leave
one MTRAG domain out; the held-out domain's answers (gap 0.1) are scored against the
references, per turn for a paired comparison with `base`. MTRAG-UN answerable turns (test
only): the fit on all three MTRAG domains.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import extractive_fit_retrieved as efr  # noqa: E402
from extractive_answers import DATA, DOMAINS, UN_DOMAINS, CachedEmbed, Case  # noqa: E402
from paired_f1 import compare  # noqa: E402
from token_interaction import PAIR_NAMES, TOKEN_FEATURES, TokenEmbed, pair_features  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402

ORIGINAL = scoring.features_and_vectors
COL = {n: i for i, n in enumerate(PAIR_NAMES)}
FCOL = {n: i for i, n in enumerate(scoring.FEATURES)}
Variant = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _plus(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.hstack([x, t[:, [COL[n] for n in TOKEN_FEATURES]]])


def _swap(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    x = x.copy()
    wm = t[:, COL["word_mean"]]
    x[:, FCOL["cosine"]] = wm
    x[:, FCOL["cosine_gap"]] = wm - wm.max()
    return x


VARIANTS: dict[str, Variant | None] = {"base": None, "+token": _plus, "cosine->word_mean": _swap}


def wrap(te: TokenEmbed, variant: Variant | None) -> None:
    """Make every caller of `scoring.features_and_vectors` read `variant`'s columns."""

    def patched(query: str, candidates: Sequence[scoring.Candidate], *args: Any) -> Any:
        x, vectors = ORIGINAL(query, candidates, *args)
        if variant is None or not len(candidates):
            return x, vectors
        te.warm([query, *(c.text for c in candidates)])
        q = te[query]
        t = np.array([[pair_features(q, te[c.text])[n] for n in PAIR_NAMES] for c in candidates])
        return variant(x, t), vectors

    scoring.features_and_vectors = patched  # type: ignore[assignment]


def per_turn(cases: Sequence[Case], embed: CachedEmbed, scorer: scoring.Scorer) -> list[float]:
    out = []
    for c in cases:
        quoted = extractive.best_sentences(
            c.query, c.hits, embed=embed, scorer=scorer, spread_gap=efr.GAP
        )
        out.append(round(score_text(" ".join(e.sentence for e in quoted), c.reference)[1], 4))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/bench_md"))
    parser.add_argument("--cases", type=Path, default=ROOT / "bench" / ".cache" / "tok_cases.pkl")
    parser.add_argument(
        "--embeddings", type=Path, default=ROOT / "bench" / ".cache" / "extractive_vectors.npz"
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "token_interaction_f1.json"
    )
    parser.add_argument("--l2", type=float, default=10.0)
    args = parser.parse_args()
    t0 = time.perf_counter()
    got = efr.retrieved_cases(args.cases, args.data, args.cache)
    print("retrieved", round(time.perf_counter() - t0), flush=True)
    embed = CachedEmbed(args.embeddings)
    for group in got.values():
        embed.warm(group)
    te = TokenEmbed()
    results: dict[str, Any] = {"command": " ".join(sys.argv[1:]), "l2": args.l2, "variants": {}}
    turns: dict[str, dict[str, list[float]]] = {}
    for name, variant in VARIANTS.items():
        wrap(te, variant)
        row: dict[str, Any] = {}
        turns[name] = {}
        for d in DOMAINS:
            sc = efr.fitted([c for o in DOMAINS if o != d for c in got[o]], embed, args.l2)
            turns[name][d] = per_turn(got[d], embed, sc)
            row[d] = {"f1": round(float(np.mean(turns[name][d])), 4), "threshold": sc.threshold}
        sc = efr.fitted([c for d in DOMAINS for c in got[d]], embed, args.l2)
        for d in UN_DOMAINS:
            turns[name][f"un/{d}"] = per_turn(got[f"un/{d}"], embed, sc)
            row[f"un/{d}"] = {"f1": round(float(np.mean(turns[name][f"un/{d}"])), 4)}
        results["variants"][name] = row
        print(name, json.dumps(row), round(time.perf_counter() - t0), flush=True)
    scoring.features_and_vectors = ORIGINAL  # type: ignore[assignment]
    results["paired_vs_base"] = {
        name: {g: compare(turns["base"][g], turns[name][g]) for g in turns["base"]}
        for name in VARIANTS
        if name != "base"
    }
    results["per_turn_f1"] = turns
    results["encode"] = {"texts": te.encoded, "seconds": round(te.seconds, 1)}
    results["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(results["paired_vs_base"], indent=1))


if __name__ == "__main__":
    main()
