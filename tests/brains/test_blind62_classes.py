"""Classes a fresh blind set (blind62) found, each failing before its fix:

- a request said as a sentence of one's own ("I need the ending value, the cumulative return and
  the compound annual growth rate") asks those measures; it tells nothing;
- an amount invested states the gain or loss in money beside the value ("how much did they
  make in dollars");
- 从高点跌到低点 is the maximum drawdown, its peak and trough said with their values, and "the
  highest quarter" that names its peak is not a ranking of quarters by return;
- "how many bps did it move versus Dec 2007" is one move from that month's own value;
- a figure a question checks is the claim, not a threshold: 真有50%吗 after a Chinese comma,
  a claimed level checked by the extreme asked next ("never got above $120 … What was the
  highest monthly price"), a textbook's claim in a sentence before the question;
- "(index level, no dividends)" is a caveat an index meets, not a request for dividends;
  "$80k went into", "$500k was split 60/40 between" are sums put in, and two closes bound
  the holding.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import buy_and_hold, source_frame


def _closes(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _index() -> pd.Series:
    return source_frame("skfolio_index")["^GSPC"].dropna()


def _between(closes: pd.Series, start: str, end: str) -> float:
    return float(closes.loc[:end].iloc[-1] / closes.loc[:start].iloc[-1])


async def test_a_request_said_as_a_sentence_asks_its_measures(data: Any) -> None:
    growth = _between(_closes("HD"), "2015-12-31", "2020-12-31")
    days = (pd.Timestamp("2020-12-31") - pd.Timestamp("2015-12-31")).days
    cagr = (growth ** (365.25 / days) - 1) * 100
    answer = await ask_offline(
        "Client bought $120,000 of Home Depot at the 2015 year-end close and we're valuing it at "
        "the 2020 year-end close. I need the ending value, the cumulative return and the "
        "compound annual growth rate for the letter.",
        date(2021, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary
    assert f"{120_000 * growth:,.0f}" in answer.summary, answer.summary


async def test_an_investment_states_the_money_made(data: Any) -> None:
    growth = _between(_closes("XOM"), "2020-11-02", "2022-06-08")
    answer = await ask_offline(
        "they put $75,000 into Exxon Mobil at the close on November 2, 2020 and sold at the "
        "close on June 8, 2022. How much did they make in dollars, and what's the percent return?",
        date(2022, 6, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"a gain of {75_000 * (growth - 1):,.0f}" in answer.summary, answer.summary


async def test_peak_to_trough_is_the_drawdown_with_its_levels(data: Any) -> None:
    gdp = series_values(data, "GDPC1").loc["1973":"1975"]
    below = gdp / gdp.cummax() - 1
    trough_day = below.idxmin()
    peak_day = gdp.loc[:trough_day].idxmax()
    fall = below.min() * 100
    answer = await ask_offline(
        "1973到1975年那次衰退，美国实际GDP从高点跌到低点，一共跌了百分之几？高点取1973-74年中最高的"
        "季度，低点取1974-75年中最低的季度，分别是哪个季度？",
        date(2015, 9, 1),
    )
    assert answer.status == "ok", answer.message
    for said in (f"{fall:.2f}%", f"{gdp[peak_day]:,.2f}", f"{peak_day:%Y-%m-%d}"):
        assert said in answer.summary, answer.summary


async def test_basis_points_moved_versus_another_month(data: Any) -> None:
    baa = series_values(data, "BAA")
    moved = (baa.loc["2008-12-01"] - baa.loc["2007-12-01"]) * 100
    answer = await ask_offline(
        "Moody's Baa: where was the yield in Dec 2008, and how many bps did it move versus "
        "Dec 2007?",
        date(2009, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{moved:.0f} basis points" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "today", "expected"),
    [
        (
            "网上说标普500从2020年2月19日收盘到3月23日收盘跌了一半，真有50%吗？",
            date(2020, 6, 1),
            lambda data: (_between(_index(), "2020-02-19", "2020-03-23") - 1) * 100,
        ),
        (
            "Someone told me Brent never got above $120 a barrel in 2008 on a monthly basis. "
            "True? What was the highest monthly price and when?",
            date(2009, 3, 1),
            lambda data: series_values(data, "MCOILBRENTEU").loc["2008"].max(),
        ),
        (
            "教科书说1981-82年那次衰退失业率冲到了10%以上。按季度失业率数据看，1980年到1983年之间"
            "失业率最高是哪个季度，是多少？",
            date(1990, 1, 1),
            lambda data: series_values(data, "UNRATE").loc["1980":"1983"].max(),
        ),
    ],
)
async def test_a_checked_figure_is_the_claim(
    data: Any, question: str, today: date, expected: Any
) -> None:
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{expected(data):,.2f}" in answer.summary, answer.summary


async def test_no_dividends_is_a_caveat_an_index_meets(data: Any) -> None:
    growth = _between(_index(), "2009-03-09", "2019-03-08")
    answer = await ask_offline(
        "For a client letter: $80k went into the S&P 500 at the close on 2009-03-09 and was "
        "marked at the close on 2019-03-08. What was it worth at that point, and what was the "
        "annualized return over the holding period? (index level, no dividends)",
        date(2019, 4, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{80_000 * growth:,.0f}" in answer.summary, answer.summary


async def test_a_sum_split_over_a_basket_between_two_closes(data: Any) -> None:
    held = buy_and_hold(
        source_frame("skfolio_sp500"), {"MSFT": 0.6, "PG": 0.4}, "2019-12-31", "2021-12-31"
    )
    worth = 500_000 * held.iloc[-1] / 100
    answer = await ask_offline(
        "Client letter: $500k was split 60/40 between Microsoft and Procter & Gamble at the close "
        "on Dec 31, 2019 and never rebalanced. What was the combined portfolio worth at the close "
        "on Dec 31, 2021, and its total return?",
        date(2022, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{worth:,.0f}" in answer.summary, answer.summary
    assert f"{held.iloc[-1] - 100:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "如果有人2007年10月9日收盘价站岗买入标普500，要熬到哪一天收盘才算回本？从买入到回本一共隔了"
        "多少个自然日？",
        "If you bought the S&P 500 at the close on 2007-10-09, when did it break even?",
    ],
)
async def test_breaking_even_is_the_first_close_back_at_the_purchase_close(
    data: Any, question: str
) -> None:
    index = _index()
    bought = index.loc["2007-10-09"]
    after = index.loc["2007-10-10":]
    back = after[after >= bought].index[0]
    answer = await ask_offline(question, date(2013, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{back:%Y-%m-%d}" in answer.summary and f"{index[back]:,.2f}" in answer.summary
    assert f"{(back - pd.Timestamp('2007-10-09')).days:,}" in answer.summary, answer.summary
