"""Tables that let several server processes (replicas) share what would otherwise live in one
process's memory: the counters of rate limits."""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from datapilot.store.models.base import Base


class RateCounter(Base):
    """How many requests one caller (`key`, e.g. `guest:ID`) made in one time slot
    (`slot` = seconds since the epoch // the limit's window)."""

    __tablename__ = "rate_counters"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    slot: Mapped[int] = mapped_column(BigInteger, primary_key=True, index=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
