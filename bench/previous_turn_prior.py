"""Does the previous turn's ranking help a follow-up's retrieval, held out?

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/previous_turn_prior.py \
        --cache /work/cache/bench_md

A follow-up often stays on the passages the last answer came from, and the passages
retrieved for the previous turn are a signal no phrasing rule is needed for: a prior
from conversation structure, not from wording. Here each follow-up's ranking (the
embedded resolver's phrasings, default hybrid retriever, the selector fitted without the
domain: `bench/loo_eval.py`'s setting) is fused post hoc with the previous turn's ranking
(its own follow-up ranking, or the first question searched as typed) by passage-level
reciprocal rank, the previous list at weight w. How often the gold stays is counted from
the labels: the gold shares a passage with the previous turn's gold on 22% / 17% / 30% of
clapnq / cloud / govt follow-ups, a document on 22% / 29% / 45%.
Results: bench/results/previous_turn_prior.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import loo_eval as L

from tellmemore.eval.measures import score_turns
from tellmemore.eval.strategies import build_strategies
from tellmemore.types import SearchMode

WEIGHTS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
RRF_K = 60
DEPTH = 20


def ranking(domain: L.Domain, queries: tuple[str, ...], weights: tuple[float, ...]) -> list[str]:
    """Passage ids, best first, as `loo_eval.measure` ranks them."""
    hits = domain.retriever.search(
        list(queries), k=50, mode=SearchMode.HYBRID, weights=list(weights) or None
    ).hits
    return list(dict.fromkeys(h.chunk.doc_id for h in hits))[:DEPTH]


def fused(current: list[str], previous: list[str], w: float) -> list[str]:
    """`current` and `previous` fused by reciprocal rank, `previous` at weight `w`."""
    score: dict[str, float] = {}
    for weight, ranked in ((1.0, current), (w, previous)):
        for r, pid in enumerate(ranked):
            score[pid] = score.get(pid, 0.0) + weight / (RRF_K + r + 1)
    return sorted(score, key=lambda p: -score[p])[:DEPTH]


def follow_up_scores(opened: L.Opened, name: str) -> dict[str, float]:
    """Mean follow-up nDCG@5 of `name` per weight of the previous turn's ranking."""
    d = opened.domains[name]
    L.apply(L.defaults())
    plans = L.plan(d, build_strategies(["embedded"])[0])["embedded"]
    current: dict[str, list[str]] = {}
    for task, p in plans.items():
        ph = p.strategy.phrasings(
            p.resolution, p.turn.message, p.turn.history, d.context, searched=d.searched[task]
        )
        queries = tuple(q for q in ph.queries if q.strip())
        opened.vectors.encode([q.strip() for q in queries])
        current[task] = ranking(d, ph.queries, ph.weights) if queries else []
    by_turn = {(p.turn.conversation_id, p.turn.turn): task for task, p in plans.items()}
    previous: dict[str, list[str]] = {}
    for task, p in plans.items():
        before = by_turn.get((p.turn.conversation_id, p.turn.turn - 1))
        if before is not None:
            previous[task] = current[before]
            continue
        users = [t.content for t in p.turn.history if t.role == "user" and t.content.strip()]
        if users:
            opened.vectors.encode([users[-1].strip()])
        previous[task] = ranking(d, (users[-1],), (1.0,)) if users else []
    gold = {t: list(p.turn.gold) for t, p in plans.items()}
    out = {}
    for w in WEIGHTS:
        ranked = {t: fused(current[t], previous[t], w) for t in plans}
        scores = score_turns(gold, ranked, ["nDCG@5"])
        out[f"{w:g}"] = round(sum(s["nDCG@5"] for s in scores.values()) / len(scores), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=L.ROOT / "bench" / ".cache")
    ap.add_argument("--models", type=Path, default=L.OUT / "loo")
    ap.add_argument("--out", type=Path, default=L.OUT / "previous_turn_prior")
    args = ap.parse_args()
    started = time.time()
    opened = L.open_for_variants(args.cache)
    results: dict[str, Any] = {}
    for name in opened.names:
        held = name if name in opened.mtrag else "none"
        L.use_selector(args.models / f"selector-without-{held}.json")
        results[name] = follow_up_scores(opened, name)
        print(name, results[name], flush=True)
    fit = {
        d: max(
            results[d],
            key=lambda w: sum(results[o][w] for o in opened.mtrag if o != d),
        )
        for d in opened.mtrag
    }
    payload = {
        "command": " ".join(["bench/previous_turn_prior.py", *sys.argv[1:]]),
        "ndcg5": results,
        "weight_chosen_without": fit,
        "seconds": round(time.time() - started, 1),
    }
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    head = ["domain", *(f"w = {w:g}" for w in WEIGHTS), "w chosen on the other two"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for name, row in results.items():
        lines.append(
            "| "
            + " | ".join([name, *(f"{v:.4f}" for v in row.values()), fit.get(name, "-")])
            + " |"
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
