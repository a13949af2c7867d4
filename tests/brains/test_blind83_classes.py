"""Classes a blind set (blind83) answered "ok" with other figures, or declined though its data
answers them, each failing before its fix:

- a yield's high and low in a year "and the range in bp", "how many basis points separate
  them", "how many bps between the two": the high less the low, in basis points (was the mean,
  or the high, in basis points; the low alone; or nothing said of the gap);
- "which quarter was it highest, which lowest": both extremes (was the highest alone);
- a growth multiple asked as "how many x is that", "how many times over did it go",
  股价变成原来的幾倍 with Taiwan's 年複合成長率: the end over the start beside the CAGR (was the
  return alone, or year-over-year changes);
- the best and worst months asked, then 这两个月差了多少个点 / 两个月的收益率差了多少: the best
  less the worst (declined, or "两个月" read as the last two months); 涨幅最大的是哪个月，跌得最狠
  的又是哪个月: both months (was the best alone, "ok");
- a fall asked from the year's high in Chinese and Cantonese (在年内从最高位跌了多少, 由高位跌咗
  幾多, 用咗幾多日先升返去高位): the window's drawdown with its trough and recovery (was the
  highest close, or a count of sessions).

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


def _monthly_returns(closes: pd.Series, year: int) -> pd.Series:
    month_ends = closes.resample("ME").last()
    return (month_ends.pct_change() * 100).loc[str(year)]


async def test_a_yields_range_in_basis_points(data: Any) -> None:
    aaa = source_frame("arch_default")["AAA"].dropna().loc["2015"]
    points = round((aaa.max() - aaa.min()) * 100)
    answer = await ask_offline(
        "Need the 2015 range on Moody's Aaa yield: top and bottom month, and how many basis "
        "points separate them.",
        date(2016, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"That is {points} basis points." in answer.summary, answer.summary
    assert f"{aaa.max() - aaa.min():.2f} percentage points between them" in answer.summary


async def test_which_quarter_highest_which_lowest_and_the_gap(data: Any) -> None:
    bills = source_frame("statsmodels_macro")["TB3MS"].loc["2007"]
    answer = await ask_offline(
        "3-month T-bill rate in 2007: which quarter was it highest, which lowest, and how many "
        "bps between the two?",
        date(2008, 3, 1),
    )
    assert answer.status == "ok", answer.message
    for when in (bills.idxmax(), bills.idxmin()):
        assert f"{when.year}Q{when.quarter}" in answer.summary, answer.summary
    assert f"That is {round((bills.max() - bills.min()) * 100)} basis points" in answer.summary


async def test_how_many_x_beside_the_cagr(data: Any) -> None:
    closes = _stock("UNH")
    start, end = closes.loc[:"2012-06-29"].iloc[-1], closes.loc[:"2019-06-28"].iloc[-1]
    years = (pd.Timestamp("2019-06-28") - pd.Timestamp("2012-06-29")).days / 365.25
    answer = await ask_offline(
        "If UnitedHealth went from its June 29 2012 close to its June 28 2019 close, how many x "
        "is that, and what compound annual growth rate does it work out to?",
        date(2019, 9, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{end / start:.2f} times its starting value" in answer.summary, answer.summary
    assert f"{((end / start) ** (1 / years) - 1) * 100:.2f}% a year" in answer.summary


async def test_times_the_start_in_traditional_chinese_with_taiwans_cagr(data: Any) -> None:
    closes = _stock("AAPL")
    first, last = closes.loc["2015"].index[0], closes.loc["2019"].index[-1]
    multiple = closes[last] / closes[first]
    cagr = (multiple ** (365.25 / (last - first).days) - 1) * 100
    answer = await ask_offline(
        "請問蘋果從2015年第一個交易日的收盤價，到2019年最後一個交易日的收盤價，股價變成原來的"
        "幾倍？換算成年複合成長率是多少？",
        date(2020, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"期末为期初的{multiple:.2f}倍" in answer.summary, answer.summary
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


async def test_the_best_less_the_worst_month_said_of_the_two(data: Any) -> None:
    months = _monthly_returns(_stock("MSFT"), 2018)
    answer = await ask_offline(
        "微软2018年哪个月涨得最猛、哪个月跌得最惨啊？这两个月差了多少个点？", date(2019, 1, 8)
    )
    assert answer.status == "ok", answer.message
    assert f"高{months.max() - months.min():.2f}个百分点" in answer.summary, answer.summary


async def test_both_months_asked_apart_and_their_gap(data: Any) -> None:
    months = _monthly_returns(_stock("BAC"), 2011)
    best, worst = months.idxmax(), months.idxmin()
    answer = await ask_offline(
        "美国银行2011年月涨幅最大的是哪个月，跌得最狠的又是哪个月？两个月的收益率差了多少",
        date(2012, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{best:%Y-%m}" in answer.summary and f"{worst:%Y-%m}" in answer.summary
    assert f"高{months.max() - months.min():.2f}个百分点" in answer.summary, answer.summary


def _drawdown(closes: pd.Series) -> tuple[float, pd.Timestamp]:
    falls = closes / closes.cummax() - 1
    return float(falls.min() * 100), falls.idxmin()


async def test_the_fall_from_the_years_high_in_chinese(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    depth, trough = _drawdown(index.loc["2018"])
    answer = await ask_offline(
        "2018年标普500在年内从最高位跌了多少？哪天是最低的那天？", date(2019, 3, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{depth:.2f}%" in answer.summary and f"{trough:%Y-%m-%d}" in answer.summary


async def test_the_fall_from_the_high_and_its_recovery_in_cantonese(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    depth, trough = _drawdown(index.loc["2020"])
    peak_day = index.loc["2020"].loc[:trough].idxmax()
    back = index.loc[trough:][index.loc[trough:] >= index[peak_day]].index[0]
    answer = await ask_offline(
        "2020年疫情嗰陣，標普500由高位跌咗幾多％？邊日跌到最低？由個高位計，用咗幾多日先升返去"
        "高位？",
        date(2021, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{depth:.2f}%" in answer.summary and f"{trough:%Y-%m-%d}" in answer.summary
    assert f"{(back - peak_day).days}个日历日" in answer.summary, answer.summary
