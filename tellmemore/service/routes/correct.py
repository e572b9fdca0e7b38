"""POST /v1/chat/{trace_id}/correct: the user fixes what a turn searched for.

The turn is answered again with the corrected query; the new trace points to
the original through `parent_trace_id`, and both are kept.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from tellmemore.service.deps import AssistantDep, CallerDep, SettingsDep, owned_trace
from tellmemore.service.routes.chat import check_text
from tellmemore.service.schemas import AnswerModel, CorrectRequest
from tellmemore.types import Answer

router = APIRouter(prefix="/v1", tags=["chat"])


@router.post("/chat/{trace_id}/correct", response_model=AnswerModel)
async def correct(
    trace_id: str,
    body: CorrectRequest,
    assistant: AssistantDep,
    settings: SettingsDep,
    caller: CallerDep,
) -> AnswerModel:
    """Re-answer the turn of `trace_id` with `standalone_query` as the search query."""
    check_text(body.standalone_query, settings, field="standalone_query")

    def run() -> Answer:
        original = owned_trace(assistant, caller, trace_id)
        tenant = original.get("tenant", "") if not caller.scoped else caller.tenant
        return assistant.correct(trace_id, body.standalone_query.strip(), tenant=tenant)

    return AnswerModel.from_answer(await run_in_threadpool(run))
