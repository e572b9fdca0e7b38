"""Refuse a request body over the limit before it is read and parsed whole.

The message limit (`conversation.max_message_chars`) is checked once the JSON is parsed;
a 50 MB body was read and parsed first (0.7 s of a worker) only to be refused. This
middleware answers 413 from the Content-Length header, and stops a chunked body the
moment it passes the limit.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tellmemore.service.errors import ProblemError, render_problem


def body_too_large(limit: int) -> ProblemError:
    return ProblemError(
        413,
        "body-too-large",
        "Request body too large",
        f"the request body is over {limit} bytes. Send a shorter message or history, or "
        "raise service.max_body_bytes.",
        limit=limit,
    )


class BodyLimit:
    """ASGI middleware: 413 for a request body over `limit` bytes."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit():
            if int(declared) > self.limit:
                await self._refuse(scope, receive, send)
                return
            await self.app(scope, receive, send)  # the server holds it to its length
            return
        # No length declared (chunked): read it here, up to the limit, then hand it on.
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay(bytes(body), message, receive), send)
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(scope, receive, send)
                return
        await self.app(scope, _replay(bytes(body), None, receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = render_problem(scope, body_too_large(self.limit))
        await response(scope, receive, send)


def _replay(body: bytes, pending: Message | None, receive: Receive) -> Receive:
    """A `receive` that gives the body already read as one message, then whatever came
    after it (`pending`: a disconnect), then the real `receive`."""
    queue: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]
    if pending is not None:
        queue.append(pending)

    async def replayed() -> Message:
        return queue.pop(0) if queue else await receive()

    return replayed
