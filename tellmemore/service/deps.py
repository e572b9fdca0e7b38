"""Request dependencies: the assistant, the settings and the caller's tenant.

Routes take these through `Depends`, so a test swaps any of them with
`app.dependency_overrides[get_assistant] = ...`.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.service.errors import not_found, unauthorized


@dataclass(frozen=True)
class Caller:
    """Who is asking: the tenant their API key is bound to.

    With no keys configured the service is open (local use): `tenant` is "" and
    `scoped` is False, so the caller sees every tenant.
    """

    tenant: str
    scoped: bool

    def owns(self, tenant: str | None) -> bool:
        return not self.scoped or (tenant or "") == self.tenant


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_assistant(request: Request) -> Assistant:
    assistant: Assistant = request.app.state.assistant
    return assistant


def _presented_key(headers: Mapping[str, str]) -> str | None:
    auth = headers.get("authorization")
    if auth:
        scheme, _, token = auth.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
        return None
    key = headers.get("x-api-key")
    return key.strip() if key and key.strip() else None


def authenticate(settings: Settings, headers: Mapping[str, str]) -> Caller:
    """The caller of a request with these (case-insensitive) headers: `Authorization:
    Bearer KEY` or `X-API-Key: KEY`. Shared by /v1 and the MCP server at /mcp."""
    keys = settings.service.api_keys
    if not keys:
        return Caller(tenant="", scoped=False)
    presented = _presented_key(headers)
    if presented is None:
        raise unauthorized(
            "this service needs an API key: send 'Authorization: Bearer <key>' "
            "or 'X-API-Key: <key>'"
        )
    tenant: str | None = None
    for key, key_tenant in keys.items():  # compare against every key: constant time
        if hmac.compare_digest(key.encode(), presented.encode()):
            tenant = key_tenant
    if tenant is None:
        raise unauthorized("the API key is not valid; check service.api_keys in the config")
    return Caller(tenant=tenant, scoped=True)


def get_caller(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> Caller:
    """Authenticate by `Authorization: Bearer KEY` (or `X-API-Key: KEY`)."""
    return authenticate(settings, request.headers)


def owned_trace(assistant: Assistant, caller: Caller, trace_id: str) -> dict[str, Any]:
    """A stored trace if the caller's tenant owns it; otherwise 404 (never 403: no leak).
    The tenant is part of the query, so a foreign id costs what a missing one does."""
    from tellmemore.errors import NotFoundError

    try:
        return assistant.trace(trace_id, tenant=caller.tenant if caller.scoped else None)
    except NotFoundError:
        raise not_found("trace", trace_id) from None


AssistantDep = Annotated[Assistant, Depends(get_assistant)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
CallerDep = Annotated[Caller, Depends(get_caller)]
