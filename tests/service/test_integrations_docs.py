"""docs/integrations.md cannot drift: every snippet on it marked `<!-- snippet: NAME -->` is
run here against a real uvicorn server on loopback (the sample corpus, the real MiniLM)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import openai
import pytest
from mcp import ClientSession

from .mcp_clients import call, http, stdio
from .servers import REPO

pytestmark = pytest.mark.model

DOC = REPO / "docs" / "integrations.md"
DOC_BASE = "http://127.0.0.1:8000"
_SNIPPET = re.compile(r"<!-- snippet: ([\w-]+) -->\n```(\w+)\n(.*?)\n```", re.S)


def snippets() -> dict[str, str]:
    found = {name: code for name, _, code in _SNIPPET.findall(DOC.read_text(encoding="utf-8"))}
    assert found, "no snippets found in docs/integrations.md"
    return found


def run_python(code: str, base: str) -> str:
    """Run a Python snippet with the docs' server address swapped for the test server's."""
    assert DOC_BASE in code
    out = io.StringIO()
    namespace: dict[str, object] = {}
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace(DOC_BASE, base), "<snippet>", "exec"), namespace)
    finally:  # the snippet's clients are closed here, not left to the GC
        for value in namespace.values():
            if isinstance(value, openai.OpenAI):
                value.close()
    return out.getvalue()


def test_every_snippet_is_tested() -> None:
    tested = {"openai-sdk", "openai-stream", "open-webui"}
    tested |= {"claude-desktop", "mcp-http-config", "mcp-inspector", "mcp-sdk"}
    assert set(snippets()) == tested, "a new snippet in docs/integrations.md: test it here"


def test_the_openai_sdk_snippets_answer_with_sources(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    base = live_server(sample_project)
    printed = run_python(snippets()["openai-sdk"], base)
    assert "\n**Sources**\n1. [Cloud Connect escalation › Enterprise tier]" in printed
    assert "Searching for: does Enterprise escalation on Cloud Connect cover weekends?" in printed
    assert "Answering about: Enterprise escalation" in printed
    streamed = run_python(snippets()["openai-stream"], base)
    assert "**Sources**" in streamed and "Pro" in streamed
    trace_id = re.search(r"trace: (\w+)", streamed)
    assert trace_id, streamed
    assert httpx.get(f"{base}/v1/traces/{trace_id.group(1)}").status_code == 200


def test_open_webui_is_served_as_it_asks(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    """What Open WebUI does with the snippet's settings: list the models, then stream a chat
    with its own system prompt in front."""
    env = dict(re.findall(r"-e (OPENAI_API_\w+)=(\S+)", snippets()["open-webui"]))
    base = live_server(sample_project)
    url = env["OPENAI_API_BASE_URL"].replace("http://host.docker.internal:8000", base)
    headers = {"Authorization": f"Bearer {env['OPENAI_API_KEY']}"}
    models = httpx.get(f"{url}/models", headers=headers).json()
    assert [m["id"] for m in models["data"]] == ["tellmemore"]
    body = {
        "model": models["data"][0]["id"],
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "what escalation options do we have on cloud connect"},
        ],
    }
    with httpx.stream(
        "POST", f"{url}/chat/completions", json=body, headers=headers, timeout=60
    ) as r:
        assert r.status_code == 200
        data = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert "Enterprise" in text and "**Sources**" in text


DOC_PROJECT = "/srv/tellmemore"


def test_the_claude_desktop_and_inspector_commands_serve_mcp(sample_project: Path) -> None:
    """Both snippets start the same stdio server; it is started once, as they write it."""
    server = json.loads(snippets()["claude-desktop"])["mcpServers"]["tellmemore"]
    inspector = snippets()["mcp-inspector"].split("@modelcontextprotocol/inspector ", 1)[1]
    assert inspector.split() == [server["command"], *server["args"]]
    assert server["command"] == "tellmemore" and server["args"][:1] == ["mcp"]
    args = [str(sample_project) if a == DOC_PROJECT else a for a in server["args"][1:]]
    assert str(sample_project) in args

    async def ask() -> dict:  # type: ignore[type-arg]
        async with (
            stdio(sample_project, *args[2:]) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await call(session, "ask", message="How much is the Pro plan?")

    answer = anyio.run(ask)
    assert answer["citations"] and "Pro" in answer["answer"]


def test_the_http_mcp_snippets_connect_with_the_key(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    base = live_server(sample_project)
    server = json.loads(snippets()["mcp-http-config"])["mcpServers"]["tellmemore"]
    assert server["type"] == "http" and server["url"] == f"{DOC_BASE}/mcp"
    key = server["headers"]["Authorization"].removeprefix("Bearer ")

    async def search() -> dict:  # type: ignore[type-arg]
        async with http(base, key) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await call(session, "search", query="enterprise escalation", k=2)

    assert anyio.run(search)["hits"][0]["doc"] == "cloud-connect/escalation.md"
    printed = run_python(snippets()["mcp-sdk"], base)
    assert "Searching for: does Enterprise escalation on Cloud Connect cover weekends?" in printed
    assert "weekends" in printed.split("Searching for:", 1)[1].split("\n", 1)[1]
