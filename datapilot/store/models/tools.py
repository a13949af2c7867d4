"""Tools an assistant may call, which assistant may call which (`assistant_tools`), and
imported tool sources: an OpenAPI document or an MCP server a user added, with its tools.

A source keeps what calling its tools needs (the operations read from the document, or the MCP
server's address and tool list), its auth with the secret only as a Fernet token or an
environment variable's name, and which of its tools the user trusts to run without asking.
Each of its tools also has a row in `tools` (owned by the user), so assistants bind to it
through `assistant_tools` like to any other tool.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, Json, _created, _owner, new_id, utcnow

TOOL_SOURCES: tuple[str, ...] = ("workflow", "interface", "openapi", "mcp", "interpreter")
SOURCE_KINDS: tuple[str, ...] = ("openapi", "mcp")


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


class ToolSource(Base):
    __tablename__ = "tool_sources"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    url: Mapped[str | None] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text, default="")
    spec: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    auth: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    trusted: Mapped[list[str]] = mapped_column(Json, default=list)
    problems: Mapped[list[str]] = mapped_column(Json, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    __table_args__ = (
        UniqueConstraint("owner_id", "name"),
        CheckConstraint(f"kind IN {SOURCE_KINDS!r}", name="kind"),
    )
