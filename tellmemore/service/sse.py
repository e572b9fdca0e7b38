"""An AnswerStream as server-sent events.

The turn pipeline is synchronous (SQLite, NumPy, torch), so each step of its
generator runs in the threadpool and the event loop stays free for other
requests. Events go out in the order the turn produces them: `resolution`
(what is searched, before retrieval finishes), `citations`, `delta` (answer
text), and `done` (the full Answer, after the trace is stored). A failure
mid-stream ends the stream with one `error` event holding a problem detail.

A reader that goes away mid-turn (a closed tab, a client timeout) does not cancel the
turn: it runs to its end in a background thread, unseen, so its trace and the session's
turns are written and the next follow-up still has its context.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import iterate_in_threadpool

from tellmemore.answer.stream import AnswerStream
from tellmemore.service.errors import problem_body, problem_from_exception

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
logger = logging.getLogger(__name__)


def format_event(name: str, data: dict[str, Any]) -> str:
    """One SSE frame. JSON has no raw newlines, so `data` is always a single line."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def sse_events(stream: AnswerStream, *, instance: str | None = None) -> AsyncIterator[str]:
    ended = False
    try:
        async for event in iterate_in_threadpool(iter(stream)):
            yield format_event(event.name, event.to_dict())
        ended = True
    except Exception as exc:  # the response has started: report in-band, then stop
        ended = True
        p = problem_from_exception(exc)
        body = problem_body(p.status, p.slug, p.title, p.detail, instance, **p.extensions)
        yield format_event("error", body)
    finally:
        if not ended:  # the reader went away (cancelled, or closed at a yield)
            finish_unread(stream)


def finish_unread(stream: AnswerStream) -> None:
    """Run the rest of a turn nobody reads any more in a thread of its own: the event
    loop must not wait for an LLM, and the turn must still be stored. No step of the turn
    is running now: a thread-pool step is waited for before a cancellation lands."""

    def finish() -> None:
        try:
            stream.result()
        except Exception:
            logger.exception("a turn whose reader went away failed")

    threading.Thread(target=finish, name="tellmemore-unread-turn", daemon=True).start()
