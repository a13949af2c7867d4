"""Render a neutral `ChartOutput` spec to a Plotly figure (JSON dict) or a PNG file.

Panels stack top to bottom on a shared x axis; a panel with `overlay=True` draws on the axes of
the panel before it. Candlestick PNGs go through mplfinance (volume and indicator panels); every
other PNG is drawn with matplotlib's object API, so rendering is safe from worker threads.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel
from datapilot.data.text import display_width, is_chinese, wrap_display
from datapilot.render.fonts import font_families

UP, DOWN = "#26a69a", "#ef5350"
BAND_COLOR = "rgba(31, 119, 180, 0.18)"
FIT_COLOR = "#d62728"
# Display columns a title line may take before it wraps (Plotly's default width, PNG's 10 in).
PLOTLY_TITLE_WIDTH = 90
PNG_TITLE_WIDTH = 100
# What a PNG draws at most. Chart specs also come from sandboxed code (the interpreter's `dp`
# channel), so every text is shortened and drawn as plain text (no mathtext: a "$x^{2}…$" title
# of 45,000 characters once took matplotlib over a minute), and the data and size are capped.
MAX_TITLE_CHARS = 300
MAX_LABEL_CHARS = 100
MAX_ROWS = 100_000
MAX_COLUMNS = 60
MAX_CELLS = 1_000_000
MAX_PANELS = 12
DPI_RANGE = (30, 300)
# Rendering sets fonts through matplotlib's global rcParams (and mplfinance draws through
# pyplot's global state), so PNGs are rendered one at a time.
_RENDER_LOCK = threading.Lock()


@dataclass
class _Row:
    """One stacked sub-plot: its leading panel plus overlays drawn on the same axes."""

    panels: list[Panel] = field(default_factory=list)

    @property
    def lead(self) -> Panel:
        return self.panels[0]


def _rows(spec: ChartSpec) -> list[_Row]:
    return [_Row([lead, *overlays]) for lead, overlays in spec.panel_groups()]


def _data(spec: ChartSpec) -> pd.DataFrame:
    frame = pd.DataFrame(spec.rows, columns=spec.columns)
    for column in frame.columns:
        if column == spec.x and _is_dates(frame[column]):
            continue
        numbers = pd.to_numeric(frame[column], errors="coerce")
        # Keep text columns (entity ids on a bar chart's x axis) as they are.
        if numbers.notna().sum() >= frame[column].notna().sum():
            frame[column] = numbers
    return frame


def _is_dates(values: pd.Series) -> bool:
    sample = values.dropna().astype(str).head(20)
    return bool(len(sample)) and sample.str.match(r"^\d{4}-\d{2}-\d{2}").all()


def _is_daily(x: pd.Series) -> bool:
    if not _is_dates(x) or len(x) < 2:
        return False
    gaps = pd.to_datetime(x).diff().dropna()
    return bool(gaps.median() <= pd.Timedelta(days=1))


def _bar_labels(spec: ChartSpec, data: pd.DataFrame) -> pd.Series | None:
    """Period labels (2021, 2021-03, 2021-03-31) for bar charts over a few dates.

    Bars of year-end or month-end observations drawn on a date axis sit next to the following
    period's tick (a 2016 return beside "2017"); labelling each bar by its period is honest.
    """
    if any(p.mark != "bar" for p in spec.panels) or not _is_dates(data[spec.x]) or len(data) > 60:
        return None
    stamps = pd.to_datetime(data[spec.x])
    gap = stamps.diff().dropna().median() if len(stamps) > 1 else pd.Timedelta(days=1)
    pattern = (
        "%Y"
        if gap >= pd.Timedelta(days=300)
        else "%Y-%m"
        if gap >= pd.Timedelta(days=28)
        else "%Y-%m-%d"
    )
    return stamps.dt.strftime(pattern)


def _colors(spec: ChartSpec) -> tuple[str, str]:
    """Up and down colours: the spec's (red up in Chinese), else green up, red down."""
    return spec.up_color or UP, spec.down_color or DOWN


def _points(x: pd.Series, y: pd.Series) -> tuple[pd.Series, pd.Series]:
    """The points of one series that have a value.

    Series of different frequencies share the table (daily WTI beside monthly Brent); each is
    drawn on its own dates, so the sparse one is a connected line, not isolated dots between gaps.
    """
    mask = y.notna().to_numpy()
    return x[mask], y[mask]


class ChartTooLarge(ValueError):
    """A chart past what a PNG draws; the message says what to ask for instead."""


def check_drawable(chart: ChartOutput, dpi: int) -> None:
    """Refuse a chart a PNG does not draw (too many rows, columns or panels, an odd dpi)."""
    spec = chart.spec
    low, high = DPI_RANGE
    if not low <= dpi <= high:
        raise ChartTooLarge(f"dpi is a whole number from {low} to {high}, not {dpi}")
    for count, limit, what, advice in (
        (len(spec.rows), MAX_ROWS, "rows", "ask for a shorter window or a lower frequency"),
        (len(spec.columns), MAX_COLUMNS, "columns", "draw fewer series"),
        (len(spec.panels), MAX_PANELS, "panels", "draw fewer panels"),
        (len(spec.rows) * len(spec.columns), MAX_CELLS, "values", "draw fewer series or rows"),
    ):
        if count > limit:
            raise ChartTooLarge(
                f"the chart has {count:,} {what}; a PNG draws at most {limit:,}: {advice}"
            )


def _short(text: object, limit: int = MAX_LABEL_CHARS) -> str:
    """A text as the PNG shows it: at most `limit` characters."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# A Chinese PNG's date ticks (matplotlib's ConciseDateFormatter: years, months, days, hours,
# minutes, seconds): 2021年, 03月, 03月15日, not Plotly's or matplotlib's English "Mar".
_CHINESE_DATES = {
    "formats": ["%Y年", "%m月", "%d日", "%H:%M", "%H:%M", "%S.%f"],
    "zero_formats": ["", "%Y年", "%m月", "%m月%d日", "%H:%M", "%H:%M"],
    "offset_formats": ["", "%Y年", "%Y年%m月", "%Y年%m月%d日", "%Y年%m月%d日", "%Y年%m月%d日"],
}


def undrawn(chart: ChartOutput, error: object) -> str:
    """Why a chart is missing, in the language of its title (a face says it where the chart
    would have been)."""
    if is_chinese(chart.title):
        return f"图表“{chart.title}”画不出来：{error}"
    return f"The chart {chart.title!r} could not be drawn: {error}"


def _wrapped(title: str, width: int, newline: str) -> str:
    """A long title on several lines instead of running off the figure."""
    if display_width(title) <= width:
        return title
    return newline.join(wrap_display(title, width))


def _label(panel: Panel, column: str) -> str:
    return panel.labels.get(column, column)


def _band_labels(chart: ChartOutput, lower: str, upper: str) -> tuple[str, str]:
    """The band's legend entry (a forecast's "interval", 区间 in a Chinese chart) and the name of
    its upper edge, by the labels the first panel gives the band's columns."""
    lead = chart.spec.panels[0]
    if lower == "lower":
        return ("区间" if is_chinese(chart.title) else "interval"), _label(lead, upper)
    return f"{_label(lead, lower)}–{_label(lead, upper)}", _label(lead, upper)


def _axis_label(panel: Panel) -> str:
    label = panel.title or ", ".join(panel.y)
    return f"{label} ({panel.unit})" if panel.unit and panel.unit not in label else label


def _png_title(chart: ChartOutput) -> str:
    return _wrapped(_short(chart.title, MAX_TITLE_CHARS), PNG_TITLE_WIDTH, "\n")


# --- Plotly --------------------------------------------------------------------------------------


def to_plotly(chart: ChartOutput) -> dict[str, Any]:
    """The chart as a Plotly figure (a JSON-able dict with `data` and `layout`)."""
    from datapilot.render.plotly_figure import plotly_figure

    return plotly_figure(chart)


def _bar_colors(panel: Panel, values: pd.Series, colors: tuple[str, str]) -> Any:
    """Histogram-like bars (MACD hist) are coloured by sign; volume and others stay uniform."""
    if panel.overlay:
        return [colors[0] if (v or 0) >= 0 else colors[1] for v in values.fillna(0)]
    return None


def _fit_label(fit: Any, zh: bool = False) -> str:
    said = "拟合：" if zh else "fit: "
    return f"{said}y = {fit.slope:.3g}·x {'+' if fit.intercept >= 0 else '−'} "  \
        f"{abs(fit.intercept):.3g}, r² = {fit.r2:.3f}"  # fmt: skip


# --- PNG -----------------------------------------------------------------------------------------


def to_png(chart: ChartOutput, path: Path, dpi: int = 110) -> Path:
    """Render the chart to a PNG at `path` (written to a temp name, then renamed into place).

    Raises `ChartTooLarge` for a chart past the limits above."""
    import matplotlib

    check_drawable(chart, dpi)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".png", dir=path.parent)
    os.close(handle)
    try:
        # No text is typeset as mathtext: "$" is a dollar (log axes get a plain formatter).
        rc: dict[str, Any] = {"font.family": font_families(), "text.parse_math": False}
        with _RENDER_LOCK, matplotlib.rc_context(rc):  # type: ignore[arg-type]
            if chart.spec.panels and chart.spec.panels[0].mark == "candlestick":
                _candlestick_png(chart, Path(temp_name), dpi)
            else:
                _matplotlib_png(chart, Path(temp_name), dpi)
        # mkstemp made it 0600: give it the mode any file of the user's gets (as the HTML has).
        os.chmod(temp_name, 0o666 & ~_umask())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (other threads may be
    creating files); elsewhere set and restored at once."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        status = Path("/proc/self/status").read_text().splitlines()
        return int(next(line for line in status if line.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _matplotlib_png(chart: ChartOutput, target: Path, dpi: int) -> None:
    from matplotlib.figure import Figure

    spec = chart.spec
    data = _data(spec)
    rows = _rows(spec)
    heights = [row.lead.height for row in rows]
    figure = Figure(figsize=(10, 4.8 + 1.8 * (len(rows) - 1)), layout="constrained")
    axes = figure.subplots(
        len(rows), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights}
    )[:, 0]
    labels = _bar_labels(spec, data)
    dates = labels is None and _is_dates(data[spec.x])
    x = pd.to_datetime(data[spec.x]) if dates else data[spec.x] if labels is None else labels
    if x.dtype == object:  # category names on the axis: shortened like every text
        x = x.map(lambda value: _short(value) if isinstance(value, str) else value)
    for number, (row, ax) in enumerate(zip(rows, axes, strict=True)):
        if row.lead.mark == "pie":
            _pie(ax, row.lead, data, spec)
            continue
        for panel in row.panels:
            _draw(ax, panel, data, x, dates, _colors(spec))
        if row.lead.log_y:
            _log_scale(ax)
        if number == 0:
            for lower, upper in spec.bands:
                label = _short(_band_labels(chart, lower, upper)[0])
                ax.fill_between(x, data[lower], data[upper], alpha=0.2, label=label, lw=0)
            if spec.fit is not None:
                _fit(ax, spec, data, is_chinese(chart.title))
        ax.set_ylabel(_short(_axis_label(row.lead)))
        ax.grid(True, alpha=0.3)
        handles, _ = ax.get_legend_handles_labels()
        if len(handles) > 1:
            ax.legend(loc="best", fontsize="small")
    if rows[-1].lead.mark != "pie":
        axes[-1].set_xlabel(_short(spec.x_title or spec.x))
    if dates:
        import matplotlib.dates as mdates

        locator = mdates.AutoDateLocator()
        axes[-1].xaxis.set_major_locator(locator)
        chinese = _CHINESE_DATES if is_chinese(chart.title) else {}
        axes[-1].xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, **chinese))
    figure.suptitle(_png_title(chart), fontsize="large", fontweight="bold")
    figure.savefig(target, dpi=dpi, format="png")


def _draw(
    ax: Any, panel: Panel, data: pd.DataFrame, x: pd.Series, dates: bool, colors: tuple[str, str]
) -> None:
    for level in panel.levels:
        ax.axhline(level, ls=":", color="grey", lw=1)
    if panel.mark == "bar" and not dates:
        _category_bars(ax, panel, data, x, colors)
        return
    for number, column in enumerate(panel.y):
        y = pd.to_numeric(data[column], errors="coerce")
        label = _short(_label(panel, column))
        xs, ys = _points(x, y)
        if panel.mark == "line":
            ax.plot(xs, ys, label=label, lw=1.4)
        elif panel.mark == "area":
            ax.fill_between(xs, ys, 0, alpha=0.35, label=label, lw=0)
            ax.plot(xs, ys, lw=1)
        elif panel.mark == "scatter":
            ax.scatter(xs, ys, s=10, alpha=0.5, label=label)
        elif panel.mark == "bar":
            # Several columns stand side by side within each date's slot.
            width = _date_width(x) / len(panel.y)
            shift = pd.to_timedelta((number - (len(panel.y) - 1) / 2) * width, unit="D")
            ax.bar(x + shift, y, width=width, label=label, color=_bar_colors(panel, y, colors))
    if panel.mark == "band" and len(panel.y) == 2:
        ax.fill_between(x, data[panel.y[0]], data[panel.y[1]], alpha=0.2, lw=0)


def _log_scale(ax: Any) -> None:
    """A log y axis labelled 100, 200, 1000 (its default labels are mathtext, drawn off)."""
    from matplotlib.ticker import LogFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(LogFormatter())
    ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def _date_width(x: pd.Series) -> float:
    if len(x) < 2:
        return 1.0
    gap = np.median(np.diff(x.to_numpy()).astype("timedelta64[s]").astype(float)) / 86400
    return max(gap * 0.8, 0.5)


def _category_bars(
    ax: Any, panel: Panel, data: pd.DataFrame, x: pd.Series, signs: tuple[str, str]
) -> None:
    positions = np.arange(len(data))
    width = 0.8 / len(panel.y)
    for number, column in enumerate(panel.y):
        y = pd.to_numeric(data[column], errors="coerce")
        offset = (number - (len(panel.y) - 1) / 2) * width
        colors = (
            [signs[0] if v >= 0 else signs[1] for v in y.fillna(0)] if len(panel.y) == 1 else None
        )
        label = _short(_label(panel, column))
        bars = ax.bar(positions + offset, y, width=width, label=label, color=colors)
        if len(data) <= 30:
            ax.bar_label(bars, fmt="%.2f", fontsize="x-small", padding=2)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(positions, [_short(v) for v in x], rotation=45 if len(data) > 8 else 0)


def _pie(ax: Any, panel: Panel, data: pd.DataFrame, spec: ChartSpec) -> None:
    values = pd.to_numeric(data[panel.y[0]], errors="coerce").fillna(0)
    wedges = {"width": 1 - spec.hole} if spec.hole else None
    ax.pie(
        values,
        labels=[_short(v) for v in data[spec.x]],
        autopct="%1.1f%%",
        startangle=90,
        wedgeprops=wedges,
        pctdistance=1 - spec.hole / 2 if spec.hole else 0.6,
    )
    ax.set_aspect("equal")


def _fit(ax: Any, spec: ChartSpec, data: pd.DataFrame, zh: bool = False) -> None:
    fit = spec.fit
    assert fit is not None
    low, high = pd.to_numeric(data[spec.x]).agg(["min", "max"]).to_numpy()
    xs = np.linspace(low, high, 50)
    ax.plot(xs, fit.slope * xs + fit.intercept, color=FIT_COLOR, lw=1.6, label=_fit_label(fit, zh))


def _candlestick_png(chart: ChartOutput, target: Path, dpi: int) -> None:
    import matplotlib
    import matplotlib.pyplot as plt
    import mplfinance as mpf

    spec = chart.spec
    data = _data(spec)
    data.index = pd.DatetimeIndex(pd.to_datetime(data[spec.x]), name="Date")
    rows = _rows(spec)
    o, h, low, c = rows[0].lead.y
    prices = (
        data[[o, h, low, c]]
        .rename(columns={o: "Open", h: "High", low: "Low", c: "Close"})
        .astype(float)
    )
    plots: list[Any] = []
    volume_panel: int | None = None
    volume_label = "Volume"
    up, down = _colors(spec)
    for number, row in enumerate(rows):
        if number and row.lead.mark == "bar" and row.lead.y == ["volume"]:
            volume_panel = number
            volume_label = _short(row.lead.title or volume_label)
            prices["Volume"] = pd.to_numeric(data["volume"], errors="coerce").fillna(0)
            continue
        for place, panel in enumerate(row.panels):
            if panel.mark == "candlestick":
                continue
            label = _short(_axis_label(row.lead)) if place == 0 and number else None
            plots.extend(_addplots(mpf, panel, data, number, label, (up, down)))
        for level in row.lead.levels if number else []:
            flat = pd.Series(float(level), index=data.index)
            plots.append(
                mpf.make_addplot(
                    flat,
                    panel=number,
                    color="grey",
                    linestyle="dotted",
                    width=0.8,
                    secondary_y=False,
                )
            )
    ratios = [row.lead.height for row in rows]
    colors = mpf.make_marketcolors(up=up, down=down, edge="inherit", wick="inherit", volume="in")
    style = mpf.make_mpf_style(
        base_mpf_style="yahoo", marketcolors=colors, rc={"font.family": font_families()}
    )
    # mplfinance applies its style to the global rcParams; keep that out of later charts.
    with matplotlib.rc_context():
        figure, axes = mpf.plot(
            prices,
            type="candle",
            style=style,
            volume=volume_panel is not None,
            **({"volume_panel": volume_panel} if volume_panel is not None else {}),
            addplot=plots or [],
            panel_ratios=ratios if len(rows) > 1 else None,
            num_panels=len(rows),
            ylabel=_short(_axis_label(rows[0].lead)),
            ylabel_lower=volume_label,
            datetime_format="%Y-%m-%d",
            xrotation=15,
            figsize=(11, 5 + 1.8 * (len(rows) - 1)),
            returnfig=True,
            warn_too_much_data=10_000,
        )
        try:
            axes[0].set_title(_png_title(chart), fontsize="large", fontweight="bold", loc="left")
            figure.savefig(target, dpi=dpi, format="png", bbox_inches="tight")
        finally:
            plt.close(figure)


def _addplots(
    mpf: Any,
    panel: Panel,
    data: pd.DataFrame,
    number: int,
    label: str | None,
    signs: tuple[str, str],
) -> list:
    plots = []
    for column in panel.y:
        values = pd.to_numeric(data[column], errors="coerce")
        if values.isna().all():
            continue  # mplfinance refuses all-NaN series
        # One y axis per panel: mplfinance would otherwise move lines of a different scale
        # (MACD vs signal, RSI vs its levels) to a second axis and make them look comparable.
        options: dict[str, Any] = {
            "panel": number,
            "label": _short(_label(panel, column)),
            "secondary_y": False,
        }
        if label:
            options["ylabel"] = label
            label = None
        if panel.mark == "bar":
            options |= {
                "type": "bar",
                "color": [signs[0] if v >= 0 else signs[1] for v in values.fillna(0)],
            }
        else:
            options |= {"width": 1.0}
        plots.append(mpf.make_addplot(values, **options))
    return plots
