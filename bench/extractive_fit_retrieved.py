"""The sentence scorer fitted on RETRIEVED passages, leave-one-domain-out (issue 21).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/extractive_fit_retrieved.py \
        --cache /work/cache/bench --cases /tmp/er_cases.pkl [--write] \
        --out bench/results/extractive_fit_retrieved

`bench/extractive_answers.py --fit` fits the weights on each MTRAG turn's gold passages:
every candidate is on topic, so the oracle's picks are the long early sentences of the top
passage and the fit pays position and length more than similarity to the question. The
answer is built from retrieved passages, where the top passage's opening is often about
something else. Here the same features and the same label (a sentence is positive when the
F1 oracle quotes it) are fitted on each turn's top 3 retrieved passages (the passages the
answer reads: default hybrid retriever on the cached eval index, k=5, the human rewrite),
then:

- per L2 penalty in `L2S`, leave-one-domain-out: fitted on two MTRAG domains, the threshold
  chosen on them, the held-out domain's answers scored on its retrieved passages (gap 0.1,
  the nearest sentence on: the shipped settings) and on its gold passages (as
  extractive_answers.py scores them);
- the penalty with the best mean held-out retrieved F1 is fitted on all three domains
  (`--write`: into tellmemore/answer/sentence_weights.json) and scored on MTRAG-UN's
  answerable turns (test only), retrieved and gold, against the weights it replaces.

`--cases` keeps the retrieved turns (a pickle, bench-only scratch) so a second run does not
retrieve again. The handbooks (bench/trial_answers.py, bench/handbook_trial.py) are the
held-out check: bench/results/retrieved_fit.md.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extractive_answers import (  # noqa: E402
    DATA,
    DOMAINS,
    UN_DOMAINS,
    WEIGHTS,
    CachedEmbed,
    Case,
    mtrag_cases,
    un_cases,
)
from extractive_retrieved import retrieve  # noqa: E402
from sentence_labels import labels, rarity  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402
from tellmemore.answer.scoring import Candidate  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

OUT = ROOT / "bench" / "results" / "extractive_fit_retrieved"
L2S = (1.0, 3.0, 10.0, 100.0)
THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
FIXED: dict[str, float] = {}
"""`--threshold`: the threshold every fit keeps instead of the one its own F1 chooses."""
GAP = 0.1
"""`retrieval.spread_gap`'s default, as the answer runs."""
RANK_BY = {"rank_by": "fused"}
"""`--rank-by`: what the `rank` feature reads in the fit and in the fitted scorer
(`scoring.passage_ranks`)."""


def retrieved_cases(kept: Path | None, data: Path, cache: Path) -> dict[str, list[Case]]:
    """Every MTRAG domain's turns (and MTRAG-UN's answerable ones, "un/<domain>") with their
    retrieved hits: read from `kept` when it exists, else retrieved and, with a path, kept
    there (a retrieval pass costs minutes; the fits that read it take seconds)."""
    if kept and kept.exists():
        got: dict[str, list[Case]] = pickle.loads(kept.read_bytes())
        return got
    got = {}
    for d in DOMAINS:
        got[d] = retrieve(list(mtrag_cases(data, d)), d, data, cache, 1)
        if d in UN_DOMAINS:
            got[f"un/{d}"] = retrieve(list(un_cases(data, d)), d, data, cache, 1)
    if kept:
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_bytes(pickle.dumps(got))
    return got


def answer_reads(case: Case) -> tuple[list[Hit], list[Candidate], list[str]]:
    """What the offline answer reads of a turn: its top MAX_CHUNKS hits, their quotable
    candidates (sentences, items, rows) and each chunk's heading line."""
    hits = list(case.hits[: extractive.MAX_CHUNKS])
    chunk_units = [quotable(extractive.units(h.chunk.text, h.chunk.header)) for h in hits]
    headers = [h.chunk.header or h.chunk.title or "" for h in hits]
    return hits, extractive.candidates_of(chunk_units), headers


def rows(cases: Sequence[Case], embed: CachedEmbed) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows of the candidates the answer reads (top MAX_CHUNKS hits), labelled 1
    when the F1 oracle quotes them."""
    xs, ys = [], []
    for c in cases:
        hits, candidates, headers = answer_reads(c)
        if not candidates:
            continue
        ranks = scoring.passage_ranks([h.dense for h in hits], RANK_BY["rank_by"])
        x = scoring.features(c.query, candidates, headers, asked_type(c.query), embed, ranks)
        _, member = labels([k.text for k in candidates], c.reference, c.query, "f1", rarity([]))
        xs.append(x)
        ys.append(member)
    return np.vstack(xs), np.concatenate(ys)


def turn_f1s(
    cases: Sequence[Case], embed: CachedEmbed, scorer: scoring.Scorer, gap: float | None
) -> np.ndarray:
    """Each turn's content-word F1 of its answer against its reference (`gap` None: the
    gold passages carry no dense cosine, as extractive_answers.py answers them)."""
    return np.array(
        [
            score_text(" ".join(e.sentence for e in extractive.best_sentences(
                c.query, c.hits, embed=embed, scorer=scorer, spread_gap=gap
            )), c.reference)[1]
            for c in cases
        ],
        dtype=float,
    )  # fmt: skip


def f1(
    cases: Sequence[Case], embed: CachedEmbed, scorer: scoring.Scorer, gap: float | None
) -> float:
    """Mean content-word F1 of the answers against the references (`turn_f1s`)."""
    return round(float(turn_f1s(cases, embed, scorer, gap).mean()), 4) if cases else 0.0


def fitted(cases: Sequence[Case], embed: CachedEmbed, l2: float) -> scoring.Scorer:
    """Weights fitted on `cases`' retrieved passages, with the threshold that maximises
    their own answers' F1."""
    x, y = rows(cases, embed)
    scorer = replace(scoring.fit(x, y, l2=l2), rank_by=RANK_BY["rank_by"])
    if "threshold" in FIXED:
        return replace(scorer, threshold=FIXED["threshold"])
    best = max(THRESHOLDS, key=lambda t: f1(cases, embed, replace(scorer, threshold=t), GAP))
    return replace(scorer, threshold=best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--cases", type=Path, help="a pickle of the retrieved turns, kept")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--write", action="store_true", help="write the shipped weights")
    parser.add_argument(
        "--train",
        choices=("retrieved", "both"),
        default="retrieved",
        help="fit on the retrieved passages, or on them and the gold ones together",
    )
    parser.add_argument(
        "--before", type=Path, default=WEIGHTS, help="the weights to compare with (the shipped)"
    )
    parser.add_argument(
        "--embeddings", type=Path, default=ROOT / "bench" / ".cache" / "extractive_vectors.npz"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        help="keep this threshold (e.g. the shipped scorer's 0.1, so that only the ranking "
        "differs) instead of choosing it on the training domains",
    )
    parser.add_argument(
        "--weights-out", type=Path, default=WEIGHTS, help="where --write writes the weights"
    )
    parser.add_argument(
        "--rank-by",
        choices=scoring.RANK_BY,
        default="fused",
        help="what the rank feature reads: the fused order (shipped), the passages' own "
        "dense cosine order, or nothing",
    )
    args = parser.parse_args()
    RANK_BY["rank_by"] = args.rank_by
    if args.threshold is not None:
        FIXED["threshold"] = args.threshold
    t0 = time.perf_counter()
    embed = CachedEmbed(args.embeddings)
    retrieved = retrieved_cases(args.cases, args.data, args.cache)
    gold = {d: list(mtrag_cases(args.data, d)) for d in DOMAINS}
    gold_un = {d: list(un_cases(args.data, d)) for d in UN_DOMAINS}
    for group in (*retrieved.values(), *gold.values(), *gold_un.values()):
        embed.warm(group)
    before = scoring.Scorer.from_json(args.before.read_text(encoding="utf-8"))
    results: dict = {"train": args.train, "l2": {}, "before": {}, "seconds": 0.0}
    for d in DOMAINS:
        results["before"][d] = {
            "retrieved": f1(retrieved[d], embed, before, GAP),
            "gold": f1(gold[d], embed, before, None),
        }

    def train(domains: Sequence[str]) -> list[Case]:
        out = [c for o in domains for c in retrieved[o]]
        return out + [c for o in domains for c in gold[o]] if args.train == "both" else out

    for l2 in L2S:
        per: dict = {}
        for d in DOMAINS:
            s = fitted(train([o for o in DOMAINS if o != d]), embed, l2)
            per[d] = {
                "retrieved": f1(retrieved[d], embed, s, GAP),
                "gold": f1(gold[d], embed, s, None),
                "threshold": s.threshold,
            }
        per["mean_retrieved"] = round(sum(per[d]["retrieved"] for d in DOMAINS) / 3, 4)
        results["l2"][str(l2)] = per
        print(l2, per, round(time.perf_counter() - t0), "s", flush=True)
    best = max(L2S, key=lambda v: results["l2"][str(v)]["mean_retrieved"])
    chosen = fitted(train(DOMAINS), embed, best)
    results["chosen_l2"] = best
    results["threshold"] = chosen.threshold
    results["un"] = {
        d: {
            "retrieved_before": f1(retrieved[f"un/{d}"], embed, before, GAP),
            "retrieved_after": f1(retrieved[f"un/{d}"], embed, chosen, GAP),
            "gold_before": f1(gold_un[d], embed, before, None),
            "gold_after": f1(gold_un[d], embed, chosen, None),
        }
        for d in UN_DOMAINS
    }
    results["weights"] = dict(
        zip(scoring.FEATURES, [round(w, 4) for w in chosen.weights], strict=True)
    )
    results["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(results["un"]), flush=True)
    if args.write:
        args.weights_out.write_text(
            chosen.to_json(
                fitted_on="MTRAG clapnq, cloud and govt: each turn's top 3 retrieved passages "
                "(default hybrid retriever, cached eval index, the human rewrite)"
                + (" and its gold passages" if args.train == "both" else "")
                + "; a sentence "
                f"is positive when the F1 oracle quotes it; L2 {best:g} "
                + (f"threshold fixed at {args.threshold:g} " if args.threshold else "")
                + (f"rank by {args.rank_by} " if args.rank_by != "fused" else "")
                + "(bench/extractive_fit_retrieved.py"
                + (f" --threshold {args.threshold:g}" if args.threshold else "")
                + (f" --rank-by {args.rank_by}" if args.rank_by != "fused" else "")
                + ")"
            ),
            encoding="utf-8",
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
