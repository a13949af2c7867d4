"""The Plotly figure of a chart is the figure Plotly's own API builds, to the byte.

The layout is written as data (not through Plotly's validated updates); the reference here builds
the same stacked chart the documented way — `make_subplots`, `add_trace(row=, col=)`,
`add_hline`, `update_xaxes` / `update_yaxes` / `update_layout` — and the JSON must be the same
text, key order included.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest
from support.charts import sample_charts

from datapilot.core.outputs import ChartOutput
from datapilot.render.charts import to_plotly
from datapilot.render.plotly_figure import (
    _plotly_band,
    _plotly_fit,
    _plotly_traces,
    _template_json,
)


def reference(chart: ChartOutput) -> dict[str, Any]:
    """The stacked chart built with Plotly's API, one update at a time."""
    import pandas as pd
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    spec = chart.spec
    data = pd.DataFrame(spec.rows, columns=spec.columns)
    for column in data.columns:
        if column != spec.x:
            with contextlib.suppress(ValueError):  # dates stay text
                data[column] = pd.to_numeric(data[column])
    rows: list[list[Any]] = []
    for panel in spec.panels:
        if panel.overlay and rows:
            rows[-1].append(panel)
        else:
            rows.append([panel])
    heights = [row[0].height for row in rows]
    figure = make_subplots(
        rows=len(rows),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.03 if len(rows) > 1 else 0.0,
        row_heights=[h / sum(heights) for h in heights],
        figure=go.Figure(layout_template={}),
    )
    x = data[spec.x]
    for number, row in enumerate(rows, start=1):
        for panel in row:
            for trace in _plotly_traces(go, panel, data, x, spec):
                figure.add_trace(trace, row=number, col=1)
            for level in panel.levels:
                figure.add_hline(y=level, line_dash="dot", line_color="grey", row=number, col=1)
        lead = row[0]
        label = lead.title or ", ".join(lead.y)
        label = f"{label} ({lead.unit})" if lead.unit and lead.unit not in label else label
        figure.update_yaxes(title_text=label, row=number, col=1)
        if lead.log_y:
            figure.update_yaxes(type="log", row=number, col=1)
        if number == 1:
            for lower, upper in spec.bands:
                for trace in _plotly_band(go, data, x, lower, upper):
                    figure.add_trace(trace, row=1, col=1)
    if spec.fit is not None:
        figure.add_trace(_plotly_fit(go, spec, data), row=1, col=1)
    figure.update_xaxes(title_text=spec.x_title or spec.x, row=len(rows), col=1)
    figure.update_xaxes(rangeslider_visible=False)
    if rows[0][0].mark == "candlestick":
        figure.update_xaxes(rangebreaks=[{"bounds": ["sat", "mon"]}])
    figure.update_layout(
        title=chart.title,
        hovermode="x unified" if rows[0][0].mark != "scatter" else "closest",
        legend={"orientation": "h", "y": -0.15 if len(rows) == 1 else -0.05},
        height=420 + 160 * (len(rows) - 1),
        barmode="group",
    )
    out: dict[str, Any] = json.loads(figure.to_json())
    out["layout"]["template"] = json.loads(_template_json())
    return out


def variants() -> list[ChartOutput]:
    """The test charts (pie aside), and each with reference lines on every panel, log axes,
    and a band between its first two series."""
    out = []
    for name, chart in sample_charts().items():
        if name == "pie":
            continue
        out.append(chart)
        panels = [
            p.model_copy(update={"levels": [0.5, 2.0 + i], "log_y": i == 0})
            for i, p in enumerate(chart.spec.panels)
        ]
        columns = [c for c in chart.spec.columns if c != chart.spec.x]
        bands = [(columns[0], columns[1])] if len(columns) >= 2 else []
        spec = chart.spec.model_copy(update={"panels": panels, "bands": bands})
        out.append(chart.model_copy(update={"spec": spec}))
    return out


@pytest.fixture(scope="module")
def charts() -> list[ChartOutput]:
    return variants()


def test_figures_are_the_json_plotly_builds(charts) -> None:
    assert len(charts) == 12
    for chart in charts:
        assert json.dumps(to_plotly(chart)) == json.dumps(reference(chart)), chart.title


@pytest.mark.perf
def test_a_figure_costs_less_than_building_it_through_plotly(charts) -> None:
    """Measured in this process on the same charts (CPU time, best of three rounds)."""

    def cost(build: Any) -> float:
        rounds = []
        for _ in range(3):
            started = time.process_time()
            for chart in charts:
                build(chart)
            rounds.append(time.process_time() - started)
        return min(rounds)

    to_plotly(charts[0])  # the grid and the template are built once per process
    assert cost(to_plotly) < cost(reference) / 2
