"""One client for every OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

Wraps the `openai` SDK (an optional dependency: `pip install 'tellmemore[llm]'`),
with the SDK's own retries off and the project's one retry policy instead
(`tellmemore.retries`, shared with the embeddings client), so that a
call never outlives `deadline_s`, nor the `deadline` a caller passes (a turn shares one
LLM budget between the resolver, the summary and the generator):

- 429: wait the server's Retry-After when it is at most `max_retry_after_s` (and
  fits the deadline), else fail at once with kind "rate_limit";
- 5xx and connection errors: short exponential backoff, at most `max_retries` times;
- timeout: not retried (a slow server stays slow), kind "timeout".

Every failure is an `LLMError` with a `kind` (timeout, rate_limit, server,
connection, client, bad_request, malformed, stream_cut, empty), so callers degrade
instead of crashing:

    client = LLMClient(LLMSettings(base_url="http://localhost:11434/v1", model="qwen2.5"))
    text = client.complete_text([{"role": "user", "content": "Say hi"}])
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

from tellmemore.config import LLMSettings
from tellmemore.errors import LLMError, MissingDependencyError
from tellmemore.retries import RATE_LIMIT, Failure, GaveUp, RetryPolicy, call_with_retries
from tellmemore.retry_after import retry_after_seconds

if TYPE_CHECKING:
    import openai

logger = logging.getLogger(__name__)

Message = Mapping[str, str]
M = TypeVar("M", bound=pydantic.BaseModel)
T = TypeVar("T")

BACKOFF_BASE_S = 0.2
"""First wait after a 5xx; doubles per attempt."""
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def _openai() -> Any:
    try:
        import openai
    except ImportError:
        raise MissingDependencyError("openai", "llm") from None
    return openai


class LLMClient:
    """An OpenAI-compatible chat endpoint with bounded retries and typed failures."""

    def __init__(self, settings: LLMSettings) -> None:
        if not settings.base_url:
            raise LLMError(
                "no LLM endpoint configured (llm.base_url is empty); set "
                "TELLMEMORE_LLM__BASE_URL, e.g. http://localhost:11434/v1",
                kind="config",
            )
        self.settings = settings
        self.model = settings.model
        self._sdk = _openai()
        self._client: openai.OpenAI = self._sdk.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "not-needed",
            timeout=settings.timeout_s,
            max_retries=0,
        )
        self._sleep: Callable[[float], None] = time.sleep
        self._json_schema_ok = True
        """Cleared when the server rejects `response_format=json_schema` (llama.cpp, old vLLM)."""

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- public calls ------------------------------------------------------------------

    def complete_text(self, messages: Sequence[Message], *, deadline: float | None = None) -> str:
        """The assistant's reply as text; LLMError(kind="empty") when there is none.

        `deadline` (a `time.monotonic()` instant) ends the call earlier than `deadline_s`."""
        resp = self._with_retries(
            lambda timeout: self._create(messages, timeout=timeout), deadline=deadline
        )
        return _content(resp)

    def complete_json(
        self, messages: Sequence[Message], schema: type[M], *, deadline: float | None = None
    ) -> M:
        """A reply validated against `schema`; LLMError(kind="malformed") when it is not."""
        fmt: dict[str, Any]
        if self._json_schema_ok:
            fmt = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema.__name__,
                    "schema": schema.model_json_schema(),
                    "strict": False,
                },
            }
        else:
            fmt = {"type": "json_object"}
        try:
            resp = self._with_retries(
                lambda timeout: self._create(messages, timeout=timeout, response_format=fmt),
                deadline=deadline,
            )
        except LLMError as exc:
            if exc.kind != "bad_request" or not self._json_schema_ok:
                raise
            logger.info("endpoint rejected json_schema output (%s); using json_object", exc)
            self._json_schema_ok = False
            return self.complete_json(messages, schema, deadline=deadline)
        return parse_json(_content(resp), schema)

    def stream_text(
        self, messages: Sequence[Message], *, deadline: float | None = None
    ) -> Iterator[str]:
        """The reply in pieces as they arrive; a stream that ends without a finish reason
        raises LLMError(kind="stream_cut") after the pieces already yielded, one still
        running at `deadline` LLMError(kind="timeout")."""
        stream = self._with_retries(
            lambda timeout: self._create(messages, timeout=timeout, stream=True),
            deadline=deadline,
        )
        finished = False
        got_any = False
        try:
            for chunk in stream:
                if deadline is not None and time.monotonic() > deadline:
                    raise LLMError(
                        f"stream from {self.settings.base_url} still running at the turn's "
                        f"deadline (llm.deadline_s = {self.settings.deadline_s}s)",
                        kind="timeout",
                    )
                for choice in chunk.choices:
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        got_any = True
                        yield piece
                    if choice.finish_reason:
                        finished = True
        except LLMError:
            raise
        except self._sdk.APITimeoutError:
            raise LLMError(
                f"stream from {self.settings.base_url} stalled past {self.settings.timeout_s}s",
                kind="timeout",
            ) from None
        except Exception as exc:
            raise LLMError(
                f"stream from {self.settings.base_url} was cut: {exc}", kind="stream_cut"
            ) from exc
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        if not finished:
            raise LLMError(
                f"stream from {self.settings.base_url} ended without a finish reason",
                kind="stream_cut",
            )
        if not got_any:
            raise LLMError(f"{self.settings.base_url} streamed an empty reply", kind="empty")

    # --- plumbing ----------------------------------------------------------------------

    def _create(self, messages: Sequence[Message], *, timeout: float, **extra: Any) -> Any:
        return self._client.chat.completions.create(
            model=self.model,
            messages=[dict(m) for m in messages],  # type: ignore[misc]
            temperature=self.settings.temperature,
            timeout=timeout,
            **extra,
        )

    def _with_retries(self, call: Callable[[float], T], *, deadline: float | None = None) -> T:
        """`call(timeout)` under the shared retry policy (`tellmemore.retries`), bounded by
        llm.deadline_s and the caller's `deadline`; every failure becomes an LLMError."""
        s = self.settings
        sdk = self._sdk
        own = time.monotonic() + s.deadline_s
        deadline = own if deadline is None else min(own, deadline)
        timeouts: list[float] = []

        def attempt() -> T:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _DeadlinePassed
            timeouts.append(min(s.timeout_s, remaining))
            return call(timeouts[-1])

        def classify(exc: BaseException) -> Failure | None:
            if isinstance(exc, _DeadlinePassed | sdk.APITimeoutError):
                return Failure("fatal")  # a slow server stays slow
            if isinstance(exc, sdk.RateLimitError):
                return Failure(RATE_LIMIT, retry_after_seconds(exc.response.headers))
            if isinstance(exc, sdk.InternalServerError | sdk.APIConnectionError):
                return Failure("transient")
            if isinstance(exc, sdk.APIStatusError):
                return Failure("fatal")
            return None

        policy = RetryPolicy(
            max_retries=s.max_retries,
            backoff_s=BACKOFF_BASE_S,
            max_retry_after_s=s.max_retry_after_s,
            rate_limit_wait_s=None,  # no Retry-After: a turn does not guess, it degrades
            deadline=deadline,
        )
        try:
            return call_with_retries(attempt, policy, classify, sleep=self._sleep)
        except GaveUp as gave_up:
            raise self._error(gave_up, timeouts) from None

    def _error(self, gave_up: GaveUp, timeouts: list[float]) -> LLMError:
        s = self.settings
        sdk = self._sdk
        exc = gave_up.error
        if isinstance(exc, _DeadlinePassed):
            return LLMError(
                f"LLM call to {s.base_url} exceeded its deadline of {s.deadline_s}s",
                kind="timeout",
            )
        if isinstance(exc, sdk.APITimeoutError):
            took = timeouts[-1] if timeouts else s.timeout_s
            return LLMError(
                f"LLM call to {s.base_url} timed out after {took:.1f}s (llm.timeout_s)",
                kind="timeout",
            )
        if isinstance(exc, sdk.RateLimitError):
            wait = gave_up.failure.retry_after
            if gave_up.why == "deadline":
                return LLMError(
                    f"rate limited by {s.base_url}; Retry-After {wait}s passes the "
                    f"deadline of {s.deadline_s}s",
                    kind="rate_limit",
                )
            return LLMError(
                f"rate limited by {s.base_url} (Retry-After: {wait}); "
                f"waits above {s.max_retry_after_s}s (llm.max_retry_after_s) fail fast",
                kind="rate_limit",
            )
        if isinstance(exc, sdk.InternalServerError | sdk.APIConnectionError):
            kind = "server" if isinstance(exc, sdk.APIStatusError) else "connection"
            return LLMError(
                f"LLM endpoint {s.base_url} failed after {gave_up.attempts} attempts: {exc}",
                kind=kind,
            )
        status = exc.status_code if isinstance(exc, sdk.APIStatusError) else 0
        message = exc.message if isinstance(exc, sdk.APIStatusError) else str(exc)
        return LLMError(
            f"LLM endpoint {s.base_url} refused the request (HTTP {status}): {message}",
            kind=_status_kind(status),
        )


class _DeadlinePassed(Exception):
    """The turn's LLM budget is spent before an attempt could start."""


def _status_kind(status: int) -> str:
    """400/422 may mean an unsupported parameter (json_schema); other 4xx will not heal."""
    if status >= 500:
        return "server"
    return "bad_request" if status in (400, 422) else "client"


def _content(resp: Any) -> str:
    try:
        text = resp.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        text = None
    if not text or not text.strip():
        raise LLMError("the LLM returned an empty reply", kind="empty")
    return str(text)


def parse_json(text: str, schema: type[M]) -> M:
    """Validate a JSON reply (code fences tolerated) against `schema`."""
    m = _FENCE.match(text)
    raw = m.group(1) if m else text
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LLMError(
            f"the LLM reply is not valid JSON ({exc.msg} at {exc.pos}): {text[:200]!r}",
            kind="malformed",
        ) from None
    try:
        return schema.model_validate(data)
    except pydantic.ValidationError as exc:
        raise LLMError(
            f"the LLM reply does not match {schema.__name__}: {exc.errors(include_url=False)[:3]}",
            kind="malformed",
        ) from None
