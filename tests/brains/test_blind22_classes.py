"""Classes a fresh blind set found, each now read:

- a spread on one date is said with its two legs ("what were Moody's Baa and Aaa yields, and the
  spread?", 布伦特和WTI月均价差);
- "the current 10-year Treasury yield": a tenor after "current", never a length from today (it
  ended the reading with an error);
- the close against its moving average (比200日均线低多少（百分比）, "how did the close that day
  compare"): the gap in percent, said;
- a limerick is not a data question;
- "the price for January 2020, and the change versus January 2019": the change runs from the
  period said against to the other part's;
- "the record close and how far below it is the index now": the all-time high, pointed at.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values


@pytest.mark.parametrize(
    ("question", "today", "legs", "day"),
    [
        (
            "In December 2008, what were Moody's Baa and Aaa corporate yields, and the Baa–Aaa "
            "spread?",
            date(2019, 1, 10),
            ("BAA", "AAA"),
            "2008-12-01",
        ),
        (
            "2019年12月布伦特和WTI月均价差多少美元？",
            date(2020, 1, 20),
            ("MCOILBRENTEU", "MCOILWTICO"),
            "2019-12-01",
        ),
    ],
)
async def test_a_spread_on_one_date_is_said_with_its_legs(
    data: Any, question: str, today: date, legs: tuple[str, str], day: str
) -> None:
    a, b = (series_values(data, leg).loc[day] for leg in legs)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for figure in (a, b, a - b):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)


async def test_the_current_ten_year_yield_is_read_without_an_error(data: Any) -> None:
    answer = await ask_offline("What's the current 10-year Treasury yield?", date(2022, 12, 30))
    assert answer.status == "no_data", answer.message
    assert "DGS10" in (answer.message or "")


def _moving_average(closes: Any, window: int, day: str) -> float:
    return float(closes.loc[:day].iloc[-window:].mean())


@pytest.mark.parametrize(
    ("question", "ticker", "window", "day", "today"),
    [
        (
            "What was Microsoft's 50-day moving average at the end of 2021, and how did the close "
            "that day compare?",
            "MSFT",
            50,
            "2021-12-31",
            date(2022, 12, 30),
        ),
        (
            "苹果2021年最后一个交易日收盘多少？比200日均线高多少（百分比）？",
            "AAPL",
            200,
            "2021-12-31",
            date(2022, 1, 5),
        ),
    ],
)
async def test_the_close_against_its_moving_average_in_percent(
    data: Any, question: str, ticker: str, window: int, day: str, today: date
) -> None:
    closes = load_sp500_dataset()[ticker]
    average = _moving_average(closes, window, day)
    gap = (closes.loc[day] / average - 1) * 100
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{average:,.2f}" in answer.summary, answer.summary
    assert f"{abs(gap):.2f}%" in answer.summary, answer.summary
    assert not answer.notes or all("百分比" not in n for n in answer.notes), answer.notes


async def test_a_limerick_is_out_of_scope(data: Any) -> None:
    question = "Can you write me a limerick about a bear market for my newsletter?"
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "out_of_scope"


async def test_a_change_said_against_another_period_runs_between_the_two(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU")
    change = (brent.loc["2020-01-01"] / brent.loc["2019-01-01"] - 1) * 100
    question = (
        "Brent crude monthly price for January 2020, and the change versus January 2019 in percent?"
    )
    answer = await ask_offline(question, date(2020, 2, 10))
    assert answer.status == "ok", answer.message
    assert f"{brent.loc['2020-01-01']:.2f}" in answer.summary, answer.summary
    assert f"{change:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "What's the S&P 500's record close and how far below it is the index now?",
        "how far below its record close is the S&P 500 now?",
    ],
)
async def test_a_record_close_pointed_at_is_the_all_time_high(data: Any, question: str) -> None:
    closes = load_sp500_index()["SP500"]
    distance = (closes.iloc[-1] / closes.max() - 1) * 100
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{closes.max():,.2f}" in answer.summary, answer.summary
    assert f"{abs(distance):.2f}%" in answer.summary, answer.summary
