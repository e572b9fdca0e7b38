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


def second_turn(first: str, message: str, *, rewrite: str | None = None) -> EvalTurn:
    """A conversation's second turn: `first` was asked and answered, `message` follows."""
    return EvalTurn(
        task_id="c<::>2",
        conversation_id="c",
        turn=2,
        history=(Turn("user", first), Turn("assistant", "An answer.")),
        message=message,
        rewrite=rewrite or message,
        gold=("p1",),
        line=2,
    )


def _stats(terms):  # type: ignore[no-untyped-def]
    return TermStats(len(DOCS), {t: sum(t.lower() in d for d in DOCS) for t in terms})


def test_a_typo_is_fixed_in_the_searched_query_and_the_typed_message_searched_too(
    tmp_path: Path,
) -> None:
    turn = second_turn(
        "What are the shop hours?", "What does the montly pass cost?",
        rewrite="What does the monthly pass cost?",
    )  # fmt: skip
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


def _common(terms):  # type: ignore[no-untyped-def]
    """Every word in 9 of 10 chunks: nothing is distinctive (a small corpus about plans)."""
    return TermStats(10, {t: 9 for t in terms})


def test_the_eval_gates_with_the_index_headings_as_a_turn_does(tmp_path: Path) -> None:
    """turn.py gates with the index's headings; the eval's gate had not, so it could not
    measure the rule ("how much is the pro plan?" names "Plans and pricing > Pro")."""
    turn = second_turn("what escalation options are there?", "how much is the pro plan?")
    strategies, _ = build_strategies(["embedded"])
    reasons = []
    for headings in (None, lambda: ("Plans and pricing > Pro",)):
        cache = JsonlCache(tmp_path / f"r{len(reasons)}.jsonl")
        context = ResolveContext(term_stats=_common, headings=headings)
        [plan] = [p for p in plan_turns("d", [turn], strategies, context, gate, cache, None)
                  if p.variant == "default"]  # fmt: skip
        cache.close()
        reasons.append(plan.gate_reason)
    assert reasons == ["too little signal", "names a heading"]
