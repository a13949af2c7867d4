"""Alembic's environment for the store: always run programmatically by `datapilot.store.migrate`,
which passes an open connection (and holds the migration lock) in `config.attributes`."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from datapilot.store.models import Base

connection: Connection | None = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run store migrations with `datapilot db upgrade`")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    # One transaction per migration (its DDL and the version row together): a failure leaves
    # the database at the previous version, never half-way.
    transaction_per_migration=True,
    render_as_batch=True,  # SQLite alters tables by copying them
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
