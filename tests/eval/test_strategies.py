"""Strategy names, reference strategies, and the phrasings a strategy searches."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.errors import ConfigError
from tellmemore.eval.datasets import load_dataset
from tellmemore.eval.strategies import STRATEGIES, build_strategies, parse_strategies
from tellmemore.types import Resolution

TINY = Path(__file__).parents[1] / "data" / "eval" / "tiny"


def test_unknown_strategy_names_the_value_and_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        parse_strategies("raw,embeded")
    assert "'embeded'" in str(err.value)
    assert "--strategies" in str(err.value)
    for name in STRATEGIES:
        assert name in str(err.value)


def test_llm_without_an_endpoint_is_reported_not_run() -> None:
    runnable, unavailable = build_strategies(["raw", "llm", "oracle"])
    assert [s.name for s in runnable] == ["raw", "oracle"]
    assert "llm.base_url" in unavailable["llm"]


def test_reference_strategies_and_concat_queries() -> None:
    turn = load_dataset(TINY).turns[5]  # c2 turn 3
    runnable, _ = build_strategies(["raw", "concat", "all_user", "oracle"])
    by_name = {s.name: s for s in runnable}
    ctx = ResolveContext()
    assert by_name["oracle"].resolve(turn, ctx).query == "Is a rented bike stolen too often?"
    assert by_name["all_user"].resolve(turn, ctx).query == (
        "What happens with a flat tyre?\nDo I pay for the other one?\nIs it stolen too often?"
    )
    concat = by_name["concat"].resolve(turn, ctx).query
    assert concat.endswith("Is it stolen too often?")
    assert "flat tyre" in concat
    assert by_name["raw"].resolve(turn, ctx).query == turn.message
    assert by_name["concat"].gated and not by_name["oracle"].gated and not by_name["raw"].gated


def test_resolver_strategies_also_search_the_message_as_typed() -> None:
    runnable, _ = build_strategies(["concat", "oracle"])
    concat, oracle = runnable
    res = Resolution(query="refund for the monthly pass")
    assert concat.phrasings(res, "refund?").queries == ("refund for the monthly pass", "refund?")
    assert concat.phrasings(Resolution(query="refund?"), "refund?").queries == ("refund?",)
    assert oracle.phrasings(res, "refund?").queries == ("refund for the monthly pass",)
    asked = Resolution(query="x", ambiguous=True, clarification="Which one?")
    assert concat.phrasings(asked, "that one?").queries == ()


def test_package_exports_are_sorted_and_importable() -> None:
    import tellmemore.eval as ev

    assert ev.__all__ == sorted(ev.__all__, key=lambda n: (not n.isupper(), n))
    for name in ev.__all__:
        assert getattr(ev, name) is not None
