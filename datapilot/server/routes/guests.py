"""Guests of public assistants: chats without an API key, under `/api/v1/guest/`.

A guest is known by a random guest id the server hands out (the `X-Guest-Id` header of the
first answer, and a cookie); it reads and writes only its own chats, which expire after
`guest_chat_hours`. Only public assistants take guests; a private one answers 404 like one that
does not exist.

A guest id is the client's to choose, so its limit alone (`guest_messages_per_minute`) would
hold nobody back who takes a new one per message. Two more hold on what the client cannot
rotate: its address (`guest_requests_per_minute_per_address`, chats opened included; an IPv6
client by its /64) and the assistant's budget for all its guests together
(`guest_messages_per_hour_per_assistant`). All are counted in the store, or Redis, so they hold
across replicas.
"""

from __future__ import annotations

import ipaddress
import secrets
from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from datapilot.assistants.conversations import Chats, Messages
from datapilot.assistants.files import FileIn, Files, files_root
from datapilot.assistants.messages_in import MessageIn
from datapilot.assistants.models import ChatIn, ChatInfo, MessageInfo, Tenant
from datapilot.server.chat_turns import MessagesReply, reply
from datapilot.server.deps import InStoreDep, SettingsDep, StoreDep
from datapilot.server.errors import ROW_ERRORS, BadRequest, TooManyRequests
from datapilot.server.routes.files import FILE_DESCRIPTION, FileMessage, attach, file_response
from datapilot.server.routes.messages import MESSAGE_RESPONSES
from datapilot.server.store_calls import off_loop
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.store.rates import RateLimiter, rate_limiter

router = APIRouter(prefix="/api/v1/guest", tags=["Guests of public assistants"])
HEADER = "X-Guest-Id"
COOKIE = "datapilot_guest"
_MIN_ID = 20  # server-made ids are 32 characters; shorter ones are guessable
TOO_MANY: dict[int | str, dict[str, Any]] = {
    429: {"description": "Over a guests' limit (of the guest, its address or the assistant)."}
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


def _limiter(request: Request, name: str, limit: int, window_s: float = 60.0) -> RateLimiter:
    """The app's limiter `name`, made on first use: in the store (or Redis), so the limit holds
    across every replica serving this store."""
    state = request.app.state
    limiters: dict[str, RateLimiter] | None = getattr(state, "guest_limiters", None)
    if limiters is None:
        limiters = state.guest_limiters = {}
    if name not in limiters:
        limiters[name] = rate_limiter(state.settings, state.store, limit, window_s)
    return limiters[name]


def client_address(request: Request) -> str:
    """The client's address as the guests' limits count it: an IPv6 client by its /64 network,
    within which one host may take any address. Behind a reverse proxy this is the address
    the proxy forwarded (uvicorn's `--proxy-headers`, from the addresses it trusts)."""
    host = request.client.host if request.client is not None else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


async def _count(limiter: RateLimiter, key: str, refusal: str) -> None:
    if not await off_loop(lambda: limiter.allow(key)):
        raise TooManyRequests(refusal)


async def _address_within_limit(request: Request) -> None:
    """Count one request of the client's address (whatever guest id it sends); 429 past it."""
    settings: Settings = request.app.state.settings
    limit = settings.guest_requests_per_minute_per_address
    await _count(
        _limiter(request, "address", limit),
        f"guest-address:{client_address(request)}",
        f"at most {limit} guest requests a minute from one address "
        "(DATAPILOT_GUEST_REQUESTS_PER_MINUTE_PER_ADDRESS); wait a little",
    )


async def _within_limit(request: Request, tenant: Tenant, chat_id: str, store: Store) -> None:
    """Count one message (or file) of the guest: against its address's limit, its own, and its
    assistant's budget, in that order; 429 past any. A request refused by one limit is not
    counted by the next: a client that keeps hammering spends no assistant's budget."""
    settings: Settings = request.app.state.settings
    await _address_within_limit(request)
    per_guest = settings.guest_messages_per_minute
    await _count(
        _limiter(request, "guest", per_guest),
        f"guest:{tenant.guest_id}",
        f"at most {per_guest} messages a minute per guest (DATAPILOT_GUEST_MESSAGES_PER_MINUTE); "
        "wait a little",
    )

    def assistant_of_chat() -> str | None:
        with store.session() as session:  # the guest's own chat, or a 404
            return Chats(session, tenant).get(chat_id).assistant_id

    assistant = await off_loop(assistant_of_chat)
    if assistant is None:
        return
    budget = settings.guest_messages_per_hour_per_assistant
    await _count(
        _limiter(request, "assistant", budget, window_s=3600.0),
        f"guest-assistant:{assistant}",
        f"this assistant has taken {budget} messages from its guests in the past hour, the most "
        "its server allows (DATAPILOT_GUEST_MESSAGES_PER_HOUR_PER_ASSISTANT); try again later",
    )


@router.post(
    "/assistants/{assistant_id}/chats",
    response_model=ChatInfo,
    status_code=201,
    responses={**ROW_ERRORS, **TOO_MANY},
    summary="Open a guest chat with a public assistant",
)
async def open_chat(
    assistant_id: str,
    request: Request,
    tenant: GuestDep,
    settings: SettingsDep,
    in_store: InStoreDep,
) -> Any:
    await _address_within_limit(request)  # a new guest id per chat must not lift the limit
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
    await _within_limit(request, tenant, chat_id, store)
    if body.role not in ("human", "human_later"):
        raise BadRequest("guests send human or human_later messages")
    from datapilot.assistants.service import Conversation  # the runtime, on the first message

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
    store: StoreDep,
    in_store: InStoreDep,
) -> Any:
    await _within_limit(request, tenant, chat_id, store)
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
