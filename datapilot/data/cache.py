"""When live data is fresh enough to serve locally, and the log of what was fetched when.

Policy, per entity and dataset:
* a logged fetch covering the window and younger than the dataset's TTL → serve locally;
* a window that ended well before a covering fetch is history and never goes stale;
* otherwise refetch; when that is impossible (offline, the provider fails) serve the local copy
  with an "as of <fetch time>" notice; with no local copy, say so clearly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Literal

import pandas as pd
from pydantic import BaseModel, Field

from datapilot.data.duckdb_engine import duckdb, register

if TYPE_CHECKING:
    from datapilot.data.warehouse import Warehouse

DEFAULT_TTL: dict[str, timedelta] = {
    "prices": timedelta(hours=12),
    "series": timedelta(hours=24),
    "fundamentals": timedelta(days=7),
    "news": timedelta(hours=2),
    "profile": timedelta(days=30),
}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fetch_log (
    id VARCHAR NOT NULL, dataset VARCHAR NOT NULL, provider VARCHAR NOT NULL,
    start DATE, "end" DATE, fetched_at TIMESTAMP NOT NULL, rows BIGINT NOT NULL)
"""


def utc_now() -> datetime:
    """Now in UTC, naive (DuckDB TIMESTAMP columns hold naive UTC)."""
    return datetime.now(UTC).replace(tzinfo=None)


class FetchRecord(BaseModel):
    """One successful fetch: which window of which dataset, from where, when."""

    id: str
    dataset: str
    provider: str
    start: date | None = Field(default=None, description="None: from the earliest available.")
    end: date | None = Field(default=None, description="None: up to the fetch time.")
    fetched_at: datetime
    rows: int = 0

    def covers(self, start: date | None, end: date | None) -> bool:
        starts_early = self.start is None or (start is not None and self.start <= start)
        ends_late = self.end is None or (end is not None and self.end >= end)
        return starts_early and ends_late


class Decision(BaseModel):
    action: Literal["local", "fetch"]
    reason: str
    record: FetchRecord | None = None


class CachePolicy(BaseModel):
    """Per-dataset TTLs and how long after a window's end its data count as settled history."""

    ttl: dict[str, timedelta] = Field(default_factory=lambda: dict(DEFAULT_TTL))
    settle: timedelta = Field(
        default=timedelta(days=7), description="Late revisions and corrections land within this."
    )
    refetch: bool = Field(default=False, description="Always fetch (`data fetch --force`).")

    @classmethod
    def from_hours(cls, overrides: dict[str, float]) -> CachePolicy:
        """Defaults with some TTLs replaced (`{"prices": 1}` → one hour)."""
        ttl = dict(DEFAULT_TTL)
        ttl.update({name: timedelta(hours=hours) for name, hours in overrides.items()})
        return cls(ttl=ttl)

    def ttl_of(self, dataset: str) -> timedelta:
        return self.ttl.get(dataset, timedelta(hours=24))

    def decide(
        self,
        records: Iterable[FetchRecord],
        start: date | None,
        end: date | None,
        now: datetime,
        dataset: str,
    ) -> Decision:
        """Serve locally or fetch, and why."""
        if self.refetch:
            return Decision(action="fetch", reason="refetch requested")
        covering = [r for r in records if r.covers(start, end)]
        if not covering:
            return Decision(action="fetch", reason="no earlier fetch covers the window")
        latest = max(covering, key=lambda r: r.fetched_at)
        if end is not None and end < (latest.fetched_at - self.settle).date():
            return Decision(action="local", reason="the window is settled history", record=latest)
        age = now - latest.fetched_at
        if age <= self.ttl_of(dataset):
            return Decision(action="local", reason="fetched recently", record=latest)
        return Decision(action="fetch", reason=f"older than {self.ttl_of(dataset)}", record=latest)


def log_fetch_in(connection: duckdb.DuckDBPyConnection, record: FetchRecord) -> None:
    """Record a fetch inside an open warehouse transaction."""
    connection.execute(_SCHEMA)
    connection.execute(
        "INSERT INTO fetch_log VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            record.id.upper(),
            record.dataset,
            record.provider,
            record.start,
            record.end,
            record.fetched_at,
            record.rows,
        ],
    )


def fetch_records(
    warehouse: Warehouse, ids: Iterable[str]
) -> dict[tuple[str, str], list[FetchRecord]]:
    """Logged fetches by (id, dataset), oldest first."""
    wanted = sorted({i.strip().upper() for i in ids})
    frame = read_table(
        warehouse,
        'SELECT id, dataset, provider, start, "end", fetched_at, rows FROM fetch_log '
        "WHERE list_contains($ids, id) ORDER BY fetched_at",
        {"ids": wanted},
    )
    records: dict[tuple[str, str], list[FetchRecord]] = {}
    for row in frame.itertuples(index=False):
        record = FetchRecord(
            id=row.id,
            dataset=row.dataset,
            provider=row.provider,
            start=_day(row.start),
            end=_day(row.end),
            fetched_at=pd.Timestamp(row.fetched_at).to_pydatetime(),
            rows=int(row.rows),
        )
        records.setdefault((record.id, record.dataset), []).append(record)
    return records


def read_table(warehouse: Warehouse, sql: str, params: dict[str, object]) -> pd.DataFrame:
    """A read query on a table live providers create on first write; empty until then."""
    try:
        return warehouse.query(sql, params)
    except duckdb.CatalogException:
        return pd.DataFrame()


@contextmanager
def registered(
    connection: duckdb.DuckDBPyConnection, name: str, frame: pd.DataFrame
) -> Iterator[None]:
    """`frame` readable as the view `name` inside the block, and gone after it."""
    register(connection, name, frame)
    try:
        yield
    finally:
        connection.unregister(name)


def _day(value: object) -> date | None:
    if value is None or pd.isna(value):
        return None
    return pd.Timestamp(value).date()


__all__ = [
    "DEFAULT_TTL",
    "CachePolicy",
    "Decision",
    "FetchRecord",
    "fetch_records",
    "log_fetch_in",
    "read_table",
    "registered",
    "utc_now",
]
