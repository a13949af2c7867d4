"""Classes a blind set (blind86), written to ask this round's readings in fresh words, answered
"ok" with other figures, or declined though its data answers them, each failing before its fix:

- "the high-minus-low gap in basis points" of a rate: its range (was the HML factor);
- "how many basis points separate the two" said far after the highest and lowest: the range
  (was each level in basis points);
- "number of days it rallied more than 3%, number of days it dropped more than 3%": both counts
  (was the second alone, "ok");
- "on what date did that first happen" beside a count above a level: its first session (was
  declined);
- "the ending price was how many times the starting price", "what multiple of the starting
  price did it end at": the growth multiple (was declined as a ratio of two names);
- Cantonese 最好同最差嘅月份…差距有幾大: both months and their gap (was the worst alone);
- 别给我看那些历史数据了…该不该满仓买入: advice, out of scope (was a sum invested).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline
from support.numeric_expect import source_frame


def _stock(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


async def test_the_high_minus_low_gap_of_a_rate_is_its_range(data: Any) -> None:
    bills = source_frame("statsmodels_macro")["TB3MS"].loc["2001"]
    answer = await ask_offline(
        "How high and how low did the 3-month Treasury bill rate get in 2001 (quarterly data is "
        "fine)? Give me both readings with their quarters and the high-minus-low gap in basis "
        "points.",
        date(2009, 10, 5),
    )
    assert answer.status == "ok", answer.message
    assert f"That is {round((bills.max() - bills.min()) * 100)} basis points" in answer.summary
    assert "HML" not in answer.summary, answer.summary


async def test_basis_points_separating_the_two_said_far_after_them(data: Any) -> None:
    aaa = source_frame("arch_default")["AAA"].dropna().loc["1990"]
    answer = await ask_offline(
        "Pulling together a note on the 1990 credit market. What were the highest and lowest "
        "monthly readings of Moody's Aaa corporate bond yield during 1990, in which months, and "
        "how many basis points separate the two?",
        date(1991, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"That is {round((aaa.max() - aaa.min()) * 100)} basis points." in answer.summary


async def test_days_rallied_and_days_dropped_beyond_a_move(data: Any) -> None:
    moves = (_stock("BAC").pct_change() * 100).loc["2011"]
    answer = await ask_offline(
        "Bank of America in 2011: number of days it rallied more than 3%, number of days it "
        "dropped more than 3%, and its worst daily loss with the date.",
        date(2012, 1, 5),
    )
    assert answer.status == "ok", answer.message
    assert f"rose more than 3% on {int((moves > 3).sum())} of" in answer.summary
    assert f"fell more than 3% on {int((moves < -3).sum())} of" in answer.summary


async def test_on_what_date_that_first_happened(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna().loc["2013"]
    above = closes[closes > 1650]
    answer = await ask_offline(
        "How many sessions did the S&P 500 finish above 1,650 during 2013? And on what date did "
        "that first happen?",
        date(2014, 3, 3),
    )
    assert answer.status == "ok", answer.message
    assert f"the first was {above.index[0]:%Y-%m-%d}" in answer.summary, answer.summary


async def test_the_end_as_how_many_times_the_starting_price(data: Any) -> None:
    closes = _stock("UNH")
    start, end = closes.loc[:"2010-01-04"].iloc[-1], closes.loc[:"2020-01-02"].iloc[-1]
    for question in (
        "UnitedHealth from the close on Jan 4, 2010 to the close on Jan 2, 2020 - the ending "
        "price was how many times the starting price, and what's the compound annual growth "
        "rate?",
        "UnitedHealth from its Jan 4, 2010 close to its Jan 2, 2020 close - what multiple of the "
        "starting price did it end at, and what was the compound annual growth rate?",
    ):
        answer = await ask_offline(question, date(2020, 2, 10))
        assert answer.status == "ok", answer.message
        assert f"{end / start:.2f} times its starting value" in answer.summary, answer.summary


async def test_best_and_worst_month_in_cantonese_and_their_gap(data: Any) -> None:
    months = (_stock("JPM").resample("ME").last().pct_change() * 100).loc["2010"]
    answer = await ask_offline(
        "想問下摩根大通喺2010年，表現最好同最差嘅月份係邊兩個月？各自升跌咗幾多%，差距有幾大？",
        date(2011, 5, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{months.idxmax():%Y-%m}" in answer.summary
    assert f"{months.idxmin():%Y-%m}" in answer.summary
    assert f"高{months.max() - months.min():.2f}个百分点" in answer.summary, answer.summary


async def test_advice_after_refusing_the_data_is_out_of_scope(data: Any) -> None:
    answer = await ask_offline(
        "别给我看那些历史数据了，你就直说：现在该不该满仓买入苹果？", date(2022, 6, 15)
    )
    assert answer.status == "out_of_scope", answer.summary
