"""Users, their API keys (only a hash of each kept) and the ledger of the tokens they used."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    ForeignKey,
    Index,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, _created, _owner, new_id


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = _created()


class ApiKey(Base):
    """An API key: only the SHA-256 of the key is kept; `prefix` shows and finds it."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    name: Mapped[str] = mapped_column(String(200))
    prefix: Mapped[str] = mapped_column(String(32), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(200))  # space-separated
    assistant_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = _created()
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class UsageEntry(Base):
    """One model call's tokens, charged to a user (or guest), key, assistant and chat."""

    __tablename__ = "usage_ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner_id: Mapped[str | None] = _owner(nullable=True)
    guest_id: Mapped[str | None] = mapped_column(String(64))
    api_key_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("api_keys.id", ondelete="SET NULL"), index=True
    )
    assistant_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="SET NULL"), index=True
    )
    chat_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("chats.id", ondelete="SET NULL")
    )
    message_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("chat_messages.id", ondelete="SET NULL")
    )
    model: Mapped[str] = mapped_column(String(200), default="")
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    total_tokens: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (Index("ix_usage_ledger_owner_id_created_at", "owner_id", "created_at"),)
