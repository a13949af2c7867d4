"""What analysts ask of a window besides its return: its best and worst sub-periods, how many
sessions met a condition, and how far the last value is from the window's peak or trough.

Conventions (docs/asking.md, "Counts, best periods and distances"):
- `period_extremes` ranks the rows of a series by value (a month's return, a day's
  volatility); each row keeps its date and a label of its period (2020-03, 2009Q2, 2020, the
  week 2008-10-06 to 2008-10-10 (2008-W41)).
- `count_days` counts the window's sessions in the data: a level condition ("closed above 150")
  on the window's closes, a move condition ("up more than 3%") on daily returns, the first
  from the close before the window. Strict comparisons unless `inclusive`.
- `distance_from_peak` compares the window's last value with its highest (or lowest) value,
  both dated, in % of the peak (trough).
"""

from __future__ import annotations

from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import (
    base_of,
    column_unit,
    derive,
    growth,
    simple_returns,
    values_of,
)
from datapilot.interfaces.registry import Frame, InterfaceError, interface

PeriodName = Literal["daily", "weekly", "monthly", "quarterly", "annual"]
Condition = Literal[
    "close_above",
    "close_below",
    "gain_beyond",
    "fall_beyond",
    "move_beyond",
    "up",
    "down",
    "sessions",
    "above_ma",
    "below_ma",
    "record_high",
    "record_low",
]
# Counts of closes beyond a level, or of record closes: their first and last sessions say when
# the condition began and last held ("the first close above 3000").
DATED_CONDITIONS: frozenset[Condition] = frozenset(
    {"close_above", "close_below", "record_high", "record_low"}
)
_NEEDS_THRESHOLD = {"close_above", "close_below", "gain_beyond", "fall_beyond", "move_beyond"}
_NEEDS_THRESHOLD |= {"above_ma", "below_ma"}


def period_label(day: pd.Timestamp, period: str | None) -> str:
    """How a period is named: 2020-03 (a month), 2009Q2, 2020, a week by its Monday and its last
    session (2022-06-13 to 2022-06-17 (2022-W24)), a day."""
    if period == "monthly":
        return f"{day:%Y-%m}"
    if period == "quarterly":
        return f"{day.year}Q{day.quarter}"
    if period == "annual":
        return str(day.year)
    if period == "weekly":  # its Monday to its last session (ISO week), never one bare date
        monday = day - pd.Timedelta(days=day.weekday())
        year, week, _ = day.isocalendar()
        return f"{monday:%Y-%m-%d} to {day:%Y-%m-%d} ({year}-W{week:02d})"
    return f"{day:%Y-%m-%d}"


@interface("processing", "frame")
def period_extremes(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series, e.g. monthly returns from compute_returns."],
    which: Annotated[
        Literal["best", "worst", "both"], "The highest values, the lowest, or both."
    ] = "both",
    n: Annotated[int, "How many rows per column (and per side)."] = 1,
    period: Annotated[
        PeriodName | None, "What one row is (names each row's period); None for a day."
    ] = None,
    beside: Annotated[
        list[Frame],
        "Series whose values on each extreme's date are shown beside it, one column each (the "
        "two yields of a spread on the day it was widest).",
    ] = [],  # noqa: B006
    within_end: Annotated[
        str | None,
        "Seek the extremes on or before this day (YYYY-MM-DD); later rows are read only for "
        "after_months.",
    ] = None,
    after_months: Annotated[
        int | None,
        "Also give each extreme's value this many months later (its last value on or before "
        "that day) and the change from the extreme to it.",
    ] = None,
    gap: Annotated[
        bool,
        "With which='both': each column's best less its worst, on every row (best_less_worst).",
    ] = False,
    claimed: Annotated[
        str | None,
        "A day inside the period a claim names as the best (worst): that period's row too, "
        "group 'claimed', ranked among all the periods.",
    ] = None,
) -> pd.DataFrame:
    """The n highest and/or lowest values per column, dated: id, date, period (2020-03, 2009Q2),
    value, rank, group (best/worst), `beside`'s columns; with after_months, after_date,
    after_value and after_change (after − value)."""
    if n < 1:
        raise InterfaceError("period_extremes needs n >= 1.")
    if not isinstance(frame.index, pd.DatetimeIndex):
        raise InterfaceError("period_extremes needs a time series (rows by date).")
    if after_months is not None and after_months < 1:
        raise InterfaceError("after_months must be 1 or more.")
    values = values_of(frame)
    sides = ["best", "worst"] if which == "both" else [which]
    rows = []
    for column in values.columns:
        whole = pd.to_numeric(values[column], errors="coerce").dropna()
        series = whole.loc[: pd.Timestamp(within_end)] if within_end else whole
        for side in sides:
            picked = series.nlargest(n) if side == "best" else series.nsmallest(n)
            for position, (day, value) in enumerate(picked.items(), start=1):
                stamp = pd.Timestamp(day)
                row = {
                    "id": str(column),
                    "date": stamp.date(),
                    "period": period_label(stamp, period),
                    "value": float(value),
                    "rank": position,
                    "group": side,
                }
                if after_months is not None:
                    row |= _value_after(whole, stamp, float(value), after_months)
                rows.append(row)
        if claimed is not None and which != "both":
            rows.append(_claimed_row(str(column), series, claimed, which, period))
    if not rows:
        raise InterfaceError("No values in the window to rank; widen the date window.")
    table = pd.DataFrame(rows).set_index("id")
    if gap and which == "both":
        firsts = table[table["rank"] == 1]
        best = firsts[firsts["group"] == "best"]["value"]
        worst = firsts[firsts["group"] == "worst"]["value"]
        table["best_less_worst"] = [float(best[i] - worst[i]) for i in table.index]
    for other in beside:
        if not isinstance(other.index, pd.DatetimeIndex):
            continue
        others = values_of(other)
        for column in others.columns:
            on_day = pd.to_numeric(others[column], errors="coerce")
            table[str(column)] = [
                float(on_day.get(pd.Timestamp(day), float("nan"))) for day in table["date"]
            ]
    unit = str(frame.attrs.get("unit") or "")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit=unit,
        title=f"Extremes of {frame.attrs.get('title') or 'the series'}",
        title_zh="最好与最差的时段",
        units={"value": unit, "after_value": unit, "after_change": unit, "best_less_worst": unit},
        period=period or "daily",
        which=which,
        of=str(frame.attrs.get("title") or ""),
        after_months=after_months,
    )


def _claimed_row(
    column: str, series: pd.Series, claimed: str, which: str, period: PeriodName | None
) -> dict[str, object]:
    """The row of the period a claim names, ranked among all the periods by the side asked."""
    day = pd.Timestamp(claimed)
    label = period_label(day, period)
    found = [d for d in series.index if period_label(pd.Timestamp(d), period) == label]
    if not found:
        raise InterfaceError(f"No value for {label}, the period the claim names, in the window.")
    value = float(series.loc[found[-1]])
    ordered = series.sort_values(ascending=which == "worst")
    return {
        "id": column,
        "date": pd.Timestamp(found[-1]).date(),
        "period": label,
        "value": value,
        "rank": int(list(ordered.index).index(found[-1])) + 1,
        "group": "claimed",
        "periods": len(series),
    }


def _value_after(
    series: pd.Series, day: pd.Timestamp, value: float, months: int
) -> dict[str, object]:
    """The series' last value on or before `months` months after `day`, dated, and its change
    from `value`; an error when the data end before that day."""
    target = day + pd.DateOffset(months=months)
    if series.index[-1] < target:
        raise InterfaceError(
            f"The data end on {series.index[-1]:%Y-%m-%d}, before {target:%Y-%m-%d} "
            f"({months} months after {day:%Y-%m-%d}); ask about an earlier extreme."
        )
    found = series.loc[:target]
    after = float(found.iloc[-1])
    return {
        "after_date": found.index[-1].date(),
        "after_value": after,
        "after_change": after - value,
    }


@interface("processing", "frame")
def high_low_range(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over the window."],
) -> pd.DataFrame:
    """Per column: the highest and lowest value with their dates, range (high − low), range_pct
    (high over low, %), move_pct (from the earlier of the two to the later, %: a fall from the
    high to a later low is negative), start_date and end_date."""
    values = values_of(frame)
    rows = []
    for column in values.columns:
        series = pd.to_numeric(values[column], errors="coerce").dropna()
        if series.empty:
            continue
        high, low = float(series.max()), float(series.min())
        first, then = (high, low) if series.idxmax() <= series.idxmin() else (low, high)
        rows.append(
            {
                "id": str(column),
                "high": high,
                "high_date": series.idxmax().date(),
                "low": low,
                "low_date": series.idxmin().date(),
                "range": high - low,
                "range_pct": (high / low - 1) * 100 if low > 0 else float("nan"),
                "move_pct": (then / first - 1) * 100 if first > 0 else float("nan"),
                "start_date": series.index[0].date(),
                "end_date": series.index[-1].date(),
            }
        )
    if not rows:
        raise InterfaceError("No values in the window to take a range of; widen the date window.")
    unit = str(frame.attrs.get("unit") or "")
    # A rate's high less its low is in percentage points, never a percent of anything.
    gap = "percentage points" if unit in ("%", "percent") else unit
    return derive(
        pd.DataFrame(rows).set_index("id"),
        frame,
        kind="cross_section",
        unit=unit,
        title="High-low range",
        units={"high": unit, "low": unit, "range": gap, "range_pct": "%"},
    )


@interface("processing", "frame")
def count_days(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily prices or levels over time (with the base before the window)."],
    condition: Annotated[
        Condition,
        "close_above/close_below a level; gain_beyond/fall_beyond a daily % up or down (a fall "
        "of more than 3% is fall_beyond 3); move_beyond either way; up/down days; sessions; "
        "above_ma/below_ma the close against its simple moving average of `threshold` sessions; "
        "record_high/record_low beyond every earlier close (give the history and `start`).",
    ] = "sessions",
    threshold: Annotated[float | None, "The level or the daily % the condition compares with."] = (
        None
    ),
    inclusive: Annotated[bool, "Count equality too (at least / at most)."] = False,
    start: Annotated[
        str | None, "Count from this date; earlier rows only warm a moving average up."
    ] = None,
) -> pd.DataFrame:
    """How many of the window's sessions meet `condition`, per column: count, sessions (the
    sessions in the data), share_pct, first_date and last_date (of those meeting it), start_date,
    end_date."""
    if condition in _NEEDS_THRESHOLD and threshold is None:
        raise InterfaceError(f"count_days with {condition} needs a threshold.")
    levels = values_of(frame)
    returns = simple_returns(frame) * 100
    rows = []
    for column in levels.columns:
        closes = pd.to_numeric(levels[column], errors="coerce").dropna()
        average = None
        if condition in ("above_ma", "below_ma"):
            average = closes.rolling(int(threshold or 0)).mean()
        records = None
        if condition in ("record_high", "record_low"):
            # A record close beats every close before it in the frame (all the data given).
            high = condition == "record_high"
            before = (closes.cummax() if high else closes.cummin()).shift(1)
            records = closes > before if high else closes < before
        if start is not None:
            closes = closes[closes.index >= pd.Timestamp(start)]
        if closes.empty:
            continue
        if records is not None:
            rows.append(_row(column, records.loc[closes.index], closes))
            continue
        if average is not None:  # the close minus its average: above the average when > 0
            gaps = (closes - average.loc[closes.index]).dropna()
            rows.append(_row(column, gaps > 0 if condition == "above_ma" else gaps < 0, closes))
            continue
        moves = returns[column].dropna() if column in returns.columns else pd.Series(dtype=float)
        moves = moves[moves.index >= closes.index[0]]  # the window's sessions, the first included
        rows.append(_row(column, _matching(condition, closes, moves, threshold, inclusive), closes))
    if not rows:
        raise InterfaceError("No sessions in the window to count; widen the date window.")
    table = pd.DataFrame(rows).set_index("id")
    period = _spacing(levels.index)
    title = _count_title(condition, threshold, inclusive)
    title_zh = _count_title_zh(condition, threshold, inclusive)
    if period != "daily" and condition in ("close_above", "close_below"):
        # A monthly or quarterly series' values, not sessions' closes.
        en, zh = _VALUE_NAMES[period]
        title = title.replace("Sessions with a close", f"{en} with a value")
        title_zh = title_zh.replace("收盘价", "数值").replace("的交易日", f"的{zh}")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="",
        title=title,
        title_zh=title_zh,
        units={"count": "", "sessions": "", "share_pct": "%"},
        condition=condition,
        threshold=threshold,
        period=period,
        # the level's unit: "above 8%" of a rate, "above 100" of a price
        level_unit=column_unit(frame, levels.columns[0]) if len(levels.columns) else "",
    )


_VALUE_NAMES = {"weekly": ("Weeks", "周"), "monthly": ("Months", "月份")}
_VALUE_NAMES |= {"quarterly": ("Quarters", "季度")}


def _spacing(index: pd.Index) -> str:
    """What one row of `index` is: a trading session, or a week, month or quarter (a series
    with one value each, whose values are what a count counts)."""
    days = pd.Series(pd.DatetimeIndex(index)).diff().dt.days.median()
    if pd.isna(days) or days < 5:
        return "daily"
    return "weekly" if days < 20 else "monthly" if days < 60 else "quarterly"


def _row(column: object, matching: pd.Series, closes: pd.Series) -> dict[str, object]:
    days = matching[matching].index
    return {
        "id": str(column),
        "count": len(days),
        "sessions": len(closes),
        "share_pct": len(days) / len(closes) * 100,
        "first_date": days[0].date() if len(days) else None,
        "last_date": days[-1].date() if len(days) else None,
        "start_date": closes.index[0].date(),
        "end_date": closes.index[-1].date(),
    }


def _matching(
    condition: str,
    closes: pd.Series,
    moves: pd.Series,
    threshold: float | None,
    inclusive: bool,
) -> pd.Series:
    """Whether each session meets `condition` (closes' or moves' index)."""
    level = float(threshold) if threshold is not None else 0.0

    def above(values: pd.Series, limit: float) -> pd.Series:
        return values >= limit if inclusive else values > limit

    def below(values: pd.Series, limit: float) -> pd.Series:
        return values <= limit if inclusive else values < limit

    if condition == "close_above":
        return above(closes, level)
    if condition == "close_below":
        return below(closes, level)
    if condition == "gain_beyond":
        return above(moves, abs(level))
    if condition == "fall_beyond":
        return below(moves, -abs(level))
    if condition == "move_beyond":
        return above(moves.abs(), abs(level))
    if condition == "up":
        return moves > 0
    if condition == "down":
        return moves < 0
    return pd.Series(True, index=closes.index)


def _count_title(condition: str, threshold: float | None, inclusive: bool) -> str:
    more = "at least" if inclusive else "more than"
    value = f"{threshold:g}" if threshold is not None else ""
    titles = {
        "close_above": f"Sessions with a close {'at or ' if inclusive else ''}above {value}",
        "close_below": f"Sessions with a close {'at or ' if inclusive else ''}below {value}",
        "gain_beyond": f"Sessions up {more} {abs(threshold or 0):g}%",
        "fall_beyond": f"Sessions down {more} {abs(threshold or 0):g}%",
        "move_beyond": f"Sessions moving {more} {abs(threshold or 0):g}% either way",
        "up": "Up sessions",
        "down": "Down sessions",
        "sessions": "Trading sessions",
        "above_ma": f"Sessions with a close above its {value}-day moving average",
        "below_ma": f"Sessions with a close below its {value}-day moving average",
        "record_high": "Sessions closing at a record high (above every earlier close)",
        "record_low": "Sessions closing at a record low (below every earlier close)",
    }
    return titles[condition]


def _count_title_zh(condition: str, threshold: float | None, inclusive: bool) -> str:
    """`_count_title` in Chinese (a Chinese answer names what it counted in Chinese)."""
    value = f"{threshold:g}" if threshold is not None else ""
    pct = f"{abs(threshold or 0):g}%"
    more = "至少" if inclusive else "超过"
    titles = {
        "close_above": f"收盘价{'不低于' if inclusive else '高于'}{value}的交易日",
        "close_below": f"收盘价{'不高于' if inclusive else '低于'}{value}的交易日",
        "gain_beyond": f"单日涨幅{more}{pct}的交易日",
        "fall_beyond": f"单日跌幅{more}{pct}的交易日",
        "move_beyond": f"单日涨跌幅{more}{pct}的交易日",
        "up": "上涨的交易日",
        "down": "下跌的交易日",
        "sessions": "交易日",
        "above_ma": f"收盘价高于{value}日均线的交易日",
        "below_ma": f"收盘价低于{value}日均线的交易日",
        "record_high": "收盘创历史新高的交易日",
        "record_low": "收盘创历史新低的交易日",
    }
    return titles[condition]


@interface("processing", "frame")
def count_signs(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Period returns in %, e.g. monthly returns from compute_returns."],
    period: Annotated[PeriodName, "What one row is: a day, a month, a quarter…"] = "daily",
) -> pd.DataFrame:
    """How many periods rose and how many fell, per column: up (return > 0), down (< 0), flat
    and periods (the periods with a return), start_date, end_date."""
    if not isinstance(frame.index, pd.DatetimeIndex):
        raise InterfaceError("count_signs needs a time series of returns (rows by date).")
    rows = []
    for column in values_of(frame).columns:
        moves = pd.to_numeric(frame[column], errors="coerce").dropna()
        if moves.empty:
            continue
        rows.append(
            {
                "id": str(column),
                "up": int((moves > 0).sum()),
                "down": int((moves < 0).sum()),
                "flat": int((moves == 0).sum()),
                "periods": len(moves),
                "start_date": moves.index[0].date(),
                "end_date": moves.index[-1].date(),
            }
        )
    if not rows:
        raise InterfaceError("No returns in the window to count; widen the date window.")
    return derive(
        pd.DataFrame(rows).set_index("id"),
        frame,
        kind="cross_section",
        unit="",
        title="Periods up and down",
        title_zh="上涨与下跌的时段数",
        units={"up": "", "down": "", "flat": "", "periods": ""},
        period=period,
    )


@interface("processing", "frame")
def distance_from_peak(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over the window the peak is sought in."],
    side: Annotated[Literal["high", "low"], "From the highest value, or from the lowest."] = "high",
) -> pd.DataFrame:
    """How far each column's last value is from its highest (lowest) value in the window:
    distance_pct = (last / peak − 1) × 100 (≤ 0 from a high, ≥ 0 from a low), with peak_value,
    peak_date, last_value and last_date."""
    levels = values_of(frame)
    rows = []
    for column in levels.columns:
        series = pd.to_numeric(levels[column], errors="coerce").dropna()
        if series.empty:
            continue
        when = series.idxmax() if side == "high" else series.idxmin()
        peak, last = float(series.loc[when]), float(series.iloc[-1])
        if peak == 0:
            continue
        rows.append(
            {
                "id": str(column),
                "distance_pct": (last / peak - 1) * 100,
                "peak_value": peak,
                "peak_date": pd.Timestamp(when).date(),
                "last_value": last,
                "last_date": series.index[-1].date(),
            }
        )
    if not rows:
        raise InterfaceError("No values in the window to find a peak in; widen the date window.")
    table = pd.DataFrame(rows).set_index("id")
    unit = str(frame.attrs.get("unit") or "")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title="Distance from the high" if side == "high" else "Distance from the low",
        title_zh="距最高点的距离" if side == "high" else "距最低点的距离",
        units={"distance_pct": "%", "peak_value": unit, "last_value": unit},
        side=side,
    )


@interface("processing", "frame")
def leveraged(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily prices or levels (with the base before the window)."],
    leverage: Annotated[float, "The multiple of each day's return (2 for 2x)."] = 2.0,
) -> pd.DataFrame:
    """Levels of a position rebalanced daily to `leverage` times each day's return, from the same
    base close: base × ∏(1 + leverage × r), no fees or financing costs; returns of it are the
    leveraged returns."""
    if leverage <= 0:
        raise InterfaceError("leverage must be positive (2 for 2x).")
    returns = simple_returns(frame)
    wealth = growth(frame)
    bases = base_of(frame)
    levels = values_of(frame)
    parts = {}
    for column in returns.columns:
        start = wealth[column].dropna()
        if start.empty:
            continue
        first = float(bases.get(str(column), {}).get("value") or levels[column].dropna().iloc[0])
        path = (1 + leverage * returns[column].dropna()).cumprod() * first
        parts[column] = path[path.index >= levels[column].first_valid_index()]
    if not parts:
        raise InterfaceError("No daily returns in the window to lever; widen the date window.")
    out = pd.DataFrame(parts)
    out.index = pd.DatetimeIndex(out.index, name="date")
    # The same base close: a leveraged return starts where the plain one does.
    return derive(
        out,
        frame,
        kind="timeseries",
        title=f"{frame.attrs.get('title') or 'Close'} at {leverage:g}x daily leverage",
        base=frame.attrs.get("base"),
        leverage=leverage,
    )
