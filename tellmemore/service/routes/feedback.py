"""POST /v1/feedback: a thumbs up or down, with an optional reason, tied to a trace."""

from __future__ import annotations

from fastapi import APIRouter, status

from tellmemore.service.deps import AssistantDep, CallerDep, owned_trace
from tellmemore.service.schemas import FeedbackRequest, FeedbackResponse

router = APIRouter(prefix="/v1", tags=["feedback"])


@router.post("/feedback", response_model=FeedbackResponse, status_code=status.HTTP_201_CREATED)
def feedback(body: FeedbackRequest, assistant: AssistantDep, caller: CallerDep) -> FeedbackResponse:
    """Store the rating in state.db next to the trace (it shows up in GET /v1/traces/{id})."""
    owned_trace(assistant, caller, body.trace_id)
    reason = body.reason.strip() if body.reason and body.reason.strip() else None
    feedback_id = assistant.feedback(body.trace_id, body.rating, reason)
    return FeedbackResponse(
        feedback_id=feedback_id, trace_id=body.trace_id, rating=body.rating, reason=reason
    )
