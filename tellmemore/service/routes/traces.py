"""GET /v1/traces/{trace_id}: everything one turn did, its feedback and its corrections."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from tellmemore.service.deps import AssistantDep, CallerDep, owned_trace

router = APIRouter(prefix="/v1", tags=["traces"])


@router.get("/traces/{trace_id}")
def get_trace(trace_id: str, assistant: AssistantDep, caller: CallerDep) -> dict[str, Any]:
    """The stored trace: message, decision, gate, resolution, hits with scores, answer,
    latency, plus `feedback` rows and `children` (traces that corrected this one)."""
    return owned_trace(assistant, caller, trace_id)
