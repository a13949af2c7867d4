"""Performance measures: drawdowns, annualised return and volatility, Sharpe, beta, extreme days,
growth of an investment and top/bottom lists.

Every measure starts from the window's base (`frame.with_base` / `frame.growth`): the close before
the window for calendar periods, so a year's first day, its drawdown from the previous close and
its return all count. Percentages keep full precision; formatting is the summary's job.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import numpy as np
import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import (
    PERIODS_PER_YEAR,
    derive,
    growth,
    infer_freq,
    is_returns,
    require_column,
    simple_returns,
    with_base,
)
from datapilot.interfaces.processing import level_unit, period_table
from datapilot.interfaces.registry import Frame, InterfaceError, interface


def _per_year(returns: pd.DataFrame) -> int:
    return PERIODS_PER_YEAR[infer_freq(pd.DatetimeIndex(returns.index))]


@interface("processing", "frame")
def drawdown(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (or period returns in %)."],
) -> pd.DataFrame:
    """Drawdown in % of each column: how far each value is below its running peak since the
    window's base (0 at a new high, negative otherwise)."""
    wealth = growth(frame)
    out = (wealth / wealth.cummax() - 1.0) * 100
    return derive(out, frame, kind="timeseries", unit="%", title="Drawdown")


@interface("processing", "frame")
def max_drawdown(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (or period returns in %)."],
    trough_by: Annotated[
        str | None,
        "Seek the fall's trough on or before this date (a named episode's last day, or with "
        "peak_from the end of the period the low is said in); its recovery is still sought to "
        "the window's end.",
    ] = None,
    peak_from: Annotated[
        str | None,
        "With peak_by: the fall is measured from the highest close between these dates (a peak "
        "named by its period, 'the October 2007 high') to the lowest close before it is regained.",
    ] = None,
    peak_by: Annotated[
        str | None, "The last day the named peak is sought on (with peak_from)."
    ] = None,
) -> pd.DataFrame:
    """Largest peak-to-trough fall per column, base close included: max_drawdown_pct (%),
    peak_date, trough_date, recovery_date, recovery_sessions, start_date, end_date; for levels
    peak_value, trough_value, recovery_value. peak_from/peak_by: from that period's high."""
    wealth = growth(frame)
    levels = None if is_returns(frame) else with_base(frame)
    rows = []
    for column in wealth.columns:
        series = wealth[column].dropna()
        if series.empty:
            continue
        if peak_from and peak_by:
            named = series.loc[pd.Timestamp(peak_from) : pd.Timestamp(peak_by)]
            if named.empty:
                continue
            peak = named.idxmax()
            later = series.loc[peak:].iloc[1:]
            below = later[later < series.loc[peak]]  # regained only once it has fallen
            later = later.loc[below.index[0] :] if not below.empty else later.iloc[:0]
            regained = later[later >= series.loc[peak]]
            fall = series.loc[peak : regained.index[0]] if not regained.empty else series.loc[peak:]
            if trough_by:  # "从全年最高收盘价跌到（全年）最低收盘价": the low of the same period
                fall = fall.loc[: pd.Timestamp(trough_by)]
            trough = fall.idxmin()
        else:
            dd = series / series.cummax() - 1.0
            searched = dd.loc[: pd.Timestamp(trough_by)] if trough_by else dd
            trough = (searched if not searched.empty else dd).idxmin()
            peak = series.loc[:trough].idxmax()
        depth = series.loc[trough] / series.loc[peak] - 1.0  # the running peak's fall at the trough
        after = series.loc[trough:]
        recovered = after[after >= series.loc[peak]]
        regained = depth < 0 and not recovered.empty
        recovery = recovered.index[0].date() if regained else None
        rows.append(
            {
                "id": column,
                "max_drawdown_pct": float(depth) * 100,
                "peak_date": peak.date(),
                "trough_date": trough.date(),
                "recovery_date": recovery,
                # the sessions after the peak up to the first close back at it (of daily
                # closes; a monthly series' months are no sessions)
                "recovery_sessions": len(series.loc[peak : recovered.index[0]]) - 1
                if regained and _daily(series)
                else None,
                "start_date": series.index[0].date(),
                "end_date": series.index[-1].date(),
            }
        )
        if levels is not None and column in levels.columns:
            closes = pd.to_numeric(levels[column], errors="coerce")
            if peak in closes.index and trough in closes.index:
                rows[-1]["peak_value"] = float(closes.loc[peak])
                rows[-1]["trough_value"] = float(closes.loc[trough])
            if regained and recovered.index[0] in closes.index:
                rows[-1]["recovery_value"] = float(closes.loc[recovered.index[0]])
    if not rows:
        raise InterfaceError("The frame holds no values to measure a drawdown on.")
    table = pd.DataFrame(rows).set_index("id")
    unit = level_unit(frame)
    units = {
        c: unit for c in ("peak_value", "trough_value", "recovery_value") if c in table.columns
    } | {"recovery_sessions": ""}
    return derive(
        table, frame, kind="cross_section", unit="%", title="Maximum drawdown", units=units
    )


def _daily(series: pd.Series) -> bool:
    """Whether `series` holds daily closes (its dates a few days apart at most)."""
    gaps = series.index.to_series().diff().dropna()
    return not gaps.empty and gaps.median() <= pd.Timedelta(days=4)


@interface("processing", "frame")
def annualized_return(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (or period returns in %)."],
) -> pd.DataFrame:
    """CAGR in % per column, base to last value: (end / base)^(1 / years) − 1, years = days /
    365.25 (monthly or quarterly values: months / 12, so a quarter's is (Q / Qprev)^4 − 1); with
    start_date, start_value, end_date, end_value."""
    too_short = "Need at least two dated values per column for an annual rate."
    try:
        ends = period_table(frame, None, None)  # each column's base and last value, dated
    except InterfaceError:
        raise InterfaceError(too_short) from None
    days = (pd.to_datetime(ends["end_date"]) - pd.to_datetime(ends["start_date"])).dt.days
    table = ends[days > 0].drop(columns="return_pct")
    if table.empty:
        raise InterfaceError(too_short)
    years = days[days > 0] / 365.25
    dates = pd.DatetimeIndex(with_base(frame).index)
    if infer_freq(dates) in ("monthly", "quarterly") and (dates.day == 1).all():
        # A value per month or quarter, labelled by its first day: a year is 12 months of them.
        start, end = pd.to_datetime(table["start_date"]), pd.to_datetime(table["end_date"])
        years = ((end.dt.year - start.dt.year) * 12 + end.dt.month - start.dt.month) / 12
    ratio = table["end_value"] / table["start_value"]
    table["annualized_return_pct"] = (ratio ** (1 / years) - 1) * 100
    value_unit = level_unit(frame)
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title="Annualised return",
        units={"start_value": value_unit, "end_value": value_unit, "annualized_return_pct": "%"},
    )


@interface("processing", "frame")
def annualized_volatility(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over time (or period returns in %)."],
) -> pd.DataFrame:
    """Annualised volatility in % per column: the standard deviation (ddof 1) of simple period
    returns from the window's base, × √252 for daily data (√52 weekly, √12 monthly, √4
    quarterly); with observations (number of returns), start_date and end_date."""
    returns = simple_returns(frame)
    per_year = _per_year(returns)
    wealth = growth(frame)
    rows = []
    for column in returns.columns:
        values = returns[column].dropna()
        if len(values) < 2:
            continue
        rows.append(
            {
                "id": column,
                "annualized_volatility_pct": float(values.std(ddof=1) * np.sqrt(per_year) * 100),
                "observations": len(values),
                "start_date": _first_day(wealth[column]),
                "end_date": _last_day(wealth[column]),
            }
        )
    if not rows:
        raise InterfaceError("Volatility needs at least two returns; widen the date window.")
    table = pd.DataFrame(rows).set_index("id")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title="Annualised volatility",
        units={"annualized_volatility_pct": "%", "observations": ""},
    )


@interface("processing", "frame")
def sharpe_ratio(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices, or returns from compute_returns."],
    risk_free: Annotated[
        float, "Annual risk-free rate in % (0 unless the question gives one)."
    ] = 0.0,
) -> pd.DataFrame:
    """Annualised Sharpe ratio per column: (mean return − r / periods a year) / std × √periods a
    year, r the annual risk-free rate; with annualised return, volatility, observations,
    start_date and end_date."""
    returns = simple_returns(frame)
    per_year = _per_year(returns)
    excess = returns - risk_free / 100 / per_year  # the convention: r/252 a trading day
    wealth = growth(frame)
    table = pd.DataFrame(
        {
            "sharpe": excess.mean() / returns.std() * np.sqrt(per_year),
            "annual_return_pct": returns.mean() * per_year * 100,
            "annual_volatility_pct": returns.std() * np.sqrt(per_year) * 100,
            "observations": returns.count(),
            "start_date": [_first_day(wealth[c]) for c in returns.columns],
            "end_date": [_last_day(wealth[c]) for c in returns.columns],
        }
    )
    table.index.name = "id"
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="",
        title=f"Sharpe ratio (risk-free rate {risk_free:g}% a year)",
        units={
            "sharpe": "",
            "annual_return_pct": "%",
            "annual_volatility_pct": "%",
            "observations": "",
        },
        risk_free=risk_free,
    )


def _first_day(series: pd.Series) -> object:
    """The day of a series' first value (None when it has none), as tables write dates."""
    days = series.dropna().index
    return days[0].date() if len(days) else None


def _last_day(series: pd.Series) -> object:
    """The day of a series' last value (None when it has none)."""
    days = series.dropna().index
    return days[-1].date() if len(days) else None


@interface("processing", "frame")
def beta(
    ctx: InterfaceContext,
    frame: Annotated[
        Frame, "Prices (or returns) with one column per entity, including the market."
    ],
    market: Annotated[str, "The column used as the market, e.g. ^GSPC."],
) -> pd.DataFrame:
    """Beta, correlation and r² of each other column's returns against the market column's."""
    returns = simple_returns(frame)
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


@interface("processing", "frame")
def extreme_days(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily prices or levels over time."],
    n: Annotated[int, "How many days per entity (and per side)."] = 1,
    which: Annotated[
        Literal["best", "worst", "both"], "The largest gains, the largest falls, or both."
    ] = "worst",
    span: Annotated[int, "Sessions one change spans: 1 for daily changes, 5 for 5-day ones."] = 1,
) -> pd.DataFrame:
    """Best/worst % changes per column over `span` sessions: rows by id with date (last
    session), from_date, return_pct, change (series' unit), from_close and close (span > 1),
    rank, group. The first change runs from the base close."""
    if n < 1:
        raise InterfaceError("extreme_days needs n >= 1.")
    if span < 1:
        raise InterfaceError("extreme_days needs span >= 1 session.")
    wealth = growth(frame)
    levels = None if is_returns(frame) else with_base(frame)
    sides = ["best", "worst"] if which == "both" else [which]
    rows = []
    for column in wealth.columns:
        path = wealth[column].dropna()
        returns = ((path / path.shift(span) - 1) * 100).iloc[span:].dropna()
        starts = dict(zip(path.index[span:], path.index[: len(path) - span], strict=True))
        points = level = None
        if levels is not None and column in levels.columns:
            level = levels[column].dropna()
            points = (level - level.shift(span)).iloc[span:]
        for side in sides:
            picked = returns.nlargest(n) if side == "best" else returns.nsmallest(n)
            for position, (day, value) in enumerate(picked.items(), start=1):
                rows.append(
                    {
                        "id": column,
                        "date": pd.Timestamp(day).date(),
                        "from_date": pd.Timestamp(starts[day]).date(),
                        "return_pct": float(value),
                        "change": float(points[day]) if points is not None else None,
                        "rank": position,
                        "group": side,
                    }
                )
                if span > 1 and level is not None:  # the two closes the change runs between
                    rows[-1]["from_close"] = float(level[starts[day]])
                    rows[-1]["close"] = float(level[day])
    if not rows:
        raise InterfaceError("No changes in the window; widen the date window.")
    # Indexed by id like every cross-section (an id repeats once per day listed).
    table = pd.DataFrame(rows).set_index("id")
    if levels is None:
        table = table.drop(columns="change")
    words = {"best": "Best", "worst": "Worst", "both": "Best and worst"}
    what = "daily returns" if span == 1 else f"{span}-session changes"
    zh_side = {"best": "最大涨幅", "worst": "最大跌幅", "both": "最大涨跌幅"}[which]
    unit = str(frame.attrs.get("unit") or "")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title=f"{words[which]} {what}",
        title_zh=f"单日{zh_side}" if span == 1 else f"{span}个交易日{zh_side}",
        units={"return_pct": "%", "change": unit, "from_close": unit, "close": unit},
        span=span,
    )


@interface("processing", "frame")
def investment_growth(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices (adjusted closes for total return) or period returns in %."],
    amount: Annotated[float, "The sum invested at the base close."] = 10000.0,
) -> pd.DataFrame:
    """What `amount` invested at the window's base close is worth over time, per column: starts
    at `amount` on the base date."""
    if amount <= 0:
        raise InterfaceError("The amount invested must be positive.")
    out = growth(frame) * amount
    units = {str(v) for v in frame.attrs.get("units", {}).values() if v}
    unit = units.pop() if len(units) == 1 and not is_returns(frame) else ""
    # Money is in a currency ("USD"); an index's points or a rate are no unit for it.
    currency = unit if re.fullmatch(r"[A-Z]{3}", unit) else ""
    return derive(
        out,
        frame,
        kind="timeseries",
        unit=currency,
        title=f"Growth of {amount:,.0f} invested",
        amount=amount,
    )


@interface("processing", "frame")
def top_bottom(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section (one row per entity), e.g. cross_section_returns."],
    by: Annotated[str, "The column ranked."] = "return_pct",
    n: Annotated[int, "How many at the top and at the bottom."] = 3,
) -> pd.DataFrame:
    """The n highest and n lowest rows by `by`, with a `group` column (top/bottom) and a
    `rank` within the group (1 = highest of the top, lowest of the bottom). With fewer than 2n
    rows the bottom holds the rows not in the top."""
    if n < 1:
        raise InterfaceError("top_bottom needs n >= 1.")
    if isinstance(frame.index, pd.DatetimeIndex) and by not in frame.columns:
        raise InterfaceError(
            "top_bottom needs a cross-section (one row per entity); compute period_return or "
            "cross_section_returns first."
        )
    column = require_column(frame, by)
    values = pd.to_numeric(frame[column], errors="coerce").dropna()
    top = values.sort_values(ascending=False).head(n)
    rest = values.drop(top.index)
    bottom = rest.sort_values(ascending=True).head(n)
    parts = []
    for group, picked in (("top", top), ("bottom", bottom)):
        part = frame.loc[picked.index].copy()
        part["group"] = group
        part["rank"] = range(1, len(part) + 1)
        parts.append(part)
    out = pd.concat(parts)
    return derive(out, frame, kind="cross_section", title=f"Top and bottom {n} by {column}")
