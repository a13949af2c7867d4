"""Rate limits shared through the store (SQLite, PostgreSQL) or a real Redis: two limiters,
as two server processes would have, count against one limit; the window slides."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr
from support.llm import LOOPBACK
from support.redis_server import redis_server

from datapilot.settings import Settings
from datapilot.store import open_store
from datapilot.store.rates import RateLimiter, RedisRates, StoreRates

pytestmark = LOOPBACK


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def _check_shared_sliding_limit(first: RateLimiter, second: RateLimiter, clock: Clock) -> None:
    key = "guest:abc"
    # Alternating between the two "processes": the 4th message of the minute is refused.
    sent = [limiter.allow(key) for limiter in (first, second, first, second)]
    assert sent == [True, True, True, False]
    assert first.allow("guest:someone-else")  # another caller has a limit of its own
    # 50 s later (a new slot, 10 s in): the previous slot still weighs 5/6 → 4 × 5/6 + 1 > 3.
    clock.now += 50
    assert not second.allow(key)
    # Two minutes later the earlier slots are out of the window.
    clock.now += 120
    assert [first.allow(key), second.allow(key)] == [True, True]


def test_store_counters_are_shared_and_slide(store_url: str) -> None:
    clock = Clock(1_000_040.0)  # 20 s into a one-minute slot
    settings = Settings(database_url=SecretStr(store_url))
    first, second = (StoreRates(open_store(settings), 3, clock=clock) for _ in range(2))
    _check_shared_sliding_limit(first, second, clock)


def test_redis_counters_are_shared_and_slide(redis_url: str) -> None:
    clock = Clock(1_000_040.0)
    first, second = (RedisRates(redis_url, 3, clock=clock) for _ in range(2))
    _check_shared_sliding_limit(first, second, clock)


def test_an_unreachable_redis_lets_requests_through() -> None:
    # A limit's outage must not take the service down: logged, and the message goes through.
    limiter = RedisRates("redis://127.0.0.1:1/0", 1)
    assert limiter.allow("guest:x") and limiter.allow("guest:x")


def test_a_shorter_window_does_not_forget_a_longer_ones_counts(store_url: str) -> None:
    # A per-minute limit and an hourly budget share the counters' table. The minute limiter
    # forgets its own old slots each minute; it must not forget the hour's, or the hourly
    # budget would start again every minute.
    clock = Clock(1_000_040.0)
    store = open_store(Settings(database_url=SecretStr(store_url)))
    per_minute, per_hour = StoreRates(store, 10, clock=clock), StoreRates(store, 2, 3600, clock)
    assert [per_hour.allow("budget:a"), per_hour.allow("budget:a")] == [True, True]
    clock.now += 180  # three minutes on, within the same hour
    assert per_minute.allow("guest:b")
    assert not per_hour.allow("budget:a")
