"""One retry policy (issue 24, item 12): the LLM client and the embeddings client both run
`tellmemore.retries` (tenacity), so the same faults give the same waits, over real HTTP."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tellmemore.config import LLMSettings
from tellmemore.errors import EmbeddingError, LLMError
from tellmemore.index.embedders import OpenAIEmbedder
from tellmemore.llm import LLMClient
from tellmemore.retries import Failure, GaveUp, RetryPolicy, call_with_retries
from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer
from tests.index.test_embedders import _Server


class _Scripted(Exception):
    pass


def _run(script: list[Failure], **policy: Any) -> tuple[object, list[float], int]:
    waits: list[float] = []
    calls = [0]

    def call() -> str:
        calls[0] += 1
        if calls[0] <= len(script):
            raise _Scripted(script[calls[0] - 1])
        return "ok"

    def classify(exc: BaseException) -> Failure | None:
        return exc.args[0] if isinstance(exc, _Scripted) else None

    options: dict[str, Any] = {"max_retries": 3, "backoff_s": 0.5, "max_retry_after_s": 5.0}
    options.update(policy)
    try:
        result: object = call_with_retries(
            call, RetryPolicy(**options), classify, sleep=waits.append
        )
    except GaveUp as gave_up:
        result = (gave_up.why, gave_up.attempts)
    return result, waits, calls[0]


def test_the_policy() -> None:
    rl, tr = Failure("rate_limit", 1.5), Failure("transient")
    assert _run([rl, tr]) == ("ok", [1.5, 1.0], 3)  # Retry-After, then backoff 0.5 * 2**1
    assert _run([Failure("rate_limit", 10.0)]) == (("retry_after_too_long", 1), [], 1)
    assert _run([tr] * 9) == (("attempts", 4), [0.5, 1.0, 2.0], 4)
    assert _run([Failure("fatal")]) == (("fatal", 1), [], 1)
    assert _run([Failure("rate_limit")]) == (("retry_after_too_long", 1), [], 1)
    assert _run([Failure("rate_limit")], rate_limit_wait_s=2.0) == ("ok", [2.0], 2)
    soon = time.monotonic() + 1.0
    assert _run([Failure("rate_limit", 3.0)], deadline=soon)[0] == ("deadline", 1)


def test_an_unknown_exception_is_not_retried() -> None:
    def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        call_with_retries(boom, RetryPolicy(3, 0.1, 5.0), lambda e: None, sleep=lambda s: None)


FAULTS = [(429, {"Retry-After": "0.05"}), (503, {}), (429, {"retry-after-ms": "30"})]


def test_the_llm_and_the_embedder_wait_alike_on_the_same_faults() -> None:
    llm_waits: list[float] = []
    with ScriptedLLMServer() as server:
        server.enqueue(*(Reply.error(s, h) for s, h in FAULTS), "fine")
        settings = LLMSettings(
            base_url=server.base_url, max_retries=3, deadline_s=10.0, max_retry_after_s=5.0
        )
        with LLMClient(settings) as client:
            client._sleep = llm_waits.append
            assert client.complete_text([{"role": "user", "content": "hi"}]) == "fine"
    emb_waits: list[float] = []
    srv = _Server()
    srv.thread.start()
    try:
        srv.script = list(FAULTS)
        emb = OpenAIEmbedder(
            srv.url, "k", "m", dimension=8, max_retries=3, error_backoff_s=0.2,
            max_retry_after_s=5.0, sleep=emb_waits.append,
        )  # fmt: skip
        emb.embed_query("x")
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
    assert llm_waits == pytest.approx([0.05, 0.4, 0.03])
    assert emb_waits == pytest.approx(llm_waits)


def test_a_retry_after_above_the_limit_fails_fast_in_both() -> None:
    with ScriptedLLMServer() as server:
        server.enqueue(Reply.error(429, {"Retry-After": "600"}))
        settings = LLMSettings(base_url=server.base_url, max_retries=3, max_retry_after_s=5.0)
        with LLMClient(settings) as client, pytest.raises(LLMError) as info:
            client._sleep = pytest.fail
            client.complete_text([{"role": "user", "content": "hi"}])
        assert info.value.kind == "rate_limit"
    srv = _Server()
    srv.thread.start()
    try:
        srv.script = [(429, {"Retry-After": "600"})]
        emb = OpenAIEmbedder(
            srv.url, "k", "m", dimension=8, max_retries=3, max_retry_after_s=300.0,
            sleep=pytest.fail,
        )  # fmt: skip
        with pytest.raises(EmbeddingError, match="max_retry_after_s"):
            emb.embed_query("x")
        assert len(srv.calls) == 1  # it used to wait 300 s and ask again before 600 s
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
