"""Acquisition interfaces: prices, OHLCV, index levels, series, indicators and reference data.

Every reader checks its ids against the catalog first, so an unknown id, an entity without data or
an entity of the wrong kind fails with a message saying what exists instead. When a live provider
is configured (and the request allows the network), the check first lets the providers fill the
warehouse (the request's `DataAccess.ensure`); their notices ("as of …", failures) become notes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection
from datetime import date, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

import duckdb
import numpy as np
import pandas as pd
import talib

from datapilot.data.catalog import Entity
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import require_column, resample_frame, tag, window
from datapilot.interfaces.registry import InterfaceError, interface

if TYPE_CHECKING:
    from datapilot.data.providers.live import Dataset

PriceField = Literal["close", "open", "high", "low", "volume", "adj_close"]
PRICE_KINDS = frozenset({"stock", "etf", "index", "fund"})
SERIES_KINDS = frozenset({"macro", "commodity", "factor"})
_KIND_WORD = {
    "macro": "macro series",
    "commodity": "commodity series",
    "factor": "factor series",
    "etf": "ETF",
    "table": "client table",
}
_KIND_HINT = {
    "macro": "get_series",
    "commodity": "get_series",
    "factor": "get_series",
    "stock": "get_prices",
    "etf": "get_prices",
    "index": "get_index_levels or get_prices",
    "fund": "get_prices",
    "table": "get_client_table",
}


# --- live data and catalog checks ---------------------------------------------------------------


def fetch_live(
    ctx: InterfaceContext,
    ids: list[str],
    start: date | None,
    end: date | None,
    dataset: Dataset | None,
) -> None:
    """Let the configured live providers fetch what the warehouse lacks or holds stale for `ids`
    (`dataset` None = whatever each id's kind needs); their notices go to `ctx.notes`.

    Returns at once, importing nothing, when the request brought no data access, no live provider
    is configured (the default) or the settings or the request are offline."""
    if ctx.offline or ctx.data is None or not ctx.data.live_fetching():
        return
    from datapilot.data.warehouse import WarehouseError

    try:
        report = ctx.data.ensure(ids, start, end, None if dataset is None else [dataset])
    except WarehouseError as error:
        # E.g. another process holds the file: answer from the local copy and say why.
        ctx.notes.append(f"Live data for {', '.join(ids)} could not be stored: {error}")
        return
    ctx.notes.extend(report.notices)


def _dataset_for(kinds: Collection[str]) -> Dataset | None:
    if kinds and set(kinds) <= PRICE_KINDS:
        return "prices"
    if kinds and set(kinds) <= SERIES_KINDS:
        return "series"
    return None


def check_entity(
    ctx: InterfaceContext,
    entity_id: str,
    kinds: Collection[str],
    need_data: bool = True,
    *,
    start: date | None = None,
    end: date | None = None,
    dataset: Dataset | None = None,
) -> Entity:
    """The catalog entity for `entity_id`: one of `kinds`, with prices/series unless not needed.

    Live providers fetch it first (see `fetch_live`): `dataset` defaults to the kinds' table."""
    fetch_live(ctx, [entity_id], start, end, dataset or _dataset_for(kinds))
    return _checked(ctx, entity_id, kinds, need_data)


def _checked(
    ctx: InterfaceContext, entity_id: str, kinds: Collection[str], need_data: bool
) -> Entity:
    entity = ctx.catalog.get(entity_id)
    if entity is None:
        raise _unknown(ctx, entity_id)
    if need_data and not getattr(entity, "available", True):
        raise InterfaceError(
            f"{entity.id} ({entity.name}) has no data in the local warehouse. Fetch it with a live "
            "provider (`datapilot data fetch`) or import a file (`datapilot data import`)."
        )
    if entity.kind not in kinds:
        raise InterfaceError(
            f"{entity.id} ({entity.name}) is {_a(_KIND_WORD.get(entity.kind, entity.kind))}, "
            f"which this interface does not read; use {_KIND_HINT.get(entity.kind, 'get_series')}."
        )
    return entity


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiouAEIOU" else f"a {noun}"


def _unknown(ctx: InterfaceContext, entity_id: str) -> InterfaceError:
    suggestions = [m.entity.id for m in (ctx.catalog.lookup(entity_id, limit=3) or [])]
    hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
    return InterfaceError(
        f"Unknown entity {entity_id!r}.{hint} `datapilot data status` lists what is available."
    )


def check_entities(
    ctx: InterfaceContext,
    ids: list[str],
    kinds: Collection[str],
    *,
    start: date | None = None,
    end: date | None = None,
) -> list[Entity]:
    """Check several ids at once (one live fetch for all); duplicates are dropped, order kept."""
    if not ids:
        raise InterfaceError("Give at least one entity id.")
    fetch_live(ctx, ids, start, end, _dataset_for(kinds))
    entities = [_checked(ctx, entity_id, kinds, True) for entity_id in ids]
    return list({entity.id: entity for entity in entities}.values())


def cite(ctx: InterfaceContext, entities: list[Entity]) -> list[str]:
    """Record and return the catalog's data sources of `entities` (no warehouse query)."""
    names = {name.strip() for e in entities for name in e.source.split(",") if name.strip()}
    ctx.sources.update(names)
    return sorted(names)


def _record(ctx: InterfaceContext, frame: pd.DataFrame) -> list[str]:
    """Record the sources the warehouse says a query's rows came from."""
    sources = sorted(frame.attrs.get("sources", []))
    ctx.sources.update(sources)
    return sources


def _span(entity: Entity) -> str:
    if entity.first and entity.last:
        return f"from {entity.first} to {entity.last}"
    return "over no dates yet"


def _no_data(entities: list[Entity], start: date | None, end: date | None) -> InterfaceError:
    spans = "; ".join(f"{e.id} has data {_span(e)}" for e in entities)
    return InterfaceError(
        f"No data between {start or 'the beginning'} and {end or 'the end'}: {spans}."
    )


# --- warehouse reads -----------------------------------------------------------------------------


def price_table(
    ctx: InterfaceContext,
    ids: list[str],
    start: date | None,
    end: date | None,
    freq: str = "daily",
) -> pd.DataFrame:
    """Tidy prices [id, date, open, high, low, close, adj_close, volume] in one warehouse query;
    `attrs["sources"]` names where the rows came from."""
    tidy = ctx.warehouse.prices(ids, start, end, freq=freq)
    sources = list(tidy.attrs.get("sources", []))
    tidy = tidy.assign(date=pd.to_datetime(tidy["date"]))
    tidy.attrs = {"sources": sources}
    return tidy


def _close_or_adjusted(rows: pd.DataFrame) -> tuple[pd.Series, bool]:
    """The raw close when it covers every row, else the adjusted close (True = adjusted)."""
    raw = rows["close"]
    if raw.notna().all() and len(raw):
        return raw, False
    return rows["adj_close"].fillna(raw), True


def _wide(tidy: pd.DataFrame, ids: list[str], column: str) -> pd.DataFrame:
    out = tidy.pivot(index="date", columns="id", values=column)
    out = out.reindex(columns=[i for i in ids if i in out.columns]).sort_index()
    out.index = pd.DatetimeIndex(out.index, name="date")
    out.columns.name = None
    return out.astype(float)


def _prices(
    ctx: InterfaceContext,
    entities: list[Entity],
    start: date | None,
    end: date | None,
    freq: str,
    field: PriceField,
) -> pd.DataFrame:
    ids = [e.id for e in entities]
    tidy = price_table(ctx, ids, start, end, freq)
    if tidy.empty:
        raise _no_data(entities, start, end)
    adjusted: list[str] = []
    if field == "close":
        parts = {}
        for entity_id, rows in tidy.groupby("id", sort=False):
            values, was_adjusted = _close_or_adjusted(rows)
            parts[entity_id] = pd.Series(values.to_numpy(), index=rows["date"].to_numpy())
            if was_adjusted:
                adjusted.append(str(entity_id))
        wide = pd.DataFrame(parts).reindex(columns=[i for i in ids if i in parts]).sort_index()
        wide.index = pd.DatetimeIndex(wide.index, name="date")
        wide = wide.astype(float)
    else:
        wide = _wide(tidy, ids, field)
    wide = wide.dropna(how="all", axis=1).dropna(how="all")
    missing = [e for e in entities if e.id not in wide.columns]
    if wide.empty:
        raise _no_data(entities, start, end)
    if missing:
        ctx.notes.append(
            f"No {field} data in the window for {', '.join(e.id for e in missing)}; "
            + "; ".join(f"{e.id} has data {_span(e)}" for e in missing)
            + "."
        )
    units = {e.units for e in entities if e.id in wide.columns and e.units}
    unit = "shares" if field == "volume" else (units.pop() if len(units) == 1 else "price")
    return tag(
        wide,
        kind="timeseries",
        unit=unit,
        title=_price_title(field, adjusted, list(wide.columns)),
        sources=_record(ctx, tidy),
        units={e.id: unit if field == "volume" else e.units for e in entities if e.id in wide},
        field=field,
        adjusted=field == "adj_close" or (bool(adjusted) and len(adjusted) == wide.shape[1]),
        frequency=freq,
    )


def _price_title(field: str, adjusted: list[str], columns: list[str]) -> str:
    names = {
        "close": "Close",
        "open": "Open",
        "high": "High",
        "low": "Low",
        "volume": "Volume",
        "adj_close": "Adjusted close",
    }
    title = names[field]
    if field == "close" and adjusted:
        if set(adjusted) >= set(columns):
            return "Close (adjusted)"
        return f"Close (adjusted for {', '.join(adjusted)})"
    return title


@interface("acquisition", "frame")
def get_prices(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Entity ids of stocks, ETFs or indices, e.g. ['AAPL', '^GSPC']."],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Literal["daily", "weekly", "monthly"] = "daily",
    field: PriceField = "close",
) -> pd.DataFrame:
    """Prices over time, one column per id (USD for stocks/ETFs, index points for indices);
    weekly/monthly = last trading day of each period.

    `close` is the raw close where the source has it for the whole window, otherwise the adjusted
    close (the title then says "Close (adjusted)"); use `adj_close` for returns across splits and
    dividends.
    """
    entities = check_entities(ctx, ids, PRICE_KINDS, start=start, end=end)
    return _prices(ctx, entities, start, end, freq, field)


@interface("acquisition", "frame")
def get_index_levels(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Index ids, e.g. ['^GSPC', '^IXIC', '^VIX']."],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Literal["daily", "weekly", "monthly"] = "daily",
) -> pd.DataFrame:
    """Closing levels of market indices in index points, one column per index id."""
    entities = check_entities(ctx, ids, {"index"}, start=start, end=end)
    return _prices(ctx, entities, start, end, freq, "close")


@interface("acquisition", "frame")
def get_ohlcv(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Literal["daily", "weekly", "monthly"] = "daily",
) -> pd.DataFrame:
    """Open, high, low, close and volume of one entity (columns open/high/low/close/volume), for
    candlestick charts."""
    found = check_entity(ctx, entity, PRICE_KINDS, start=start, end=end)
    rows, sources = _ohlc_rows(ctx, found, start, end, freq)
    frame = rows.set_index("date")[["open", "high", "low", "close", "volume"]].astype(float)
    frame.index = pd.DatetimeIndex(frame.index, name="date")
    return tag(
        frame,
        kind="ohlcv",
        unit=found.units or "USD",
        title=f"{found.name} OHLCV",
        sources=sources,
        entity=found.id,
        frequency=freq,
    )


def _ohlc_rows(
    ctx: InterfaceContext,
    entity: Entity,
    start: date | None,
    end: date | None,
    freq: str,
    fetch_from: date | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Rows of one entity with open/high/low/close (and their sources); an error naming the years
    that have them.

    `fetch_from` (before `start`) reads extra history for indicator warm-up; messages and the
    coverage note speak of the window the user asked for.
    """
    tidy = price_table(ctx, [entity.id], fetch_from or start, end, freq)
    if tidy.empty:
        raise _no_data([entity], start, end)
    complete = tidy.dropna(subset=["open", "high", "low", "close"]).sort_values("date")
    shown, shown_complete = (
        window(tidy.set_index("date"), start, None),
        window(complete.set_index("date"), start, None),
    )
    if shown_complete.empty:
        raise InterfaceError(
            f"{entity.id} has no open/high/low/close between {start or 'the beginning'} and "
            f"{end or 'the end'} (only closing prices); {_ohlc_years(ctx, entity)}"
        )
    if len(shown_complete) < len(shown):
        ctx.notes.append(
            f"{entity.id} has open/high/low/close only from {shown_complete.index[0].date()} to "
            f"{shown_complete.index[-1].date()} in the requested window."
        )
    return complete, _record(ctx, tidy)


def _ohlc_years(ctx: InterfaceContext, entity: Entity) -> str:
    history = ctx.warehouse.prices([entity.id])
    history = history.assign(date=pd.to_datetime(history["date"]))
    years = history.dropna(subset=["open", "high", "low", "close"])["date"].dt.year
    if years.empty:
        return "no period has them offline."
    return f"OHLC data exist for {years.min()}–{years.max()}."


@interface("acquisition", "frame")
def get_series(
    ctx: InterfaceContext,
    ids: Annotated[
        list[str], "FRED-style ids of macro, commodity or factor series, e.g. ['UNRATE']."
    ],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Annotated[
        Literal["monthly", "quarterly", "annual"] | None,
        "Resample to this frequency (last value of each period); None = as published.",
    ] = None,
) -> pd.DataFrame:
    """Values of macro, commodity or factor series over time, one column per id, in each series'
    unit (catalog)."""
    entities = check_entities(ctx, ids, SERIES_KINDS, start=start, end=end)
    ordered = [e.id for e in entities]
    tidy = ctx.warehouse.series(ordered, start, end)
    if tidy.empty:
        raise _no_data(entities, start, end)
    sources = _record(ctx, tidy)
    tidy = tidy.assign(date=pd.to_datetime(tidy["date"]))
    wide = _wide(tidy, ordered, "value").dropna(how="all")
    if freq is not None:
        wide = resample_frame(wide, freq, "last")
    missing = [e for e in entities if e.id not in wide.columns]
    if missing:
        ctx.notes.append(
            "No values in the window for "
            + "; ".join(f"{e.id} (data {_span(e)})" for e in missing)
            + "."
        )
    present = [e for e in entities if e.id in wide.columns]
    units = {e.id: e.units for e in present}
    distinct = sorted(set(units.values()) - {""})
    return tag(
        wide,
        kind="timeseries",
        unit=distinct[0] if len(distinct) == 1 else "; ".join(distinct),
        title=present[0].name if len(present) == 1 else "Series values",
        sources=sources,
        units=units,
        frequency=freq or present[0].frequency,
    )


# --- technical indicators ------------------------------------------------------------------------


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
        rows, sources = _ohlc_rows(ctx, entity, start, end, "daily", fetch_from=fetch_from)
    else:
        rows = price_table(ctx, [entity.id], fetch_from, end, "daily")
        if rows.empty:
            raise _no_data([entity], start, end)
        sources = _record(ctx, rows)
        rows = rows.sort_values("date")
    rows = rows.set_index("date")
    rows.index = pd.DatetimeIndex(rows.index, name="date")
    visible = window(rows, start, None)
    if visible.empty:
        raise _no_data([entity], start, end)
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
            f"{entity.id} has data {_span(entity)}."
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
        {f"ma{n}": talib.SMA(close, timeperiod=n) for n in windows}, index=rows.index
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
        {f"ema{n}": talib.EMA(close, timeperiod=n) for n in windows}, index=rows.index
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
    line, sig, hist = talib.MACD(
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
        {"rsi": talib.RSI(_arr(rows["price"]), timeperiod=window)}, index=rows.index
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
    k, d = talib.STOCH(
        _arr(rows["high"]),
        _arr(rows["low"]),
        _arr(rows["price"]),
        fastk_period=window,
        slowk_period=5,
        slowk_matype=talib.MA_Type.EMA,
        slowd_period=5,
        slowd_matype=talib.MA_Type.EMA,
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
    upper, middle, lower = talib.BBANDS(
        close, timeperiod=window, nbdevup=width, nbdevdn=width, matype=talib.MA_Type.SMA
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
    cci = talib.CCI(_arr(rows["high"]), _arr(rows["low"]), _arr(rows["price"]), timeperiod=window)
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


# --- reference data ------------------------------------------------------------------------------


def _entity_row(entity: Entity) -> dict[str, Any]:
    return {
        "id": entity.id,
        "name": entity.name,
        "kind": entity.kind,
        "frequency": entity.frequency,
        "units": entity.units,
        "source": entity.source,
        "first": entity.first,
        "last": entity.last,
    }


@interface("acquisition", "frame")
def get_company_info(
    ctx: InterfaceContext,
    entity: Annotated[str, "Any entity id."],
) -> pd.DataFrame:
    """What the catalog knows about one entity: a one-row table with name, kind, aliases, frequency,
    units, source, first and last date."""
    fetch_live(ctx, [entity], None, None, None)
    found = ctx.catalog.get(entity)
    if found is None:
        raise _unknown(ctx, entity)
    row = _entity_row(found) | {"aliases": "; ".join(found.aliases)}
    frame = pd.DataFrame([row]).set_index("id")
    return tag(
        frame,
        kind="cross_section",
        title=f"{found.name}",
        sources=cite(ctx, [found]) if getattr(found, "available", True) else [],
    )


def _catalog_entities(ctx: InterfaceContext, kind: str | None) -> list[Entity]:
    entities = ctx.catalog.entities(kind=kind, available=True)
    return [e for e in entities if getattr(e, "available", True)]


@interface("acquisition", "frame")
def list_entities(
    ctx: InterfaceContext,
    kind: Annotated[
        Literal["stock", "etf", "index", "macro", "commodity", "factor", "fund"] | None,
        "Only entities of this kind; None = all.",
    ] = None,
) -> pd.DataFrame:
    """Entities that have data in the warehouse, one row per id: name, kind, frequency, units,
    source, first, last."""
    entities = _catalog_entities(ctx, kind)
    if not entities:
        raise InterfaceError(
            f"No {kind or ''} entities have data yet; run `datapilot data status`."
        )
    frame = pd.DataFrame([_entity_row(e) for e in entities]).set_index("id").sort_index()
    return tag(
        frame, kind="cross_section", title="Available entities" + (f" ({kind})" if kind else "")
    )


@interface("acquisition", "frame")
def get_constituents(
    ctx: InterfaceContext,
    index: Annotated[str, "Index id, e.g. ^GSPC."],
) -> pd.DataFrame:
    """Member stocks of an index that the warehouse holds data for: one row per id with name, first
    and last date."""
    found = check_entity(ctx, index, {"index"})
    members_of = getattr(ctx.warehouse, "constituents", None)
    members: list[Entity] = []
    if callable(members_of):
        ids = list(members_of(found.id))
        members = [e for e in (ctx.catalog.get(i) for i in ids) if e is not None]
    elif found.id == "^GSPC":
        # Offline, the bundled stocks are all S&P 500 large caps; say it is only a subset.
        members = _catalog_entities(ctx, "stock")
        ctx.notes.append(
            f"{len(members)} S&P 500 stocks are bundled offline; the full membership needs a "
            "live provider."
        )
    if not members:
        raise InterfaceError(
            f"The warehouse holds no member list for {found.id} ({found.name}); constituents "
            "offline exist only for ^GSPC (the bundled subset of S&P 500 stocks)."
        )
    frame = pd.DataFrame([_entity_row(e) for e in members]).set_index("id").sort_index()
    frame = frame[["name", "kind", "first", "last"]]
    return tag(
        frame,
        kind="cross_section",
        title=f"Members of {found.name}",
        sources=cite(ctx, [found]),
        index=found.id,
    )


def _live_reader(module: str, name: str) -> Callable[..., pd.DataFrame] | None:
    """A reader of data only live providers fill, when this installation has it."""
    try:
        return getattr(importlib.import_module(f"datapilot.data.{module}"), name)
    except (ImportError, AttributeError):
        return None


def _live_only(ctx: InterfaceContext, reader: Any, what: str, *args: Any) -> pd.DataFrame:
    """Read data only live providers fill; explain how to get them when there are none."""
    frame = None
    if reader is not None:
        try:
            frame = reader(ctx.warehouse, *args)
        except duckdb.CatalogException:  # the table appears with the first live fetch
            frame = None
    if frame is None or len(frame) == 0:
        raise InterfaceError(
            f"No {what} in the local warehouse: the bundled data hold prices and series only. "
            "Fetch them with a live provider (`datapilot data fetch`)."
        )
    return frame


@interface("acquisition", "frame")
def get_fundamentals(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock id."],
    fields: Annotated[
        list[str] | None, "Fields such as revenue, net_income, eps; None = all."
    ] = None,
    period: Literal["annual", "quarterly"] = "annual",
) -> pd.DataFrame:
    """Reported financial statement figures of a company by fiscal period end, one column per
    field (needs data from a live provider)."""
    found = check_entity(ctx, entity, {"stock"}, need_data=False, dataset="fundamentals")
    reader = _live_reader("fundamentals", "fundamentals_table")
    frame = _live_only(ctx, reader, f"fundamentals for {found.id}", found.id, fields, period)
    if fields:
        frame = frame[[require_column(frame, f) for f in fields]]
    sources = list(frame.attrs.get("sources", []))
    ctx.sources.update(sources)
    return tag(
        frame,
        kind="timeseries",
        title=f"{found.name} fundamentals ({period})",
        sources=sources,
        units=frame.attrs.get("units"),
        entity=found.id,
    )


@interface("acquisition", "frame")
def get_news(
    ctx: InterfaceContext,
    entity: Annotated[str, "One entity id."],
    limit: Annotated[int, "Most recent items returned."] = 10,
) -> pd.DataFrame:
    """Recent news headlines about an entity (needs data from a live provider)."""
    found = check_entity(ctx, entity, PRICE_KINDS | SERIES_KINDS, need_data=False, dataset="news")
    reader = _live_reader("news", "news")
    frame = _live_only(ctx, reader, f"news for {found.id}", found.id, limit)
    sources = list(frame.attrs.get("sources", []))
    ctx.sources.update(sources)
    return tag(
        frame.head(limit), kind="cross_section", title=f"News about {found.name}", sources=sources
    )


@interface("acquisition", "frame")
def get_fund_nav(
    ctx: InterfaceContext,
    entity: Annotated[str, "One fund id."],
    start: date | None = None,
    end: date | None = None,
) -> pd.DataFrame:
    """Net asset value per unit of a mutual fund over time: columns nav and accumulated_nav
    (distributions added back); needs data from a live provider."""
    found = check_entity(
        ctx, entity, {"fund"}, need_data=False, start=start, end=end, dataset="prices"
    )
    reader = _live_reader("funds", "fund_nav")
    frame = _live_only(ctx, reader, f"NAV for {found.id}", found.id, start, end)
    return tag(
        frame,
        kind="timeseries",
        unit=found.units,
        title=f"{found.name} NAV",
        sources=cite(ctx, [found]),
        entity=found.id,
    )


# --- client tables -------------------------------------------------------------------------------

_DATE_NAMES = {"date", "datetime", "time", "timestamp", "day", "period", "month", "日期", "时间"}


@interface("acquisition", "frame")
def get_client_table(
    ctx: InterfaceContext,
    name: Annotated[str, "The name of a table the client sent (widget data)."],
) -> pd.DataFrame:
    """A table sent with the question (e.g. a dashboard widget's data): dated rows become a time
    series, numeric text becomes numbers."""
    found = _find_table(ctx, name)
    frame = ctx.tables[found].copy()
    for column in frame.columns:
        frame[column] = _as_number(frame[column])
    date_column = _date_column(frame)
    if date_column is not None:
        frame[date_column] = pd.to_datetime(frame[date_column], errors="coerce", format="mixed")
        frame = frame.dropna(subset=[date_column]).set_index(date_column).sort_index()
        frame.index = pd.DatetimeIndex(frame.index, name="date")
        kind = "timeseries"
    else:
        labels = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        if labels:
            frame = frame.set_index(labels[0])
            frame.index.name = "id"
        kind = "cross_section"
    ctx.sources.add(f"client table: {found}")
    return tag(frame, kind=kind, title=found, sources=[f"client table: {found}"])


def _find_table(ctx: InterfaceContext, name: str) -> str:
    if name in ctx.tables:
        return name
    folded = {key.lower(): key for key in ctx.tables}
    if name.lower() in folded:
        return folded[name.lower()]
    if not ctx.tables:
        raise InterfaceError(
            f"No client table named {name!r}: the request carried no tables. Send the widget's "
            "data with the question."
        )
    raise InterfaceError(
        f"No client table named {name!r}; the request carried: {', '.join(ctx.tables)}."
    )


def _as_number(values: pd.Series) -> pd.Series:
    """Numbers written as text ('1,234.5', '12%', '$3') become floats when nearly all parse."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    text = values.astype("string").str.strip().str.replace(r"[,$%\s]", "", regex=True)
    parsed = pd.to_numeric(text, errors="coerce")
    present = values.notna() & (values.astype("string").str.strip() != "")
    if present.any() and parsed[present].notna().mean() >= 0.9:
        return parsed.astype(float)
    return values


def _date_column(frame: pd.DataFrame) -> str | None:
    """A column holding dates: by name first, else the first text column that parses as dates."""
    candidates = sorted(
        (c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])),
        key=lambda c: str(c).strip().lower() not in _DATE_NAMES,
    )
    for column in candidates:
        values = frame[column].dropna()
        if values.empty:
            continue
        parsed = pd.to_datetime(values.astype(str), errors="coerce", format="mixed")
        if parsed.notna().mean() >= 0.9:
            return str(column)
    return None
