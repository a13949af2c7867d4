"""Rate limits that hold across every server process sharing a store: counters in the store's
`rate_counters` table, or in Redis when `DATAPILOT_REDIS_URL` is set.

Each limit is a sliding window estimated from two fixed slots (this one and the one before,
weighted by how much of it still overlaps the window), so a caller cannot burst twice the
limit across a slot boundary, and each check is one atomic increment plus one read. Every
attempt counts, refused ones included: a caller that keeps hammering stays refused.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.store.models import RateCounter

log = logging.getLogger(__name__)
Clock = Callable[[], float]


class RateLimiter(Protocol):
    """`allow(key)` (blocking: call it off the event loop) says whether one more request of
    `key` fits within `limit` per `window_s` seconds, and counts it."""

    limit: int
    window_s: float

    def allow(self, key: str) -> bool: ...


def _estimate(current: int, previous: int, now: float, window_s: float) -> float:
    overlap = 1.0 - (now % window_s) / window_s
    return previous * overlap + current


class StoreRates:
    """Counters in the SQL store (SQLite or PostgreSQL): one upsert and one read per check."""

    def __init__(
        self, store: Store, limit: int, window_s: float = 60.0, clock: Clock = time.time
    ) -> None:
        self.store = store
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._swept_slot = -1
        self._sweep_lock = threading.Lock()

    @property
    def _prefix(self) -> str:
        """Counters are named by their window too: slots of different windows are numbered
        differently, so a sweep may only ever compare slots of its own window."""
        return f"{self.window_s:g}s:"

    def allow(self, key: str) -> bool:
        now = self.clock()
        slot = int(now // self.window_s)
        key = self._prefix + key
        dialect = self.store.engine.dialect.name
        insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
        upsert = (
            insert(RateCounter)
            .values(key=key, slot=slot, count=1)
            .on_conflict_do_update(
                index_elements=["key", "slot"], set_={"count": RateCounter.count + 1}
            )
            .returning(RateCounter.count)
        )
        with self.store.session(write=True) as session:
            current = int(session.execute(upsert).scalar_one())
            previous = session.scalar(
                select(RateCounter.count).where(
                    RateCounter.key == key, RateCounter.slot == slot - 1
                )
            )
        self._sweep(slot)
        return _estimate(current, previous or 0, now, self.window_s) <= self.limit

    def _sweep(self, slot: int) -> None:
        """Once per slot and process: forget this window's slots it no longer reaches."""
        with self._sweep_lock:
            if self._swept_slot == slot:
                return
            self._swept_slot = slot
        with self.store.session(write=True) as session:
            session.execute(
                delete(RateCounter).where(
                    RateCounter.slot < slot - 1,
                    RateCounter.key.startswith(self._prefix, autoescape=True),
                )
            )


class RedisRates:
    """Counters in Redis: INCR and EXPIRE of this slot and GET of the previous, in one round
    trip. When Redis cannot be reached the request is let through (logged): a limit's outage
    must not take the whole service down."""

    def __init__(
        self, url: str, limit: int, window_s: float = 60.0, clock: Clock = time.time
    ) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.limit = limit
        self.window_s = window_s
        self.clock = clock

    def allow(self, key: str) -> bool:
        import redis

        now = self.clock()
        slot = int(now // self.window_s)
        name = f"datapilot:rate:{key}:{slot}"
        pipe = self.client.pipeline(transaction=True)
        pipe.incr(name)
        pipe.expire(name, int(self.window_s * 2) + 1)
        pipe.get(f"datapilot:rate:{key}:{slot - 1}")
        try:
            current, _, previous = pipe.execute()
        except redis.RedisError as error:
            log.warning("rate limit not checked, Redis failed: %s", error)
            return True
        return _estimate(int(current), int(previous or 0), now, self.window_s) <= self.limit


def rate_limiter(
    settings: Settings, store: Store, limit: int, window_s: float = 60.0
) -> RateLimiter:
    """Redis counters when `settings.redis_url` is set, else the store's."""
    if settings.redis_url is not None:
        return RedisRates(settings.redis_url.get_secret_value(), limit, window_s)
    return StoreRates(store, limit, window_s)
