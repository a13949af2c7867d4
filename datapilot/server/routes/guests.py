"""Guests of public assistants: chats without an API key, under `/api/v1/guest/`.

A guest is known by a random guest id the server hands out (the `X-Guest-Id` header of the
first answer, and a cookie); it reads and writes only its own chats, which expire after
`guest_chat_hours`, and may send `guest_messages_per_minute` messages a minute (counted in the
store, or Redis, so the limit holds across replicas). Only public
assistants take guests; a private one answers 404 like one that does not exist.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from datapilot.assistants.files import FileIn, Files
from datapilot.assistants.models import ChatIn, ChatInfo, MessageInfo, Tenant
from datapilot.assistants.repo import Chats, Messages
from datapilot.assistants.service import Conversation, MessageIn, files_root
from datapilot.server.chat_turns import MessagesReply, reply
from datapilot.server.deps import InStoreDep, SettingsDep, StoreDep
from datapilot.server.errors import ROW_ERRORS, BadRequest, TooManyRequests
from datapilot.server.routes.files import FILE_DESCRIPTION, FileMessage, attach, file_response
from datapilot.server.routes.messages import MESSAGE_RESPONSES
from datapilot.server.store_calls import off_loop
from datapilot.settings import Settings
from datapilot.store.rates import RateLimiter, rate_limiter

router = APIRouter(prefix="/api/v1/guest", tags=["Guests of public assistants"])
HEADER = "X-Guest-Id"
COOKIE = "datapilot_guest"
_MIN_ID = 20  # server-made ids are 32 characters; shorter ones are guessable
TOO_MANY: dict[int | str, dict[str, Any]] = {
    429: {"description": "Too many messages; wait a minute."}
}


def guest_of(request: Request, response: Response) -> Tenant:
    """The caller's guest id (header or cookie), or a new one handed back to keep."""
    given = request.headers.get(HEADER) or request.cookies.get(COOKIE)
    if given is not None and len(given) < _MIN_ID:
        raise BadRequest(f"{HEADER} is not a guest id this server gave out")
    guest_id = given or secrets.token_urlsafe(24)
    response.headers[HEADER] = guest_id
    response.set_cookie(COOKIE, guest_id, httponly=True, samesite="lax")
    return Tenant(guest_id=guest_id)


GuestDep = Annotated[Tenant, Depends(guest_of)]


def _limiter(request: Request) -> RateLimiter:
    state = request.app.state
    if getattr(state, "guest_limiter", None) is None:
        settings: Settings = state.settings
        # In the store (or Redis): the limit holds across every replica serving this store.
        state.guest_limiter = rate_limiter(
            settings, state.store, settings.guest_messages_per_minute
        )
    limiter: RateLimiter = state.guest_limiter
    return limiter


async def _within_limit(request: Request, tenant: Tenant) -> None:
    """Count one message (or file) of the guest; 429 past the limit."""
    limiter = _limiter(request)
    guest_id = tenant.guest_id
    if not await off_loop(lambda: limiter.allow(f"guest:{guest_id}")):
        raise TooManyRequests(f"at most {limiter.limit} messages a minute per guest; wait a little")


@router.post(
    "/assistants/{assistant_id}/chats",
    response_model=ChatInfo,
    status_code=201,
    responses=ROW_ERRORS,
    summary="Open a guest chat with a public assistant",
)
async def open_chat(
    assistant_id: str, tenant: GuestDep, settings: SettingsDep, in_store: InStoreDep
) -> Any:
    hours = timedelta(hours=settings.guest_chat_hours)
    body = ChatIn(name="guest", assistant_id=assistant_id)
    return await in_store(lambda s: Chats(s, tenant).create(body, expires_in=hours))


@router.get("/chats", response_model=list[ChatInfo], summary="The guest's chats")
async def list_chats(tenant: GuestDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Chats(s, tenant).list())


@router.get("/chats/{chat_id}/messages", response_model=list[MessageInfo], responses=ROW_ERRORS)
async def list_messages(chat_id: str, tenant: GuestDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: Messages(s, tenant).list(chat_id))


@router.post(
    "/chats/{chat_id}/messages",
    response_model=MessagesReply,
    responses={**MESSAGE_RESPONSES, **TOO_MANY},
    summary="Send a message as a guest",
)
async def send_message(
    chat_id: str,
    body: MessageIn,
    request: Request,
    response: Response,
    tenant: GuestDep,
    settings: SettingsDep,
    store: StoreDep,
) -> Any:
    assert tenant.guest_id is not None
    await _within_limit(request, tenant)
    if body.role not in ("human", "human_later"):
        raise BadRequest("guests send human or human_later messages")
    conversation = Conversation(store, tenant, settings)
    return await reply(chat_id, body, conversation, settings, response)


@router.post(
    "/chats/{chat_id}/files",
    response_model=FileMessage,
    status_code=201,
    responses={**ROW_ERRORS, **TOO_MANY},
    summary="Attach a file to a guest chat (yours alone; it expires with the chat)",
)
async def attach_file(
    chat_id: str,
    body: FileIn,
    request: Request,
    tenant: GuestDep,
    settings: SettingsDep,
    in_store: InStoreDep,
) -> Any:
    await _within_limit(request, tenant)
    return await in_store(attach(chat_id, body, tenant, settings))


@router.get(
    "/files/{file_id}",
    response_class=Response,
    responses={200: {"description": FILE_DESCRIPTION}, **ROW_ERRORS},
    summary="A file you attached to one of your guest chats",
)
async def get_file(
    file_id: str, tenant: GuestDep, settings: SettingsDep, in_store: InStoreDep
) -> Response:
    info, data = await in_store(lambda s: Files(s, tenant, files_root(settings)).content(file_id))
    return file_response(info, data)
