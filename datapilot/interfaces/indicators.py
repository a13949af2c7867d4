"""Technical indicators of one entity's daily prices: MA, EMA, MACD, RSI, KDJ, BOLL and CCI.

Computed with TA-Lib from the warehouse's daily rows, read with extra history before the window so
the first visible values are warmed up. Computations, but registered in the `acquisition`
category like the readers: they take an entity id and read the warehouse themselves, and the
category decides how the engine treats their results (no-data detection, prompt grouping).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any

import numpy as np
import pandas as pd

from datapilot.core.intent import PRICE_KINDS
from datapilot.data.catalog import Entity
from datapilot.interfaces.checks import (
    check_entity,
    data_span,
    no_data,
    record_sources,
)
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import tag, window
from datapilot.interfaces.prices import ohlc_rows, price_table
from datapilot.interfaces.registry import InterfaceError, interface


def _indicator_input(
    ctx: InterfaceContext,
    entity_id: str,
    start: date | None,
    end: date | None,
    warmup_bars: int,
    need_ohlc: bool = False,
) -> tuple[Entity, pd.DataFrame, list[str]]:
    """Daily rows from `warmup_bars` trading days before `start` to `end`, with a `price` column.

    `price` is the raw close when it covers the requested window (so overlays match candles),
    otherwise the adjusted close.
    """
    # ~1.5 calendar days per trading day, plus slack for holidays.
    fetch_from = start - timedelta(days=int(warmup_bars * 1.5) + 15) if start else None
    entity = check_entity(ctx, entity_id, PRICE_KINDS, start=fetch_from, end=end)
    if need_ohlc:
        rows, sources = ohlc_rows(ctx, entity, start, end, "daily", fetch_from=fetch_from)
    else:
        rows = price_table(ctx, [entity.id], fetch_from, end, "daily")
        if rows.empty:
            raise no_data([entity], start, end)
        sources = record_sources(ctx, rows)
        rows = rows.sort_values("date")
    rows = rows.set_index("date")
    rows.index = pd.DatetimeIndex(rows.index, name="date")
    visible = window(rows, start, None)
    if visible.empty:
        raise no_data([entity], start, end)
    if visible["close"].notna().all():
        rows = rows[rows["close"].notna()].assign(price=lambda r: r["close"])
    else:
        rows = rows.assign(price=rows["adj_close"].fillna(rows["close"])).dropna(subset=["price"])
    return entity, rows, sources


def _indicator(
    ctx: InterfaceContext,
    entity: Entity,
    values: pd.DataFrame,
    start: date | None,
    title: str,
    sources: list[str],
    *,
    overlay: bool,
    unit: str,
    **extra: Any,
) -> pd.DataFrame:
    out = window(values, start, None).astype(float)
    if out.dropna(how="all").empty:
        raise InterfaceError(
            f"Not enough history to compute {title} for {entity.id} in this window; "
            f"{entity.id} has data {data_span(entity)}."
        )
    return tag(
        out,
        kind="indicator",
        unit=unit,
        title=f"{title} of {entity.id}",
        sources=sources,
        entity=entity.id,
        overlay=overlay,
        **extra,
    )


def ta_lib() -> Any:
    """TA-Lib, loaded on the first indicator: loading its C library takes longer than
    answering most questions, and most never need it."""
    import talib

    return talib


def _arr(series: pd.Series) -> np.ndarray:
    return series.to_numpy(dtype=float)


@interface("acquisition", "frame")
def get_ma(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: date | None = None,
    end: date | None = None,
    windows: Annotated[list[int], "Moving-average lengths in trading days."] = [5, 20, 60],  # noqa: B006
) -> pd.DataFrame:
    """Simple moving averages of the daily close (columns ma5, ma20, …, price unit); drawn over the
    price."""
    _check_windows(windows)
    found, rows, sources = _indicator_input(ctx, entity, start, end, max(windows))
    close = _arr(rows["price"])
    values = pd.DataFrame(
        {f"ma{n}": ta_lib().SMA(close, timeperiod=n) for n in windows}, index=rows.index
    )
    label = f"MA({', '.join(map(str, windows))})"
    return _indicator(ctx, found, values, start, label, sources, overlay=True, unit=found.units)


@interface("acquisition", "frame")
def get_ema(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: date | None = None,
    end: date | None = None,
    windows: Annotated[list[int], "EMA lengths in trading days."] = [12, 26],  # noqa: B006
) -> pd.DataFrame:
    """Exponential moving averages of the daily close (columns ema12, ema26, …, price unit); drawn
    over the price."""
    _check_windows(windows)
    found, rows, sources = _indicator_input(ctx, entity, start, end, 4 * max(windows))
    close = _arr(rows["price"])
    values = pd.DataFrame(
        {f"ema{n}": ta_lib().EMA(close, timeperiod=n) for n in windows}, index=rows.index
    )
    label = f"EMA({', '.join(map(str, windows))})"
    return _indicator(ctx, found, values, start, label, sources, overlay=True, unit=found.units)


@interface("acquisition", "frame")
def get_macd(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: date | None = None,
    end: date | None = None,
    fast: int = 12,
    slow: int = 26,
    signal: int = 9,
) -> pd.DataFrame:
    """MACD of the daily close: columns macd (fast EMA − slow EMA), signal (EMA of macd) and hist
    (macd − signal), in price units."""
    if not 1 < fast < slow or signal < 1:
        raise InterfaceError("MACD needs 1 < fast < slow and signal >= 1 (e.g. 12, 26, 9).")
    found, rows, sources = _indicator_input(ctx, entity, start, end, 4 * slow + signal)
    line, sig, hist = ta_lib().MACD(
        _arr(rows["price"]), fastperiod=fast, slowperiod=slow, signalperiod=signal
    )
    values = pd.DataFrame({"macd": line, "signal": sig, "hist": hist}, index=rows.index)
    return _indicator(
        ctx,
        found,
        values,
        start,
        f"MACD({fast}, {slow}, {signal})",
        sources,
        overlay=False,
        unit=found.units,
        bar_columns=["hist"],
    )


@interface("acquisition", "frame")
def get_rsi(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: date | None = None,
    end: date | None = None,
    window: Annotated[int, "Lookback in trading days (Wilder smoothing)."] = 14,
) -> pd.DataFrame:
    """Relative Strength Index (0–100, Wilder) of the daily close, column rsi; above 70 is read as
    overbought, below 30 oversold."""
    _check_windows([window])
    found, rows, sources = _indicator_input(ctx, entity, start, end, 10 * window)
    values = pd.DataFrame(
        {"rsi": ta_lib().RSI(_arr(rows["price"]), timeperiod=window)}, index=rows.index
    )
    return _indicator(
        ctx,
        found,
        values,
        start,
        f"RSI({window})",
        sources,
        overlay=False,
        unit="0–100",
        levels=[30, 70],
    )


@interface("acquisition", "frame")
def get_kdj(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id with daily high/low/close."],
    start: date | None = None,
    end: date | None = None,
    window: Annotated[int, "RSV lookback in trading days."] = 9,
) -> pd.DataFrame:
    """KDJ stochastic oscillator (the usual 9,3,3): columns k and d (0–100) and j = 3k − 2d."""
    _check_windows([window])
    found, rows, sources = _indicator_input(ctx, entity, start, end, window + 60, need_ohlc=True)
    # K and D smooth the raw stochastic with weight 1/3 (K = 2/3·K₋₁ + 1/3·RSV), which is an EMA
    # of period 5 in TA-Lib's terms (alpha = 2 / (5 + 1)).
    k, d = ta_lib().STOCH(
        _arr(rows["high"]),
        _arr(rows["low"]),
        _arr(rows["price"]),
        fastk_period=window,
        slowk_period=5,
        slowk_matype=ta_lib().MA_Type.EMA,
        slowd_period=5,
        slowd_matype=ta_lib().MA_Type.EMA,
    )
    values = pd.DataFrame({"k": k, "d": d, "j": 3 * k - 2 * d}, index=rows.index)
    return _indicator(
        ctx,
        found,
        values,
        start,
        f"KDJ({window}, 3, 3)",
        sources,
        overlay=False,
        unit="0–100",
        levels=[20, 80],
    )


@interface("acquisition", "frame")
def get_boll(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: date | None = None,
    end: date | None = None,
    window: Annotated[int, "Moving-average length in trading days."] = 20,
    width: Annotated[float, "Band half-width in standard deviations."] = 2.0,
) -> pd.DataFrame:
    """Bollinger bands of the daily close: columns upper, middle (moving average), lower and close,
    in price units; drawn over the price."""
    _check_windows([window])
    if width <= 0:
        raise InterfaceError("The band width must be a positive number of standard deviations.")
    found, rows, sources = _indicator_input(ctx, entity, start, end, window)
    close = _arr(rows["price"])
    upper, middle, lower = ta_lib().BBANDS(
        close, timeperiod=window, nbdevup=width, nbdevdn=width, matype=ta_lib().MA_Type.SMA
    )
    values = pd.DataFrame(
        {"upper": upper, "middle": middle, "lower": lower, "close": close}, index=rows.index
    )
    return _indicator(
        ctx,
        found,
        values,
        start,
        f"BOLL({window}, {width:g})",
        sources,
        overlay=True,
        unit=found.units,
    )


@interface("acquisition", "frame")
def get_cci(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id with daily high/low/close."],
    start: date | None = None,
    end: date | None = None,
    window: Annotated[int, "Lookback in trading days."] = 14,
) -> pd.DataFrame:
    """Commodity Channel Index of the daily typical price, column cci (unbounded; ±100 are the usual
    signal levels)."""
    _check_windows([window])
    found, rows, sources = _indicator_input(ctx, entity, start, end, window, need_ohlc=True)
    high, low, close = _arr(rows["high"]), _arr(rows["low"]), _arr(rows["price"])
    cci = ta_lib().CCI(high, low, close, timeperiod=window)
    values = pd.DataFrame({"cci": cci}, index=rows.index)
    return _indicator(
        ctx,
        found,
        values,
        start,
        f"CCI({window})",
        sources,
        overlay=False,
        unit="",
        levels=[-100, 100],
    )


def _check_windows(windows: list[int]) -> None:
    if not windows or any(n < 2 or n > 1000 for n in windows):
        raise InterfaceError("Indicator windows must be whole numbers of days between 2 and 1000.")
