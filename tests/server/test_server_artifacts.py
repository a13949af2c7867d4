"""Chart and table outputs become artifacts the OpenBB Workspace can draw."""

from __future__ import annotations

import json
import math

from openbb_ai.models import ClientArtifact

from datapilot.core.outputs import ChartOutput, ChartSpec, FitLine, Panel, TableOutput
from datapilot.server.openbb.artifacts import ArtifactNamer, chart_artifacts, table_artifact

ROWS = [
    ["2015-01-02", 10.0, 11.0, 9.5, 10.5, 1000, 10.2, 0.10, 0.05, 0.05, 55.0],
    ["2015-01-05", 10.5, 12.0, 10.0, 11.5, 1500, 10.8, 0.20, 0.10, 0.10, 61.0],
    ["2015-01-06", 11.5, 11.8, 10.9, 11.0, 900, math.nan, 0.15, 0.12, 0.03, 48.0],
]
COLUMNS = [
    "date",
    "open",
    "high",
    "low",
    "close",
    "volume",
    "ma20",
    "macd",
    "signal",
    "hist",
    "rsi",
]


def _artifacts(output: ChartOutput) -> list[ClientArtifact]:
    return [event.data for event in chart_artifacts(output, ArtifactNamer())]


def _column(artifact: ClientArtifact, key: str) -> list:
    return [record[key] for record in artifact.content]


def test_candlestick_with_overlays_and_indicator_panels() -> None:
    spec = ChartSpec(
        x="date",
        columns=COLUMNS,
        rows=ROWS,
        panels=[
            Panel(mark="candlestick", y=["open", "high", "low", "close"]),
            Panel(mark="line", y=["ma20"], overlay=True),
            Panel(mark="bar", y=["volume"], title="Volume"),
            Panel(mark="line", y=["macd", "signal"], title="MACD"),
            Panel(mark="bar", y=["hist"], overlay=True),
            Panel(mark="line", y=["rsi"], title="RSI", levels=[30, 70]),
        ],
    )
    output = ChartOutput(chart_type="candlestick", title="IBM", spec=spec)
    prices, close, volume, macd, rsi = _artifacts(output)

    # No native candlestick: a table of prices and a line of the close with its overlay.
    assert prices.type == "table"
    assert [list(r) for r in prices.content] == [
        ["date", "open", "high", "low", "close", "ma20"]
    ] * 3
    assert _column(prices, "high") == [row[2] for row in ROWS]
    assert close.chart_params.chartType == "line"
    assert close.chart_params.yKey == ["close", "ma20"]
    assert _column(close, "ma20") == [10.2, 10.8, None]  # NaN is not valid JSON

    assert volume.chart_params.chartType == "bar" and volume.chart_params.yKey == ["volume"]
    assert volume.name == "IBM — Volume"
    assert macd.chart_params.yKey == ["macd", "signal", "hist"]
    # Reference levels are constant series.
    assert rsi.chart_params.yKey == ["rsi", "level 30", "level 70"]
    assert _column(rsi, "level 70") == [70, 70, 70]
    assert len({a.name for a in (prices, close, volume, macd, rsi)}) == 5


def test_line_chart_keeps_only_its_columns_and_draws_bands() -> None:
    spec = ChartSpec(
        x="date",
        columns=["date", "forecast", "lower", "upper", "unused"],
        rows=[["2020-03-31", 1.0, 0.5, 1.5, "x"], ["2020-06-30", 2.0, 1.0, 3.0, "y"]],
        panels=[Panel(mark="line", y=["forecast"])],
        bands=[("lower", "upper")],
    )
    (line,) = _artifacts(ChartOutput(chart_type="line", title="GDP forecast", spec=spec))
    assert line.chart_params.xKey == "date"
    assert line.chart_params.yKey == ["forecast", "lower", "upper"]
    assert all("unused" not in record for record in line.content)
    assert _column(line, "upper") == [1.5, 3.0]


def test_scatter_with_fit_pie_and_bar() -> None:
    xs, ys = [0.01, -0.02, 0.03], [0.02, -0.01, 0.025]
    scatter_spec = ChartSpec(
        x="XOM",
        columns=["XOM", "CVX"],
        rows=[list(pair) for pair in zip(xs, ys, strict=True)],
        panels=[Panel(mark="scatter", y=["CVX"])],
        fit=FitLine(slope=0.8, intercept=0.001, r2=0.9),
    )
    (scatter,) = _artifacts(
        ChartOutput(chart_type="scatter", title="XOM vs CVX", spec=scatter_spec)
    )
    assert (scatter.chart_params.chartType, scatter.chart_params.xKey) == ("scatter", "XOM")
    assert _column(scatter, "CVX") == ys
    assert "R² = 0.900" in scatter.description

    pie_spec = ChartSpec(
        x="asset",
        columns=["asset", "weight"],
        rows=[["AAPL", 0.6], ["MSFT", 0.4]],
        panels=[Panel(mark="pie", y=["weight"])],
    )
    (pie,) = _artifacts(ChartOutput(chart_type="pie", title="Weights", spec=pie_spec))
    assert (pie.chart_params.angleKey, pie.chart_params.calloutLabelKey) == ("weight", "asset")
    assert sum(_column(pie, "weight")) == 1.0

    bar_spec = ChartSpec(
        x="ticker",
        columns=["ticker", "return"],
        rows=[["AAPL", 0.34], ["XOM", 0.57]],
        panels=[Panel(mark="bar", y=["return"])],
    )
    (bar,) = _artifacts(ChartOutput(chart_type="bar", title="Returns", spec=bar_spec))
    assert bar.chart_params.chartType == "bar" and _column(bar, "return") == [0.34, 0.57]


def test_table_artifact_and_unique_names() -> None:
    namer = ArtifactNamer()
    output = TableOutput(
        title="Monthly closes", columns=["month", "close"], rows=[["2015-01", 1.0]], units={}
    )
    first = table_artifact(output, namer).data
    second = table_artifact(output.model_copy(update={"units": {"close": "USD"}}), namer).data
    assert first.content == [{"month": "2015-01", "close": 1.0}]
    assert (first.name, second.name) == ("Monthly closes", "Monthly closes (2)")
    assert second.description == "Units: close: USD"
    # What goes on the wire is plain JSON.
    json.loads(table_artifact(output, namer).model_dump()["data"])


def test_later_turns_name_their_artifacts_apart() -> None:
    output = TableOutput(title="Closes", columns=["close"], rows=[[1.0]])
    first_turn = table_artifact(output, ArtifactNamer(turn=1)).data.name
    third_turn = table_artifact(output, ArtifactNamer(turn=3)).data.name
    assert (first_turn, third_turn) == ("Closes", "Closes — turn 3")


def test_a_table_of_paragraphs_is_a_text_artifact() -> None:
    from datapilot.core.outputs import TableOutput
    from datapilot.server.openbb.artifacts import ArtifactNamer, table_artifact

    profile = (
        "Apple Inc. designs, manufactures and markets smartphones, personal computers, tablets, "
        "wearables and accessories, and sells a variety of related services."
    )
    output = TableOutput(
        title="Company profile", columns=["name", "description"], rows=[["Apple Inc.", profile]]
    )
    artifact = table_artifact(output, ArtifactNamer()).data
    assert artifact.type == "text" and artifact.content == f"Apple Inc.: {profile}"
    # A link or a number keeps the grid (html or table).
    linked = output.model_copy(update={"rows": [["Apple Inc.", "https://www.apple.com"]]})
    assert table_artifact(linked, ArtifactNamer()).data.type == "html"
    numbers = output.model_copy(update={"columns": ["name", "price"], "rows": [["AAPL", 210.6]]})
    assert table_artifact(numbers, ArtifactNamer()).data.type == "table"
