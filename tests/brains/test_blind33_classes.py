"""Classes a fresh blind set found, now read:

- "when did the S&P 500 recover from the COVID crash", 新冠暴跌后哪天收复了疫情前的高点: the named
  fall's maximum drawdown, its trough within the fall's days, with its peak (date and value),
  trough and recovery dates; a fall with no days of its own is not guessed at;
- "a 2x daily-leveraged position": the hyphen joins the words, the leverage is read;
- "taking the risk-free rate as 1%": the Sharpe ratio's rate;
- 写年报要用：… what the user writes with the figures, not a company's report asked;
- 用年度平均值来比的话: a change between averages, declined (no change between ends instead).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, shown
from support.numeric_expect import fall_and_recovery


@pytest.mark.parametrize(
    "question",
    [
        "When did the S&P 500 recover from the COVID crash?",
        "标普500新冠暴跌后哪天收复了疫情前的高点？",
    ],
)
async def test_a_recovery_from_a_named_fall(data: Any, question: str) -> None:
    closes = load_sp500_index()["SP500"]
    peak_day, trough_day, recovered = fall_and_recovery(
        closes, "2020-02-19", "2020-03-23", "2020-03-23"
    )
    # Asked in 2023: the 2022 fall came after, and it is not the one asked about.
    answer = await ask_offline(question, date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for day in (peak_day, trough_day, recovered):
        assert f"{day:%Y-%m-%d}" in text, text
    assert f"{closes.loc[peak_day]:.2f}" in text, text


async def test_a_fall_without_days_is_not_guessed(data: Any) -> None:
    answer = await ask_offline(
        "When did the S&P 500 recover from the 2018 Q4 selloff?", date(2023, 1, 10)
    )
    assert answer.status == "no_data", answer.summary


async def test_a_hyphenated_daily_leverage(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2018-12-31":"2019-12-31"]
    leveraged = ((1 + 2 * closes.pct_change().dropna()).prod() - 1) * 100
    question = (
        "What would a 2x daily-leveraged S&P 500 position have returned over 2019, ignoring fees?"
    )
    answer = await ask_offline(question, date(2020, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{leveraged:.2f}%" in answer.summary, answer.summary


async def test_a_risk_free_rate_taken_as(data: Any) -> None:
    closes = load_sp500_dataset()["JNJ"].loc["2016-12-30":"2017-12-29"]
    daily = closes.pct_change().dropna()
    excess = daily - 0.01 / 252
    sharpe = excess.mean() / daily.std(ddof=1) * np.sqrt(252)
    question = "Sharpe ratio of J&J for 2017, taking the risk-free rate as 1%?"
    answer = await ask_offline(question, date(2018, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{sharpe:.2f}" in answer.summary, answer.summary


async def test_a_report_the_user_writes_is_no_report_asked(data: Any) -> None:
    closes = load_sp500_dataset()[["JPM", "BAC"]]
    returns = (closes.loc["2021-12-31"] / closes.loc["2020-12-31"] - 1) * 100
    answer = await ask_offline(
        "写年报要用：摩根大通和美国银行2021年的累计收益率分别是多少？", date(2022, 1, 20)
    )
    assert answer.status == "ok", answer.message
    for figure in returns:
        assert f"{figure:.2f}%" in answer.summary, answer.summary


async def test_a_change_between_averages_said_with_yong(data: Any) -> None:
    answer = await ask_offline(
        "用年度平均值来比的话，2008年美国实际GDP比2007年增长了多少？", date(2009, 12, 1)
    )
    assert answer.status == "no_data", answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "VIX in 2018: highest close, lowest close, and the gap between the two?",
        "VIX 2018年最高收盘、最低收盘，以及两者相差多少？",
    ],
)
async def test_two_extremes_listed_then_their_gap(data: Any, question: str) -> None:
    import arch.data.vix

    closes = arch.data.vix.load()["vix"].loc["2018"]
    answer = await ask_offline(question, date(2019, 2, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for figure in (closes.max(), closes.min(), closes.max() - closes.min()):
        assert f"{figure:.2f}" in text, text
    assert f"{closes.idxmax():%Y-%m-%d}" in text and f"{closes.idxmin():%Y-%m-%d}" in text
