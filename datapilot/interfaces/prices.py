"""Warehouse reads: prices, index levels, OHLCV and macro/commodity/factor series.

Wide time-series frames straight from the warehouse, after the shared catalog checks (`checks`);
`price_table` and `ohlc_rows` also feed the technical indicators and cross-section returns.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Annotated, Any, Literal

import pandas as pd

from datapilot.core.intent import PRICE_KINDS, SERIES_KINDS, Frequency
from datapilot.data.catalog import Entity
from datapilot.data.phrases_zh import chinese_name
from datapilot.data.warehouse import PriceFreq
from datapilot.interfaces.chart_text import say
from datapilot.interfaces.checks import (
    check_entities,
    check_entity,
    data_span,
    no_data,
    no_values,
    record_sources,
)
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import BaseRule, resample_frame, tag, window
from datapilot.interfaces.registry import InterfaceError, interface

PriceField = Literal["close", "open", "high", "low", "volume", "adj_close"]
BaseArg = Annotated[
    BaseRule,
    "Where returns over the window start: 'before' = the last observation strictly before "
    "`start` (calendar periods: a year, quarter, month, YTD, 'since 2020'); 'on_or_before' = the "
    "observation on or before `start` (trailing lengths such as 'past 3 months', and ranges "
    "between two explicit days).",
]
# How far before `start` the base is looked for first (a longer gap reads the whole history).
_LOOKBACK_DAYS: dict[Frequency, int] = {
    "daily": 31,
    "weekly": 31,
    "monthly": 93,
    "quarterly": 190,
    "annual": 400,
}
Reader = Callable[[list[str], date | None, date], pd.DataFrame]


def read_base(
    entities: list[Entity], start: date | None, base: BaseRule, read: Reader
) -> dict[str, dict[str, Any]]:
    """Per entity id, the observation returns over a window from `start` are measured from:
    `{"date": "YYYY-MM-DD", "value": float}` (see `BaseArg`); ids without one are left out.

    `read(ids, lower, upper)` returns a wide frame (one column per id) of the same values the
    window holds, between two dates.
    """
    if start is None:
        return {}
    upper = start if base == "on_or_before" else start - timedelta(days=1)
    lookback = max(_LOOKBACK_DAYS.get(e.frequency, 400) for e in entities)
    found = _last_valid(read([e.id for e in entities], upper - timedelta(days=lookback), upper))
    # A longer gap (or a sparse series): read the entity's history up to the base.
    missing = [
        e.id for e in entities if e.id not in found and (e.first is None or e.first <= upper)
    ]
    if missing:
        found.update(_last_valid(read(missing, None, upper)))
    return found


def _last_valid(wide: pd.DataFrame) -> dict[str, dict[str, Any]]:
    found = {}
    for column, values in wide.items():
        present = values.dropna()
        if len(present):
            found[str(column)] = {
                "date": pd.Timestamp(present.index[-1]).date().isoformat(),
                "value": float(present.iloc[-1]),
            }
    return found


def _price_reader(
    ctx: InterfaceContext,
    field: PriceField,
    adjusted: set[str],
    fetched: tuple[date, pd.DataFrame] | None = None,
) -> Reader:
    """Daily values of `field` (for `close`: the adjusted close of the ids in `adjusted`).

    `fetched` = (from, daily rows already read from that date on): reads that start on or after
    it are served from those rows instead of a second warehouse query.
    """

    def read(ids: list[str], lower: date | None, upper: date) -> pd.DataFrame:
        if fetched is not None and lower is not None and lower >= fetched[0]:
            rows = fetched[1]
            tidy = rows[
                rows["id"].isin(ids)
                & (rows["date"] >= pd.Timestamp(lower))
                & (rows["date"] <= pd.Timestamp(upper))
            ]
        else:
            tidy = price_table(ctx, ids, lower, upper, "daily")
        if tidy.empty:
            return pd.DataFrame()
        values = tidy[field]
        if field == "close":
            values = values.where(~tidy["id"].isin(adjusted), tidy["adj_close"])
        elif field == "adj_close":
            values = values.where(~tidy["id"].isin(adjusted), tidy["close"])
        return tidy.assign(value=values).pivot(index="date", columns="id", values="value")

    return read


def exchange_calendar(entity: Entity) -> str | None:
    """The ISO 10383 code of the exchange calendar an exchange-traded entity trades on."""
    if entity.kind not in PRICE_KINDS:
        return None
    suffix = entity.id.rsplit(".", 1)[-1].upper() if "." in entity.id else ""
    if suffix in ("SH", "SS", "SZ", "OF"):
        return "XSHG"
    if suffix == "HK":
        return "XHKG"
    return "XNYS"


def price_table(
    ctx: InterfaceContext,
    ids: list[str],
    start: date | None,
    end: date | None,
    freq: PriceFreq = "daily",
) -> pd.DataFrame:
    """Tidy prices [id, date, open, high, low, close, adj_close, volume] in one warehouse query;
    `attrs["sources"]` names where the rows came from."""
    tidy = ctx.warehouse.prices(ids, start, end, freq=freq)
    sources = list(tidy.attrs.get("sources", []))
    tidy = tidy.assign(date=pd.to_datetime(tidy["date"]))
    tidy.attrs = {"sources": sources}
    return tidy


def _no_field(
    ctx: InterfaceContext,
    entities: list[Entity],
    start: date | None,
    end: date | None,
    freq: PriceFreq,
    field: PriceField,
) -> InterfaceError:
    """The error for a window with prices but none of `field` (AAPL's volume in 2020, when the
    bundled volumes end in 2013): the dates that field does have, never only the entity's."""
    every = price_table(ctx, [e.id for e in entities], None, None, freq)
    spans = []
    for entity in entities:
        dates = every.loc[(every["id"] == entity.id) & every[field].notna(), "date"]
        spans.append(
            f"{entity.id}'s {field} runs from {dates.min().date()} to {dates.max().date()}"
            if len(dates)
            else f"{entity.id} has no {field} at all"
        )
    return no_values(field, spans, start, end)


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
    freq: PriceFreq,
    field: PriceField,
    base: BaseRule = "before",
) -> pd.DataFrame:
    """Prices of `entities` over the window, one column per id, tagged (see `get_prices`); a
    note for the ids without data in it, and their sources recorded."""
    # Everything the frame depends on besides the warehouse's contents: the same question asked
    # again is served from memory until the warehouse changes.
    key = (
        "interfaces.prices",
        tuple((e.id, e.kind, e.frequency, e.first, e.last, e.units) for e in entities),
        start,
        end,
        freq,
        field,
        base,
    )
    wide = ctx.warehouse.derived(
        key, lambda: _computed_prices(ctx, entities, start, end, freq, field, base)
    )
    missing = [e for e in entities if e.id not in wide.columns]
    if missing:
        ctx.notes.append(
            f"No {field} data in the window for {', '.join(e.id for e in missing)}; "
            + "; ".join(f"{e.id} has data {data_span(e)}" for e in missing)
            + "."
        )
    record_sources(ctx, wide)
    return wide


def _computed_prices(
    ctx: InterfaceContext,
    entities: list[Entity],
    start: date | None,
    end: date | None,
    freq: PriceFreq,
    field: PriceField,
    base: BaseRule = "before",
) -> pd.DataFrame:
    """`_prices`' frame from the warehouse alone: it changes nothing in `ctx`."""
    ids = [e.id for e in entities]
    fetched: tuple[date, pd.DataFrame] | None = None
    if start is not None and freq == "daily":
        # One query for the window and the days its base is looked for in (see `read_base`).
        lookback = max(_LOOKBACK_DAYS.get(e.frequency, 400) for e in entities)
        lower = start - timedelta(days=lookback + 1)  # `before` looks back from the day before
        history = price_table(ctx, ids, lower, end, freq)
        fetched = (lower, history)
        tidy = history[history["date"] >= pd.Timestamp(start)]
        tidy.attrs = dict(history.attrs)
    else:
        tidy = price_table(ctx, ids, start, end, freq)
    if tidy.empty:
        raise no_data(entities, start, end)
    # For close: ids whose window falls back to the adjusted close; for adj_close: ids without
    # one (an index, an imported file of closes), which fall back to the close.
    adjusted: list[str] = []
    if field in ("close", "adj_close"):
        parts = {}
        for entity_id, rows in tidy.groupby("id", sort=False):
            if field == "close":
                values, was_adjusted = _close_or_adjusted(rows)
            else:
                was_adjusted = bool(rows["adj_close"].isna().all())
                values = rows["close"] if was_adjusted else rows["adj_close"]
            parts[entity_id] = pd.Series(values.to_numpy(), index=rows["date"].to_numpy())
            if was_adjusted:
                adjusted.append(str(entity_id))
        wide = pd.DataFrame(parts).reindex(columns=[i for i in ids if i in parts]).sort_index()
        wide.index = pd.DatetimeIndex(wide.index, name="date")
        wide = wide.astype(float)
    else:
        wide = _wide(tidy, ids, field)
    wide = wide.dropna(how="all", axis=1).dropna(how="all")
    if wide.empty:
        raise _no_field(ctx, entities, start, end, freq, field)
    present = [e for e in entities if e.id in wide.columns]
    units = {e.units for e in present if e.units}
    unit = "shares" if field == "volume" else (units.pop() if len(units) == 1 else "price")
    bases = read_base(present, start, base, _price_reader(ctx, field, set(adjusted), fetched))
    return tag(
        wide,
        kind="timeseries",
        unit=unit,
        title=_price_title(field, adjusted, list(wide.columns)),
        sources=sorted(tidy.attrs.get("sources", [])),
        units={e.id: unit if field == "volume" else e.units for e in present},
        field=field,
        adjusted=(field == "adj_close" and not adjusted)
        or (field == "close" and bool(adjusted) and len(adjusted) == wide.shape[1]),
        frequency=freq,
        base=bases,
        calendars={e.id: exchange_calendar(e) for e in present},
    )


def _price_title(field: str, adjusted: list[str], columns: list[str]) -> str:
    """The frame's title; `adjusted` are the ids whose values came from the other close column
    (the adjusted one for `close`, the raw one for `adj_close`)."""
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
    if field == "adj_close" and adjusted:  # no adjusted close (an imported file of closes)
        if set(adjusted) >= set(columns):
            return "Close"
        return f"Adjusted close (close for {', '.join(adjusted)})"
    return title


@interface("acquisition", "frame")
def get_prices(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Entity ids of stocks, ETFs or indices, e.g. ['AAPL', '^GSPC']."],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Literal["daily", "weekly", "monthly"] = "daily",
    field: PriceField = "close",
    base: BaseArg = "before",
) -> pd.DataFrame:
    """Prices over time, one column per id (USD for stocks/ETFs, index points for indices);
    weekly/monthly = last trading day of each period.

    `close` is the raw close where the source has it for the whole window, otherwise the adjusted
    close (the title then says "Close (adjusted)"); use `adj_close` for returns across splits and
    dividends (an index has no adjustments: its close). The frame holds the window's rows; the
    observation returns start from is in `attrs["base"]` (see `base`).
    """
    entities = check_entities(ctx, ids, PRICE_KINDS, start=start, end=end)
    return _prices(ctx, entities, start, end, freq, field, base)


@interface("acquisition", "frame")
def get_index_levels(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Index ids, e.g. ['^GSPC', '^IXIC', '^VIX']."],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Literal["daily", "weekly", "monthly"] = "daily",
    base: BaseArg = "before",
) -> pd.DataFrame:
    """Closing levels of market indices in index points, one column per index id; the level
    returns start from is in `attrs["base"]` (see `base`)."""
    entities = check_entities(ctx, ids, {"index"}, start=start, end=end)
    return _prices(ctx, entities, start, end, freq, "close", base)


@interface("acquisition", "frame")
def get_ohlcv(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock, ETF or index id."],
    start: Annotated[date | None, "First date (inclusive); None = earliest."] = None,
    end: Annotated[date | None, "Last date (inclusive); None = latest."] = None,
    freq: Literal["daily", "weekly", "monthly"] = "daily",
    base: BaseArg = "before",
) -> pd.DataFrame:
    """Open, high, low, close and volume of one entity (columns open/high/low/close/volume), for
    candlestick charts; the close returns start from is in `attrs["base"]`."""
    found = check_entity(ctx, entity, PRICE_KINDS, start=start, end=end)
    rows, sources = ohlc_rows(ctx, found, start, end, freq)
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
        base=read_base([found], start, base, _price_reader(ctx, "close", set())),
        calendars={found.id: exchange_calendar(found)},
    )


def ohlc_rows(
    ctx: InterfaceContext,
    entity: Entity,
    start: date | None,
    end: date | None,
    freq: PriceFreq,
    fetch_from: date | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Rows of one entity with open/high/low/close (and their sources); an error naming the years
    that have them.

    `fetch_from` (before `start`) reads extra history for indicator warm-up; messages and the
    coverage note speak of the window the user asked for.
    """
    tidy = price_table(ctx, [entity.id], fetch_from or start, end, freq)
    if tidy.empty:
        raise no_data([entity], start, end)
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
    return complete, record_sources(ctx, tidy)


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
    base: BaseArg = "before",
) -> pd.DataFrame:
    """Values of macro, commodity or factor series over time, one column per id, in each series'
    unit (catalog); the value changes start from is in `attrs["base"]`.

    Series whose values are returns in % (Fama–French factors) come with `attrs["measure"]` =
    "returns" (when all of them are): they are compounded, never treated as levels, also when
    resampled beside level series.
    """
    entities = check_entities(ctx, ids, SERIES_KINDS, start=start, end=end)
    # Everything the frame depends on besides the warehouse's contents (see `_prices`).
    key = (
        "interfaces.series",
        tuple((e.id, e.name, e.frequency, e.first, e.last, e.units, e.measure) for e in entities),
        start,
        end,
        freq,
        base,
    )
    wide = ctx.warehouse.derived(
        key, lambda: _computed_series(ctx, entities, start, end, freq, base)
    )
    if freq is not None:
        _note_coarser(ctx, entities, freq)
    missing = [e for e in entities if e.id not in wide.columns]
    if missing:
        ctx.notes.append(
            "No values in the window for "
            + "; ".join(f"{e.id} (data {data_span(e)})" for e in missing)
            + "."
        )
    if len({e.measure for e in entities if e.id in wide.columns}) > 1:
        ctx.notes.append(
            "Some of these series are returns in % and some are levels: returns computed on them "
            "together mix the two; ask for them separately."
        )
    record_sources(ctx, wide)
    return wide


def _computed_series(
    ctx: InterfaceContext,
    entities: list[Entity],
    start: date | None,
    end: date | None,
    freq: Literal["monthly", "quarterly", "annual"] | None,
    base: BaseRule,
) -> pd.DataFrame:
    """`get_series`' frame from the warehouse alone: it changes nothing in `ctx`."""
    ordered = [e.id for e in entities]
    tidy = ctx.warehouse.series(ordered, start, end)
    if tidy.empty:
        raise no_data(entities, start, end)
    sources = sorted(tidy.attrs.get("sources", []))
    tidy = tidy.assign(date=pd.to_datetime(tidy["date"]))
    wide = _wide(tidy, ordered, "value").dropna(how="all")
    returns = {e.measure for e in entities if e.id in wide.columns} == {"returns"}
    if freq is not None:
        # Returns compound within each period (the last month's return is not the year's);
        # levels keep the period's last value. Each series by its own measure.
        compounding = [e.id for e in entities if e.id in wide.columns and e.measure == "returns"]
        levels = [column for column in wide.columns if column not in compounding]
        parts = []
        if compounding:
            parts.append((resample_frame(1 + wide[compounding] / 100, freq, "prod") - 1) * 100)
        if levels:
            parts.append(resample_frame(wide[levels], freq, "last"))
        wide = pd.concat(parts, axis=1)[list(wide.columns)]
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
        base=read_base(present, start, base, _series_reader(ctx)),
        measure="returns" if returns else None,
    )


_FINENESS = {"annual": 1, "quarterly": 2, "monthly": 3, "weekly": 4, "daily": 5}
_FREQ_ZH = {"annual": "年度", "quarterly": "季度", "monthly": "月度", "weekly": "周", "daily": "日"}


def _note_coarser(ctx: InterfaceContext, entities: list[Entity], freq: str) -> None:
    """Say when a series is published less often than asked (monthly CPI from a quarterly
    series): its own periods are shown, never presented as the ones asked for."""
    for entity in entities:
        if _FINENESS.get(entity.frequency, 5) >= _FINENESS[freq]:
            continue
        ctx.notes.append(
            say(
                ctx,
                f"{entity.name} is {entity.frequency} in the data, so its {entity.frequency} "
                f"values are shown, not {freq} ones.",
                f"{chinese_name(entity)}在数据中是{_FREQ_ZH[entity.frequency]}数据，因此显示的是"
                f"{_FREQ_ZH[entity.frequency]}值，而不是{_FREQ_ZH[freq]}值。",
            )
        )


def _series_reader(ctx: InterfaceContext) -> Reader:
    def read(ids: list[str], lower: date | None, upper: date) -> pd.DataFrame:
        tidy = ctx.warehouse.series(ids, lower, upper)
        if tidy.empty:
            return pd.DataFrame()
        return tidy.pivot(index="date", columns="id", values="value")

    return read
