"""Tables of memory, context compression and scene choice.

A memory is one fact a user asked to keep, or a model extracted from a turn; every change of one
is an event (ADD / UPDATE / DELETE) kept after the memory itself is gone, so the audit outlives
the fact. Message blocks are a chat's older exchanges (one human→assistant exchange each, unique
by their text's hash); a chat's summary is the rolling summary of what aged out of the prompt; a
turn's context records what the answered message's prompt held and what was dropped from it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, Json, _created, _owner, new_id, utcnow
from datapilot.store.vectors import Embedding

MEMORY_EVENTS: tuple[str, ...] = ("ADD", "UPDATE", "DELETE")


class Memory(Base):
    __tablename__ = "memories"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    assistant_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("assistants.id", ondelete="SET NULL")
    )
    text: Mapped[str] = mapped_column(Text)
    # Its vector when an embeddings endpoint is set (made when first needed, cleared on update).
    embedding: Mapped[Any] = mapped_column(Embedding(), nullable=True)
    dim: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class MemoryEvent(Base):
    """One change of a memory; `memory_id` is kept (no foreign key) after the memory is gone."""

    __tablename__ = "memory_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner_id: Mapped[str] = _owner()
    memory_id: Mapped[str] = mapped_column(String(32))
    event: Mapped[str] = mapped_column(String(10))
    text: Mapped[str] = mapped_column(Text, default="")
    previous: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(20))  # "explicit" or "model"
    assistant_id: Mapped[str | None] = mapped_column(String(32))
    chat_id: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = _created()

    __table_args__ = (CheckConstraint(f"event IN {MEMORY_EVENTS!r}", name="event"),)


class MessageBlock(Base):
    __tablename__ = "message_blocks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[str] = mapped_column(String(32), ForeignKey("chats.id", ondelete="CASCADE"))
    digest: Mapped[str] = mapped_column(String(64))
    first_message_id: Mapped[int | None] = mapped_column(Integer)
    last_message_id: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    tokens: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (UniqueConstraint("chat_id", "digest"),)


class ChatSummary(Base):
    __tablename__ = "chat_summaries"

    chat_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True
    )
    text: Mapped[str] = mapped_column(Text, default="")
    through_message_id: Mapped[int] = mapped_column(Integer, default=0)
    written_by: Mapped[str] = mapped_column(String(20), default="extractive")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class TurnContext(Base):
    """What the prompt answering one human message held: scene, memories, blocks, summary, and
    which earlier messages were summarised or dropped to fit the budget."""

    __tablename__ = "turn_contexts"

    message_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("chat_messages.id", ondelete="CASCADE"), primary_key=True
    )
    chat_id: Mapped[str] = mapped_column(String(32), ForeignKey("chats.id", ondelete="CASCADE"))
    scene_id: Mapped[str | None] = mapped_column(String(32))
    scene_label: Mapped[str | None] = mapped_column(String(200))
    record: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (Index("ix_turn_contexts_chat_id", "chat_id"),)
