"""What a brain understood of a question: entities, an explicit window, metrics, forms."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

EntityKind = Literal["stock", "etf", "index", "macro", "commodity", "factor", "fund", "table"]
ChartType = Literal["line", "bar", "candlestick", "scatter", "area", "pie"]
Frequency = Literal["daily", "weekly", "monthly", "quarterly", "annual"]

# Entities whose data are prices (OHLCV, adjusted close) and those whose data are one series.
PRICE_KINDS: frozenset[EntityKind] = frozenset({"stock", "etf", "index", "fund"})
SERIES_KINDS: frozenset[EntityKind] = frozenset({"macro", "commodity", "factor"})


def frequency_of_gap(days: float) -> Frequency:
    """The frequency a typical gap between observations suggests (e.g. the median gap in days)."""
    if days <= 4:
        return "daily"
    if days <= 10:
        return "weekly"
    if days <= 45:
        return "monthly"
    if days <= 120:
        return "quarterly"
    return "annual"


class EntityRef(BaseModel):
    """An entity named by the question, resolved to a stable catalog id."""

    id: str
    kind: EntityKind
    name: str


class Intent(BaseModel):
    """The question restated with explicit dates, plus every decision taken and why."""

    rewritten: str
    entities: list[EntityRef] = Field(default_factory=list)
    start: date | None = None
    end: date | None = None
    metrics: list[str] = Field(default_factory=list)
    horizon: int | None = None
    frequency: Frequency | None = None
    chart: ChartType | None = None
    table: bool = False
    trace: list[str] = Field(default_factory=list, description="Why each decision was taken.")
