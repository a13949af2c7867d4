"""Classes a fresh blind set (blind57) found, each failing before its fix:

- "from the close on Aug 1, 1990 to its close on Jan 17, 1991, what was the change? And what
  was the lowest close in between": the change between the two closes, beside the lowest close;
- a sentence that tells about the asker ("My pension is tied to core inflation.") sets no measure
  when the next one asks its own ("how much did core CPI rise between …");
- advice asked in mixed English and Chinese after a told move ("AMD drop so much this year
  already, now can 抄底 or not?") is advice;
- 奥巴马第一次当选美国总统的那一年 is 2008;
- a basket "bought at the close and held" (收盘买入、之后不动) beside a benchmark: its return
  against the benchmark's, and the gap, never an amount's growth nobody named; a gap after a
  name ending in a digit is not glued to it (跑输标普500的幅度为3.27个百分点);
- and blind54's last wrong: a worst run of sessions states the two closes it runs between.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from support.asking import ask_offline
from support.numeric_expect import buy_and_hold, source_frame


def _index(end: str) -> Any:
    return source_frame("skfolio_index")["^GSPC"].dropna().loc[:end]


async def test_the_change_between_two_closes_beside_the_lowest_close(data: Any) -> None:
    closes = _index("1991-01-17").loc["1990-08-01":]
    change = (closes.iloc[-1] / closes.iloc[0] - 1) * 100
    answer = await ask_offline(
        "Gulf War buff here. From the S&P 500's close on Aug 1, 1990 (the eve of Iraq's invasion "
        "of Kuwait) to its close on Jan 17, 1991, the day Desert Storm's air war began, what was "
        "the change? And what was the lowest close in between, on which day?",
        date(1991, 2, 28),
    )
    assert answer.status == "ok", answer.message
    for shown in (
        f"{change:.2f}%".lstrip("-"),
        f"{closes.min():.2f}",
        f"{closes.idxmin():%Y-%m-%d}",
    ):
        assert shown in answer.summary, (shown, answer.summary)
    assert "period-over-period" not in answer.summary


async def test_a_sentence_that_tells_sets_no_measure(data: Any) -> None:
    core = source_frame("arch_core_cpi")["CPILFESL"].dropna()
    rise = (core.loc["2018-11-01"] / core.loc["2008-11-01"] - 1) * 100
    answer = await ask_offline(
        "My pension is tied to core inflation. In percent, how much did core CPI (the one "
        "without food and energy) rise between November 2008 and November 2018?",
        date(2018, 12, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{rise:.2f}%" in answer.summary, answer.summary
    assert "year-over-year" not in answer.summary


async def test_advice_in_mixed_languages_after_a_told_move(data: Any) -> None:
    answer = await ask_offline(
        "AMD drop so much this year already, now can 抄底 or not? Should I 满仓 buy ah?",
        date(2022, 12, 28),
    )
    assert answer.status == "out_of_scope", answer.summary


async def test_the_year_obama_was_first_elected(data: Any) -> None:
    closes = _index("2008-12-31")
    change = (closes.iloc[-1] / closes.loc[:"2007-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "奥巴马第一次当选美国总统的那一年，标普500全年涨跌了多少？", date(2009, 6, 30)
    )
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_basket_bought_at_a_close_and_held_against_a_benchmark(data: Any) -> None:
    basket = buy_and_hold(
        source_frame("skfolio_sp500"), {"JNJ": 0.6, "PG": 0.4}, "2018-12-31", "2019-12-31"
    )
    made = float(basket.iloc[-1] / 100 - 1) * 100
    closes = _index("2019-12-31")
    market = (closes.iloc[-1] / closes.loc[:"2018-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "强生和宝洁六四开做一个组合，2018年最后一个交易日收盘买入、之后不动，拿到2019年底，收益多少？"
        "跟标普500同期比是落后还是领先，差几个点？",
        date(2020, 1, 10),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{made:.2f}%", f"{market:.2f}%", f"{abs(made - market):.2f}个百分点"):
        assert shown in answer.summary, (shown, answer.summary)
    assert f"500{abs(made - market):.2f}" not in answer.summary


async def test_unemployment_at_its_worst_is_its_highest_and_its_quarter(data: Any) -> None:
    rate = source_frame("statsmodels_macro")["UNRATE"].loc["1980-01-01":"1989-12-31"]
    peak = rate.idxmax()
    answer = await ask_offline(
        "八十年代美国失业最严重的时候，失业率到了多少？是在哪个季度？", date(2010, 3, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{rate.max():.2f}%" in answer.summary, answer.summary
    assert f"{peak.year}Q{peak.quarter}" in answer.summary, answer.summary


async def test_which_of_two_windows_was_bigger_gives_each(data: Any) -> None:
    rate = source_frame("statsmodels_macro")["UNRATE"]
    seventies = rate.loc["1970-01-01":"1979-12-31"].median()
    eighties = rate.loc["1980-01-01":"1989-12-31"].median()
    answer = await ask_offline(
        "Homework question: which was bigger, the median US unemployment rate in the 1970s or "
        "in the 1980s? Please give both medians.",
        date(2009, 12, 31),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{seventies:.2f}%", f"{eighties:.2f}%"):
        assert shown in answer.summary, (shown, answer.summary)


async def test_a_claim_a_later_sentence_asks_about_is_not_a_threshold(data: Any) -> None:
    closes = _index("2019-12-31")
    monthly = closes.resample("ME").last().pct_change().loc["2010-01":"2019-12"]
    up = int((monthly > 0).sum())
    answer = await ask_offline(
        "A columnist writes that the S&P 500 finished higher in more than 60% of months during "
        "the 2010s. Out of the 120 months from January 2010 through December 2019, how many "
        "were up, and what share is that?",
        date(2020, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{up} of {len(monthly)} months" in answer.summary, answer.summary
    assert f"{up / len(monthly) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_worst_run_of_sessions_states_its_two_closes(data: Any) -> None:
    closes = source_frame("arch_nasdaq")["^IXIC"].dropna().loc[:"2008-12-31"]
    runs = (closes / closes.shift(5) - 1).loc["2008-01-01":]
    end = runs.idxmin()
    start = closes.index[closes.index.get_loc(end) - 5]
    answer = await ask_offline(
        "Nasdaq Comp worst 5-session drop in 2008 - how bad, and start/end dates?",
        date(2009, 3, 1),
    )
    assert answer.status == "ok", answer.message
    for shown in (
        f"{runs.min() * 100:.2f}%",
        f"{start:%Y-%m-%d}",
        f"{end:%Y-%m-%d}",
        f"{closes.loc[start]:,.2f}",
        f"{closes.loc[end]:,.2f}",
    ):
        assert shown in answer.summary, (shown, answer.summary)
