"""Imported tool sources (OpenAPI documents, MCP servers) with their auth and trusted tools.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "tool_sources",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("spec", _JSON, nullable=False),
        sa.Column("auth", _JSON, nullable=False),
        sa.Column("trusted", _JSON, nullable=False),
        sa.Column("problems", _JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('openapi', 'mcp')", name=op.f("ck_tool_sources_kind")),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_tool_sources_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_sources")),
        sa.UniqueConstraint("owner_id", "name", name=op.f("uq_tool_sources_owner_id_name")),
    )
    with op.batch_alter_table("tool_sources", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_sources_owner_id"), ["owner_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tool_sources", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_sources_owner_id"))
    op.drop_table("tool_sources")
