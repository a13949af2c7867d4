"""Visualization interfaces: frames in, neutral chart specs and tables out (see `core.outputs`).

Specs carry small tables with ISO date strings and rounded numbers; `render.charts` renders them to
Plotly JSON and PNG. Long daily histories are thinned to weekly/monthly points so charts stay
readable and answers small; each such change is recorded in `ctx.notes`.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Annotated, Any

import numpy as np
import pandas as pd

from datapilot.core.intent import ChartType
from datapilot.core.outputs import ChartOutput, ChartSpec, FitLine, Mark, Panel, TableOutput
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import (
    OHLCV_COLUMNS,
    infer_freq,
    numeric,
    require_column,
    require_timeseries,
    resample_frame,
    title_of,
    unit_of,
    values_of,
)
from datapilot.interfaces.registry import Frame, InterfaceError, interface

MAX_LINE_POINTS = 3000
MAX_CANDLES = 400
_HISTORY_SHOWN = {"daily": 252, "weekly": 104, "monthly": 60, "quarterly": 40, "annual": 20}


# --- values ------------------------------------------------------------------------------------


def plain(value: Any, digits: int | None = 6) -> Any:
    """A JSON-able cell: ISO dates, None for missing, numbers rounded to `digits` significant."""
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, pd.Timestamp | datetime):
        stamp = pd.Timestamp(value)
        return stamp.date().isoformat() if stamp == stamp.normalize() else stamp.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer | int):
        return int(value)
    if isinstance(value, np.floating | float):
        number = float(value)
        if not math.isfinite(number):
            return None
        return _round(number, digits) if digits else number
    return str(value) if not isinstance(value, str) else value


def _round(number: float, digits: int) -> float:
    if number == 0:
        return 0.0
    return round(number, max(digits - 1 - math.floor(math.log10(abs(number))), 0))


def table_cell(value: Any) -> Any:
    """Table cells: two decimals from 1 up, four significant digits below 1 (0.8734, 0.0012)."""
    cell = plain(value, digits=None)
    if isinstance(cell, float) and not isinstance(value, bool):
        return round(cell, 2) if abs(cell) >= 1 else _round(cell, 4)
    return cell


def _index_label(frame: pd.DataFrame) -> str:
    if frame.index.name:
        return str(frame.index.name)
    return "date" if isinstance(frame.index, pd.DatetimeIndex) else "id"


def _rows(frame: pd.DataFrame, cell: Any = plain) -> tuple[list[str], list[list[Any]]]:
    """Columns (index first) and rows of `frame` as JSON-able cells."""
    label = _index_label(frame)
    columns = [label, *map(str, frame.columns)]
    rows = [
        [cell(index), *(cell(v) for v in values)]
        for index, values in zip(frame.index, frame.itertuples(index=False, name=None), strict=True)
    ]
    return columns, rows


def _unit_for(frame: pd.DataFrame, column: str) -> str:
    units = frame.attrs.get("units") or {}
    return str(units.get(column, unit_of(frame)) or "")


def _axis_title(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit and unit not in label else label


def _thin(ctx: InterfaceContext, frame: pd.DataFrame, limit: int) -> pd.DataFrame:
    """Fewer rows for drawing: weekly, then monthly points when a daily history is very long."""
    if len(frame) <= limit or not isinstance(frame.index, pd.DatetimeIndex):
        return frame
    for freq in ("weekly", "monthly", "quarterly"):
        thinner = resample_frame(frame, freq, "last")
        if len(thinner) <= limit:
            ctx.notes.append(
                f"Drew {freq} points ({len(thinner)} of {len(frame)} rows) so the chart stays "
                "readable."
            )
            thinner.attrs = frame.attrs
            return thinner
    return frame


def _chart(
    chart_type: ChartType,
    title: str,
    frame: pd.DataFrame,
    panels: list[Panel],
    **spec: Any,
) -> ChartOutput:
    columns, rows = _rows(frame)
    x = spec.pop("x", columns[0])
    x_title = spec.pop("x_title", "Date" if isinstance(frame.index, pd.DatetimeIndex) else None)
    return ChartOutput(
        chart_type=chart_type,
        title=title,
        spec=ChartSpec(x=x, x_title=x_title, columns=columns, rows=rows, panels=panels, **spec),
    )


def _series_chart(
    ctx: InterfaceContext,
    frame: pd.DataFrame,
    title: str,
    mark: Mark,
    chart_type: ChartType,
    y_title: str | None,
) -> ChartOutput:
    require_timeseries(frame)
    values = values_of(frame)
    values = _thin(ctx, values.dropna(how="all"), MAX_LINE_POINTS)
    groups: dict[str, list[str]] = {}
    for column in map(str, values.columns):
        groups.setdefault(_unit_for(frame, column), []).append(column)
    # Columns in different units (a rate and a level, USD and index points) get their own
    # stacked panels rather than sharing one misleading axis.
    panels = [
        Panel(
            mark=mark,
            y=columns,
            title=(y_title or title_of(frame) or None) if len(groups) == 1 else ", ".join(columns),
            unit=unit or None,
            levels=list(frame.attrs.get("levels", [])),
        )
        for unit, columns in groups.items()
    ]
    return _chart(chart_type, title, values, panels)


# --- charts ------------------------------------------------------------------------------------


@interface("visualization", "chart")
def plot_line(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series; one line per numeric column."],
    title: Annotated[str, "Chart title naming what and when, e.g. 'AAPL close, 2021'."],
    y_title: Annotated[str | None, "Y axis label; default = the frame's title and unit."] = None,
) -> ChartOutput:
    """Line chart of a time series, one line per column (prices, cumulative returns, series)."""
    return _series_chart(ctx, frame, title, "line", "line", y_title)


@interface("visualization", "chart")
def plot_area(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series, e.g. a drawdown."],
    title: str,
) -> ChartOutput:
    """Filled area chart of a time series (suits drawdowns and shares of a total)."""
    return _series_chart(ctx, frame, title, "area", "area", None)


def _value_column(frame: pd.DataFrame, column: str | None) -> str:
    if column is not None:
        return require_column(frame, column)
    if "return_pct" in frame.columns:
        return "return_pct"
    return str(numeric(frame).columns[0])


@interface("visualization", "chart")
def plot_bar(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section (one bar per row) or a short time series."],
    title: str,
    column: Annotated[
        str | None, "The value column; default return_pct or the first number."
    ] = None,
) -> ChartOutput:
    """Bar chart: one bar per row of a cross-section (e.g. returns by entity), or bars per date for
    a short time series."""
    if isinstance(frame.index, pd.DatetimeIndex) and column is None:
        values = _thin(ctx, numeric(frame), 400)
        y = [str(c) for c in values.columns]
        unit = unit_of(frame)
    else:
        name = _value_column(frame, column)
        values = frame[[name]].apply(pd.to_numeric, errors="coerce")
        y, unit = [name], _unit_for(frame, name)
    if values.dropna(how="all").empty:
        raise InterfaceError("Nothing to draw: the frame holds no numbers.")
    label = title_of(frame) if len(y) > 1 or y[0] in {"return_pct", "mean", "median"} else y[0]
    panel = Panel(mark="bar", y=y, title=label or None, unit=unit or None)
    x_title = "Date" if isinstance(frame.index, pd.DatetimeIndex) else "Entity"
    return _chart("bar", title, values, [panel], x_title=x_title)


@interface("visualization", "chart")
def plot_pie(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section of non-negative values (one slice per row)."],
    title: str,
    column: Annotated[str | None, "The value column; default the first numeric one."] = None,
) -> ChartOutput:
    """Pie chart of shares of a total, one slice per row."""
    name = _value_column(frame, column)
    values = frame[[name]].apply(pd.to_numeric, errors="coerce").dropna()
    if values.empty or (values[name] < 0).any():
        raise InterfaceError(
            f"A pie chart needs non-negative values; {name} has negative or no values. "
            "Use plot_bar instead."
        )
    panel = Panel(mark="pie", y=[name], title=name, unit=_unit_for(frame, name) or None)
    return _chart("pie", title, values, [panel], x_title=None)


@interface("visualization", "chart")
def plot_scatter(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Two numeric columns, e.g. daily returns of two entities."],
    title: str,
    x: Annotated[str | None, "Column on the x axis; default the first numeric column."] = None,
    y: Annotated[str | None, "Column on the y axis; default the second numeric column."] = None,
    fit: Annotated[bool, "Add the least-squares line y = a·x + b with its r²."] = True,
) -> ChartOutput:
    """Scatter plot of one column against another, with a least-squares fit line and r² (e.g.
    returns of a stock vs the index)."""
    values = numeric(frame)
    if values.shape[1] < 2 and (x is None or y is None):
        raise InterfaceError("A scatter plot needs two numeric columns (e.g. two entities).")
    x_name = require_column(values, x) if x else str(values.columns[0])
    y_name = (
        require_column(values, y) if y else next(c for c in map(str, values.columns) if c != x_name)
    )
    pair = values[[x_name, y_name]].dropna()
    if len(pair) < 3:
        raise InterfaceError(f"Only {len(pair)} rows have both {x_name} and {y_name}; need 3.")
    line = None
    if fit:
        slope, intercept = np.polyfit(pair[x_name], pair[y_name], 1)
        r = np.corrcoef(pair[x_name], pair[y_name])[0, 1]
        line = FitLine(slope=float(slope), intercept=float(intercept), r2=float(r**2))
    unit = unit_of(frame)
    panel = Panel(mark="scatter", y=[y_name], title=_axis_title(y_name, unit), unit=unit or None)
    columns, rows = _rows(pair)
    return ChartOutput(
        chart_type="scatter",
        title=title,
        spec=ChartSpec(
            x=x_name,
            x_title=_axis_title(x_name, unit),
            columns=columns,
            rows=rows,
            panels=[panel],
            fit=line,
        ),
    )


@interface("visualization", "chart")
def plot_candlestick(
    ctx: InterfaceContext,
    ohlcv: Annotated[Frame, "Result of get_ohlcv (open/high/low/close/volume)."],
    title: str,
    indicators: Annotated[
        list[Frame],
        "Indicator results (get_ma, get_boll, get_macd, get_rsi, get_kdj, get_cci) for the same "
        "entity; MA/EMA/BOLL are drawn over the candles, the others in panels below.",
    ] = [],  # noqa: B006
    volume: Annotated[bool, "Show a volume panel under the candles."] = True,
) -> ChartOutput:
    """K-line (candlestick) chart with optional volume bars and indicator panels below (MACD lines
    and histogram, RSI, KDJ, CCI)."""
    require_timeseries(ohlcv, "OHLCV data")
    missing = [c for c in ("open", "high", "low", "close") if c not in ohlcv.columns]
    if missing:
        raise InterfaceError(
            f"A candlestick chart needs open/high/low/close; the frame lacks {', '.join(missing)}. "
            "Fetch it with get_ohlcv."
        )
    candles = ohlcv[[c for c in OHLCV_COLUMNS if c in ohlcv.columns]].dropna(
        subset=["open", "high", "low", "close"]
    )
    candles.attrs = {**ohlcv.attrs, "kind": "ohlcv"}
    candles = _fewer_candles(ctx, candles)
    unit = unit_of(ohlcv) or None
    panels = [
        Panel(
            mark="candlestick",
            y=["open", "high", "low", "close"],
            title="Price",
            unit=unit,
            height=3,
        )
    ]
    table = candles[["open", "high", "low", "close"]].copy()
    below: list[Panel] = []
    for frame in indicators:
        require_timeseries(frame, "indicator")
        shown = numeric(frame).reindex(table.index)
        rename = {c: _free_name(str(c), table.columns) for c in shown.columns}
        shown = shown.rename(columns=rename)
        overlay = bool(frame.attrs.get("overlay"))
        columns = [c for c in shown.columns if not (overlay and c.startswith("close"))]
        columns = [c for c in columns if shown[c].notna().any()]
        if not columns:
            continue
        table = table.join(shown[columns])
        if overlay:
            panels.append(Panel(mark="line", y=columns, overlay=True, unit=unit))
            continue
        bars = [rename[b] for b in frame.attrs.get("bar_columns", []) if rename.get(b) in columns]
        lines = [c for c in columns if c not in bars]
        label = title_of(frame).split(" of ")[0] or None
        indicator_unit = unit_of(frame) or None
        below.append(
            Panel(
                mark="line" if lines else "bar",
                y=lines or bars,
                title=label,
                unit=indicator_unit,
                height=1.2,
                levels=list(frame.attrs.get("levels", [])),
            )
        )
        if lines and bars:
            below.append(Panel(mark="bar", y=bars, overlay=True, unit=indicator_unit))
    if volume:
        if "volume" in candles.columns and candles["volume"].fillna(0).gt(0).any():
            table = table.join(candles[["volume"]])
            panels.append(Panel(mark="bar", y=["volume"], title="Volume", unit="shares"))
        else:
            ctx.notes.append("No trading volume in this data, so the chart has no volume panel.")
    return _chart("candlestick", title, table, panels + below)


def _free_name(name: str, taken: pd.Index) -> str:
    candidate, number = name, 2
    while candidate in taken or candidate in OHLCV_COLUMNS:
        candidate, number = f"{name}_{number}", number + 1
    return candidate


def _fewer_candles(ctx: InterfaceContext, candles: pd.DataFrame) -> pd.DataFrame:
    """Weekly or monthly candles when daily ones would be too thin to read."""
    if len(candles) <= MAX_CANDLES:
        return candles
    for freq in ("weekly", "monthly"):
        coarser = resample_frame(candles, freq)
        if len(coarser) <= MAX_CANDLES or freq == "monthly":
            ctx.notes.append(
                f"Drew {freq} candles ({len(coarser)}) instead of {len(candles)} daily ones so the "
                "chart stays readable; indicators show their value on each candle's last day."
            )
            coarser.attrs = candles.attrs
            return coarser
    return candles


@interface("visualization", "chart")
def plot_forecast(
    ctx: InterfaceContext,
    history: Annotated[Frame, "The series the forecast was fit on."],
    forecast: Annotated[Frame, "Result of a forecast_* interface (forecast, lower, upper)."],
    title: str,
) -> ChartOutput:
    """Line chart of recent history continued by the forecast, with the prediction interval as a
    shaded band."""
    require_timeseries(history, "history")
    require_timeseries(forecast, "forecast")
    if "forecast" not in forecast.columns:
        raise InterfaceError("The second frame is not a forecast; pass a forecast_* result.")
    values = values_of(history, "history")
    entity = str(forecast.attrs.get("entity", ""))
    name = entity if entity in values.columns else str(values.columns[0])
    past = values[[name]].dropna()
    volatility = str(forecast.attrs.get("model", "")).startswith("GARCH")
    if volatility:
        past = _realised_volatility(past).rename(columns={name: f"{name} realised (21-day)"})
        name = str(past.columns[0])
    shown = max(4 * len(forecast), _HISTORY_SHOWN[infer_freq(past.index)])
    past = past.iloc[-shown:]
    band = [c for c in ("lower", "upper") if c in forecast.columns]
    future = forecast[["forecast", *band]]
    if not volatility:
        # Start the forecast line (and band) at the last observation so the two lines join.
        last = past[name].iloc[-1]
        joint = pd.DataFrame({c: [last] for c in future.columns}, index=past.index[-1:])
        future = pd.concat([joint, future])
    table = past.join(future, how="outer")
    table.index.name = "date"
    unit = unit_of(forecast) or unit_of(history)
    panel = Panel(
        mark="line",
        y=[name, "forecast"],
        title="Annualised volatility" if volatility else title_of(history) or None,
        unit=unit or None,
    )
    chart = _chart("line", title, table, [panel], bands=[("lower", "upper")] if band else [])
    return chart


def _realised_volatility(returns_or_prices: pd.DataFrame) -> pd.DataFrame:
    """Annualised 21-day realised volatility in % so a GARCH forecast has a comparable history."""
    column = returns_or_prices.columns[0]
    series = returns_or_prices[column]
    changes = series.pct_change(fill_method=None) * 100 if (series > 0).all() else series
    return (changes.rolling(21).std() * np.sqrt(252)).dropna().to_frame(column)


# --- tables ------------------------------------------------------------------------------------


@interface("visualization", "table")
def show_table(
    ctx: InterfaceContext,
    frame: Frame,
    title: Annotated[str, "Table title naming what and when."],
    max_rows: Annotated[int, "Rows shown at most (the latest for time series)."] = 500,
) -> TableOutput:
    """Show (print/save) a frame as a table: index as the first column, dates ISO, numbers rounded;
    exports to CSV."""
    if not isinstance(frame, pd.DataFrame):
        raise InterfaceError("show_table needs a table of data.")
    if max_rows < 1:
        raise InterfaceError("max_rows must be at least 1.")
    shown = frame
    if len(frame) > max_rows:
        is_series = isinstance(frame.index, pd.DatetimeIndex)
        shown = frame.tail(max_rows) if is_series else frame.head(max_rows)
        which = "latest" if is_series else "first"
        ctx.notes.append(f"The table {title!r} shows the {which} {max_rows} of {len(frame)} rows.")
    columns, rows = _rows(shown, cell=table_cell)
    units = {
        str(c): _unit_for(frame, str(c))
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c])
        and _unit_for(frame, str(c))
        and c not in {"rank", "count"}
    }
    return TableOutput(title=title, columns=columns, rows=rows, units=units)
