"""The platform's REST API under `/api/v1/`: assistants, tools, chats, messages, scene prompts,
keys and usage. Every route acts for the caller's tenant (the key's user; on a keyless loopback
server, the local user), so another tenant's rows answer 404 like rows that do not exist."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote

import anyio
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select

from datapilot.assistants.files import FileIn, FileInfo, Files
from datapilot.assistants.models import (
    AssistantIn,
    AssistantInfo,
    AssistantPatch,
    ChatIn,
    ChatInfo,
    ChatPatch,
    MessageInfo,
    ScenePromptIn,
    ScenePromptInfo,
    Tenant,
    ToolInfo,
    UsageReport,
)
from datapilot.assistants.repo import (
    Assistants,
    Chats,
    Messages,
    NotFound,
    ScenePrompts,
    Usage,
    local_user,
)
from datapilot.assistants.service import (
    Conversation,
    MessageIn,
    files_root,
    tool_ids,
)
from datapilot.core.messages import LmcChunk
from datapilot.server.auth import require_scope
from datapilot.server.chat_turns import MessagesReply, reply
from datapilot.server.docs import sse_event_schema
from datapilot.server.errors import CLIENT_ERRORS, VALIDATION_RESPONSES, http_error
from datapilot.settings import Settings
from datapilot.store import Principal, Scope, Store
from datapilot.store.accounts import KeyInfo, Keys
from datapilot.store.models import ApiKey, User

T = TypeVar("T")
router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)
chat_scope = [Depends(require_scope("chat"))]
manage_scope = [Depends(require_scope("manage"))]
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The request cannot be done as asked; `detail` says why."},
    404: {"description": "No such row for this caller."},
}


async def tenant_of(request: Request) -> Tenant:
    """The caller's tenant: the key's user, or the local user of a keyless loopback server."""
    principal: Principal | None = getattr(request.state, "principal", None)
    if principal is not None:
        return Tenant(
            user_id=principal.user_id,
            key_id=principal.key_id,
            assistant_id=principal.assistant_id,
            scopes=frozenset(principal.scopes),
        )
    store: Store = request.app.state.store
    return Tenant(user_id=await anyio.to_thread.run_sync(_local_user, store))


def _local_user(store: Store) -> str:
    with store.session() as session:  # the usual case: it exists, a read suffices
        found = session.scalar(select(User.id).order_by(User.created_at).limit(1))
    if found is not None:
        return found
    with store.session(write=True) as session:
        return local_user(session)


async def in_store(request: Request, work: Callable[..., T], *args: Any) -> T:
    """Run `work(session, *args)` in one transaction off the event loop; errors become 4xx."""
    store: Store = request.app.state.store
    write = request.method != "GET"  # GETs may record tools too; rarely, and idempotently

    def run() -> T:
        with store.session(write=write) as session:
            return work(session, *args)

    return await off_loop(run)


async def off_loop(work: Callable[[], T]) -> T:
    """Run blocking `work` in a worker thread; platform errors become 400 and 404 answers."""
    try:
        return await anyio.to_thread.run_sync(work)
    except CLIENT_ERRORS as error:
        raise http_error(error) from None


def _tool_ids(request: Request, session: Any, tenant: Tenant | None = None) -> dict[str, str]:
    """Tool name → id: the built-ins, and the tenant's imported tools."""
    return tool_ids(session, request.app.state.settings, tenant)


# --- tools and assistants -------------------------------------------------------------------


@router.get("/tools", response_model=list[ToolInfo], dependencies=chat_scope, summary="Tools")
async def list_tools(request: Request, tenant: Tenant = Depends(tenant_of)) -> list[ToolInfo]:
    def work(session: Any) -> list[ToolInfo]:
        from datapilot.store.models import Tool as ToolRow

        _tool_ids(request, session)
        mine = ToolRow.owner_id.is_(None)
        if tenant.user_id is not None:  # and the tools this user imported
            rows = session.scalars(
                select(ToolRow).where(mine | (ToolRow.owner_id == tenant.user_id))
            )
        else:
            rows = session.scalars(select(ToolRow).where(mine))
        return [ToolInfo.model_validate(row) for row in rows]

    return await in_store(request, work)


@router.post(
    "/assistants",
    response_model=AssistantInfo,
    status_code=201,
    dependencies=manage_scope,
    responses=ERRORS,
    summary="Create an assistant",
)
async def create_assistant(
    body: AssistantIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> AssistantInfo:
    def work(session: Any) -> AssistantInfo:
        return Assistants(session, tenant).create(body, _tool_ids(request, session, tenant))

    return await in_store(request, work)


@router.get("/assistants", response_model=list[AssistantInfo], dependencies=chat_scope)
async def list_assistants(
    request: Request, tenant: Tenant = Depends(tenant_of)
) -> list[AssistantInfo]:
    return await in_store(request, lambda s: Assistants(s, tenant).list())


@router.get(
    "/assistants/{ref}", response_model=AssistantInfo, dependencies=chat_scope, responses=ERRORS
)
async def get_assistant(ref: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Assistants(s, tenant).get(ref))


@router.patch(
    "/assistants/{ref}", response_model=AssistantInfo, dependencies=manage_scope, responses=ERRORS
)
async def update_assistant(
    ref: str, body: AssistantPatch, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    def work(session: Any) -> AssistantInfo:
        return Assistants(session, tenant).update(ref, body, _tool_ids(request, session, tenant))

    return await in_store(request, work)


@router.delete(
    "/assistants/{ref}",
    status_code=204,
    response_model=None,
    dependencies=manage_scope,
    responses=ERRORS,
)
async def delete_assistant(
    ref: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    await in_store(request, lambda s: Assistants(s, tenant).delete(ref))
    request.app.state.key_gate.forget()  # its bound keys were revoked with it
    return Response(status_code=204)


# --- chats and messages ---------------------------------------------------------------------


@router.post(
    "/chats", response_model=ChatInfo, status_code=201, dependencies=chat_scope, responses=ERRORS
)
async def create_chat(body: ChatIn, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Chats(s, tenant).create(body))


@router.get("/chats", response_model=list[ChatInfo], dependencies=chat_scope)
async def list_chats(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Chats(s, tenant).list())


@router.get("/chats/{chat_id}", response_model=ChatInfo, dependencies=chat_scope, responses=ERRORS)
async def get_chat(chat_id: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Chats(s, tenant).get(chat_id))


@router.patch(
    "/chats/{chat_id}", response_model=ChatInfo, dependencies=chat_scope, responses=ERRORS
)
async def update_chat(
    chat_id: str, body: ChatPatch, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await in_store(request, lambda s: Chats(s, tenant).update(chat_id, body))


@router.delete(
    "/chats/{chat_id}",
    status_code=204,
    response_model=None,
    dependencies=chat_scope,
    responses=ERRORS,
)
async def delete_chat(
    chat_id: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    await in_store(request, lambda s: Chats(s, tenant).delete(chat_id))
    return Response(status_code=204)


@router.get(
    "/chats/{chat_id}/messages",
    response_model=list[MessageInfo],
    dependencies=chat_scope,
    responses=ERRORS,
)
async def list_messages(chat_id: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Messages(s, tenant).list(chat_id))


class FileMessage(BaseModel):
    """A file stored, and the `file` message that attaches it to the chat."""

    file: FileInfo
    message: MessageInfo


@router.post(
    "/chats/{chat_id}/files",
    response_model=FileMessage,
    status_code=201,
    dependencies=chat_scope,
    responses=ERRORS,
    summary="Attach a file to a chat (an image reaches the model with your next message)",
)
async def attach_file(
    chat_id: str, body: FileIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await in_store(request, attach(chat_id, body, tenant, request.app.state.settings))


def attach(
    chat_id: str, body: FileIn, tenant: Tenant, settings: Settings
) -> Callable[[Any], FileMessage]:
    """The store work of attaching a file to one of `tenant`'s chats (users' and guests')."""

    def work(session: Any) -> FileMessage:
        Chats(session, tenant).touch(chat_id)  # the chat must be the caller's, before any write
        data = body.data()
        info = Files(session, tenant, files_root(settings)).add(body.name, body.media_type(), data)
        message = Messages(session, tenant).add(chat_id, "file", info.name, file_id=info.id)
        return FileMessage(file=info, message=message)

    return work


# Shown inline: types a browser only displays, never runs. Anything else (HTML, SVG, XML,
# scripts, PDF…) is a download, whatever type its uploader claimed.
INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "text/plain"})
# Even a file a browser renders after all may run nothing, load nothing, and is not sniffed.
FILE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'",
}
_UNSAFE_IN_QUOTES = re.compile(r'[^\x20-\x7e]|["\\]')
FILE_DESCRIPTION = (
    "The file's bytes: PNG, JPEG, GIF, WebP images and plain text inline with their type, "
    "anything else as an `application/octet-stream` attachment (its type is in the file's `mime`)."
)


def file_response(info: FileInfo, data: bytes) -> Response:
    """A stored file as a browser may safely receive it: inline only when its type is a plain
    image or text, else an attachment; never sniffed, and sandboxed."""
    media = info.mime.split(";")[0].strip().lower()
    inline = media in INLINE_TYPES
    fallback = _UNSAFE_IN_QUOTES.sub("_", info.name)  # for clients that ignore filename*
    disposition = (
        f'{"inline" if inline else "attachment"}; filename="{fallback}"; '
        f"filename*=UTF-8''{quote(info.name, safe='')}"
    )
    return Response(
        content=data,
        # An attachment's claimed type is not repeated: a client that ignores the disposition
        # must not render it either.
        media_type=media if inline else "application/octet-stream",
        headers={"Content-Disposition": disposition, **FILE_HEADERS},
    )


@router.get(
    "/files/{file_id}",
    response_class=Response,
    dependencies=chat_scope,
    responses={200: {"description": FILE_DESCRIPTION}, **ERRORS},
    summary="A file you attached",
)
async def get_file(file_id: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Response:
    settings: Settings = request.app.state.settings
    info, data = await in_store(
        request, lambda s: Files(s, tenant, files_root(settings)).content(file_id)
    )
    return file_response(info, data)


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
    **ERRORS,
}


@router.post(
    "/chats/{chat_id}/messages",
    response_model=MessagesReply,
    dependencies=chat_scope,
    responses=MESSAGE_RESPONSES,
    summary="Send a message; the assistant's reply streams back",
)
async def send_message(
    chat_id: str,
    body: MessageIn,
    request: Request,
    response: Response,
    tenant: Tenant = Depends(tenant_of),
) -> Any:
    settings: Settings = request.app.state.settings
    conversation = Conversation(request.app.state.store, tenant, settings)
    return await reply(chat_id, body, conversation, settings, response)


# --- scene prompts, usage, keys -------------------------------------------------------------


@router.post(
    "/scene-prompts",
    response_model=ScenePromptInfo,
    status_code=201,
    dependencies=manage_scope,
    responses=ERRORS,
)
async def create_scene_prompt(
    body: ScenePromptIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await in_store(request, lambda s: ScenePrompts(s, tenant).create(body))


@router.get("/scene-prompts", response_model=list[ScenePromptInfo], dependencies=chat_scope)
async def list_scene_prompts(
    request: Request, assistant_id: str | None = None, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await in_store(request, lambda s: ScenePrompts(s, tenant).list(assistant_id))


@router.delete(
    "/scene-prompts/{prompt_id}",
    status_code=204,
    response_model=None,
    dependencies=manage_scope,
    responses=ERRORS,
)
async def delete_scene_prompt(
    prompt_id: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    await in_store(request, lambda s: ScenePrompts(s, tenant).delete(prompt_id))
    return Response(status_code=204)


@router.get("/usage", response_model=UsageReport, dependencies=chat_scope, summary="Your tokens")
async def usage(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(request, lambda s: Usage(s, tenant).report())


class KeyIn(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    scopes: list[Scope] = Field(default_factory=lambda: list[Scope](["chat"]))
    assistant_id: str | None = None


class NewKeyOut(BaseModel):
    key: str = Field(description="The key itself: shown this once, never again.")
    info: KeyInfo


@router.get("/keys", response_model=list[KeyInfo], dependencies=manage_scope)
async def list_keys(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await in_store(
        request, lambda s: [k for k in Keys(s).list() if k.owner_id == tenant.user_id]
    )


@router.post(
    "/keys", response_model=NewKeyOut, status_code=201, dependencies=manage_scope, responses=ERRORS
)
async def create_key(body: KeyIn, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    principal: Principal | None = getattr(request.state, "principal", None)
    if principal is not None and not principal.allows("admin"):
        extra = set(body.scopes) - set(principal.scopes)
        if extra:  # a key never mints one with more rights than its own
            raise HTTPException(403, f"your key lacks the scope(s) {', '.join(sorted(extra))}")

    if principal is not None and principal.assistant_id not in (None, body.assistant_id):
        # A bound key mints keys of its own assistant only.
        raise HTTPException(
            403,
            f"this API key is bound to the assistant {principal.assistant_id!r}: a key it "
            "makes must be bound to that assistant too (set assistant_id)",
        )

    def work(session: Any) -> NewKeyOut:
        assistant_id = body.assistant_id
        if assistant_id is not None:  # by id or name; the key is bound by id
            assistant_id = Assistants(session, tenant).get(assistant_id).id
        user = session.get(User, tenant.user_id)
        new = Keys(session).create(
            body.name, body.scopes, user=user.name, assistant_id=assistant_id
        )
        return NewKeyOut(key=new.key.get_secret_value(), info=new.info)

    created = await in_store(request, work)
    request.app.state.key_gate.forget()
    return created


@router.delete(
    "/keys/{key_id}", response_model=KeyInfo, dependencies=manage_scope, responses=ERRORS
)
async def revoke_key(key_id: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    def work(session: Any) -> KeyInfo:
        row = session.get(ApiKey, key_id)
        if row is None or row.owner_id != tenant.user_id:
            raise NotFound(f"no key {key_id!r}; list yours with GET /api/v1/keys")
        return Keys(session).revoke(row.id)

    revoked = await in_store(request, work)
    request.app.state.key_gate.forget()
    return revoked
