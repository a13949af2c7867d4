"""More classes a fresh blind set found, each now read:

- 第一次跌破30美元 (no 收盘 said) and "first time IBM closed above $200" (a name between): the
  first close past a level, over the whole history when no period is said;
- "$10,000 dropped into Pepsi": a sum invested;
- 实际私人国内投资: US real private domestic investment;
- "the 10 trading days before 2019-01-03 and … the 10 after": the second length anchored on the
  same day;
- "At the end of 2010, how far below its highest close since the start of 2000": the distance
  from the window's high, looked at from that day;
- a fall asked beside a first close back above a level, which no first close states, is
  declined rather than answered with the day alone.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values


async def test_the_first_fall_below_a_level_without_the_word_close(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2020"]
    below = closes[closes < 60]
    answer = await ask_offline("苹果2020年第一次跌破60美元是哪天？", date(2020, 12, 31))
    assert answer.status == "ok", answer.message
    assert below.index[0].date().isoformat() in answer.summary, answer.summary
    assert f"{below.iloc[0]:.2f}" in answer.summary, answer.summary


async def test_the_first_time_with_no_period_searches_the_whole_history(data: Any) -> None:
    closes = load_sp500_dataset()["JNJ"]
    closes = closes[closes.index <= "2022-12-28"]
    above = closes[closes > 100]
    answer = await ask_offline("first time JNJ closed above $100?", date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert above.index[0].date().isoformat() in answer.summary, answer.summary


async def test_a_sum_dropped_into_a_stock(data: Any) -> None:
    closes = load_sp500_dataset()["PEP"]
    start = closes.loc[:"2012-12-31"].iloc[-1]
    last = closes.loc[:"2022-12-31"].iloc[-1]
    question = (
        "Blog post idea: $10,000 dropped into Pepsi at the end of 2012 - what is it worth at the "
        "end of 2022?"
    )
    answer = await ask_offline(question, date(2023, 1, 5))
    assert answer.status == "ok", answer.message
    assert f"{10_000 * last / start:,.2f}" in answer.summary, answer.summary


async def test_real_private_domestic_investment_in_chinese(data: Any) -> None:
    investment = series_values(data, "GPDIC1")
    change = (investment.loc["2009-04-01"] / investment.loc["2008-04-01"] - 1) * 100
    answer = await ask_offline("2009年二季度美国实际私人国内投资同比下降了多少？", date(2009, 9, 1))
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_second_length_on_the_same_day_left_unsaid(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    day = pd.Timestamp("2019-01-03")  # trading days are weekdays (docs/asking.md)
    first, last = day - pd.offsets.BDay(10), day + pd.offsets.BDay(10)
    at, start, end = (closes.loc[:d].iloc[-1] for d in (day, first, last))
    before, after = (at / start - 1) * 100, (end / at - 1) * 100
    question = "Apple's return in the 10 trading days before 2019-01-03 and in the 10 after?"
    answer = await ask_offline(question, date(2019, 6, 30))
    assert answer.status == "ok", answer.message
    for figure in (before, after):
        assert f"{figure:.2f}%" in answer.summary, (figure, answer.summary)


async def test_a_distance_from_a_windows_high_looked_at_from_a_day(data: Any) -> None:
    closes = arch.data.nasdaq.load()["Adj Close"].loc["2000":"2010"]
    question = (
        "At the end of 2010, how far was the Nasdaq below its highest close since the start of "
        "2000? when was that high?"
    )
    answer = await ask_offline(question, date(2011, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{(1 - closes.iloc[-1] / closes.max()) * 100:.2f}%" in answer.summary, answer.summary
    assert closes.idxmax().date().isoformat() in answer.summary, answer.summary


async def test_a_fall_beside_a_first_close_back_is_declined_not_dropped(data: Any) -> None:
    question = (
        "During the COVID crash how far did the S&P 500 fall, and on which day did it first close "
        "back at or above its Feb 19 level?"
    )
    answer = await ask_offline(question, date(2021, 1, 4))
    assert answer.status != "ok", answer.summary


async def test_an_average_and_a_compounded_figure_of_one_year(data: Any) -> None:
    from arch.data import frenchdata

    raw = frenchdata.load()["RF"]
    labels = pd.to_datetime(raw.index.astype("int64").astype(str), format="%Y%m")
    months = pd.Series(raw.to_numpy(), index=labels).loc["2007"]
    compounded = ((1 + months / 100).prod() - 1) * 100
    question = "avg monthly risk-free rate (FF RF) in 2007? and compounded for the year?"
    answer = await ask_offline(question, date(2008, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{months.mean():.2f}%" in answer.summary, answer.summary
    assert f"{compounded:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "2018年最后一个交易日标普500收在多少点？全年跌了多少？",
        "What did the S&P 500 close at on the last trading day of 2018, and how much did it fall "
        "for the full year?",
    ],
)
async def test_the_whole_year_said_after_the_year(data: Any, question: str) -> None:
    sp = load_sp500_index()["SP500"]
    year = (sp.loc[:"2018-12-31"].iloc[-1] / sp.loc[:"2017-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(question, date(2019, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{year:.2f}%" in answer.summary, answer.summary
    assert f"{sp.loc['2018-12-31']:,.2f}" in answer.summary, answer.summary
