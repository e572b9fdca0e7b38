"""The LLM resolver against a scripted OpenAI-compatible server over real HTTP: success,
one retry on malformed JSON, and every fault falling back to `embedded`, recorded."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tellmemore.config import LLMSettings
from tellmemore.conversation.resolvers import LLMResolver, ResolveContext, get_resolver
from tellmemore.errors import ConfigError
from tellmemore.llm import LLMClient
from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer

from .histories import CLOUD_CONNECT, CLOUD_CONNECT_CHOSEN, CLOUD_CONNECT_LONG

MESSAGE = "does that one cover weekends?"
GOOD = {
    "query": "Does Enterprise escalation on Cloud Connect cover weekends?",
    "resolved": {"that one": "Enterprise escalation tier"},
    "ambiguous": False,
}


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as s:
        yield s


@pytest.fixture
def resolver(server: ScriptedLLMServer) -> Iterator[LLMResolver]:
    settings = LLMSettings(
        # a 3 s timeout: a loopback reply starved of CPU on a loaded machine took over 1 s
        # and read as a timeout where the test asserts another fallback
        base_url=server.base_url,
        timeout_s=3.0,
        deadline_s=4.0,
        max_retry_after_s=1.5,
    )
    with LLMClient(settings) as client:
        yield LLMResolver(client)


def test_success_uses_the_model_rewrite(server: ScriptedLLMServer, resolver: LLMResolver) -> None:
    server.enqueue(Reply.json(GOOD))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.query == GOOD["query"]
    assert res.bindings == {"that one": "Enterprise escalation tier"}
    assert (res.resolver, res.model_called, res.degraded) == ("llm", True, None)
    prompt = server.requests[0].prompt
    assert "Rewrite the user's latest message as a standalone search query" in prompt
    assert f"Latest message: {MESSAGE}" in prompt
    assert "we are on the enterprise tier" in prompt


def test_the_window_is_three_exchanges_or_summary_plus_two(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue(Reply.json(GOOD), Reply.json(GOOD))
    resolver.resolve(MESSAGE, CLOUD_CONNECT_LONG, ResolveContext(window=3))
    shown = server.requests[0].prompt
    assert "what escalation options" not in shown  # 4 exchanges back: outside the window
    assert "does enterprise escalation on cloud connect cover weekends?" in shown
    resolver.resolve(MESSAGE, CLOUD_CONNECT_LONG, ResolveContext(summary="cloud connect tiers"))
    shown = server.requests[1].prompt
    assert "Summary of earlier turns: cloud connect tiers" in shown
    assert "does enterprise escalation" not in shown  # 3 exchanges back: summary only
    assert "can I attach logs" in shown


def test_no_history_makes_no_call(server: ScriptedLLMServer, resolver: LLMResolver) -> None:
    res = resolver.resolve("What does the monthly pass cost?", [], ResolveContext())
    assert res.query == "What does the monthly pass cost?"
    assert not res.model_called
    assert server.requests == []


def test_malformed_then_success_retries_once(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue("query: not json", Reply.json(GOOD))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.query == GOOD["query"]
    assert res.degraded is None
    assert len(server.requests) == 2


def test_malformed_twice_falls_back_to_embedded(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue("not json", '{"resolved": {}}', Reply.json(GOOD))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert len(server.requests) == 2
    assert res.resolver == "llm->embedded"
    assert res.model_called
    assert res.degraded is not None and res.degraded.startswith("malformed")
    assert "Enterprise escalation" in res.query  # the embedded resolver still binds


def test_timeout_falls_back_within_the_deadline(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue(Reply.delay(8.0, json.dumps(GOOD)))
    start = time.monotonic()
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert time.monotonic() - start < 4.5
    assert res.degraded is not None and res.degraded.startswith("timeout")
    assert res.resolver == "llm->embedded"


def test_429_with_retry_after_is_waited_out(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue(Reply.error(429, {"Retry-After": "1"}), Reply.json(GOOD))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.degraded is None and res.query == GOOD["query"]
    assert server.requests[1].at - server.requests[0].at >= 0.9


def test_429_beyond_the_bound_falls_back(server: ScriptedLLMServer, resolver: LLMResolver) -> None:
    server.enqueue(Reply.error(429, {"Retry-After": "30"}))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.degraded is not None and res.degraded.startswith("rate_limit")


def test_500_falls_back(server: ScriptedLLMServer, resolver: LLMResolver) -> None:
    server.enqueue(Reply.error(500), Reply.error(500), Reply.error(500))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.degraded is not None and res.degraded.startswith("server")
    assert res.resolver == "llm->embedded"


@pytest.mark.parametrize(
    "query",
    [
        "Yes. Enterprise escalation on Cloud Connect covers weekends and public holidays, "
        "with a named responder. Standard escalation covers business hours only. "
        "Weekend pages go to the on-call queue.",
        "Yes, it does.",
        "",
    ],
)
def test_an_answer_instead_of_a_rewrite_falls_back(
    server: ScriptedLLMServer, resolver: LLMResolver, query: str
) -> None:
    server.enqueue(Reply.json({**GOOD, "query": query}))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.degraded is not None
    assert res.degraded.split(":")[0] in ("answered", "empty")
    assert res.resolver == "llm->embedded"


def test_a_dropped_code_or_date_falls_back(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue(Reply.json({"query": "Does it cover weekends in May?", "resolved": {}}))
    res = resolver.resolve("does it cover weekends in May 2026?", CLOUD_CONNECT, ResolveContext())
    assert res.degraded is not None and res.degraded.startswith("dropped")
    assert "2026" in res.query


def test_ambiguous_asks_the_clarifying_question(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue(Reply.json({"query": MESSAGE, "resolved": {}, "ambiguous": True}))
    res = resolver.resolve(MESSAGE, CLOUD_CONNECT, ResolveContext())
    assert res.ambiguous and res.model_called
    assert res.clarification == "Do you mean Standard or Enterprise escalation?"


def test_nothing_bound_searches_the_raw_message(
    server: ScriptedLLMServer, resolver: LLMResolver
) -> None:
    server.enqueue(Reply.json({"query": "does it cover weekends?", "resolved": {}}))
    res = resolver.resolve("does it cover weekends?", CLOUD_CONNECT_CHOSEN, ResolveContext())
    assert res.query == "does it cover weekends?"
    assert res.unbound_referent


def test_registry_lists_the_valid_names() -> None:
    with pytest.raises(ConfigError, match="valid resolvers: concat, embedded, llm, raw"):
        get_resolver("nope")
    with pytest.raises(ConfigError, match=r"llm\.base_url"):
        get_resolver("llm")
    assert get_resolver(" Embedded ").name == "embedded"
    assert get_resolver("raw").resolve("x", [], ResolveContext()).query == "x"
    concat = get_resolver("concat").resolve("and kids?", CLOUD_CONNECT_LONG, ResolveContext())
    assert concat.query == (
        "how do I open a cloud connect ticket?\ncan I attach logs to a cloud connect ticket?"
        "\nand kids?"
    )
