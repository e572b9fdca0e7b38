"""Does the conversation's own wording, searched as one more low-weight phrasing next to the
resolved query, help on a domain it was not fitted on?

    .venv/bin/python bench/loo_context.py --cache /work/cache/bench

The embedded resolver binds what it is sure of, and a wrong binding ("Are weakly acidic
properties poisonous?" for "Are they poisonous?" after "What are alkaloids?") loses the
turn; concat (the last two user turns glued to the message) cannot bind wrongly, and wins
such turns on mtrag-un. A variant adds history-context evidence as one more phrasing,
context only (it steers the ranking, never decides abstention), at fusion weight w:
`concat` the concat query (the last two user turns, then the message), `prev` the
previous user turn and the message; `gated` variants add it only when the gate asked for
resolution (a message the gate reads as self-contained keeps its phrasings). `hist` raises
the weight of the existing history phrasing instead. For each held-out MTRAG domain D the
variant is chosen on the other two, with the selector fitted without D and the phrasing
constants bench/loo_eval.py chose without D: (1) the best mean, (2) the best mean among the
variants losing at most 0.005 against `base` on each fit domain's own held-out row.
mtrag-un (never fitted on) gets the variants chosen on all three. Results:
bench/results/loo_context.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import loo_carry
import loo_eval as L

from tellmemore.conversation.phrasings import Phrasings
from tellmemore.conversation.preamble import without_preamble
from tellmemore.conversation.text import content_words, stem
from tellmemore.eval.planning import Plan
from tellmemore.eval.strategies import build_strategies

Variant = tuple[str, float, float, float]
"""(kind, weight when the gate asked for resolution, when it did not, when it did not but
the message shares a content word with the previous user turn)"""
VARIANTS: dict[str, Variant] = {
    "base": ("", 0.0, 0.0, 0.0),
    **{f"concat {w:g}": ("concat", w, w, w) for w in (0.2, 0.3, 0.5, 0.7, 1.0)},
    **{f"concat {w:g} gated": ("concat", w, 0.0, 0.0) for w in (0.2, 0.3, 0.5, 1.0)},
    "concat 0.3 gated, 0.1 else": ("concat", 0.3, 0.1, 0.1),
    **{f"concat 0.3 gated, {w:g} shared": ("concat", 0.3, 0.0, w) for w in (0.2, 0.3, 0.5)},
    **{f"prev {w:g}": ("prev", w, w, w) for w in (0.3, 0.5)},
    "prev 0.3 gated": ("prev", 0.3, 0.0, 0.0),
    "all 0.3 gated": ("all", 0.3, 0.0, 0.0),
    **{f"hist {w:g}": ("hist", w, w, w) for w in (0.5, 0.7, 1.0)},
}


def context_query(kind: str, plan: Plan) -> str | None:
    """The history-context phrasing of `kind` for the turn of `plan` (None: first turn)."""
    users = [t.content for t in plan.turn.history if t.role == "user" and t.content.strip()]
    if not users:
        return None
    message = without_preamble(plan.turn.message)
    kept = {"concat": users[-2:], "prev": users[-1:], "all": users}[kind]
    return "\n".join([*kept, message])


def shares_word(plan: Plan) -> bool:
    """The message and the previous user turn share a content word (by stem)."""
    users = [t.content for t in plan.turn.history if t.role == "user" and t.content.strip()]
    if not users:
        return False
    own = {stem(w) for w in content_words(plan.turn.message)}
    return bool(own & {stem(w) for w in content_words(users[-1])})


def transform(variant: Variant, plans: dict[str, Plan]) -> Any:
    kind, resolved, skipped, shared = variant

    def apply(task: str, ph: Phrasings) -> Phrasings:
        p = plans[task]
        w = resolved
        if p.resolution.resolver == "none":
            w = shared if shared != skipped and shares_word(p) else skipped
        if not ph.queries or w <= 0:
            return ph
        extra = context_query(kind, p)
        if extra is None or extra.strip() in {q.strip() for q in ph.queries}:
            return ph
        return replace(
            ph,
            queries=(*ph.queries, extra),
            weights=(*ph.weights, w),
            context=(*ph.context, extra),
        )

    return apply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=L.ROOT / "bench" / ".cache")
    ap.add_argument("--loo", type=Path, default=L.OUT / "loo_eval.json")
    ap.add_argument("--models", type=Path, default=L.OUT / "loo")
    ap.add_argument("--out", type=Path, default=L.OUT)
    ap.add_argument("--no-latency", action="store_true", help="skip the search-cost section")
    args = ap.parse_args()
    started = time.time()
    opened = L.open_for_variants(args.cache)
    embedder, vectors, domains = opened.embedder, opened.vectors, opened.domains
    mtrag, names, un = opened.mtrag, opened.names, opened.un
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    points = loo_carry.chosen_points(args.loo)
    strategies, _ = build_strategies(["concat", "embedded"])
    scores: dict[str, dict[str, dict[str, float]]] = {}
    per_turn: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for held in (*mtrag, "none"):
        L.use_selector(args.models / f"selector-without-{held}.json")
        for name in [*mtrag, *(un if held == "none" else [])]:
            d = domains[name]
            test = held if held != "none" else name
            point = without_context(points.get(test, L.defaults()))
            plans = L.plan(d, strategies)
            row: dict[str, float] = {}
            turns: dict[str, dict[str, float]] = {}
            got = L.measure(d, vectors, plans["concat"], point)
            row["concat"] = got["nDCG@5"]
            turns["concat"] = got["per_turn_ndcg"]
            for v, spec in VARIANTS.items():
                at = point
                fn = None
                if spec[0] == "hist":
                    at = tuple(
                        (k, spec[1] if k == "HISTORY_PHRASING_WEIGHT" else x) for k, x in point
                    )
                elif spec[0]:
                    fn = transform(spec, plans["embedded"])
                got = L.measure(d, vectors, plans["embedded"], at, fn)
                row[v] = got["nDCG@5"]
                turns[v] = got["per_turn_ndcg"]
                log(f"selector without {held}, {name}, {v}: {got['nDCG@5']:.4f}")
            L.apply(L.defaults())
            scores.setdefault(held, {})[name] = row
            if held == name or (held == "none" and name in un):
                per_turn[name] = turns
    chosen = choose([scores[d][d] for d in mtrag], rule=True)
    L.use_selector(args.models / "selector-without-none.json")
    latency = (
        {}
        if args.no_latency
        else {
            n: search_latency(
                domains[n],
                embedder,
                lambda plans: transform(VARIANTS[chosen], plans),
                without_context(points.get(n, L.defaults())),
            )
            for n in mtrag
        }
    )
    for d in domains.values():
        d.index.close()
    vectors.close()
    write(args.out, scores, per_turn, mtrag, names, time.time() - started, (chosen, latency))


def search_latency(domain: L.Domain, embedder: Any, make: Any, point: L.Point) -> dict[str, float]:
    """What the variant adds to a turn's search: per follow-up it changes, `Retriever.search`
    of the base phrasings and of the variant's (the real embedder, the index itself, no
    memo), in alternating order, the least of two rounds: wall time, and its two parts as
    the retriever reports them (encoding the phrasings in one batch, searching the index
    once per phrasing). `make(plans)` gives the variant's phrasings transform."""
    L.apply(point)
    plans = L.plan(domain, build_strategies(["embedded"])[0])["embedded"]
    fn = make(plans)
    inner = domain.index.inner if isinstance(domain.index, L.MemoIndex) else domain.index
    retriever = L.retrieval.Retriever(inner, embedder, L.Settings().retrieval)
    cols = ("wall", "embed", "search")
    rows: list[dict[str, float]] = []
    for n, (task, p) in enumerate(plans.items()):
        ph = p.strategy.phrasings(
            p.resolution, p.turn.message, p.turn.history, domain.context,
            searched=domain.searched[task],
        )  # fmt: skip
        more = fn(task, ph)
        if more.queries == ph.queries:
            continue
        best = {f"{w}_{c}": float("inf") for w in ("base", "variant") for c in cols}
        for r in range(2):
            pair = [("base", ph), ("variant", more)]
            for which, q in pair if (n + r) % 2 == 0 else pair[::-1]:
                t0 = time.perf_counter()
                got = retriever.search(list(q.queries), k=50, mode=L.SearchMode.HYBRID,
                                       weights=list(q.weights))  # fmt: skip
                took = {"wall": (time.perf_counter() - t0) * 1000, "embed": got.embed_ms,
                        "search": got.search_ms}  # fmt: skip
                for c in cols:
                    best[f"{which}_{c}"] = min(best[f"{which}_{c}"], took[c])
        rows.append(best)
    if not rows:
        return {"turns": 0}

    def pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, round(q / 100 * (len(xs) - 1)))]

    out: dict[str, float] = {"turns": len(rows), "followups": len(plans)}
    for key in rows[0]:
        col = [r[key] for r in rows]
        out[f"{key}_p50"], out[f"{key}_p95"] = pct(col, 50), pct(col, 95)
    for c in cols:
        out[f"added_{c}_mean"] = sum(r[f"variant_{c}"] - r[f"base_{c}"] for r in rows) / len(rows)
    return out


def latency_lines(chosen: str, lat: dict[str, dict[str, float]]) -> list[str]:
    """The search-cost table of `search_latency`'s figures per domain."""
    lines = [
        "",
        f"Search cost of `{chosen}` (`Retriever.search`, hybrid, k 50, the real encoder and "
        "index, no memo; per follow-up the variant changes, the least of two alternating "
        "rounds; wall ms on the shared, loaded machine, split as the retriever reports it: "
        "encoding every phrasing in one batch, then one index search per phrasing):",
        "",
        "| domain | turns changed / follow-ups | base p50 / p95 | with it p50 / p95 "
        "| added mean | of which encoding | of which index search |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for n, r in lat.items():
        if not r.get("turns"):
            continue
        lines.append(
            f"| {n} | {r['turns']:.0f} / {r['followups']:.0f} "
            f"| {r['base_wall_p50']:.1f} / {r['base_wall_p95']:.1f} "
            f"| {r['variant_wall_p50']:.1f} / {r['variant_wall_p95']:.1f} "
            f"| {r['added_wall_mean']:+.1f} | {r['added_embed_mean']:+.1f} "
            f"| {r['added_search_mean']:+.1f} |"
        )
    return lines


def without_context(point: L.Point) -> L.Point:
    """`point` with the committed context phrasing off: the variants add their own."""
    kept = tuple((k, v) for k, v in point if k != "CONTEXT_QUERY_WEIGHT")
    return (*kept, ("CONTEXT_QUERY_WEIGHT", 0.0))


def choose(rows: list[dict[str, float]], *, rule: bool) -> str:
    """The variant with the best mean on `rows` (with `rule`: among those losing at most
    RULE against `base` on each row); `base` wins ties."""
    return L.choose_variant(rows, list(VARIANTS), "base", rule=rule)


def write(
    out: Path,
    scores: Any,
    per_turn: Any,
    mtrag: list[str],
    names: list[str],
    seconds: float,
    latency: tuple[str, dict[str, dict[str, float]]],
) -> None:
    held_rows = {d: scores[d][d] for d in mtrag}
    lines = [
        "# History context as a low-weight phrasing, held out",
        "",
        f"`bench/loo_context.py --cache /work/cache/bench`, {seconds / 60:.0f} min. Follow-up "
        "nDCG@5, default hybrid retriever; per test domain the selector fitted without it and "
        "the phrasing constants bench/loo_eval.py chose without it; mtrag-un is never fitted "
        "on. `concat w`: the concat query (last two user turns + message) added as a "
        "context phrasing at fusion weight w; `prev w`: the previous user turn + message; "
        "`gated`: only when the gate asked for resolution; `hist w`: the existing history "
        "phrasing (message + last and first user turns) at weight w instead of 0.3.",
        "",
        "(1) best mean on the fit domains (rows with the selector fitted without the test "
        "domain); (2) best mean among variants losing at most 0.005 against `base` on each "
        "fit domain's own held-out row.",
        "",
        "| test | concat | " + " | ".join(VARIANTS) + " | (1) | (1) vs base | (2) | (2) vs base |",
        "| --- | --- | " + " | ".join("---" for _ in VARIANTS) + " | --- | --- | --- | --- |",
    ]
    result: dict[str, Any] = {"variants": VARIANTS, "scores": scores, "tests": {}}
    for test in names:
        held = test if test in mtrag else "none"
        fit = [d for d in mtrag if d != held]
        row = scores[held][test]
        first = choose([scores[held][f] for f in fit], rule=False)
        second = choose([held_rows[f] for f in fit], rule=True)
        cells = " | ".join(f"{row[v]:.4f}" for v in VARIANTS)
        lines.append(
            f"| {test} | {row['concat']:.4f} | {cells} | {first} | {row[first] - row['base']:+.4f}"
            f" | {second} | {row[second] - row['base']:+.4f} |"
        )
        result["tests"][test] = {"fit": fit, "chosen_mean": first, "chosen_rule": second}
    every = [scores[t if t in mtrag else "none"][t] for t in names]
    within = [v for v in VARIANTS if all(r[v] - r["base"] >= -L.RULE for r in every)]
    lines += [
        "",
        f"Variants losing at most {L.RULE} against `base` on every held-out row: "
        + (", ".join(f"`{v}`" for v in within) or "none")
        + ". Chosen by (2) on all three MTRAG domains: "
        + f"`{choose(list(held_rows.values()), rule=True)}`.",
        "",
        "Turns better / worse than `base` (held out):",
        "",
        "| test | " + " | ".join(v for v in VARIANTS if v != "base") + " |",
        "| --- | " + " | ".join("---" for v in VARIANTS if v != "base") + " |",
    ]
    for test in names:
        t = per_turn[test]
        cells = []
        for v in VARIANTS:
            if v == "base":
                continue
            up = sum(1 for k in t[v] if t[v][k] > t["base"][k] + 1e-9)
            down = sum(1 for k in t[v] if t[v][k] < t["base"][k] - 1e-9)
            cells.append(f"{up} / {down}")
        lines.append(f"| {test} | " + " | ".join(cells) + " |")
    chosen, lat = latency
    lines += latency_lines(chosen, lat)
    result["latency"] = {"variant": chosen, "domains": lat}
    out.mkdir(parents=True, exist_ok=True)
    (out / "loo_context.md").write_text("\n".join(lines) + "\n")
    (out / "loo_context.json").write_text(json.dumps(result, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
