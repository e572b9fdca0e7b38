"""The resolve stage of an evaluation: every turn through every strategy, timed.

Gated strategies run the gate first, as a tellmemore turn does; they are also
planned with the gate bypassed ("always" variant) so the report can say what
gating keeps. Resolutions of model-backed strategies (`llm`) are cached between
runs, keyed by the strategy's fingerprint, the message and the history.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from tellmemore.conversation.decide import decide
from tellmemore.conversation.headings import headings_of
from tellmemore.conversation.preamble import without_preamble
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.conversation.spelling import correct_spelling
from tellmemore.eval.cache import JsonlCache, digest
from tellmemore.eval.datasets import EvalTurn
from tellmemore.eval.measures import Binding, binding
from tellmemore.eval.strategies import Strategy
from tellmemore.types import Decision, Resolution

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Plan:
    """One turn as one strategy will search it: the resolution, the phrasings, the timing."""

    strategy: Strategy
    variant: str
    turn: EvalTurn
    resolution: Resolution
    queries: tuple[str, ...]
    gate: str | None
    gate_reason: str | None
    resolve_ms: float
    weights: tuple[float, ...] = ()
    """Fusion weight of each phrasing (empty: 1.0 each)."""

    @cached_property
    def binding(self) -> Binding:
        return binding(
            self.turn.message,
            [t.content for t in self.turn.history],
            self.turn.rewrite,
            self.resolution.query,
            followup=self.turn.followup,
        )


def plan_turns(
    dataset_name: str,
    turns: Sequence[EvalTurn],
    strategies: Sequence[Strategy],
    context: ResolveContext,
    gate_fn: Callable[..., Any] | None,
    resolutions: JsonlCache,
    progress: Progress | None,
) -> list[Plan]:
    """Resolve every turn with every strategy, timing the gate and the resolver."""
    gates: dict[str, tuple[bool, str, float]] = {}
    fixed: dict[str, EvalTurn] = {}
    """Gated strategies run as a turn does: on the message with its typos fixed
    (conversation.spelling), searched beside the message as typed."""
    if any(s.gated for s in strategies):
        for turn in turns:
            t0 = time.perf_counter()
            text, fixes = correct_spelling(turn.message, context.term_stats)
            fixed[turn.task_id] = replace(turn, message=text) if fixes else turn
            spell_ms = (time.perf_counter() - t0) * 1000
            if gate_fn is None:
                continue
            t0 = time.perf_counter()
            result = gate_fn(
                without_preamble(text),
                turn.history,
                context.term_stats,
                headings=headings_of(context.headings),  # as turn.py gates
            )
            gates[turn.task_id] = (
                bool(result.needs_resolution),
                str(result.reason),
                spell_ms + (time.perf_counter() - t0) * 1000,
            )
    plans: list[Plan] = []
    total = len(turns) * len(strategies)
    done = 0
    for strategy in strategies:
        for turn in turns:
            resolution, ms = resolve_turn(
                strategy,
                fixed.get(turn.task_id, turn) if strategy.gated else turn,
                context,
                resolutions,
            )
            done += 1
            if progress is not None and (done % 50 == 0 or done == total):
                progress(f"{dataset_name}: resolving", done, total)
            t0 = time.perf_counter()
            searched = fixed[turn.task_id].message if turn.task_id in fixed else None
            phrasings = strategy.phrasings(
                resolution, turn.message, turn.history, context, searched=searched
            )
            ms += (time.perf_counter() - t0) * 1000  # building the phrasings is resolve work
            if not strategy.gated or turn.task_id not in gates:
                plans.append(
                    Plan(
                        strategy,
                        "default",
                        turn,
                        resolution,
                        phrasings.queries,
                        None,
                        None,
                        ms,
                        phrasings.weights,
                    )
                )
                continue
            needs, reason, gate_ms = gates[turn.task_id]
            always = Plan(
                strategy,
                "always",
                turn,
                resolution,
                phrasings.queries,
                "resolve",
                reason,
                gate_ms + ms,
                phrasings.weights,
            )
            plans.append(always)
            if needs:
                plans.append(replace(always, variant="default"))
            else:
                skipped = Resolution(
                    query=without_preamble(fixed[turn.task_id].message), resolver="none"
                )
                t0 = time.perf_counter()
                kept = strategy.phrasings(
                    skipped, turn.message, turn.history, context, searched=searched
                )
                skip_ms = gate_ms + (time.perf_counter() - t0) * 1000
                plans.append(
                    Plan(
                        strategy,
                        "default",
                        turn,
                        skipped,
                        kept.queries,
                        "skip",
                        reason,
                        skip_ms,
                        kept.weights,
                    )
                )
    return plans


def resolve_turn(
    strategy: Strategy, turn: EvalTurn, context: ResolveContext, cache: JsonlCache
) -> tuple[Resolution, float]:
    """One resolution and its wall time; model-backed strategies are cached between runs."""
    key = None
    if strategy.fingerprint is not None:
        key = digest(
            strategy.name,
            strategy.fingerprint,
            turn.message,
            [t.to_dict() for t in turn.history],
            context.window,
        )
        row = cache.get(key)
        if row is not None:
            return Resolution(**row["resolution"]), float(row["ms"])
    t0 = time.perf_counter()
    resolution = strategy.resolve(turn, context)
    ms = (time.perf_counter() - t0) * 1000
    if key is not None:
        data = resolution.to_dict()
        data["candidates"] = tuple(data.get("candidates") or ())
        cache.put(key, {"resolution": data, "ms": ms, "task_id": turn.task_id})
    return resolution, ms


def no_retrieval(turns: Sequence[EvalTurn]) -> tuple[tuple[str, str], ...]:
    """The turns `conversation.decide` would answer without retrieval."""
    out: list[tuple[str, str]] = []
    for turn in turns:
        result = decide(turn.message, turn.history)
        if result.decision is not Decision.RETRIEVE:
            out.append((turn.task_id, f"{result.decision.value}: {result.reason}"))
    return tuple(out)
