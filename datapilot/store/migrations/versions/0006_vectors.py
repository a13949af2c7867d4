"""Vectors in the store: pgvector on PostgreSQL, float32 BLOBs on SQLite, each with its dimension;
the chunks' JSON vectors converted; memories get a vector too.

Indexes for vector search are made at run time, one per dimension (`ix_vec_…`), since an index
needs a fixed dimension and the store serves any embeddings model.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import sqlalchemy as sa
from alembic import op

from datapilot.store.vectors import Embedding

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _extension(bind: sa.Connection) -> None:
    if bind.dialect.name != "postgresql":
        return
    present = bind.scalar(sa.text("SELECT 1 FROM pg_extension WHERE extname = 'vector'"))
    if present:
        return
    available = bind.scalar(sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"))
    if not available:
        raise RuntimeError(
            "the PostgreSQL server lacks the pgvector extension, which Datapilot stores vectors "
            "with: install pgvector on the server (https://github.com/pgvector/pgvector)"
        )
    # Needs a superuser (or a database owner on PostgreSQL 13+ when the extension is trusted):
    # the error says so when the store's user may not.
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")


def upgrade() -> None:
    bind = op.get_bind()
    _extension(bind)
    with op.batch_alter_table("library_chunks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("vector", Embedding(), nullable=True))
        batch_op.add_column(sa.Column("dim", sa.Integer(), nullable=True))
    chunks = sa.table(
        "library_chunks",
        sa.column("id", sa.Integer()),
        sa.column("vector", Embedding()),
        sa.column("dim", sa.Integer()),
    )
    rows = bind.execute(sa.text("SELECT id, embedding FROM library_chunks")).all()
    for chunk_id, stored in rows:
        values = json.loads(stored) if isinstance(stored, str) else stored
        if isinstance(values, list) and values:
            vector = np.asarray(values, dtype=np.float32)
            bind.execute(
                chunks.update()
                .where(chunks.c.id == chunk_id)
                .values(vector=vector, dim=int(vector.shape[0]))
            )
    with op.batch_alter_table("library_chunks", schema=None) as batch_op:
        batch_op.drop_column("embedding")
        batch_op.alter_column("vector", new_column_name="embedding")
        batch_op.create_index(
            "ix_library_chunks_library_id_dim", ["library_id", "dim"], unique=False
        )
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("embedding", Embedding(), nullable=True))
        batch_op.add_column(sa.Column("dim", sa.Integer(), nullable=True))


def downgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.drop_column("dim")
        batch_op.drop_column("embedding")
    for (name,) in bind.execute(
        sa.text("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'ix_vec_%'")
        if bind.dialect.name == "postgresql"
        else sa.text("SELECT 1 WHERE 0")
    ):
        op.execute(f'DROP INDEX IF EXISTS "{name}"')
    with op.batch_alter_table("library_chunks", schema=None) as batch_op:
        batch_op.drop_index("ix_library_chunks_library_id_dim")
        batch_op.add_column(sa.Column("vector_json", sa.JSON(), nullable=True))
    chunks = sa.table(
        "library_chunks",
        sa.column("id", sa.Integer()),
        sa.column("embedding", Embedding()),
        sa.column("vector_json", sa.JSON()),
    )
    for chunk_id, vector in bind.execute(sa.select(chunks.c.id, chunks.c.embedding)).all():
        if vector is not None:
            bind.execute(
                chunks.update()
                .where(chunks.c.id == chunk_id)
                .values(vector_json=[float(x) for x in vector])
            )
    with op.batch_alter_table("library_chunks", schema=None) as batch_op:
        batch_op.drop_column("embedding")
        batch_op.drop_column("dim")
        batch_op.alter_column("vector_json", new_column_name="embedding")
