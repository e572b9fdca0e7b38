"""The one retry policy of every remote call (the LLM client and the embeddings client).

Both used to carry a retry loop of their own, with different answers to a 429. Now both
run `call_with_retries` (tenacity underneath), with the SDK's own retries off:

- a rate limit (429) waits the server's Retry-After (`retry-after-ms`, seconds or an HTTP
  date; `retry_after.retry_after_seconds`), or `rate_limit_wait_s` when the server names
  none; a wait longer than `max_retry_after_s`, or past the deadline, fails at once (kind
  "rate_limit") instead of retrying before the server allows it (or `rate_limit_wait_s`
  None: a 429 without Retry-After fails at once too);
- a transient failure (5xx, a refused connection; a timeout when `retry_timeouts`) backs
  off `backoff_s * 2**attempt`, cut at the deadline;
- anything else fails at once;
- at most `max_retries` retries, and no wait crosses `deadline` (a `time.monotonic()`
  instant).

Callers map the last failure to their own error (`LLMError`, `EmbeddingError`) with
`classify`, which says what a failure is: `Failure(kind, retry_after=...)`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import RetryCallState, Retrying

T = TypeVar("T")

RATE_LIMIT = "rate_limit"


@dataclass(frozen=True)
class Failure:
    """What went wrong: `kind` "rate_limit", "transient" or "fatal" (not retried), and the
    server's Retry-After in seconds (None: not given)."""

    kind: str
    retry_after: float | None = None


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    backoff_s: float
    max_retry_after_s: float
    rate_limit_wait_s: float | None = None
    deadline: float | None = None


class GaveUp(Exception):
    """Raised by `call_with_retries` around the last failure: `why` says why it stopped
    ("fatal", "attempts", "retry_after_too_long", "deadline")."""

    def __init__(self, error: BaseException, failure: Failure, why: str, attempts: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.failure = failure
        self.why = why
        self.attempts = attempts


def _wait(policy: RetryPolicy, failure: Failure, attempt: int) -> tuple[float | None, str]:
    """Seconds to wait before the next attempt, or (None, why not)."""
    if failure.kind == RATE_LIMIT:
        wait = failure.retry_after if failure.retry_after is not None else policy.rate_limit_wait_s
        if wait is None or wait > policy.max_retry_after_s:
            return None, "retry_after_too_long"
        if policy.deadline is not None and time.monotonic() + wait >= policy.deadline:
            return None, "deadline"
        return wait, ""
    wait = policy.backoff_s * 2**attempt
    if policy.deadline is not None:
        wait = max(0.0, min(wait, policy.deadline - time.monotonic()))
    return wait, ""


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    classify: Callable[[BaseException], Failure | None],
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[int, float, BaseException], None] | None = None,
) -> T:
    """`call()` under `policy`; GaveUp wraps the failure that ended it. An exception that
    `classify` does not know (None) propagates unchanged."""
    verdicts: dict[int, tuple[Failure, float | None, str]] = {}

    def judge(exc: BaseException, attempt: int) -> tuple[Failure, float | None, str] | None:
        failure = classify(exc)
        if failure is None:
            return None
        if failure.kind == "fatal":
            return failure, None, "fatal"
        if attempt > policy.max_retries:
            return failure, None, "attempts"
        wait, why = _wait(policy, failure, attempt - 1)
        return failure, wait, why

    def retry(state: RetryCallState) -> bool:
        outcome = state.outcome
        if outcome is None or not outcome.failed:
            return False
        exc = outcome.exception()
        if exc is None:  # a failed outcome always holds its exception
            return False
        verdict = judge(exc, state.attempt_number)
        if verdict is None:
            return False
        verdicts[state.attempt_number] = verdict
        return verdict[1] is not None

    def wait(state: RetryCallState) -> float:
        return verdicts[state.attempt_number][1] or 0.0

    def before_sleep(state: RetryCallState) -> None:
        if on_retry is not None and state.outcome is not None:
            exc = state.outcome.exception()
            if exc is not None:
                on_retry(state.attempt_number, wait(state), exc)

    retrying = Retrying(
        retry=retry, wait=wait, sleep=sleep, before_sleep=before_sleep, reraise=True
    )
    try:
        return retrying(call)
    except BaseException as exc:
        attempts = retrying.statistics.get("attempt_number", 1)
        verdict = verdicts.get(attempts)
        if verdict is None:
            raise
        failure, _, why = verdict
        raise GaveUp(exc, failure, why, attempts) from exc
