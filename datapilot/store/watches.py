"""Watches in the store: one user's (`Watches`, what the CLI and the routes use) and every user's
for the scheduler (`WatchRuns`: active watches, claims, events, the signing secret).

    with store.session(write=True) as session:
        new = Watches(session, user_id, settings).create(spec, WatchChannels(webhook=url))
        new.secret                                   # shown once; later only used to sign

    with store.session(write=True) as session:
        runs = WatchRuns(session, settings)
        if runs.claim(watch_id, due_at, by="replica-1"):   # exactly one replica wins
            runs.record(watch_id, kind="report", due_at=due_at, status="ok", result=answer)

A watch of another user is `WatchNotFound`, like one that does not exist (routes answer 404).
"""

from __future__ import annotations

import builtins
import secrets
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from datapilot.core.watches import (
    Delivery,
    EventStatus,
    NewWatch,
    WatchChannels,
    WatchEvent,
    WatchInfo,
    WatchKind,
    WatchSpec,
    WatchStatus,
)
from datapilot.settings import Settings, get_settings
from datapilot.store.models import Watch, WatchClaim, WatchEventRow, utcnow
from datapilot.store.sealed import InvalidToken, fernet

_FERNET, _PLAIN = "fernet:", "plain:"


class WatchError(ValueError):
    """A watch request that cannot be done; the message says what to do instead."""


class WatchNotFound(WatchError):
    """No such watch for this user (another user's watch is not found either)."""


class WatchLimitReached(WatchError):
    """The user has as many watches as `DATAPILOT_MAX_WATCHES` allows."""


def seal_secret(secret: str, settings: Settings) -> str:
    """The stored form of a signing secret: a Fernet token under `DATAPILOT_SECRET_KEY` when
    that is set, else the secret itself."""
    box = fernet(settings)
    if box is None:
        return _PLAIN + secret
    return _FERNET + box.encrypt(secret.encode()).decode()


def open_secret(stored: str, settings: Settings) -> str:
    """The signing secret back from its stored form."""
    if stored.startswith(_PLAIN):
        return stored[len(_PLAIN) :]
    box = fernet(settings)
    if box is None:
        raise WatchError("this watch's secret is sealed: set DATAPILOT_SECRET_KEY to the key used")
    try:
        return box.decrypt(stored[len(_FERNET) :].encode()).decode()
    except InvalidToken as error:
        raise WatchError(
            "this watch's secret cannot be opened with this DATAPILOT_SECRET_KEY; use the key it "
            "was stored with, or delete the watch and add it again"
        ) from error


def watch_info(row: Watch, unread: int = 0) -> WatchInfo:
    return WatchInfo(
        id=row.id,
        owner_id=row.owner_id,
        kind=row.kind,  # type: ignore[arg-type]
        text=row.text,
        status=row.status,  # type: ignore[arg-type]
        spec=WatchSpec.model_validate(row.spec),
        channels=WatchChannels.model_validate(row.channels or {}),
        has_secret=row.secret is not None,
        created_at=row.created_at,
        updated_at=row.updated_at,
        unread=unread,
    )


def event_info(row: WatchEventRow) -> WatchEvent:
    return WatchEvent(
        id=row.id,
        watch_id=row.watch_id,
        kind=row.kind,  # type: ignore[arg-type]
        due_at=row.due_at,
        fired_at=row.fired_at,
        date=row.day,
        entity=row.entity,
        value=row.value,
        threshold=row.threshold,
        status=row.status,  # type: ignore[arg-type]
        result=row.result or {},
        deliveries=[Delivery.model_validate(d) for d in row.deliveries or []],
        error=row.error,
        late=row.late,
        read=row.read,
    )


class Watches:
    """One user's watches and their events, in one session."""

    def __init__(self, session: Session, owner_id: str, settings: Settings | None = None) -> None:
        self.session = session
        self.owner_id = owner_id
        self.settings = settings or get_settings()

    def create(self, spec: WatchSpec, channels: WatchChannels | None = None) -> NewWatch:
        """Save a watch; a webhook channel gets a new signing secret, returned only here."""
        limit = self.settings.max_watches
        if self.count() >= limit:
            raise WatchLimitReached(
                f"you have {limit} watches, the most allowed (DATAPILOT_MAX_WATCHES); delete one "
                "first"
            )
        channels = channels or WatchChannels()
        secret = secrets.token_urlsafe(32) if channels.webhook else None
        row = Watch(
            owner_id=self.owner_id,
            kind=spec.kind,
            text=spec.text,
            spec=spec.model_dump(mode="json"),
            channels=channels.model_dump(mode="json"),
            status="active",
            secret=seal_secret(secret, self.settings) if secret else None,
            state={},
        )
        self.session.add(row)
        self.session.flush()
        return NewWatch(watch=watch_info(row), secret=secret)

    def list(self) -> list[WatchInfo]:
        rows = self.session.scalars(
            select(Watch).where(Watch.owner_id == self.owner_id).order_by(Watch.created_at)
        ).all()
        unread = self._unread_by_watch()
        return [watch_info(row, unread.get(row.id, 0)) for row in rows]

    def get(self, watch_id: str) -> WatchInfo:
        row = self._row(watch_id)
        return watch_info(row, self._unread_by_watch(row.id).get(row.id, 0))

    def count(self) -> int:
        found = select(func.count()).select_from(Watch).where(Watch.owner_id == self.owner_id)
        return self.session.scalar(found) or 0

    def set_status(self, watch_id: str, status: WatchStatus) -> WatchInfo:
        row = self._row(watch_id)
        if row.status != status:
            row.status = status
            row.updated_at = utcnow()
            self.session.flush()
        return self.get(watch_id)

    def pause(self, watch_id: str) -> WatchInfo:
        return self.set_status(watch_id, "paused")

    def resume(self, watch_id: str) -> WatchInfo:
        return self.set_status(watch_id, "active")

    def delete(self, watch_id: str) -> None:
        """Delete a watch with its events and claims."""
        row = self._row(watch_id)
        for model in (WatchEventRow, WatchClaim):
            self.session.query(model).filter(model.watch_id == row.id).delete()
        self.session.delete(row)
        self.session.flush()

    def events(self, watch_id: str, limit: int = 100) -> builtins.list[WatchEvent]:
        """A watch's history, newest first."""
        row = self._row(watch_id)
        rows = self.session.scalars(
            select(WatchEventRow)
            .where(WatchEventRow.watch_id == row.id)
            .order_by(WatchEventRow.fired_at.desc(), WatchEventRow.id)
            .limit(limit)
        )
        return [event_info(event) for event in rows]

    def inbox(self, *, unread_only: bool = False, limit: int = 100) -> builtins.list[WatchEvent]:
        """The user's events across watches, newest first (the page's inbox)."""
        query = select(WatchEventRow).where(WatchEventRow.owner_id == self.owner_id)
        if unread_only:
            query = query.where(WatchEventRow.read.is_(False))
        rows = self.session.scalars(
            query.order_by(WatchEventRow.fired_at.desc(), WatchEventRow.id).limit(limit)
        )
        return [event_info(event) for event in rows]

    def unread(self) -> int:
        return sum(self._unread_by_watch().values())

    def mark_read(
        self, event_ids: Iterable[str] | None = None, *, watch_id: str | None = None
    ) -> int:
        """Mark events read (the given ids, a watch's, or all the user's); returns how many."""
        query = update(WatchEventRow).where(
            WatchEventRow.owner_id == self.owner_id, WatchEventRow.read.is_(False)
        )
        if watch_id is not None:
            query = query.where(WatchEventRow.watch_id == self._row(watch_id).id)
        if event_ids is not None:
            query = query.where(WatchEventRow.id.in_(list(event_ids)))
        result = self.session.execute(query.values(read=True))
        return int(getattr(result, "rowcount", 0) or 0)

    def _row(self, watch_id: str) -> Watch:
        row = self.session.scalar(
            select(Watch).where(Watch.id == watch_id, Watch.owner_id == self.owner_id)
        )
        if row is None:
            raise WatchNotFound(f"no watch {watch_id!r}; see `datapilot watch list`")
        return row

    def _unread_by_watch(self, watch_id: str | None = None) -> dict[str, int]:
        query = (
            select(WatchEventRow.watch_id, func.count())
            .where(WatchEventRow.owner_id == self.owner_id, WatchEventRow.read.is_(False))
            .group_by(WatchEventRow.watch_id)
        )
        if watch_id is not None:
            query = query.where(WatchEventRow.watch_id == watch_id)
        return {found: int(n) for found, n in self.session.execute(query).all()}


class WatchRuns:
    """Every user's watches as the scheduler sees them, in one session: which are active, who
    runs a due time (claims), what each run produced (events) and its signing secret."""

    def __init__(self, session: Session, settings: Settings | None = None) -> None:
        self.session = session
        self.settings = settings or get_settings()

    def active(self, kind: WatchKind | None = None) -> list[WatchInfo]:
        query = select(Watch).where(Watch.status == "active")
        if kind is not None:
            query = query.where(Watch.kind == kind)
        return [watch_info(row) for row in self.session.scalars(query.order_by(Watch.created_at))]

    def alerts_on(self, entity_ids: Iterable[str], owner_id: str | None = None) -> list[WatchInfo]:
        """Active alerts watching any of these entities (optionally one owner's)."""
        wanted = set(entity_ids)
        query = select(Watch).where(Watch.status == "active", Watch.kind == "alert")
        if owner_id is not None:
            query = query.where(Watch.owner_id == owner_id)
        found = [watch_info(row) for row in self.session.scalars(query)]
        return [info for info in found if wanted & set(info.spec.entity_ids)]

    def get(self, watch_id: str) -> WatchInfo | None:
        row = self.session.get(Watch, watch_id)
        return watch_info(row) if row is not None else None

    def claim(self, watch_id: str, due_at: datetime, by: str = "") -> bool:
        """Claim one due time of a watch; True for the only caller (across replicas) that gets
        it. Runs in a savepoint, so a lost race leaves the session usable."""
        try:
            with self.session.begin_nested():
                self.session.add(WatchClaim(watch_id=watch_id, due_at=due_at, claimed_by=by))
        except IntegrityError:
            return False
        return True

    def record(
        self,
        watch_id: str,
        *,
        kind: WatchKind,
        status: EventStatus = "ok",
        due_at: datetime | None = None,
        day: date | None = None,
        entity: str | None = None,
        value: float | None = None,
        threshold: float | None = None,
        result: dict[str, Any] | None = None,
        deliveries: Iterable[Delivery] = (),
        error: str | None = None,
        late: bool = False,
    ) -> WatchEvent:
        """Add one run of a watch to its history (and the owner's inbox, unread)."""
        watch = self.session.get(Watch, watch_id)
        if watch is None:
            raise WatchNotFound(f"no watch {watch_id!r}")
        row = WatchEventRow(
            watch_id=watch_id,
            owner_id=watch.owner_id,
            kind=kind,
            due_at=due_at,
            fired_at=utcnow(),
            day=day,
            entity=entity,
            value=value,
            threshold=threshold,
            status=status,
            result=result or {},
            deliveries=[d.model_dump(mode="json") for d in deliveries],
            error=error,
            late=late,
            read=False,
        )
        self.session.add(row)
        self.session.flush()
        return event_info(row)

    def set_deliveries(
        self, event_id: str, deliveries: Iterable[Delivery], error: str | None = None
    ) -> None:
        row = self.session.get(WatchEventRow, event_id)
        if row is None:
            raise WatchNotFound(f"no watch event {event_id!r}")
        row.deliveries = [d.model_dump(mode="json") for d in deliveries]
        if error is not None:
            row.error = error
        self.session.flush()

    def signing_secret(self, watch_id: str) -> str | None:
        """The webhook secret, to sign one delivery (never to show)."""
        row = self.session.get(Watch, watch_id)
        if row is None or row.secret is None:
            return None
        return open_secret(row.secret, self.settings)

    def state(self, watch_id: str) -> dict[str, Any]:
        row = self.session.get(Watch, watch_id)
        return dict(row.state or {}) if row is not None else {}

    def set_state(self, watch_id: str, state: dict[str, Any]) -> None:
        """The evaluator's memory (e.g. per entity: the last date read, whether it holds)."""
        row = self.session.get(Watch, watch_id)
        if row is None:
            raise WatchNotFound(f"no watch {watch_id!r}")
        row.state = state
        self.session.flush()
