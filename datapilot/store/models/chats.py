"""Chats (a user's, or a guest's of a public assistant), their messages and attached files."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.core.messages import ROLES
from datapilot.store.models.base import Base, Json, _created, _owner, new_id, utcnow

# Roles a chat keeps; `system_override` replaces a prompt for one call and is never stored.
STORED_ROLES: tuple[str, ...] = tuple(role for role in ROLES if role != "system_override")


class Chat(Base):
    """A chat of a user, or of a guest of a public assistant (then it expires)."""

    __tablename__ = "chats"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str | None] = _owner(nullable=True)
    guest_id: Mapped[str | None] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    assistant_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="SET NULL"), index=True
    )
    prompt: Mapped[str | None] = mapped_column(Text)  # overrides the assistant's, per chat
    expires_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    __table_args__ = (
        CheckConstraint("owner_id IS NOT NULL OR guest_id IS NOT NULL", name="owned"),
    )


class File(Base):
    __tablename__ = "files"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str | None] = _owner(nullable=True)
    guest_id: Mapped[str | None] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(500), default="")
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    mime: Mapped[str] = mapped_column(String(200))
    size: Mapped[int] = mapped_column(BigInteger)
    path: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        CheckConstraint("owner_id IS NOT NULL OR guest_id IS NOT NULL", name="owned"),
    )


class ChatMessage(Base):
    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[str] = mapped_column(String(32), ForeignKey("chats.id", ondelete="CASCADE"))
    owner_id: Mapped[str | None] = _owner(nullable=True)
    guest_id: Mapped[str | None] = mapped_column(String(64))
    assistant_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="SET NULL")
    )
    role: Mapped[str] = mapped_column(String(20))
    content: Mapped[str] = mapped_column(Text, default="")
    tool_call: Mapped[dict[str, Any] | None] = mapped_column(Json)
    tool_call_id: Mapped[str | None] = mapped_column(String(200))
    file_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("files.id", ondelete="SET NULL")
    )
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    total_tokens: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        Index("ix_chat_messages_chat_id_id", "chat_id", "id"),
        CheckConstraint(f"role IN {STORED_ROLES!r}", name="role"),
        CheckConstraint("owner_id IS NOT NULL OR guest_id IS NOT NULL", name="owned"),
    )
