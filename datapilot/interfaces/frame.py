"""Frame conventions (attrs, frequency, checks) and the DataFrame operations a plan may call.

Every interface builds its result through `tag` / `derive`, so the attrs documented in
`datapilot.interfaces` are always set explicitly rather than left to pandas propagation.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from datetime import date
from functools import lru_cache
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd

from datapilot.core.intent import Frequency, frequency_of_gap
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import Frame, InterfaceError, interface

BaseRule = Literal["before", "on_or_before"]
FrameKind = Literal[
    "timeseries", "ohlcv", "indicator", "cross_section", "matrix", "forecast", "stats"
]
Freq = Frequency

PERIODS_PER_YEAR: dict[Freq, int] = {
    "daily": 252,
    "weekly": 52,
    "monthly": 12,
    "quarterly": 4,
    "annual": 1,
}
_PERIOD_CODE: dict[Freq, str] = {
    "daily": "D",
    "weekly": "W-FRI",
    "monthly": "M",
    "quarterly": "Q",
    "annual": "Y",
}
OHLCV_COLUMNS = ["open", "high", "low", "close", "volume"]


# --- attrs -------------------------------------------------------------------------------------


def tag(
    frame: pd.DataFrame,
    *,
    kind: FrameKind,
    unit: str = "",
    title: str = "",
    sources: Iterable[str] = (),
    **extra: Any,
) -> pd.DataFrame:
    """Set the conventional attrs on `frame` (replacing what pandas propagated); return it."""
    frame.attrs = {
        "kind": kind,
        "unit": unit,
        "title": title,
        "sources": sorted(set(sources)),
        **{key: value for key, value in extra.items() if value is not None},
    }
    return frame


def derive(
    frame: pd.DataFrame,
    parent: pd.DataFrame,
    *,
    kind: FrameKind | None = None,
    unit: str | None = None,
    title: str | None = None,
    **extra: Any,
) -> pd.DataFrame:
    """Tag `frame` as computed from `parent`: keep its sources and entity, override the rest."""
    attrs = parent.attrs
    keep = {key: attrs[key] for key in ("entity", "calendars") if key in attrs}
    # Per-column units still hold while the values keep their unit.
    if unit is None and "units" in attrs:
        keep["units"] = attrs["units"]
    return tag(
        frame,
        kind=kind or attrs.get("kind", "timeseries"),
        unit=attrs.get("unit", "") if unit is None else unit,
        title=attrs.get("title", "") if title is None else title,
        sources=attrs.get("sources", []),
        **{**keep, **extra},
    )


def unit_of(frame: pd.DataFrame) -> str:
    return str(frame.attrs.get("unit", "") or "")


def column_unit(frame: pd.DataFrame, column: object) -> str:
    """A column's own unit (`attrs["units"]`), else the frame's."""
    return str((frame.attrs.get("units") or {}).get(column) or unit_of(frame))


def title_of(frame: pd.DataFrame, default: str = "") -> str:
    return str(frame.attrs.get("title", "") or default)


# --- checks --------------------------------------------------------------------------------------


def require_timeseries(frame: pd.DataFrame, what: str = "frame") -> pd.DataFrame:
    """The frame must be indexed by dates and hold at least one row."""
    if not isinstance(frame, pd.DataFrame):
        raise InterfaceError(f"The {what} is not a table of data (got {type(frame).__name__}).")
    if not isinstance(frame.index, pd.DatetimeIndex):
        raise InterfaceError(
            f"The {what} is not a time series (its rows are {_row_label(frame)}, not dates); "
            "use a result of get_prices, get_series or a processing step on them."
        )
    if frame.empty:
        raise InterfaceError(f"The {what} has no rows; widen the date window.")
    return frame


def numeric(frame: pd.DataFrame, what: str = "frame") -> pd.DataFrame:
    """The numeric columns of `frame`; an error when there are none."""
    if not isinstance(frame, pd.DataFrame):
        raise InterfaceError(f"The {what} is not a table of data (got {type(frame).__name__}).")
    values = frame.select_dtypes(include="number")
    if values.shape[1] == 0:
        raise InterfaceError(
            f"The {what} has no numeric columns (columns: {', '.join(map(str, frame.columns))})."
        )
    return values


def values_of(frame: pd.DataFrame, what: str = "frame") -> pd.DataFrame:
    """The numbers a time series stands for: its numeric columns, or for OHLCV the close, named
    after the entity."""
    require_timeseries(frame, what)
    if frame.attrs.get("kind") == "ohlcv" and "close" in frame.columns:
        return frame[["close"]].rename(columns={"close": frame.attrs.get("entity", "close")})
    return numeric(frame, what)


def require_column(frame: pd.DataFrame, column: str, what: str = "frame") -> str:
    """Return the column name as spelled in `frame` (case-insensitive match) or raise."""
    if column in frame.columns:
        return column
    folded = {str(c).lower(): c for c in frame.columns}
    if column.lower() in folded:
        return folded[column.lower()]
    raise InterfaceError(
        f"The {what} has no column {column!r}; it has: {', '.join(map(str, frame.columns))}."
    )


def _row_label(frame: pd.DataFrame) -> str:
    return str(frame.index.name or "labels")


# --- the base of returns ------------------------------------------------------------------------


def is_returns(frame: pd.DataFrame) -> bool:
    """True when the values are period returns in % (compounded, never treated as levels)."""
    return frame.attrs.get("measure") == "returns"


def base_of(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """`attrs["base"]`: per column, the observation every return of the window starts from."""
    base = frame.attrs.get("base") or {}
    return dict(base) if isinstance(base, dict) else {}


def with_base(frame: pd.DataFrame) -> pd.DataFrame:
    """The levels of a time series with each column's base observation prepended.

    The base (`attrs["base"]`, set by the acquisition interfaces) is the observation before the
    window that its returns start from: the 2020-12-31 close for a return "in 2021". Columns
    without a base start from their first value in the window. OHLCV frames give their close.
    """
    levels = values_of(frame).copy()
    rows: dict[pd.Timestamp, dict[str, float]] = {}
    for column, entry in base_of(frame).items():
        if column not in levels.columns:
            continue
        first = levels[column].first_valid_index()
        stamp = pd.Timestamp(entry["date"])
        if first is not None and stamp < first:
            rows.setdefault(stamp, {})[column] = float(entry["value"])
    if rows:
        head = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=levels.columns)
        levels = pd.concat([head.astype(float), levels]).sort_index()
        levels.index = pd.DatetimeIndex(levels.index, name="date")
    levels.attrs = dict(frame.attrs)
    return levels


def growth(frame: pd.DataFrame) -> pd.DataFrame:
    """What 1 invested at each column's base is worth over time (1.0 on the base date).

    Levels are divided by their base; return series (`measure` = `returns`, in %) are compounded,
    ∏(1 + r/100), from 1.0 on the base date when the frame has one.
    """
    require_timeseries(frame)
    parts: dict[str, pd.Series] = {}
    if is_returns(frame):
        bases = base_of(frame)
        for column, values in numeric(frame).items():
            series = values.dropna()
            if series.empty:
                continue
            wealth = (1 + series / 100).cumprod()
            entry = bases.get(str(column))
            if entry and pd.Timestamp(entry["date"]) < series.index[0]:
                start = pd.Series([1.0], index=[pd.Timestamp(entry["date"])])
                wealth = pd.concat([start, wealth])
            parts[str(column)] = wealth
    else:
        for column, values in with_base(frame).items():
            series = values.dropna()
            if not series.empty:
                parts[str(column)] = series / series.iloc[0]
    if not parts:
        raise InterfaceError("The frame holds no values to compute returns from.")
    out = pd.DataFrame(parts).sort_index()
    out.index = pd.DatetimeIndex(out.index, name="date")
    return out


def growth_index(frame: pd.DataFrame) -> pd.DataFrame:
    """A return series as the level of 100 invested at its base, the base's row included: a
    level like any price."""
    out = growth(frame) * 100
    extra = {k: v for k, v in frame.attrs.items() if k not in ("kind", "unit", "measure", "base")}
    return tag(out, kind="timeseries", unit="index, base = 100", **extra)


def simple_returns(frame: pd.DataFrame) -> pd.DataFrame:
    """Period returns as fractions per column, the first period (from the base) included."""
    if is_returns(frame):
        return numeric(frame) / 100
    wealth = growth(frame)
    return pd.DataFrame(
        {column: values.dropna().pct_change().iloc[1:] for column, values in wealth.items()}
    )


# --- time ----------------------------------------------------------------------------------------


def infer_freq(index: pd.DatetimeIndex) -> Freq:
    """Classify the spacing of a date index by its median gap."""
    if len(index) < 2:
        return "daily"
    return frequency_of_gap(
        float(np.median(np.diff(index.values).astype("timedelta64[D]").astype(float)))
    )


def window(frame: pd.DataFrame, start: date | None, end: date | None) -> pd.DataFrame:
    """Rows with start <= date <= end (inclusive, open ends allowed)."""
    lower = pd.Timestamp(start) if start else None
    upper = pd.Timestamp(end) if end else None
    return frame.loc[lower:upper]


def _starts_periods(index: pd.DatetimeIndex) -> bool:
    """FRED labels monthly/quarterly observations by the first day of the period."""
    return bool(len(index)) and bool((index.day == 1).all())


def resample_frame(frame: pd.DataFrame, freq: Freq, how: str = "last") -> pd.DataFrame:
    """Aggregate a time series to `freq`.

    Each period is labelled by the last date actually observed in it (so weekly/monthly prices
    keep real trading days), or by the period's first day when the input already uses
    first-of-period labels (FRED convention). OHLCV frames aggregate per field.
    """
    require_timeseries(frame)
    if freq == "daily":
        return frame.copy()
    periods = frame.index.to_period(_PERIOD_CODE[freq])
    grouped = frame.groupby(periods)
    if frame.attrs.get("kind") == "ohlcv":
        rules = {"open": "first", "high": "max", "low": "min", "close": "last", "volume": "sum"}
        out = grouped.agg({c: rules.get(c, "last") for c in frame.columns})
    else:
        out = grouped.agg(how)
    if _starts_periods(frame.index):
        labels = out.index.start_time
    else:
        labels = pd.DatetimeIndex(frame.index.to_series().groupby(periods).max().values)
    out.index = pd.DatetimeIndex(labels, name="date")
    return out


@lru_cache(maxsize=16)
def _sessions(calendar: str, first_year: int, last_year: int) -> pd.DatetimeIndex | None:
    """The trading sessions of an exchange calendar (ISO 10383 code) over whole years; None when
    the calendar does not cover them."""
    import exchange_calendars

    try:
        with warnings.catch_warnings():
            # The library's own use of deprecated pandas calls is not the user's concern.
            warnings.simplefilter("ignore")
            found = exchange_calendars.get_calendar(
                calendar, start=f"{first_year}-01-01", end=f"{last_year}-12-31"
            )
    except (exchange_calendars.errors.CalendarError, ValueError):
        return None
    return pd.DatetimeIndex(found.sessions).tz_localize(None)


def sessions_of(calendar: str, first_year: int, last_year: int) -> pd.DatetimeIndex | None:
    """The trading sessions of `calendar` over whole years; None when it does not cover them."""
    return _sessions(calendar, first_year, last_year)


def _trading_days(last: pd.Timestamp, horizon: int, calendar: str) -> pd.DatetimeIndex | None:
    # ~252 sessions a year: whole years enough for the horizon, so the cache is reused.
    sessions = _sessions(calendar, last.year, last.year + horizon // 240 + 1)
    if sessions is None:
        return None
    after = sessions[sessions > last][:horizon]
    return after if len(after) == horizon else None


def sessions_between(first: date, last: date, calendar: str) -> int | None:
    """Trading sessions of `calendar` after `first` up to and including `last` (the steps a
    daily forecast takes from `first` to `last`); None when the calendar does not cover them."""
    sessions = _sessions(calendar, first.year, max(first.year, last.year) + 1)
    if sessions is None:
        return None
    return int(((sessions > pd.Timestamp(first)) & (sessions <= pd.Timestamp(last))).sum())


def next_dates(
    index: pd.DatetimeIndex, horizon: int, calendar: str | None = None
) -> pd.DatetimeIndex:
    """The `horizon` dates after the index at its own frequency.

    Daily data continue on the trading days of `calendar` (an exchange calendar code such as
    XNYS, from `exchange_calendars`: holidays skipped) or, without one, on business days;
    monthly/quarterly/annual data keep their labelling (first day of period for FRED-style series,
    otherwise the period's last business day).
    """
    last = index[-1]
    freq = infer_freq(index)
    if freq == "daily" and calendar:
        days = _trading_days(last, horizon, calendar)
        if days is not None:
            return pd.DatetimeIndex(days, name="date")
    first_labels = _starts_periods(index[-12:])
    offsets: dict[Freq, pd.DateOffset] = {
        "daily": pd.offsets.BDay(),
        "weekly": pd.offsets.Week(weekday=last.weekday()),
        "monthly": pd.offsets.MonthBegin() if first_labels else pd.offsets.BMonthEnd(),
        "quarterly": pd.offsets.QuarterBegin(startingMonth=1)
        if first_labels
        else pd.offsets.BQuarterEnd(),
        "annual": pd.offsets.YearBegin() if first_labels else pd.offsets.BYearEnd(),
    }
    dates = pd.date_range(last, periods=horizon + 1, freq=offsets[freq])
    if dates[0] == last:
        dates = dates[1:]
    return pd.DatetimeIndex(dates[:horizon], name="date")


# --- DataFrame operations ------------------------------------------------------------------------


@interface("frame", "frame")
def merge_frames(
    ctx: InterfaceContext,
    frames: Annotated[list[Frame], "Two or more earlier results indexed alike (dates or ids)."],
    how: Literal["outer", "inner"] = "outer",
) -> pd.DataFrame:
    """Join several frames side by side on their index (dates or entity ids); same-named columns get
    a numeric suffix.

    `outer` keeps every row of any frame (gaps are empty), `inner` only rows all frames share.
    """
    if len(frames) < 1:
        raise InterfaceError("merge_frames needs at least one frame.")
    kinds = {isinstance(f.index, pd.DatetimeIndex) for f in frames}
    if len(kinds) > 1:
        raise InterfaceError(
            "Cannot merge a time series with a cross-section: their rows are dates in one and "
            "entity ids in the other."
        )
    if any(map(is_returns, frames)) and not all(map(is_returns, frames)):
        # A return series beside levels (a factor's monthly returns beside a price): compounded
        # into a growth index first, so every column is a level and is measured alike.
        frames = [growth_index(f) if is_returns(f) else f for f in frames]
    seen: dict[str, int] = {}
    parts = []
    for frame in frames:
        renamed = {}
        for column in frame.columns:
            count = seen.get(str(column), 0)
            seen[str(column)] = count + 1
            if count:
                renamed[column] = f"{column}_{count + 1}"
        parts.append(frame.rename(columns=renamed))
    merged = pd.concat(parts, axis=1, join=how, sort=True)
    units = {unit_of(f) for f in frames if unit_of(f)}
    titles = [title_of(f) for f in frames if title_of(f)]
    measures = {f.attrs.get("measure") for f in frames}
    # Each column keeps the base it was read with (a renamed duplicate has none).
    bases = {
        column: entry
        for part in parts
        for column, entry in base_of(part).items()
        if column in part.columns
    }
    merged = tag(
        merged,
        kind=frames[0].attrs.get("kind", "timeseries"),
        unit=units.pop() if len(units) == 1 else ", ".join(sorted(units)),
        title=" & ".join(dict.fromkeys(titles)),
        sources=[s for f in frames for s in f.attrs.get("sources", [])],
        base=bases or None,
        measure=measures.pop() if len(measures) == 1 else None,
        calendars={k: v for f in frames for k, v in f.attrs.get("calendars", {}).items()} or None,
    )
    if len(titles) > 1:
        # What each column is, when the frames measured different things (a close beside its
        # moving average): the joined title describes none of them alone.
        merged.attrs["column_titles"] = {
            str(column): title_of(part) for part in parts for column in part.columns
        }
    return merged


@interface("frame", "frame")
def select_columns(
    ctx: InterfaceContext,
    frame: Frame,
    columns: Annotated[list[str], "Column names to keep, in this order (case-insensitive)."],
) -> pd.DataFrame:
    """Keep only the named columns of a frame, in the given order."""
    if not columns:
        raise InterfaceError("select_columns needs at least one column name.")
    names = [require_column(frame, column) for column in columns]
    base = {k: v for k, v in base_of(frame).items() if k in names}
    return derive(frame[names].copy(), frame, base=base or None, measure=frame.attrs.get("measure"))


@interface("frame", "frame")
def filter_dates(
    ctx: InterfaceContext,
    frame: Frame,
    start: Annotated[date | None, "First date kept (inclusive); None = from the beginning."] = None,
    end: Annotated[date | None, "Last date kept (inclusive); None = to the end."] = None,
    weekdays: Annotated[
        list[int] | None, "Only rows on these weekdays (Monday = 0 … Friday = 4); None = all."
    ] = None,
) -> pd.DataFrame:
    """Keep the rows of a time series between two dates (inclusive), or on some weekdays."""
    require_timeseries(frame)
    out = window(frame, start, end)
    if weekdays:
        if any(not 0 <= day <= 6 for day in weekdays):
            raise InterfaceError(f"Weekdays are 0 (Monday) to 6 (Sunday), not {weekdays}.")
        out = out[out.index.day_of_week.isin(weekdays)]
    if out.empty:
        days = f" on weekdays {weekdays}" if weekdays else ""
        raise InterfaceError(
            f"No rows between {start or 'the beginning'} and {end or 'the end'}{days}; the data "
            f"run from {frame.index[0].date()} to {frame.index[-1].date()}."
        )
    # Rows were cut, so the base read for the original window no longer applies.
    return derive(out.copy(), frame, measure=frame.attrs.get("measure"))


@interface("frame", "frame")
def drop_extremes(
    ctx: InterfaceContext,
    frame: Frame,
    which: Annotated[Literal["best", "worst"], "Leave out the largest (best) or smallest values."],
    n: Annotated[int, "How many values of each column to leave out."] = 1,
) -> pd.DataFrame:
    """Leave out each column's `n` largest (`best`) or smallest (`worst`) values: the daily
    returns "excluding the worst day"."""
    require_timeseries(frame)
    if n < 1:
        raise InterfaceError(f"n must be at least 1, not {n}.")
    out = frame.copy()
    for column in out.columns:
        values = pd.to_numeric(out[column], errors="coerce").dropna()
        if len(values) <= n:
            raise InterfaceError(
                f"{column} has {len(values)} values: leaving out {n} would leave none."
            )
        picked = values.nlargest(n) if which == "best" else values.nsmallest(n)
        out.loc[picked.index, column] = np.nan
    return derive(out.dropna(how="all"), frame, measure=frame.attrs.get("measure"))


_OPS = {
    ">": np.greater,
    ">=": np.greater_equal,
    "<": np.less,
    "<=": np.less_equal,
    "==": np.equal,
    "!=": np.not_equal,
}


@interface("frame", "frame")
def filter_rows(
    ctx: InterfaceContext,
    frame: Frame,
    column: Annotated[str, "The numeric column compared."],
    op: Literal[">", ">=", "<", "<=", "==", "!="],
    value: Annotated[float, "The number compared against, in the column's unit."],
) -> pd.DataFrame:
    """Keep the rows where `column op value` holds, e.g. return_pct > 10."""
    name = require_column(frame, column)
    values = pd.to_numeric(frame[name], errors="coerce")
    out = frame[_OPS[op](values, value).fillna(False).astype(bool)]
    return derive(out.copy(), frame)


@interface("frame", "frame")
def head_rows(
    ctx: InterfaceContext,
    frame: Frame,
    n: Annotated[int, "How many rows."] = 10,
    last: Annotated[bool, "Take the last rows instead of the first."] = False,
) -> pd.DataFrame:
    """The first (or last) `n` rows of a frame."""
    if n < 1:
        raise InterfaceError("head_rows needs n >= 1.")
    out = frame.tail(n) if last else frame.head(n)
    return derive(out.copy(), frame)
