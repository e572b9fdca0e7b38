"""`tellmemore mcp`: the MCP server over stdio, for Claude Desktop, the MCP inspector and
other MCP clients that start their servers as a command."""

from __future__ import annotations

from typing import Annotated

import typer

from tellmemore.cli.common import ProjectOpt


def mcp_command(
    tenant: Annotated[
        str,
        typer.Option(
            "--tenant",
            help="Serve only this tenant's documents and sessions (default: every tenant).",
        ),
    ] = "",
    allow_ingest: Annotated[
        bool,
        typer.Option(
            "--allow-ingest",
            help="Offer the ingest tool (it reads this machine's disk; off by default).",
        ),
    ] = False,
    project: ProjectOpt = None,
) -> None:
    """Serve the MCP tools (search, ask, get_trace, feedback) and the documents over stdio.
    `serve` offers the same server over HTTP at /mcp."""
    try:
        from tellmemore.service.deps import Caller
        from tellmemore.service.mcp_server import build_mcp_server
    except ImportError as exc:  # pragma: no cover - the service extra is missing
        from tellmemore.errors import MissingDependencyError

        raise MissingDependencyError(exc.name or "mcp", "service") from exc
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings
    from tellmemore.service.app import warm_up

    settings = Settings.load(project) if project is not None else Settings.load()
    if allow_ingest:
        service = settings.service.model_copy(update={"mcp_ingest": True})
        settings = settings.model_copy(update={"service": service})
    caller = Caller(tenant=tenant, scoped=bool(tenant))
    assistant = Assistant(settings)
    try:
        warm_up(assistant)  # stdout carries the protocol: nothing else is printed there
        build_mcp_server(assistant, settings, default_caller=caller).run("stdio")
    finally:
        assistant.close()
