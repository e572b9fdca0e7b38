"""One router per resource under /v1, plus /healthz."""

from __future__ import annotations

from fastapi import APIRouter

from tellmemore.service.routes import chat, correct, feedback, health, sessions, traces

ROUTERS: tuple[APIRouter, ...] = (
    chat.router,
    correct.router,
    feedback.router,
    traces.router,
    sessions.router,
    health.router,
)

__all__ = ["ROUTERS"]
