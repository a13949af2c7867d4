"""Rate counters are named by their window (`60s:guest:ID`), so a per-minute limit's sweep no
longer deletes an hourly budget's counts. Counters named the old way would never be read or
swept again; they only ever held the last two slots, so they are dropped.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DELETE FROM rate_counters")


def downgrade() -> None:
    op.execute("DELETE FROM rate_counters")
