"""`tellmemore serve`: the HTTP API and the web chat, with uvicorn."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from tellmemore.cli.common import ProjectOpt, console

APP_FACTORY = "tellmemore.service.app:app_from_env"


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on.", min=0, max=65535)
    ] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", help="Worker processes (they share state.db safely).", min=1, max=64
        ),
    ] = 1,
    log_level: Annotated[
        str, typer.Option("--log-level", help="uvicorn log level (info, warning, ...).")
    ] = "info",
    project: ProjectOpt = None,
) -> None:
    """Serve the /v1 API (OpenAPI at /docs), the web chat at / and the MCP server at /mcp."""
    try:
        import uvicorn

        from tellmemore.config import Settings
        from tellmemore.service.app import create_app
    except ImportError as exc:  # pragma: no cover - the service extra is missing
        from tellmemore.errors import MissingDependencyError

        raise MissingDependencyError(exc.name or "fastapi", "service") from exc

    if project is not None:
        # The edge hands the project to the worker processes, which build their own app.
        os.environ["TELLMEMORE_PROJECT_DIR"] = str(project.resolve())
    settings = Settings.load()
    app = create_app(settings)  # validates the settings here, with a readable error
    where = f"http://{host}:{port}"
    console.print(
        f"[bold]tellmemore[/] serving {settings.project_dir} on {where} "
        f"(chat at {where}/, API docs at {where}/docs, MCP at {where}/mcp, {workers} worker(s))"
    )
    if workers == 1:
        uvicorn.run(app, host=host, port=port, log_level=log_level)
    else:
        uvicorn.run(
            APP_FACTORY, factory=True, host=host, port=port, workers=workers, log_level=log_level
        )
