"""Classes a fresh blind set (blind67) found, each failing before its fix:

- "the difference between the two CAGRs", with closes named for the window, is the gap of the
  yearly rates (was a spread of the two prices);
- 是涨是跌 asks the move over the window, said with the window's dates;
- "chain the monthly Mkt-RF numbers … cumulative excess return" compounds every month of the
  window, the first included (a series of returns has no base month);
- a day found as the year's low (最低位係邊日) and 由嗰日收市到年底 is the rise from that low;
- a rate of change at one month and "到1982年3月…回落了多少个百分点" is each month's rate and
  their difference;
- a start and an end said outright decide over a length in a claim beside them (十年).

And classes it declined: sums said as "750k of cash", "5 million sitting in", "1.2 million
into", their "profit" and the day they are "valued" (never a company's figures); 翻倍 claimed
by 有人说 and checked by 实际涨了多少; 哪个月核心通胀（核心CPI同比）最低, a bracketed aside between
the period asked and the extreme.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import cagr_pct, source_frame


def _closes(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


async def test_the_gap_of_two_cagrs_with_closes_named(data: Any) -> None:
    pep = cagr_pct("PEP", "2012-12-31", "2021-12-31")
    ko = cagr_pct("KO", "2012-12-31", "2021-12-31")
    answer = await ask_offline(
        "Annualized return (CAGR) for PepsiCo vs Coca-Cola from the close on Dec 31, 2012 to the "
        "close on Dec 31, 2021 - and the difference between the two CAGRs in points",
        date(2022, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{pep - ko:.2f} percentage points" in answer.summary, answer.summary
    assert "spread" not in answer.summary, answer.summary


async def test_up_or_down_last_week(data: Any) -> None:
    closes = _closes("MSFT")
    move = (closes.loc["2022-10-07"] / closes.loc[:"2022-10-02"].iloc[-1] - 1) * 100
    answer = await ask_offline("微软上周是涨是跌？幅度多少", date(2022, 10, 12))
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary and "2022-10-03" in answer.summary, answer.summary


async def test_chained_monthly_factor_returns_include_the_first_month(data: Any) -> None:
    factor = series_values(data, "FF_MKT_RF").loc["2009-01":"2013-12"]
    chained = ((1 + factor / 100).prod() - 1) * 100
    answer = await ask_offline(
        "If you chain the monthly Mkt-RF numbers from Jan 2009 to Dec 2013, what cumulative "
        "excess return do you get?",
        date(2014, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{chained:.2f}%" in answer.summary, answer.summary
    assert f"{len(factor)} monthly figures" in answer.summary, answer.summary


async def test_the_rise_from_the_day_of_the_years_low_in_cantonese(data: Any) -> None:
    year = _closes("BAC").loc["2009"]
    rise = (year.iloc[-1] / year.min() - 1) * 100
    answer = await ask_offline(
        "美國銀行2009年最低位係邊日？由嗰日收市到年底反彈咗幾多？", date(2010, 1, 8)
    )
    assert answer.status == "ok", answer.message
    assert f"{rise:.2f}%" in answer.summary, answer.summary
    assert year.idxmin().strftime("%Y-%m-%d") in answer.summary, answer.summary


async def test_a_rate_at_one_month_and_its_fall_by_a_later_one(data: Any) -> None:
    core = series_values(data, "CPILFESL")
    yoy = (core / core.shift(12) - 1) * 100
    first, later = yoy.loc["1980-03-01"], yoy.loc["1982-03-01"]
    answer = await ask_offline(
        "1980年3月核心CPI同比是多少？到1982年3月同比回落了多少个百分点？", date(1982, 5, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{first:.2f}%" in answer.summary and f"{later:.2f}%" in answer.summary
    assert f"{first - later:.2f}个百分点" in answer.summary, answer.summary


async def test_dates_said_outright_decide_over_a_claims_length(data: Any) -> None:
    closes = _closes("AAPL")
    gained = (closes.loc["2020-12-31"] / closes.loc["2010-12-31"] - 1) * 100
    answer = await ask_offline(
        "都说苹果十年涨了十倍，从2010年底的收盘价到2020年底的收盘价，到底涨了多少？",
        date(2021, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{gained:,.2f}%" in answer.summary, answer.summary


async def test_sums_put_in_said_as_millions_and_their_profit(data: Any) -> None:
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].dropna()
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    cases = [
        (
            "If we'd put 750k of cash into the Nasdaq Composite at the Jan 3, 2011 close and "
            "taken it out at the Dec 31, 2015 close, what would we have walked away with, and "
            "what's the profit?",
            date(2016, 2, 1),
            750_000 * nasdaq.loc["2015-12-31"] / nasdaq.loc["2011-01-03"],
        ),
        (
            "We had 5 million sitting in an S&P 500 index position from the close on Oct 9 2007 "
            "to the close on Mar 9 2009. What was it worth at the end and how much did we lose?",
            date(2009, 6, 1),
            5_000_000 * index.loc["2009-03-09"] / index.loc["2007-10-09"],
        ),
        (
            "Board question: $10 million invested in the S&P 500 at the close on December 31, "
            "2019, valued at the close on December 31, 2021. What's it worth, and what "
            "annualized return is that?",
            date(2022, 2, 1),
            10_000_000 * index.loc["2021-12-31"] / index.loc["2019-12-31"],
        ),
    ]
    for question, today, value in cases:
        answer = await ask_offline(question, today)
        assert answer.status == "ok", answer.message
        assert f"{value:,.0f}" in answer.summary, answer.summary


async def test_a_doubling_claimed_then_checked_in_chinese(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    gained = (index.loc["2021-03-23"] / index.loc["2020-03-23"] - 1) * 100
    answer = await ask_offline(
        "有人说标普500从2020年3月23日收盘到2021年3月23日收盘一年翻倍了，实际涨了多少？",
        date(2021, 6, 1),
    )
    assert answer.status == "ok", answer.message
    verdict = "成立" if gained >= 100 else "不成立"
    assert f"说法（翻倍）{verdict}：实际为{gained:.2f}%。" in answer.summary, answer.summary


async def test_a_bracketed_aside_between_which_month_and_lowest(data: Any) -> None:
    core = series_values(data, "CPILFESL")
    yoy = ((core / core.shift(12) - 1) * 100).loc["2010"]
    answer = await ask_offline(
        "2010年哪个月核心通胀（核心CPI同比）最低？是多少？", date(2011, 2, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{yoy.min():.2f}%" in answer.summary, answer.summary
    assert yoy.idxmin().strftime("%Y-%m") in answer.summary, answer.summary
