"""Classes a fresh blind set found, now read:

- "涨幅最大的是哪个月", "which month had the biggest gain": the months ranked by their return,
  never the month of the highest close; 涨幅第二大 names the first two, the second among them;
- how many periods are asked ("the best three quarters", 最好的3个月): that many;
- "how much did it return per year": the compound annual return, not each year's return.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline
from support.numeric_expect import fall_and_recovery, source_frame


def _period_returns(ticker: str, rule: str, year: str) -> Any:
    closes = source_frame("skfolio_sp500")[ticker]
    base = closes.loc[: f"{int(year) - 1}-12-31"].iloc[-1:]
    ends = closes.loc[year].resample(rule).last()
    return (ends / ends.shift(1).fillna(base.iloc[0]) - 1) * 100


@pytest.mark.parametrize(
    ("question", "rank"),
    [
        ("苹果2020年涨幅最大的是哪个月？涨了多少？", 1),
        ("Which month of 2020 had Apple's biggest gain?", 1),
        ("苹果2020年涨幅第二大的是哪个月？涨了多少？", 2),
    ],
)
async def test_the_month_of_the_biggest_gain_ranks_months_by_return(
    data: Any, question: str, rank: int
) -> None:
    monthly = _period_returns("AAPL", "ME", "2020").sort_values(ascending=False)
    answer = await ask_offline(question, date(2021, 1, 15))
    assert answer.status == "ok", answer.message
    month, value = monthly.index[rank - 1], monthly.iloc[rank - 1]
    assert f"{month:%Y-%m}" in answer.summary and f"{value:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "rule", "n"),
    [
        ("Apple's best three quarters of 2020", "QE", 3),
        ("苹果2020年表现最好的3个月", "ME", 3),
        ("苹果2020年表现最好的三个季度", "QE", 3),
    ],
)
async def test_as_many_periods_as_asked(data: Any, question: str, rule: str, n: int) -> None:
    ranked = _period_returns("AAPL", rule, "2020").sort_values(ascending=False)
    answer = await ask_offline(question, date(2021, 1, 15))
    assert answer.status == "ok", answer.message
    for value in ranked.iloc[:n]:
        assert f"{value:.2f}%" in answer.summary, answer.summary
    assert f"{ranked.iloc[n]:.2f}%" not in answer.summary, answer.summary


async def test_a_return_per_year_is_the_compound_annual_return(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["PFE"]
    start, end = closes.loc[:"2009-12-31"].iloc[-1], closes.loc[:"2019-12-31"].iloc[-1]
    years = (closes.loc[:"2019-12-31"].index[-1] - closes.loc[:"2009-12-31"].index[-1]).days
    cagr = ((end / start) ** (365.25 / years) - 1) * 100
    answer = await ask_offline(
        "how much did pfizer stock return per year from 2010 through 2019?", date(2020, 2, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "how many calendar days did it take the S&P 500 to close back at its pre-COVID peak?",
        "how long did it take the S&P 500 to get back to its pre-COVID peak?",
        "标普500用了多少天收复新冠暴跌前的高点？",
    ],
)
async def test_how_long_a_recovery_took_in_calendar_days(data: Any, question: str) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2020"]
    peak_day, _, back = fall_and_recovery(closes, "2020-01-01", "2020-03-23", "2020-03-23")
    answer = await ask_offline(question, date(2020, 12, 31))
    assert answer.status == "ok", answer.message
    assert f"{back:%Y-%m-%d}" in answer.summary, answer.summary
    assert str((back - peak_day).days) in answer.summary, answer.summary


async def test_trading_days_a_recovery_took_are_not_answered_in_calendar_days(data: Any) -> None:
    answer = await ask_offline(
        "how many trading days did it take the S&P 500 to close back at its pre-COVID peak?",
        date(2020, 12, 31),
    )
    assert answer.status != "ok", answer.summary
