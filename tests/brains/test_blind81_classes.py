"""Classes a blind set written to probe this round's fixes in fresh words (blind81) and a
general one (blind82) found, each failing before its fix:

- up days said in Cantonese (收市升嘅日子有幾多日, 幾多個交易日收升) beside the longest losing
  streak: both answered (was the streak alone, "ok");
- several names and "which outperformed the S&P 500, by how many points each": each one's
  return less the index's (was the best less the worst);
- the move between a year's high and low said with "the year's" or "last year's" ("from the
  year's highest close to its lowest close", "from last year's low to last year's high"), and
  the year's high to its low in Chinese (从全年最高收盘价跌到最低收盘价): that move, inside the
  year (was the daily returns' statistics, or a fall running past the year);
- regular buying said with the valuation day as a second date (以2019年12月31日收盘价计算): one
  plan of regular buying (was two lump sums);
- "the highest and lowest adjusted closes" beside a return; "how's apple doing ytd? also its
  best day": the return too (was the best day alone);
- "the Baa-over-Aaa yield gap": the spread (was each yield).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


def _stock(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _return(closes: pd.Series, base: str, end: str) -> float:
    return float((closes.loc[:end].iloc[-1] / closes.loc[:base].iloc[-1] - 1) * 100)


async def test_up_days_said_in_cantonese_beside_the_longest_losing_streak(data: Any) -> None:
    moves = _stock("KO").pct_change().loc["2018-12"]
    answer = await ask_offline(
        "想問吓可口可樂2018年12月，收市升嘅日子有幾多日呀？最長嗰次連續跌咗幾日，跌咗幾多？",
        date(2019, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"有{int((moves > 0).sum())}个交易日收涨" in answer.summary, answer.summary
    assert "最长连跌" in answer.summary, answer.summary


async def test_each_name_against_the_index_it_is_set_against(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    market = _return(index, "2018-12-31", "2019-12-31")
    excess = {t: _return(_stock(t), "2018-12-31", "2019-12-31") - market for t in ("MSFT", "GE")}
    answer = await ask_offline(
        "Full-year 2019 total return (adj close) for MSFT, KO and GE. Which outperformed the "
        "S&P 500, and by how many percentage points each?",
        date(2020, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"MSFT beat ^GSPC by {excess['MSFT']:.2f} percentage points" in answer.summary
    assert f"GE by {excess['GE']:.2f}" in answer.summary, answer.summary


async def test_the_move_between_the_years_high_and_low_in_other_words(data: Any) -> None:
    oil = series_values(data, "DCOILWTICO").dropna()
    year = oil.loc["2016"]
    rally = (year.max() / year.min() - 1) * 100
    answer = await ask_offline(
        "Crude desk: from last year's low to last year's high in WTI spot (daily closes), how "
        "big was the rally in %? Dates and levels of both please.",
        date(2017, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"rose {rally:.2f}%" in answer.summary, answer.summary
    in_2014 = oil.loc["2014"]
    peak_day = in_2014.idxmax()
    fall = (in_2014.loc[peak_day:].min() / in_2014.max() - 1) * 100
    chinese = await ask_offline(
        "WTI原油现货日度价格：2014年从全年最高收盘价跌到最低收盘价，跌了百分之多少？",
        date(2015, 1, 10),
    )
    assert chinese.status == "ok", chinese.message
    assert f"{fall:.2f}%" in chinese.summary, chinese.summary


async def test_regular_buying_valued_on_a_day_said(data: Any) -> None:
    closes = _stock("AAPL").loc["2010":"2019"]
    buys = closes.groupby(closes.index.to_period("Y")).tail(1)
    worth = float((10_000 / buys).sum() * closes.iloc[-1])
    answer = await ask_offline(
        "帮忙算一笔定投账：苹果股票2010年到2019年，每年最后一个交易日按复权收盘价买入1万美元，"
        "一共买10次。以2019年12月31日收盘价计算，这笔持仓现在值多少钱？盈利多少？",
        date(2020, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert "共10次" in answer.summary and f"{worth:,.2f}" in answer.summary, answer.summary


async def test_a_return_beside_the_highest_and_lowest_adjusted_closes(data: Any) -> None:
    closes = _stock("UNH").loc["2020-03-31":"2020-09-30"]
    answer = await ask_offline(
        "UNH over the past 6 months: what's the return, and what were the highest and lowest "
        "adjusted closes in that stretch (dates too)?",
        date(2020, 9, 30),
    )
    assert answer.status == "ok", answer.message
    assert f"{closes.max():.2f}" in answer.summary and f"{closes.min():.2f}" in answer.summary


async def test_how_is_it_doing_beside_its_best_day(data: Any) -> None:
    gain = _return(_stock("AAPL"), "2018-12-31", "2019-06-14")
    answer = await ask_offline(
        "how's apple doing ytd? also what was its single best day so far this year",
        date(2019, 6, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"returned {gain:.2f}%" in answer.summary, answer.summary


async def test_a_yield_gap_said_x_over_y_is_the_spread(data: Any) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).loc["1982"]
    answer = await ask_offline(
        "peak Baa-over-Aaa yield gap in 1982 (Moody's monthly) - which month, and how wide?",
        date(1983, 7, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{spread.max():.2f}%" in answer.summary, answer.summary
    # Moody's said apart from its series is the source, not a name nobody knows
    assert "don't know" not in answer.summary, answer.summary


async def test_a_claimed_best_year_is_checked_against_the_years(data: Any) -> None:
    nasdaq = source_frame("arch_nasdaq").iloc[:, 0].dropna()
    ends = nasdaq.groupby(nasdaq.index.year).last()
    years = (ends / ends.shift(1) - 1).loc[2003:2018] * 100
    place = int((years > years.loc[2009]).sum()) + 1
    answer = await ask_offline(
        "Someone on a forum says the Nasdaq Composite's best calendar year from 2003 through "
        "2018 was 2009. True or false?",
        date(2019, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{years.loc[2009]:.2f}%" in answer.summary, answer.summary
    assert f"of {len(years)} years" in answer.summary and "does not hold" in answer.summary
    assert str(years.idxmax()) in answer.summary and place > 1, answer.summary


async def test_years_counted_among_years_are_no_window_lengths(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    coke = _stock("KO")
    ahead = [
        year
        for year in range(2000, 2004)
        if _return(coke, f"{year - 1}-12-31", f"{year}-12-31")
        > _return(index, f"{year - 1}-12-31", f"{year}-12-31")
    ]
    answer = await ask_offline(
        "同事说可口可乐在2000到2003这四年里有三年跑赢了标普500，对吗？每年各涨跌多少？",
        date(2004, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"在4年中有{len(ahead)}年跑赢标普500" in answer.summary, answer.summary
