"""The platform's tables (after Amber's entities), as SQLAlchemy 2 typed models.

Every row names its owner (`owner_id`, a user) so that routes scope each query to the caller's
tenant; chats, messages and files opened by a guest of a public assistant carry a `guest_id`
instead. Ids are random (not guessable, not counting rows), except chat messages and usage
entries, whose integer ids give their order. The schema itself is created and changed only by
the Alembic migrations in `migrations/`, which must match these models
(`tests/store/test_store.py` compares them).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from datapilot.core.messages import ROLES

# Roles a chat keeps; `system_override` replaces a prompt for one call and is never stored.
STORED_ROLES: tuple[str, ...] = tuple(role for role in ROLES if role != "system_override")
TOOL_SOURCES: tuple[str, ...] = ("workflow", "interface", "openapi", "mcp", "interpreter")

# Named constraints, so that migrations can refer to them on every backend.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def new_id() -> str:
    return uuid.uuid4().hex


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and read back timezone-aware (SQLite forgets the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("store timestamps must be timezone-aware")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


Json = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UtcDateTime(), dict[str, Any]: Json}


def _owner(nullable: bool = False) -> Mapped[Any]:
    return mapped_column(
        String(32), ForeignKey("users.id", ondelete="CASCADE"), index=True, nullable=nullable
    )


def _created() -> Mapped[Any]:
    return mapped_column(default=utcnow)


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


class Assistant(Base):
    __tablename__ = "assistants"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    prompt: Mapped[str] = mapped_column(Text, default="")
    model: Mapped[str | None] = mapped_column(String(200))
    temperature: Mapped[float | None] = mapped_column(Float)
    public: Mapped[bool] = mapped_column(Boolean, default=False)
    disable_default_prompt: Mapped[bool] = mapped_column(Boolean, default=False)
    disable_memory: Mapped[bool] = mapped_column(Boolean, default=False)
    enable_memory_for_api: Mapped[bool] = mapped_column(Boolean, default=False)
    library_id: Mapped[str | None] = mapped_column(String(32))  # knowledge libraries come later
    prompt_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    completion_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    total_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    __table_args__ = (UniqueConstraint("owner_id", "name"),)


class Tool(Base):
    """A tool an assistant may call; a NULL owner is a built-in every user sees."""

    __tablename__ = "tools"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str | None] = _owner(nullable=True)
    name: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(20))
    description: Mapped[str] = mapped_column(Text, default="")
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        UniqueConstraint("owner_id", "name"),
        CheckConstraint(f"source IN {TOOL_SOURCES!r}", name="source"),
    )


class AssistantTool(Base):
    __tablename__ = "assistant_tools"

    assistant_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="CASCADE"), primary_key=True
    )
    tool_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tools.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    owner_id: Mapped[str] = _owner()
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = _created()


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


class ScenePrompt(Base):
    """A ready-made prompt a user picks from (a label and its text), optionally per assistant."""

    __tablename__ = "scene_prompts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    label: Mapped[str] = mapped_column(String(200))
    prompt: Mapped[str] = mapped_column(Text)
    assistant_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = _created()


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


# The other areas' tables join this metadata.
from datapilot.store import models_knowledge, models_memory, models_platform, models_tools  # noqa: E402, F401
