"""Chats under `/api/v1/chats`: open, list, show, rename and delete the caller's (their messages
are `messages`, their files `files`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from datapilot.assistants.conversations import Chats
from datapilot.assistants.models import ChatIn, ChatInfo, ChatPatch
from datapilot.server.deps import CHAT, InStoreDep, TenantDep
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)


@router.post(
    "/chats", response_model=ChatInfo, status_code=201, dependencies=CHAT, responses=ROW_ERRORS
)
async def create_chat(body: ChatIn, tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Chats(s, tenant).create(body))


@router.get("/chats", response_model=list[ChatInfo], dependencies=CHAT)
async def list_chats(tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Chats(s, tenant).list())


@router.get("/chats/{chat_id}", response_model=ChatInfo, dependencies=CHAT, responses=ROW_ERRORS)
async def get_chat(chat_id: str, tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Chats(s, tenant).get(chat_id))


@router.patch("/chats/{chat_id}", response_model=ChatInfo, dependencies=CHAT, responses=ROW_ERRORS)
async def update_chat(
    chat_id: str, body: ChatPatch, tenant: TenantDep, in_store: InStoreDep
) -> Any:
    return await in_store(lambda s: Chats(s, tenant).update(chat_id, body))


@router.delete(
    "/chats/{chat_id}",
    status_code=204,
    response_model=None,
    dependencies=CHAT,
    responses=ROW_ERRORS,
)
async def delete_chat(chat_id: str, tenant: TenantDep, in_store: InStoreDep) -> Response:
    await in_store(lambda s: Chats(s, tenant).delete(chat_id))
    return Response(status_code=204)
