"""Can a fitted test of "does the message continue the last reply's subject?" widen the reply
phrasing beyond bound follow-ups without the losses that kept it bound-only?

    .venv/bin/python bench/loo_reply_gate.py --cache /work/cache/bench

The reply phrasing (conversation/phrasings.reply_phrasing: the message and the first 80
words of the last reply, context only) ships only for follow-ups whose referent was bound:
on every follow-up it gains on clapnq, cloud and mtrag-un but loses 0.006-0.027 on govt
(bench/results/loo_reply.md). A variant keeps the shipped bound case and also adds the
phrasing, at weight w, to an unbound follow-up whose message is close to the reply:
`cos t w` when the cosine of the message's and the reply start's query vectors (the bundled
MiniLM) is at least t, `shared w` when the message shares a content word (by stem) with
the reply start. `words n` varies the reply's length on the shipped bound case (the extra
search costs more the longer the phrasing). For each held-out MTRAG domain the variant is
chosen on the other two (best mean among those losing at most 0.005 against `shipped` on
each of them); mtrag-un, never fitted on, gets the variant chosen on all three. Each MTRAG
domain is measured with the selector fitted without it and the committed phrasing
constants (as `bench/loo_eval.py --no-grid`). Results: bench/results/loo_reply_gate.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import loo_eval as L
import loo_reply
import numpy as np

from tellmemore.conversation import constants as C
from tellmemore.conversation.phrasings import Phrasings
from tellmemore.conversation.text import content_words, stem
from tellmemore.eval.planning import Plan
from tellmemore.eval.strategies import build_strategies

Variant = tuple[str, float, float, int]
"""(unbound test: "" none, "cos", "shared"; its threshold; its weight; reply words)"""
VARIANTS: dict[str, Variant] = {
    "shipped": ("", 0.0, 0.0, 80),
    **{f"words {n}": ("", 0.0, 0.0, n) for n in (30, 50)},
    **{f"cos {t:g} {w:g}": ("cos", t, w, 80) for t in (0.3, 0.4, 0.5, 0.6) for w in (0.2, 0.3)},
    **{f"shared {w:g}": ("shared", 0.0, w, 80) for w in (0.1, 0.2)},
}
SHIPPED = "shipped"


def last_reply(plan: Plan, words: int) -> str | None:
    """The first `words` words of the last reply (None: no reply yet)."""
    return loo_reply.reply_query(plan, words, True)


def closeness(plans: dict[str, Plan], embedder: Any) -> dict[str, tuple[float, bool]]:
    """task -> (cosine of message and reply start, whether they share a content stem)."""
    tasks = [t for t, p in plans.items() if last_reply(p, 80)]
    msgs = [plans[t].turn.message for t in tasks]
    replies = [last_reply(plans[t], 80) or "" for t in tasks]
    mv = np.asarray(embedder.embed_queries(msgs))
    rv = np.asarray(embedder.embed_queries(replies))
    cos = (mv * rv).sum(1) / (np.linalg.norm(mv, axis=1) * np.linalg.norm(rv, axis=1) + 1e-9)
    out = {}
    for t, m, r, c in zip(tasks, msgs, replies, cos, strict=True):
        shared = bool({stem(w) for w in content_words(m)} & {stem(w) for w in content_words(r)})
        out[t] = (float(c), shared)
    return out


def transform(
    spec: Variant, plans: dict[str, Plan], near: dict[str, tuple[float, bool]], bound: float
) -> Any:
    """The phrasings with the reply added as `spec` says (`bound`: the shipped weight)."""
    test, threshold, weight, words = spec

    def apply(task: str, ph: Phrasings) -> Phrasings:
        p = plans[task]
        if not ph.queries or task not in near:
            return ph
        if p.resolution.bindings:
            w = bound
        elif (test == "cos" and near[task][0] >= threshold) or (test == "shared" and near[task][1]):
            w = weight
        else:
            return ph
        return loo_reply.add_context(ph, loo_reply.reply_query(p, words, False), w)

    return apply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=L.ROOT / "bench" / ".cache")
    ap.add_argument("--models", type=Path, default=L.OUT / "loo")
    ap.add_argument("--out", type=Path, default=L.OUT)
    args = ap.parse_args()
    started = time.time()
    opened = L.open_for_variants(args.cache)
    vectors, domains, mtrag, un = opened.vectors, opened.domains, opened.mtrag, opened.un
    strategies, _ = build_strategies(["concat", "embedded"])
    kept = C.REPLY_PHRASING_WEIGHT
    C.REPLY_PHRASING_WEIGHT = 0.0  # the variants add the phrasing themselves
    scores: dict[str, dict[str, float]] = {}
    fired: dict[str, dict[str, int]] = {}
    try:
        for held in (*mtrag, "none"):
            L.use_selector(args.models / f"selector-without-{held}.json")
            for name in [held] if held != "none" else un:
                d = domains[name]
                plans = L.plan(d, strategies)
                row = {"concat": L.measure(d, vectors, plans["concat"], L.defaults())["nDCG@5"]}
                row["off"] = L.measure(d, vectors, plans["embedded"], L.defaults())["nDCG@5"]
                near = closeness(plans["embedded"], opened.embedder)
                for v, spec in VARIANTS.items():
                    fn = transform(spec, plans["embedded"], near, kept)
                    got = L.measure(d, vectors, plans["embedded"], L.defaults(), fn)
                    row[v] = got["nDCG@5"]
                    fired.setdefault(name, {})[v] = count_fired(spec, plans["embedded"], near)
                    print(f"{name} {v}: {got['nDCG@5']:.4f}", file=sys.stderr, flush=True)
                L.apply(L.defaults())
                scores[name] = row
    finally:
        C.REPLY_PHRASING_WEIGHT = kept
    for d in domains.values():
        d.index.close()
    vectors.close()
    write(args.out, scores, fired, mtrag, time.time() - started)


def count_fired(spec: Variant, plans: dict[str, Plan], near: dict[str, tuple[float, bool]]) -> int:
    """Follow-ups that get the reply phrasing under `spec`."""
    test, threshold, _, _ = spec
    n = 0
    for task, p in plans.items():
        if task not in near:
            continue
        cos, shared = near[task]
        n += bool(
            p.resolution.bindings
            or (test == "cos" and cos >= threshold)
            or (test == "shared" and shared)
        )
    return n


def write(out: Path, scores: Any, fired: Any, mtrag: list[str], seconds: float) -> None:
    names = list(scores)
    chosen = {
        n: L.choose_variant(
            [scores[m] for m in mtrag if m != n], list(VARIANTS), SHIPPED, rule=True
        )
        for n in mtrag
    }
    overall = L.choose_variant([scores[m] for m in mtrag], list(VARIANTS), SHIPPED, rule=True)
    lines = [
        "# Widening the reply phrasing by a fitted closeness test, held out",
        "",
        f"`bench/loo_reply_gate.py --cache /work/cache/bench`, {seconds / 60:.0f} min. "
        + " ".join((__doc__ or "").split("\n\n")[2].split()),
        "",
        "Follow-up nDCG@5 (change against `shipped`; `off` is the reply phrasing switched off; "
        "in brackets after the name of each domain, below, the follow-ups that get it):",
        "",
        "| variant | " + " | ".join(names) + " |",
        "| --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for v in ["concat", "off", *VARIANTS]:
        cells = []
        for n in names:
            x = scores[n][v]
            d = "" if v in ("concat", "off", SHIPPED) else f" ({x - scores[n][SHIPPED]:+.4f})"
            f = f" [{fired[n][v]}]" if v in VARIANTS else ""
            cells.append(f"{x:.4f}{d}{f}")
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    lines += ["", "Chosen on the other two MTRAG domains (held out):", ""]
    lines += ["| test | chosen | nDCG@5 | vs shipped | / concat |", "| --- |" + " --- |" * 4]
    for n in names:
        v = chosen.get(n, overall)
        x = scores[n][v]
        lines.append(
            f"| {n} | {v} | {x:.4f} | {x - scores[n][SHIPPED]:+.4f} | "
            f"{x / scores[n]['concat']:.2f}x |"
        )
    lines += ["", f"Chosen on all three MTRAG domains (what would ship): `{overall}`.", ""]
    (out / "loo_reply_gate.md").write_text("\n".join(lines))
    (out / "loo_reply_gate.json").write_text(
        json.dumps(
            {
                "variants": VARIANTS,
                "scores": scores,
                "fired": fired,
                "chosen": chosen,
                "overall": overall,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
