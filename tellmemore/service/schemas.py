"""The /v1 request and response bodies (pydantic, at the edge only).

Responses mirror `Answer.to_dict()` of tellmemore/types.py field for field, so
the OpenAPI document at /docs shows the real shape; routes build them from the
frozen dataclasses and never from loose dicts.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from tellmemore.limits import MAX_HISTORY_INPUT_TURNS
from tellmemore.types import Answer

MAX_REASON_CHARS = 2000

_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_surrogates(value: str) -> str:
    """JSON's "\\ud800" parses to a lone surrogate, which no database or encoder takes: an
    id holding one names nothing, so the request is refused (422), not crashed on (500)."""
    if _SURROGATE.search(value):
        raise ValueError("not valid Unicode: the id holds a lone surrogate (\\ud800-\\udfff)")
    return value


def _replace_surrogates(value: str | None) -> str | None:
    """Free text keeps its words: a lone surrogate becomes U+FFFD, as in a message."""
    return _SURROGATE.sub("\ufffd", value) if value else value


Identifier = Annotated[str, AfterValidator(_no_surrogates)]
FreeText = Annotated[str, AfterValidator(_replace_surrogates)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HistoryTurn(_Request):
    role: Literal["user", "assistant"]
    content: str


class ChatRequest(_Request):
    """One user message. Give `session_id` to continue a stored conversation, or `history`
    if your client keeps the conversation itself; with neither a new session starts."""

    message: str = Field(description="What the user typed.")
    session_id: Identifier | None = Field(default=None, description="Continue this session.")
    history: list[HistoryTurn] | None = Field(
        default=None,
        max_length=MAX_HISTORY_INPUT_TURNS,
        description="Earlier turns, oldest first (stateless use). At most 1,000; a turn "
        "reads the newest conversation.max_history_turns of them, each cut to "
        "conversation.max_history_item_chars (see docs/service.md).",
    )
    stream: bool = Field(default=False, description="Answer as server-sent events.")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"message": "what escalation options do we have on cloud connect"},
                {"message": "does that one cover weekends?", "session_id": "4f0c..."},
            ]
        },
    )


class CorrectRequest(_Request):
    standalone_query: str = Field(description="The query the turn should have searched for.")


class FeedbackRequest(_Request):
    trace_id: Identifier
    rating: Literal["up", "down"]
    reason: FreeText | None = Field(default=None, max_length=MAX_REASON_CHARS)


class CitationModel(BaseModel):
    id: str
    doc: str
    title: str
    version: str = ""
    url: str = ""
    snippet: str = ""
    section: list[str] = Field(default_factory=list)
    score: float = 0.0
    pages: list[int] = Field(default_factory=list)
    flags: list[str] = Field(
        default_factory=list,
        description="What the passage tries on a model (prompt_injection, fake_role_turn, "
        "forged_source_tag): quoted data, never instructions.",
    )


class LatencyModel(BaseModel):
    total: float = 0.0
    resolve: float = 0.0
    retrieve: float = 0.0
    answer: float = 0.0


class AnswerModel(BaseModel):
    """The structured answer of one turn."""

    api_version: str
    trace_id: str
    answer: str
    message: str
    decision: Literal["retrieve", "small_talk", "about_last_answer"]
    citations: list[CitationModel]
    abstained: bool
    standalone_query: str | None
    bindings: dict[str, str]
    answering_about: str | None
    clarification: str | None
    clarification_options: list[str] = Field(default_factory=list)
    degraded: list[str] = Field(default_factory=list)
    items: list[str] = Field(
        default_factory=list,
        description="The list items or table rows the answer quotes, in order.",
    )
    model: str
    latency_ms: LatencyModel
    session_id: str | None

    @classmethod
    def from_answer(cls, answer: Answer) -> AnswerModel:
        return cls.model_validate(answer.to_dict())


class FeedbackResponse(BaseModel):
    feedback_id: int
    trace_id: str
    rating: Literal["up", "down"]
    reason: str | None


class SessionTurnModel(BaseModel):
    position: int
    role: Literal["user", "assistant"]
    content: str
    trace_id: str | None
    created_at: float


class SessionModel(BaseModel):
    session_id: str
    created_at: float
    summary: str
    turns: list[SessionTurnModel]


class HealthModel(BaseModel):
    status: Literal["ok"]
    version: str
    api_version: str
    auth: bool = Field(description="Whether /v1 requires an API key.")


class ProblemModel(BaseModel):
    """An error (RFC 9457 problem detail, `application/problem+json`); see docs/service.md."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A stable URI naming the problem, e.g. urn:tellmemore:problem:")
    title: str
    status: int
    detail: str
    instance: str | None = None


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    "default": {
        "description": "Any error: a problem detail (401, 404, 413, 422, 500, 502, 503).",
        "content": {"application/problem+json": {"schema": ProblemModel.model_json_schema()}},
    }
}
"""Documents the error responses of every route, so the OpenAPI document covers them all."""
