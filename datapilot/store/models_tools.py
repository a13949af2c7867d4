"""Imported tool sources: an OpenAPI document or an MCP server a user added, with its tools.

A source keeps what calling its tools needs (the operations read from the document, or the MCP
server's address and tool list), its auth with the secret only as a Fernet token or an
environment variable's name, and which of its tools the user trusts to run without asking.
Each of its tools also has a row in `tools` (owned by the user), so assistants bind to it
through `assistant_tools` like to any other tool.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models import Base, Json, new_id, utcnow

SOURCE_KINDS: tuple[str, ...] = ("openapi", "mcp")


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
