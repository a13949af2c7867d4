"""Classes a fresh blind set found (each was an `ok` about something else), now read or declined:

- one series divided by another ("the Nasdaq's close divided by the S&P 500's", 比值, 除以);
- returns by their size ("the average absolute daily move", 涨跌幅（取绝对值）);
- the window's high less its low ("the difference between its highest and lowest close",
  最高价和最低价相差多少), with both days;
- closes at a record high counted ("how many days closed at a new all-time high", 创了几次历史新高)
  inside the window asked, against every earlier close in the data;
- the month with the highest average price: each month's mean, not the highest day;
- the share of months up ("what share of months did it finish up", 上涨月份占比);
- "held to year end 2020": the year's end, not a yearly frequency;
- arithmetic no reader does, or a measure the plan cannot make, is never `ok` with the figures
  beside it.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    "question",
    [
        "On March 10, 2000, what was the Nasdaq Composite's close divided by the S&P 500's close?",
        "2000年3月10日纳斯达克指数与标普500收盘点位的比值是多少？",
    ],
)
async def test_one_close_divided_by_another(data: Any, question: str) -> None:
    nasdaq = arch.data.nasdaq.load()["Close"].loc["2000-03-10"]
    sp500 = load_sp500_index()["SP500"].loc["2000-03-10"]
    answer = await ask_offline(question, date(2000, 4, 1))
    assert answer.status == "ok", answer.message
    assert f"{nasdaq / sp500:.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "蘋果2020年平均每個交易日的漲跌幅度（取絕對值）是多少？",
        "What was Apple's average absolute daily move in 2020?",
    ],
)
async def test_the_average_absolute_daily_move(data: Any, question: str) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2019-12-31":"2020-12-31"]
    moves = closes.pct_change().dropna() * 100
    answer = await ask_offline(question, date(2021, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{moves.abs().mean():.2f}%" in answer.summary, answer.summary
    assert f"{moves.mean():.2f}%" not in answer.summary  # the signed mean is another figure


@pytest.mark.parametrize(
    "question",
    [
        "Range Resources: difference between its highest and lowest closing price in 2021?",
        "范围资源2021年最高价和最低价相差多少？",
    ],
)
async def test_the_high_less_the_low(data: Any, question: str) -> None:
    closes = load_sp500_dataset()["RRC"].loc["2021"]
    answer = await ask_offline(question.replace("范围资源", "RRC"), date(2022, 1, 10))
    assert answer.status == "ok", answer.message
    said = answer.summary
    assert f"{closes.max() - closes.min():.2f}" in said, said
    for day in (closes.idxmax(), closes.idxmin()):
        assert f"{day:%Y-%m-%d}" in said, said


@pytest.mark.parametrize(
    "question",
    [
        "During 2020, on how many trading days did Apple close at a new all-time high?",
        "苹果2020年有多少天收盘创历史新高？",
    ],
)
async def test_record_closes_counted_in_the_window(data: Any, question: str) -> None:
    closes = load_sp500_dataset()["AAPL"]
    records = closes > closes.cummax().shift(1)
    expected = int(records.loc["2020"].sum())
    answer = await ask_offline(question, date(2021, 1, 5))
    assert answer.status == "ok", answer.message
    assert str(expected) in answer.summary, answer.summary
    assert f"{len(closes.loc['2020'])}" in answer.summary, answer.summary  # the 2020 sessions


async def test_the_month_with_the_highest_average(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO").loc["2008"].dropna()
    means = wti.groupby(wti.index.month).mean()
    question = "Which month of 2008 had the highest average WTI spot price, and what was it?"
    answer = await ask_offline(question, date(2009, 1, 10))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{means.max():.2f}" in text, text
    assert f"2008-{means.idxmax():02d}" in text, text
    assert f"{wti.max():.2f}" not in answer.summary  # the highest day is another figure


@pytest.mark.parametrize(
    ("question", "share"),
    [
        ("Between 2010 and 2019, what share of months did the S&P 500 finish up?", "% up"),
        ("2010年到2019年标普500上涨月份占比是多少？", "上涨占"),
    ],
)
async def test_the_share_of_months_up(data: Any, question: str, share: str) -> None:
    closes = load_sp500_index()["SP500"].loc["2009-12-31":"2019-12-31"]
    monthly = closes.resample("ME").last().pct_change().dropna()
    expected = (monthly > 0).mean() * 100
    answer = await ask_offline(question, date(2020, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary and share in answer.summary, answer.summary


async def test_year_end_names_a_day(data: Any) -> None:
    closes = load_sp500_dataset()["BBY"]
    expected = (closes.loc["2020-12-31"] / closes.loc["2020-03-23"] - 1) * 100
    question = (
        "If I bought Best Buy at the close on 3/23/2020 and held to year end 2020, "
        "what's my return?"
    )
    answer = await ask_offline(question, date(2021, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "What was Apple's 2021 close, squared?",
        "苹果2021年收盘价的平方是多少？",
        "What's the ratio of Apple's 2021 close to itself on its own?",
    ],
)
async def test_arithmetic_nothing_does_is_never_ok(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2022, 1, 10))
    assert answer.status == "no_data", answer.summary
