"""Assistants and the ready-made scene prompts a user picks from."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, _created, _owner, new_id, utcnow


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
