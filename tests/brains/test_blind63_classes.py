"""Classes a fresh blind set (blind63) found, each failing before its fix:

- a "from" day a few days before one closed period ("over calendar 2015 through 2021 (from
  the 2014 year-end close)") is that period's base, not a second window running to today;
- "annualized" with no measure named, between two closes, is the compound yearly rate;
- a frequency word that names the data ("WTI daily spot: from … to …, how much did it drop")
  asks one change over the window, not each day's return; "in $/bbl" asks that change in
  the price's own unit too;
- a quarter of a quarterly series is one value: "level in 2009Q3 and how many points it had
  risen since 2007Q4" runs from 2007Q4's own value to 2009Q3's;
- "which month had Brent at its biggest premium to WTI" is the month of the spread's highest
  value, not each price's best month by return.

And classes it declined: "don't add dividends back", 不算分红 said of an index (a caveat its
levels meet, no member left out); "the Dec 2018 print, and the move over 2018" (a monthly
series' December is the year's last value, not a second window); "lowest WTI daily close of
2016" (a name between the superlative and "close of 2016"); "Moody's Baa corporate yield"
(words of the series' own name after it); 布蘭特 for Brent.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


def _between(closes: pd.Series, start: str, end: str) -> float:
    return float(closes.loc[:end].iloc[-1] / closes.loc[:start].iloc[-1])


async def test_a_from_day_before_a_closed_period_is_its_base(data: Any) -> None:
    closes = source_frame("skfolio_sp500")
    expected = {
        t: (_between(closes[t].dropna(), "2014-12-31", "2021-12-31") - 1) * 100
        for t in ("HD", "WMT", "BBY")
    }
    answer = await ask_offline(
        "Rank HD, WMT and BBY by total price return over calendar 2015 through 2021 (from the "
        "2014 year-end close). Give each number.",
        date(2022, 1, 15),
    )
    assert answer.status == "ok", answer.message
    for figure in expected.values():
        assert f"{figure:.2f}%" in answer.summary, answer.summary
    assert answer.intent is not None and answer.intent.end == date(2021, 12, 31)


async def test_annualized_alone_between_two_closes_is_the_cagr(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna()
    growth = _between(closes, "2009-03-09", "2018-12-31")
    days = (pd.Timestamp("2018-12-31") - pd.Timestamp("2009-03-09")).days
    cagr = (growth ** (365.25 / days) - 1) * 100
    answer = await ask_offline(
        "Price-only S&P 500, annualized: from the 3/9/2009 close to the 12/31/2018 close?",
        date(2019, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


async def test_a_frequency_naming_the_data_asks_one_change_in_both_units(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO").dropna()
    first, last = wti.loc[:"2008-07-03"].iloc[-1], wti.loc[:"2008-12-31"].iloc[-1]
    answer = await ask_offline(
        "WTI daily spot: from the 7/3/2008 print to the 12/31/2008 print, how much did it drop, "
        "in % and in $/bbl?",
        date(2009, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{(last / first - 1) * 100:.2f}%" in answer.summary, answer.summary
    assert f"{abs(last - first):.2f}" in answer.summary, answer.summary
    assert "daily return" not in answer.summary.casefold(), answer.summary


async def test_a_rise_since_a_quarter_runs_between_the_two_quarters_values(data: Any) -> None:
    rate = series_values(data, "UNRATE").dropna()
    start, end = rate.loc["2007-10-01"], rate.loc["2009-07-01"]
    answer = await ask_offline(
        "US unemployment rate: level in 2009Q3 and how many points it had risen since 2007Q4?",
        date(2011, 6, 15),  # later quarters are out: the rise still ends at 2009Q3
    )
    assert answer.status == "ok", answer.message
    assert f"{end - start:.2f} percentage points" in answer.summary, answer.summary
    assert f"{start:.2f}%" in answer.summary and f"{end:.2f}%" in answer.summary, answer.summary


async def test_the_month_of_the_biggest_premium_is_the_spreads_extreme(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2011"]
    wti = series_values(data, "MCOILWTICO").loc["2011"]
    gap = (brent - wti).dropna()
    month = gap.idxmax()
    answer = await ask_offline(
        "In 2011, which month had Brent at its biggest premium to WTI (monthly averages), and "
        "how big was the gap?",
        date(2012, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{gap.max():.2f}" in answer.summary, answer.summary
    assert month.strftime("%Y-%m") in answer.summary, answer.summary
    assert "best month" not in answer.summary, answer.summary


async def test_dividends_left_out_of_an_index_are_a_caveat_its_levels_meet(data: Any) -> None:
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].dropna()
    five_years = (_between(nasdaq, "2002-12-31", "2007-12-31") - 1) * 100
    one_year = (_between(nasdaq, "2007-12-31", "2008-12-31") - 1) * 100
    english = await ask_offline(
        "Nasdaq Composite price return 2003 through 2007 — index points only, don't add "
        "dividends back.",
        date(2019, 1, 15),
    )
    chinese = await ask_offline(
        "不算分红，纳斯达克综合指数2008年全年跌了多少？只看点位。", date(2009, 6, 30)
    )
    assert english.status == "ok", english.message
    assert f"{five_years:.2f}%" in english.summary, english.summary
    assert chinese.status == "ok", chinese.message
    assert f"{one_year:.2f}%" in chinese.summary, chinese.summary


async def test_a_stocks_dividends_left_out_are_not_met_by_its_adjusted_closes(data: Any) -> None:
    answer = await ask_offline("不算分红，苹果2008年全年跌了多少？", date(2009, 6, 30))
    assert answer.status == "no_data", answer.summary


async def test_a_monthly_series_last_month_is_the_years_last_value(data: Any) -> None:
    baa = series_values(data, "BAA").dropna()
    december, before = baa.loc["2018-12-01"], baa.loc["2017-12-01"]
    answer = await ask_offline(
        "Moody's Baa yield — Dec 2018 print, and the move over 2018 in basis points?",
        date(2019, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{december:.2f}%" in answer.summary, answer.summary
    assert f"{round((december - before) * 100):.0f} basis points" in answer.summary, answer.summary
    assert "Dec" not in answer.summary.replace(str(date(2018, 12, 1)), ""), answer.summary


async def test_the_lowest_close_of_a_year_with_the_name_between(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO").loc["2016"].dropna()
    answer = await ask_offline("lowest WTI daily close of 2016 and the date?", date(2017, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{wti.min():.2f}" in answer.summary, answer.summary
    assert wti.idxmin().strftime("%Y-%m-%d") in answer.summary, answer.summary


async def test_words_of_a_series_own_name_and_a_traditional_spelling(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU")
    december, year_before = brent.loc["2019-12-01"], brent.loc["2018-12-01"]
    answer = await ask_offline(
        "布蘭特原油2019年12月嘅月均價係幾多？比2018年12月高咗幾多？", date(2020, 2, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{december:.2f}" in answer.summary, answer.summary
    assert f"{december - year_before:.2f}" in answer.summary, answer.summary
    assert f"{(december / year_before - 1) * 100:.2f}%" in answer.summary, answer.summary
    spot = await ask_offline(
        "WTI spot: from the 7/3/2008 print to the 12/31/2008 print, how much did it drop?",
        date(2009, 1, 15),
    )
    assert spot.intent is not None
    unread = [line for line in spot.intent.trace if line.startswith("left over")]
    assert not any("spot" in line for line in unread), unread


async def test_a_level_checked_yes_or_no_is_answered_by_the_value(data: Any) -> None:
    december = series_values(data, "BAA").loc["2008-12-01"]
    answer = await ask_offline(
        "Was Moody's Baa corporate yield above 8% in December 2008? yes or no", date(2009, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{december:.2f}%" in answer.summary, answer.summary
    verdict = "holds" if december > 8 else "does not hold"
    assert f"The claim (above 8%) {verdict}" in answer.summary, answer.summary
