"""The caller's memories (`/api/v1/memories`: list, delete one or all, the audit of events) and
what the prompt of one answered message held (`/api/v1/chats/{id}/messages/{id}/context`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Response
from pydantic import BaseModel

from datapilot.assistants.memory_infos import ContextRecord, MemoryEventInfo, MemoryInfo
from datapilot.server.deps import CHAT, InStoreDep, TenantDep
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES
from datapilot.store.ints import RowId

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from datapilot.assistants.memory import Memories
    from datapilot.assistants.models import Tenant

router = APIRouter(prefix="/api/v1", tags=["Memory"], responses=VALIDATION_RESPONSES)


class Forgotten(BaseModel):
    deleted: int


def _memories(session: Session, tenant: Tenant) -> Memories:
    """The caller's memories; their machinery (the search over them) loads with the first
    request that reads them, not when the server starts."""
    from datapilot.assistants.memory import Memories

    return Memories(session, tenant)


@router.get(
    "/memories",
    response_model=list[MemoryInfo],
    dependencies=CHAT,
    summary="What the assistants remember about you",
)
async def list_memories(tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: _memories(s, tenant).all())


@router.get(
    "/memories/events",
    response_model=list[MemoryEventInfo],
    dependencies=CHAT,
    summary="Every ADD, UPDATE and DELETE of your memories, oldest first",
)
async def memory_events(tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: _memories(s, tenant).events())


@router.delete(
    "/memories/{memory_id}",
    status_code=204,
    response_model=None,
    dependencies=CHAT,
    responses=ROW_ERRORS,
    summary="Forget one memory",
)
async def delete_memory(memory_id: str, tenant: TenantDep, in_store: InStoreDep) -> Response:
    await in_store(lambda s: _memories(s, tenant).delete(memory_id))
    return Response(status_code=204)


@router.delete(
    "/memories", response_model=Forgotten, dependencies=CHAT, summary="Forget everything"
)
async def delete_memories(tenant: TenantDep, in_store: InStoreDep) -> Any:
    events = await in_store(lambda s: _memories(s, tenant).delete_all())
    return Forgotten(deleted=len(events))


@router.get(
    "/chats/{chat_id}/messages/{message_id}/context",
    response_model=ContextRecord,
    dependencies=CHAT,
    responses=ROW_ERRORS,
    summary="What the prompt answering a message held: scene, memories, summary, dropped turns",
)
async def turn_context(
    chat_id: str, message_id: RowId, tenant: TenantDep, in_store: InStoreDep
) -> Any:
    from datapilot.assistants.context_store import context_of

    return await in_store(lambda s: context_of(s, tenant, chat_id, message_id))
