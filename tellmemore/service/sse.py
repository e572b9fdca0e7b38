"""An AnswerStream as server-sent events.

The turn pipeline is synchronous (SQLite, NumPy, torch), so each step of its
generator runs in the threadpool and the event loop stays free for other
requests. Events go out in the order the turn produces them: `resolution`
(what is searched, before retrieval finishes), `citations`, `delta` (answer
text), and `done` (the full Answer, after the trace is stored). A failure
mid-stream ends the stream with one `error` event holding a problem detail.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import iterate_in_threadpool

from tellmemore.answer.stream import AnswerStream
from tellmemore.service.errors import problem_body, problem_from_exception

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def format_event(name: str, data: dict[str, Any]) -> str:
    """One SSE frame. JSON has no raw newlines, so `data` is always a single line."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def sse_events(stream: AnswerStream, *, instance: str | None = None) -> AsyncIterator[str]:
    try:
        async for event in iterate_in_threadpool(iter(stream)):
            yield format_event(event.name, event.to_dict())
    except Exception as exc:  # the response has started: report in-band, then stop
        p = problem_from_exception(exc)
        body = problem_body(p.status, p.slug, p.title, p.detail, instance, **p.extensions)
        yield format_event("error", body)
