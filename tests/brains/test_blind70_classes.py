"""Classes a fresh blind set (blind70) found, each failing before its fix:

- a time word dating the asker's occasion ("for this week's episode", "tomorrow's class",
  明天交作业) is no window (it widened the window to today);
- "the average annual growth rate it implies (compounded …)" is the CAGR (was the mean of the
  levels and the year-over-year changes);
- "which insurer led and by how many points" with a name that has no data is declined (a gap
  only both names have) — was the other name's return alone;
- a time of day in Cantonese (下晝兩點) asks intraday data;
- the high, the low and their gap asked in the next question (最高值和最低值各是多少？差价是多少？);
- Cantonese superlatives and "and" (跌得最傷嘅三日, 最大升幅同最大跌幅,
  跌得最犀利嗰日同升得最勁嗰日);
- a claim "up 50% in 2 years — meaning calendar 2019 plus 2020" is checked on those two years,
  as a move (was the closes to today);
- a Chinese name ending in a number is kept apart from the year after it (标普500 2020年).

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


def _spx() -> pd.Series:
    return source_frame("skfolio_index")["^GSPC"].dropna()


async def test_the_askers_occasion_is_no_window(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    start, end = gdp.loc["2007-10-01"], gdp.loc["2009-04-01"]
    total = (end / start - 1) * 100
    yearly = ((end / start) ** (4 / 6) - 1) * 100
    answer = await ask_offline(
        "For this week's episode: real GDP from 2007Q4 to 2009Q2 — how much did it shrink in "
        "total, and what is that as an annualized rate (four quarters to a year, compounded)?",
        date(2009, 12, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{yearly:.2f}% a year" in answer.summary, answer.summary
    assert f"{total:.2f}% in all" in answer.summary, answer.summary
    closes = _stock("AAPL")
    move = (closes.loc["2008-12-31"] / closes.loc[:"2007-12-31"].iloc[-1] - 1) * 100
    for question in (
        "For this week's newsletter, what was Apple's return in 2008?",
        "明天交作业：苹果2008年收益率",
    ):
        answer = await ask_offline(question, date(2009, 12, 15))
        assert answer.status == "ok", answer.message
        assert f"{move:.2f}%" in answer.summary, (question, answer.summary)


async def test_an_average_annual_growth_compounded_is_the_cagr(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    start, end = gdp.loc["1991-01-01"], gdp.loc["2001-01-01"]
    answer = await ask_offline(
        "Need two numbers for the show notes: the percent growth in US real GDP from 1991 Q1 to "
        "2001 Q1, and the average annual growth rate it implies (compounded, 4 quarters = 1 "
        "year).",
        date(2009, 11, 2),
    )
    assert answer.status == "ok", answer.message
    assert f"{((end / start) ** (1 / 10) - 1) * 100:.2f}% a year" in answer.summary
    assert f"{(end / start - 1) * 100:.2f}% in all" in answer.summary, answer.summary


async def test_who_led_with_a_name_without_data_is_declined(data: Any) -> None:
    answer = await ask_offline(
        "CVS Health vs UnitedHealth since Jan 4 2021 — which insurer led and by how many points?",
        date(2021, 12, 31),
    )
    assert answer.status == "no_data", answer.summary
    assert "CVS" in (answer.message or ""), answer.message


async def test_a_time_of_day_in_cantonese_asks_intraday_data(data: Any) -> None:
    answer = await ask_offline("蘋果3月16號下晝兩點嗰陣成交價係幾多？", date(2020, 3, 20))
    assert answer.status == "no_data", answer.summary
    assert "日内" in (answer.message or ""), answer.message


async def test_the_high_low_and_their_gap_asked_next(data: Any) -> None:
    quarter = _stock("WMT").loc["2018-10-01":"2018-12-31"]
    answer = await ask_offline(
        "沃尔玛去年第四季度收盘价的最高值和最低值各是多少？差价是多少？", date(2019, 1, 20)
    )
    assert answer.status == "ok", answer.message
    for figure in (quarter.max(), quarter.min(), quarter.max() - quarter.min()):
        assert f"{figure:,.2f}" in answer.summary, (figure, answer.summary)
    spx = _spx().loc["2020-01-01":"2020-03-31"]
    answer = await ask_offline(
        "标普500指数2020年第一季度的最高收盘点位和最低收盘点位分别是哪天、多少点？两者相差多少点？",
        date(2020, 5, 6),
    )
    assert answer.status == "ok", answer.message
    assert f"{spx.max() - spx.min():,.2f}" in answer.summary, answer.summary
    assert "标普5002020" not in answer.summary, answer.summary


async def test_cantonese_superlatives_of_days(data: Any) -> None:
    moves = _stock("JPM").pct_change().loc["2009"] * 100
    answer = await ask_offline(
        "摩根大通(JPM) 2009年單日最大升幅同最大跌幅分別係幾多？係邊兩日？", date(2010, 1, 10)
    )
    assert answer.status == "ok", answer.message
    for day in (moves.idxmax(), moves.idxmin()):
        assert f"{day:%Y-%m-%d}" in answer.summary and f"{moves[day]:.2f}%" in answer.summary
    worst = (_stock("GE").pct_change().loc["2018"] * 100).nsmallest(3)
    answer = await ask_offline("GE喺2018年跌得最傷嘅三日係邊三日？每日跌咗幾多？", date(2019, 1, 8))
    assert answer.status == "ok", answer.message
    for day, move in worst.items():
        assert f"{day:%Y-%m-%d}（{move:.2f}%）" in answer.summary, answer.summary
    spx = _spx().pct_change().loc["2020"] * 100
    answer = await ask_offline(
        "標普500喺2020年跌得最犀利嗰日同升得最勁嗰日係邊日？各自幾多%？", date(2021, 1, 10)
    )
    assert answer.status == "ok", answer.message
    for day in (spx.idxmax(), spx.idxmin()):
        assert f"{day:%Y-%m-%d}" in answer.summary and f"{spx[day]:.2f}%" in answer.summary


async def test_a_claim_over_the_years_it_names(data: Any) -> None:
    closes = _stock("UNH")
    move = (closes.loc["2020-12-31"] / closes.loc[:"2018-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "A tweet says UnitedHealth was 'up 50% in 2 years' — meaning calendar 2019 plus 2020. Is "
        "that right? What's the actual figure?",
        date(2021, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"does not hold: the figure is {move:.2f}%" in answer.summary, answer.summary
