"""The data users add to the warehouse, kept in the store for replicas: each write (a file
imported, rows fetched live) is one `DataEntry`; every replica applies the entries it has not
applied yet to its own warehouse file (`datapilot.data.shared`), in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from datapilot.store import Store
from datapilot.store.models import DataEntry


@dataclass(frozen=True)
class Entry:
    id: int
    kind: str
    name: str
    options: dict[str, Any]
    payload: bytes


class StoreDataLog:
    """The entries in one store (the platform's PostgreSQL, which every replica reaches)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def record(self, kind: str, name: str, options: dict[str, Any], payload: bytes) -> int:
        with self.store.session(write=True) as session:
            entry = DataEntry(kind=kind, name=name, options=options, payload=payload)
            session.add(entry)
            session.flush()
            return entry.id

    def last_id(self) -> int:
        with self.store.session() as session:
            return int(session.scalar(select(func.max(DataEntry.id))) or 0)

    def after(self, entry_id: int) -> list[Entry]:
        with self.store.session() as session:
            rows = session.scalars(
                select(DataEntry).where(DataEntry.id > entry_id).order_by(DataEntry.id)
            ).all()
            return [Entry(r.id, r.kind, r.name, dict(r.options), bytes(r.payload)) for r in rows]


def replica_log(store: Store) -> StoreDataLog | None:
    """The shared log when the store is one replicas share (PostgreSQL); None on SQLite, whose
    file lives beside one warehouse only."""
    return StoreDataLog(store) if store.engine.dialect.name == "postgresql" else None
