"""Tables that let several server processes (replicas) share what would otherwise live in one
process's memory or data dir: the counters of rate limits, and the data users add to the
warehouse (imports, live fetches), which every replica replays into its own warehouse file."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, _created


class RateCounter(Base):
    """How many requests one caller made in one time slot: `key` names the window and the
    caller (`60s:guest:ID`), `slot` = seconds since the epoch // the window."""

    __tablename__ = "rate_counters"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    slot: Mapped[int] = mapped_column(BigInteger, primary_key=True, index=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class SharedBlob(Base):
    """The bytes of a stored file (chat files, library uploads) by content hash, for replicas:
    each keeps files in its own data dir and fetches one it lacks from here."""

    __tablename__ = "blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class DataEntry(Base):
    """One write a user made to the warehouse (a file imported, a series fetched live), kept so
    that every replica applies it to its own warehouse, in `id` order. Bundled data is not here:
    each replica seeds its own."""

    __tablename__ = "data_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(20))  # import | prices | series
    name: Mapped[str] = mapped_column(String(300))  # the file's name, or the source
    options: Mapped[dict[str, Any]]
    payload: Mapped[bytes] = mapped_column(LargeBinary)  # the file, or the rows as Parquet
    created_at: Mapped[datetime] = _created()
