"""Exactly once across replicas: two schedulers, each with its own connection pool, on one real
PostgreSQL (the pgserver wheel's) run the same watch every second; each due time is claimed and
run by one of them. A watch whose due time passed while no server ran runs it once, marked
late, or skips it, by its schedule's policy."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import SecretStr
from sqlalchemy import create_engine, select, update

from datapilot.core.watches import Schedule, WatchSpec
from datapilot.settings import Settings
from datapilot.store import Store, Users, normalise_url, open_store
from datapilot.store.models import Watch, WatchClaim
from datapilot.store.watches import Watches
from datapilot.watching import start_watching

REPORT = WatchSpec(
    kind="report",
    text="every second, Apple's closing price in 2019",
    question="Apple's closing price in 2019",
    schedule=Schedule(kind="interval", every_seconds=1),
)


def _settings(url: str) -> Settings:
    return Settings(
        brain="offline",
        offline=True,
        today=datetime(2022, 12, 28).date(),
        database_url=SecretStr(url),
        watch_sync_s=0.5,
    )


@pytest.fixture()
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A new database on the session's PostgreSQL, dropped afterwards."""
    import psycopg

    name = f"watches_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.replace("/postgres?", f"/{name}?")
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _replica(url: str) -> Store:
    """A store of its own, as another server process has (not the process-wide engine)."""
    return Store(create_engine(normalise_url(url)))


@pytest.mark.postgres
async def test_two_replicas_run_each_due_time_once(data: object, postgres_url: str) -> None:
    settings = _settings(postgres_url)
    with open_store(settings).session(write=True) as session:
        user = Users(session).create("twin").id
        watch = Watches(session, user, settings).create(REPORT).watch
    replicas = [start_watching(settings, _replica(postgres_url)) for _ in range(2)]
    await asyncio.gather(*(replica.start() for replica in replicas))
    await asyncio.sleep(3.5)
    for replica in replicas:
        await replica.stop()
    with open_store(settings).session() as session:
        claims = session.execute(
            select(WatchClaim.due_at, WatchClaim.claimed_by).where(WatchClaim.watch_id == watch.id)
        ).all()
        events = Watches(session, user, settings).events(watch.id)
    assert len(claims) >= 3
    assert max(Counter(due for due, _ in claims).values()) == 1
    # One event per claimed due time: none run twice, none lost.
    assert sorted(e.due_at for e in events) == sorted(due for due, _ in claims)
    assert all(e.status == "ok" for e in events)
    for replica in replicas:
        replica.store.engine.dispose()


@pytest.mark.parametrize(("policy", "late_runs"), [("run_late", 1), ("skip", 0)])
async def test_a_due_time_missed_while_down_runs_once_late_or_is_skipped(
    data: object, tmp_path: object, policy: str, late_runs: int
) -> None:
    url = f"sqlite:///{tmp_path}/store.db"
    settings = _settings(url)
    hourly = REPORT.model_copy(
        update={"schedule": Schedule(kind="interval", every_seconds=3600, missed=policy)}
    )
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("sleepy").id
        watch = Watches(session, user, settings).create(hourly).watch
        # Made three hours ago, and no server ran since: three due times were missed.
        hours_ago = datetime.now(UTC) - timedelta(hours=3, minutes=1)
        session.execute(update(Watch).where(Watch.id == watch.id).values(created_at=hours_ago))
    for _ in range(2):  # a second start finds the late run done: nothing more runs
        scheduler = start_watching(settings, store)
        await scheduler.start()
        await scheduler.settled()
        await scheduler.stop()
    with store.session() as session:
        events = Watches(session, user, settings).events(watch.id)
    assert len(events) == late_runs
    if late_runs:
        assert events[0].late
        # One run for all three, due at the last of them.
        assert events[0].due_at == hours_ago + timedelta(hours=3)
