"""The HTTP service: `create_app(settings)` builds the FastAPI app; routes only translate.

>>> from tellmemore.config import Settings                     # doctest: +SKIP
>>> app = create_app(Settings.load(".tellmemore"))             # doctest: +SKIP
>>> # uvicorn.run(app, host="127.0.0.1", port=8000)

With several uvicorn workers each process builds its own app through the
factory `tellmemore.service.app:app_from_env` (uvicorn needs an import string
then); the project directory reaches the workers as `TELLMEMORE_PROJECT_DIR`,
which `Settings.load()` reads like any other setting.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.errors import ConfigError
from tellmemore.service import errors, openai_wire
from tellmemore.service.body_limit import BodyLimit
from tellmemore.service.routes import ROUTERS, completions
from tellmemore.service.schemas import PROBLEM_RESPONSES
from tellmemore.types import API_VERSION

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"


def check_service_settings(settings: Settings) -> None:
    """Every API key must name a tenant: a key with an empty tenant would search them all."""
    for key, tenant in settings.service.api_keys.items():
        if not key.strip():
            raise ConfigError("service.api_keys has an empty key; remove it or give it a value")
        if not tenant.strip():
            raise ConfigError(
                f"service.api_keys: the key ending in {key[-4:]!r} is bound to an empty tenant; "
                "bind every key to a tenant name (documents are ingested with --tenant NAME)"
            )


def warm_up(assistant: Assistant) -> None:
    """Open state.db and the index once, before the first request needs them (and before
    several threads race to build them). The query encoder (ONNX Runtime, ~0.3 s) loads on
    the first request that searches: a server that only starts imports no model runtime."""
    _ = assistant.runner


def create_app(
    settings: Settings, *, assistant: Assistant | None = None, warm: bool = True
) -> FastAPI:
    """The app. Pass `assistant` to share one already open (tests, embedding in a program);
    otherwise the app opens the project of `settings` and closes it on shutdown."""
    check_service_settings(settings)
    owned = assistant is None
    the_assistant = assistant if assistant is not None else Assistant(settings)

    mcp_running = None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm:
            await run_in_threadpool(warm_up, the_assistant)
        async with AsyncExitStack() as stack:
            if mcp_running is not None:
                await stack.enter_async_context(mcp_running())
            yield
        if owned:
            the_assistant.close()

    app = FastAPI(
        title="tellmemore",
        version=API_VERSION,
        summary="Conversational RAG whose retrieval survives follow-up turns.",
        description="Answers with citations, the query that was searched, and a trace id. "
        "See docs/service.md for the SSE event format, errors and API keys.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.assistant = the_assistant
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router, responses=PROBLEM_RESPONSES)
    app.include_router(completions.router, responses=completions.ERROR_RESPONSES)
    errors.add_dialect(app, completions.PATHS, openai_wire.error_response)
    mcp_running = _mount_mcp(app, the_assistant, settings)
    app.add_middleware(BodyLimit, limit=settings.service.max_body_bytes)
    if settings.service.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.service.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "X-API-Key", "Content-Type"],
        )

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _mount_mcp(app: FastAPI, assistant: Assistant, settings: Settings) -> Any:
    """The MCP server at /mcp when the `mcp` package is installed (the service extra has it)."""
    try:
        from tellmemore.service import mcp_server
    except ImportError:  # pragma: no cover - an install without the mcp package
        log.warning("the mcp package is not installed: no MCP server at /mcp")
        return None
    return mcp_server.mount(app, assistant, settings)


def app_from_env() -> FastAPI:
    """Factory for `uvicorn --factory` and multi-worker serving: settings from the
    environment (`TELLMEMORE_PROJECT_DIR`, `TELLMEMORE_CONFIG`, ...) and tellmemore.toml."""
    return create_app(Settings.load())
