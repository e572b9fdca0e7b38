"""POST /v1/chat: one user message, answered whole or streamed as server-sent events."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from tellmemore.answer.stream import AnswerStream
from tellmemore.assistant import Assistant, Session, parse_history
from tellmemore.config import Settings
from tellmemore.errors import InputError
from tellmemore.service.deps import AssistantDep, Caller, CallerDep, SettingsDep
from tellmemore.service.errors import empty_message, message_too_long, not_found
from tellmemore.service.schemas import AnswerModel, ChatRequest
from tellmemore.service.sse import SSE_HEADERS, sse_events

router = APIRouter(prefix="/v1", tags=["chat"])

_STREAM_DOC = {
    "description": "The Answer; or, with `stream: true`, server-sent events "
    "`resolution`, `citations`, `delta`, `done` (see docs/service.md).",
    # OpenAPI 3.1 reads the schema of an event stream as the schema of one event.
    "content": {
        "text/event-stream": {
            "schema": {
                "type": "object",
                "properties": {
                    "event": {"enum": ["resolution", "citations", "delta", "done", "error"]},
                    "data": {"type": "string", "contentMediaType": "application/json"},
                },
                "required": ["event", "data"],
            }
        }
    },
}


def check_text(text: str, settings: Settings, *, field: str = "message") -> None:
    """Empty -> 422, longer than conversation.max_message_chars -> 413 (with the limit)."""
    stripped = text.strip()
    if not stripped:
        raise empty_message(field)
    limit = settings.conversation.max_message_chars
    if len(stripped) > limit:
        raise message_too_long(len(stripped), limit)


def open_session(assistant: Assistant, body: ChatRequest, caller: Caller) -> Session:
    """The caller's session (404 if unknown or another tenant's), a new one, or none
    (stateless, when the client sends its own history)."""
    if body.session_id is not None and body.history is not None:
        raise InputError("send either session_id or history, not both")
    if body.history is not None:
        return Session(assistant, None, tenant=caller.tenant)
    if body.session_id is not None:
        if not assistant.conversations.session_exists(body.session_id, tenant=caller.tenant):
            raise not_found("session", body.session_id)
        return assistant.session(body.session_id, tenant=caller.tenant)
    return assistant.session(None, tenant=caller.tenant)


@router.post("/chat", response_model=AnswerModel, responses={200: _STREAM_DOC})
async def chat(
    body: ChatRequest,
    request: Request,
    assistant: AssistantDep,
    settings: SettingsDep,
    caller: CallerDep,
) -> AnswerModel | StreamingResponse:
    """Answer one message. Retrieval is always filtered to the API key's tenant."""
    check_text(body.message, settings)
    history = (
        parse_history([t.model_dump() for t in body.history]) if body.history is not None else None
    )

    def start() -> AnswerStream:
        session = open_session(assistant, body, caller)
        return session.stream(body.message, history=history)

    stream = await run_in_threadpool(start)
    if body.stream:
        return StreamingResponse(
            sse_events(stream, instance=request.url.path),
            media_type="text/event-stream",
            headers=SSE_HEADERS,
        )
    answer = await run_in_threadpool(stream.result)
    return AnswerModel.from_answer(answer)
