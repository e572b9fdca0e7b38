"""GET /healthz: the process is up and state.db answers. Never loads the model."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

import tellmemore
from tellmemore.service.deps import AssistantDep, SettingsDep
from tellmemore.service.schemas import HealthModel
from tellmemore.types import API_VERSION

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=HealthModel)
async def healthz(assistant: AssistantDep, settings: SettingsDep) -> HealthModel:
    await run_in_threadpool(assistant.state.query, "SELECT 1")
    return HealthModel(
        status="ok",
        version=tellmemore.__version__,
        api_version=API_VERSION,
        auth=bool(settings.service.api_keys),
    )
