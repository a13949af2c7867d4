"""Files attached to chats: stored once per content (by SHA-256) under the data dir, with one
row per owner, so a file is reachable only by the tenant who uploaded it, and only while a chat
of theirs holds it (a guest's: one that has not expired; a key bound to an assistant: one of that
assistant's). An image attached to a chat reaches the model as an image part of the next human
message (see `normalise`)."""

from __future__ import annotations

import base64
import binascii
import logging
import mimetypes
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from datapilot.assistants.models import MessageInfo, Tenant
from datapilot.assistants.normalise import HistoryMessage
from datapilot.assistants.repo import NotFound, PlatformError, owned
from datapilot.core.context import ClientTable
from datapilot.settings import Settings
from datapilot.store.blobs import read_blob, share_blob, write_blob
from datapilot.store.models import Chat, ChatMessage, File, utcnow

log = logging.getLogger(__name__)


def files_root(settings: Settings) -> Path:
    """Where chat files live: under the data dir, one file per content hash."""
    return settings.data_dir / "files"


class FileIn(BaseModel):
    """A file sent as JSON: its name and its bytes in base64."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=500, description="The file's name, e.g. chart.png")
    content_base64: str = Field(min_length=1, description="The file's bytes, base64-encoded.")
    mime: str | None = Field(
        default=None, max_length=200, description="Its media type (default: from the name)."
    )

    def data(self) -> bytes:
        try:
            return base64.b64decode(self.content_base64, validate=True)
        except (binascii.Error, ValueError):
            raise PlatformError(
                "content_base64 is not valid base64; encode the file's bytes with base64 "
                "(e.g. `base64 -w0 FILE`)"
            ) from None

    def media_type(self) -> str:
        guessed, _ = mimetypes.guess_type(self.name)
        return self.mime or guessed or "application/octet-stream"


class FileInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    sha256: str
    mime: str
    size: int
    created_at: datetime


class Files:
    """One tenant's files; their bytes live under `root`, named by content hash."""

    def __init__(self, session: Session, tenant: Tenant, root: Path) -> None:
        self.session = session
        self.tenant = tenant
        self.root = root

    def add(self, name: str, mime: str, data: bytes) -> FileInfo:
        digest, path = write_blob(self.root, data)
        share_blob(self.session, digest, data)  # replicas on PostgreSQL read it from the store
        row = File(
            owner_id=self.tenant.user_id,
            guest_id=self.tenant.guest_id,
            name=name,
            sha256=digest,
            mime=mime,
            size=len(data),
            path=path,
        )
        self.session.add(row)
        self.session.flush()
        return FileInfo.model_validate(row)

    def _row(self, file_id: str) -> File:
        # A file is reachable through a chat of the tenant's that holds it: it goes when that
        # chat is deleted (or, a guest's, expires), and a key bound to an assistant reaches the
        # files of that assistant's chats only.
        holder = select(ChatMessage.id).join(Chat, Chat.id == ChatMessage.chat_id)
        holder = holder.where(
            ChatMessage.file_id == File.id,
            owned(Chat.owner_id, Chat.guest_id, self.tenant),
            or_(Chat.expires_at.is_(None), Chat.expires_at > utcnow()),
        )
        if self.tenant.assistant_id is not None:
            holder = holder.where(Chat.assistant_id == self.tenant.assistant_id)
        query = select(File).where(
            File.id == file_id,
            owned(File.owner_id, File.guest_id, self.tenant),
            holder.exists(),
        )
        row = self.session.scalar(query)
        if row is None:
            raise NotFound(f"no file {file_id!r}; a chat's file messages carry their file_id")
        return row

    def get(self, file_id: str) -> FileInfo:
        return FileInfo.model_validate(self._row(file_id))

    def content(self, file_id: str) -> tuple[FileInfo, bytes]:
        row = self._row(file_id)
        try:
            data = read_blob(self.session, self.root, row.path, row.sha256)
            return FileInfo.model_validate(row), data
        except FileNotFoundError:
            raise NotFound(f"the bytes of file {file_id!r} are gone from the data dir") from None

    def history(self, messages: list[MessageInfo]) -> list[HistoryMessage]:
        """Messages as normalisation reads them, a file message with its image as a data URL."""
        from datapilot.data.client_files import is_table_file  # pandas: when a chat is read

        history = []
        for message in messages:
            item = HistoryMessage.of(message)
            if message.role == "file" and message.file_id is not None:
                try:
                    info, data = self.content(message.file_id)
                except NotFound:
                    item.file_name = message.content or None
                else:
                    item.file_name = info.name
                    if info.mime.startswith("image/"):
                        encoded = base64.b64encode(data).decode()
                        item.image_url = f"data:{info.mime};base64,{encoded}"
                    elif is_table_file(info.name):
                        item.tables = spreadsheet_tables(info.name, data)
            history.append(item)
        return history


def spreadsheet_tables(name: str, data: bytes) -> list[ClientTable]:
    """The tables of an attached spreadsheet; none (the file stays a note) when unreadable."""
    from datapilot.data.client_files import read_table_file
    from datapilot.data.documents import DocumentError

    try:
        return read_table_file(name, data)
    except DocumentError as error:
        log.info("attached file %r not read as a table: %s", name, error)
        return []


def attached_tables(history: list[HistoryMessage]) -> list[ClientTable]:
    """The tables of the spreadsheets attached to a chat, the latest first (of two files with
    the same name, the latest's)."""
    found: dict[str, ClientTable] = {}
    for message in reversed(history):
        for table in message.tables:
            found.setdefault(table.name, table)
    return list(found.values())
