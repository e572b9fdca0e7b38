"""The headline figure, leave-one-domain-out: nothing fitted on the domain it is reported on.

    .venv/bin/python bench/loo_eval.py --cache /work/cache/bench

For each MTRAG domain D of clapnq, cloud and govt:
1. the learned selector (`conversation/selector.py`, trained on human rewrites by
   `scripts/train_selector.py`) is retrained on the other two domains;
2. the phrasing constants (history-phrasing weight, the phrasing fusion's RRF k and QPP
   exponent, the context phrasing's weight; `GRID`) are chosen by mean follow-up nDCG@5
   of `embedded` on the other two domains, with that selector;
3. raw, concat, embedded (the default) and oracle (the human rewrite) are run on D with
   that selector and those constants, exactly as `tellmemore eval` runs them (typo fixes,
   the gate, the resolver, `search_phrasings`, weighted RRF, default hybrid retriever).
mtrag-un clapnq and cloud (new conversations over the same corpora; no rewrites, so no
oracle) are never used for fitting: there the selector and constants are fitted on all
three MTRAG domains. Word lists and rules are not refitted (they are code): mtrag-un is
the test of them. Results: bench/results/loo_eval.{md,json}; the selectors fitted per
split: bench/results/loo/. `--ablate pass,...` also measures each named pass switched off
(`ResolveContext.disabled_passes`), held out, per domain.
Needs the eval indexes (bench/run_eval.sh or tellmemore eval --cache); never builds one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import train_selector as ts  # noqa: E402

import tellmemore.retrieval as retrieval  # noqa: E402
from tellmemore.answer.calibration import Calibrator  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation import constants as C  # noqa: E402
from tellmemore.conversation import selector  # noqa: E402
from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.phrasings import Phrasings  # noqa: E402
from tellmemore.conversation.resolvers.base import ResolveContext  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.eval.cache import QueryVectors, slug  # noqa: E402
from tellmemore.eval.corpus import (  # noqa: E402
    _versions,
    chunk_tokens_for,
    ensure_index,
    index_key,
    index_versions,
)
from tellmemore.eval.datasets import Dataset, EvalTurn, load_dataset  # noqa: E402
from tellmemore.eval.measures import (  # noqa: E402
    Binding,
    pooled_binding,
    probe_over_binding,
    score_turns,
)
from tellmemore.eval.planning import Plan, plan_turns  # noqa: E402
from tellmemore.eval.strategies import Strategy, build_strategies  # noqa: E402
from tellmemore.index.base import Embedder, Index, SearchRequest  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.types import Hit, SearchMode  # noqa: E402

MTRAG = Path(os.environ.get("TELLMEMORE_BENCH_DATA", "/work/shared/bench/mtrag"))
MTRAG_UN = MTRAG.parent / "mtrag-un"
DOMAINS = ("clapnq", "cloud", "govt")
UN_DOMAINS = ("clapnq", "cloud")
STRATEGIES = ("raw", "concat", "embedded", "oracle")
MEASURES = ("nDCG@5", "R@5", "RR@10")
GRID: dict[str, tuple[float, ...]] = {
    "HISTORY_PHRASING_WEIGHT": (0.3, 0.5),
    "MULTI_QUERY_RRF_K": (20.0, 60.0),
    "MULTI_QUERY_QPP": (1.0, 2.0),
    "CONTEXT_QUERY_WEIGHT": (0.0, 0.3, 0.5),
}
"""The fitted constants of the phrasing fusion (each was chosen on MTRAG by an earlier
round) and the values tried for them on the fit domains."""
OUT = ROOT / "bench" / "results"
Point = tuple[tuple[str, float], ...]


class _Null:
    def get(self, key: str) -> None:
        return None

    def put(self, key: str, row: object) -> None:
        return None


class MemoIndex:
    """An index whose searches are remembered by (text, k, mode): a grid point changes only
    the fusion, so each phrasing is searched once per run."""

    def __init__(self, inner: Index) -> None:
        self.inner = inner
        self.memo: dict[tuple[str, int, str], list[Hit]] = {}

    def search(self, request: SearchRequest) -> list[Hit]:
        key = (request.text, request.k, request.mode.value)
        if key not in self.memo:
            self.memo[key] = self.inner.search(request)
        return self.memo[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Domain:
    label: str
    dataset: Dataset
    index: Any
    retriever: retrieval.Retriever
    context: ResolveContext
    turns: list[EvalTurn]
    searched: dict[str, str | None]
    """Per task: the message with its typos fixed (None: unchanged), as plan_turns does."""


def has_index(path: Path, cache: Path, embedder: Embedder, settings: Settings) -> bool:
    """A complete cached index of this dataset's corpus exists (this script never builds one)."""
    ds = load_dataset(path, skip_invalid=True)  # folder name: the cached index is shared
    key = index_key(
        ds, embedder, chunk_tokens_for(settings, embedder), settings.chunking.overlap_sentences
    )
    path = cache / "index" / f"{slug(ds.name)}-{key}" / "meta.json"
    if not path.is_file():
        return False
    meta = json.loads(path.read_text())
    # built by another chunker or schema: this script never builds, so it is not searchable
    # until `tellmemore eval` (ensure_index) re-chunks it in place or rebuilds it
    current = _versions(index_versions())
    return meta.get("vectors") != "none" and _versions(meta) == current


def un_dir(domain: str, work: Path) -> Path:
    """mtrag-un's folder for `domain`; when its corpus.jsonl is a pointer file holding the
    relative path of MTRAG's corpus (a symlink stored as text), a folder under `work` with
    real links to both files (same corpus bytes, so the cached index is shared)."""
    src = MTRAG_UN / domain
    corpus = src / "corpus.jsonl"
    if corpus.stat().st_size > 200:
        return src
    target = (src / corpus.read_text(encoding="utf-8").strip()).resolve()
    out = work / "mtrag-un" / domain
    out.mkdir(parents=True, exist_ok=True)
    for name, to in (
        ("corpus.jsonl", target),
        ("conversations.jsonl", src / "conversations.jsonl"),
    ):
        link = out / name
        if not link.is_symlink():
            link.symlink_to(to)
    return out


def has_term_stats(domain: str, cache: Path) -> bool:
    """An index of this domain (real, or term statistics only: bench/term_stats_index.py)
    built by the current chunker and schema."""
    current = _versions(index_versions())
    return any(
        _versions(json.loads(m.read_text())) == current
        for m in (cache / "index").glob(f"{domain}-*/meta.json")
    )


def open_domain(
    label: str, path: Path, cache: Path, embedder: Embedder, settings: Settings, vectors: Any
) -> Domain:
    if not has_index(path, cache, embedder, settings):
        raise SystemExit(f"no complete index of {label} in {cache}/index (never built here)")
    ds = load_dataset(path, skip_invalid=True)
    index, _ = ensure_index(ds, embedder=embedder, settings=settings, cache_dir=cache)
    memo = MemoIndex(index)
    ctx = ResolveContext.of(  # as a turn and `tellmemore eval` build it
        settings.conversation,
        term_stats=index.term_stats,
        headings=index.headings,
        **retrieval.index_reads(
            settings.conversation,
            memo,  # type: ignore[arg-type]
            vectors.embedder.embed_documents,
            Calibrator(index, vectors.embedder).get(),
        ),
    )
    turns = [t for t in ds.turns if t.followup]
    searched = {}
    for t in turns:
        text, fixes = correct_spelling(t.message, index.term_stats)
        searched[t.task_id] = text if fixes else None
    retriever = retrieval.Retriever(memo, vectors.embedder, settings.retrieval)  # type: ignore[arg-type]
    return Domain(label, ds, index, retriever, ctx, turns, searched)


def open_searchable(
    cache: Path, embedder: Embedder, settings: Settings, vectors: Any
) -> tuple[list[str], dict[str, Path], dict[str, Domain]]:
    """Every MTRAG domain and mtrag-un domain (named "un-<domain>") with a complete index in
    `cache`, opened: the MTRAG names, then the dataset path and the open domain by name."""
    un_dirs = {d: un_dir(d, Path(tempfile.gettempdir()) / "tellmemore-loo") for d in UN_DOMAINS}
    mtrag = [d for d in DOMAINS if has_index(MTRAG / d, cache, embedder, settings)]
    un = [f"un-{d}" for d in UN_DOMAINS if has_index(un_dirs[d], cache, embedder, settings)]
    paths = {d: MTRAG / d for d in mtrag} | {u: un_dirs[u[3:]] for u in un}
    domains = {n: open_domain(n, p, cache, embedder, settings, vectors) for n, p in paths.items()}
    return mtrag, paths, domains


@dataclass
class Opened:
    """What a bench of held-out variants opens first (loo_carry, loo_expansion,
    loo_context): the encoder, the cached query vectors and every searchable domain."""

    embedder: Embedder
    vectors: Any
    mtrag: list[str]
    paths: dict[str, Path]
    domains: dict[str, Domain]

    @property
    def names(self) -> list[str]:
        return list(self.paths)

    @property
    def un(self) -> list[str]:
        """The mtrag-un domains: never fitted on."""
        return [n for n in self.paths if n not in self.mtrag]


def open_for_variants(cache: Path) -> Opened:
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    vectors = QueryVectors(cache / "queries", embedder)
    mtrag, paths, domains = open_searchable(cache, embedder, settings, vectors)
    return Opened(embedder, vectors, mtrag, paths, domains)


RULE = 0.005
"""Issue 20: no rule may lose more than this (follow-up nDCG@5) on any domain."""


def choose_variant(
    rows: Sequence[dict[str, float]],
    variants: Sequence[str],
    base: str,
    *,
    rule: bool,
    ties: str | None = None,
) -> str:
    """The variant with the best mean score over `rows` (one score per variant each);
    with `rule`, only among those losing at most RULE against `base` on every row. Ties
    go to `ties` (default `base`)."""
    pool = [v for v in variants if not rule or all(r[v] - r[base] >= -RULE for r in rows)]
    winner = base if ties is None else ties
    return max(pool, key=lambda v: (round(sum(r[v] for r in rows) / len(rows), 6), v == winner))


def use_selector(model_path: Path | None) -> None:
    if model_path is None:
        os.environ.pop("TELLMEMORE_SELECTOR_WEIGHTS", None)
    else:
        os.environ["TELLMEMORE_SELECTOR_WEIGHTS"] = str(model_path)
    selector.default_model.cache_clear()


def plan(domain: Domain, strategies: Sequence[Strategy]) -> dict[str, dict[str, Plan]]:
    """strategy -> task id -> the turn as the strategy runs it (gate included)."""
    plans = plan_turns(
        domain.label,
        domain.turns,
        strategies,
        domain.context,
        gate,
        _Null(),  # type: ignore[arg-type]
        None,
    )
    out: dict[str, dict[str, Plan]] = {}
    for p in plans:
        if p.variant == "default":
            out.setdefault(p.strategy.name, {})[p.turn.task_id] = p
    return out


def apply(point: Point) -> None:
    values = dict(point)
    C.HISTORY_PHRASING_WEIGHT = values["HISTORY_PHRASING_WEIGHT"]
    retrieval.MULTI_QUERY_RRF_K = values["MULTI_QUERY_RRF_K"]  # type: ignore[assignment]
    retrieval.MULTI_QUERY_QPP = values["MULTI_QUERY_QPP"]
    C.CONTEXT_QUERY_WEIGHT = values.get("CONTEXT_QUERY_WEIGHT", _COMMITTED_CONTEXT)


_COMMITTED_CONTEXT = C.CONTEXT_QUERY_WEIGHT
"""A point chosen before the context phrasing existed (an older loo_eval.json) keeps it."""


def measure(
    domain: Domain,
    vectors: Any,
    plans: dict[str, Plan],
    point: Point,
    transform: Callable[[str, Phrasings], Phrasings] | None = None,
) -> dict[str, Any]:
    """Follow-up retrieval measures and binding of one strategy's plans at one grid point."""
    apply(point)
    ranked: dict[str, list[str]] = {}
    for task, p in plans.items():
        ph = p.strategy.phrasings(
            p.resolution, p.turn.message, p.turn.history, domain.context,
            searched=domain.searched[task],
        )  # fmt: skip
        if transform is not None:
            ph = transform(task, ph)
        queries = [q.strip() for q in ph.queries if q.strip()]
        if not queries:
            ranked[task] = []
            continue
        vectors.encode(queries)
        hits = domain.retriever.search(
            list(ph.queries), k=50, mode=SearchMode.HYBRID, weights=list(ph.weights) or None
        ).hits
        ranked[task] = list(dict.fromkeys(h.chunk.doc_id for h in hits))[:20]
    gold = {t: list(p.turn.gold) for t, p in plans.items()}
    scores = score_turns(gold, ranked, MEASURES)
    out: dict[str, Any] = {m: sum(s[m] for s in scores.values()) / len(scores) for m in MEASURES}
    bindings: list[Binding] = [p.binding for p in plans.values()]
    out.update({f"binding_{k}": v for k, v in pooled_binding(bindings).items()})
    out["probe_over_binding"], out["probes"] = probe_over_binding(bindings)
    out["n"] = len(plans)
    out["per_turn_ndcg"] = {t: s["nDCG@5"] for t, s in scores.items()}
    return out


def grid_points() -> list[Point]:
    return [tuple(zip(GRID, v, strict=True)) for v in itertools.product(*GRID.values())]


def defaults() -> Point:
    return (
        ("HISTORY_PHRASING_WEIGHT", C.HISTORY_PHRASING_WEIGHT),
        ("MULTI_QUERY_RRF_K", float(retrieval.MULTI_QUERY_RRF_K)),
        ("MULTI_QUERY_QPP", float(retrieval.MULTI_QUERY_QPP)),
        ("CONTEXT_QUERY_WEIGHT", C.CONTEXT_QUERY_WEIGHT),
    )


def run_model(
    domains: dict[str, Domain],
    names: Sequence[str],
    vectors: Any,
    model: Path | None,
    points: Sequence[Point],
    strategies: Sequence[Strategy],
    log: Callable[[str], None],
) -> dict[str, dict[Point, dict[str, dict[str, Any]]]]:
    """domain -> point -> strategy -> measures, with the selector `model`."""
    use_selector(model)
    out: dict[str, dict[Point, dict[str, dict[str, Any]]]] = {}
    for name in names:
        d = domains[name]
        plans = plan(d, strategies)
        out[name] = {}
        for point in points:
            row = {}
            for s in strategies:
                fixed = s.name in ("raw", "oracle") and point != points[0]
                row[s.name] = (
                    out[name][points[0]][s.name]
                    if fixed
                    else measure(d, vectors, plans[s.name], point)
                )  # raw and oracle search one phrasing: no constant touches them
            out[name][point] = row
            log(f"{model.name if model else 'shipped'} {name} {dict(point)} "
                f"embedded {row['embedded']['nDCG@5']:.4f}")  # fmt: skip
    return out


def git_head() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "?"


def main() -> None:
    from loo_report import write_report  # bench/loo_report.py: tables only

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    ap.add_argument("--no-grid", action="store_true", help="keep the committed constants")
    ap.add_argument("--ablate", default="", help="passes to switch off one at a time")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--train-cache",
        type=Path,
        help="where the fit domains' term statistics are (bench/term_stats_index.py); "
        "default --cache",
    )
    ap.add_argument(
        "--extra-fit",
        type=Path,
        nargs="*",
        default=[],
        help="more MTRAG-format datasets every split's selector is also fitted on (never "
        "tested here: e.g. the handbook corpora's follow-ups), their term statistics in "
        "--extra-cache",
    )
    ap.add_argument("--extra-cache", type=Path, help="term statistics of --extra-fit")
    args = ap.parse_args()
    started = time.time()
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    vectors = QueryVectors(args.cache / "queries", embedder)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    train_cache = args.train_cache or args.cache
    searchable = [d for d in DOMAINS if has_index(MTRAG / d, args.cache, embedder, settings)]
    trainable = [d for d in DOMAINS if has_term_stats(d, train_cache)]
    un_dirs = {d: un_dir(d, Path(tempfile.gettempdir()) / "tellmemore-loo") for d in UN_DOMAINS}
    un = [d for d in UN_DOMAINS if has_index(un_dirs[d], args.cache, embedder, settings)]
    log(f"searchable {searchable}, fittable {trainable}, mtrag-un {un}")
    domains = {
        d: open_domain(d, MTRAG / d, args.cache, embedder, settings, vectors) for d in searchable
    }
    for d in un:
        domains[f"un-{d}"] = open_domain(
            f"un-{d}", un_dirs[d], args.cache, embedder, settings, vectors
        )
    tests_un = [f"un-{d}" for d in un]
    models_dir = args.out / "loo"
    models_dir.mkdir(parents=True, exist_ok=True)
    rows = {d: ts.extract(str(MTRAG / d), train_cache) for d in trainable}
    extra = [
        r for path in args.extra_fit for r in ts.extract(str(path), args.extra_cache or train_cache)
    ]
    log(f"extra fitting rows: {len(extra)} follow-ups from {len(args.extra_fit)} datasets")
    models: dict[str, Path] = {}
    splits: dict[str, dict[str, Any]] = {}
    for held in (*searchable, "none"):
        fit = [d for d in trainable if d != held]
        if not fit:
            raise SystemExit(f"nothing to fit on without {held}: build term statistics first")
        m = ts.train([r for d in fit for r in rows[d]] + extra, 1.0, 0.10, 2)
        models[held] = models_dir / f"selector-without-{held}.json"
        models[held].write_text(
            json.dumps(
                m.to_json(trained_on=[*fit, *(p.name for p in args.extra_fit)], l2=1.0), indent=1
            )
            + "\n"
        )
        for test in [held] if held != "none" else tests_un:
            splits[test] = {
                "model": held,
                "fit": fit,
                "constants_fit": [d for d in fit if d in searchable],
            }
    strategies, _ = build_strategies(list(STRATEGIES))
    points = [defaults()] + ([] if args.no_grid else [p for p in grid_points() if p != defaults()])
    results: dict[str, Any] = {}
    for held in (*searchable, "none"):
        names = [*searchable, *(tests_un if held == "none" else [])]
        results[held] = run_model(domains, names, vectors, models[held], points, strategies, log)
    ablations: dict[str, Any] = {}
    passes = [a for a in args.ablate.split(",") if a]
    if passes and "disabled_passes" not in {f.name for f in fields(ResolveContext)}:
        raise SystemExit("--ablate needs ResolveContext.disabled_passes (the passes' switch)")
    for name in passes:
        kept = {n: d.context for n, d in domains.items()}
        for d in domains.values():
            d.context = replace(d.context, disabled_passes=frozenset({name}))  # type: ignore[call-arg]
        for held in (*searchable, "none"):
            names = [held] if held != "none" else tests_un  # the held-out test only
            ablations.setdefault(name, {})[held] = run_model(
                domains, names, vectors, models[held], points, strategies[2:3], log
            )
        for n, d in domains.items():
            d.context = kept[n]
    for opened in domains.values():
        opened.index.close()
    vectors.close()
    write_report(
        args.out, results, ablations, points, models, splits, searchable,
        command=" ".join(["bench/loo_eval.py", *sys.argv[1:]]),
        head=git_head(), seconds=time.time() - started,
    )  # fmt: skip


if __name__ == "__main__":
    main()
