"""Assistants under `/api/v1/assistants`: create, list, show, change and delete the caller's
own (another tenant's answer 404, like rows that do not exist)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from datapilot.assistants.models import AssistantIn, AssistantInfo, AssistantPatch
from datapilot.assistants.repo import Assistants
from datapilot.server.deps import (
    CHAT,
    MANAGE,
    InStoreDep,
    KeyGateDep,
    SettingsDep,
    TenantDep,
)
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)


@router.post(
    "/assistants",
    response_model=AssistantInfo,
    status_code=201,
    dependencies=MANAGE,
    responses=ROW_ERRORS,
    summary="Create an assistant",
)
async def create_assistant(
    body: AssistantIn, tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> AssistantInfo:
    from datapilot.assistants.service import tool_ids  # the tools' machinery, when used

    return await in_store(
        lambda s: Assistants(s, tenant).create(body, tool_ids(s, settings, tenant))
    )


@router.get("/assistants", response_model=list[AssistantInfo], dependencies=CHAT)
async def list_assistants(tenant: TenantDep, in_store: InStoreDep) -> list[AssistantInfo]:
    return await in_store(lambda s: Assistants(s, tenant).list())


@router.get(
    "/assistants/{ref}", response_model=AssistantInfo, dependencies=CHAT, responses=ROW_ERRORS
)
async def get_assistant(ref: str, tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Assistants(s, tenant).get(ref))


@router.patch(
    "/assistants/{ref}", response_model=AssistantInfo, dependencies=MANAGE, responses=ROW_ERRORS
)
async def update_assistant(
    ref: str, body: AssistantPatch, tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> Any:
    from datapilot.assistants.service import tool_ids  # the tools' machinery, when used

    return await in_store(
        lambda s: Assistants(s, tenant).update(ref, body, tool_ids(s, settings, tenant))
    )


@router.delete(
    "/assistants/{ref}",
    status_code=204,
    response_model=None,
    dependencies=MANAGE,
    responses=ROW_ERRORS,
)
async def delete_assistant(
    ref: str, tenant: TenantDep, in_store: InStoreDep, gate: KeyGateDep
) -> Response:
    await in_store(lambda s: Assistants(s, tenant).delete(ref))
    gate.forget()  # its bound keys were revoked with it
    return Response(status_code=204)
