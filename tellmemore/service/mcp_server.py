"""The MCP server: tellmemore's search, conversations, traces and feedback as MCP tools,
the indexed documents as MCP resources (official `mcp` SDK, `MCPServer`).

One server object serves both transports: `tellmemore mcp` runs it over stdio, and
`create_app` mounts it at `/mcp` (streamable HTTP) behind the same API keys as `/v1`.
Every message is handled for one `Caller` (tenant): a server middleware derives it
from the HTTP request's key, or takes the stdio process's tenant, and holds it in a
context variable for the tools and resources of that message.

Ingestion reads the server's disk, so the `ingest` tool exists only when
`service.mcp_ingest` is true (or `tellmemore mcp --allow-ingest`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_REQUEST, Resource, ToolAnnotations
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

import tellmemore
from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.errors import NotFoundError, TellMeMoreError
from tellmemore.service.deps import Caller, authenticate
from tellmemore.service.errors import ProblemError, render_problem
from tellmemore.service.schemas import MAX_REASON_CHARS, AnswerModel, FeedbackResponse
from tellmemore.turn import validate_message

MCP_PATH = "/mcp"
DOCUMENTS_URI = "tellmemore://documents"
MAX_K = 50
INSTRUCTIONS = (
    "tellmemore answers questions from a fixed set of documents, with citations. Use `ask` "
    "for a question in a conversation: pass back the `session_id` it returns so a follow-up "
    "such as 'does that one cover weekends?' is resolved against the earlier turns; "
    "`standalone_query` says what was searched and `answering_about` what a follow-up was "
    "bound to. Use `search` for ranked passages without an answer. Cite `citations[n-1]` for "
    "a marker [n]. Report a wrong answer with `feedback` and its `trace_id`. The documents "
    f"are listed as resources under {DOCUMENTS_URI}."
)

_caller: ContextVar[Caller] = ContextVar("tellmemore_mcp_caller")


class SearchHit(BaseModel):
    id: str = Field(description="The chunk id.")
    doc: str = Field(description="The document id (read it as tellmemore://documents/{doc}).")
    title: str
    section: list[str] = Field(description="The section path inside the document.")
    version: str
    url: str
    score: float = Field(description="The fused rank score; higher is better.")
    text: str = Field(description="The passage, led by its 'Title > Section' header.")


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]


class DocumentInfo(BaseModel):
    doc: str
    title: str
    version: str
    uri: str
    chunks: int


class DocumentList(BaseModel):
    documents: list[DocumentInfo]


class TellMeMoreMCP(MCPServer):
    """MCPServer whose resource list is the caller's documents, one resource each."""

    def __init__(self, assistant: Assistant, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.assistant = assistant

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        docs = await run_in_threadpool(documents, self.assistant, current_caller())
        listed += [
            Resource(
                uri=d.uri,
                name=d.doc,
                title=d.title,
                description=f"{d.title} (version {d.version})" if d.version else d.title,
                mime_type="text/markdown",
            )
            for d in docs.documents
        ]
        return listed


def current_caller() -> Caller:
    try:
        return _caller.get()
    except LookupError:  # outside a message (never on a served request)
        raise MCPError(INVALID_REQUEST, "no caller for this request") from None


def _caller_middleware(settings: Settings, default: Caller) -> Any:
    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        headers = getattr(ctx.request, "headers", None)
        try:
            caller = authenticate(settings, headers) if headers is not None else default
        except ProblemError as exc:  # the /mcp door already refused; defence in depth
            raise MCPError(INVALID_REQUEST, exc.detail) from None
        token = _caller.set(caller)
        try:
            return await call_next(ctx)
        finally:
            _caller.reset(token)

    return middleware


def documents(assistant: Assistant, caller: Caller) -> DocumentList:
    """The indexed documents the caller's tenant may read."""
    sql = "SELECT doc_id, title, version, chunk_ids FROM documents"
    params: tuple[str, ...] = ()
    if caller.scoped:
        sql += " WHERE tenant = ?"
        params = (caller.tenant,)
    rows = assistant.state.query(sql + " ORDER BY doc_id", params)
    return DocumentList(
        documents=[
            DocumentInfo(
                doc=r["doc_id"],
                title=r["title"] or r["doc_id"],
                version=r["version"],
                uri=f"{DOCUMENTS_URI}/{r['doc_id']}",
                chunks=len(json.loads(r["chunk_ids"] or "[]")),
            )
            for r in rows
        ]
    )


def document_text(assistant: Assistant, caller: Caller, doc_id: str) -> str:
    """The document as tellmemore read it (Markdown-like), loaded again from its source."""
    from tellmemore.ingest.loaders import load_path

    sql = "SELECT tenant, source, title, version FROM documents WHERE doc_id = ?"
    rows = assistant.state.query(sql, (doc_id,))
    if not rows or not caller.owns(rows[0]["tenant"]):
        raise NotFoundError("document", doc_id)
    row = rows[0]
    loaded = load_path(row["source"])
    match = [d for d in loaded if d.doc_id == doc_id or doc_id.endswith("/" + d.doc_id)]
    doc = match[0] if match else loaded[0] if len(loaded) == 1 else None
    if doc is None:
        raise NotFoundError("document", doc_id)
    return doc.text


def _tool_error(exc: Exception) -> ToolError:
    """A domain error as a tool error the agent can read and act on."""
    if isinstance(exc, NotFoundError):
        return ToolError(f"unknown {exc.what}: {exc.key!r}")
    return ToolError(str(exc))


def build_mcp_server(
    assistant: Assistant, settings: Settings, *, default_caller: Caller | None = None
) -> TellMeMoreMCP:
    """The server with its tools and resources. `default_caller` serves messages without
    an HTTP request (stdio): open, or bound to one tenant (`tellmemore mcp --tenant`)."""
    server = TellMeMoreMCP(
        assistant,
        name="tellmemore",
        title="tellmemore",
        version=tellmemore.__version__,
        instructions=INSTRUCTIONS,
        middleware=[_caller_middleware(settings, default_caller or Caller("", scoped=False))],
        log_level="WARNING",
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def search(
        query: Annotated[str, Field(description="What to look for, as a standalone question.")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="How many passages.")] = 5,
    ) -> SearchResult:
        """Rank the passages of the documents for one standalone query (no conversation,
        no answer). Each hit has its chunk id, document, title, section path and text."""
        caller = current_caller()
        try:
            hits = await run_in_threadpool(
                assistant.search, query, k=k, tenant=caller.tenant if caller.scoped else None
            )
        except TellMeMoreError as exc:
            raise _tool_error(exc) from exc
        return SearchResult(
            query=query,
            hits=[
                SearchHit(
                    id=h.chunk.id,
                    doc=h.chunk.doc_id,
                    title=h.chunk.title or h.chunk.doc_id,
                    section=list(h.chunk.section),
                    version=h.chunk.version,
                    url=h.chunk.url,
                    score=round(h.score, 6),
                    text=h.chunk.text,
                )
                for h in hits
            ],
        )

    @server.tool()
    async def ask(
        message: Annotated[str, Field(description="The user's message, as they typed it.")],
        session_id: Annotated[
            str | None,
            Field(
                description="The session_id an earlier ask returned, to continue that "
                "conversation (follow-ups are resolved against it); omit to start one."
            ),
        ] = None,
    ) -> AnswerModel:
        """Answer a message with citations, in a conversation kept by the server. Returns
        the answer ([n] markers refer to citations[n-1]), standalone_query (what was
        searched), answering_about and bindings (what a follow-up referred to), a
        clarification question with its options when the message is ambiguous, the
        trace_id, and the session_id to pass to the next ask."""
        caller = current_caller()

        def run() -> AnswerModel:
            # checked before a session is created for it
            validate_message(message, limit=settings.conversation.max_message_chars)
            store = assistant.conversations
            if session_id is not None and not store.session_exists(
                session_id, tenant=caller.tenant
            ):
                raise NotFoundError("session", session_id)
            session = assistant.session(session_id, tenant=caller.tenant)
            return AnswerModel.from_answer(session.ask(message))

        try:
            return await run_in_threadpool(run)
        except TellMeMoreError as exc:
            raise _tool_error(exc) from exc

    @server.tool(annotations=read_only)
    async def get_trace(
        trace_id: Annotated[str, Field(description="The trace_id of an ask.")],
    ) -> dict[str, Any]:
        """Everything one turn did: the message, the decision, the resolution (query,
        bindings, resolver), the retrieved hits with their scores, the answer, degradations,
        its feedback and corrections."""
        caller = current_caller()
        try:
            trace = await run_in_threadpool(assistant.trace, trace_id)
        except TellMeMoreError as exc:
            raise _tool_error(exc) from exc
        if not caller.owns(trace.get("tenant")):
            raise ToolError(f"unknown trace: {trace_id!r}")
        return trace

    @server.tool()
    async def feedback(
        trace_id: Annotated[str, Field(description="The trace_id of the answer rated.")],
        rating: Annotated[Literal["up", "down"], Field(description="up: right; down: wrong.")],
        reason: Annotated[
            str | None, Field(max_length=MAX_REASON_CHARS, description="What was wrong.")
        ] = None,
    ) -> FeedbackResponse:
        """Rate an answer up or down, with an optional reason; stored next to its trace."""
        caller = current_caller()

        def run() -> FeedbackResponse:
            trace = assistant.trace(trace_id)
            if not caller.owns(trace.get("tenant")):
                raise NotFoundError("trace", trace_id)
            why = reason.strip() if reason and reason.strip() else None
            fid = assistant.feedback(trace_id, rating, why)
            return FeedbackResponse(feedback_id=fid, trace_id=trace_id, rating=rating, reason=why)

        try:
            return await run_in_threadpool(run)
        except TellMeMoreError as exc:
            raise _tool_error(exc) from exc

    if settings.service.mcp_ingest:

        @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
        async def ingest(
            paths: Annotated[
                list[str], Field(min_length=1, description="Files or folders on the server.")
            ],
        ) -> dict[str, Any]:
            """Ingest files or folders from the server's disk into the caller's tenant
            (enabled by service.mcp_ingest). Safe to rerun: unchanged content is skipped."""
            caller = current_caller()
            try:
                report = await run_in_threadpool(assistant.ingest, paths, tenant=caller.tenant)
            except TellMeMoreError as exc:
                raise _tool_error(exc) from exc
            return report.to_dict()

    @server.resource(
        DOCUMENTS_URI,
        name="documents",
        title="Documents",
        description="Every indexed document: id, title, version, resource URI, chunk count.",
        mime_type="application/json",
    )
    async def list_documents() -> str:
        docs = await run_in_threadpool(documents, assistant, current_caller())
        return docs.model_dump_json(indent=2)

    @server.resource(
        DOCUMENTS_URI + "/{+doc}",
        name="document",
        title="A document",
        description="One indexed document's text as tellmemore read it (Markdown).",
        mime_type="text/markdown",
    )
    async def read_document(doc: str) -> str:
        try:
            return await run_in_threadpool(document_text, assistant, current_caller(), doc)
        except TellMeMoreError as exc:
            raise _tool_error(exc) from exc

    return server


# -- the /mcp door on the HTTP service --------------------------------------------------------


class KeyDoor:
    """ASGI: refuse a request to /mcp without a valid key (401, like /v1) before the MCP
    transport sees it; the server middleware then reads the key's tenant per message."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            from starlette.datastructures import Headers

            try:
                authenticate(self.settings, Headers(scope=scope))
            except ProblemError as exc:
                await render_problem(scope, exc)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """Without keys the service is for local use: only loopback Host and Origin headers reach
    /mcp (DNS rebinding). With keys, the key is the guard and any host may call."""
    if settings.service.api_keys:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        allowed_origins=[
            "http://127.0.0.1:*",
            "http://localhost:*",
            "http://[::1]:*",
            *settings.service.cors_origins,
        ],
    )


def mount(app: Any, assistant: Assistant, settings: Settings) -> Any:
    """Add the MCP server at /mcp to a FastAPI app; returns an async context manager the
    app's lifespan must enter (it runs the MCP session manager)."""
    server = build_mcp_server(assistant, settings)
    door = KeyDoor(_not_running, settings)
    app.router.routes.append(Route(MCP_PATH, endpoint=door, include_in_schema=False))

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        # A session manager runs once, and an app's lifespan may run more than once (a
        # TestClient entered twice, schemathesis): each run gets a fresh transport.
        mcp_app = server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            # No MCP session state on the server: a conversation lives in state.db under
            # its session_id, so any worker of `serve --workers N` can answer any request.
            stateless_http=True,
            transport_security=transport_security(settings),
            max_request_body_size=settings.service.max_body_bytes,
        )
        route = next(r for r in mcp_app.routes if isinstance(r, Route) and r.path == MCP_PATH)
        async with server.session_manager.run():
            door.app = route.app
            try:
                yield
            finally:
                door.app = _not_running

    return running


async def _not_running(scope: Scope, receive: Receive, send: Send) -> None:
    """/mcp outside the app's lifespan (never on a served app)."""
    problem = ProblemError(
        503,
        "mcp-not-running",
        "MCP is not running",
        "the MCP server is not started; run the app with its lifespan",
    )
    await render_problem(scope, problem)(scope, receive, send)
