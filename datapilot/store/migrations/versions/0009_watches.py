"""Watches: a user's scheduled reports and alerts, their events (each run, its result and how
each channel fared) and the claims that run each due time once across replicas.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "watches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("spec", _JSON, nullable=False),
        sa.Column("channels", _JSON, nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("secret", sa.Text(), nullable=True),
        sa.Column("state", _JSON, nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
        sa.CheckConstraint("kind IN ('report', 'alert')", name=op.f("ck_watches_kind")),
        sa.CheckConstraint("status IN ('active', 'paused')", name=op.f("ck_watches_status")),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_watches_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watches")),
    )
    with op.batch_alter_table("watches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_watches_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "watch_claims",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("watch_id", sa.String(length=32), nullable=False),
        sa.Column("due_at", _WHEN, nullable=False),
        sa.Column("claimed_by", sa.String(length=200), nullable=False),
        sa.Column("claimed_at", _WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["watch_id"],
            ["watches.id"],
            name=op.f("fk_watch_claims_watch_id_watches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watch_claims")),
        sa.UniqueConstraint("watch_id", "due_at", name=op.f("uq_watch_claims_watch_id_due_at")),
    )
    op.create_table(
        "watch_events",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("watch_id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("due_at", _WHEN, nullable=True),
        sa.Column("fired_at", _WHEN, nullable=False),
        sa.Column("day", sa.Date(), nullable=True),
        sa.Column("entity", sa.String(length=100), nullable=True),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("threshold", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("result", _JSON, nullable=False),
        sa.Column("deliveries", _JSON, nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("read", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_watch_events_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["watch_id"],
            ["watches.id"],
            name=op.f("fk_watch_events_watch_id_watches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watch_events")),
    )
    with op.batch_alter_table("watch_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_watch_events_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index("ix_watch_events_owner_id_read", ["owner_id", "read"], unique=False)
        batch_op.create_index(
            "ix_watch_events_watch_id_fired_at", ["watch_id", "fired_at"], unique=False
        )


def downgrade() -> None:
    op.drop_table("watch_events")
    op.drop_table("watch_claims")
    op.drop_table("watches")
