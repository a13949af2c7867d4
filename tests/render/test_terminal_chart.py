"""The terminal's text charts (plotext, which keeps one global figure): each chart is drawn on a
blank figure, whatever was drawn before it in the same process."""

from __future__ import annotations

import re

from datapilot.core.outputs import ChartOutput, ChartSpec, FitLine, Panel
from datapilot.render.terminal_chart import chart_text

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _stacked() -> ChartOutput:
    rows = [[f"2021-01-{d:02d}", 100.0 + d, 1000.0 * d, d % 3 - 1.0] for d in range(1, 21)]
    return ChartOutput(
        chart_type="line",
        title="Stacked",
        spec=ChartSpec(
            x="date",
            columns=["date", "close", "volume", "hist"],
            rows=rows,
            panels=[
                Panel(mark="line", y=["close"], height=3),
                Panel(mark="bar", y=["volume"], title="Volume"),
                Panel(mark="bar", y=["hist"], title="MACD"),
            ],
        ),
    )


def _scatter() -> ChartOutput:
    rows = [[x / 10, 2 * x / 10 + 1] for x in range(30)]
    return ChartOutput(
        chart_type="scatter",
        title="Scatter after stacked",
        spec=ChartSpec(
            x="a",
            columns=["a", "b"],
            rows=rows,
            panels=[Panel(mark="scatter", y=["b"])],
            fit=FitLine(slope=2.0, intercept=1.0, r2=1.0),
        ),
    )


def test_a_chart_after_a_stacked_one_is_drawn_on_a_blank_figure() -> None:
    first = _ANSI.sub("", chart_text(_stacked(), width=100))
    second = _ANSI.sub("", chart_text(_scatter(), width=100))
    assert "Stacked" in first and "MACD" in first
    assert "Scatter after stacked" in second
    assert "MACD" not in second and "Volume" not in second  # nothing of the chart before
