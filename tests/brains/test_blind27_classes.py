"""Classes a fresh blind set found, now read:

- costs left out ("ignore fees", 不计费用) are a caveat every figure meets, never a member
  removed from the names;
- "at its IPO-day close" is the first close in the data, as "since its IPO" is;
- a sum in words ("ten thousand dollars") is the amount invested;
- "the difference between the S&P 500's highest and lowest close": the name may sit between;
- a compounded monthly series names the dates the source gives its months;
- an everyday word left unread is never offered as a misspelt name (高点 is no 高盛);
- a drawdown's peak and trough words (高点和低点分别在哪天, 峰值和谷底) are read by its dates.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, bokeh_series, series_values


async def test_costs_left_out_are_no_exclusion(data: Any) -> None:
    closes = arch.data.nasdaq.load()["Adj Close"].loc["2016-12-30":"2017-12-31"]
    growth = (1 + 3 * closes.pct_change().dropna()).prod()
    question = "假如2017年用三倍日杠杆做多纳斯达克指数，不计费用的话全年收益多少？"
    answer = await ask_offline(question, date(2018, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{(growth - 1) * 100:.2f}%" in answer.summary, answer.summary
    assert not answer.notes[1:], answer.notes  # the leverage's note, no word left unread


async def test_an_amount_at_the_ipo_day_close(data: Any) -> None:
    closes = bokeh_series("GOOG")
    worth = 5_000 * closes.loc[:"2012-12-31"].iloc[-1] / closes.iloc[0]
    question = "5k into Google at its IPO-day close — what was it worth at the end of 2012?"
    answer = await ask_offline(question, date(2013, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary
    assert f"{closes.index[0]:%Y-%m-%d}" in answer.summary, answer.summary


async def test_an_amount_in_words(data: Any) -> None:
    closes = load_sp500_dataset()["LLY"]
    worth = 10_000 * closes.loc["2019-12-31"] / closes.loc["2014-12-31"]
    question = (
        "If I had put ten thousand dollars into Eli Lilly at the start of 2015, what would it "
        "have been worth at the end of 2019?"
    )
    answer = await ask_offline(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary


async def test_the_name_between_a_difference_and_its_extremes(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2020"]
    question = "What's the difference between the S&P 500's highest and lowest close in 2020?"
    answer = await ask_offline(question, date(2021, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{closes.max() - closes.min():,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "Fama-French市场超额收益（Mkt-RF）2000年到2002年按复利累计是多少？",
        "Compounded, what was the Fama-French market excess return (Mkt-RF) over 2000-2002?",
    ],
)
async def test_a_compounded_monthly_series_names_its_months_labels(
    data: Any, question: str
) -> None:
    returns = series_values(data, "FF_MKT_RF").loc["2000":"2002"]
    compounded = ((1 + returns / 100).prod() - 1) * 100
    answer = await ask_offline(question, date(2003, 2, 1))
    assert answer.status == "ok", answer.message
    said = answer.summary
    assert f"{compounded:.2f}%" in said, said
    assert f"{returns.index[0]:%Y-%m-%d}" in said and f"{returns.index[-1]:%Y-%m-%d}" in said
    assert not answer.notes, answer.notes


async def test_an_everyday_word_is_never_offered_as_a_name(data: Any) -> None:
    answer = await ask_offline("微软现在离52周高点还差多少？高点是哪天", date(2022, 12, 28))
    assert "您是说" not in " ".join([answer.summary, answer.message or "", *answer.notes])


@pytest.mark.parametrize(
    "question",
    [
        "去年标普500的最大回撤是多少？高点和低点分别在哪天？",
        "标普500 2022年的最大回撤，峰值和谷底日期？",
    ],
)
async def test_a_drawdowns_peak_and_trough_words_are_read(data: Any, question: str) -> None:
    closes = load_sp500_index()["SP500"].loc["2021-12-31":"2022-12-31"]
    drawdown = closes / closes.cummax() - 1
    answer = await ask_offline(question, date(2023, 1, 5))
    assert answer.status == "ok", answer.message
    assert f"{drawdown.idxmin():%Y-%m-%d}" in answer.summary, answer.summary
    assert not any("没有读懂" in note for note in answer.notes), answer.notes  # every word read
