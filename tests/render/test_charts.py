"""Every chart type renders to a Plotly figure and to a PNG, atomically."""

from __future__ import annotations

import asyncio
import base64
import importlib.resources
import json
import warnings
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread
from support.charts import chart_context, sample_charts, sample_prices

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel, TableOutput
from datapilot.interfaces import frame as F
from datapilot.interfaces import processing as P
from datapilot.interfaces import visualization as V
from datapilot.render.charts import to_plotly, to_png

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


CHART_NAMES = ["line", "bar", "candlestick", "scatter", "area", "pie", "forecast"]


@pytest.fixture(scope="module")
def charts() -> dict[str, ChartOutput]:
    return sample_charts()


@pytest.mark.parametrize("name", CHART_NAMES)
def test_every_chart_renders_to_a_png(name: str, charts, tmp_path: Path) -> None:
    chart = charts[name]
    target = tmp_path / "charts" / f"{name}.png"
    assert to_png(chart, target) == target
    assert target.read_bytes()[:8] == PNG_MAGIC
    height, width, _ = imread(target).shape
    assert width >= 800 and height >= 400
    # Nothing half-written is left behind.
    assert [p.name for p in target.parent.iterdir()] == [target.name]


@pytest.mark.parametrize("name", CHART_NAMES)
def test_every_chart_renders_to_plotly_json(name: str, charts) -> None:
    chart = charts[name]
    figure = to_plotly(chart)
    json.dumps(figure)  # plain JSON, ready for the API and Workspace
    assert figure["layout"]["title"]["text"] == chart.title
    assert figure["data"]


def test_plotly_traces_follow_the_spec(charts) -> None:
    candles = to_plotly(charts["candlestick"])
    types = [trace["type"] for trace in candles["data"]]
    assert types[0] == "candlestick" and types.count("bar") == 2  # volume + MACD histogram
    assert candles["layout"]["yaxis"]["title"]["text"] == "Price (USD)"
    assert candles["layout"]["yaxis3"]["title"]["text"] == "MACD(12, 26, 9) (USD)"
    assert candles["layout"]["xaxis"]["rangeslider"]["visible"] is False
    assert candles["layout"]["xaxis"]["rangebreaks"] == [{"bounds": ["sat", "mon"]}]

    forecast = to_plotly(charts["forecast"])
    names = [trace.get("name") for trace in forecast["data"]]
    assert names[:2] == ["AAA", "forecast"] and "interval" in names
    band = next(t for t in forecast["data"] if t.get("name") == "interval")
    assert band["fill"] == "tonexty"

    scatter = to_plotly(charts["scatter"])
    fit = scatter["data"][-1]
    assert fit["mode"] == "lines" and "r² =" in fit["name"]
    assert scatter["layout"]["xaxis"]["title"]["text"] == "AAA (%)"

    line = to_plotly(charts["line"])
    assert line["layout"]["yaxis"]["title"]["text"] == "Cumulative return (%)"
    assert line["data"][0]["x"][0] == "2022-01-03"

    pie = to_plotly(charts["pie"])
    assert pie["data"][0]["type"] == "pie" and list(pie["data"][0]["labels"]) == ["A", "B", "C"]


def test_a_failed_render_leaves_no_file(tmp_path: Path) -> None:
    broken = ChartOutput(
        chart_type="line",
        title="Broken",
        spec=ChartSpec(
            x="date",
            columns=["date", "a"],
            rows=[["2022-01-03", 1.0]],
            panels=[Panel(mark="line", y=["missing"])],
        ),
    )
    target = tmp_path / "broken.png"
    with pytest.raises(KeyError):
        to_png(broken, target)
    assert list(tmp_path.iterdir()) == []


def test_rendering_replaces_an_existing_file(charts, tmp_path: Path) -> None:
    target = tmp_path / "chart.png"
    target.write_bytes(b"old")
    to_png(charts["line"], target)
    assert target.read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize("name", ["line", "candlestick"])
def test_chinese_text_renders_with_a_cjk_font(name: str, charts, tmp_path: Path) -> None:
    from datapilot.render.charts import font_families

    if len(font_families()) < 2:
        pytest.skip("no font with Chinese glyphs is installed (mplfonts or a CJK system font)")
    chart = charts[name].model_copy(update={"title": "苹果公司收盘价（2022年）"})
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font")
        to_png(chart, tmp_path / "zh.png")
    assert (tmp_path / "zh.png").read_bytes()[:8] == PNG_MAGIC


def test_bars_over_year_ends_are_labelled_by_year(tmp_path: Path) -> None:
    ctx = chart_context()
    index = pd.bdate_range("2015-01-01", "2018-12-31", name="date")
    levels = F.tag(
        pd.DataFrame({"AAA": np.linspace(100, 200, len(index))}, index=index),
        kind="timeseries",
        unit="USD",
    )
    chart = V.plot_bar(ctx, P.compute_returns(ctx, levels, period="annual"), "Annual returns")
    figure = to_plotly(chart)
    # The 2016 return ends on 2016-12-30: it must read "2016", not sit beside a "2017" tick.
    assert list(figure["data"][0]["x"]) == ["2016", "2017", "2018"]
    assert figure["layout"]["xaxis"]["type"] == "category"
    assert to_png(chart, tmp_path / "annual.png").exists()


# --- charts show what was asked (full pipeline, bundled data) ------------------------------------
#
# Expected numbers come from the source datasets read here with pandas (arch, skfolio,
# bokeh-sampledata), never from the project's own functions.


def _answer(question: str, today: str) -> Any:
    from support.asking import ask

    from datapilot.core.context import QuestionContext

    context = QuestionContext(today=date.fromisoformat(today), brain="offline", offline=True)
    answer = asyncio.run(ask(question, context))
    assert answer.status == "ok", (question, answer.message)
    return answer


def _charts_of(answer: Any) -> list[ChartOutput]:
    return [o for o in answer.outputs if isinstance(o, ChartOutput)]


def _values(field: Any) -> list[Any]:
    """A trace's array: a list, or Plotly's base64 typed array ({"dtype", "bdata"})."""
    if isinstance(field, dict) and "bdata" in field:
        return np.frombuffer(base64.b64decode(field["bdata"]), dtype=field["dtype"]).tolist()
    return list(field)


def _points(trace: dict[str, Any]) -> list[tuple[Any, float]]:
    """The (x, y) points of a trace that hold a value."""
    pairs = zip(_values(trace["x"]), _values(trace["y"]), strict=True)
    return [(x, y) for x, y in pairs if y is not None and not np.isnan(y)]


def _package_csv(package: str, *parts: str, **options: Any) -> pd.DataFrame:
    path = importlib.resources.files(package).joinpath(*parts)
    with importlib.resources.as_file(path) as file:
        return pd.read_csv(file, **options)


def test_daily_and_monthly_series_on_one_chart_each_draw_every_observation(
    data, tmp_path: Path
) -> None:
    answer = _answer("WTI and Brent since 2015", "2022-12-28")
    (chart,) = _charts_of(answer)
    start, end = pd.Timestamp(answer.intent.start), pd.Timestamp(answer.intent.end)
    wti = _package_csv("arch", "data", "wti", "wti.csv.gz")
    wti_dates = pd.to_datetime(wti["Date"], format="%m/%d/%Y")
    wti_values = pd.to_numeric(wti["DCOILWTICO"], errors="coerce")
    expected_wti = int((wti_values.notna() & wti_dates.between(start, end)).sum())
    crude = _package_csv("arch", "data", "crude", "crude.csv.gz", parse_dates=["Date"])
    # The monthly Brent average is dated on the first of its month (FRED's convention).
    months = crude["Date"].dt.to_period("M").dt.to_timestamp()
    expected_brent = int((crude["Brent"].notna() & months.between(start, end)).sum())

    figure = to_plotly(chart)
    traces = {trace["name"]: trace for trace in figure["data"]}
    assert len(figure["data"]) == 2
    wti_trace = next(t for name, t in traces.items() if "WTI" in name)
    brent_trace = next(t for name, t in traces.items() if "Brent" in name)
    # Every point of each series is on its line: the monthly series is not broken into
    # invisible one-point segments by the daily dates between its observations.
    assert len(_points(wti_trace)) == len(_values(wti_trace["x"])) == expected_wti
    assert len(_points(brent_trace)) == len(_values(brent_trace["x"])) == expected_brent
    assert expected_brent > 12
    assert to_png(chart, tmp_path / "oil.png").exists()


@pytest.mark.parametrize(
    "question",
    ["Plot the S&P 500 since 2000 on a log scale", "用对数坐标画标普500自2000年以来的走势"],
)
def test_a_log_scale_is_honoured(data, question: str, tmp_path: Path) -> None:
    (chart,) = _charts_of(_answer(question, "2022-12-28"))
    figure = to_plotly(chart)
    assert figure["layout"]["yaxis"]["type"] == "log"
    assert min(y for _, y in _points(figure["data"][0])) > 0
    assert to_png(chart, tmp_path / "log.png").exists()


def test_without_log_words_the_axis_is_linear(data) -> None:
    (chart,) = _charts_of(_answer("Plot the S&P 500 since 2000", "2022-12-28"))
    assert to_plotly(chart)["layout"]["yaxis"].get("type") != "log"


def test_a_log_scale_of_values_below_zero_stays_linear_and_says_why() -> None:
    ctx = chart_context()
    cumulative = P.cumulative_returns(ctx, sample_prices())
    chart = V.plot_line(ctx, cumulative, "Cumulative return, 2022", log_y=True)
    assert isinstance(chart, ChartOutput)
    assert to_plotly(chart)["layout"]["yaxis"].get("type") != "log"
    assert any("log scale needs positive values" in note for note in ctx.notes)


@pytest.mark.parametrize(
    "question",
    [
        "Compare Apple and Microsoft in 2021 rebased to 100",
        "比较苹果和微软2021年的走势，归一化",
    ],
)
def test_rebased_to_100_starts_each_line_at_100(data, question: str) -> None:
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()
    (chart,) = _charts_of(_answer(question, "2022-12-28"))
    figure = to_plotly(chart)
    assert len(figure["data"]) == 2
    for trace in figure["data"]:
        column = "AAPL" if "AAPL" in trace["name"] or "Apple" in trace["name"] else "MSFT"
        if "苹果" in trace["name"]:
            column = "AAPL"
        points = _points(trace)
        (first_day, first), (last_day, last) = points[0], points[-1]
        assert first == pytest.approx(100.0)
        growth = prices.loc[last_day, column] / prices.loc[first_day, column]
        assert last == pytest.approx(100 * growth, rel=1e-4)


@pytest.mark.parametrize(
    ("question", "count"),
    [
        (
            "Compare the cumulative returns of Apple, Microsoft, Exxon, Coca-Cola and Walmart "
            "in 2021",
            "5 stocks",
        ),
        ("比较苹果、微软、埃克森美孚、可口可乐和沃尔玛2021年的累计收益率", "5只股票"),
    ],
)
def test_a_long_title_is_shortened_and_the_names_move_to_the_legend(
    data, question: str, count: str, tmp_path: Path
) -> None:
    from datapilot.data.text import display_width

    (chart,) = _charts_of(_answer(question, "2022-12-28"))
    figure = to_plotly(chart)
    title = figure["layout"]["title"]["text"]
    assert count in title and "2021-01-01" in title and "2021-12-31" in title
    assert display_width(title) <= 72
    assert "…" not in title and "..." not in title and "<br>" not in title
    legend = " ".join(trace["name"] for trace in figure["data"])
    for name in ("Apple", "Walmart") if count == "5 stocks" else ("苹果", "沃尔玛"):
        assert name in legend
    assert to_png(chart, tmp_path / "five.png").exists()


def test_a_long_title_without_names_wraps_instead_of_running_off(tmp_path: Path) -> None:
    ctx = chart_context()
    title = "Closing prices of the two largest bundled example companies " * 2
    chart = V.plot_line(ctx, sample_prices(), title.strip())
    assert isinstance(chart, ChartOutput)
    shown = to_plotly(chart)["layout"]["title"]["text"]
    assert "<br>" in shown and shown.replace("<br>", " ") == chart.title
    assert to_png(chart, tmp_path / "wrapped.png").exists()


@pytest.mark.parametrize(
    "question", ["Apple's closing price on 2021-12-31", "苹果2021年12月31日的收盘价"]
)
def test_a_single_value_is_shown_as_a_table_not_a_chart(data, question: str) -> None:
    from skfolio.datasets import load_sp500_dataset

    expected = round(float(load_sp500_dataset().loc["2021-12-31", "AAPL"]), 2)
    answer = _answer(question, "2022-12-28")
    assert _charts_of(answer) == []
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    assert any(row[1:] == [expected] for table in tables for row in table.rows)


@pytest.mark.parametrize(
    ("question", "up", "words"),
    [
        ("IBM candlestick chart for the past 6 months", "#26a69a", ("Date", "Price", "Volume")),
        ("IBM近半年的K线图", "#e53935", ("日期", "价格", "成交量")),
    ],
)
def test_candles_follow_the_question_language(
    data, question: str, up: str, words: tuple[str, ...], tmp_path: Path
) -> None:
    (chart,) = _charts_of(_answer(question, "2012-09-28"))
    figure = to_plotly(chart)
    candles = figure["data"][0]
    assert candles["type"] == "candlestick"
    assert candles["increasing"]["line"]["color"] == up
    assert candles["decreasing"]["line"]["color"] != up
    layout = figure["layout"]
    date_word, price_word, volume_word = words
    assert layout["xaxis2"]["title"]["text"] == date_word
    assert layout["yaxis"]["title"]["text"].startswith(price_word)
    assert layout["yaxis2"]["title"]["text"].startswith(volume_word)
    assert to_png(chart, tmp_path / "candles.png").exists()


@pytest.mark.parametrize(
    ("question", "hole"),
    [
        ("Pie chart of the trading volume of Apple, Microsoft and IBM in 2012", None),
        ("苹果、微软和IBM 2012年成交量的环形图", 0.45),
    ],
)
def test_pie_and_donut_of_volumes_show_each_total(
    data, question: str, hole: float | None, tmp_path: Path
) -> None:
    stocks = _package_csv("bokeh_sampledata", "_data", "stocks.csv.gz", parse_dates=["Date"])
    in_2012 = stocks[stocks["Date"].dt.year == 2012]
    expected = in_2012.groupby("Ticker")["Volume"].sum()
    (chart,) = _charts_of(_answer(question, "2012-12-28"))
    assert chart.chart_type == "pie"
    (pie,) = to_plotly(chart)["data"]
    assert pie["type"] == "pie" and pie.get("hole") == hole
    totals = dict(zip(_values(pie["labels"]), _values(pie["values"]), strict=True))
    assert set(totals) == {"AAPL", "MSFT", "IBM"}
    for ticker, value in totals.items():
        assert value == pytest.approx(expected[ticker], rel=1e-6)
    assert to_png(chart, tmp_path / "pie.png").exists()
