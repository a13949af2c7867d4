"""Classes two fresh blind sets (blind68, blind69) found, each failing before its fix:

- a start said around its day: "since its March 9, 2009 close", "since the Brexit referendum on
  June 23, 2016", "since the Fed hiked on December 16, 2015" (what happened that day is no
  name) — was the day alone;
- a holiday of a year said relative to today (去年国庆节, "last year's Christmas") and a name
  before a bracketed day (今年春节（2月5号）, "this year's Lunar New Year (Feb 5)") — was the
  whole year;
- "2020年11月這個月": that month pointed back at, not the current one;
- a level with decimals ("above 2.5%") was read as its whole part, and a count of a spread's
  months counted each series instead of the spread;
- "the 2013 average prices of Brent and WTI, and Brent's premium": each series' mean beside
  the spread's (was the spread's alone);
- the window's maximum drawdown asked with how many days its recovery took (从高点到重新站回
  高点花了多少天) — was a count of the window's sessions;
- and declines: "trailing 12m", 放3萬美金在沃爾瑪, 均价, "how many down days … vs up days",
  "how far the laggard trailed the leader" (a gap, ranked best first), "Legit?" (no name).

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


def _index(source: str, ticker: str) -> pd.Series:
    return source_frame(source)[ticker].dropna()


def _since(closes: pd.Series, day: str, end: str) -> float:
    """The move from `day`'s own close to the last close on or before `end`, in %."""
    return (closes.loc[:end].iloc[-1] / closes.loc[:day].iloc[-1] - 1) * 100


async def test_since_a_day_named_with_its_close_after_it(data: Any) -> None:
    rise = _since(_index("skfolio_index", "^GSPC"), "2009-03-09", "2013-03-09")
    answer = await ask_offline(
        "For a 4-year anniversary piece: how much has the S&P 500 risen since its March 9, 2009 "
        "close?",
        date(2013, 3, 9),
    )
    assert answer.status == "ok", answer.message
    assert f"{rise:.2f}%" in answer.summary and "2009-03-09" in answer.summary, answer.summary


async def test_since_what_happened_on_a_day(data: Any) -> None:
    nasdaq = _since(_index("arch_nasdaq", "^IXIC"), "2016-06-23", "2018-09-01")
    answer = await ask_offline(
        "Nasdaq Composite - percentage gain since the Brexit referendum on June 23, 2016?",
        date(2018, 9, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{nasdaq:.2f}%" in answer.summary, answer.summary
    apple = _since(_stock("AAPL"), "2015-12-16", "2018-09-01")
    answer = await ask_offline(
        "How has Apple done since the Fed hiked on December 16, 2015?", date(2018, 9, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{apple:.2f}%" in answer.summary, answer.summary
    assert "Fed" not in answer.summary, answer.summary  # the event's words are no unknown name


async def test_a_holiday_of_last_year_and_a_bracketed_day_after_a_name(data: Any) -> None:
    nasdaq = _since(_index("arch_nasdaq", "^IXIC"), "2015-10-01", "2016-01-08")
    answer = await ask_offline(
        "从去年国庆节那天到现在，纳斯达克综合指数涨了多少？", date(2016, 1, 8)
    )
    assert answer.status == "ok", answer.message
    assert f"{nasdaq:.2f}%" in answer.summary and "2015-10-01" in answer.summary, answer.summary
    spx = _since(_index("skfolio_index", "^GSPC"), "2019-02-05", "2019-06-28")
    for question in (
        "今年春节（2月5号）到今天，标普500涨了多少？",
        "How much is the S&P 500 up since this year's Lunar New Year (Feb 5)?",
    ):
        answer = await ask_offline(question, date(2019, 6, 28))
        assert answer.status == "ok", answer.message
        assert f"{spx:.2f}%" in answer.summary, (question, answer.summary)


async def test_that_month_pointed_back_at(data: Any) -> None:
    moves = {t: _since(_stock(t), "2020-10-31", "2020-11-30") for t in ("BBY", "HD", "WMT")}
    best, worst = max(moves, key=moves.__getitem__), min(moves, key=moves.__getitem__)
    answer = await ask_offline(
        "百思買、家得寶、沃爾瑪，2020年11月這個月哪家漲最多？跟最差的差距多大？", date(2020, 12, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{moves[best]:.2f}%" in answer.summary, answer.summary
    assert f"{moves[best] - moves[worst]:.2f}个百分点" in answer.summary, answer.summary


async def test_months_a_spread_was_above_a_level_with_decimals(data: Any) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008":"2009"]
    above = int((spread > 2.5).sum())
    answer = await ask_offline(
        "How many months in 2008-2009 did the Baa-Aaa spread print above 2.5 percentage points?",
        date(2010, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"in {above} of {len(spread)} months" in answer.summary, answer.summary


async def test_each_series_mean_beside_the_spreads(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2013"]
    wti = series_values(data, "MCOILWTICO").loc["2013"]
    answer = await ask_offline(
        "Using the monthly price series for both, what were the 2013 average prices of Brent and "
        "WTI, and how big was Brent's premium?",
        date(2014, 2, 1),
    )
    assert answer.status == "ok", answer.message
    for figure in (brent.mean(), wti.mean(), (brent - wti).mean()):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)
    # the spread's mean alone when that is what is asked
    answer = await ask_offline("average Brent-WTI spread in 2013", date(2014, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{brent.mean():.2f}" not in answer.summary, answer.summary


async def test_a_daily_mean_said_as_junjia(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO").loc["2015"]
    answer = await ask_offline("WTI原油2015年全年日度现货均价是多少美元一桶？", date(2016, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{wti.mean():.2f}" in answer.summary, answer.summary


async def test_a_drawdown_and_the_days_its_recovery_took(data: Any) -> None:
    closes = _index("arch_nasdaq", "^IXIC").loc["1999":"2018"]
    peaks = closes.cummax()
    trough = (closes / peaks - 1).idxmin()
    peak = closes.loc[:trough].idxmax()
    back = closes.loc[trough:][closes.loc[trough:] >= closes.loc[peak]].index[0]
    answer = await ask_offline(
        "纳斯达克综合指数1999年到2018年之间最大回撤有多少？从高点到重新站回高点花了多少天？",
        date(2019, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{(back - peak).days}个日历日" in answer.summary, answer.summary
    assert f"{(closes.loc[trough] / closes.loc[peak] - 1) * 100:.2f}%" in answer.summary
    spx = _index("skfolio_index", "^GSPC").loc["2018":"2019"]
    trough = (spx / spx.cummax() - 1).idxmin()
    peak = spx.loc[:trough].idxmax()
    back = spx.loc[trough:][spx.loc[trough:] >= spx.loc[peak]].index[0]
    answer = await ask_offline(
        "what was the S&P 500's max drawdown over 2018-2019, and how many calendar days from the "
        "peak until it closed back at that peak?",
        date(2020, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{(back - peak).days} calendar days" in answer.summary, answer.summary


async def test_a_compact_trailing_length_after_its_word(data: Any) -> None:
    moves = {t: _since(_stock(t), "2019-09-19", "2020-09-19") for t in ("AAPL", "MSFT")}
    answer = await ask_offline(
        "trailing 12m, apple vs msft - which one's ahead and by how much?", date(2020, 9, 19)
    )
    assert answer.status == "ok", answer.message
    gap = moves["AAPL"] - moves["MSFT"]
    assert f"{gap:.2f} percentage points" in answer.summary, answer.summary


async def test_a_sum_put_in_said_with_fang(data: Any) -> None:
    closes = _stock("WMT")
    worth = 30000 * closes.loc[:"2022-06-18"].iloc[-1] / closes.loc[:"2017-06-18"].iloc[-1]
    answer = await ask_offline("五年前如果放3萬美金在沃爾瑪，現在會值多少？", date(2022, 6, 18))
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary


async def test_down_days_against_up_days_said_apart(data: Any) -> None:
    moves = _index("skfolio_index", "^GSPC").pct_change().loc["2015"]
    answer = await ask_offline(
        "How many down days did the S&P 500 have in 2015, vs up days?", date(2016, 1, 9)
    )
    assert answer.status == "ok", answer.message
    up, down = int((moves > 0).sum()), int((moves < 0).sum())
    assert f"rose in {up} of" in answer.summary and f"fell in {down}" in answer.summary


async def test_how_far_the_laggard_trailed_the_leader(data: Any) -> None:
    moves = {t: _since(_stock(t), "2020-12-31", "2021-12-31") for t in ("JNJ", "MRK", "LLY")}
    ranked = sorted(moves, key=moves.__getitem__, reverse=True)
    answer = await ask_offline(
        "JNJ, PFE, MRK, LLY in 2021 - excluding Pfizer, rank them and tell me how far the "
        "laggard trailed the leader.",
        date(2022, 1, 8),
    )
    assert answer.status == "ok", answer.message
    gap = moves[ranked[0]] - moves[ranked[-1]]
    assert f"{gap:.2f} percentage points" in answer.summary, answer.summary
    assert f"1. {ranked[0]}" in answer.summary, answer.summary  # the leader first


async def test_a_claim_between_its_last_closes_of_two_years(data: Any) -> None:
    closes = _stock("MSFT")
    move = (closes.loc[:"2018-12-31"].iloc[-1] / closes.loc[:"2014-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "my coworker swears MSFT tripled from its last close of 2014 to its last close of 2018. "
        "true or not?",
        date(2019, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary and "2014-12-31" in answer.summary, answer.summary


async def test_the_three_worst_months_said_in_chinese(data: Any) -> None:
    closes = _index("skfolio_index", "^GSPC")
    months = closes.resample("ME").last().pct_change().loc["2018"] * 100
    worst = months.nsmallest(3)
    answer = await ask_offline(
        "标普500 2018年跌得最多的三个月分别是哪几个月？各跌了多少？", date(2019, 1, 5)
    )
    assert answer.status == "ok", answer.message
    for month, move in worst.items():
        assert f"{month:%Y-%m}" in answer.summary and f"{move:.2f}%" in answer.summary, (
            month,
            answer.summary,
        )


async def test_how_much_dearer_on_average_in_chinese(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2011"]
    wti = series_values(data, "MCOILWTICO").loc["2011"]
    answer = await ask_offline(
        "2011年布伦特平均比WTI每桶贵多少？两个都用月度数据算全年均价", date(2012, 2, 1)
    )
    assert answer.status == "ok", answer.message
    for figure in (brent.mean(), wti.mean(), brent.mean() - wti.mean()):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)


async def test_a_claim_checked_with_legit(data: Any) -> None:
    closes = _stock("AAPL")
    move = (closes.loc[:"2018-12-31"].iloc[-1] / closes.loc[:"2014-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "Saw a headline claiming Apple more than doubled over 2015-2018 (four years). Legit?",
        date(2019, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"does not hold: the figure is {move:.2f}%" in answer.summary, answer.summary
    assert "Legit" not in answer.summary, answer.summary


async def test_where_a_rate_was_when_something_happened(data: Any) -> None:
    aaa = series_values(data, "AAA")
    answer = await ask_offline(
        "Clients keep asking where long-term rates were when things blew up. What was Moody's "
        "Aaa corporate bond yield in October 2008?",
        date(2009, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{aaa.loc['2008-10-01']:.2f}%" in answer.summary, answer.summary
