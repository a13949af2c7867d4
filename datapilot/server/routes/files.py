"""Files of chats: `POST /api/v1/chats/{id}/files` attaches one (an image reaches the model
with the next message), `GET /api/v1/files/{id}` gives its bytes back as a browser may safely
receive them. Guests attach and read theirs the same way (`guests`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Response
from pydantic import BaseModel
from sqlalchemy.orm import Session

from datapilot.assistants.conversations import Chats, Messages
from datapilot.assistants.files import FileIn, FileInfo, Files, files_root
from datapilot.assistants.models import MessageInfo, Tenant
from datapilot.server.deps import CHAT, InStoreDep, SettingsDep, TenantDep
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES
from datapilot.settings import Settings

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)

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


class FileMessage(BaseModel):
    """A file stored, and the `file` message that attaches it to the chat."""

    file: FileInfo
    message: MessageInfo


def attach(
    chat_id: str, body: FileIn, tenant: Tenant, settings: Settings
) -> Callable[[Session], FileMessage]:
    """The store work of attaching a file to one of `tenant`'s chats (users' and guests')."""

    def work(session: Session) -> FileMessage:
        Chats(session, tenant).touch(chat_id)  # the chat must be the caller's, before any write
        data = body.data()
        info = Files(session, tenant, files_root(settings)).add(body.name, body.media_type(), data)
        message = Messages(session, tenant).add(chat_id, "file", info.name, file_id=info.id)
        return FileMessage(file=info, message=message)

    return work


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


@router.post(
    "/chats/{chat_id}/files",
    response_model=FileMessage,
    status_code=201,
    dependencies=CHAT,
    responses=ROW_ERRORS,
    summary="Attach a file to a chat (an image reaches the model with your next message)",
)
async def attach_file(
    chat_id: str, body: FileIn, tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> Any:
    return await in_store(attach(chat_id, body, tenant, settings))


@router.get(
    "/files/{file_id}",
    response_class=Response,
    dependencies=CHAT,
    responses={200: {"description": FILE_DESCRIPTION}, **ROW_ERRORS},
    summary="A file you attached",
)
async def get_file(
    file_id: str, tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> Response:
    info, data = await in_store(lambda s: Files(s, tenant, files_root(settings)).content(file_id))
    return file_response(info, data)
