"""What a better gate could earn: per follow-up, the gated turn against always resolving.

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/gate_headroom.py \
        --cache /work/cache/bench_md [--out bench/results/gate_headroom.json]

The gate (`conversation.gate`) sends a follow-up to the resolver or leaves it as typed
("self-contained"). A learned gate could only gain where the other choice retrieves better,
so before building one this measures, held out, the follow-up nDCG@5 of the embedded
resolver as shipped (gated) and with the gate bypassed (`plan_turns`' "always" variant),
and the best of the two per turn (what a perfect gate would reach). MTRAG domains use the
selector fitted on the other two; MTRAG-UN the one fitted on all three, as
`bench/loo_eval.py` does. Results: bench/results/gate_headroom.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import loo_eval as L  # noqa: E402

from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.planning import plan_turns  # noqa: E402


def domain_rows(held: str, domain: Any, vectors: Any, selector: Path) -> dict[str, Any]:
    """Per-turn nDCG@5 of embedded, gated and always resolved, and each turn's gate reason."""
    L.use_selector(selector)
    embedded = [s for s in L.build_strategies(list(L.STRATEGIES))[0] if s.name == "embedded"]
    plans = plan_turns(
        domain.label, domain.turns, embedded, domain.context, L.gate, L._Null(), None
    )  # type: ignore[arg-type]
    point = L.defaults()
    per_turn = {
        variant: L.measure(
            domain, vectors, {p.turn.task_id: p for p in plans if p.variant == variant}, point
        )["per_turn_ndcg"]
        for variant in ("default", "always")
    }
    reasons = {p.turn.task_id: p.gate_reason for p in plans if p.variant == "always"}
    return {"gated": per_turn["default"], "always": per_turn["always"], "reason": reasons}


def summary(label: str, rows: dict[str, Any]) -> str:
    turns = list(rows["gated"])
    gated = np.array([rows["gated"][t] for t in turns])
    always = np.array([rows["always"].get(t, 0.0) for t in turns])
    skipped = np.array([rows["reason"].get(t) == "self-contained" for t in turns])
    best = np.maximum(gated, always)
    return (
        f"| {label} | {len(turns)} | {gated.mean():.4f} | {always.mean():.4f} | "
        f"{best.mean():.4f} (+{best.mean() - gated.mean():.4f}) | {int(skipped.sum())} | "
        f"{int((always[skipped] > gated[skipped]).sum())} / "
        f"{int((always[skipped] < gated[skipped]).sum())} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--out", type=Path, help="per-turn rows as JSON")
    args = ap.parse_args()
    settings = Settings()
    embedder = L.load_embedder(settings.embedder)
    vectors = L.QueryVectors(args.cache / "queries", embedder)
    mtrag, _, domains = L.open_searchable(args.cache, embedder, settings, vectors)
    features = {d: L.ts.extract(str(L.MTRAG / d), args.cache) for d in mtrag}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, domain in domains.items():
            fit = [d for d in mtrag if d != name]
            model = L.ts.train([r for d in fit for r in features[d]], 1.0, 0.10, 2)
            selector = Path(tmp) / f"selector-without-{name}.json"
            selector.write_text(json.dumps(model.to_json(trained_on=fit, l2=1.0)))
            results[name] = domain_rows(name, domain, vectors, selector)
            domain.index.close()
    vectors.close()
    print(
        "| test | follow-ups | gated | always resolve | best of the two per turn | "
        "gate said self-contained | there always better / worse |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, rows in results.items():
        print(summary(name, rows))
    if args.out:
        args.out.write_text(json.dumps(results, indent=0) + "\n")


if __name__ == "__main__":
    main()
