"""The eval runs a gated strategy as a turn runs it: typos fixed, the message kept."""

from __future__ import annotations

from pathlib import Path

from tellmemore.conversation.gate import gate
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.eval.cache import JsonlCache
from tellmemore.eval.datasets import EvalTurn
from tellmemore.eval.planning import plan_turns
from tellmemore.eval.strategies import build_strategies
from tellmemore.types import TermStats, Turn

DOCS = [
    {"monthly", "pass", "cost"},
    {"monthly", "pass", "bike"},
    {"monthly", "pass", "cancel"},
    {"shop", "hours"},
]


def _stats(terms):  # type: ignore[no-untyped-def]
    return TermStats(len(DOCS), {t: sum(t.lower() in d for d in DOCS) for t in terms})


def test_a_typo_is_fixed_in_the_searched_query_and_the_typed_message_searched_too(
    tmp_path: Path,
) -> None:
    turn = EvalTurn(
        task_id="c<::>2",
        conversation_id="c",
        turn=2,
        history=(Turn("user", "What are the shop hours?"), Turn("assistant", "9 to 5.")),
        message="What does the montly pass cost?",
        rewrite="What does the monthly pass cost?",
        gold=("p1",),
        line=2,
    )
    strategies, _ = build_strategies(["raw", "embedded"])
    cache = JsonlCache(tmp_path / "resolutions.jsonl")
    plans = plan_turns(
        "d", [turn], strategies, ResolveContext(term_stats=_stats), gate, cache, None
    )
    cache.close()
    by = {(p.strategy.name, p.variant): p for p in plans}
    embedded = by[("embedded", "default")]
    assert embedded.queries[0] == "What does the monthly pass cost?"
    assert "What does the montly pass cost?" in embedded.queries
    assert by[("raw", "default")].queries == ("What does the montly pass cost?",)
