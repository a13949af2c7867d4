"""Watches: a user's scheduled reports and alerts, each run of one (`watch_events`, with its
deliveries), and the claims that make each due time run once across replicas.

A watch keeps its `WatchSpec` as JSON (what the reader understood), its channels, and the
webhook's signing secret: a Fernet token under `DATAPILOT_SECRET_KEY` when that is set, else the
secret itself (it only signs what Datapilot sends to the user's own endpoint); either way it is
shown once, at creation. `state` is the evaluator's memory per entity (how far the data were
read, whether a state condition holds). A claim row per (watch, due time) is inserted by the
replica that runs it: the unique constraint lets exactly one insert succeed.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base, Json, _created, _owner, new_id, utcnow

WATCH_KINDS: tuple[str, ...] = ("report", "alert")
WATCH_STATUSES: tuple[str, ...] = ("active", "paused")


class Watch(Base):
    __tablename__ = "watches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = _owner()
    kind: Mapped[str] = mapped_column(String(10))
    text: Mapped[str] = mapped_column(Text)
    spec: Mapped[dict[str, Any]] = mapped_column(Json)
    channels: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    status: Mapped[str] = mapped_column(String(10), default="active")
    secret: Mapped[str | None] = mapped_column(Text)  # "fernet:<token>" or "plain:<secret>"
    state: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    __table_args__ = (
        CheckConstraint(f"kind IN {WATCH_KINDS!r}", name="kind"),
        CheckConstraint(f"status IN {WATCH_STATUSES!r}", name="status"),
    )


class WatchEventRow(Base):
    """One run of a watch: a report's answer or an alert's firing, and how each channel fared."""

    __tablename__ = "watch_events"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    watch_id: Mapped[str] = mapped_column(String(32), ForeignKey("watches.id", ondelete="CASCADE"))
    owner_id: Mapped[str] = _owner()
    kind: Mapped[str] = mapped_column(String(10))
    due_at: Mapped[datetime | None] = mapped_column()
    fired_at: Mapped[datetime] = mapped_column(default=utcnow)
    day: Mapped[date | None] = mapped_column(Date)
    entity: Mapped[str | None] = mapped_column(String(100))
    value: Mapped[float | None] = mapped_column(Float)
    threshold: Mapped[float | None] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(10), default="ok")
    result: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    deliveries: Mapped[list[dict[str, Any]]] = mapped_column(Json, default=list)
    error: Mapped[str | None] = mapped_column(Text)
    late: Mapped[bool] = mapped_column(Boolean, default=False)
    read: Mapped[bool] = mapped_column(Boolean, default=False)

    __table_args__ = (
        Index("ix_watch_events_watch_id_fired_at", "watch_id", "fired_at"),
        Index("ix_watch_events_owner_id_read", "owner_id", "read"),
    )


class WatchClaim(Base):
    """A replica's claim to run one watch at one due time; only one insert per pair succeeds."""

    __tablename__ = "watch_claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    watch_id: Mapped[str] = mapped_column(String(32), ForeignKey("watches.id", ondelete="CASCADE"))
    due_at: Mapped[datetime] = mapped_column()
    claimed_by: Mapped[str] = mapped_column(String(200), default="")
    claimed_at: Mapped[datetime] = _created()

    __table_args__ = (UniqueConstraint("watch_id", "due_at"),)
