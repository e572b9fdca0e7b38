"""Cross-domain check of the phrasing constants: fit on two MTRAG domains, test on the third.

    .venv/bin/python bench/resolver_cross_domain.py [--cache bench/.cache]

The `embedded` strategy is run exactly as `tellmemore eval` runs it (gate, embedded
resolver, `conversation.phrasings.search_phrasings`, weighted RRF in
`Retriever.search`, default hybrid retriever) for each point of a small grid of the
phrasing constants: the history phrasing's form (HISTORY_PHRASING) and weight
(HISTORY_PHRASING_WEIGHT) and the RRF constant of the phrasing fusion
(retrieval.MULTI_QUERY_RRF_K). For each split, the point with the best mean follow-up
nDCG@5 on the two fit domains is chosen and reported on the held-out domain, next to
`oracle` (the human rewrite, same retriever) and the committed defaults.
Needs the indexes `tellmemore eval` cached (bench/run_eval.sh builds them).
Results: bench/results/resolver_cross_domain.{json,md}.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tellmemore.retrieval as retrieval  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation import constants as C  # noqa: E402
from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.resolvers.base import ResolveContext  # noqa: E402
from tellmemore.eval.cache import QueryVectors  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.eval.measures import score_turns  # noqa: E402
from tellmemore.eval.planning import plan_turns  # noqa: E402
from tellmemore.eval.strategies import build_strategies  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

DATA = Path(os.environ.get("TELLMEMORE_BENCH_DATA", "/work/shared/bench/mtrag"))
DOMAINS = ("clapnq", "cloud", "govt")
OUT = ROOT / "bench" / "results"
GRID = {
    "HISTORY_PHRASING": ("phrases", "turns"),
    "HISTORY_PHRASING_WEIGHT": (0.0, 0.3, 0.5),
    "MULTI_QUERY_RRF_K": (10, 20, 60),
}


_OFF = {"HISTORY_PHRASING": "turns", "HISTORY_PHRASING_WEIGHT": 0.0}


class _Null:
    def get(self, key: str) -> None:
        return None

    def put(self, key: str, row: object) -> None:
        return None


def _apply(point: dict[str, object]) -> None:
    C.HISTORY_PHRASING = point["HISTORY_PHRASING"]  # type: ignore[assignment]
    C.HISTORY_PHRASING_WEIGHT = point["HISTORY_PHRASING_WEIGHT"]  # type: ignore[assignment]
    retrieval.MULTI_QUERY_RRF_K = point["MULTI_QUERY_RRF_K"]  # type: ignore[assignment]


def run_domain(name: str, points: list[dict[str, object]], cache: Path) -> dict[str, object]:
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    vectors = QueryVectors(cache / "queries", embedder)
    ds = load_dataset(DATA / name)
    if not any((cache / "index").glob(f"{name}-*/meta.json")):
        raise SystemExit(f"no complete index of {name} in {cache}/index: run bench/run_eval.sh")
    index, _ = ensure_index(ds, embedder=embedder, settings=settings, cache_dir=cache)
    retriever = retrieval.Retriever(index, vectors.embedder, settings.retrieval)
    ctx = ResolveContext(term_stats=index.term_stats, window=settings.conversation.window)
    (embedded,), _ = build_strategies(["embedded"])
    turns = [t for t in ds.turns if t.followup]
    gold = {t.task_id: list(t.gold) for t in turns}
    # the eval's own plan (typo fixes, the gate, then the resolver), so the two never drift
    plans = plan_turns(name, turns, [embedded], ctx, gate, _Null(), None)  # type: ignore[arg-type]
    resolutions = {p.turn.task_id: p.resolution for p in plans if p.variant == "default"}

    def ndcg(make: object) -> float:
        ranked = {}
        for t in turns:
            queries, weights = make(t)  # type: ignore[operator]
            if not queries:
                ranked[t.task_id] = []
                continue
            vectors.encode([q.strip() for q in queries])
            hits = retriever.search(list(queries), k=50, weights=list(weights) or None).hits
            ranked[t.task_id] = list(dict.fromkeys(h.chunk.doc_id for h in hits))[:20]
        scores = score_turns(gold, ranked, ["nDCG@5"])
        return sum(s["nDCG@5"] for s in scores.values()) / len(scores)

    def phrasings(t: object) -> tuple[tuple[str, ...], tuple[float, ...]]:
        ph = embedded.phrasings(resolutions[t.task_id], t.message, t.history, ctx)  # type: ignore[attr-defined]
        return ph.queries, ph.weights

    out: dict[str, object] = {"n": len(turns)}
    out["oracle"] = ndcg(lambda t: ((t.rewrite,), ()))
    out["raw"] = ndcg(lambda t: ((t.message,), ()))
    grid = []
    for point in points:
        _apply(point)
        p = ndcg(phrasings)
        grid.append({**point, "nDCG@5": p})
        print(name, point, round(p, 4), flush=True)
    out["grid"] = grid
    index.close()
    vectors.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--domains", default=",".join(DOMAINS), help="comma-separated")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="keep the other domains' results from the last run (same code only)",
    )
    args = ap.parse_args()
    domains = tuple(d for d in args.domains.split(",") if d)
    defaults = {
        "HISTORY_PHRASING": C.HISTORY_PHRASING,
        "HISTORY_PHRASING_WEIGHT": C.HISTORY_PHRASING_WEIGHT,
        "MULTI_QUERY_RRF_K": retrieval.MULTI_QUERY_RRF_K,
    }
    points = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    points = [p for p in points if p["HISTORY_PHRASING_WEIGHT"] or p["HISTORY_PHRASING"] == "turns"]
    if defaults not in points:
        points.append(defaults)
    results: dict[str, dict[str, object]] = {}
    saved = OUT / "resolver_cross_domain.json"
    if args.reuse and saved.is_file():  # domains measured by an earlier run of the same code
        results = {
            d: r for d, r in json.loads(saved.read_text())["domains"].items() if d in DOMAINS
        }
    for d in domains:
        results[d] = run_domain(d, points, args.cache)
    domains = tuple(d for d in DOMAINS if d in results)
    _apply(defaults)

    def score(domain: str, point: dict[str, object]) -> float:
        for row in results[domain]["grid"]:  # type: ignore[index]
            if all(row[k] == v for k, v in point.items()):
                return float(row["nDCG@5"])
        raise KeyError(point)

    splits = []
    for held in domains if len(domains) == 3 else ():
        fit = [d for d in domains if d != held]
        best = max(points, key=lambda p: sum(score(d, p) for d in fit))
        splits.append(
            {
                "fit": fit,
                "test": held,
                "chosen": best,
                "fit_mean": sum(score(d, best) for d in fit) / 2,
                "test_nDCG@5": score(held, best),
                "test_default": score(held, defaults),
                "test_no_history_phrasing": score(
                    held, {**defaults, "HISTORY_PHRASING_WEIGHT": 0.0}
                ),
                "test_oracle": results[held]["oracle"],
                "test_raw": results[held]["raw"],
            }
        )
    report = {"defaults": defaults, "grid": GRID, "domains": results, "splits": splits}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "resolver_cross_domain.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Cross-domain check of the phrasing constants (fit on two domains, test on the third)",
        "",
        "Follow-up turns, nDCG@5, default hybrid retriever; `embedded` as `tellmemore eval` "
        "runs it. Produced by `bench/resolver_cross_domain.py`.",
        "",
        "| test domain | fit on | chosen (form, weight, RRF k) | fit mean | test: chosen | "
        "test: committed default | test: no history phrasing | test: raw | test: oracle |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in splits:
        c = s["chosen"]
        lines.append(
            f"| {s['test']} | {' + '.join(s['fit'])} | {c['HISTORY_PHRASING']}, "
            f"{c['HISTORY_PHRASING_WEIGHT']}, {c['MULTI_QUERY_RRF_K']} | {s['fit_mean']:.3f} | "
            f"{s['test_nDCG@5']:.3f} | {s['test_default']:.3f} | "
            f"{s['test_no_history_phrasing']:.3f} | {s['test_raw']:.3f} | {s['test_oracle']:.3f} |"
        )
    lines += ["", f"Committed defaults: {defaults}", ""]
    (OUT / "resolver_cross_domain.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
