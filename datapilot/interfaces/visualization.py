"""Visualization interfaces: frames in, neutral chart specs and tables out (see `core.outputs`).

Specs carry small tables with ISO date strings and rounded numbers; `render.charts` renders them to
Plotly JSON and PNG. Long daily histories are thinned to weekly/monthly points so charts stay
readable and answers small; each such change is recorded in `ctx.notes`.
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import pandas as pd

from datapilot.core.intent import ChartType
from datapilot.core.outputs import (
    ChartOutput,
    ChartSpec,
    FitLine,
    Mark,
    Panel,
    TableOutput,
)
from datapilot.data.display import cell_word, column_headers
from datapilot.data.phrases_zh import chinese_name, title_zh, unit_zh
from datapilot.interfaces.cells import frame_rows, plain, table_cell
from datapilot.interfaces.chart_text import (
    candle_colors,
    chinese_title,
    fit_title,
    legend_names,
    say,
    word,
)
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
from datapilot.interfaces.periods import period_label
from datapilot.interfaces.registry import Frame, InterfaceError, interface
from datapilot.interfaces.table_words import chinese_column, named_cell, said_column

__all__ = ["plain", "table_cell"]  # cell helpers, kept importable from here
MAX_LINE_POINTS = 3000
_ZH_FREQ = {"weekly": "每周", "monthly": "每月", "quarterly": "每季度"}
MAX_CANDLES = 400
_HISTORY_SHOWN = {"daily": 252, "weekly": 104, "monthly": 60, "quarterly": 40, "annual": 20}


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
                say(
                    ctx,
                    f"Drew {freq} points ({len(thinner)} of {len(frame)} rows) so the chart "
                    "stays readable.",
                    f"图中画的是{_ZH_FREQ[freq]}数据点（{len(frame)}行中的{len(thinner)}个），"
                    "以便看清。",
                )
            )
            thinner.attrs = frame.attrs
            return thinner
    return frame


def _chart(
    ctx: InterfaceContext,
    chart_type: ChartType,
    title: str,
    frame: pd.DataFrame,
    panels: list[Panel],
    **spec: Any,
) -> ChartOutput:
    """The chart spec, its title short enough to show whole (names it drops go to the legend)."""
    columns, rows = frame_rows(frame)
    x = spec.pop("x", columns[0])
    dated = isinstance(frame.index, pd.DatetimeIndex)
    x_title = spec.pop("x_title", word(ctx, "date") if dated else None)
    drawn = [c for p in panels if p.mark not in ("candlestick", "pie") for c in p.y]
    if ctx.language == "zh":
        title = chinese_title(title, frame)
    title, labels = fit_title(ctx, title, list(dict.fromkeys(drawn)))
    if ctx.language == "zh":
        # Axis titles in the question's language, beside 日期: 复权收盘价 (美元), not
        # "Close (adjusted) (USD)"; a series titled by its name gets its Chinese name.
        catalog = ctx.catalog
        drawn_entities = [e for c in dict.fromkeys(drawn) if catalog and (e := catalog.get(c))]
        by_name = {e.name: chinese_name(e) for e in drawn_entities}
        client = any(str(s).startswith("client table:") for s in frame.attrs.get("sources", []))
        panels = [
            p.model_copy(
                update={
                    "title": _column_axis(p)
                    if client
                    else (title_zh(p.title, by_name) if p.title else p.title),
                    "unit": unit_zh(p.unit) if p.unit else p.unit,
                }
            )
            for p in panels
        ]
    if ctx.language == "zh":
        labels = legend_names(panels, spec.get("bands", [])) | labels
    if labels:
        # The first panel also names the band's columns, which the band is drawn on.
        banded = [c for pair in spec.get("bands", []) for c in pair]
        panels = [
            p.model_copy(
                update={
                    "labels": p.labels
                    | {c: labels[c] for c in [*p.y, *(banded if n == 0 else [])] if c in labels}
                }
            )
            for n, p in enumerate(panels)
        ]
    up, down = candle_colors(ctx)
    return ChartOutput(
        chart_type=chart_type,
        title=title,
        spec=ChartSpec(
            x=x,
            x_title=x_title,
            columns=columns,
            rows=rows,
            panels=panels,
            up_color=up,
            down_color=down,
            **spec,
        ),
    )


def _one_value(ctx: InterfaceContext, values: pd.DataFrame, title: str) -> TableOutput | None:
    """A table when there is a single value (or a single date) to show: a chart of one point
    or one bar says less than the number itself."""
    shown = values.dropna(how="all").dropna(axis=1, how="all")
    single = shown.size == 1 or (isinstance(shown.index, pd.DatetimeIndex) and len(shown) == 1)
    if not single:
        return None
    ctx.notes.append(
        say(
            ctx,
            f"{title!r} is a single value, so it is shown as a table, not a chart.",
            f"《{title}》只有一个数值，因此以表格而不是图表显示。",
        )
    )
    return show_table(ctx, values.loc[shown.index, shown.columns], title)


def _column_axis(panel: Panel) -> str | None:
    """A chart of the user's table titles its axis by its columns in Chinese (收盘价, not the
    table's name "prices")."""
    said = [chinese_column(c) for c in panel.y]
    if said != panel.y:
        return "、".join(said)
    return chinese_column(panel.title) if panel.title else panel.title


def _series_chart(
    ctx: InterfaceContext,
    frame: pd.DataFrame,
    title: str,
    mark: Mark,
    chart_type: ChartType,
    y_title: str | None,
    log_y: bool = False,
) -> ChartOutput | TableOutput:
    require_timeseries(frame)
    values = values_of(frame)
    single = _one_value(ctx, values, title)
    if single is not None:
        return single
    values = _thin(ctx, values.dropna(how="all"), MAX_LINE_POINTS)
    if log_y and not (values.stack() > 0).all():
        log_y = False
        ctx.notes.append(
            say(
                ctx,
                "A log scale needs positive values and this chart has values at or below zero "
                "(returns or changes), so its axis is linear; ask for prices or levels on a log "
                "scale.",
                "对数坐标需要正值，而此图有小于或等于零的值（收益率或变化），因此使用线性坐标；"
                "价格或点位可用对数坐标。",
            )
        )
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
            log_y=log_y,
        )
        for unit, columns in groups.items()
    ]
    return _chart(ctx, chart_type, title, values, panels)


# --- charts ------------------------------------------------------------------------------------


@interface("visualization", "chart")
def plot_line(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series; one line per numeric column."],
    title: Annotated[str, "Chart title naming what and when, e.g. 'AAPL close, 2021'."],
    y_title: Annotated[str | None, "Y axis label; default = the frame's title and unit."] = None,
    log_y: Annotated[bool, "A logarithmic y axis (positive values: prices, levels)."] = False,
) -> ChartOutput | TableOutput:
    """Line chart of a time series, one line per column (prices, cumulative returns, series);
    series of different frequencies each draw on their own dates. A single value is shown as a
    table instead."""
    return _series_chart(ctx, frame, title, "line", "line", y_title, log_y)


@interface("visualization", "chart")
def plot_area(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series, e.g. a drawdown."],
    title: str,
) -> ChartOutput | TableOutput:
    """Filled area chart of a time series (suits drawdowns and shares of a total)."""
    return _series_chart(ctx, frame, title, "area", "area", None)


def _value_column(frame: pd.DataFrame, column: str | None) -> str:
    if column is not None:
        return require_column(frame, column)
    if "return_pct" in frame.columns:
        return "return_pct"
    return str(numeric(frame).columns[0])


def _document_table(frame: pd.DataFrame) -> bool:
    """A client table (a widget's or a document's) of a few numeric columns in one unit: a bar
    chart of it shows every column, as the table does."""
    units = set((frame.attrs.get("units") or {}).values())
    return (
        any(str(s).startswith("client table:") for s in frame.attrs.get("sources", []))
        and "return_pct" not in frame.columns
        and 1 < numeric(frame).shape[1] <= 8
        and len(units) <= 1
    )


@interface("visualization", "chart")
def plot_bar(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section (one bar per row) or a short time series."],
    title: str,
    column: Annotated[
        str | None, "The value column; default return_pct or the first number."
    ] = None,
) -> ChartOutput | TableOutput:
    """Bar chart: one bar per row of a cross-section (e.g. returns by entity), or bars per date for
    a short time series. A single value is shown as a table instead."""
    if isinstance(frame.index, pd.DatetimeIndex) and column is None:
        values = _thin(ctx, numeric(frame), 400)
        y = [str(c) for c in values.columns]
        unit = unit_of(frame)
    elif column is None and _document_table(frame):
        values = numeric(frame)
        y, unit = [str(c) for c in values.columns], unit_of(frame)
    else:
        name = _value_column(frame, column)
        values = frame[[name]].apply(pd.to_numeric, errors="coerce")
        y, unit = [name], _unit_for(frame, name)
    if values.dropna(how="all").empty:
        raise InterfaceError("Nothing to draw: the frame holds no numbers.")
    single = _one_value(ctx, values, title)
    if single is not None:
        return single
    label = title_of(frame) if len(y) > 1 or y[0] in {"return_pct", "mean", "median"} else y[0]
    panel = Panel(mark="bar", y=y, title=label or None, unit=unit or None)
    x_title = word(ctx, "date" if isinstance(frame.index, pd.DatetimeIndex) else "entity")
    if _document_table(frame) and frame.index.name:
        x_title = str(frame.index.name)  # the table's own heading of its rows (Segment, Year)
    return _chart(ctx, "bar", title, values, [panel], x_title=x_title)


@interface("visualization", "chart")
def plot_pie(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section of non-negative values (one slice per row)."],
    title: str,
    column: Annotated[str | None, "The value column; default the first numeric one."] = None,
    donut: Annotated[bool, "Draw a donut (a ring) instead of a full pie."] = False,
) -> ChartOutput | TableOutput:
    """Pie (or donut) chart of shares of a total, one slice per row. A time series gives one
    slice per column: its total over the window when the values add up (volume), else its latest
    value."""
    if isinstance(frame.index, pd.DatetimeIndex) and column is None:
        frame = _slices(frame)
    name = _value_column(frame, column)
    values = frame[[name]].apply(pd.to_numeric, errors="coerce").dropna()
    if values.empty or (values[name] < 0).any():
        raise InterfaceError(
            f"A pie chart needs non-negative values; {name} has negative or no values. "
            "Use plot_bar instead."
        )
    if len(values) < 2:
        return show_table(ctx, values, title)
    panel = Panel(mark="pie", y=[name], title=name, unit=_unit_for(frame, name) or None)
    return _chart(ctx, "pie", title, values, [panel], x_title=None, hole=0.45 if donut else 0.0)


def _slices(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per column of a time series: totals of volumes, else each column's last value."""
    values = numeric(frame)
    additive = frame.attrs.get("field") == "volume" or unit_of(frame) == "shares"
    how = "total" if additive else "latest"
    shares = values.sum() if additive else values.ffill().iloc[-1]
    table = shares.to_frame(how)
    table.index.name = "id"
    table.attrs = {**frame.attrs, "kind": "cross_section", "units": {how: unit_of(frame)}}
    return table


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
    columns, rows = frame_rows(pair)
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
            title=word(ctx, "price"),
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
            panels.append(Panel(mark="bar", y=["volume"], title=word(ctx, "volume"), unit="shares"))
        else:
            ctx.notes.append(
                say(
                    ctx,
                    "No trading volume in this data, so the chart has no volume panel.",
                    "该数据没有成交量，因此图中没有成交量面板。",
                )
            )
    return _chart(ctx, "candlestick", title, table, panels + below)


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
                say(
                    ctx,
                    f"Drew {freq} candles ({len(coarser)}) instead of {len(candles)} daily ones so "
                    "the chart stays readable; indicators show their value on each candle's last "
                    "day.",
                    f"为便于阅读，画的是{len(coarser)}根{'周' if freq == 'weekly' else '月'}K线，"
                    f"而不是{len(candles)}根日K线；指标取每根K线最后一天的值。",
                )
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
    chart = _chart(ctx, "line", title, table, [panel], bands=[("lower", "upper")] if band else [])
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
    if ctx.language == "zh":
        title = chinese_title(title, frame)
    shown = frame
    if len(frame) > max_rows:
        is_series = isinstance(frame.index, pd.DatetimeIndex)
        shown = frame.tail(max_rows) if is_series else frame.head(max_rows)
        which = "latest" if is_series else "first"
        ctx.notes.append(
            say(
                ctx,
                f"The table {title!r} shows the {which} {max_rows} of {len(frame)} rows.",
                f"表格“{title}”只列出{len(frame)}行中{'最新' if is_series else '最前'}的"
                f"{max_rows}行。",
            )
        )
    period = str(frame.attrs.get("period") or "")
    if (
        period in ("monthly", "quarterly", "annual")
        and isinstance(shown.index, pd.DatetimeIndex)
        and "period" not in shown.columns
    ):
        # A month's (quarter's, year's) return is dated by its last session; named by the
        # period too, as the question named it ("each quarter of 2018": 2018Q2).
        shown = shown.copy()
        shown.insert(0, "period", [period_label(day, period) for day in shown.index])
    columns, rows = frame_rows(shown, cell=table_cell)
    units = {
        str(c): _unit_for(frame, str(c))
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c])
        and _unit_for(frame, str(c))
        and c not in {"rank", "count"}
    }
    zh = ctx.language == "zh"
    headers = column_headers(columns, units, zh)
    rows = [
        [cell_word(cell, zh, column) for cell, column in zip(row, columns, strict=True)]
        for row in rows
    ]
    if zh:
        # Columns in Chinese too: the user's own as headers, and where a cell names a column.
        headers = [said_column(h) if h == c else h for h, c in zip(headers, columns, strict=True)]
        rows = [[named_cell(v, c) for v, c in zip(r, columns, strict=True)] for r in rows]
    return TableOutput(title=title, columns=columns, rows=rows, units=units, headers=headers)
