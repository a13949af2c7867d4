"""Rate-limit counters shared by every server process on the store.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_counters",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("slot", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "slot", name=op.f("pk_rate_counters")),
    )
    op.create_index(op.f("ix_rate_counters_slot"), "rate_counters", ["slot"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_rate_counters_slot"), table_name="rate_counters")
    op.drop_table("rate_counters")
