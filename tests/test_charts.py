"""Every chart type renders to a Plotly figure and to a PNG, atomically."""

from __future__ import annotations

import json
import warnings
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel
from datapilot.interfaces import frame as F
from datapilot.interfaces import performance as PF
from datapilot.interfaces import prediction as PR
from datapilot.interfaces import processing as P
from datapilot.interfaces import visualization as V
from datapilot.interfaces.context import InterfaceContext
from datapilot.render.charts import to_plotly, to_png

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _ctx() -> InterfaceContext:
    return InterfaceContext(warehouse=None, catalog=None, today=date(2022, 12, 30))  # type: ignore[arg-type]


def _prices(n: int = 160) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    index = pd.bdate_range("2022-01-03", periods=n, name="date")
    values = 100 * np.exp(np.cumsum(rng.normal(0.0004, 0.012, size=(n, 2)), axis=0))
    return F.tag(
        pd.DataFrame(values, index=index, columns=["AAA", "BBB"]),
        kind="timeseries",
        unit="USD",
        title="Close",
    )


def _candles() -> ChartOutput:
    prices = _prices()
    close = prices["AAA"]
    bars = F.tag(
        pd.DataFrame(
            {
                "open": close.shift(1).fillna(close.iloc[0]),
                "high": close * 1.01,
                "low": close * 0.985,
                "close": close,
                "volume": np.linspace(1e6, 3e6, len(close)),
            }
        ),
        kind="ohlcv",
        unit="USD",
    )
    fast, slow = close.ewm(span=12).mean(), close.ewm(span=26).mean()
    macd_line = fast - slow
    signal = macd_line.ewm(span=9).mean()
    macd = F.tag(
        pd.DataFrame({"macd": macd_line, "signal": signal, "hist": macd_line - signal}),
        kind="indicator",
        unit="USD",
        title="MACD(12, 26, 9) of AAA",
        bar_columns=["hist"],
    )
    ma = F.tag(
        pd.DataFrame({"ma5": close.rolling(5).mean(), "ma20": close.rolling(20).mean()}),
        kind="indicator",
        unit="USD",
        overlay=True,
    )
    return V.plot_candlestick(_ctx(), bars, "AAA daily K-line with MA and MACD", [ma, macd])


def _charts() -> dict[str, ChartOutput]:
    ctx = _ctx()
    prices = _prices()
    returns = P.compute_returns(ctx, prices)
    forecast = PR.forecast_arima(ctx, prices, horizon=15)
    weights = F.tag(
        pd.DataFrame({"weight": [45.0, 35.0, 20.0]}, index=pd.Index(list("ABC"), name="id")),
        kind="cross_section",
        unit="%",
    )
    return {
        "line": V.plot_line(ctx, P.cumulative_returns(ctx, prices), "Cumulative return, 2022"),
        "bar": V.plot_bar(ctx, P.rank(ctx, P.period_return(ctx, prices)), "Return, 2022"),
        "candlestick": _candles(),
        "scatter": V.plot_scatter(ctx, returns, "Daily returns, BBB vs AAA"),
        "area": V.plot_area(ctx, PF.drawdown(ctx, prices), "Drawdown, 2022"),
        "pie": V.plot_pie(ctx, weights, "Weights"),
        "forecast": V.plot_forecast(ctx, prices, forecast, "AAA, next 15 trading days"),
    }


CHART_NAMES = ["line", "bar", "candlestick", "scatter", "area", "pie", "forecast"]


@pytest.fixture(scope="module")
def charts() -> dict[str, ChartOutput]:
    return _charts()


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
    ctx = _ctx()
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
