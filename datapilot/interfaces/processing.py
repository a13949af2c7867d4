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
    BaseRule,
    Freq,
    base_of,
    derive,
    growth,
    infer_freq,
    is_returns,
    numeric,
    require_column,
    require_timeseries,
    resample_frame,
    simple_returns,
    tag,
    title_of,
    unit_of,
    values_of,
    window,
    with_base,
)
from datapilot.interfaces.prices import BaseArg, price_table
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


def _period_growth(wealth: pd.DataFrame, period: Period, based: set[str]) -> pd.DataFrame:
    """The growth index at the end of each period. The base of a column in `based` stays its own
    first row, so a first period sharing its calendar period with the base still has its return;
    without a base the first (partial) period only starts the next one."""
    if period == "daily":
        return wealth
    parts = {}
    for column, values in wealth.items():
        series = values.dropna()
        head = series.iloc[:1] if str(column) in based else series.iloc[:0]
        rest = series.iloc[len(head) :]
        ends = resample_frame(rest.to_frame(), period, "last")[column]
        parts[column] = pd.concat([head, ends])
    out = pd.DataFrame(parts).sort_index()
    out.index = pd.DatetimeIndex(out.index, name="date")
    return out


# --- returns -------------------------------------------------------------------------------------


@interface("processing", "frame")
def compute_returns(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (wide: one column per entity)."],
    period: Period = "daily",
    log: Annotated[bool, "Log returns (100·ln(p_t/p_t-1)) instead of simple returns."] = False,
    absolute: Annotated[bool, "Absolute values of the returns."] = False,
) -> pd.DataFrame:
    """Period-over-period returns in % of a price or level time series, per column (their
    absolute values with `absolute`).

    The first return runs from the window's base (`attrs["base"]`: the close before the window),
    so the first day, month or year of the window has its return. Weekly/monthly/quarterly/annual
    returns use the last value of each period; return series (Fama–French factors) are
    compounded within each period.
    """
    require_timeseries(frame)
    levels = _period_growth(growth(frame), period, set(base_of(frame)))
    if (levels <= 0).any().any() and log:
        raise InterfaceError(
            "Log returns need positive values; this series has zeros or negatives."
        )
    parts = {}
    for column, values in levels.items():
        series = values.dropna()
        parts[column] = (np.log(series / series.shift(1)) if log else series.pct_change()).iloc[
            1:
        ] * 100
    returns = pd.DataFrame(parts).dropna(how="all")
    if returns.empty:
        raise InterfaceError("Need at least two observations to compute returns.")
    if absolute:
        returns = returns.abs()
    returns.index = pd.DatetimeIndex(returns.index, name="date")
    word = _PERIOD_WORD[period]
    # The day each column's first return starts from (the close before the window), for the
    # answer to state: a return "in 2020-Q1" runs from the 2019-12-31 close.
    starts = {
        str(column): values.dropna().index[0].date().isoformat()
        for column, values in levels.items()
        if len(values.dropna()) > 1
    }
    return derive(
        returns,
        frame,
        kind="timeseries",
        unit="%",
        title=f"{word} {'absolute ' if absolute else ''}{'log ' if log else ''}return",
        measure="returns",
        period=period,
        returns_from=starts,
    )


@interface("processing", "frame")
def cumulative_returns(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (or period returns in %)."],
) -> pd.DataFrame:
    """Cumulative return in % of each column since the window's base: 0 on the base date (the
    close before the window), then (value / base − 1) × 100. Return series are compounded:
    ∏(1 + r/100) − 1."""
    out = (growth(frame) - 1.0) * 100
    return derive(out, frame, kind="timeseries", unit="%", title="Cumulative return")


def period_table(frame: pd.DataFrame, start: date | None, end: date | None) -> pd.DataFrame:
    """Start (base) and end observation and the return between them, per column.

    With no `start`, or one on or before the frame's first row, the start is the frame's base
    (`attrs["base"]`). A later `start` takes the last observation on or before it.
    """
    require_timeseries(frame)
    returns_frame = is_returns(frame)
    # Return series: the values compared are a growth index of 100 at the base.
    levels = growth(frame) * 100 if returns_frame else with_base(frame)
    upper = window(levels, None, end)
    first_row = frame.index.min()
    rows = []
    for column in levels.columns:
        series = upper[column].dropna()
        if start is not None and pd.Timestamp(start) > first_row:
            inside = series.loc[pd.Timestamp(start) :]
            before = series.loc[: pd.Timestamp(start)]
            base = before if not before.empty else inside.iloc[:1]
        else:
            inside = series
            base = series.iloc[:1]
        if inside.empty or base.empty:
            continue
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
            f"{frame.index[0].date()} to {frame.index[-1].date()}."
        )
    return pd.DataFrame(rows).set_index("id")


@interface("processing", "frame")
def period_return(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (or period returns in %)."],
    start: Annotated[date | None, "Window start; None = the frame's window."] = None,
    end: Annotated[date | None, "Window end (inclusive); None = last row."] = None,
    difference: Annotated[
        bool, "Also `change`: end_value − start_value in the values' unit (points, dollars)."
    ] = False,
    multiple: Annotated[
        bool, "Also `multiple`: end_value ÷ start_value (8.05 = the end is 8.05 times the start)."
    ] = False,
) -> pd.DataFrame:
    """Return in % of each column over the window: one row per column with start_date,
    start_value, end_date, end_value, return_pct (and `change` with `difference`, `multiple`
    with `multiple`).

    The start is the window's base (`attrs["base"]`: for a return "in 2021", the 2020-12-31
    close). A `start` later than the frame's first row starts from the last observation on or
    before it. Return series are compounded (start_value 100 = the base of a growth index).
    """
    table = period_table(frame, start, end)
    value_unit = level_unit(frame)
    units = {"start_value": value_unit, "end_value": value_unit, "return_pct": "%"}
    if difference:
        table["change"] = table["end_value"] - table["start_value"]
        # A rate's change is in percentage points, never a percent of itself.
        units["change"] = "percentage points" if value_unit in ("%", "percent") else value_unit
    if multiple:
        table["multiple"] = table["end_value"] / table["start_value"]
        units["multiple"] = "×"
    return derive(table, frame, kind="cross_section", unit="%", title="Period return", units=units)


def level_unit(frame: pd.DataFrame) -> str:
    """The unit of `period_table`'s start and end values: a return series' are a growth index."""
    return "index, base = 100" if is_returns(frame) else unit_of(frame)


@interface("processing", "frame")
def cross_section_returns(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Entity ids (stocks, ETFs, indices), any number."],
    start: Annotated[date | None, "Window start; None = each entity's first date."] = None,
    end: Annotated[date | None, "Window end (inclusive); None = latest."] = None,
    base: BaseArg = "before",
    multiple: Annotated[
        bool, "Also `multiple`: end_value ÷ start_value (8.05 = the end is 8.05 times the start)."
    ] = False,
) -> pd.DataFrame:
    """Return in % over a window for many entities at once, from adjusted closes: one row per id
    with start_date, start_value, end_date, end_value, return_pct (and `multiple` with
    `multiple`).

    One warehouse query for all ids. The start is the base (see `base`): by default the last close
    before `start`; an entity whose history begins inside the window starts from its first close.
    """
    entities = check_entities(ctx, ids, kinds={"stock", "etf", "index"}, start=start, end=end)
    # A month before `start`, so the close the window starts from is read by the same query.
    lookback = start - timedelta(days=31) if start else None
    tidy = price_table(ctx, [e.id for e in entities], lookback, end)
    sources = sorted(tidy.attrs.get("sources", []))
    ctx.sources.update(sources)
    table = _window_ends(tidy, start, base)
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
    column_units = {"start_value": value_unit, "end_value": value_unit, "return_pct": "%"}
    if multiple:
        table["multiple"] = table["end_value"] / table["start_value"]
        column_units["multiple"] = "×"
    table = table.reindex([e.id for e in entities if e.id in table.index])
    table.index.name = "id"
    return tag(
        table, kind="cross_section", unit="%", title="Period return", sources=sources,
        units=column_units,
    )  # fmt: skip


def _window_ends(tidy: pd.DataFrame, start: date | None, base: BaseRule) -> pd.DataFrame:
    """Per id: the (adjusted) close the window starts from (`base`) — or the first one in the
    window when the history begins later — and the last close, as start/end date and value
    columns.

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
        starts = first
        keep = np.ones(len(first), dtype=bool)
    else:
        stamp = np.datetime64(pd.Timestamp(start))
        counted = dates < stamp if base == "before" else dates <= stamp
        # Rows are date-ordered within an id, so those before the window come first.
        before = np.add.reduceat(counted.astype(np.int64), first)
        starts = np.where(before > 0, first + before - 1, first)
        keep = dates[last] >= stamp  # an id whose history ends before the window has no return
    starts, last = starts[keep], last[keep]
    table = pd.DataFrame(
        {
            "start_date": pd.DatetimeIndex(dates[starts]).date,
            "start_value": values[starts],
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
    gap: Annotated[
        bool, "Add `gap`: each row's distance from the first row (percentage points of a %)."
    ] = False,
    against: Annotated[
        str | None, "Add `excess`: each row's value less this row's (a benchmark's id)."
    ] = None,
) -> pd.DataFrame:
    """Sort a cross-section by a column, adding a 1-based `rank` (ties share one; missing last);
    `gap`: the first row's value less each row's; `against`: `excess`, each row's value less
    the benchmark row's."""
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
    if gap:
        ordered = values.loc[order]
        out["gap"] = (ordered.iloc[0] - ordered).abs()
    if against is not None:
        if against not in values.index:
            raise InterfaceError(f"{against} is not a row of the ranking to measure against.")
        out["excess"] = values.loc[order] - float(values.loc[against])
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
    # The window the statistic is of, so a figure of it can be told from another window's.
    dated = isinstance(values.index, pd.DatetimeIndex) and len(values.index)
    return derive(
        result,
        frame,
        kind="cross_section",
        title=f"{name.title()} of {title_of(frame, 'values')}",
        first_date=values.index.min().date().isoformat() if dated else None,
        last_date=values.index.max().date().isoformat() if dated else None,
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
    annualize: Annotated[
        bool, "Compound each change to a yearly rate: (1 + change)^(changes a year) − 1."
    ] = False,
) -> pd.DataFrame:
    """Percent change of each column vs an earlier observation; the lag follows the data's frequency
    (quarterly data: yoy = 4 rows). Annualised, a quarter's change is (Q / Qprev)^4 − 1 (a
    year-over-year change is yearly already)."""
    levels = _levels(frame)
    freq = infer_freq(levels.index)
    if kind == "pop":
        # From the base: the window's first row has its change too.
        based = with_base(frame)
        change = pd.DataFrame(
            {column: based[column].dropna().pct_change() for column in levels.columns}
        ).loc[levels.index[0] :]
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
    per_year = {"yoy": 1, "qoq": 4, "mom": 12}.get(kind) or PERIODS_PER_YEAR[freq]
    annualized = annualize and per_year > 1
    if annualized:
        change = (1 + change) ** per_year - 1
    change = (change * 100).dropna(how="all")
    if change.empty:
        raise InterfaceError(f"Not enough history for a {kind} change; widen the date window.")
    title = f"{_CHANGE_WORD[kind]} change"
    if annualized:
        title = f"Annualised {title[0].lower()}{title[1:]}"
    return derive(change, frame, kind="timeseries", unit="%", title=title)


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
    # The rows correlated (two values or more): an answer states their count and dates.
    paired = values[values.notna().sum(axis=1) >= 2].index
    observed = (
        {"count": len(paired), "first": _day(paired[0]), "last": _day(paired[-1])}
        if len(paired)
        else None
    )
    return derive(
        matrix, frame, kind="matrix", unit="", title=f"Correlation ({method})", observed=observed
    )


def _day(label: object) -> str:
    """A row label as the date it names (YYYY-MM-DD), or as written."""
    return label.date().isoformat() if isinstance(label, pd.Timestamp) else str(label)


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
    # From the base: the window's first day has its return.
    returns = simple_returns(frame) * 100
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
def resample(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series (or OHLCV, aggregated per field)."],
    freq: Literal["weekly", "monthly", "quarterly", "annual"],
    how: Literal["last", "first", "mean", "sum"] = "last",
) -> pd.DataFrame:
    """Change a time series to a lower frequency, aggregating each period by last/first/mean/sum."""
    out = resample_frame(frame, freq, how)
    # The base lies before the first period, so it stays the base of the resampled levels.
    return derive(out, frame, frequency=freq, base=base_of(frame) or None)


@interface("processing", "frame")
def normalize(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time."],
    base: Annotated[float, "The value every column starts from."] = 100.0,
) -> pd.DataFrame:
    """Rescale each column to start at `base` (e.g. 100) on the window's base date so series of
    different size compare on one axis (return series are compounded)."""
    out = growth(frame) * base
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
    a: Annotated[str, "The first column."],
    b: Annotated[str, "The second column."],
    how: Annotated[Literal["difference", "ratio"], "a − b, or a / b (unitless)."] = "difference",
) -> pd.DataFrame:
    """a − b between two columns over time (e.g. the BAA − AAA yield spread), one column `a-b`;
    or a / b, one column `a/b`."""
    first, second = require_column(frame, a), require_column(frame, b)
    if how == "ratio":
        divisor = frame[second].where(frame[second] != 0)
        ratio = (frame[first] / divisor).to_frame(f"{first}/{second}").dropna()
        return derive(ratio, frame, kind="timeseries", unit="", title="Ratio", units={})
    out = (frame[first] - frame[second]).to_frame(f"{first}-{second}").dropna()
    return derive(out, frame, kind="timeseries", title="Spread")
