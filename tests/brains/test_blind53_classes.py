"""Classes a fresh blind set (blind53) found, each failing before its fix:

- a weighted basket ("60/40 AAPL/MSFT", "50/30/20 JNJ/PG/KO", "equal-wt XOM + CVX pair",
  苹果和微软各一半) is one buy-and-hold holding: its return, growth of an amount, drawdown and
  volatility, beside a benchmark named after "vs"; rebalancing said, or a member asked alone
  beside it, is declined, never answered with each name's own figures;
- 月收益率 (報酬率) is the monthly returns, never the daily ones;
- a decade said beside explicit dates inside it ("1970s oil shock recession, 1973Q4 to 1975Q1")
  is narrowed to the dates;
- "when was the spread at its widest during 2008-09" is two years;
- holidays written in traditional characters with their year (2019年聖誕節) are their days;
- "(peak and trough dates)" after a maximum drawdown asks the drawdown's ends, not statistics,
  and the return asked beside it stays;
- a day restated in brackets ("on 23 Mar 2020 (the covid low)") is one day, and "one year
  after" runs from its own close.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support.asking import ask_offline
from support.numeric_expect import buy_and_hold, source_frame


def _basket(weights: dict[str, float], start: str, end: str) -> pd.Series:
    return buy_and_hold(source_frame("skfolio_sp500"), weights, start, end)


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("50/50 KO/PEP return in 2019", {"KO": 0.5, "PEP": 0.5}),
        ("苹果和微软各一半，2020年组合收益多少", {"AAPL": 0.5, "MSFT": 0.5}),
        ("60/40 AAPL/MSFT portfolio return 2020, no rebalancing", {"AAPL": 0.6, "MSFT": 0.4}),
    ],
)
async def test_a_weighted_basket_returns_as_one_holding(
    data: Any, question: str, weights: dict[str, float]
) -> None:
    year = "2019" if "2019" in question else "2020"
    value = _basket(weights, f"{int(year) - 1}-12-31", f"{year}-12-31")
    made = float(value.iloc[-1] / 100 - 1) * 100
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{made:.2f}%" in answer.summary, answer.summary
    each = source_frame("skfolio_sp500")[list(weights)].loc[: f"{year}-12-31"]
    alone = each.iloc[-1] / each.loc[: f"{int(year) - 1}-12-31"].iloc[-1] - 1
    assert all(f"{v * 100:.2f}%" not in answer.summary for v in alone), answer.summary


async def test_a_basket_beside_a_benchmark_and_the_gap(data: Any) -> None:
    value = _basket({"XOM": 0.5, "CVX": 0.5}, "2021-12-31", "2022-12-31")
    made = float(value.iloc[-1] / 100 - 1) * 100
    index = source_frame("skfolio_index")["^GSPC"]
    bench = float(index.loc[:"2022-12-31"].iloc[-1] / index.loc[:"2021-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "equal-wt XOM + CVX pair, how did it do last year vs the S&P 500? need both numbers and "
        "the gap in pp lah",
        date(2023, 1, 15),
    )
    assert answer.status == "ok", answer.message
    for figure in (made, bench, made - bench):
        assert f"{figure:.2f}" in answer.summary, answer.summary


async def test_an_amount_in_a_basket_a_year_after_a_day_in_brackets(data: Any) -> None:
    value = _basket({"JNJ": 0.5, "PG": 0.3, "KO": 0.2}, "2020-03-23", "2021-03-23")
    worth = 250_000 * float(value.iloc[-1]) / 100
    answer = await ask_offline(
        "250k into JNJ/PG/KO 50/30/20 at the close on 23 Mar 2020 (the covid low), what's it "
        "worth one year after? no rebalancing hor. also the % pls",
        date(2021, 4, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{worth:,.0f}" in answer.summary, answer.summary


async def test_a_baskets_drawdown_and_volatility(data: Any) -> None:
    value = _basket({"XOM": 0.5, "CVX": 0.5}, "2019-12-31", "2020-12-31")
    drawdown = float((value / value.cummax() - 1).min() * 100)
    answer = await ask_offline("50/50 XOM/CVX max drawdown in 2020", date(2021, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{drawdown:.2f}%" in answer.summary, answer.summary
    value = _basket({"AAPL": 0.6, "MSFT": 0.4}, "2018-12-31", "2019-12-31")
    vol = float(value.pct_change().dropna().std(ddof=1) * np.sqrt(252) * 100)
    answer = await ask_offline("60/40 AAPL/MSFT annualized volatility 2019", date(2021, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{vol:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "UNH/LLY 60/40 from end-2017, rebalanced back to 60/40 at every yr-end: total return?",
        "50/50 KO/PEP in 2019: annualised vol, and KO alone for comparison",
    ],
)
async def test_a_basket_read_another_way_is_declined(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "no_data", answer.summary


async def test_monthly_returns_said_in_chinese(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc[:"2019-12-31"]
    months = closes.resample("ME").last().loc["2009-12-31":]
    returns = months.pct_change().dropna() * 100
    for question in (
        "标普500在2010到2019这十年，月收益率的标准差是多少？平均呢？",
        "標普500在2010到2019這十年，月報酬率的標準差是多少？平均呢？",
    ):
        answer = await ask_offline(question, date(2020, 1, 10))
        assert answer.status == "ok", answer.message
        assert f"{returns.std(ddof=1):.2f}%" in answer.summary, answer.summary
        assert f"{returns.mean():.2f}%" in answer.summary, answer.summary


async def test_a_decade_beside_its_dates_and_years_when_widest(data: Any) -> None:
    yields = source_frame("arch_default").loc["2008-01-01":"2009-12-01"]
    spread = yields["BAA"] - yields["AAA"]
    answer = await ask_offline(
        "When was the Baa-Aaa corporate bond spread at its widest during 2008-09, and how wide "
        "was it?",
        date(2019, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{spread.max():.2f}%" in answer.summary, answer.summary
    assert spread.idxmax().strftime("%Y-%m") in answer.summary, answer.summary


async def test_holidays_in_traditional_characters(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["MSFT"].loc[:"2019-12-25"]
    window = closes.loc[closes.loc[:"2019-01-01"].index[-1] :]
    daily = window.pct_change().dropna() * 100
    answer = await ask_offline(
        "微軟從2019年元旦到2019年聖誕節，日報酬率的平均值跟中位數各是多少？", date(2020, 2, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{daily.mean():.2f}%" in answer.summary and f"{daily.median():.2f}%" in answer.summary
    assert f"{len(daily)}" in answer.summary, answer.summary


async def test_a_drawdowns_peak_and_trough_keep_the_return_beside_it(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2022-03-16":"2022-12-30"]
    made = float(closes.iloc[-1] / closes.iloc[0] - 1) * 100
    drawdown = float((closes / closes.cummax() - 1).min() * 100)
    answer = await ask_offline(
        "Since the Fed started hiking in 2022, how much has the S&P 500 returned up to the latest "
        "data, and what was its maximum drawdown in that stretch (peak and trough dates)?",
        date(2022, 12, 30),
    )
    assert answer.status == "ok", answer.message
    assert f"{made:.2f}%" in answer.summary and f"{drawdown:.2f}%" in answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "纳指去年上涨和下跌的交易日各几天？成交量放大（比前一天多）的又有几天？",
        "How many days in 2018 did the Nasdaq's volume rise from the day before?",
    ],
)
async def test_days_counted_by_their_volume_are_declined(data: Any, question: str) -> None:
    closes = source_frame("arch_nasdaq")["^IXIC"].loc["2017-12-29":"2018-12-31"]
    up_days = int((closes.diff().dropna() > 0).sum())
    answer = await ask_offline(question, date(2019, 1, 3))
    assert answer.status == "no_data", answer.summary
    assert f"{up_days}" not in (answer.summary or ""), answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "IBM 2008年成交量最大的是哪天？那天成交了多少股，涨跌幅多少？",
        "Which day in 2008 had IBM's heaviest volume, and how much did it move that day?",
    ],
)
async def test_the_move_on_the_heaviest_volume_day_is_declined(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2009, 1, 10))
    assert answer.status == "no_data", answer.summary
