"""Charts drawn in the terminal with plotext: each stacked panel of a chart (lines, bars,
candlesticks, scatter; a pie as bars) in text cells, for `datapilot ask` when its output is a
terminal. Overlay panels share their panel's plot; reference levels are horizontal lines."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel

MAX_PANELS = 4  # more stacked panels than this leave each too few rows to read
_PANEL_HEIGHT = 14


def chart_text(chart: ChartOutput, width: int = 100) -> str:
    """`chart` as ANSI-coloured text `width` columns wide (blocking; plotext keeps global state,
    so this clears it before and after)."""
    import plotext as plt

    spec = chart.spec
    groups = spec.panel_groups()[:MAX_PANELS]
    frame = pd.DataFrame(spec.rows, columns=spec.columns)
    labels = [str(value) for value in frame[spec.x]] if spec.x in frame else []
    # Positions on the x axis, labelled with the x values: lines and bars then share one axis
    # (plotext places bars of text labels and lines of dates on different ones).
    x = list(range(len(frame)))
    ticks = _ticks(len(x))
    _reset(plt)
    try:
        plt.limit_size(False, False)  # the size asked for, not the terminal's (a pipe has none)
        plt.subplots(len(groups), 1)
        plt.plot_size(width, _PANEL_HEIGHT * len(groups) + 2)
        for number, (panel, overlays) in enumerate(groups, 1):
            plt.subplot(number, 1)
            if number == 1:
                plt.title(chart.title)
            elif panel.title:
                plt.title(panel.title)
            for drawn in (panel, *overlays):
                _draw(plt, drawn, frame, x, spec)
            if labels:  # after drawing: bars set ticks of their own
                plt.xticks(ticks, [labels[i] for i in ticks])
            if panel.unit:
                plt.ylabel(panel.unit)
        return str(plt.build())
    finally:
        _reset(plt)


def _reset(plt: Any) -> None:
    """A blank figure: `plt.clf()` clears only the active subplot, so the grid and sub-plots of a
    stacked chart (candles, volume, MACD) stayed for the next chart, which then failed to draw."""
    plt.main().clear_figure()
    plt.clf()


def _draw(plt: Any, panel: Panel, frame: pd.DataFrame, x: list[Any], spec: ChartSpec) -> None:
    columns = [column for column in panel.y if column in frame]
    if panel.mark == "candlestick" and {"open", "high", "low", "close"} <= set(columns):
        prices = {
            name.capitalize(): _numbers(frame[name]) for name in ("open", "high", "low", "close")
        }
        plt.candlestick(x, prices)
    elif panel.mark in ("bar", "pie"):
        for column in columns:  # a missing bar is no bar
            heights = [0.0 if math.isnan(v) else v for v in _numbers(frame[column])]
            plt.bar(x, heights, label=panel.labels.get(column, column))
    else:
        draw = plt.scatter if panel.mark == "scatter" else plt.plot
        for column in columns:
            values = _numbers(frame[column])
            kept = [(a, b) for a, b in zip(x, values, strict=True) if not math.isnan(b)]
            if kept:
                xs, ys = zip(*kept, strict=True)
                draw(list(xs), list(ys), label=panel.labels.get(column, column))
    for level in panel.levels:
        plt.horizontal_line(level)


def _numbers(values: pd.Series) -> list[float]:
    return [float(v) for v in pd.to_numeric(values, errors="coerce").astype(float)]


def _ticks(count: int, most: int = 5) -> list[int]:
    """Up to `most` evenly spread positions, the first and the last included."""
    if count <= most:
        return list(range(count))
    return sorted({round(i * (count - 1) / (most - 1)) for i in range(most)})
