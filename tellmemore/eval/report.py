"""Turn an `EvalRun` into report.json (fixed shape), details.json, report.md and a chart.

report.json is for programs and its shape is fixed (issue 8):
    {"results": [{"dataset", "strategy", "retriever", "slice": "all" | "followup", "n",
                  "measures": {"R@5", "R@10", "nDCG@5", "nDCG@10", "RR@10"},
                  "binding": {"recall", "over_binding"}, "gate_skip_share",
                  "latency_ms": {"resolve_p50", "resolve_p95", "retrieve_p50",
                                 "retrieve_p95"}}],
     "turns": [one row per dataset x strategy x turn: the phrasings searched, the
               resolver's bindings, the binding measures and, per retriever, the ranks of
               the gold passages, the turn's measures and the search time]}
details.json holds what that shape has no room for: the datasets and what was
skipped, the index builds, turn depth, the topic-switch probes, gating, and the
run's settings. Follow-up turns are always reported next to all turns.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tellmemore.eval.measures import (
    PRIMARY,
    mean,
    measure_names,
    percentile,
    pooled_binding,
    probe_over_binding,
    score_turns,
)
from tellmemore.eval.runner import EvalRun, TurnResult
from tellmemore.eval.strategies import STRATEGIES

SLICES = ("all", "followup")
DEPTHS = ("1", "2", "3", "4", "5", "6+")
_Group = tuple[str, str, str, str]  # dataset, strategy, retriever, variant
_Scored = dict[_Group, list[tuple[TurnResult, dict[str, float]]]]


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def score(run: EvalRun) -> _Scored:
    """Per-turn measure values, grouped by dataset, strategy, retriever and variant."""
    names = measure_names(run.ks)
    groups: dict[_Group, list[TurnResult]] = defaultdict(list)
    for ds in run.runs:
        for res in ds.results:
            groups[(res.dataset, res.strategy, res.retriever, res.variant)].append(res)
    out: _Scored = {}
    for group, rows in groups.items():
        gold = {r.turn.task_id: r.turn.gold for r in rows}
        ranked = {r.turn.task_id: r.ranked for r in rows}
        values = score_turns(gold, ranked, names)
        out[group] = [(r, values[r.turn.task_id]) for r in rows]
    return out


def _order(run: EvalRun) -> list[tuple[str, str, str]]:
    strategies = sorted(run.strategies, key=lambda s: STRATEGIES.index(s))
    return [(ds.dataset.name, s, r) for ds in run.runs for s in strategies for r in run.retrievers]


def _slice(rows: Sequence[tuple[TurnResult, dict[str, float]]], name: str) -> list[Any]:
    return [x for x in rows if name == "all" or x[0].turn.followup]


def _means(
    rows: Sequence[tuple[TurnResult, dict[str, float]]], names: Sequence[str]
) -> dict[str, float | None]:
    return {n: _r(mean(v[n] for _, v in rows)) for n in names}


def _gate_share(rows: Iterable[tuple[TurnResult, dict[str, float]]]) -> float | None:
    gated = [r.gate for r, _ in rows if r.gate is not None]
    return _r(sum(1 for g in gated if g == "skip") / len(gated)) if gated else None


def build_report(run: EvalRun, scored: _Scored | None = None) -> dict[str, Any]:
    """The report.json object (the fixed shape of the module docstring)."""
    scored = scored if scored is not None else score(run)
    names = measure_names(run.ks)
    results: list[dict[str, Any]] = []
    turns: dict[tuple[str, str, str], dict[str, Any]] = {}
    for dataset, strategy, retriever in _order(run):
        rows = scored.get((dataset, strategy, retriever, "default"), [])
        for name in SLICES:
            part = _slice(rows, name)
            resolve = [r.resolve_ms for r, _ in part]
            retrieve = [r.retrieve_ms for r, _ in part if r.retrieve_ms is not None]
            results.append(
                {
                    "dataset": dataset,
                    "strategy": strategy,
                    "retriever": retriever,
                    "slice": name,
                    "n": len(part),
                    "measures": _means(part, names),
                    "binding": {
                        k: _r(v) for k, v in pooled_binding(r.binding for r, _ in part).items()
                    },
                    "gate_skip_share": _gate_share(part),
                    "latency_ms": {
                        "resolve_p50": _r(percentile(resolve, 50), 3),
                        "resolve_p95": _r(percentile(resolve, 95), 3),
                        "retrieve_p50": _r(percentile(retrieve, 50), 3),
                        "retrieve_p95": _r(percentile(retrieve, 95), 3),
                    },
                }
            )
        for r, v in rows:
            row = turns.setdefault((dataset, strategy, r.turn.task_id), _turn_row(r))
            row["retrievers"][retriever] = {
                "gold_ranks": r.gold_ranks,
                "measures": {k: _r(x) for k, x in v.items()},
                "retrieve_ms": _r(r.retrieve_ms, 3),
            }
    return {"results": results, "turns": list(turns.values())}


def _turn_row(r: TurnResult) -> dict[str, Any]:
    return {
        "dataset": r.dataset,
        "strategy": r.strategy,
        "task_id": r.turn.task_id,
        "conversation_id": r.turn.conversation_id,
        "turn": r.turn.turn,
        "followup": r.turn.followup,
        "message": r.turn.message,
        "query": r.resolution.query,
        "queries": list(r.queries),
        "bindings": dict(r.resolution.bindings),
        "ambiguous": r.resolution.ambiguous,
        "gate": r.gate,
        "gate_reason": r.gate_reason,
        "binding": r.binding.to_dict(),
        "gold": list(r.turn.gold),
        "resolve_ms": _r(r.resolve_ms, 3),
        "retrievers": {},
    }


def _depth(turn: int) -> str:
    return str(turn) if turn < 6 else "6+"


def build_details(
    run: EvalRun, scored: _Scored | None = None, *, command: str | None = None
) -> dict[str, Any]:
    """What report.json's fixed shape has no room for (see the module docstring)."""
    scored = scored if scored is not None else score(run)
    names = measure_names(run.ks)
    order = _order(run)
    by_depth: list[dict[str, Any]] = []
    gating: list[dict[str, Any]] = []
    for dataset, strategy, retriever in order:
        rows = scored.get((dataset, strategy, retriever, "default"), [])
        for depth in DEPTHS:
            part = [x for x in rows if _depth(x[0].turn.turn) == depth]
            if part:
                by_depth.append(
                    {
                        "dataset": dataset,
                        "strategy": strategy,
                        "retriever": retriever,
                        "depth": depth,
                        "n": len(part),
                        "measures": _means(part, names),
                    }
                )
        always = scored.get((dataset, strategy, retriever, "always"))
        if always:
            gated_fu = _slice(rows, "followup")
            always_fu = _slice(always, "followup")
            g = mean(v[PRIMARY] for _, v in gated_fu)
            a = mean(v[PRIMARY] for _, v in always_fu)
            gating.append(
                {
                    "dataset": dataset,
                    "strategy": strategy,
                    "retriever": retriever,
                    "slice": "followup",
                    "n": len(gated_fu),
                    "gate_skip_share": _gate_share(gated_fu),
                    "gated": _means(gated_fu, names),
                    "always_resolve": _means(always_fu, names),
                    "kept": _r(g / a) if g is not None and a else None,
                }
            )
    probes: list[dict[str, Any]] = []
    resolution: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for dataset, strategy, _ in order:
        if (dataset, strategy) in seen:
            continue
        seen.add((dataset, strategy))
        per_ret = {
            ret: scored.get((dataset, strategy, ret, "default"), []) for ret in run.retrievers
        }
        first = next(iter(per_ret.values()))
        share, n = probe_over_binding(r.binding for r, _ in first)
        strict_share, strict_n = probe_over_binding((r.binding for r, _ in first), strict=True)
        probes.append(
            {
                "dataset": dataset,
                "strategy": strategy,
                "n": n,
                "over_binding": _r(share),
                "strict_n": strict_n,
                "strict_over_binding": _r(strict_share),
                PRIMARY: {
                    ret: _r(mean(v[PRIMARY] for r, v in rows if r.binding.topic_switch))
                    for ret, rows in per_ret.items()
                },
            }
        )
        fu = [r for r, _ in first if r.turn.followup]
        resolution.append(
            {
                "dataset": dataset,
                "strategy": strategy,
                "followup_turns": len(fu),
                "clarified_share": _r(
                    sum(1 for r in fu if not r.queries) / len(fu) if fu else None
                ),
                "changed_share": _r(
                    sum(1 for r in fu if r.resolution.query.strip() != r.turn.message.strip())
                    / len(fu)
                    if fu
                    else None
                ),
                "fused_share": _r(
                    sum(1 for r in fu if len(r.queries) > 1) / len(fu) if fu else None
                ),
            }
        )
    return {
        "run": {
            "command": command,
            "seconds": round(run.seconds, 1),
            "embedder": run.embedder,
            "ks": list(run.ks),
            "primary": PRIMARY,
            "strategies": list(run.strategies),
            "strategies_not_run": run.unavailable,
            "retrievers": list(run.retrievers),
            "gate_available": run.gate_available,
            "encode_ms_per_query": _r(run.encode_ms_per_query, 2),
            "settings": run.settings,
        },
        "datasets": [
            {
                "name": ds.dataset.name,
                "path": str(ds.dataset.path),
                "corpus_hash": ds.dataset.corpus_hash,
                "conversations_hash": ds.dataset.conversations_hash,
                "passages": ds.dataset.n_passages,
                "turns": len(ds.turns),
                "followup_turns": sum(1 for t in ds.turns if t.followup),
                "skipped_turns": ds.dataset.skipped_counts(),
                "skipped": [s.to_dict() for s in ds.dataset.skipped],
                "index": ds.index.to_dict(),
                "searches": ds.searches,
                "searches_cached": ds.searches_cached,
                "queries_encoded": ds.queries_encoded,
                "no_retrieval": [{"task_id": t, "reason": r} for t, r in ds.no_retrieval],
                "behaviour": ds.behaviour,
            }
            for ds in run.runs
        ],
        "by_depth": by_depth,
        "topic_switch": probes,
        "gating": gating,
        "resolution": resolution,
    }


def write_report(
    run: EvalRun, out_dir: Path, *, command: str | None = None
) -> tuple[dict[str, Any], dict[str, Path]]:
    """Write report.json, details.json, report.md and report.png; returns the report object."""
    from tellmemore.eval.chart import render_chart
    from tellmemore.eval.markdown import render_markdown

    out_dir.mkdir(parents=True, exist_ok=True)
    scored = score(run)
    report = build_report(run, scored)
    details = build_details(run, scored, command=command)
    paths = {
        "json": out_dir / "report.json",
        "details": out_dir / "details.json",
        "markdown": out_dir / "report.md",
        "chart": out_dir / "report.png",
    }
    paths["json"].write_text(
        json.dumps(report, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    paths["details"].write_text(
        json.dumps(details, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    render_chart(report, paths["chart"])
    paths["markdown"].write_text(
        render_markdown(report, details, chart=paths["chart"].name), encoding="utf-8"
    )
    return report, paths
