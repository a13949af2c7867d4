"""The live-provider contract: what a provider serves, what it downloads, and what it reports.

A provider turns an entity id into a `Download` (tidy frames, nothing stored). `fetch` stores
downloads in the warehouse and reports per entity, so one failing id never sinks the others.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime
from typing import Any, ClassVar, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.intent import EntityKind, Frequency, frequency_of_gap
from datapilot.data.catalog import Entity
from datapilot.data.providers.http import ProviderError

Dataset = Literal["prices", "series", "fundamentals", "news", "profile"]
DATASETS: tuple[Dataset, ...] = ("prices", "series", "fundamentals", "news", "profile")
FetchStatus = Literal["fetched", "fresh", "stale", "failed"]

PRICE_COLUMNS = ["id", "date", "open", "high", "low", "close", "adj_close", "volume"]
SERIES_COLUMNS = ["id", "date", "value"]
FUNDAMENTAL_COLUMNS = ["id", "period_end", "period", "statement", "field", "value", "unit"]
NEWS_COLUMNS = ["id", "published", "title", "summary", "url", "publisher"]

A_SHARE = re.compile(r"^(\d{6})\.(SH|SZ|BJ)$")
CHINA_FUND = re.compile(r"^(\d{6})\.OF$")


class CompanyProfile(BaseModel):
    """Who a company is: the descriptive facts a summary may quote."""

    id: str
    name: str
    sector: str | None = None
    industry: str | None = None
    country: str | None = None
    currency: str | None = None
    exchange: str | None = None
    website: str | None = None
    employees: int | None = None
    summary: str | None = None


class Download(BaseModel):
    """What one provider returned for one entity: tidy frames, not yet stored."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    entity: Entity
    prices: pd.DataFrame | None = Field(default=None, description="PRICE_COLUMNS")
    series: pd.DataFrame | None = Field(default=None, description="SERIES_COLUMNS")
    fundamentals: pd.DataFrame | None = Field(
        default=None, description="[id, period_end, period, statement, field, value, unit]"
    )
    news: pd.DataFrame | None = Field(
        default=None, description="[id, published, title, summary, url, publisher]"
    )
    profile: CompanyProfile | None = None

    def rows(self) -> int:
        frames = (self.prices, self.series, self.fundamentals, self.news)
        return sum(len(f) for f in frames if f is not None) + (self.profile is not None)


class EntityFetch(BaseModel):
    """The outcome for one entity and dataset."""

    id: str
    dataset: Dataset
    status: FetchStatus = Field(
        description="fetched: downloaded now; fresh: local copy within its TTL; "
        "stale: local copy served past its TTL; failed: nothing to serve"
    )
    provider: str | None = None
    rows: int = 0
    as_of: datetime | None = Field(default=None, description="When the served data was fetched.")
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    @property
    def notice(self) -> str | None:
        """The line a user should see about this entity, if any."""
        if self.status == "stale" and self.as_of is not None:
            return (
                f"{self.id}: {self.dataset} as of {self.as_of:%Y-%m-%d %H:%M} UTC ({self.message})"
            )
        if self.status == "stale":
            return f"{self.id}: {self.dataset} from the local copy ({self.message})"
        if self.status == "failed":
            return f"{self.id}: {self.message}"
        return None


class FetchReport(BaseModel):
    """Per-entity outcomes; partial success is success."""

    items: list[EntityFetch] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed or at least something could be served."""
        return not self.items or any(item.ok for item in self.items)

    @property
    def failed(self) -> list[EntityFetch]:
        return [item for item in self.items if not item.ok]

    @property
    def notices(self) -> list[str]:
        return [n for n in (item.notice for item in self.items) if n]

    def get(self, entity_id: str, dataset: Dataset | None = None) -> EntityFetch | None:
        return next(
            (
                item
                for item in self.items
                if item.id == entity_id and (dataset is None or item.dataset == dataset)
            ),
            None,
        )

    def extend(self, other: FetchReport) -> FetchReport:
        self.items.extend(other.items)
        return self


Sink = Callable[[Download, str], int]
"""Stores a download for a provider and returns the rows written."""


class LiveProvider(ABC):
    """A network data source. Subclasses set the class attributes and implement `download`."""

    name: ClassVar[str]
    title: ClassVar[str]
    kinds: ClassVar[frozenset[EntityKind]]
    datasets: ClassVar[frozenset[Dataset]]

    @abstractmethod
    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        """Whether this provider can serve the entity (by id pattern, kind or its own map)."""

    @abstractmethod
    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        """Download one dataset of one entity; raise `ProviderError` with a readable reason."""

    @abstractmethod
    def search(self, text: str, limit: int = 10) -> list[Entity]:
        """Entities whose name or id matches `text`, best first."""

    def serves(self, entity_id: str, dataset: Dataset, kind: EntityKind | None = None) -> bool:
        return dataset in self.datasets and self.claims(entity_id, kind)

    def fetch(
        self,
        ids: Iterable[str],
        start: date | None = None,
        end: date | None = None,
        datasets: Iterable[Dataset] = ("prices", "series"),
        *,
        sink: Sink,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> FetchReport:
        """Download and store each entity; failures are reported per entity, never raised."""
        report = FetchReport()
        for entity_id in ids:
            for dataset in datasets:
                if dataset not in self.datasets:
                    continue
                report.items.append(self._fetch_one(entity_id, dataset, start, end, sink, now))
        return report

    def _fetch_one(
        self,
        entity_id: str,
        dataset: Dataset,
        start: date | None,
        end: date | None,
        sink: Sink,
        now: Callable[[], datetime],
    ) -> EntityFetch:
        try:
            download = self.download(entity_id, dataset, start, end)
            rows = sink(download, self.name)
        except ProviderError as error:
            return EntityFetch(
                id=entity_id,
                dataset=dataset,
                status="failed",
                provider=self.name,
                message=str(error),
            )
        return EntityFetch(
            id=entity_id,
            dataset=dataset,
            status="fetched",
            provider=self.name,
            rows=rows,
            as_of=now(),
        )


def infer_frequency(dates: Iterable[Any]) -> Frequency:
    """The frequency a run of observation dates suggests (median gap)."""
    index = pd.DatetimeIndex(pd.to_datetime(list(dates))).sort_values()
    if len(index) < 3:
        return "daily"
    return frequency_of_gap(pd.Series(index).diff().dt.days.median())


def to_dates(values: Any) -> pd.Series:
    """Parse dates (strings, timestamps, tz-aware index) into naive midnight `datetime64`."""
    parsed = pd.to_datetime(pd.Series(values), errors="coerce")
    if getattr(parsed.dt, "tz", None) is not None:
        parsed = parsed.dt.tz_localize(None)
    return parsed.dt.normalize().astype("datetime64[ns]")


def clip_window(frame: pd.DataFrame, start: date | None, end: date | None) -> pd.DataFrame:
    """Rows of a tidy frame (with a `datetime64` `date` column) inside [start, end]."""
    mask = frame["date"].notna()
    if start is not None:
        mask &= frame["date"] >= pd.Timestamp(start)
    if end is not None:
        mask &= frame["date"] <= pd.Timestamp(end)
    return frame.loc[mask].reset_index(drop=True)


def snapshot_rows(
    entity_id: str, as_of: date, figures: Iterable[tuple[str, float, str]]
) -> pd.DataFrame:
    """Current figures `(field, value, unit)` as fundamentals rows of a snapshot dated `as_of`."""
    rows = [
        {
            "id": entity_id,
            "period_end": pd.Timestamp(as_of),
            "period": "snapshot",
            "statement": "ratios",
            "field": field,
            "value": value,
            "unit": unit,
        }
        for field, value, unit in figures
    ]
    return pd.DataFrame(rows, columns=FUNDAMENTAL_COLUMNS)


def require_rows(frame: pd.DataFrame, provider: str, entity_id: str, what: str) -> pd.DataFrame:
    """Raise a clear error when a download came back empty."""
    if frame.empty:
        raise ProviderError(f"{provider}: no {what} for {entity_id} in the requested window")
    return frame
