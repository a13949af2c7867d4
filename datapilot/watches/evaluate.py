"""An alert's condition over one entity's closes: the days it fires, as a pure function.

    result = evaluate(condition, closes, start, end, entity="^GSPC")
    result.firings          # [Firing(date, entity, value, threshold, close), …] in date order
    result.holding          # whether a state condition holds on the last day read

`closes` is the whole daily history up to `end` (a float Series on a date index): what comes
before `start` is the base. The first day's move is measured from the close before `start`; a
drawdown is from the running peak since that base close (the first close when there is none); a
return over N sessions and an N-session moving average reach back into the history. A **state**
condition fires on the day it becomes true and re-arms once it stops holding; one already true
on the first day fires that day, unless `holding=True` says it already held (a live evaluator
passes what the last run returned). An **event** condition fires on every day it happens (a
daily move beyond X %, a cross of the moving average, which needs the day before too).

Values are percent for moves, drawdowns and returns; the level itself for `close_level`; the
close for `ma_cross`, whose threshold is that day's moving average.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pandas as pd

from datapilot.core.watches import Condition, Firing


@dataclass
class Evaluation:
    """The days a condition fired in the window, and its state after the last day read."""

    firings: list[Firing] = field(default_factory=list)
    holding: bool = False
    through: date | None = None


def measure_values(condition: Condition, closes: pd.Series, start: date) -> pd.DataFrame:
    """Per day of the history: the measure (`value`), what it is compared with (`threshold`)
    and whether the condition is true that day (`true`, NaN where it cannot be told)."""
    closes = closes.dropna().astype(float).sort_index()
    closes.index = pd.DatetimeIndex(closes.index)
    threshold = pd.Series(condition.threshold, index=closes.index, dtype=float)
    if condition.measure == "close_level":
        value = closes
    elif condition.measure == "daily_move":
        value = closes.pct_change() * 100
    elif condition.measure == "window_return":
        value = (closes / closes.shift(condition.window or 1) - 1) * 100
    elif condition.measure == "drawdown":
        before = closes[closes.index < pd.Timestamp(start)]
        base_day = before.index[-1] if len(before) else closes.index[0] if len(closes) else None
        since = closes[closes.index >= base_day] if base_day is not None else closes
        value = (since / since.cummax() - 1) * 100
        value = value.reindex(closes.index)
    else:  # ma_cross: the close against its simple moving average
        average = closes.rolling(condition.window or 50).mean()
        side = closes > average if condition.comparator == "above" else closes < average
        known = average.notna() & average.shift(1).notna()
        crossed = side & ~side.shift(1, fill_value=False)
        true = crossed.where(known)
        return pd.DataFrame({"value": closes, "threshold": average, "true": true, "close": closes})
    return pd.DataFrame(
        {
            "value": value,
            "threshold": threshold,
            "true": _compare(condition, value),
            "close": closes,
        }
    )


def _compare(condition: Condition, value: pd.Series) -> pd.Series:
    limit = float(condition.threshold or 0.0)
    if condition.comparator == "beyond":
        value, limit = value.abs(), abs(limit)
        true = value >= limit if condition.inclusive else value > limit
    elif condition.comparator == "above":
        true = value >= limit if condition.inclusive else value > limit
    else:
        true = value <= limit if condition.inclusive else value < limit
    return true.where(value.notna())


def evaluate(
    condition: Condition,
    closes: pd.Series,
    start: date,
    end: date,
    *,
    entity: str = "",
    holding: bool | None = None,
) -> Evaluation:
    """The days in `start..end` (inclusive) on which `condition` fires over `closes`."""
    frame = measure_values(condition, closes, start)
    window = frame[(frame.index >= pd.Timestamp(start)) & (frame.index <= pd.Timestamp(end))]
    held = bool(holding)
    out = Evaluation(holding=held)
    for day, row in window.iterrows():
        true = row["true"]
        if true is None or (isinstance(true, float) and np.isnan(true)):
            continue  # not known that day (no base yet): the state stays as it was
        now = bool(true)
        fires = now and (condition.behaviour == "event" or not held)
        held = now
        if fires:
            out.firings.append(
                Firing(
                    date=pd.Timestamp(day).date(),
                    entity=entity,
                    value=round(float(row["value"]), 6),
                    threshold=round(float(row["threshold"]), 6),
                    close=float(row["close"]),
                )
            )
    out.holding = held
    out.through = pd.Timestamp(window.index[-1]).date() if len(window) else None
    return out
