"""The official `mcp` SDK's client transports, pointed at tellmemore: `tellmemore mcp` as a
stdio subprocess, or `/mcp` of a served app with an API key."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from .servers import REPO


def stdio(project: Path, *args: str) -> AbstractAsyncContextManager[Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELLMEMORE_")}
    env.update(
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        TELLMEMORE_CONFIG=str(project.parent / "no-such-tellmemore.toml"),
    )
    cmd = ["-m", "tellmemore", "mcp", "--project", str(project), *args]
    params = StdioServerParameters(command=sys.executable, args=cmd, env=env, cwd=REPO)
    return stdio_client(params, errlog=sys.stderr)


@asynccontextmanager
async def http(base: str, key: str | None = None) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP transport, with the API key on every request."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    timeout = httpx2.Timeout(30, read=300)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
        streamable_http_client(f"{base}/mcp", http_client=client) as streams,
    ):
        yield streams


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return dict(result.structured_content)
