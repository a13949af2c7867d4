"""A chart spec as a Plotly figure dict: traces built and encoded by Plotly, the layout as data.

Plotly validates every layout update through its property tree (`make_subplots`,
`update_layout`, `update_xaxes`, `add_hline`), which cost most of a chart's time. The layout of a
stacked chart is plain data: the grid of axes comes from `make_subplots` once per shape of grid
(cached), and the titles, axis types, reference lines and legend are written into it directly,
as the same keys and values Plotly's own updates produce. The traces still go through Plotly
(validation, typed-array encoding), so `data` is exactly what a Plotly figure holds.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pandas as pd

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel
from datapilot.data.text import is_chinese
from datapilot.render.charts import (
    BAND_COLOR,
    FIT_COLOR,
    PLOTLY_TITLE_WIDTH,
    _axis_label,
    _band_labels,
    _bar_colors,
    _bar_labels,
    _colors,
    _data,
    _fit_label,
    _is_daily,
    _is_dates,
    _label,
    _points,
    _rows,
    _wrapped,
)

# Figures are built with an empty template and get the `plotly_white` one as JSON at the end:
# plotly validates and deep-copies a named template into every figure (and the default one into
# every new figure), which took more than half of the time of building a chart.
_NO_TEMPLATE: dict[str, Any] = {}
TEMPLATE = "plotly_white"
_LEVEL_LINE = {"color": "grey", "dash": "dot"}
# Date ticks of a Chinese chart, by the spacing of the ticks (ms, or months as "M1"), in the
# d3 time format Plotly reads: days, then months, then years.
CHINESE_DATE_TICKS = [
    {"dtickrange": [None, "M1"], "value": "%-m月%-d日<br>%Y年"},
    {"dtickrange": ["M1", "M12"], "value": "%Y年%-m月"},
    {"dtickrange": ["M12", None], "value": "%Y年"},
]

CHINESE_HOVER_DATE = "%Y年%-m月%-d日"


def plotly_figure(chart: ChartOutput) -> dict[str, Any]:
    """The chart as a Plotly figure (a JSON-able dict with `data` and `layout`)."""
    import plotly.graph_objects as go

    spec = chart.spec
    data = _data(spec)
    rows = _rows(spec)
    if rows[0].lead.mark == "pie":
        return _pie_figure(go, chart, spec, data)

    heights = [row.lead.height for row in rows]
    layout = _grid(tuple(h / sum(heights) for h in heights))
    x_axes = [_axis_name("xaxis", n) for n in range(1, len(rows) + 1)]
    labels = _bar_labels(spec, data)
    x = data[spec.x] if labels is None else labels
    if labels is not None:
        for axis in x_axes:
            layout[axis]["type"] = "category"
    traces: list[tuple[Any, int]] = []  # each trace and the row it is drawn on
    shapes: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=1):
        drawn = 0
        for panel in row.panels:
            for trace in _plotly_traces(go, panel, data, x, spec):
                traces.append((trace, number))
                drawn += 1
            if drawn:  # Plotly leaves out reference lines on a sub-plot without traces
                shapes.extend(_level(level, number) for level in panel.levels)
        y_axis = layout[_axis_name("yaxis", number)]
        y_axis["title"] = {"text": _axis_label(row.lead)}
        if row.lead.log_y:
            y_axis["type"] = "log"
        if number == 1:
            for lower, upper in spec.bands:
                names = _band_labels(chart, lower, upper)
                traces.extend((t, 1) for t in _plotly_band(go, data, x, lower, upper, names))
    if spec.fit is not None:
        traces.append((_plotly_fit(go, spec, data, is_chinese(chart.title)), 1))
    layout[x_axes[-1]]["title"] = {"text": spec.x_title or spec.x}
    daily_candles = rows[0].lead.mark == "candlestick" and _is_daily(x)
    chinese_dates = labels is None and is_chinese(chart.title) and _is_dates(x)
    for axis in x_axes:
        layout[axis]["rangeslider"] = {"visible": False}
        if chinese_dates:  # "2020年3月", not Plotly's English "Mar 2020"
            layout[axis]["tickformatstops"] = CHINESE_DATE_TICKS
            layout[axis]["hoverformat"] = CHINESE_HOVER_DATE  # not "Mar 16, 2020" in the hover
        if daily_candles:
            # Candles only exist on trading days; hide weekends instead of drawing empty gaps.
            layout[axis]["rangebreaks"] = [{"bounds": ["sat", "mon"]}]
    if shapes:
        layout["shapes"] = shapes
    title = _wrapped(chart.title, PLOTLY_TITLE_WIDTH, "<br>")
    layout.update(
        legend={"orientation": "h", "y": -0.15 if len(rows) == 1 else -0.05},
        title={"text": title},
        hovermode="x unified" if rows[0].lead.mark != "scatter" else "closest",
        height=420 + 160 * (len(rows) - 1) + 24 * title.count("<br>"),
        barmode="group",
    )
    out = _with_template(go.Figure(data=[t for t, _ in traces], layout_template=_NO_TEMPLATE))
    for encoded, (_, drawn_on) in zip(out["data"], traces, strict=True):
        encoded.update(_axis_refs(drawn_on))  # last, where `add_trace(row=, col=)` puts them
    # Keys in the order Plotly's own updates leave them, so the JSON is the same text too.
    out["layout"] = {"template": out["layout"]["template"], **layout}
    return out


def _pie_figure(go: Any, chart: ChartOutput, spec: ChartSpec, data: pd.DataFrame) -> dict[str, Any]:
    panel = spec.panels[0]
    figure = go.Figure(
        go.Pie(
            labels=data[spec.x],
            values=data[panel.y[0]],
            name=_label(panel, panel.y[0]),
            sort=False,
            hole=spec.hole or None,
        ),
        layout_template=_NO_TEMPLATE,
    )
    figure.update_layout(title=_wrapped(chart.title, PLOTLY_TITLE_WIDTH, "<br>"))
    return _with_template(figure)


def _axis_name(axis: str, row: int) -> str:
    return axis if row == 1 else f"{axis}{row}"


def _axis_refs(row: int) -> dict[str, str]:
    """What `add_trace(row=row, col=1)` sets on a trace of a one-column grid."""
    suffix = "" if row == 1 else str(row)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def _level(level: float, row: int) -> dict[str, Any]:
    """What `add_hline(y=level, line_dash="dot", line_color="grey", row=row, col=1)` adds."""
    refs = _axis_refs(row)
    return {
        "line": dict(_LEVEL_LINE),
        "type": "line",
        "x0": 0,
        "x1": 1,
        "xref": f"{refs['xaxis']} domain",
        "y0": level,
        "y1": level,
        "yref": refs["yaxis"],
    }


def _grid(row_heights: tuple[float, ...]) -> dict[str, Any]:
    """The axes `make_subplots` lays out for stacked rows sharing their x axis (a fresh copy)."""
    return copy.deepcopy(_grid_layout(row_heights))


@functools.lru_cache(maxsize=64)
def _grid_layout(row_heights: tuple[float, ...]) -> dict[str, Any]:
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    figure = make_subplots(
        rows=len(row_heights),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.03 if len(row_heights) > 1 else 0.0,
        row_heights=list(row_heights),
        figure=go.Figure(layout_template=_NO_TEMPLATE),
    )
    layout: dict[str, Any] = json.loads(figure.to_json())["layout"]
    layout.pop("template", None)
    return layout


@functools.cache
def _template_json() -> str:
    import plotly.graph_objects as go

    return json.dumps(
        json.loads(go.Figure(layout_template=TEMPLATE).to_json())["layout"]["template"]
    )


def _with_template(figure: Any) -> dict[str, Any]:
    """The figure as a JSON-able dict, with the chart template in its layout."""
    out: dict[str, Any] = json.loads(figure.to_json())
    out["layout"]["template"] = json.loads(_template_json())
    return out


def _plotly_traces(
    go: Any, panel: Panel, data: pd.DataFrame, x: pd.Series, spec: ChartSpec
) -> list[Any]:
    up, down = _colors(spec)
    if panel.mark == "candlestick":
        o, h, low, c = panel.y
        return [
            go.Candlestick(
                x=x,
                open=data[o],
                high=data[h],
                low=data[low],
                close=data[c],
                name=panel.title or "Price",
                increasing={"line": {"color": up}, "fillcolor": up},
                decreasing={"line": {"color": down}, "fillcolor": down},
            )
        ]
    traces = []
    for column in panel.y:
        y = data[column]
        name = _label(panel, column)
        if panel.mark in ("line", "area", "scatter"):
            xs, ys = _points(x, y)
        if panel.mark == "line":
            traces.append(go.Scatter(x=xs, y=ys, mode="lines", name=name))
        elif panel.mark == "area":
            traces.append(go.Scatter(x=xs, y=ys, mode="lines", fill="tozeroy", name=name))
        elif panel.mark == "scatter":
            traces.append(go.Scatter(x=xs, y=ys, mode="markers", name=name, opacity=0.6))
        elif panel.mark == "bar":
            colors = _bar_colors(panel, y, (up, down))
            traces.append(go.Bar(x=x, y=y, name=name, marker_color=colors))
        elif panel.mark == "band":
            continue
    if panel.mark == "band" and len(panel.y) == 2:
        lower, upper = panel.y
        names = (f"{_label(panel, lower)}–{_label(panel, upper)}", _label(panel, upper))
        traces.extend(_plotly_band(go, data, x, lower, upper, names if panel.labels else None))
    return traces


def _plotly_band(
    go: Any,
    data: pd.DataFrame,
    x: pd.Series,
    lower: str,
    upper: str,
    names: tuple[str, str] | None = None,
) -> list[Any]:
    """The band's two edges, filled between; `names`: its legend entry and its upper edge's."""
    label, upper_name = names or ("interval" if lower == "lower" else f"{lower}–{upper}", upper)
    return [
        go.Scatter(x=x, y=data[upper], mode="lines", line={"width": 0}, showlegend=False,
                   hoverinfo="skip", name=upper_name),
        go.Scatter(x=x, y=data[lower], mode="lines", line={"width": 0}, fill="tonexty",
                   fillcolor=BAND_COLOR, name=label),
    ]  # fmt: skip


def _plotly_fit(go: Any, spec: ChartSpec, data: pd.DataFrame, zh: bool = False) -> Any:
    fit = spec.fit
    assert fit is not None
    xs = pd.to_numeric(data[spec.x]).agg(["min", "max"]).to_numpy()
    return go.Scatter(
        x=xs,
        y=fit.slope * xs + fit.intercept,
        mode="lines",
        line={"color": FIT_COLOR},
        name=_fit_label(fit, zh),
    )
