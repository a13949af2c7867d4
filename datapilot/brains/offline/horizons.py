"""Forecast horizons and histories in the data's own steps (quarters of GDP, trading days)."""

from __future__ import annotations

import math
from datetime import date

import pandas as pd

from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.windows import Horizon
from datapilot.core.intent import Frequency
from datapilot.interfaces.frame import sessions_between

DEFAULT_STEPS: dict[str, int] = {
    "daily": 20,
    "weekly": 12,
    "monthly": 12,
    "quarterly": 8,
    "annual": 5,
}

HISTORY = {
    "daily": Duration(2, "year"),
    "weekly": Duration(5, "year"),
    "monthly": Duration(20, "year"),
    "quarterly": Duration(40, "year"),
    "annual": Duration(60, "year"),
}


def steps_in(horizon: Horizon, frequency: Frequency) -> int:
    """A horizon in steps of the data's frequency (8 quarters of quarterly data = 8)."""
    per_year = {"daily": 252, "weekly": 52, "monthly": 12, "quarterly": 4, "annual": 1}[frequency]
    unit_years = {
        "trading_day": 1 / 252,
        "day": 1 / 252,
        "week": 1 / 52,
        "month": 1 / 12,
        "quarter": 1 / 4,
        "year": 1.0,
        "decade": 10.0,
    }[horizon.unit]
    same = {
        ("daily", "trading_day"),
        ("daily", "day"),
        ("weekly", "week"),
        ("monthly", "month"),
        ("quarterly", "quarter"),
        ("annual", "year"),
    }
    if (frequency, horizon.unit) in same:
        return horizon.count
    return max(1, math.ceil(round(horizon.count * unit_years * per_year, 6)))


def periods_between(
    first: date, last: date, frequency: Frequency, calendar: str | None = None
) -> int:
    """Whole periods from the one holding `first` to the one holding `last`: for daily data the
    sessions of the exchange's `calendar` (holidays skipped, as the forecast's dates are), else
    weekdays."""
    if frequency == "daily":
        counted = sessions_between(first, last, calendar) if calendar else None
        return counted if counted is not None else len(pd.bdate_range(first, last)) - 1
    code = {"weekly": "W", "monthly": "M", "quarterly": "Q", "annual": "Y"}[frequency]
    return (pd.Period(last, freq=code) - pd.Period(first, freq=code)).n
