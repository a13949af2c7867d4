"""Visualization interfaces build honest chart specs and tables from frames."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pytest

from datapilot.core.outputs import ChartOutput
from datapilot.interfaces import InterfaceError
from datapilot.interfaces import frame as F
from datapilot.interfaces import performance as PF
from datapilot.interfaces import prediction as PR
from datapilot.interfaces import processing as P
from datapilot.interfaces import visualization as V
from datapilot.interfaces.context import InterfaceContext


@pytest.fixture()
def ctx() -> InterfaceContext:
    return InterfaceContext(warehouse=None, catalog=None, today=date(2022, 12, 30))  # type: ignore[arg-type]


def prices(n: int = 120, seed: int = 0, start: str = "2022-01-03") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    index = pd.bdate_range(start, periods=n, name="date")
    values = 100 * np.exp(np.cumsum(rng.normal(0.0004, 0.012, size=(n, 2)), axis=0))
    frame = pd.DataFrame(values, index=index, columns=["AAA", "BBB"])
    return F.tag(frame, kind="timeseries", unit="USD", title="Close")


def ohlcv(n: int = 120) -> pd.DataFrame:
    close = prices(n)["AAA"].to_numpy()
    frame = pd.DataFrame(
        {
            "open": close * 0.995,
            "high": close * 1.01,
            "low": close * 0.985,
            "close": close,
            "volume": np.linspace(1e6, 2e6, n),
        },
        index=prices(n).index,
    )
    return F.tag(frame, kind="ohlcv", unit="USD", entity="AAA")


def table_of(chart: ChartOutput) -> pd.DataFrame:
    return pd.DataFrame(chart.spec.rows, columns=chart.spec.columns)


def test_line_chart_spec_has_iso_dates_units_and_one_line_per_column(ctx) -> None:
    frame = P.cumulative_returns(ctx, prices())
    chart = V.plot_line(ctx, frame, "Cumulative return, 2022")
    assert chart.chart_type == "line" and chart.title == "Cumulative return, 2022"
    assert chart.spec.x == "date" and chart.spec.columns == ["date", "AAA", "BBB"]
    assert chart.spec.rows[0][0] == "2022-01-03"
    panel = chart.spec.panels[0]
    assert panel.mark == "line" and panel.y == ["AAA", "BBB"] and panel.unit == "%"
    data = table_of(chart)
    assert data["BBB"].iloc[-1] == pytest.approx(frame["BBB"].iloc[-1], rel=1e-5)


def test_long_daily_histories_are_thinned_and_noted(ctx) -> None:
    chart = V.plot_line(ctx, prices(5000, start="1995-01-02"), "Close since 1995")
    assert len(chart.spec.rows) <= V.MAX_LINE_POINTS
    assert any("weekly points" in note for note in ctx.notes)


def test_bar_chart_of_ranked_returns(ctx) -> None:
    ranked = P.rank(ctx, P.period_return(ctx, prices()))
    chart = V.plot_bar(ctx, ranked, "Return, H1 2022")
    data = table_of(chart)
    assert chart.spec.x == "id" and data["id"].tolist() == ranked.index.tolist()
    assert chart.spec.panels[0].y == ["return_pct"] and chart.spec.panels[0].unit == "%"
    assert data["return_pct"].tolist() == pytest.approx(ranked["return_pct"].tolist(), rel=1e-5)
    close = V.plot_bar(ctx, ranked, "End values", column="end_value")
    assert close.spec.panels[0].unit == "USD"


def test_candlestick_panels_overlays_volume_and_indicators(ctx) -> None:
    bars = ohlcv()
    ma = F.tag(
        pd.DataFrame({"ma5": bars["close"].rolling(5).mean()}),
        kind="indicator",
        overlay=True,
        unit="USD",
    )
    macd = F.tag(
        pd.DataFrame({"macd": bars["close"] * 0.01, "signal": 0.5, "hist": 0.1}, index=bars.index),
        kind="indicator",
        title="MACD(12, 26, 9) of AAA",
        bar_columns=["hist"],
    )
    rsi = F.tag(pd.DataFrame({"rsi": 50.0}, index=bars.index), kind="indicator", levels=[30, 70])
    chart = V.plot_candlestick(ctx, bars, "AAA K-line", [ma, macd, rsi])
    marks = [(p.mark, tuple(p.y), p.overlay) for p in chart.spec.panels]
    assert marks == [
        ("candlestick", ("open", "high", "low", "close"), False),
        ("line", ("ma5",), True),
        ("bar", ("volume",), False),
        ("line", ("macd", "signal"), False),
        ("bar", ("hist",), True),
        ("line", ("rsi",), False),
    ]
    assert chart.spec.panels[3].title == "MACD(12, 26, 9)"
    assert chart.spec.panels[5].levels == [30, 70]
    data = table_of(chart)
    assert data["ma5"].iloc[:4].isna().all() and data["ma5"].iloc[4] == pytest.approx(
        bars["close"].iloc[:5].mean(), rel=1e-5
    )
    no_volume = V.plot_candlestick(ctx, bars, "AAA", volume=False)
    assert [p.mark for p in no_volume.spec.panels] == ["candlestick"]


def test_candlestick_needs_ohlc_and_thins_long_histories(ctx) -> None:
    with pytest.raises(InterfaceError, match="get_ohlcv"):
        V.plot_candlestick(ctx, prices(), "no OHLC")
    long = ohlcv(1200)
    chart = V.plot_candlestick(ctx, long, "Five years")
    assert len(chart.spec.rows) <= V.MAX_CANDLES
    data = table_of(chart)
    first_week = long.loc[: data["date"].iloc[0]]
    assert data["high"].iloc[0] == pytest.approx(first_week["high"].max(), rel=1e-5)
    assert any("weekly candles" in note for note in ctx.notes)


def test_scatter_fit_line_matches_least_squares(ctx) -> None:
    returns = P.compute_returns(ctx, prices(250))
    chart = V.plot_scatter(ctx, returns, "BBB vs AAA daily returns")
    fit = chart.spec.fit
    slope, intercept = np.polyfit(returns["AAA"], returns["BBB"], 1)
    assert fit is not None and fit.slope == pytest.approx(slope)
    assert fit.intercept == pytest.approx(intercept)
    assert fit.r2 == pytest.approx(returns["AAA"].corr(returns["BBB"]) ** 2)
    assert chart.spec.x == "AAA" and chart.spec.x_title == "AAA (%)"
    assert V.plot_scatter(ctx, returns, "no fit", fit=False).spec.fit is None


def test_forecast_chart_joins_history_and_band(ctx) -> None:
    history = prices(300)
    forecast = PR.forecast_naive(ctx, history, horizon=10)
    chart = V.plot_forecast(ctx, history, forecast, "AAA, next 10 days")
    data = table_of(chart).set_index("date")
    assert chart.spec.bands == [("lower", "upper")]
    assert chart.spec.panels[0].y == ["AAA", "forecast"]
    last_day = str(history.index[-1].date())
    assert data.loc[last_day, "forecast"] == pytest.approx(history["AAA"].iloc[-1], rel=1e-5)
    assert data["forecast"].notna().sum() == 11 and data["AAA"].notna().sum() == 252


def test_area_and_pie(ctx) -> None:
    area = V.plot_area(ctx, PF.drawdown(ctx, prices()), "Drawdown")
    assert area.chart_type == "area" and area.spec.panels[0].mark == "area"
    weights = F.tag(
        pd.DataFrame({"weight": [50.0, 30, 20]}, index=list("ABC")), kind="cross_section"
    )
    pie = V.plot_pie(ctx, weights, "Weights")
    assert pie.spec.panels[0].mark == "pie" and table_of(pie)["weight"].sum() == 100
    losses = F.tag(pd.DataFrame({"v": [2.0, -1.0]}, index=["A", "B"]), kind="cross_section")
    with pytest.raises(InterfaceError, match="non-negative"):
        V.plot_pie(ctx, losses, "bad")


def test_show_table_rounds_dates_and_truncates(ctx) -> None:
    table = V.show_table(ctx, PF.max_drawdown(ctx, prices()), "Max drawdown, 2022")
    assert table.columns == [
        "id",
        "max_drawdown_pct",
        "peak_date",
        "trough_date",
        "recovery_date",
        "recovery_sessions",
        "start_date",
        "end_date",
        "peak_value",
        "trough_value",
        "recovery_value",
    ]
    assert isinstance(table.rows[0][2], str) and len(table.rows[0][2]) == 10
    assert table.units == {
        "max_drawdown_pct": "%",
        "peak_value": "USD",
        "trough_value": "USD",
        "recovery_value": "USD",
    }
    assert V.table_cell(1234.5678) == 1234.57 and V.table_cell(0.87341) == 0.8734
    assert V.table_cell(np.nan) is None and V.table_cell(np.int64(3)) == 3
    long = V.show_table(ctx, prices(600), "Close", max_rows=100)
    assert len(long.rows) == 100 and long.rows[-1][0] == str(prices(600).index[-1].date())
    assert "latest 100 of 600" in ctx.notes[-1]
    csv = long.to_csv().splitlines()
    assert csv[0] == "date,AAA,BBB" and len(csv) == 101


def test_wrong_inputs_are_explained(ctx) -> None:
    with pytest.raises(InterfaceError, match="two numeric columns"):
        V.plot_scatter(ctx, prices()[["AAA"]], "one column")
    with pytest.raises(InterfaceError, match="not a forecast"):
        V.plot_forecast(ctx, prices(), prices(), "no forecast")


def test_ohlcv_frames_stand_for_their_close(ctx) -> None:
    bars = ohlcv(200)
    forecast = PR.forecast_naive(ctx, bars, horizon=5)
    assert forecast.attrs["entity"] == "AAA"
    chart = V.plot_forecast(ctx, bars, forecast, "AAA")
    assert chart.spec.panels[0].y == ["AAA", "forecast"]
    data = table_of(chart)
    assert data["AAA"].dropna().iloc[-1] == pytest.approx(bars["close"].iloc[-1], rel=1e-5)
    assert V.plot_line(ctx, bars, "AAA close").spec.panels[0].y == ["AAA"]


def test_columns_in_different_units_get_their_own_panels(ctx) -> None:
    index = pd.date_range("2000-01-01", periods=8, freq="QS", name="date")
    frame = F.tag(
        pd.DataFrame({"UNRATE": np.linspace(4, 6, 8), "GDPC1": np.linspace(9e3, 1e4, 8)}, index),
        kind="timeseries",
        unit="%; billions",
        units={"UNRATE": "%", "GDPC1": "billions"},
    )
    chart = V.plot_line(ctx, frame, "Unemployment and GDP")
    assert [(p.y, p.unit, p.overlay) for p in chart.spec.panels] == [
        (["UNRATE"], "%", False),
        (["GDPC1"], "billions", False),
    ]
    single = V.plot_line(ctx, prices(), "Close")
    assert len(single.spec.panels) == 1 and single.spec.panels[0].unit == "USD"


def _wide(columns: list[str], n: int = 30) -> pd.DataFrame:
    index = pd.bdate_range("2022-01-03", periods=n, name="date")
    values = np.linspace(1.0, 2.0, n)[:, None] * np.arange(1, len(columns) + 1)
    return F.tag(pd.DataFrame(values, index=index, columns=columns), kind="timeseries", unit="USD")


def test_a_title_listing_many_columns_names_their_count_and_keeps_the_window(ctx) -> None:
    columns = ["AAAA", "BBBB", "CCCC", "DDDD", "EEEE", "FFFF"]
    long = ", ".join(columns) + " closing price and more words, 2022-01-03 to 2022-02-11"
    chart = V.plot_line(ctx, _wide(columns), long)
    assert isinstance(chart, ChartOutput)
    assert chart.title == "Closing price and more words of 6 series, 2022-01-03 to 2022-02-11"
    # A short title is left as it was.
    short = V.plot_line(ctx, _wide(columns), "Six prices, 2022")
    assert isinstance(short, ChartOutput) and short.title == "Six prices, 2022"


def test_one_row_or_one_number_gives_a_table(ctx) -> None:
    one_day = V.plot_line(ctx, _wide(["AAA", "BBB"], n=1), "Close, 2022-01-03")
    assert one_day.kind == "table" and one_day.rows == [["2022-01-03", 1.0, 2.0]]
    cross = F.tag(
        pd.DataFrame({"return_pct": [12.5]}, index=pd.Index(["AAA"], name="id")),
        kind="cross_section",
        unit="%",
    )
    bar = V.plot_bar(ctx, cross, "Return, 2022")
    assert bar.kind == "table" and bar.rows == [["AAA", 12.5]]


def test_chinese_context_words_and_colours_the_candles(ctx) -> None:
    zh = InterfaceContext(warehouse=None, catalog=None, today=ctx.today, language="zh")  # type: ignore[arg-type]
    frame = _wide(["open", "high", "low", "close", "volume"])
    frame.attrs["kind"] = "ohlcv"
    english = V.plot_candlestick(ctx, frame, "K")
    chinese = V.plot_candlestick(zh, frame, "K")
    assert (english.spec.x_title, english.spec.panels[0].title) == ("Date", "Price")
    assert (chinese.spec.x_title, chinese.spec.panels[0].title) == ("日期", "价格")
    assert chinese.spec.panels[1].title == "成交量"
    # Red up in Chinese, green up in English.
    assert chinese.spec.up_color == "#e53935" and english.spec.up_color == "#26a69a"


@pytest.mark.parametrize(
    ("language", "headers", "blank"),
    [
        ("en", ["Id", "Maximum drawdown (%)", "Recovery date"], "not recovered"),
        ("zh", ["代码", "最大回撤（%）", "恢复日"], "未收复"),
    ],
)
def test_a_table_names_its_columns_and_says_what_a_blank_recovery_means(
    ctx: InterfaceContext, language: str, headers: list[str], blank: str
) -> None:
    frame = pd.DataFrame(
        {"max_drawdown_pct": [-25.43, -10.0], "recovery_date": [None, "2021-03-01"]},
        index=pd.Index(["^GSPC", "AAPL"], name="id"),
    )
    frame.attrs["units"] = {"max_drawdown_pct": "%"}
    asked = InterfaceContext(warehouse=None, catalog=None, today=ctx.today, language=language)  # type: ignore[arg-type]
    table = V.show_table(asked, frame, title="t")
    assert table.columns == ["id", "max_drawdown_pct", "recovery_date"]  # machine names stay
    assert table.headers == headers
    assert [row[2] for row in table.rows] == [blank, "2021-03-01"]
