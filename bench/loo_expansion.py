"""Does learned term selection (QuReTeC-style, with the scorer's cheap features) add to
retrieval on a domain it was not fitted on?

    .venv/bin/python bench/loo_expansion.py --cache /work/cache/bench

For each held-out MTRAG domain D, the candidate scorer (`scripts/train_scorer.py`) is fitted
on the other two, on human rewrites alone or on rewrites plus distant labels from the gold
passages. The embedded resolver's phrasings (selector fitted without D, committed
constants) then get the message followed by the scorer's top k history phrases: as one more
phrasing at weight w ("add"), or in place of the history phrasing ("replace"). The variant
(labels, k, mode, w) is chosen by mean follow-up nDCG@5 on the fit domains and reported on D;
mtrag-un (never fitted on) gets the variant chosen on all three. Results:
bench/results/loo_expansion.{md,json}.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import loo_eval as L
import train_scorer as T

from tellmemore.conversation.phrasings import Phrasings
from tellmemore.conversation.selector import SelectorModel
from tellmemore.eval.strategies import build_strategies

LABELS = {"rewrite": ("rewrite",)}
"""Rewrite labels only: scripts/train_scorer.py found gold-passage labels lower the held-out
phrase AUC when mixed in (bench/results/scorer_cross_domain.md)."""
KS = (2,)
MODES = ("add", "replace")
WEIGHTS = (0.3, 0.5)
Variant = tuple[str, int, str, float]


def expansion(rows: Any, model: SelectorModel, k: int) -> str:
    """The scorer's top k phrases (no two sharing a stem), best first."""
    order = sorted(range(len(rows.texts)), key=lambda i: -model.probability(rows.x[i]))
    picked: list[int] = []
    seen: set[str] = set()
    for i in order:
        if len(picked) >= k:
            break
        if seen & set(rows.stems[i]):
            continue
        picked.append(i)
        seen |= set(rows.stems[i])
    return " ".join(rows.texts[i] for i in picked)


def transform(message_of: dict[str, str], extra: dict[str, str], mode: str, w: float) -> Any:
    def apply(task: str, ph: Phrasings) -> Phrasings:
        phrases = extra.get(task, "")
        if not phrases or not ph.queries:
            return ph
        query = f"{message_of[task]} {phrases}"
        if mode == "replace" and ph.context:
            keep = [
                (q, x) for q, x in zip(ph.queries, ph.weights, strict=True) if q not in ph.context
            ]
            w_old = next(x for q, x in zip(ph.queries, ph.weights, strict=True) if q in ph.context)
            qs = (*(q for q, _ in keep), query)
            return replace(ph, queries=qs, weights=(*(x for _, x in keep), w_old), context=(query,))
        return replace(ph, queries=(*ph.queries, query), weights=(*ph.weights, w))

    return apply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=L.ROOT / "bench" / ".cache")
    args = ap.parse_args()
    started = time.time()
    opened = L.open_for_variants(args.cache)
    vectors, domains = opened.vectors, opened.domains
    mtrag, paths, names, un = opened.mtrag, opened.paths, opened.names, opened.un
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    rows = {n: {r.task_id: r for r in T.extract(paths[n], args.cache)} for n in names}
    strategies, _ = build_strategies(["embedded"])
    variants: list[Variant] = list(itertools.product(LABELS, KS, MODES, WEIGHTS))
    scores: dict[str, dict[str, dict[Any, float]]] = {}
    log(f"domains: {names}")
    point = L.defaults()
    for held in (*mtrag, "none"):
        fit = [d for d in mtrag if d != held]
        models = {
            lab: T.fit([(list(rows[d].values()), y) for d in fit for y in ys])
            for lab, ys in LABELS.items()
        }
        sel = L.OUT / "loo" / f"selector-without-{held}.json"
        L.use_selector(sel if sel.is_file() else None)
        evaluated = [*mtrag, *(un if held == "none" else [])]
        for name in evaluated:
            d = domains[name]
            plans = L.plan(d, strategies)["embedded"]
            message_of = {t: p.turn.message for t, p in plans.items()}
            base = L.measure(d, vectors, plans, point)["nDCG@5"]
            row: dict[Any, float] = {"base": base}
            for lab, k, mode, w in variants:
                extra = {t: expansion(r, models[lab], k) for t, r in rows[name].items() if len(r.x)}
                got = L.measure(d, vectors, plans, point, transform(message_of, extra, mode, w))
                row[(lab, k, mode, w)] = got["nDCG@5"]
            scores.setdefault(held, {})[name] = row
            log(f"{held} {name} base {base:.4f} best {max(row.values()):.4f}")
    lines = [
        "# Learned term selection as a phrasing, held out",
        "",
        f"`bench/loo_expansion.py`, {(time.time() - started) / 60:.0f} min. Follow-up "
        "nDCG@5, hybrid; embedded with the selector fitted without the test domain and "
        "the committed constants. Variant = (labels, k phrases, add/replace, weight), "
        "chosen on the fit domains.",
        "",
        "| test | chosen variant | fit mean: base / chosen | test: embedded | test: + chosen "
        "| change |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    out: dict[str, Any] = {}
    for test in names:
        held = test if test in mtrag else "none"
        fit = [d for d in mtrag if d != held]
        best = max(  # no expansion unless one beats it on the fit domains
            ["base", *variants], key=lambda v: (sum(scores[held][f][v] for f in fit), v == "base")
        )
        fit_base = sum(scores[held][f]["base"] for f in fit) / len(fit)
        fit_best = sum(scores[held][f][best] for f in fit) / len(fit)
        t = scores[held][test]
        lines.append(
            f"| {test} | {best} | {fit_base:.4f} / {fit_best:.4f} | {t['base']:.4f} "
            f"| {t[best]:.4f} | {t[best] - t['base']:+.4f} |"
        )
        out[test] = {"chosen": best, "base": t["base"], "with": t[best]}
    (L.OUT / "loo_expansion.md").write_text("\n".join(lines) + "\n")
    (L.OUT / "loo_expansion.json").write_text(json.dumps(out, indent=1) + "\n")
    print("\n".join(lines))
    for d in domains.values():
        d.index.close()
    vectors.close()


if __name__ == "__main__":
    main()
