"""Charts of every type on made-up prices, shared by the chart and the Plotly figure tests."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from datapilot.core.outputs import ChartOutput
from datapilot.interfaces import frame as F
from datapilot.interfaces import performance as PF
from datapilot.interfaces import prediction as PR
from datapilot.interfaces import processing as P
from datapilot.interfaces import visualization as V
from datapilot.interfaces.context import InterfaceContext


def chart_context() -> InterfaceContext:
    return InterfaceContext(warehouse=None, catalog=None, today=date(2022, 12, 30))  # type: ignore[arg-type]


def sample_prices(n: int = 160) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    index = pd.bdate_range("2022-01-03", periods=n, name="date")
    values = 100 * np.exp(np.cumsum(rng.normal(0.0004, 0.012, size=(n, 2)), axis=0))
    return F.tag(
        pd.DataFrame(values, index=index, columns=["AAA", "BBB"]),
        kind="timeseries",
        unit="USD",
        title="Close",
    )


def candlestick_chart() -> ChartOutput:
    prices = sample_prices()
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
    return V.plot_candlestick(
        chart_context(), bars, "AAA daily K-line with MA and MACD", [ma, macd]
    )


def sample_charts() -> dict[str, ChartOutput]:
    ctx = chart_context()
    prices = sample_prices()
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
        "candlestick": candlestick_chart(),
        "scatter": V.plot_scatter(ctx, returns, "Daily returns, BBB vs AAA"),
        "area": V.plot_area(ctx, PF.drawdown(ctx, prices), "Drawdown, 2022"),
        "pie": V.plot_pie(ctx, weights, "Weights"),
        "forecast": V.plot_forecast(ctx, prices, forecast, "AAA, next 15 trading days"),
    }
