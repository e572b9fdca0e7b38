"""GET /v1/sessions/{session_id}: a stored conversation, turn by turn."""

from __future__ import annotations

from fastapi import APIRouter

from tellmemore.service.deps import AssistantDep, CallerDep
from tellmemore.service.schemas import SessionModel

router = APIRouter(prefix="/v1", tags=["sessions"])


@router.get("/sessions/{session_id}", response_model=SessionModel)
def get_session(session_id: str, assistant: AssistantDep, caller: CallerDep) -> SessionModel:
    """The session's turns (each with the trace id that produced it) and its summary."""
    info = assistant.conversations.session_info(
        session_id, tenant=caller.tenant if caller.scoped else None
    )
    return SessionModel.model_validate(info)
