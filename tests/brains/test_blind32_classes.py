"""Classes a fresh blind set found, now read:

- "out of the 120 months from 2010 through 2019, in how many did Coca-Cola finish up": a count
  of the months up, its unit said before "how many";
- arithmetic on a figure ("give me its square", 收益率的平方): declined, never the figure alone;
- 三倍杠杆（每日调仓）: how the leverage is kept is no frequency of its own, so the year's
  leveraged return is answered, not a table of daily returns;
- 变动了多少个百分点: a rate's change in points over a calendar year, from the last value before it;
- 几次死叉: the count states the sessions it was taken over;
- traditional characters read as simplified everywhere (無風險利率按2%計算);
- "how far was its close from its 200-day moving average", 离200日均线有多远: the gap in percent.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, series_values, shown


async def test_the_months_counted_are_said_before_how_many(data: Any) -> None:
    month_ends = load_sp500_dataset()["KO"].loc["2009-12-31":"2019-12-31"].resample("ME").last()
    moves = month_ends.pct_change().dropna()
    question = "Out of the 120 months from 2010 through 2019, in how many did Coca-Cola finish up?"
    answer = await ask_offline(question, date(2020, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{(moves > 0).sum()} of {len(moves)} months" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question", ["Take Apple's 2021 return and give me its square.", "苹果2021年收益率的平方是多少"]
)
async def test_arithmetic_on_a_figure_is_declined(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2022, 3, 1))
    assert answer.status == "no_data", answer.summary
    assert "square" in (answer.message or "") or "平方" in (answer.message or "")


async def test_how_leverage_is_kept_is_no_frequency(data: Any) -> None:
    closes = arch.data.nasdaq.load()["Adj Close"].loc["2017-12-29":"2018-12-31"]
    leveraged = ((1 + 3 * closes.pct_change().dropna()).prod() - 1) * 100
    question = "如果2018年用三倍杠杆（每日调仓）做多纳斯达克，不计费用全年收益是多少"
    answer = await ask_offline(question, date(2019, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{leveraged:.2f}%" in answer.summary, answer.summary


async def test_a_rates_change_in_points_over_a_calendar_year(data: Any) -> None:
    rate = series_values(data, "TB3MS")
    change = rate.loc["2008"].iloc[-1] - rate.loc[:"2007-12-31"].iloc[-1]
    answer = await ask_offline("2008年三个月国债利率变动了多少个百分点？", date(2009, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{abs(change):.2f}个百分点" in answer.summary, answer.summary


async def test_a_count_of_crosses_states_its_sessions(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2022"]
    answer = await ask_offline(
        "苹果2022年出现了几次死叉（50日均线下穿200日均线）？", date(2022, 12, 28)
    )
    assert answer.status == "ok", answer.message
    assert f"{closes.index[0]:%Y-%m-%d}至{closes.index[-1]:%Y-%m-%d}" in answer.summary


async def test_traditional_characters_are_read_everywhere(data: Any) -> None:
    answer = await ask_offline(
        "可口可樂2019年的夏普比率是多少（無風險利率按2%計算）？", date(2020, 1, 20)
    )
    assert answer.status == "ok", answer.message
    assert "2.00%" in answer.summary and "FF_RF" not in shown(answer), answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "On June 16, 2022, how far was Apple's close from its 200-day moving average?",
        "苹果2022年6月16日收盘离200日均线有多远",
    ],
)
async def test_how_far_from_a_moving_average(data: Any, question: str) -> None:
    closes = load_sp500_dataset()["AAPL"]
    average = closes.rolling(200).mean().loc["2022-06-16"]
    gap = (closes.loc["2022-06-16"] / average - 1) * 100
    answer = await ask_offline(question, date(2022, 7, 1))
    assert answer.status == "ok", answer.message
    assert f"{abs(gap):.2f}%" in answer.summary, answer.summary
    assert not answer.notes or all("多远" not in n for n in answer.notes), answer.notes
