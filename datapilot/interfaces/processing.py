"""Processing interfaces: returns, statistics, risk measures and reshaping of earlier results."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Literal

import numpy as np
import pandas as pd

from datapilot.interfaces.checks import check_entities
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import (
    PERIODS_PER_YEAR,
    Freq,
    derive,
    infer_freq,
    numeric,
    require_column,
    require_timeseries,
    resample_frame,
    tag,
    title_of,
    unit_of,
    values_of,
    window,
)
from datapilot.interfaces.prices import price_table
from datapilot.interfaces.registry import Frame, InterfaceError, interface

Period = Literal["daily", "weekly", "monthly", "quarterly", "annual"]
_PERIOD_WORD = {
    "daily": "Daily",
    "weekly": "Weekly",
    "monthly": "Monthly",
    "quarterly": "Quarterly",
    "annual": "Annual",
}


def _levels(frame: pd.DataFrame, what: str = "frame") -> pd.DataFrame:
    """Numeric columns of a time series of levels (prices, index points, series values)."""
    return values_of(frame, what)


def _is_returns(frame: pd.DataFrame) -> bool:
    return frame.attrs.get("measure") == "returns"


def _first_valid(values: pd.DataFrame) -> pd.Series:
    return values.apply(
        lambda col: col.loc[col.first_valid_index()] if col.notna().any() else np.nan
    )


# --- returns -------------------------------------------------------------------------------------


@interface("processing", "frame")
def compute_returns(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (wide: one column per entity)."],
    period: Period = "daily",
    log: Annotated[bool, "Log returns (100·ln(p_t/p_t-1)) instead of simple returns."] = False,
) -> pd.DataFrame:
    """Period-over-period returns in % of a price or level time series, per column.

    Weekly/monthly/quarterly/annual returns use the last value of each period. The first period
    has no return and is dropped.
    """
    levels = _levels(frame)
    if period != "daily":
        levels = resample_frame(levels, period, "last")
    if (levels <= 0).any().any() and log:
        raise InterfaceError(
            "Log returns need positive values; this series has zeros or negatives."
        )
    returns = (
        np.log(levels / levels.shift(1)) if log else levels.pct_change(fill_method=None)
    ) * 100
    returns = returns.iloc[1:].dropna(how="all")
    if returns.empty:
        raise InterfaceError("Need at least two observations to compute returns.")
    word = _PERIOD_WORD[period]
    return derive(
        returns,
        frame,
        kind="timeseries",
        unit="%",
        title=f"{word} {'log ' if log else ''}return",
        measure="returns",
        period=period,
    )


@interface("processing", "frame")
def cumulative_returns(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
) -> pd.DataFrame:
    """Cumulative return in % of each column since its first value in the frame (0 on the first
    day)."""
    levels = _levels(frame)
    out = (levels / _first_valid(levels) - 1.0) * 100
    return derive(out, frame, kind="timeseries", unit="%", title="Cumulative return")


def _period_table(levels: pd.DataFrame, start: date | None, end: date | None) -> pd.DataFrame:
    """Start/end observation and return per column.

    The starting value is the last observation on or before `start` (the close at the start of the
    window, as quoted by market data sites) when the frame holds one, else the first in the window.
    """
    upper = window(levels, None, end)
    rows = []
    for column in levels.columns:
        series = upper[column].dropna()
        inside = series.loc[pd.Timestamp(start) :] if start else series
        if inside.empty:
            continue
        before = series.loc[: pd.Timestamp(start)] if start else inside.iloc[:0]
        base = before if not before.empty else inside.iloc[:1]
        base_date, base_value = base.index[-1], float(base.iloc[-1])
        end_date, end_value = inside.index[-1], float(inside.iloc[-1])
        rows.append(
            {
                "id": column,
                "start_date": base_date.date(),
                "start_value": base_value,
                "end_date": end_date.date(),
                "end_value": end_value,
                "return_pct": (end_value / base_value - 1.0) * 100,
            }
        )
    if not rows:
        raise InterfaceError(
            f"No data between {start or 'the beginning'} and {end or 'the end'}; the data run from "
            f"{levels.index[0].date()} to {levels.index[-1].date()}."
        )
    return pd.DataFrame(rows).set_index("id")


@interface("processing", "frame")
def period_return(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
    start: Annotated[date | None, "Window start; None = first row."] = None,
    end: Annotated[date | None, "Window end (inclusive); None = last row."] = None,
) -> pd.DataFrame:
    """Return in % of each column between two dates: one row per column with start_date,
    start_value, end_date, end_value, return_pct.

    The start value is the last observation on or before `start` when the frame has one (so a return
    "in 2021" runs from the 2020 year-end close), else the first observation in the window.
    """
    levels = _levels(frame)
    table = _period_table(levels, start, end)
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title="Period return",
        units={"start_value": unit_of(frame), "end_value": unit_of(frame), "return_pct": "%"},
    )


@interface("processing", "frame")
def cross_section_returns(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Entity ids (stocks, ETFs, indices), any number."],
    start: Annotated[date | None, "Window start; None = each entity's first date."] = None,
    end: Annotated[date | None, "Window end (inclusive); None = latest."] = None,
) -> pd.DataFrame:
    """Return in % over a window for many entities at once, from adjusted closes: one row per id
    with start_date, start_value, end_date, end_value, return_pct.

    One warehouse query for all ids. The start value is the close on or before `start`.
    """
    entities = check_entities(ctx, ids, kinds={"stock", "etf", "index"}, start=start, end=end)
    # A few days before `start` so the close at the start of the window is available.
    lookback = start - timedelta(days=10) if start else None
    tidy = price_table(ctx, [e.id for e in entities], lookback, end)
    sources = sorted(tidy.attrs.get("sources", []))
    ctx.sources.update(sources)
    table = _window_ends(tidy, start)
    missing = [e.id for e in entities if e.id not in table.index]
    if missing:
        ctx.notes.append(f"No prices in the window for {', '.join(missing)}.")
    if table.empty:
        raise InterfaceError(
            f"None of {', '.join(ids)} has prices between {start or 'the beginning'} and "
            f"{end or 'the end'}."
        )
    table["return_pct"] = (table["end_value"] / table["start_value"] - 1.0) * 100
    units = {e.units for e in entities if e.units}
    value_unit = units.pop() if len(units) == 1 else "price"
    table = table.reindex([e.id for e in entities if e.id in table.index])
    table.index.name = "id"
    return tag(
        table,
        kind="cross_section",
        unit="%",
        title="Period return",
        sources=sources,
        units={"start_value": value_unit, "end_value": value_unit, "return_pct": "%"},
    )


def _window_ends(tidy: pd.DataFrame, start: date | None) -> pd.DataFrame:
    """Per id: the (adjusted) close on or before `start` — or the first one after it when the
    history begins later — and the last close, as start/end date and value columns.

    Plain array work over the rows, which the warehouse returns sorted by id and date: the
    grouped pandas version cost more than the query itself for a 20-stock cross-section.
    """
    values = tidy["adj_close"].fillna(tidy["close"]).to_numpy(dtype=float)
    present = ~np.isnan(values)
    ids = tidy["id"].to_numpy(dtype=object)[present]
    dates = tidy["date"].to_numpy()[present]
    values = values[present]
    columns = ["start_date", "start_value", "end_date", "end_value"]
    if not len(ids):
        return pd.DataFrame(columns=columns, index=pd.Index([], name="id"))
    first = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    last = np.r_[first[1:], len(ids)] - 1
    if start is None:
        base = first
        keep = np.ones(len(first), dtype=bool)
    else:
        stamp = np.datetime64(pd.Timestamp(start))
        # Rows are date-ordered within an id, so those on or before `start` come first.
        before = np.add.reduceat((dates <= stamp).astype(np.int64), first)
        base = np.where(before > 0, first + before - 1, first)
        keep = dates[last] >= stamp  # an id whose history ends before the window has no return
    base, last = base[keep], last[keep]
    table = pd.DataFrame(
        {
            "start_date": pd.DatetimeIndex(dates[base]).date,
            "start_value": values[base],
            "end_date": pd.DatetimeIndex(dates[last]).date,
            "end_value": values[last],
        },
        index=pd.Index(ids[last], name="id"),
    )
    return table[columns]


@interface("processing", "frame")
def rank(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section (one row per entity), e.g. from period_return."],
    by: Annotated[str, "The column ranked."] = "return_pct",
    ascending: Annotated[bool, "True ranks the smallest first."] = False,
    top_k: Annotated[int | None, "Keep only the first k rows."] = None,
) -> pd.DataFrame:
    """Sort a cross-section by a column and add a 1-based `rank` column (ties share a rank; missing
    values last)."""
    if isinstance(frame.index, pd.DatetimeIndex) and by not in frame.columns:
        raise InterfaceError(
            "rank needs a cross-section (one row per entity); compute period_return or "
            "cross_section_returns first."
        )
    column = require_column(frame, by)
    values = pd.to_numeric(frame[column], errors="coerce")
    order = values.sort_values(ascending=ascending, na_position="last").index
    out = frame.loc[order].copy()
    out["rank"] = values.loc[order].rank(ascending=ascending, method="min").astype("Int64")
    if top_k is not None:
        if top_k < 1:
            raise InterfaceError("top_k must be at least 1.")
        out = out.head(top_k)
    return derive(out, frame, kind=frame.attrs.get("kind", "cross_section"))


# --- statistics --------------------------------------------------------------------------------


@interface("processing", "frame")
def summary_stats(
    ctx: InterfaceContext,
    frame: Frame,
) -> pd.DataFrame:
    """Descriptive statistics per numeric column: count, mean, median, std, min, max (one row per
    input column)."""
    values = numeric(frame)
    stats = pd.DataFrame(
        {
            "count": values.count(),
            "mean": values.mean(),
            "median": values.median(),
            "std": values.std(),
            "min": values.min(),
            "max": values.max(),
        }
    )
    stats.index.name = "id"
    return derive(stats, frame, kind="stats", title=f"Statistics of {title_of(frame, 'values')}")


def _one_stat(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    values = numeric(frame)
    result = getattr(values, name)().to_frame(name)
    result.index.name = "id"
    return derive(
        result, frame, kind="cross_section", title=f"{name.title()} of {title_of(frame, 'values')}"
    )


@interface("processing", "frame")
def mean(ctx: InterfaceContext, frame: Frame) -> pd.DataFrame:
    """Mean of each numeric column: one row per input column, column `mean`."""
    return _one_stat(frame, "mean")


@interface("processing", "frame")
def median(ctx: InterfaceContext, frame: Frame) -> pd.DataFrame:
    """Median of each numeric column: one row per input column, column `median`."""
    return _one_stat(frame, "median")


_CHANGE_OFFSET = {
    "yoy": pd.DateOffset(years=1),
    "qoq": pd.DateOffset(months=3),
    "mom": pd.DateOffset(months=1),
}
_CHANGE_LAG: dict[Freq, dict[str, int]] = {
    "weekly": {"yoy": 52},
    "monthly": {"yoy": 12, "qoq": 3, "mom": 1},
    "quarterly": {"yoy": 4, "qoq": 1},
    "annual": {"yoy": 1},
}
_CHANGE_WORD = {
    "pop": "Period-over-period",
    "yoy": "Year-over-year",
    "qoq": "Quarter-over-quarter",
    "mom": "Month-over-month",
}


@interface("processing", "frame")
def pct_change(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Levels over time (series values, prices)."],
    kind: Annotated[
        Literal["pop", "yoy", "qoq", "mom"],
        "pop = vs the previous row; yoy/qoq/mom = vs one year/quarter/month earlier.",
    ] = "pop",
) -> pd.DataFrame:
    """Percent change of each column vs an earlier observation; the lag follows the data's frequency
    (quarterly data: yoy = 4 rows)."""
    levels = _levels(frame)
    freq = infer_freq(levels.index)
    if kind == "pop":
        change = levels.pct_change(fill_method=None)
    elif freq == "daily":
        # Daily data have gaps (weekends, holidays): compare with the last value on or before
        # the same calendar date one period earlier.
        earlier = levels.reindex(levels.index - _CHANGE_OFFSET[kind], method="ffill")
        earlier.index = levels.index
        earlier[levels.index - _CHANGE_OFFSET[kind] < levels.index[0]] = np.nan
        change = levels / earlier - 1
    else:
        lag = _CHANGE_LAG[freq].get(kind)
        if lag is None:
            raise InterfaceError(
                f"A {kind} change needs data at least that frequent; this series is {freq}."
            )
        change = levels.pct_change(periods=lag, fill_method=None)
    change = (change * 100).dropna(how="all")
    if change.empty:
        raise InterfaceError(f"Not enough history for a {kind} change; widen the date window.")
    return derive(change, frame, kind="timeseries", unit="%", title=f"{_CHANGE_WORD[kind]} change")


@interface("processing", "frame")
def correlation(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Two or more columns, best returns (not price levels)."],
    method: Literal["pearson", "spearman"] = "pearson",
) -> pd.DataFrame:
    """Correlation matrix (−1..1) between the numeric columns, over rows where both are present."""
    values = numeric(frame)
    if values.shape[1] < 2:
        raise InterfaceError("Correlation needs at least two columns (entities).")
    matrix = values.corr(method=method)
    matrix.index.name = "id"
    return derive(matrix, frame, kind="matrix", unit="", title=f"Correlation ({method})")


@interface("processing", "frame")
def rolling_volatility(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices (or returns from compute_returns)."],
    window: Annotated[int, "Rolling window in observations (trading days for daily data)."] = 30,
    annualize: Annotated[bool, "Scale by √252 (daily), √52, √12 … to an annual figure."] = True,
) -> pd.DataFrame:
    """Rolling volatility in %: standard deviation of period returns over a moving window,
    annualised by default."""
    require_timeseries(frame)
    if window < 2:
        raise InterfaceError("The volatility window must be at least 2 observations.")
    returns = (
        numeric(frame) if _is_returns(frame) else _levels(frame).pct_change(fill_method=None) * 100
    )
    if len(returns.dropna(how="all")) < window:
        raise InterfaceError(
            f"Only {len(returns.dropna(how='all'))} returns for a {window}-observation window; "
            "widen the date window or shorten the volatility window."
        )
    scale = np.sqrt(PERIODS_PER_YEAR[infer_freq(returns.index)]) if annualize else 1.0
    vol = (returns.rolling(window).std() * scale).dropna(how="all")
    label = f"{window}-period rolling volatility" + (" (annualised)" if annualize else "")
    return derive(vol, frame, kind="timeseries", unit="%", title=label)


@interface("processing", "frame")
def drawdown(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
) -> pd.DataFrame:
    """Drawdown in % of each column: how far each value is below its running peak (0 at a new high,
    negative otherwise)."""
    levels = _levels(frame)
    out = (levels / levels.cummax() - 1.0) * 100
    return derive(out, frame, kind="timeseries", unit="%", title="Drawdown")


@interface("processing", "frame")
def max_drawdown(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
) -> pd.DataFrame:
    """Largest peak-to-trough fall per column: max_drawdown_pct (negative, %), peak_date,
    trough_date, recovery_date (None when not recovered)."""
    levels = _levels(frame)
    rows = []
    for column in levels.columns:
        series = levels[column].dropna()
        if series.empty:
            continue
        dd = series / series.cummax() - 1.0
        trough = dd.idxmin()
        peak = series.loc[:trough].idxmax()
        after = series.loc[trough:]
        recovered = after[after >= series.loc[peak]]
        recovery = recovered.index[0].date() if dd.loc[trough] < 0 and not recovered.empty else None
        rows.append(
            {
                "id": column,
                "max_drawdown_pct": float(dd.loc[trough]) * 100,
                "peak_date": peak.date(),
                "trough_date": trough.date(),
                "recovery_date": recovery,
            }
        )
    if not rows:
        raise InterfaceError("The frame holds no values to measure a drawdown on.")
    table = pd.DataFrame(rows).set_index("id")
    return derive(table, frame, kind="cross_section", unit="%", title="Maximum drawdown")


@interface("processing", "frame")
def resample(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series (or OHLCV, aggregated per field)."],
    freq: Literal["weekly", "monthly", "quarterly", "annual"],
    how: Literal["last", "first", "mean", "sum"] = "last",
) -> pd.DataFrame:
    """Change a time series to a lower frequency, aggregating each period by last/first/mean/sum."""
    out = resample_frame(frame, freq, how)
    return derive(out, frame, frequency=freq)


@interface("processing", "frame")
def normalize(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
    base: Annotated[float, "The value every column starts from."] = 100.0,
) -> pd.DataFrame:
    """Rescale each column to start at `base` (e.g. 100) so series of different size compare on one
    axis."""
    levels = _levels(frame)
    out = levels / _first_valid(levels) * base
    return derive(
        out,
        frame,
        kind="timeseries",
        unit=f"index, start = {base:g}",
        title=f"Normalised to {base:g}",
    )


@interface("processing", "frame")
def rolling_mean(
    ctx: InterfaceContext,
    frame: Frame,
    window: Annotated[int, "Number of observations averaged."] = 20,
) -> pd.DataFrame:
    """Moving average of each numeric column over `window` observations (rows before a full window
    are dropped)."""
    require_timeseries(frame)
    if window < 1:
        raise InterfaceError("The window must be at least 1.")
    out = numeric(frame).rolling(window).mean().dropna(how="all")
    return derive(
        out, frame, title=f"{window}-period moving average of {title_of(frame, 'values')}"
    )


@interface("processing", "frame")
def spread(
    ctx: InterfaceContext,
    frame: Frame,
    a: Annotated[str, "Column subtracted from."],
    b: Annotated[str, "Column subtracted."],
) -> pd.DataFrame:
    """The difference a − b between two columns over time (e.g. BAA − AAA yield spread), one column
    named `a-b`."""
    first, second = require_column(frame, a), require_column(frame, b)
    out = (frame[first] - frame[second]).to_frame(f"{first}-{second}").dropna()
    return derive(out, frame, kind="timeseries", title=f"{first} − {second}")


# --- performance measures ------------------------------------------------------------------------


def _returns_for(frame: pd.DataFrame) -> pd.DataFrame:
    """Period returns as fractions, from prices or from a compute_returns result."""
    if _is_returns(frame):
        return numeric(frame) / 100
    return _levels(frame).pct_change(fill_method=None).iloc[1:]


@interface("processing", "frame")
def annualized_return(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
) -> pd.DataFrame:
    """Compound annual growth rate in % of each column from its first to its last value (column
    `annualized_return_pct`)."""
    levels = _levels(frame)
    rows = {}
    for column in levels.columns:
        series = levels[column].dropna()
        years = (series.index[-1] - series.index[0]).days / 365.25 if len(series) > 1 else 0
        if years <= 0:
            continue
        rows[column] = ((series.iloc[-1] / series.iloc[0]) ** (1 / years) - 1) * 100
    if not rows:
        raise InterfaceError("Need at least two dated values per column for an annual rate.")
    table = pd.Series(rows, name="annualized_return_pct").to_frame()
    table.index.name = "id"
    return derive(table, frame, kind="cross_section", unit="%", title="Annualised return")


@interface("processing", "frame")
def sharpe_ratio(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices, or returns from compute_returns."],
    risk_free: Annotated[float, "Annual risk-free rate in %."] = 0.0,
) -> pd.DataFrame:
    """Annualised Sharpe ratio per column: (mean excess return / std of returns) × √periods per
    year, plus annualised return and volatility in %."""
    returns = _returns_for(frame)
    per_year = PERIODS_PER_YEAR[infer_freq(returns.index)]
    excess = returns - (1 + risk_free / 100) ** (1 / per_year) + 1
    table = pd.DataFrame(
        {
            "sharpe": excess.mean() / returns.std() * np.sqrt(per_year),
            "annual_return_pct": returns.mean() * per_year * 100,
            "annual_volatility_pct": returns.std() * np.sqrt(per_year) * 100,
        }
    )
    table.index.name = "id"
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="",
        title="Sharpe ratio",
        units={"sharpe": "", "annual_return_pct": "%", "annual_volatility_pct": "%"},
    )


@interface("processing", "frame")
def beta(
    ctx: InterfaceContext,
    frame: Annotated[
        Frame, "Prices (or returns) with one column per entity, including the market."
    ],
    market: Annotated[str, "The column used as the market, e.g. ^GSPC."],
) -> pd.DataFrame:
    """Beta, correlation and r² of each other column's returns against the market column's."""
    returns = _returns_for(frame)
    market_col = require_column(returns, market)
    rows = {}
    for column in returns.columns:
        if column == market_col:
            continue
        pair = returns[[column, market_col]].dropna()
        if len(pair) < 3:
            continue
        cov = np.cov(pair[column], pair[market_col])
        corr = pair[column].corr(pair[market_col])
        rows[column] = {"beta": cov[0, 1] / cov[1, 1], "correlation": corr, "r2": corr**2}
    if not rows:
        raise InterfaceError(
            f"beta needs another column besides {market_col} with overlapping data."
        )
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "id"
    return derive(table, frame, kind="cross_section", unit="", title=f"Beta vs {market_col}")
