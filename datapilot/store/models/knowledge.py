"""Knowledge libraries: a user's libraries, their documents (bytes in the files table, stored
once per content hash) and the chunks retrieval searches, each with its page and offsets."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, Json, _created, _owner, new_id, utcnow
from datapilot.store.vectors import Embedding


class Library(Base):
    """A user's document library; `version` changes with every document added or removed, so
    a persisted index knows when it is stale."""

    __tablename__ = "libraries"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    __table_args__ = (UniqueConstraint("owner_id", "name"),)


class LibraryDocument(Base):
    __tablename__ = "library_documents"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    library_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("libraries.id", ondelete="CASCADE"), index=True
    )
    owner_id: Mapped[str] = _owner()
    file_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("files.id", ondelete="SET NULL")
    )
    name: Mapped[str] = mapped_column(String(500))
    mime: Mapped[str] = mapped_column(String(200))
    size: Mapped[int] = mapped_column(Integer)
    pages: Mapped[int] = mapped_column(Integer, default=1)
    chunks: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = _created()


class LibraryChunk(Base):
    """One retrievable piece of a document: a paragraph, a section or a whole table."""

    __tablename__ = "library_chunks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    library_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("libraries.id", ondelete="CASCADE")
    )
    document_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("library_documents.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    page: Mapped[int | None] = mapped_column(Integer)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    heading: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text)
    table: Mapped[dict[str, Any] | None] = mapped_column(Json)  # {columns, rows} of a table
    # When embeddings are set: the vector (pgvector / float32 BLOB) and its length.
    embedding: Mapped[Any] = mapped_column(Embedding(), nullable=True)
    dim: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        Index("ix_library_chunks_library_id_id", "library_id", "id"),
        Index("ix_library_chunks_library_id_dim", "library_id", "dim"),
    )


class LibraryJob(Base):
    """An upload read after its answer (a long PDF): its progress, kept in the store so that any
    replica answers a poll and a restart keeps it. `updated_at` moves with every update (and a
    running job's heartbeat): a job that stops moving was left by a server that stopped."""

    __tablename__ = "library_jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    library_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("libraries.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(500))
    state: Mapped[str] = mapped_column(String(20))
    pages: Mapped[int] = mapped_column(Integer)
    pages_done: Mapped[int] = mapped_column(Integer, default=0)
    chunks: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    setting: Mapped[str | None] = mapped_column(String(100))
    document: Mapped[dict[str, Any] | None] = mapped_column(Json)  # DocumentInfo, once added
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
