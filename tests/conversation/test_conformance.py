"""Every registered resolver keeps the Resolution contract (style rule 21): a string query,
its own name, no exception on odd input, the message itself on a first turn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tellmemore.config import LLMSettings
from tellmemore.conversation.resolvers import RESOLVERS, ResolveContext, Resolver, get_resolver
from tellmemore.llm import LLMClient
from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer

from .histories import CLOUD_CONNECT_CHOSEN

ODD = ["", "   ", "?", "it", "🙂" * 50, "a\x00b", "x" * 20_000]


@pytest.fixture(params=sorted(RESOLVERS))
def resolver(request: pytest.FixtureRequest) -> Iterator[tuple[Resolver, ScriptedLLMServer]]:
    with ScriptedLLMServer() as server:
        for _ in range(2 * len(ODD) + 4):
            server.enqueue(Reply.json({"query": "Does Enterprise escalation cover weekends?"}))
        if request.param == "llm":
            settings = LLMSettings(base_url=server.base_url, timeout_s=2.0, deadline_s=3.0)
            with LLMClient(settings) as client:
                yield get_resolver("llm", llm=client), server
        else:
            yield get_resolver(request.param), server


def test_first_turn_is_the_message(resolver: tuple[Resolver, ScriptedLLMServer]) -> None:
    r, server = resolver
    res = r.resolve("What does the monthly pass cost?", [], ResolveContext())
    assert res.query == "What does the monthly pass cost?"
    assert not res.model_called
    assert res.resolver == r.name
    assert server.requests == []


def test_odd_messages_never_raise(resolver: tuple[Resolver, ScriptedLLMServer]) -> None:
    r, _ = resolver
    for message in ODD:
        res = r.resolve(message, CLOUD_CONNECT_CHOSEN, ResolveContext())
        assert isinstance(res.query, str)
        assert res.resolver.split("->")[0] == r.name
        assert res.latency_ms >= 0
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in res.bindings.items())
