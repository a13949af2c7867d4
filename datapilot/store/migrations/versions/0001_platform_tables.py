"""The platform's tables: users, API keys, assistants, tools and their bindings, chats, chat
messages, files, scene prompts and the usage ledger.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "assistants",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("temperature", sa.Float(), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("disable_default_prompt", sa.Boolean(), nullable=False),
        sa.Column("disable_memory", sa.Boolean(), nullable=False),
        sa.Column("enable_memory_for_api", sa.Boolean(), nullable=False),
        sa.Column("library_id", sa.String(length=32), nullable=True),
        sa.Column("prompt_tokens", sa.BigInteger(), nullable=False),
        sa.Column("completion_tokens", sa.BigInteger(), nullable=False),
        sa.Column("total_tokens", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_assistants_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assistants")),
        sa.UniqueConstraint("owner_id", "name", name=op.f("uq_assistants_owner_id_name")),
    )
    with op.batch_alter_table("assistants", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_assistants_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "files",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("guest_id", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("mime", sa.String(length=200), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "owner_id IS NOT NULL OR guest_id IS NOT NULL", name=op.f("ck_files_owned")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_files_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_files")),
    )
    with op.batch_alter_table("files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_files_guest_id"), ["guest_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_files_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_files_sha256"), ["sha256"], unique=False)

    op.create_table(
        "tools",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("config", _JSON, nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "source IN ('workflow', 'interface', 'openapi', 'mcp', 'interpreter')",
            name=op.f("ck_tools_source"),
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_tools_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tools")),
        sa.UniqueConstraint("owner_id", "name", name=op.f("uq_tools_owner_id_name")),
    )
    with op.batch_alter_table("tools", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tools_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("prefix", sa.String(length=32), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("scopes", sa.String(length=200), nullable=False),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_api_keys_assistant_id_assistants"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_api_keys_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("prefix", name=op.f("uq_api_keys_prefix")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_keys_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "assistant_tools",
        sa.Column("assistant_id", sa.String(length=32), nullable=False),
        sa.Column("tool_id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("config", _JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_assistant_tools_assistant_id_assistants"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_assistant_tools_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tool_id"],
            ["tools.id"],
            name=op.f("fk_assistant_tools_tool_id_tools"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assistant_id", "tool_id", name=op.f("pk_assistant_tools")),
    )
    with op.batch_alter_table("assistant_tools", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_assistant_tools_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_assistant_tools_tool_id"), ["tool_id"], unique=False)

    op.create_table(
        "chats",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("guest_id", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("prompt", sa.Text(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "owner_id IS NOT NULL OR guest_id IS NOT NULL", name=op.f("ck_chats_owned")
        ),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_chats_assistant_id_assistants"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_chats_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chats")),
    )
    with op.batch_alter_table("chats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chats_assistant_id"), ["assistant_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_chats_guest_id"), ["guest_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_chats_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "scene_prompts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_scene_prompts_assistant_id_assistants"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_scene_prompts_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scene_prompts")),
    )
    with op.batch_alter_table("scene_prompts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_scene_prompts_assistant_id"), ["assistant_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_scene_prompts_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("guest_id", sa.String(length=64), nullable=True),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("tool_call", _JSON, nullable=True),
        sa.Column("tool_call_id", sa.String(length=200), nullable=True),
        sa.Column("file_id", sa.String(length=32), nullable=True),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("total_tokens", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "role IN ('human', 'human_later', 'human_hidden', 'system', 'system_hidden', "
            "'assistant', 'tool_call', 'tool', 'file', 'knowledge')",
            name=op.f("ck_chat_messages_role"),
        ),
        sa.CheckConstraint(
            "owner_id IS NOT NULL OR guest_id IS NOT NULL", name=op.f("ck_chat_messages_owned")
        ),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_chat_messages_assistant_id_assistants"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["chats.id"],
            name=op.f("fk_chat_messages_chat_id_chats"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["file_id"],
            ["files.id"],
            name=op.f("fk_chat_messages_file_id_files"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_chat_messages_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
    )
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.create_index("ix_chat_messages_chat_id_id", ["chat_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_chat_messages_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "usage_ledger",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("guest_id", sa.String(length=64), nullable=True),
        sa.Column("api_key_id", sa.String(length=32), nullable=True),
        sa.Column("assistant_id", sa.String(length=32), nullable=True),
        sa.Column("chat_id", sa.String(length=32), nullable=True),
        sa.Column("message_id", sa.Integer(), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("total_tokens", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["api_key_id"],
            ["api_keys.id"],
            name=op.f("fk_usage_ledger_api_key_id_api_keys"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["assistant_id"],
            ["assistants.id"],
            name=op.f("fk_usage_ledger_assistant_id_assistants"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["chats.id"],
            name=op.f("fk_usage_ledger_chat_id_chats"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["chat_messages.id"],
            name=op.f("fk_usage_ledger_message_id_chat_messages"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_usage_ledger_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_usage_ledger")),
    )
    with op.batch_alter_table("usage_ledger", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_usage_ledger_api_key_id"), ["api_key_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_usage_ledger_assistant_id"), ["assistant_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_usage_ledger_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(
            "ix_usage_ledger_owner_id_created_at", ["owner_id", "created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("usage_ledger", schema=None) as batch_op:
        batch_op.drop_index("ix_usage_ledger_owner_id_created_at")
        batch_op.drop_index(batch_op.f("ix_usage_ledger_owner_id"))
        batch_op.drop_index(batch_op.f("ix_usage_ledger_assistant_id"))
        batch_op.drop_index(batch_op.f("ix_usage_ledger_api_key_id"))

    op.drop_table("usage_ledger")
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_messages_owner_id"))
        batch_op.drop_index("ix_chat_messages_chat_id_id")

    op.drop_table("chat_messages")
    with op.batch_alter_table("scene_prompts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_scene_prompts_owner_id"))
        batch_op.drop_index(batch_op.f("ix_scene_prompts_assistant_id"))

    op.drop_table("scene_prompts")
    with op.batch_alter_table("chats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chats_owner_id"))
        batch_op.drop_index(batch_op.f("ix_chats_guest_id"))
        batch_op.drop_index(batch_op.f("ix_chats_assistant_id"))

    op.drop_table("chats")
    with op.batch_alter_table("assistant_tools", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_assistant_tools_tool_id"))
        batch_op.drop_index(batch_op.f("ix_assistant_tools_owner_id"))

    op.drop_table("assistant_tools")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_keys_owner_id"))

    op.drop_table("api_keys")
    with op.batch_alter_table("tools", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tools_owner_id"))

    op.drop_table("tools")
    with op.batch_alter_table("files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_files_sha256"))
        batch_op.drop_index(batch_op.f("ix_files_owner_id"))
        batch_op.drop_index(batch_op.f("ix_files_guest_id"))

    op.drop_table("files")
    with op.batch_alter_table("assistants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_assistants_owner_id"))

    op.drop_table("assistants")
    op.drop_table("users")
