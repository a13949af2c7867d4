"""A chat's messages: `GET /api/v1/chats/{id}/messages` lists them; `POST` sends one, and the
assistant's reply streams back as LMC chunks (or comes as one body, see `chat_turns`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from datapilot.assistants.conversations import Messages
from datapilot.assistants.messages_in import MessageIn
from datapilot.assistants.models import MessageInfo
from datapilot.core.messages import LmcChunk
from datapilot.server.chat_turns import MessagesReply, reply
from datapilot.server.deps import CHAT, InStoreDep, SettingsDep, StoreDep, TenantDep
from datapilot.server.docs import sse_event_schema
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)

# The answers of sending a message (the guests' route documents the same).
MESSAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "With `stream=false`, the stored messages. With `stream=true` (the default), "
            "server-sent events whose `data` is one LMC chunk each: first `{role: server, type: "
            "status, format: message, content: {id, role}}` for your message; when the "
            "assistant has scene prompts, `{role: server, type: status, format: scene, content: "
            "{id, label, by}}` with the scene chosen; the turn's chunks as `/api/v1/ask` "
            "streams them, `{role: server, type: status, format: "
            "messages, content: {ids}}` with the stored replies' ids, then `complete`."
        ),
        "content": {
            "text/event-stream": {"schema": sse_event_schema(LmcChunk.model_json_schema())}
        },
        "headers": {
            "Server-Timing": {
                "description": "With `stream=false`: the platform's own steps of the message, "
                "`prepare;dur=<ms>, finish;dur=<ms>` (storing the message and setting up the "
                "turn; storing the reply).",
                "schema": {"type": "string"},
            }
        },
    },
    **ROW_ERRORS,
}


@router.get(
    "/chats/{chat_id}/messages",
    response_model=list[MessageInfo],
    dependencies=CHAT,
    responses=ROW_ERRORS,
)
async def list_messages(chat_id: str, tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Messages(s, tenant).list(chat_id))


@router.post(
    "/chats/{chat_id}/messages",
    response_model=MessagesReply,
    dependencies=CHAT,
    responses=MESSAGE_RESPONSES,
    summary="Send a message; the assistant's reply streams back",
)
async def send_message(
    chat_id: str,
    body: MessageIn,
    response: Response,
    tenant: TenantDep,
    settings: SettingsDep,
    store: StoreDep,
) -> Any:
    from datapilot.assistants.service import Conversation  # the runtime, on the first message

    conversation = Conversation(store, tenant, settings)
    return await reply(chat_id, body, conversation, settings, response)
