"""`GET /api/v1/usage`: the caller's tokens, in all, per assistant and per API key."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from datapilot.assistants.models import UsageReport
from datapilot.assistants.repo import Usage
from datapilot.server.deps import CHAT, InStoreDep, TenantDep
from datapilot.server.errors import VALIDATION_RESPONSES

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)


@router.get("/usage", response_model=UsageReport, dependencies=CHAT, summary="Your tokens")
async def usage(tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Usage(s, tenant).report())
