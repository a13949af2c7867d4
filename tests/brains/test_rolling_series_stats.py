"""A statistic of the series a measure produced: "the average 30-day volatility in 2020" is the
mean of the 30-day rolling volatility over 2020's sessions (warmed up before the window), not
the mean of the closes or the annualised volatility of the whole year. Figures are computed here
with pandas from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _rolling_volatility(ticker: str, days: int, year: str) -> pd.Series:
    prices = load_sp500_dataset()[ticker]
    returns = prices.pct_change() * 100
    return (returns.rolling(days).std() * np.sqrt(252))[year]


@pytest.mark.parametrize(
    ("question", "ticker", "days", "year", "stat"),
    [
        ("average 30-day volatility of Apple in 2020", "AAPL", 30, "2020", "mean"),
        ("苹果2020年30日滚动波动率的平均值", "AAPL", 30, "2020", "mean"),
        ("median 60-day rolling volatility of Microsoft in 2019", "MSFT", 60, "2019", "median"),
        ("微软2019年60日滚动波动率的中位数", "MSFT", 60, "2019", "median"),
    ],
)
async def test_a_statistic_of_a_rolling_volatility_is_taken_over_that_series(
    data: Any, question: str, ticker: str, days: int, year: str, stat: str
) -> None:
    series = _rolling_volatility(ticker, days, year)
    expected = series.mean() if stat == "mean" else series.median()
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok"
    assert f"{expected:.2f}%" in answer.summary, answer.summary
    closes = load_sp500_dataset()[ticker][year]
    assert f"{closes.mean():.2f}" not in answer.summary  # not the closes' mean


def _rolling_correlation(days: int, year: str) -> pd.Series:
    returns = load_sp500_dataset()[["AAPL", "MSFT"]].pct_change()
    return returns["AAPL"].rolling(days).corr(returns["MSFT"])[year]


@pytest.mark.parametrize(
    ("question", "side"),
    [
        ("the lowest 20-day rolling correlation between Apple and Microsoft in 2020", "low"),
        ("苹果和微软2020年20日滚动相关系数的最低值", "low"),
        ("the highest 20-day rolling correlation of Apple and Microsoft in 2020", "high"),
    ],
)
async def test_an_extreme_of_a_rolling_correlation_is_that_series_extreme_dated(
    data: Any, question: str, side: str
) -> None:
    series = _rolling_correlation(20, "2020")
    day = series.idxmin() if side == "low" else series.idxmax()
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok"
    assert f"{series[day]:.2f}" in answer.summary and f"{day:%Y-%m-%d}" in answer.summary
    prices = load_sp500_dataset()[["AAPL", "MSFT"]]
    whole = prices.pct_change().loc["2020"].corr().iloc[0, 1]
    assert f"{whole:.2f}" not in answer.summary  # not the window's one correlation


@pytest.mark.parametrize(
    "question",
    [
        "average 20-day rolling correlation of Apple and Microsoft in 2020",
        "苹果和微软2020年20日滚动相关系数的平均值",
    ],
)
async def test_the_mean_of_a_rolling_correlation(data: Any, question: str) -> None:
    expected = _rolling_correlation(20, "2020").mean()
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok"
    assert f"{expected:.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("What is Apple's 30-day volatility?", "2022-12-28"),
        ("苹果30日波动率是多少", "2022-12-28"),
        ("Apple 30-day volatility at the end of 2021", "2021-12-31"),
    ],
)
async def test_a_length_of_the_volatility_asks_its_rolling_value(
    data: Any, question: str, day: str
) -> None:
    """ "Apple's 30-day volatility" is the 30-day rolling figure on the day asked (the last one
    when none is), never the whole year's volatility."""
    prices = load_sp500_dataset()["AAPL"]
    returns = prices.pct_change()
    rolling = returns.rolling(30).std() * np.sqrt(252) * 100
    year = returns[: pd.Timestamp(TODAY)].iloc[-250:].std() * np.sqrt(252) * 100
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{rolling[day]:.2f}%" in answer.summary, answer.summary
    assert f"{year:.2f}%" not in answer.summary


async def test_a_length_of_another_measure_leaves_the_volatility_whole(data: Any) -> None:
    """ "20-day MA …, plus the volatility": the length is the average's; the volatility is the
    year's annualised figure."""
    returns = load_sp500_dataset()["MSFT"].pct_change()["2022"]
    expected = returns.std() * np.sqrt(252) * 100
    answer = await ask(
        "Microsoft price chart and 20-day MA in 2022, plus the volatility",
        QuestionContext(today=TODAY, brain="offline"),
    )
    assert answer.status == "ok"
    assert f"{expected:.2f}%" in answer.summary, answer.summary
