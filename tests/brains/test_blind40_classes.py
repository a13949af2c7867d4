"""Classes a fresh blind set found, now read:

- returns on some weekdays only ("avg daily return on mondays only", 只看周五): the statistic of
  those days' returns, each from the session before; a weekday said of a measure that cannot be
  kept to those days is `no_data`;
- a weekday said relative to today ("last Friday", 上周五, 本周一) is that one day, never the whole
  of last week or the default year.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


@pytest.mark.parametrize(
    ("question", "source", "ticker", "year", "weekday", "today"),
    [
        ("exxon avg daily return on mondays only, 2021", "skfolio_sp500", "XOM", "2021", 0,
         date(2022, 3, 1)),
        ("只看周五，标普500在2018年的平均日收益率是多少", "skfolio_index", "^GSPC", "2018", 4,
         date(2019, 1, 20)),
    ],
)  # fmt: skip
async def test_returns_on_some_weekdays_only(
    data: Any, question: str, source: str, ticker: str, year: str, weekday: int, today: date
) -> None:
    closes = source_frame(source)[ticker]
    returns = closes.pct_change().loc[year] * 100
    kept = returns[returns.index.day_of_week == weekday]
    assert abs(kept.mean() - returns.mean()) > 0.01  # the premise: the weekdays matter
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{kept.mean():.2f}%" in answer.summary, answer.summary
    assert str(len(kept)) in answer.summary, answer.summary
    assert answer.notes, "a note says only those weekdays were used"


async def test_a_weekday_of_a_measure_it_cannot_keep_to_is_no_data(data: Any) -> None:
    answer = await ask_offline("Apple's return on Fridays in 2019", date(2020, 2, 1))
    assert answer.status == "no_data", answer.summary


@pytest.mark.parametrize(
    "question", ["上周五苹果收盘价是多少", "What did Apple close at last Friday?"]
)
async def test_a_weekday_said_relative_to_today_is_that_day(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"]
    today = date(2022, 3, 2)  # a Wednesday: last Friday is 2022-02-25
    friday = closes.loc[:"2022-03-01"]
    friday = friday[friday.index.day_of_week == 4].iloc[-1:]
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{friday.index[0]:%Y-%m-%d}" in answer.summary, answer.summary
    assert f"{friday.iloc[0]:,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "WTI: how much did it drop from its 2014 high to its 2016 low?",
        "从2014年的高点到2016年的低点，WTI跌了多少",
        "2014年高点到2016年低点，WTI跌了多少",
    ],
)
async def test_a_move_between_two_periods_extremes_is_not_the_windows_return(
    data: Any, question: str
) -> None:
    answer = await ask_offline(question, date(2018, 6, 1))
    assert answer.status == "no_data", answer.summary


async def test_a_weekday_that_says_how_weeks_are_measured_keeps_every_day(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2017-12-29":"2018-12-31"]
    weekly = closes.resample("W-FRI").last().pct_change().dropna() * 100
    answer = await ask_offline(
        "2018年标普500跌得最狠的是哪一周？（按周五收盘对周五收盘算）", date(2019, 1, 20)
    )
    assert answer.status == "ok", answer.message
    assert f"{weekly.min():.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "ticker", "month", "side", "n"),
    [
        ("excluding the worst day, what was JPMorgan's average daily return in March 2020?",
         "JPM", "2020-03", "worst", 1),
        ("JPMorgan average daily return in March 2020 without its 2 worst days",
         "JPM", "2020-03", "worst", 2),
        ("苹果2020年8月，去掉涨得最多的那一天，日均收益率是多少", "AAPL", "2020-08", "best", 1),
    ],
)  # fmt: skip
async def test_a_statistic_without_the_best_or_worst_days(
    data: Any, question: str, ticker: str, month: str, side: str, n: int
) -> None:
    closes = source_frame("skfolio_sp500")[ticker]
    returns = (closes.pct_change() * 100).loc[month]
    left_out = returns.nsmallest(n) if side == "worst" else returns.nlargest(n)
    kept = returns.drop(left_out.index)
    answer = await ask_offline(question, date(2020, 12, 31))
    assert answer.status == "ok", answer.message
    assert f"{kept.mean():.2f}%" in answer.summary, answer.summary
    assert re.search(rf"\b{len(kept)}(?: observations|个观测值)", answer.summary), answer.summary
    for day in left_out.index:
        assert f"{day:%Y-%m-%d}" in answer.summary, answer.summary
    assert answer.notes


async def test_excluding_a_day_from_a_measure_it_cannot_leave_out_is_not_ok(data: Any) -> None:
    answer = await ask_offline(
        "excluding the worst day, what was JPMorgan's return in March 2020?", date(2020, 6, 30)
    )
    assert answer.status != "ok", answer.summary


async def test_how_many_days_beside_an_average_over_another_names_falls(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].pct_change().loc["2020"] * 100
    pg = source_frame("skfolio_sp500")["PG"].pct_change().loc["2020"] * 100
    days = index[index < -3].index
    answer = await ask_offline(
        "on the days the S&P 500 fell more than 3% in 2020, what was P&G's average return on "
        "those days, and how many days were there?",
        date(2021, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{pg.loc[days].mean():.2f}%" in answer.summary, answer.summary
    assert f"{len(days)} sessions" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question", ["When was unemployment highest?", "失业率啥时候最高？最高多少"]
)
async def test_when_a_series_was_highest_without_a_window_is_over_its_history(
    data: Any, question: str
) -> None:
    rate = series_values(data, "UNRATE")
    answer = await ask_offline(question, date(2009, 12, 1))
    assert answer.status == "ok", answer.message
    assert f"{rate.max():.2f}%" in answer.summary, answer.summary
    assert f"{rate.idxmax():%Y-%m-%d}" in answer.summary, answer.summary


async def test_a_relative_weekday_after_a_names_digits_stays_apart_from_them(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"]
    monday = closes.loc["2019-06-10"]  # 2019-06-12 is a Wednesday: 本周一 is 2019-06-10
    answer = await ask_offline("标普500本周一收盘多少点？", date(2019, 6, 12))
    assert answer.status == "ok", answer.message
    assert "2019-06-10" in answer.summary and f"{monday:,.2f}" in answer.summary, answer.summary
