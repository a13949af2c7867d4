"""Memory, its audit of events, message blocks, chat summaries and turn contexts.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _when(name: str) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "memories",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        _when("created_at"),
        _when("updated_at"),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_memories_assistant_id_assistants"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_memories_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memories")),
    )
    op.create_index(op.f("ix_memories_owner_id"), "memories", ["owner_id"], unique=False)
    op.create_table(
        "memory_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("memory_id", sa.String(length=32), nullable=False),
        sa.Column("event", sa.String(length=10), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("previous", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("chat_id", sa.String(length=32), nullable=True),
        _when("created_at"),
        sa.CheckConstraint(
            "event IN ('ADD', 'UPDATE', 'DELETE')", name=op.f("ck_memory_events_event")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_memory_events_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_events")),
    )
    op.create_index(op.f("ix_memory_events_owner_id"), "memory_events", ["owner_id"], unique=False)
    op.create_table(
        "chat_summaries",
        sa.Column("chat_id", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("through_message_id", sa.Integer(), nullable=False),
        sa.Column("written_by", sa.String(length=20), nullable=False),
        _when("updated_at"),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["chats.id"],
            name=op.f("fk_chat_summaries_chat_id_chats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_chat_summaries")),
    )
    op.create_table(
        "message_blocks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.String(length=32), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("first_message_id", sa.Integer(), nullable=True),
        sa.Column("last_message_id", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["chats.id"],
            name=op.f("fk_message_blocks_chat_id_chats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_message_blocks")),
        sa.UniqueConstraint("chat_id", "digest", name=op.f("uq_message_blocks_chat_id_digest")),
    )
    op.create_table(
        "turn_contexts",
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.String(length=32), nullable=False),
        sa.Column("scene_id", sa.String(length=32), nullable=True),
        sa.Column("scene_label", sa.String(length=200), nullable=True),
        sa.Column("record", _JSON, nullable=False),
        _when("created_at"),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["chats.id"],
            name=op.f("fk_turn_contexts_chat_id_chats"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["chat_messages.id"],
            name=op.f("fk_turn_contexts_message_id_chat_messages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_turn_contexts")),
    )
    op.create_index("ix_turn_contexts_chat_id", "turn_contexts", ["chat_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_turn_contexts_chat_id", table_name="turn_contexts")
    op.drop_table("turn_contexts")
    op.drop_table("message_blocks")
    op.drop_table("chat_summaries")
    op.drop_index(op.f("ix_memory_events_owner_id"), table_name="memory_events")
    op.drop_table("memory_events")
    op.drop_index(op.f("ix_memories_owner_id"), table_name="memories")
    op.drop_table("memories")
