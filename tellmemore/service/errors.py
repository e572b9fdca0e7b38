"""Every error the service returns is an RFC 9457 problem detail, translated here in one place.

A problem is `application/problem+json`: `{type, title, status, detail, instance}` plus
extension members where they help a client act (`limit` and `length` for a message that
is too long, `errors` for a malformed request body). The `type` URIs are stable names a
client can switch on; they are listed in docs/service.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from tellmemore.errors import (
    ConfigError,
    EmbeddingError,
    IndexError_,
    InputError,
    LLMError,
    NotFoundError,
    TellMeMoreError,
)

log = logging.getLogger(__name__)

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:tellmemore:problem:"


class ProblemError(Exception):
    """An error the service raises itself, already carrying its HTTP status and type."""

    def __init__(
        self,
        status: int,
        slug: str | None,
        title: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        **extensions: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.headers = headers or {}
        self.extensions = extensions


def message_too_long(length: int, limit: int) -> ProblemError:
    return ProblemError(
        413,
        "message-too-long",
        "Message too long",
        f"the message is {length} characters long; the limit is {limit}. "
        "Shorten it or split it into several messages.",
        limit=limit,
        length=length,
    )


def empty_message(field: str = "message") -> ProblemError:
    return ProblemError(
        422,
        "empty-message",
        "Empty message",
        f"the {field} is empty; type a question.",
    )


def unauthorized(detail: str) -> ProblemError:
    return ProblemError(
        401,
        "unauthorized",
        "Missing or bad API key",
        detail,
        headers={"WWW-Authenticate": 'Bearer realm="tellmemore"'},
    )


def not_found(what: str, key: str) -> ProblemError:
    return ProblemError(
        404,
        f"unknown-{what}",
        f"Unknown {what}",
        f"unknown {what}: {key!r}. It does not exist or belongs to another tenant.",
    )


def problem_body(
    status: int,
    slug: str | None,
    title: str,
    detail: str,
    instance: str | None = None,
    **extensions: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": f"{TYPE_PREFIX}{slug}" if slug else "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    body.update(extensions)
    return body


def problem_response(
    status: int,
    slug: str | None,
    title: str,
    detail: str,
    *,
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    **extensions: Any,
) -> JSONResponse:
    return JSONResponse(
        problem_body(status, slug, title, detail, instance, **extensions),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )


# Domain error -> (status, slug, title). Checked in order: the first isinstance wins.
_DOMAIN: tuple[tuple[type[TellMeMoreError], int, str, str], ...] = (
    (InputError, 422, "invalid-input", "Invalid input"),
    (LLMError, 502, "llm-unavailable", "The language model failed"),
    (EmbeddingError, 503, "embedder-unavailable", "The embedder failed"),
    (IndexError_, 503, "index-unavailable", "The index is unavailable"),
    (ConfigError, 500, "configuration", "The service is misconfigured"),
)


def problem_from_exception(exc: BaseException) -> ProblemError:
    """The problem for any exception: service problems as they are, domain errors mapped."""
    if isinstance(exc, ProblemError):
        return exc
    if isinstance(exc, NotFoundError):
        return not_found(exc.what, exc.key)
    for cls, status, slug, title in _DOMAIN:
        if isinstance(exc, cls):
            return ProblemError(status, slug, title, str(exc))
    if isinstance(exc, TellMeMoreError):
        return ProblemError(500, "internal", "Internal error", str(exc))
    log.exception("unexpected error in the service", exc_info=exc)
    return ProblemError(
        500, "internal", "Internal error", "an unexpected error occurred; see the server log"
    )


ProblemRenderer = Callable[[ProblemError, str], Response]
"""Renders a problem in another wire format (OpenAI's error body on the OpenAI routes)."""


def add_dialect(app: FastAPI, paths: tuple[str, ...], render: ProblemRenderer) -> None:
    """Errors on `paths` (and below them) are rendered by `render` instead of problem+json."""
    dialects = list(getattr(app.state, "problem_dialects", ()))
    dialects.append((paths, render))
    app.state.problem_dialects = dialects


def render_problem(scope: Scope, p: ProblemError) -> Response:
    """The response for a problem on the request of `scope`: the route's dialect, or
    problem+json. Also used by middleware, which runs outside the exception handlers."""
    path = scope.get("path") or ""
    state = getattr(scope.get("app"), "state", None)
    dialects: list[tuple[tuple[str, ...], ProblemRenderer]] = getattr(state, "problem_dialects", [])
    for paths, render in dialects:
        if any(path == q or path.startswith(q + "/") for q in paths):
            return render(p, path)
    return problem_response(
        p.status,
        p.slug,
        p.title,
        p.detail,
        instance=path or None,
        headers=p.headers,
        **p.extensions,
    )


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into problem+json (or a route's dialect)."""

    async def on_problem(request: Request, exc: Exception) -> Response:
        return render_problem(request.scope, problem_from_exception(exc))

    async def on_validation(request: Request, exc: Exception) -> Response:
        errors = exc.errors() if isinstance(exc, RequestValidationError) else []
        clean = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in errors
        ]
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in clean)
        detail = f"the request body does not match the schema: {where}" if where else str(exc)
        p = ProblemError(422, "invalid-request", "Invalid request", detail, errors=clean)
        return render_problem(request.scope, p)

    async def on_http(request: Request, exc: Exception) -> Response:
        if isinstance(exc.__cause__, UnicodeDecodeError):  # FastAPI's 400 "error parsing"
            p = ProblemError(
                422,
                "invalid-request",
                "Invalid request",
                "the request body is not valid UTF-8; JSON must be sent as UTF-8",
                errors=[{"loc": ["body"], "msg": "not valid UTF-8", "type": "json_invalid"}],
            )
            return render_problem(request.scope, p)
        status = exc.status_code if isinstance(exc, StarletteHTTPException) else 500
        detail = exc.detail if isinstance(exc, StarletteHTTPException) else str(exc)
        headers = getattr(exc, "headers", None)
        title = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
        p = ProblemError(status, None, title, str(detail), headers=headers)
        return render_problem(request.scope, p)

    app.add_exception_handler(ProblemError, on_problem)
    app.add_exception_handler(TellMeMoreError, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_problem)
