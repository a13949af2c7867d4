"""The caller's memories (`/api/v1/memories`: list, delete one or all, the audit of events) and
what the prompt of one answered message held (`/api/v1/chats/{id}/messages/{id}/context`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel

from datapilot.assistants.compression import ContextRecord
from datapilot.assistants.context_store import context_of
from datapilot.assistants.memory import Memories, MemoryEventInfo, MemoryInfo
from datapilot.assistants.models import Tenant
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.routes.platform import ERRORS, chat_scope, in_store, tenant_of
from datapilot.store.ints import RowId

router = APIRouter(prefix="/api/v1", tags=["Memory"], responses=VALIDATION_RESPONSES)


class Forgotten(BaseModel):
    deleted: int


@router.get(
    "/memories",
    response_model=list[MemoryInfo],
    dependencies=chat_scope,
    summary="What the assistants remember about you",
)
async def list_memories(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Memories(s, tenant).all())


@router.get(
    "/memories/events",
    response_model=list[MemoryEventInfo],
    dependencies=chat_scope,
    summary="Every ADD, UPDATE and DELETE of your memories, oldest first",
)
async def memory_events(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Memories(s, tenant).events())


@router.delete(
    "/memories/{memory_id}",
    status_code=204,
    response_model=None,
    dependencies=chat_scope,
    responses=ERRORS,
    summary="Forget one memory",
)
async def delete_memory(
    memory_id: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    await in_store(request, lambda s: Memories(s, tenant).delete(memory_id))
    return Response(status_code=204)


@router.delete(
    "/memories", response_model=Forgotten, dependencies=chat_scope, summary="Forget everything"
)
async def delete_memories(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    events = await in_store(request, lambda s: Memories(s, tenant).delete_all())
    return Forgotten(deleted=len(events))


@router.get(
    "/chats/{chat_id}/messages/{message_id}/context",
    response_model=ContextRecord,
    dependencies=chat_scope,
    responses=ERRORS,
    summary="What the prompt answering a message held: scene, memories, summary, dropped turns",
)
async def turn_context(
    chat_id: str, message_id: RowId, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await in_store(request, lambda s: context_of(s, tenant, chat_id, message_id))
