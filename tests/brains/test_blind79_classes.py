"""Classes the blind sets blind77-blind80 found after their first fixes, each failing before
its fix:

- an extreme and its value some months later (利差最大…三个月后收窄了多少个基点, "how many bp had it
  tightened six months after that peak month"): both, with the change in points and bp (was the
  last value's distance from the high, "ok");
- the move between a window's high and low ("how far did it fall from that high down to that
  low", 从那个最低点到最高点涨了百分之多少): that move (was the last close's distance);
- a window's return beside its highest and lowest closes: both (was the daily returns'
  statistics alone);
- a rate's level at two dates and "how many bp did it move": the difference (was the two
  levels alone); "the change over 2001 in basis points" beside a quarter's reading: the change
  in points (was each quarter's % change);
- "which one was best, which worst … gap 是多少": the gap too; 最近这四个礼拜: four weeks;
- a peak named by its month regained ("用了多久才回本？哪天收盘重新站上那个高点"): that peak's
  fall and recovery (was a first close above the last close).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


def _stock(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


async def test_an_extreme_and_its_value_months_later(data: Any) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).dropna()
    in_year = spread.loc["1982"]
    peak_day = in_year.idxmax()
    later = spread.loc[: peak_day + pd.DateOffset(months=3)]
    bp = round((in_year.max() - later.iloc[-1]) * 100)
    answer = await ask_offline(
        "1982年穆迪Baa与Aaa公司债收益率之差最大是在哪个月，差多少？三个月后这个利差收窄了多少个基点？",
        date(1983, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{in_year.max():.2f}%" in answer.summary, answer.summary
    assert f"{later.iloc[-1]:.2f}%" in answer.summary and f"{bp}个基点" in answer.summary
    english = await ask_offline(
        "Baa minus Aaa spread: when in 2008 was it widest, and how many basis points had it "
        "tightened six months after that peak month?",
        date(2009, 12, 31),
    )
    widest = spread.loc["2008"]
    after = spread.loc[: widest.idxmax() + pd.DateOffset(months=6)].iloc[-1]
    assert english.status == "ok", english.message
    assert f"{(widest.max() - after) * 100:.0f} basis points" in english.summary, english.summary


async def test_the_move_from_a_windows_high_to_its_low(data: Any) -> None:
    oil = series_values(data, "DCOILWTICO").loc["2008"].dropna()
    fall = (oil.min() / oil.max() - 1) * 100
    answer = await ask_offline(
        "WTI spot in 2008: the year's highest and lowest daily price with the dates, and how far "
        "did it fall from that high down to that low, in %?",
        date(2009, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"fell {abs(fall):.2f}%" in answer.summary, answer.summary
    year = series_values(data, "DCOILWTICO").loc["2016"].dropna()
    rise = (year.max() / year.min() - 1) * 100
    chinese = await ask_offline(
        "WTI原油2016年全年的最低价和最高价分别是多少、在哪一天？从那个最低点到最高点涨了百分之多少？",
        date(2017, 1, 10),
    )
    assert chinese.status == "ok", chinese.message
    assert f"上涨{rise:.2f}%" in chinese.summary, chinese.summary


async def test_a_return_beside_the_highest_and_lowest_closes(data: Any) -> None:
    closes = _stock("WMT")
    window = closes.loc["2018-10-01":"2018-11-30"]
    gain = (window.iloc[-1] / window.iloc[0] - 1) * 100
    answer = await ask_offline(
        "What was Walmart's return from October 1, 2018 to November 30, 2018, and what were its "
        "highest and lowest closes in that period?",
        date(2018, 12, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{gain:.2f}%" in answer.summary, answer.summary
    assert f"{window.max():.2f}" in answer.summary and f"{window.min():.2f}" in answer.summary


async def test_a_rates_move_in_basis_points_between_two_readings(data: Any) -> None:
    baa = series_values(data, "BAA")
    moved = (baa.loc["2008-12-01"] - baa.loc["2007-12-01"]) * 100
    answer = await ask_offline(
        "Moody's Baa corporate yield - where did it print for December 2008, and how many bp did "
        "it move over calendar 2008 (i.e. vs the Dec 2007 reading)?",
        date(2009, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{moved:.0f} basis points" in answer.summary, answer.summary
    bill = series_values(data, "TB3MS")
    change = (bill.loc[:"2001-12-31"].iloc[-1] - bill.loc[:"2000-12-31"].iloc[-1]) * 100
    quarter = await ask_offline(
        "3m T-bill (TB3MS) reading for 2001Q4, and the change over 2001 in basis points?",
        date(2002, 3, 10),
    )
    assert quarter.status == "ok", quarter.message
    assert f"{change:.0f} basis points" in quarter.summary, quarter.summary


async def test_best_and_worst_with_the_gap_asked_in_mixed_words(data: Any) -> None:
    returns = {
        t: (_stock(t).loc[:"2019-06-30"].iloc[-1] / _stock(t).loc[:"2018-12-31"].iloc[-1] - 1) * 100
        for t in ("AAPL", "MSFT", "AMD", "JPM", "XOM")
    }
    gap = max(returns.values()) - min(returns.values())
    answer = await ask_offline(
        "Eh 想问下 AAPL, MSFT, AMD, JPM 和 XOM 这五只，2019 上半年 which one 表现最好 "
        "which one 最差？两只之间 gap 是多少 percent？",
        date(2019, 7, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{gap:.2f}个百分点" in answer.summary, answer.summary


async def test_these_four_weeks(data: Any) -> None:
    closes = _stock("GE")
    move = (closes.loc[:"2018-11-10"].iloc[-1] / closes.loc[:"2018-10-13"].iloc[-1] - 1) * 100
    answer = await ask_offline("通用电气最近这四个礼拜到底跌了多少？", date(2018, 11, 10))
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary, answer.summary


async def test_a_peak_named_by_its_month_regained(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    october = index.loc["2007-10"]
    peak_day = october.idxmax()
    after = index.loc[peak_day:]
    back = after[after >= october.max()].index[1]
    answer = await ask_offline(
        "标普500从2007年10月的高点跌下来，用了多久才回本？哪天收盘重新站上那个高点的？",
        date(2013, 12, 31),
    )
    assert answer.status == "ok", answer.message
    assert str(back.date()) in answer.summary, answer.summary
    assert f"{(back - peak_day).days}个日历日" in answer.summary, answer.summary


def _bought_every_month(closes: pd.Series, amount: float, first: str, last: str) -> float:
    window = closes.loc[first:last]
    buys = window.groupby(window.index.to_period("M")).head(1)
    return float((amount / buys).sum() * window.iloc[-1])


async def test_regular_buying_is_not_one_lump_sum(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    worth = _bought_every_month(index, 2000, "2012-01-01", "2016-12-31")
    for question in (
        "如果我从2012年1月开始每个月定投2000美元标普500，到2016年底值多少钱？",
        "我由2012年1月開始，每個月第一個交易日收市價買2000美金標普500，一直供到2016年12月，"
        "咁到2016年最後一個交易日收市，總共值幾多錢？本金放咗幾多？",
        "If I had put $2,000 into the S&P 500 every month from January 2012 through December "
        "2016, what would it be worth at the end of 2016?",
    ):
        answer = await ask_offline(question, date(2017, 1, 5))
        assert answer.status == "ok", answer.message
        said = re.search(r"(?:市值|worth) ?([\d,]+\.\d\d)", answer.summary)
        assert said is not None, answer.summary
        # (the warehouse keeps closes to fewer digits than the source: a cent either way)
        assert abs(float(said.group(1).replace(",", "")) - worth) < 0.02, answer.summary
        assert "120,000.00" in answer.summary, answer.summary


async def test_regular_buying_needs_the_sum(data: Any) -> None:
    answer = await ask_offline("每个月定投标普500，从2012年到2016年底值多少？", date(2017, 1, 5))
    assert answer.status == "no_data", answer.summary
    assert "每次买入多少" in (answer.message or "")


async def test_a_known_names_word_inside_a_longer_unknown_name(data: Any) -> None:
    answer = await ask_offline(
        "ICE BofA US High Yield OAS: how wide did it get in 2008 at the peak, and how much had it "
        "tightened six months later?",
        date(2009, 6, 30),
    )
    assert answer.status == "no_data", answer.summary
    assert "ICE BofA US High Yield OAS" in (answer.message or ""), answer.message


async def test_a_count_of_a_series_change_counts_the_change(data: Any) -> None:
    core = series_values(data, "CPILFESL")
    yoy = (core / core.shift(12) - 1) * 100
    months = int((yoy.loc["1974":"1976"] > 8).sum())
    answer = await ask_offline(
        "How many months was core CPI inflation year over year above 8% between 1974 and 1976?",
        date(1977, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"above 8% in {months} of 36 months" in answer.summary, answer.summary


async def test_a_run_of_consecutive_periods_is_not_a_count_of_them(data: Any) -> None:
    answer = await ask_offline(
        "核心CPI同比高于8%的状态在1974到1976年间一共连续保持了几个月？", date(1977, 1, 20)
    )
    assert answer.status == "no_data", answer.summary
    assert "连续" in (answer.message or ""), answer.message


async def test_the_best_and_worst_quarter_and_the_gap_between_them(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    ends = index.loc[:"2005-12-31"].groupby(index.loc[:"2005-12-31"].index.to_period("Q")).last()
    quarters = (ends / ends.shift(1) - 1).loc["2003Q1":"2005Q4"] * 100
    answer = await ask_offline(
        "Between 2003 and 2005, which calendar quarter was best and which was worst for the "
        "S&P 500? How much did the best quarter outperform the worst one, in percentage points?",
        date(2006, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert str(quarters.idxmax()) in answer.summary and str(quarters.idxmin()) in answer.summary
    gap = quarters.max() - quarters.min()
    assert f"beat its worst by {gap:.2f} percentage points" in answer.summary, answer.summary
