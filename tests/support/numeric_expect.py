"""Expected figures of the numeric corpus, computed from the source datasets with plain pandas.

Independent of Datapilot on purpose: every dataset is read through its own package's loader and
every figure follows the written conventions (README, "Conventions"), so a wrong rule in the
project shows up as a miss here instead of being copied into the expectation.

A spec (`expect` in `tests/corpus/numeric.jsonl`) says how to compute, never the figure:
`measure`, `source`, `ids`, `window` (`calendar`: the base is the last observation BEFORE
`start`; `trailing` / `range`: the observation on or before `start`), `start`, `end`, and per
measure `n`, `which`, `amount`, `period`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

TRADING_DAYS = 252
MACRO_COLUMNS = {
    "GDPC1": "realgdp",
    "PCECC96": "realcons",
    "GPDIC1": "realinv",
    "GCEC1": "realgovt",
    "DPIC96": "realdpi",
    "CPIAUCSL": "cpi",
    "M1SL": "m1",
    "TB3MS": "tbilrate",
    "UNRATE": "unemp",
    "POP": "pop",
}
FRENCH_COLUMNS = {"FF_MKT_RF": "Mkt-RF", "FF_SMB": "SMB", "FF_HML": "HML", "FF_RF": "RF"}


@cache
def source_frame(source: str) -> pd.DataFrame:
    """One source dataset as a wide frame: a DatetimeIndex and one column per entity id."""
    if source == "skfolio_sp500":
        from skfolio.datasets import load_sp500_dataset

        return load_sp500_dataset()
    if source == "skfolio_index":
        from skfolio.datasets import load_sp500_index

        return load_sp500_index().rename(columns={"SP500": "^GSPC"})
    if source == "skfolio_factors":
        from skfolio.datasets import load_factors_dataset

        return load_factors_dataset()
    if source in {"arch_sp500", "arch_nasdaq"}:
        import arch.data.nasdaq
        import arch.data.sp500

        module, entity = (
            (arch.data.sp500, "^GSPC") if source == "arch_sp500" else (arch.data.nasdaq, "^IXIC")
        )
        return module.load()[["Adj Close"]].rename(columns={"Adj Close": entity})
    if source == "bokeh":
        from bokeh_sampledata import stocks

        columns = {
            ticker: pd.Series(
                getattr(stocks, ticker)["adj_close"],
                index=pd.to_datetime(getattr(stocks, ticker)["date"]),
            )
            for ticker in ("AAPL", "GOOG", "IBM", "MSFT", "FB")
        }
        return pd.DataFrame(columns)
    if source == "statsmodels_macro":
        import statsmodels.datasets.macrodata as macrodata

        data = macrodata.load_pandas().data
        # Each quarter is dated by its first day, as FRED dates it.
        index = pd.PeriodIndex.from_fields(
            year=data["year"].astype(int), quarter=data["quarter"].astype(int), freq="Q"
        ).to_timestamp()
        return pd.DataFrame(
            {entity: data[column].to_numpy() for entity, column in MACRO_COLUMNS.items()},
            index=index,
        )
    if source == "arch_core_cpi":
        import arch.data.core_cpi

        return arch.data.core_cpi.load()
    if source == "arch_default":  # Moody's Aaa and Baa corporate bond yields, monthly
        import arch.data.default

        return arch.data.default.load()
    if source == "arch_french":
        import arch.data.frenchdata

        data = arch.data.frenchdata.load()
        # The loader parses the YYYYMM stamps as nanoseconds; read them back as months.
        months = pd.to_datetime(data.index.asi8.astype(str), format="%Y%m")
        return pd.DataFrame(
            {entity: data[column].to_numpy() for entity, column in FRENCH_COLUMNS.items()},
            index=months,
        )
    raise ValueError(f"unknown source {source!r}")


def series(spec: dict[str, Any], entity: str) -> pd.Series:
    return source_frame(spec["source"])[entity].dropna().sort_index()


def levels(spec: dict[str, Any], entity: str) -> pd.Series:
    """The window's levels with the base observation first (the first in-window value when the
    history starts inside the window)."""
    full = series(spec, entity)
    start, end = pd.Timestamp(spec["start"]), pd.Timestamp(spec["end"])
    window = full[(full.index >= start) & (full.index <= end)]
    before = full[full.index < start] if spec["window"] == "calendar" else full[full.index <= start]
    if len(before) and before.index[-1] != window.index[0]:
        return pd.concat([before.iloc[-1:], window])
    return window


def period_return(values: pd.Series) -> float:
    return (values.iloc[-1] / values.iloc[0] - 1) * 100


def close_to_close(closes: pd.Series, base: str, end: str) -> float:
    """The return in % from the last close on or before `base` to the last on or before `end`."""
    return float((closes.loc[:end].iloc[-1] / closes.loc[:base].iloc[-1] - 1) * 100)


def buy_and_hold(closes: pd.DataFrame, weights: dict[str, float], base: str, end: str) -> pd.Series:
    """A basket bought at the last close on or before `base` and never rebalanced: 100 × Σ w ×
    P / P(base), through `end`."""
    held = closes[list(weights)].loc[:end]
    held = held.loc[held.loc[:base].index[-1] :]
    return sum(held[n] / held[n].iloc[0] * w for n, w in weights.items()) * 100


def cagr_pct(ticker: str, base_day: str, end_day: str) -> float:
    """A skfolio stock's compound annual growth rate in percent, from its last close on or before
    `base_day` to its last on or before `end_day`, years = calendar days / 365.25."""
    closes = source_frame("skfolio_sp500")[ticker].dropna()
    base, last = closes.loc[:base_day].index[-1], closes.loc[:end_day].index[-1]
    growth = closes.loc[last] / closes.loc[base]
    return float((growth ** (365.25 / (last - base).days) - 1) * 100)


def daily_returns(values: pd.Series) -> pd.Series:
    return values.pct_change().dropna() * 100


def fall_and_recovery(
    closes: pd.Series, peak_from: str, peak_to: str, trough_by: str
) -> tuple[pd.Timestamp, pd.Timestamp, pd.Timestamp]:
    """A fall's days: the highest close between `peak_from` and `peak_to`, the lowest close
    from that peak through `trough_by`, and the first close back at the peak after it."""
    peak = closes.loc[peak_from:peak_to].idxmax()
    trough = closes.loc[peak:trough_by].idxmin()
    back = closes.loc[trough:]
    return peak, trough, back[back >= closes.loc[peak]].index[0]


def _table_returns(values: pd.Series, period: str) -> list[float]:
    # Each period's last close against the previous period's last close; the base closes the
    # period before the first one, so the first period is measured too.
    ends = values.groupby(values.index.to_period(period)).last()
    return [(ends.iloc[i] / ends.iloc[i - 1] - 1) * 100 for i in range(1, len(ends))]


def _change(spec: dict[str, Any], entity: str, lag: pd.DateOffset) -> float:
    full = series(spec, entity)
    window = full[(full.index >= spec["start"]) & (full.index <= spec["end"])]
    latest = window.index[-1]
    return (full.loc[latest] / full.loc[latest - lag] - 1) * 100


@dataclass
class Expected:
    """Figures (with whether their sign counts) and ISO dates a right answer shows."""

    figures: list[tuple[float, bool]] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)

    def add(self, value: float, signed: bool = True) -> None:
        self.figures.append((float(value), signed))


def _window_measure(
    spec: dict[str, Any], entity: str, values: pd.Series, daily: pd.Series, out: Expected
) -> None:
    """Counts of sessions, the distance from the window's high or low, and the window's
    extreme close with its date: over the window's own observations (the base is not one)."""
    full = series(spec, entity)
    window = full[(full.index >= spec["start"]) & (full.index <= spec["end"])]
    moves = daily[daily.index >= window.index[0]]
    measure = spec["measure"]
    if measure == "count_days":
        t = spec.get("threshold")
        counted = {
            "close_above": lambda: (window > t).sum(),
            "close_below": lambda: (window < t).sum(),
            "gain_beyond": lambda: (moves > t).sum(),
            "fall_beyond": lambda: (moves < -t).sum(),  # a fall of more than t%
            "move_beyond": lambda: (moves.abs() > t).sum(),
            "up": lambda: (moves > 0).sum(),
            "down": lambda: (moves < 0).sum(),
            "sessions": lambda: len(window),
        }[spec["condition"]]()
        out.add(float(counted))
        out.add(float(len(window)))
        return
    if measure == "distance":
        peak_day = window.idxmax() if spec.get("side", "high") == "high" else window.idxmin()
        out.add((window.iloc[-1] / window.loc[peak_day] - 1) * 100, signed=False)
        out.add(window.loc[peak_day])
        out.dates.append(peak_day.strftime("%Y-%m-%d"))
        return
    day = window.idxmax() if spec.get("which", "best") == "best" else window.idxmin()
    out.add(window.loc[day])
    out.dates.append(day.strftime("%Y-%m-%d"))


def expected(spec: dict[str, Any]) -> Expected:
    """The figures a right answer to `spec` shows."""
    out = Expected()
    measure = spec["measure"]
    for entity in spec["ids"] if measure != "top_bottom" else []:
        if measure in {"qoq", "mom", "yoy"}:
            monthly = spec["source"] == "arch_core_cpi"
            lags = {
                "qoq": pd.DateOffset(months=3),
                "mom": pd.DateOffset(months=1),
                "yoy": pd.DateOffset(years=1),
            }
            if measure == "qoq" and monthly:
                raise ValueError("qoq of a monthly series")
            out.add(_change(spec, entity, lags[measure]))
            continue
        if measure == "factor_cumulative":
            full = series(spec, entity)
            months = full[(full.index >= spec["start"]) & (full.index <= spec["end"])]
            out.add(((1 + months / 100).prod() - 1) * 100)
            continue
        values = levels(spec, entity)
        daily = daily_returns(values)
        if measure in {"return", "cumulative_return"}:
            out.add(period_return(values))
        elif measure == "cagr":
            years = (values.index[-1] - values.index[0]).days / 365.25
            out.add(((values.iloc[-1] / values.iloc[0]) ** (1 / years) - 1) * 100)
        elif measure == "volatility":
            out.add(daily.std(ddof=1) * math.sqrt(TRADING_DAYS))
        elif measure == "max_drawdown":
            # A drawdown is said as "-33.92%" or "a drawdown of 33.92%": the sign is free.
            out.add(((values / values.cummax() - 1) * 100).min(), signed=False)
        elif measure == "extreme_days":
            which, n = spec.get("which", "worst"), spec.get("n", 1)
            days = pd.concat(
                ([daily.nlargest(n)] if which in {"best", "both"} else [])
                + ([daily.nsmallest(n)] if which in {"worst", "both"} else [])
            )
            for day, value in days.items():
                out.add(value)
                out.dates.append(day.strftime("%Y-%m-%d"))
        elif measure == "growth":
            out.add(spec.get("amount", 10000.0) * values.iloc[-1] / values.iloc[0])
        elif measure in {"monthly_returns", "quarterly_returns", "yearly_returns"}:
            period = {"monthly_returns": "M", "quarterly_returns": "Q", "yearly_returns": "Y"}
            for value in _table_returns(values, period[measure]):
                out.add(value)
        elif measure == "period_extremes":
            # Each period's return from the previous period's last close (the base closes the
            # period before the first); the best is the largest, the worst the smallest.
            returns = _table_returns(values, spec["period"])
            which = spec.get("which", "both")
            if which in {"best", "both"}:
                out.add(max(returns))
            if which in {"worst", "both"}:
                out.add(min(returns))
        elif measure == "leveraged_return":
            # Rebalanced daily: each day's return times the leverage, compounded.
            out.add(((1 + spec["leverage"] * daily / 100).prod() - 1) * 100)
        elif measure in {"count_days", "distance", "level_extreme"}:
            _window_measure(spec, entity, values, daily, out)
        elif measure == "mean_monthly_return":
            out.add(float(np.mean(_table_returns(values, "M"))))
        elif measure == "mean_daily_return":
            out.add(daily.mean())
        elif measure == "sharpe":
            # An annual risk-free rate r in % (0 unless given) is r/252 a trading day; the daily
            # returns here are in % too.
            daily_rf = spec.get("risk_free", 0.0) / TRADING_DAYS
            out.add((daily.mean() - daily_rf) / daily.std(ddof=1) * math.sqrt(TRADING_DAYS))
        else:
            raise ValueError(f"unknown measure {measure!r}")
    if measure == "top_bottom":
        returns = pd.Series({e: period_return(levels(spec, e)) for e in spec["ids"]})
        ranked = returns.sort_values(ascending=False)
        n = spec.get("n", 3)
        chosen = pd.concat([ranked.iloc[:n], ranked.iloc[-n:]])
        for value in chosen[~chosen.index.duplicated()]:
            out.add(value)
    return out


# ---- reading an answer -----------------------------------------------------------------------
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number written in `text` (dates left out; "−" and thousands separators read)."""
    text = _DATE.sub(" ", text)
    return [float(m.replace("−", "-").replace(",", "")) for m in _NUMBER.findall(text)]


def shown_numbers(summary: str, cells: list[Any]) -> list[float]:
    found = numbers_in(summary)
    for cell in cells:
        if isinstance(cell, bool) or cell is None:
            continue
        if isinstance(cell, int | float | np.floating | np.integer):
            if math.isfinite(float(cell)):
                found.append(float(cell))
        else:
            found.extend(numbers_in(str(cell)))
    return found


def date_shown(day: str, texts: list[str]) -> bool:
    """Whether the ISO date `day` is written in `texts` as 2020-03-16, 2020/03/16, 2020年3月16日,
    March 16, 2020 or Mar 16, 2020."""
    when = pd.Timestamp(day)
    forms = {
        day,
        when.strftime("%Y/%m/%d"),
        f"{when.year}年{when.month}月{when.day}日",
        f"{when.month_name()} {when.day}, {when.year}",
        f"{when.month_name()[:3]} {when.day}, {when.year}",
    }
    return any(form in text for text in texts for form in forms)


def shows(value: float, signed: bool, found: list[float]) -> bool:
    """Whether `value`, rounded to 2 decimals, is among `found` (any rounding of the half)."""
    for number in found:
        candidate = number if signed else abs(number)
        target = value if signed else abs(value)
        if abs(round(candidate, 2) - target) <= 0.005 + 1e-9:
            return True
    return False


def fall_from_peak(closes: pd.Series, first: str, last: str) -> tuple[float, str, str, str | None]:
    """Depth in % and the peak, trough and recovery days of the fall from the highest close of
    first..last: the trough is the lowest close before the first close back at the peak, which
    counts only once the closes have fallen below it."""
    peak = closes.loc[first:last].idxmax()
    later = closes.loc[peak:].iloc[1:]
    below = later[later < closes.loc[peak]]
    later = later.loc[below.index[0] :] if not below.empty else later.iloc[:0]
    regained = later[later >= closes.loc[peak]]
    fall = closes.loc[peak : regained.index[0]] if not regained.empty else closes.loc[peak:]
    trough = fall.idxmin()
    recovery = regained.index[0].date().isoformat() if not regained.empty else None
    depth = float(closes.loc[trough] / closes.loc[peak] - 1) * 100
    return depth, peak.date().isoformat(), trough.date().isoformat(), recovery
