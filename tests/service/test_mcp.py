"""The MCP server driven by the official `mcp` SDK client, over stdio (`tellmemore mcp` as a
subprocess) and over streamable HTTP (`/mcp` on a real uvicorn server), on the sample
corpus with the real MiniLM."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession

from tellmemore.assistant import Assistant
from tellmemore.config import Settings

from .conftest import KEYS
from .mcp_clients import call, http, stdio

pytestmark = pytest.mark.model

FIRST = "what escalation options do we have on cloud connect"
FOLLOW_UP = "does the enterprise one cover weekends?"
TOOLS = {"search", "ask", "get_trace", "feedback"}


async def play(transport: AbstractAsyncContextManager[Any]) -> dict[str, Any]:
    """One MCP session: list the tools, search, ask twice (the second a follow-up), read
    the trace, rate it, and read the documents as resources."""
    seen: dict[str, Any] = {}
    async with transport as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        seen["tools"] = tools
        seen["search"] = await call(session, "search", query="enterprise escalation weekends", k=3)
        first = await call(session, "ask", message=FIRST)
        second = await call(session, "ask", message=FOLLOW_UP, session_id=first["session_id"])
        seen["first"], seen["second"] = first, second
        trace = await call(session, "get_trace", trace_id=second["trace_id"])
        seen["trace"] = trace
        seen["feedback"] = await call(session, "feedback", trace_id=second["trace_id"], rating="up")
        seen["resources"] = [str(r.uri) for r in (await session.list_resources()).resources]
        listing = await session.read_resource("tellmemore://documents")
        seen["listing"] = json.loads(listing.contents[0].text)
        doc = await session.read_resource("tellmemore://documents/cloud-connect/escalation.md")
        seen["document"] = doc.contents[0].text
        bad = await session.call_tool("ask", {"message": FOLLOW_UP, "session_id": "nope"})
        seen["unknown_session"] = (bad.is_error, bad.content[0].text)
    return seen


def check(seen: dict[str, Any]) -> None:
    tools = seen["tools"]
    assert set(tools) == TOOLS, "ingest is off unless enabled"
    for tool in tools.values():
        assert len(tool.description or "") > 40, f"{tool.name} needs a description"
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.output_schema, f"{tool.name} returns structured content"
    assert tools["ask"].input_schema["required"] == ["message"]
    assert "session_id" in tools["ask"].input_schema["properties"]
    assert tools["search"].input_schema["properties"]["k"]["maximum"] == 50
    hits = seen["search"]["hits"]
    assert len(hits) == 3
    assert {"id", "doc", "title", "section", "text"} <= set(hits[0])
    assert hits[0]["doc"] == "cloud-connect/escalation.md"
    second = seen["second"]
    assert second["session_id"] == seen["first"]["session_id"], "the session persists"
    assert "Enterprise escalation" in second["standalone_query"]
    assert second["answering_about"] and "Enterprise" in second["answering_about"]
    assert second["bindings"]
    assert second["citations"][0]["section"] == ["Enterprise tier"]
    assert "weekends" in second["answer"]
    assert seen["trace"]["resolution"]["query"] == second["standalone_query"]
    assert seen["feedback"]["rating"] == "up"
    assert "tellmemore://documents" in seen["resources"]
    assert "tellmemore://documents/cloud-connect/escalation.md" in seen["resources"]
    docs = {d["doc"]: d for d in seen["listing"]["documents"]}
    assert docs["cloud-connect/escalation.md"]["title"] == "Cloud Connect escalation"
    assert "## Enterprise tier" in seen["document"]
    is_error, text = seen["unknown_session"]
    assert is_error and "unknown session" in text


def test_mcp_over_stdio(sample_project: Path) -> None:
    seen = anyio.run(play, stdio(sample_project))
    check(seen)


def test_mcp_over_streamable_http(live_server: Callable[..., str], sample_project: Path) -> None:
    base = live_server(sample_project)
    seen = anyio.run(play, http(base))
    check(seen)
    # the feedback went to the same state.db the HTTP API reads
    trace = httpx.get(f"{base}/v1/traces/{seen['second']['trace_id']}").json()
    assert [f["rating"] for f in trace["feedback"]] == ["up"]


async def tenant_view(transport: AbstractAsyncContextManager[Any]) -> dict[str, Any]:
    async with transport as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        hits = (await call(session, "search", query="warranty claims", k=5))["hits"]
        answer = await call(session, "ask", message="how long is the warranty?")
        listing = await session.read_resource("tellmemore://documents")
        resources = [str(r.uri) for r in (await session.list_resources()).resources]
        return {
            "texts": [h["text"] for h in hits],
            "answer": answer,
            "documents": json.loads(listing.contents[0].text)["documents"],
            "resources": resources,
        }


async def try_foreign(
    transport: AbstractAsyncContextManager[Any], session_id: str, trace_id: str
) -> list[str]:
    """Another tenant's session, trace and feedback: each an error naming it unknown."""
    async with transport as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        errors = []
        for tool, args in (
            ("ask", {"message": "and how do I claim it?", "session_id": session_id}),
            ("get_trace", {"trace_id": trace_id}),
            ("feedback", {"trace_id": trace_id, "rating": "down"}),
        ):
            result = await session.call_tool(tool, args)
            assert result.is_error, f"{tool} crossed tenants"
            errors.append(result.content[0].text)
        return errors


TITLES = {"Acme": "Acme rocket skates warranty", "Globex": "Globex hover board warranty"}


def check_tenant(view: dict[str, Any], mine: str, theirs: str, years: str) -> None:
    assert view["texts"] and all(mine in t and theirs not in t for t in view["texts"])
    assert years in view["answer"]["answer"]
    assert all(theirs not in c["snippet"] for c in view["answer"]["citations"])
    assert [d["title"] for d in view["documents"]] == [TITLES[mine]]
    own = [d["uri"] for d in view["documents"]]
    assert [r for r in view["resources"] if r.startswith("tellmemore://documents/")] == own


def test_tenants_stay_apart_over_http_mcp(
    live_server: Callable[..., str], tenant_project: Path
) -> None:
    base = live_server(tenant_project, service={"api_keys": KEYS})
    acme = anyio.run(tenant_view, http(base, "key-acme-0001"))
    globex = anyio.run(tenant_view, http(base, "key-globex-0002"))
    check_tenant(acme, "Acme", "Globex", "three years")
    check_tenant(globex, "Globex", "Acme", "one year")
    errors = anyio.run(
        try_foreign,
        http(base, "key-globex-0002"),
        acme["answer"]["session_id"],
        acme["answer"]["trace_id"],
    )
    assert ["unknown session" in errors[0], "unknown trace" in errors[1]] == [True, True]
    assert "unknown trace" in errors[2]
    # the door refuses a missing or wrong key before MCP sees the request, as /v1 does
    hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for headers in ({}, {"Authorization": "Bearer sk-wrong"}):
        r = httpx.post(f"{base}/mcp", json=hello, headers=headers)
        assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        assert r.json()["type"] == "urn:tellmemore:problem:unauthorized"


def test_stdio_serves_one_tenant_and_ingests_only_when_allowed(
    tenant_project: Path, tmp_path: Path, minilm: Any
) -> None:
    acme = anyio.run(tenant_view, stdio(tenant_project, "--tenant", "acme"))
    check_tenant(acme, "Acme", "Globex", "three years")
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "skates.md").write_text(
        "# Acme rocket skates fuel\n\nRocket skates run on Acme solid fuel pellets.\n",
        encoding="utf-8",
    )

    async def ingest_then_search() -> tuple[set[str], dict[str, Any], list[str]]:
        async with (
            stdio(tenant_project, "--tenant", "acme", "--allow-ingest") as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            report = await call(session, "ingest", paths=[str(extra)])
            hits = (await call(session, "search", query="rocket skates fuel pellets", k=1))["hits"]
            return names, report, [h["text"] for h in hits]

    names, report, texts = anyio.run(ingest_then_search)
    assert names == TOOLS | {"ingest"}
    assert report["docs_added"] == 1
    assert "solid fuel pellets" in texts[0]
    # ingested into the caller's tenant: the other tenant does not see it
    assistant = Assistant(Settings.load(tenant_project), embedder=minilm)
    try:
        for tenant, found in (("acme", True), ("globex", False)):
            hits = assistant.search("rocket skates fuel pellets", k=3, tenant=tenant)
            assert any("pellets" in h.chunk.text for h in hits) is found
    finally:
        assistant.close()


@pytest.mark.slow
def test_serve_mounts_mcp_for_every_worker(sample_project: Path, tmp_path: Path) -> None:
    """`tellmemore serve --workers 2`: /mcp keeps no session state in a worker, so a
    conversation over several requests holds whichever worker answers each one."""
    from .servers import serve_in_subprocess

    async def converse(base: str) -> list[dict[str, Any]]:
        async with http(base) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            first = await call(session, "ask", message=FIRST)
            sid = first["session_id"]
            return [first] + [
                await call(session, "ask", message=FOLLOW_UP, session_id=sid) for _ in range(3)
            ]

    with serve_in_subprocess(sample_project, workers=2, log=tmp_path / "serve.log") as served:
        answers = anyio.run(converse, served.base)
    assert len({a["session_id"] for a in answers}) == 1
    for follow_up in answers[1:]:
        assert "Enterprise escalation" in follow_up["standalone_query"]
