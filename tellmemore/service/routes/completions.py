"""POST /v1/chat/completions and GET /v1/models: the OpenAI Chat Completions door.

The same turn as `POST /v1/chat` with a client-kept `history` (the stateless path), on the
same keys and tenants; only the wire format differs (see service/openai_wire.py).
Errors on these routes use OpenAI's error body, so OpenAI SDKs raise their own
exceptions (AuthenticationError, BadRequestError, ...).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from tellmemore.answer.stream import AnswerStream, DeltaEvent, DoneEvent
from tellmemore.assistant import Session
from tellmemore.errors import InputError
from tellmemore.service import openai_wire as wire
from tellmemore.service.deps import AssistantDep, CallerDep, SettingsDep
from tellmemore.service.errors import problem_from_exception
from tellmemore.service.routes.chat import check_text
from tellmemore.service.sse import SSE_HEADERS, finish_unread

PATHS = ("/v1/chat/completions", "/v1/models")
"""Where errors are rendered in OpenAI's shape."""

router = APIRouter(prefix="/v1", tags=["openai"])

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    "default": {
        "description": "Any error, in OpenAI's error shape (400, 401, 404, 413, 500, 502, 503).",
        "content": {"application/json": {"schema": wire.OpenAIError.model_json_schema()}},
    }
}

_STREAM_DOC = {
    "description": "The completion; or, with `stream: true`, server-sent `data:` frames of "
    "`chat.completion.chunk` objects ending in `data: [DONE]` (docs/integrations.md).",
    "content": {
        "text/event-stream": {
            "schema": {
                "type": "object",
                "properties": {"data": {"type": "string"}},
                "required": ["data"],
            }
        }
    },
}


@router.post(
    "/chat/completions",
    response_model=wire.ChatCompletion,
    responses={200: _STREAM_DOC},
    summary="Chat completion (OpenAI wire format)",
)
async def chat_completions(
    body: wire.CompletionRequest,
    assistant: AssistantDep,
    settings: SettingsDep,
    caller: CallerDep,
) -> wire.ChatCompletion | StreamingResponse:
    """Answer the last user message of `messages`, with the earlier ones as the history.
    The content cites its sources as numbered Markdown references; the full Answer is in
    the extra field `tellmemore`. Retrieval is filtered to the API key's tenant."""
    wire.check_model(body.model)
    if body.n not in (None, 1):
        raise InputError(f"n={body.n} is not supported: tellmemore gives one answer (n=1)")
    message, history = wire.to_turn(body.messages)
    check_text(message, settings)

    def start() -> AnswerStream:
        return Session(assistant, None, tenant=caller.tenant).stream(message, history=history)

    stream = await run_in_threadpool(start)
    completion_id, created = wire.new_id()
    if body.stream:
        return StreamingResponse(
            _chunks(stream, body.model, completion_id, created),
            media_type="text/event-stream",
            headers=SSE_HEADERS,
        )
    answer = await run_in_threadpool(stream.result)
    return wire.completion(answer, body.model, completion_id, created)


async def _chunks(
    stream: AnswerStream, model: str, completion_id: str, created: int
) -> AsyncIterator[str]:
    """The answer text as it is produced, then its references, then a last chunk with
    `finish_reason: "stop"` and the full Answer, then `[DONE]`. A failure after the stream
    started ends it with one `data: {"error": ...}` frame, as OpenAI does."""
    ended = False
    try:
        yield wire.chunk(completion_id, created, model, {"role": "assistant", "content": ""})
        async for event in iterate_in_threadpool(iter(stream)):
            if isinstance(event, DeltaEvent) and event.text:
                yield wire.chunk(completion_id, created, model, {"content": event.text})
            elif isinstance(event, DoneEvent):
                tail = wire.references(event.answer.citations)
                if tail:
                    yield wire.chunk(completion_id, created, model, {"content": tail})
                yield wire.chunk(
                    completion_id, created, model, {}, finish=True, answer=event.answer
                )
        ended = True
        yield wire.sse_data("[DONE]")
    except Exception as exc:  # the response has started: report in-band, then stop
        ended = True
        _, error = wire.error_body(problem_from_exception(exc))
        yield wire.sse_data(error)
    finally:
        if not ended:  # the reader went away: the turn still ends and is stored
            finish_unread(stream)


@router.get("/models", response_model=wire.ModelList, summary="List models (OpenAI format)")
async def list_models(caller: CallerDep) -> wire.ModelList:
    """The answer modes, named as `model` in a chat completion."""
    return wire.model_cards()


@router.get("/models/{model}", response_model=wire.ModelCard, summary="One model")
async def get_model(model: str, caller: CallerDep) -> wire.ModelCard:
    wire.check_model(model)
    return next(card for card in wire.model_cards().data if card.id == model)
