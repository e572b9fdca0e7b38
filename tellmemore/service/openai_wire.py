"""The OpenAI Chat Completions wire format, translated to and from a tellmemore turn.

Clients that already speak OpenAI (Open WebUI, LibreChat, the `openai` SDK) send the
whole conversation as `messages` every time; it becomes the history of a stateless
turn plus the last user message. The answer goes back as the assistant's content
with its citations rendered as numbered Markdown references, and the full Answer
rides along in the extra field `tellmemore` (docs/integrations.md).

The references a client sends back inside earlier assistant messages are cut off
again here, so the history the resolver reads is the one a stored session holds.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Sequence
from typing import Any, Literal

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from tellmemore.answer.citations import page_label
from tellmemore.errors import InputError
from tellmemore.service.errors import ProblemError
from tellmemore.service.schemas import AnswerModel
from tellmemore.types import Answer, Citation, Turn

DEFAULT_MODEL = "tellmemore"
MODELS: dict[str, str] = {
    DEFAULT_MODEL: "Conversational retrieval over the project's documents: follow-ups are "
    "resolved, answers cite their sources (an LLM writes them when one is configured, "
    "otherwise they are quoted from the sources).",
}
"""The answer modes a client can name as `model` (GET /v1/models lists them)."""
OWNER = "tellmemore"
EXTRA_FIELD = "tellmemore"
"""The response's (and the last chunk's) extra member holding the full Answer."""
SOURCES_HEADING = "**Sources**"
_SOURCES_LEAD = "\n\n" + SOURCES_HEADING + "\n"
_SOURCES_LINES = re.compile(r"(?:\d+\. [^\n]*(?:\n|$))+\s*")
_IGNORED_ROLES = frozenset({"system", "developer", "tool", "function"})


class ContentPart(BaseModel):
    """One part of a message's content; only text parts are read."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None


class CompletionRequest(BaseModel):
    """The fields tellmemore reads; others (temperature, max_tokens, ...) are accepted
    and ignored, as an OpenAI-compatible server does for options it does not have."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "model": DEFAULT_MODEL,
                    "messages": [
                        {"role": "user", "content": "what escalation options do we have?"}
                    ],
                }
            ]
        },
    )

    model: str = Field(default=DEFAULT_MODEL, description="The answer mode (GET /v1/models).")
    messages: list[ChatMessage] = Field(
        min_length=1, description="The conversation, oldest first; the last one is the user's."
    )
    stream: bool | None = Field(default=False, description="Send chat.completion.chunk events.")
    n: int | None = Field(default=1, description="Only 1 is supported.")


class ResponseMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: ResponseMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    """A Chat Completions response, with the full Answer in `tellmemore`."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: None = None
    tellmemore: AnswerModel = Field(
        description="The full Answer: citations, standalone query, bindings, trace id, "
        "abstained, clarification options (the /v1/chat response)."
    )


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = OWNER
    description: str = ""


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIError(BaseModel):
    """OpenAI's error body, used for every error on the OpenAI-compatible routes."""

    error: OpenAIErrorDetail


def model_cards() -> ModelList:
    return ModelList(data=[ModelCard(id=k, description=v) for k, v in MODELS.items()])


def check_model(name: str) -> None:
    if name not in MODELS:
        raise ProblemError(
            404,
            "model-not-found",
            "Unknown model",
            f"The model {name!r} does not exist; the models are: {', '.join(MODELS)} "
            "(GET /v1/models).",
        )


# -- request -> turn --------------------------------------------------------------------------


def message_text(message: ChatMessage, index: int) -> str:
    """The text of a message: a string, or its text parts joined."""
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        if part.type != "text":
            raise InputError(
                f"messages[{index}].content: a {part.type!r} part is not supported; send text only"
            )
        texts.append(part.text or "")
    return "\n".join(texts)


def strip_sources(content: str) -> str:
    """An assistant message as a stored session keeps it: without the references block
    this module appended (clients send the rendered content back as history)."""
    at = _sources_at(content)
    return content if at is None else content[:at]


def _sources_at(content: str) -> int | None:
    """Where the references block this module appended starts; None without one. Only the
    last heading is tried, so a long crafted message costs one linear scan."""
    at = content.rfind(_SOURCES_LEAD)
    if at < 0 or not _SOURCES_LINES.fullmatch(content, at + len(_SOURCES_LEAD)):
        return None
    return at


def cited_section(content: str) -> str | None:
    """The section heading of an assistant message's first reference ("1. [Perks › Visiting
    grant](url)" -> "Visiting grant"; "" when it cites a whole document), None without a
    references block: what a stored session keeps as `Turn.about`, so a follow-up's binding
    names it the same way (`conversation.named`)."""
    at = _sources_at(content)
    if at is None:
        return None
    first = _FIRST_REFERENCE.match(content, at + len(_SOURCES_LEAD))
    if first is None:
        return None
    label = first["linked"] if first["linked"] is not None else first["plain"]
    parts = label.replace("\\[", "[").replace("\\]", "]").split(" \u203a ")
    return parts[-1].strip() if len(parts) > 1 else ""


_FIRST_REFERENCE = re.compile(
    r"1\. (?:\[(?P<linked>(?:\\.|[^\]\\])*)\]\(|(?P<plain>[^\n]*?)(?:, p\. | \(version |\n|$))"
)


def to_turn(messages: Sequence[ChatMessage]) -> tuple[str, list[Turn]]:
    """`messages` -> (the last user message, the history before it, its text validated as
    /v1/chat's `history` is). System, developer and tool messages are skipped: tellmemore
    answers from its documents, not from prompts. An answer that cites keeps its first
    reference's section as `Turn.about`, as a stored session does."""
    from tellmemore.turn import valid_unicode

    if messages[-1].role != "user":
        raise InputError(f"the last message must be the user's; got role {messages[-1].role!r}")
    history: list[Turn] = []
    for i, m in enumerate(messages[:-1]):
        if m.role in _IGNORED_ROLES:
            continue
        text = message_text(m, i)
        if m.role == "assistant":
            section = cited_section(text)
            text = strip_sources(text)
            if text.strip():
                about = None if section is None else (section,)
                history.append(Turn("assistant", valid_unicode(text), about=about))
        elif text.strip():
            history.append(Turn("user", valid_unicode(text)))
    return message_text(messages[-1], len(messages) - 1), history


# -- answer -> response -----------------------------------------------------------------------


def reference(n: int, c: Citation) -> str:
    """ "1. [Title › Section](url), p. 4 (version 2026.1)" """
    where = " › ".join((c.title, *c.section))
    label = f"[{_md_escape(where)}]({c.url})" if c.url else _md_escape(where)
    page = f", {page_label(c.pages)}" if c.pages else ""
    version = f" (version {c.version})" if c.version else ""
    return f"{n}. {label}{page}{version}"


def references(citations: Sequence[Citation]) -> str:
    """The numbered Markdown references, led by a blank line; "" without citations."""
    if not citations:
        return ""
    lines = [reference(i, c) for i, c in enumerate(citations, start=1)]
    return "\n\n" + SOURCES_HEADING + "\n" + "\n".join(lines)


def content_of(answer: Answer) -> str:
    """What a client that reads only `choices` shows: the answer (or the clarifying
    question) and its references."""
    text = answer.clarification or answer.answer
    return text + references(answer.citations)


def completion(answer: Answer, model: str, completion_id: str, created: int) -> ChatCompletion:
    return ChatCompletion(
        id=completion_id,
        created=created,
        model=model,
        choices=[Choice(message=ResponseMessage(content=content_of(answer)))],
        tellmemore=AnswerModel.from_answer(answer),
    )


def new_id() -> tuple[str, int]:
    return f"chatcmpl-{uuid.uuid4().hex}", int(time.time())


def chunk(
    completion_id: str,
    created: int,
    model: str,
    delta: dict[str, str],
    *,
    finish: bool = False,
    answer: Answer | None = None,
) -> str:
    """One `chat.completion.chunk` as an SSE `data:` frame."""
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "delta": delta,
                "finish_reason": "stop" if finish else None,
                "logprobs": None,
            }
        ],
    }
    if answer is not None:
        body[EXTRA_FIELD] = answer.to_dict()
    return sse_data(body)


def sse_data(body: dict[str, Any] | str) -> str:
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return f"data: {text}\n\n"


# -- errors -----------------------------------------------------------------------------------

_STATUS_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
}


def error_body(p: ProblemError) -> tuple[int, dict[str, Any]]:
    """(status, body) in OpenAI's shape. A request the server cannot use is a 400 there
    (the SDK's BadRequestError), where our own API says 422 or 413 (message too long)."""
    status = p.status
    if status == 422 or p.slug == "message-too-long":
        status = 400
    kind = _STATUS_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    code = "invalid_api_key" if p.slug == "unauthorized" else (p.slug or "").replace("-", "_")
    param = None
    errors = p.extensions.get("errors")
    if errors:
        loc = [str(x) for x in errors[0].get("loc", ()) if x != "body"]
        param = ".".join(loc) or None
    detail = OpenAIErrorDetail(message=p.detail, type=kind, param=param, code=code or None)
    return status, OpenAIError(error=detail).model_dump()


def error_response(p: ProblemError, path: str) -> JSONResponse:
    status, body = error_body(p)
    return JSONResponse(body, status_code=status, headers=p.headers or None)


def _md_escape(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")
