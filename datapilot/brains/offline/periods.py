"""Calendar arithmetic for time windows: durations, quarters, halves, month ends.

Relative windows go back "the same calendar day N units back, clamped to month end"
(2020-03-31 minus one month is 2020-02-29), which is what `dateutil.relativedelta` does.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

import pandas as pd
from dateutil.relativedelta import relativedelta

from datapilot.brains.offline.vocab import Unit

_MONTHS_PER = {"month": 1, "quarter": 3, "year": 12, "decade": 120}
_UNIT_WORDS = {
    "trading_day": ("trading day", "个交易日"),
    "day": ("day", "天"),
    "week": ("week", "周"),
    "month": ("month", "个月"),
    "quarter": ("quarter", "个季度"),
    "year": ("year", "年"),
    "decade": ("decade", "十年"),
}


@dataclass(frozen=True)
class Duration:
    """A length of time such as 6 months, half a year or 30 trading days."""

    count: float
    unit: Unit

    def _delta(self) -> relativedelta | timedelta:
        if self.unit in _MONTHS_PER:
            return relativedelta(months=round(self.count * _MONTHS_PER[self.unit]))
        if self.unit == "week":
            return timedelta(days=round(self.count * 7))
        return timedelta(days=round(self.count))

    def back(self, day: date) -> date:
        """The same calendar day this long before `day` (trading days skip weekends); a length
        reaching before year 1 ("past 999999 years") stops at the first day of the calendar."""
        try:
            if self.unit == "trading_day":
                return (pd.Timestamp(day) - pd.offsets.BDay(round(self.count))).date()
            return day - self._delta()
        except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime):
            return date.min

    def forward(self, day: date) -> date:
        """The last day of a window of this length starting on `day` (inclusive); a length
        reaching past year 9999 stops at the last day of the calendar."""
        try:
            if self.unit == "trading_day":
                steps = max(round(self.count) - 1, 0)
                return (pd.Timestamp(day) + pd.offsets.BDay(steps)).date()
            return day + self._delta() - timedelta(days=1)
        except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime):
            return date.max

    def after(self, day: date) -> date:
        """The day this long after `day`: "the month after 2020-03-23" ends on 2020-04-23, ten
        trading days after a day are ten weekdays on (as "the past 10 trading days" go back)."""
        try:
            if self.unit == "trading_day":
                return (pd.Timestamp(day) + pd.offsets.BDay(round(self.count))).date()
            return day + self._delta()
        except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime):
            return date.max

    def in_months(self) -> float | None:
        return self.count * _MONTHS_PER[self.unit] if self.unit in _MONTHS_PER else None

    def label(self, chinese: bool = False) -> str:
        count = int(self.count) if float(self.count).is_integer() else self.count
        english, zh = _UNIT_WORDS[self.unit]
        if chinese:
            return f"{count}{zh}"
        return f"{count} {english}{'' if count == 1 else 's'}"


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def month_window(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), month_end(year, month)


def quarter_window(year: int, quarter: int) -> tuple[date, date]:
    return date(year, 3 * quarter - 2, 1), month_end(year, 3 * quarter)


def half_window(year: int, half: int) -> tuple[date, date]:
    return (
        (date(year, 1, 1), date(year, 6, 30))
        if half == 1
        else (date(year, 7, 1), date(year, 12, 31))
    )


def year_window(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year, 12, 31)


def period_holding(day: date, unit: str) -> tuple[date, date]:
    """The calendar year, quarter or month (any other unit: the month) holding `day`."""
    if unit == "year":
        return year_window(day.year)
    if unit == "quarter":
        return quarter_window(day.year, quarter_of(day))
    return month_window(day.year, day.month)


def calendar_unit(first: date | None, last: date | None) -> Unit | None:
    """The calendar month, quarter or year first..last is exactly, if any."""
    if first is None or last is None or first.day != 1:
        return None
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    units: dict[int, Unit] = {1: "month", 3: "quarter", 12: "year"}
    unit = units.get(months)
    if (unit == "quarter" and first.month % 3 != 1) or (unit == "year" and first.month != 1):
        return None
    if unit is None or last.day != calendar.monthrange(last.year, last.month)[1]:
        return None
    return unit


def from_start_within(first: date | None, last: date | None, unit: str) -> bool:
    """Whether first..last starts a calendar month, quarter or year and ends inside it: the
    year to date, its first half, a month to date ("for the year", "mid-year" said of it)."""
    if first is None or last is None or first.day != 1 or last < first:
        return False
    if unit == "year":
        return first.month == 1 and last.year == first.year
    if unit == "quarter":
        return first.month % 3 == 1 and (last.year, quarter_of(last)) == (
            first.year,
            quarter_of(first),
        )
    if unit == "month":
        return (last.year, last.month) == (first.year, first.month)
    return False


def quarter_of(day: date) -> int:
    return (day.month - 1) // 3 + 1


def previous_quarter(day: date) -> tuple[int, int]:
    quarter = quarter_of(day) - 1
    return (day.year, quarter) if quarter else (day.year - 1, 4)


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())
