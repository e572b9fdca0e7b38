"""Run every strategy x retriever over every turn of every dataset.

For each dataset: build or reuse the corpus index (`corpus.ensure_index`),
resolve every turn with every strategy (timed), encode every distinct query
string in batches once (`cache.QueryVectors`, shared by strategies and kept
between runs), then search each (phrasings, retriever) pair once and roll the
chunk hits up to passage ids (best chunk). Rankings are appended to a JSONL
cache as the run goes, so a killed run resumes and a rerun with unchanged
retrieval code and settings searches nothing.

Gated strategies are also run with the gate bypassed ("always" variant), so
the report can say what gating keeps of the always-resolve quality.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tellmemore.answer.calibration import Calibrator
from tellmemore.answer.own_gates import GateRow
from tellmemore.config import Settings
from tellmemore.conversation.gate import gate
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.eval.cache import JsonlCache, QueryVectors, code_fingerprint, digest, slug
from tellmemore.eval.corpus import IndexInfo, ensure_index, index_versions
from tellmemore.eval.datasets import Dataset, EvalTurn, load_dataset
from tellmemore.eval.measures import Binding
from tellmemore.eval.planning import Plan, no_retrieval, plan_turns
from tellmemore.eval.strategies import STRATEGIES, Strategy, build_strategies
from tellmemore.index.base import Embedder, Index
from tellmemore.retrieval import Retriever, index_reads
from tellmemore.types import Resolution, SearchMode

if TYPE_CHECKING:
    from tellmemore.llm import LLMClient

log = logging.getLogger(__name__)

DEFAULT_CACHE_DIR = Path("~/.cache/tellmemore/eval")
RETRIEVERS = (SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID)
RETRIEVAL_MODULES = (
    "tellmemore.retrieval",
    "tellmemore.index.base",
    "tellmemore.index.sqlite",
    "tellmemore.index.dense",
    "tellmemore.index.fusion",
    "tellmemore.answer.calibration",
)
"""The code a cached ranking depends on: any change to it invalidates the rankings."""

Progress = Callable[[str, int, int], None]
"""progress(label, done, total): the CLI draws it as a rich progress bar."""


@dataclass(frozen=True)
class EvalOptions:
    """What to run. `limit` keeps the first N turns of each dataset (smoke runs)."""

    strategies: tuple[str, ...] = STRATEGIES
    retrievers: tuple[SearchMode, ...] = RETRIEVERS
    ks: tuple[int, ...] = (5, 10)
    cache_dir: Path = DEFAULT_CACHE_DIR
    skip_invalid: bool = False
    limit: int | None = None

    @property
    def passage_depth(self) -> int:
        """Passages kept per ranking: twice the deepest cut-off, so ranks just past it show."""
        return 2 * max(self.ks)

    @property
    def chunk_depth(self) -> int:
        """Chunks asked of the index: several per passage, since passages are split."""
        return max(50, 5 * max(self.ks))


@dataclass(frozen=True)
class TurnResult:
    """One turn searched by one strategy with one retriever."""

    dataset: str
    strategy: str
    retriever: str
    variant: str
    """"default": as the strategy runs; "always": the gate bypassed (gated strategies only)."""
    turn: EvalTurn
    resolution: Resolution
    queries: tuple[str, ...]
    gate: str | None
    """"resolve" or "skip" for gated strategies when the gate exists, else None."""
    gate_reason: str | None
    binding: Binding
    ranked: tuple[str, ...]
    resolve_ms: float
    retrieve_ms: float | None

    @property
    def gold_ranks(self) -> dict[str, int | None]:
        """Rank (1-based) of each gold passage in the ranking, None when not retrieved."""
        pos = {pid: i for i, pid in enumerate(self.ranked, start=1)}
        return {g: pos.get(g) for g in self.turn.gold}


@dataclass(frozen=True)
class DatasetRun:
    dataset: Dataset
    index: IndexInfo
    turns: tuple[EvalTurn, ...]
    results: tuple[TurnResult, ...]
    searches: int
    searches_cached: int
    queries_encoded: int
    no_retrieval: tuple[tuple[str, str], ...] = ()
    """Turns the retrieve/no-retrieve rule would answer without searching: (task id, reason).
    Every evaluated turn has gold passages, so each one is a miss of that rule."""
    behaviour: dict[str, Any] | None = None
    """With a behaviour.jsonl: abstain and ask-back by label (`eval.behaviour.summarise`)."""
    gate_rows: tuple[GateRow, ...] = ()
    """The labelled turns as the learned gates read them (`tellmemore eval --fit-gates`)."""


@dataclass(frozen=True)
class EvalRun:
    """Everything the report needs; `report.build_report` turns it into tables and JSON."""

    runs: tuple[DatasetRun, ...]
    strategies: tuple[str, ...]
    unavailable: dict[str, str]
    retrievers: tuple[str, ...]
    ks: tuple[int, ...]
    gate_available: bool
    embedder: str
    seconds: float
    encode_ms_per_query: float | None
    settings: dict[str, Any] = field(default_factory=dict)


def run_eval(
    paths: Sequence[str | Path],
    *,
    settings: Settings,
    options: EvalOptions,
    embedder: Embedder,
    llm: LLMClient | None = None,
    progress: Progress | None = None,
) -> EvalRun:
    """Evaluate every dataset directory in `paths`; raises `DatasetError` on bad input."""
    started = time.perf_counter()
    cache_dir = options.cache_dir.expanduser()
    datasets = _load(paths, options)
    strategies, unavailable = build_strategies(
        options.strategies, llm=llm, llm_model=settings.llm.model
    )
    gate_fn = gate
    vectors = QueryVectors(cache_dir / "queries", embedder)
    fingerprint = digest(
        code_fingerprint(RETRIEVAL_MODULES),
        index_versions(),  # another chunker cuts other chunks: its rankings are stale
        settings.retrieval.model_dump(mode="json"),
        options.chunk_depth,
        options.passage_depth,
    )
    runs: list[DatasetRun] = []
    try:
        for dataset in datasets:
            runs.append(
                _run_dataset(
                    dataset,
                    settings=settings,
                    options=options,
                    embedder=embedder,
                    vectors=vectors,
                    strategies=strategies,
                    gate_fn=gate_fn,
                    fingerprint=fingerprint,
                    cache_dir=cache_dir,
                    progress=progress,
                )
            )
    finally:
        vectors.close()
    encode_ms = vectors.encode_seconds * 1000 / vectors.encoded if vectors.encoded else None
    return EvalRun(
        runs=tuple(runs),
        strategies=tuple(s.name for s in strategies),
        unavailable=unavailable,
        retrievers=tuple(r.value for r in options.retrievers),
        ks=tuple(sorted(set(options.ks))),
        gate_available=gate_fn is not None,
        embedder=embedder.name,
        seconds=time.perf_counter() - started,
        encode_ms_per_query=encode_ms,
        settings={
            "retrieval": settings.retrieval.model_dump(mode="json"),
            "conversation": settings.conversation.model_dump(mode="json"),
        },
    )


def _load(paths: Sequence[str | Path], options: EvalOptions) -> list[Dataset]:
    datasets: list[Dataset] = []
    names: set[str] = set()
    for p in paths:
        ds = load_dataset(p, skip_invalid=options.skip_invalid)
        if ds.name in names:  # two folders with one name: tell them apart by their parent
            ds = load_dataset(
                p,
                skip_invalid=options.skip_invalid,
                name=f"{Path(p).resolve().parent.name}/{ds.name}",
            )
        names.add(ds.name)
        datasets.append(ds)
    return datasets


def _run_dataset(
    dataset: Dataset,
    *,
    settings: Settings,
    options: EvalOptions,
    embedder: Embedder,
    vectors: QueryVectors,
    strategies: Sequence[Strategy],
    gate_fn: Callable[..., Any] | None,
    fingerprint: str,
    cache_dir: Path,
    progress: Progress | None,
) -> DatasetRun:
    def index_progress(done: int, total: int, label: str) -> None:
        if progress is not None:
            progress(f"{dataset.name}: indexing", done, total)

    index, info = ensure_index(
        dataset, embedder=embedder, settings=settings, cache_dir=cache_dir, progress=index_progress
    )
    try:
        turns = dataset.turns[: options.limit] if options.limit else dataset.turns
        context = ResolveContext.of(
            settings.conversation,
            term_stats=index.term_stats,
            headings=index.headings,
            **index_reads(
                settings.conversation,
                index,
                vectors.embedder.embed_documents,
                Calibrator(index, vectors.embedder).get(),
            ),
        )
        _warm_term_stats(index)
        runs_dir = cache_dir / "runs"
        resolutions = JsonlCache(runs_dir / f"{slug(dataset.name)}-{info.key}-resolutions.jsonl")
        rankings = JsonlCache(runs_dir / f"{slug(dataset.name)}-{info.key}-rankings.jsonl")
        try:
            behaviour, gate_rows = _behaviour(
                dataset, index, vectors.embedder, settings, options, progress
            )
            plans = plan_turns(
                dataset.name, turns, strategies, context, gate_fn, resolutions, progress
            )
            retriever = Retriever(index, vectors.embedder, settings.retrieval)
            results, searched, cached, encoded = _search(
                dataset,
                plans,
                retriever=retriever,
                vectors=vectors,
                rankings=rankings,
                options=options,
                fingerprint=fingerprint,
                progress=progress,
            )
        finally:
            resolutions.close()
            rankings.close()
    finally:
        index.close()
    return DatasetRun(
        dataset=dataset,
        index=info,
        turns=tuple(turns),
        results=tuple(results),
        searches=searched,
        searches_cached=cached,
        queries_encoded=encoded,
        no_retrieval=no_retrieval(turns),
        behaviour=behaviour,
        gate_rows=gate_rows,
    )


def _behaviour(
    dataset: Dataset,
    index: Index,
    embedder: Embedder,
    settings: Settings,
    options: EvalOptions,
    progress: Progress | None,
) -> tuple[dict[str, Any] | None, tuple[GateRow, ...]]:
    """Run the labelled turns of the dataset's behaviour.jsonl as real turns, if it has one:
    the summary by label, and the turns as the learned gates read them."""
    from tellmemore.eval.behaviour import (
        BehaviourResult,
        BehaviourTurn,
        has_behaviour,
        load_behaviour,
        run_behaviour,
        summarise,
        turn_runner_ask,
    )

    if not has_behaviour(dataset.path):
        return None, ()
    turns = load_behaviour(dataset.path)
    if options.limit:
        turns = turns[: options.limit]
    with turn_runner_ask(index, embedder, settings) as ask:
        done = 0

        def counted(t: BehaviourTurn) -> BehaviourResult:
            nonlocal done
            out = ask(t)
            done += 1
            if progress is not None and (done % 10 == 0 or done == len(turns)):
                progress(f"{dataset.name}: labelled turns", done, len(turns))
            return out

        results = run_behaviour(turns, counted)
        return summarise(results), tuple(r.gate_row() for r in results)


def _warm_term_stats(index: Index) -> None:
    """Time resolution as a running service sees it: with the index's vocabulary in
    memory. The SQLite index reads it on a helper thread after each write (~0.1 s at 39k
    chunks); a tight loop of turns started at that moment would time the two threads'
    contention instead."""
    index.term_stats(["warm"])
    wait = getattr(index, "wait_for_vocabulary", None)
    if wait is not None:
        wait(60)


def _search(
    dataset: Dataset,
    plans: Sequence[Plan],
    *,
    retriever: Retriever,
    vectors: QueryVectors,
    rankings: JsonlCache,
    options: EvalOptions,
    fingerprint: str,
    progress: Progress | None,
) -> tuple[list[TurnResult], int, int, int]:
    """Search each distinct (phrasings, retriever) once; every plan gets its ranking."""

    def key_of(queries: tuple[str, ...], mode: SearchMode, weights: tuple[float, ...]) -> str:
        if not weights or all(w == 1.0 for w in weights):
            return digest(fingerprint, mode.value, queries)
        return digest(fingerprint, mode.value, queries, weights)

    # Encode, in batches, every phrasing a dense or hybrid search still needs.
    needed: list[str] = []
    for mode in options.retrievers:
        if mode is SearchMode.BM25:
            continue
        for plan in plans:
            if plan.queries and rankings.get(key_of(plan.queries, mode, plan.weights)) is None:
                needed.extend(q.strip() for q in plan.queries if q.strip())
    todo = vectors.missing(needed)

    def encode_progress(done: int, total: int) -> None:
        if progress is not None:
            progress(f"{dataset.name}: encoding queries", done, total)

    encoded = vectors.encode(todo, encode_progress)

    memo: dict[str, tuple[tuple[str, ...], float | None]] = {}
    results: list[TurnResult] = []
    searched = cached = 0
    total = len(plans) * len(options.retrievers)
    done = 0
    for mode in options.retrievers:
        for plan in plans:
            done += 1
            ranked: tuple[str, ...] = ()
            ms: float | None = None
            if plan.queries:
                key = key_of(plan.queries, mode, plan.weights)
                if key not in memo:
                    row = rankings.get(key)
                    if row is None:
                        memo[key] = _retrieve(retriever, plan.queries, mode, options, plan.weights)
                        rankings.put(
                            key,
                            {
                                "retriever": mode.value,
                                "queries": list(plan.queries),
                                "ranked": list(memo[key][0]),
                                "retrieve_ms": memo[key][1],
                            },
                        )
                        searched += 1
                    else:
                        memo[key] = (tuple(row["ranked"]), row.get("retrieve_ms"))
                        cached += 1
                ranked, ms = memo[key]
            results.append(
                TurnResult(
                    dataset=dataset.name,
                    strategy=plan.strategy.name,
                    retriever=mode.value,
                    variant=plan.variant,
                    turn=plan.turn,
                    resolution=plan.resolution,
                    queries=plan.queries,
                    gate=plan.gate,
                    gate_reason=plan.gate_reason,
                    binding=plan.binding,
                    ranked=ranked,
                    resolve_ms=plan.resolve_ms,
                    retrieve_ms=ms,
                )
            )
            if progress is not None and (done % 25 == 0 or done == total):
                progress(f"{dataset.name}: searching", done, total)
    return results, searched, cached, encoded


def _retrieve(
    retriever: Retriever,
    queries: tuple[str, ...],
    mode: SearchMode,
    options: EvalOptions,
    weights: tuple[float, ...] = (),
) -> tuple[tuple[str, ...], float]:
    """Passage ids best first (each passage ranked by its best chunk) and the search time.

    The time is the index search and fusion only: query vectors were encoded
    beforehand in batches (the report gives the amortised encoding cost).
    """
    result = retriever.search(
        list(queries), k=options.chunk_depth, mode=mode, weights=list(weights) or None
    )
    ranked: dict[str, None] = {}
    for hit in result.hits:
        ranked.setdefault(hit.chunk.doc_id, None)
        if len(ranked) >= options.passage_depth:
            break
    return tuple(ranked), result.search_ms
