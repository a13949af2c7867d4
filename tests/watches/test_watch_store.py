"""Watches in the store on SQLite and PostgreSQL: scoped to their owner, the webhook secret
shown once and kept so it can sign, one claim per due time, events in the owner's inbox."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr
from sqlalchemy import select

from datapilot.core.intent import EntityRef
from datapilot.core.watches import Condition, Delivery, Schedule, WatchChannels, WatchSpec
from datapilot.settings import Settings
from datapilot.store import Users, open_store
from datapilot.store.models import Watch
from datapilot.store.watches import Watches, WatchLimitReached, WatchNotFound, WatchRuns

ALERT = WatchSpec(
    kind="alert",
    text="tell me when Apple closes below 150",
    entities=[EntityRef(id="AAPL", kind="stock", name="Apple Inc.")],
    condition=Condition(measure="close_level", comparator="below", threshold=150),
)
REPORT = WatchSpec(
    kind="report",
    text="every Monday at 8, how did AAPL do last week",
    question="how did AAPL do last week",
    schedule=Schedule(kind="weekly", weekday=0, at=time(8)),
)


def _settings(url: str, **extra: object) -> Settings:
    return Settings(database_url=SecretStr(url), **extra)  # type: ignore[arg-type]


def test_a_users_watches_are_theirs_alone(store_url: str) -> None:
    settings = _settings(store_url)
    store = open_store(settings)
    with store.session(write=True) as session:
        ann, bob = Users(session).create("ann").id, Users(session).create("bob").id
        mine = Watches(session, ann, settings).create(ALERT).watch
        Watches(session, bob, settings).create(REPORT)
    with store.session(write=True) as session:
        assert [w.text for w in Watches(session, ann, settings).list()] == [ALERT.text]
        theirs = Watches(session, bob, settings)
        for act in (theirs.get, theirs.pause, theirs.delete, theirs.events):
            with pytest.raises(WatchNotFound):
                act(mine.id)
        ours = Watches(session, ann, settings)
        assert ours.pause(mine.id).status == "paused"
        assert ours.resume(mine.id).status == "active"
        assert ours.get(mine.id).spec.condition == ALERT.condition


@pytest.mark.parametrize("sealed", [False, True])
def test_the_webhook_secret_is_shown_once_and_can_still_sign(store_url: str, sealed: bool) -> None:
    extra = {"secret_key": SecretStr(Fernet.generate_key().decode())} if sealed else {}
    settings = _settings(store_url, **extra)
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("ann").id
        new = Watches(session, user, settings).create(
            ALERT, WatchChannels(webhook="https://example.com/hook")
        )
        plain = Watches(session, user, settings).create(REPORT)
    assert new.secret and len(new.secret) >= 40 and plain.secret is None
    with store.session() as session:
        listed = Watches(session, user, settings).get(new.watch.id)
        assert listed.has_secret and new.secret not in listed.model_dump_json()
        stored = session.scalar(select(Watch.secret).where(Watch.id == new.watch.id))
        assert (new.secret in (stored or "")) is not sealed
        assert WatchRuns(session, settings).signing_secret(new.watch.id) == new.secret


def test_a_due_time_is_claimed_once(store_url: str) -> None:
    settings = _settings(store_url)
    store = open_store(settings)
    due = datetime(2024, 1, 8, 8, tzinfo=UTC)
    with store.session(write=True) as session:
        user = Users(session).create("ann").id
        watch = Watches(session, user, settings).create(REPORT).watch.id
    with store.session(write=True) as session:
        assert WatchRuns(session, settings).claim(watch, due, by="a")
    with store.session(write=True) as session:
        runs = WatchRuns(session, settings)
        assert not runs.claim(watch, due, by="b")
        assert runs.claim(watch, due.replace(hour=9), by="b")  # the session stays usable


def test_events_fill_the_owners_inbox_until_read(store_url: str) -> None:
    settings = _settings(store_url)
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("ann").id
        watch = Watches(session, user, settings).create(ALERT).watch.id
        runs = WatchRuns(session, settings)
        runs.record(
            watch,
            kind="alert",
            day=date(2022, 5, 9),
            entity="AAPL",
            value=149.5,
            threshold=150,
            deliveries=[Delivery(channel="page", state="sent")],
        )
        assert [w.id for w in runs.alerts_on(["AAPL"])] == [watch]
        assert runs.alerts_on(["MSFT"]) == []
    with store.session(write=True) as session:
        mine = Watches(session, user, settings)
        assert mine.unread() == 1 and mine.get(watch).unread == 1
        [event] = mine.events(watch)
        assert (event.date, event.value, event.deliveries[0].state) == (
            date(2022, 5, 9),
            149.5,
            "sent",
        )
        assert mine.mark_read(watch_id=watch) == 1 and mine.unread() == 0
        mine.delete(watch)
        assert mine.list() == []


def test_a_user_keeps_at_most_max_watches(store_url: str) -> None:
    settings = _settings(store_url, max_watches=1)
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("ann").id
        Watches(session, user, settings).create(ALERT)
        with pytest.raises(WatchLimitReached, match="DATAPILOT_MAX_WATCHES"):
            Watches(session, user, settings).create(REPORT)
