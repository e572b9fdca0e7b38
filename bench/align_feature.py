"""A 21st feature of the MTRAG-fitted sentence scorer, fitted and screened (issue 21: token
alignment, Exp BU; a stated figure, Exp CC).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/align_feature.py \
        --cache /work/cache/bench_md --cases bench/.cache/er_cases.pkl \
        --handbook bench/.cache/hb_sentence_cases.pkl --out bench/results/align_feature.json \
        [--feature align|figure]

`figure` (Exp CC): the unit states a value of any kind (`answer_types.holds` for any of
`VALUE_KINDS`: a duration, an amount, a time, a count), whatever the question asks for; the
`answer_type` feature pays a stated value only when the question asks for that kind.

Session 45 found `align` (for each MiniLM token vector of the question, the best cosine to a
token of the unit, averaged; `sentence_align.py`) the best single first-sentence signal on the
handbooks, but it was only tried in a fit on the handbooks' own labels. The shipped scorer is
fitted on MTRAG's references over retrieved passages (`extractive_fit_retrieved.py`). Here
both arms, the shipped 20 features and 20 + `align`, go through that bench's own fit:

- screen 1: MTRAG leave-one-domain-out, retrieved passages: each arm's L2 chosen by its mean
  held-out F1, the held-out F1 per domain;
- screen 2: each arm fitted on all three MTRAG domains at its L2, judged on the handbook turns
  (`handbook_sentence_loco.py`'s searched cases: no handbook is in the fit) by
  `handbook_sentence_fit.judge`: answers holding every `expect` string, mean words.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import extractive_fit_retrieved as efr  # noqa: E402
import handbook_sentence_fit as hsf  # noqa: E402
from extractive_answers import DATA, DOMAINS, CachedEmbed  # noqa: E402
from handbook_corpora import DEV_NAMES  # noqa: E402
from sentence_align import TokenVectors, align  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402
from tellmemore.answer.answer_types import VALUE_KINDS, holds  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402


def use_align(tokens: TokenVectors) -> Callable[[], None]:
    """Route the scorer's features through `align` as a 21st column, in this process only
    (every fit and answer below reads `scoring.features`); returns what undoes it."""

    def column(query: str, candidates: Sequence[scoring.Candidate], kind: Any) -> np.ndarray:
        q, *units = tokens([query, *(c.text for c in candidates)])
        return np.array([[align(q, u)] for u in units])

    return hsf.append_features(("align",), column)


def use_figure() -> Callable[[], None]:
    """Route the scorer's features through `figure` as a 21st column (Exp CC)."""

    def column(query: str, candidates: Sequence[scoring.Candidate], kind: Any) -> np.ndarray:
        return np.array([[float(any(holds(c.text, k) for k in VALUE_KINDS))] for c in candidates])

    return hsf.append_features(("figure",), column)


def value_wanted(turns: Sequence[Any]) -> Callable[[str], float]:
    """Exp CN: P(the answer states a value | the question), a logistic regression (L2 1) on
    the bundled MiniLM vector of the question, labelled by the handbook turns' `expect`
    strings (one states a value of a `VALUE_KINDS` kind). A handbook turn's own probability
    comes from the model fitted without its corpus; any other question (MTRAG's) from the
    model fitted on every handbook turn."""
    from sklearn.linear_model import LogisticRegression

    def flat(expect: Any) -> list[str]:
        return [x for y in expect for x in (y if isinstance(y, list) else [y])]

    embedder = load_embedder(Settings().embedder)
    x = np.asarray(embedder.embed_queries([t.query for t in turns]))
    y = np.array([any(holds(s, k) for s in flat(t.expect) for k in VALUE_KINDS) for t in turns])
    corpora = np.array([t.corpus for t in turns])
    own: dict[str, float] = {}
    for c in sorted(set(corpora)):
        held = corpora == c
        fit = LogisticRegression(C=1.0, max_iter=2000).fit(x[~held], y[~held])
        probabilities = fit.predict_proba(x[held])[:, 1]
        for t, p in zip(np.array(turns, dtype=object)[held], probabilities, strict=True):
            own[t.query] = float(p)
    every = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)

    def probability(query: str) -> float:
        if query not in own:
            vector = np.asarray(embedder.embed_queries([query]))
            own[query] = float(every.predict_proba(vector)[0, 1])
        return own[query]

    return probability


def use_wants_value(probability: Callable[[str], float]) -> Callable[[], None]:
    """Route the scorer's features through `wants_value` as a 21st column (Exp CN): the
    unit states a value of any kind, times how likely the question wants one."""

    def column(query: str, candidates: Sequence[scoring.Candidate], kind: Any) -> np.ndarray:
        p = probability(query)
        return np.array(
            [[p * float(any(holds(c.text, k) for k in VALUE_KINDS))] for c in candidates]
        )

    return hsf.append_features(("wants_value",), column)


def loo(retrieved: dict[str, list[Any]], embed: CachedEmbed) -> dict[str, Any]:
    """Screen 1: held-out retrieved F1 per domain for every L2, and the L2 with the best mean."""
    out: dict[str, Any] = {}
    for l2 in efr.L2S:
        per: dict[str, Any] = {}
        for d in DOMAINS:
            train = [c for o in DOMAINS if o != d for c in retrieved[o]]
            per[d] = efr.f1(retrieved[d], embed, efr.fitted(train, embed, l2), efr.GAP)
        per["mean"] = round(sum(per[d] for d in DOMAINS) / len(DOMAINS), 4)
        out[str(l2)] = per
        print(" ", l2, per, flush=True)
    out["chosen_l2"] = max(efr.L2S, key=lambda v: out[str(v)]["mean"])
    return out


def handbooks(turns: Sequence[Any], scorer: scoring.Scorer | None, embed: Any) -> dict[str, Any]:
    """Screen 2: `judge` per corpus, totalled for dev and held out (no turn printed)."""
    names = sorted({t.corpus for t in turns})
    per = {c: hsf.judge([t for t in turns if t.corpus == c], embed, scorer) for c in names}
    out: dict[str, Any] = {
        "dev": hsf.total([per[c] for c in names if c in DEV_NAMES]),
        "held out": hsf.total([per[c] for c in names if c not in DEV_NAMES]),
    }
    out["per_corpus"] = {c: per[c]["answered"] for c in names}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, required=True, help="the eval index cache")
    parser.add_argument("--cases", type=Path, help="MTRAG retrieved turns, kept (pickle)")
    parser.add_argument("--handbook", type=Path, required=True, help="handbook turns (pickle)")
    parser.add_argument("--exclude", nargs="*", default=["ultralytics", "docker"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--threshold", type=float, help="keep this threshold in every fit (both arms)"
    )
    parser.add_argument("--feature", choices=("align", "figure", "wants_value"), default="align")
    args = parser.parse_args()
    if args.threshold is not None:
        efr.FIXED["threshold"] = args.threshold
    t0 = time.perf_counter()
    embed = CachedEmbed(ROOT / "bench" / ".cache" / "extractive_vectors.npz")
    retrieved = efr.retrieved_cases(args.cases, args.data, args.cache)
    for d in DOMAINS:
        embed.warm(retrieved[d])
    if args.feature == "align":
        model = load_embedder(Settings().embedder)._torch_encoder("fp32").model  # type: ignore[attr-defined]
        tokens = TokenVectors(model)
    turns = [t for t in pickle.loads(args.handbook.read_bytes()) if t.corpus not in args.exclude]
    if args.feature == "wants_value":
        probability = value_wanted(turns)
    results: dict[str, Any] = {"shipped": handbooks(turns, None, embed)}
    print("shipped", json.dumps({k: results["shipped"][k] for k in ("dev", "held out")}))
    for arm, extra in (("20 features", False), (f"20 + {args.feature}", True)):
        restore = None
        if extra:
            if args.feature == "align":
                restore = use_align(tokens)
            elif args.feature == "figure":
                restore = use_figure()
            else:
                restore = use_wants_value(probability)
        print(arm, flush=True)
        screen1 = loo(retrieved, embed)
        l2 = screen1["chosen_l2"]
        scorer = efr.fitted([c for d in DOMAINS for c in retrieved[d]], embed, l2)
        screen2 = handbooks(turns, scorer, embed)
        results[arm] = {
            "loo": screen1,
            "handbooks": screen2,
            "threshold": scorer.threshold,
            "weights": dict(
                zip(scoring.FEATURES, np.round(scorer.weights, 4).tolist(), strict=True)
            ),
        }
        print(arm, json.dumps({k: screen2[k] for k in ("dev", "held out")}), flush=True)
        if restore is not None:
            restore()
    results["seconds"] = round(time.perf_counter() - t0)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
