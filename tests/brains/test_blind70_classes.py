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


async def test_months_past_a_price_and_the_peak_month(data: Any) -> None:
    wti = series_values(data, "MCOILWTICO").loc["2008"]
    answer = await ask_offline(
        "Using monthly average WTI prices (MCOILWTICO): in how many months of 2008 was WTI above "
        "$100/bbl, and which month was the year's peak (and at what price)?",
        date(2009, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"in {int((wti > 100).sum())} of {len(wti)} months" in answer.summary
    assert f"{wti.max():.2f}" in answer.summary and f"{wti.idxmax():%Y-%m-%d}" in answer.summary
    wti = series_values(data, "MCOILWTICO").loc["2015"]
    answer = await ask_offline(
        "For the year-in-review issue: how many months of 2015 did monthly-average WTI spend "
        "below $50, and when did it peak that year?",
        date(2016, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"in {int((wti < 50).sum())} of {len(wti)} months" in answer.summary
    assert f"{wti.idxmax():%Y-%m-%d}" in answer.summary, answer.summary
    brent = series_values(data, "MCOILBRENTEU").loc["2019"]
    answer = await ask_offline(
        "2019 recap: number of months the monthly average Brent price was under $65, plus the "
        "month Brent topped out for the year and the level.",
        date(2020, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"in {int((brent < 65).sum())} of {len(brent)} months" in answer.summary
    assert "I don't know" not in answer.summary, answer.summary


async def test_dividends_said_to_count_are_the_adjusted_closes(data: Any) -> None:
    closes = _stock("JNJ")
    start, end = closes.loc[:"2010-12-31"].iloc[-1], closes.loc[:"2020-12-31"].iloc[-1]
    answer = await ask_offline(
        "Retired, living off dividends. If I'd held Johnson & Johnson from 2011 through 2020 "
        "with dividends reinvested (adjusted closes), what was the total return and the "
        "compound annual growth rate?",
        date(2021, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{(end / start - 1) * 100:.2f}% in all" in answer.summary, answer.summary
    closes = _stock("PG")
    start, end = closes.loc[:"2009-12-31"].iloc[-1], closes.loc[:"2019-12-31"].iloc[-1]
    answer = await ask_offline(
        "How did Procter & Gamble do over the decade 2010–2019 — total return on adjusted closes "
        "(so dividends count) and the annualized return?",
        date(2020, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{(end / start - 1) * 100:.2f}% in all" in answer.summary, answer.summary
    # an index's levels hold no dividends: still declined
    answer = await ask_offline("S&P 500 total return incl. dividends in 2019", date(2020, 1, 10))
    assert answer.status == "no_data", answer.summary


async def test_a_heading_and_a_length_restating_a_range(data: Any) -> None:
    cpi = series_values(data, "CPIAUCSL")
    start, end = cpi.loc["1979-01-01"], cpi.loc["1981-01-01"]
    answer = await ask_offline(
        "Inflation segment — by how much did the consumer price index rise between 1979Q1 and "
        "1981Q1, and what annualized rate is that over the 8 quarters?",
        date(2009, 10, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{((end / start) ** 0.5 - 1) * 100:.2f}% a year" in answer.summary, answer.summary
    assert f"{(end / start - 1) * 100:.2f}% in all" in answer.summary, answer.summary


async def test_a_draft_line_checked_and_a_poem_asked(data: Any) -> None:
    closes = _stock("GE")
    move = (closes.loc["2018-12-31"] / closes.loc[:"2017-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "Draft line reads: 'GE shareholders lost more than half their money in 2018.' Does that "
        "hold up? Use total return on adjusted closes.",
        date(2019, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary, answer.summary
    answer = await ask_offline(
        "帮我写一首关于股市涨跌的七言绝句，明天交语文作业要用", date(2020, 1, 2)
    )
    assert answer.status == "out_of_scope", answer.summary


async def test_years_down_out_of_the_calendar_years_named(data: Any) -> None:
    years = _spx().resample("YE").last().pct_change().loc["1991":"2010"]
    answer = await ask_offline(
        "Out of the 20 calendar years 1991 through 2010, in how many did the S&P 500 finish in "
        "the red?",
        date(2011, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"fell in {int((years < 0).sum())}" in answer.summary, answer.summary
    # a count asked with no count read ("how many were losing years", "in how many did it
    # gain" beside "the 20 calendar years") stays declined, never the window's return
    for question in (
        "Of the 20 calendar years 1991 through 2010, how many were losing years for the S&P 500?",
        "During the 20 calendar years 1991 through 2010, in how many did the S&P 500 gain?",
    ):
        answer = await ask_offline(question, date(2011, 1, 10))
        assert answer.status == "no_data", (question, answer.summary)
    closes = _stock("KO")
    start, end = closes.loc[:"2014-12-31"].iloc[-1], closes.loc[:"2019-12-31"].iloc[-1]
    answer = await ask_offline(
        "coca-cola, 5 full calendar years 2015-2019: total return incl. dividends (adj close) and "
        "what that works out to per year (CAGR)?",
        date(2021, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{(end / start - 1) * 100:.2f}% in all" in answer.summary, answer.summary
