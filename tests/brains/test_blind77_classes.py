"""Classes fresh blind sets (blind77, blind78) found, each failing before its fix:

- how many up days in a month and the longest losing streak, asked together: both answered
  (was the streak alone, "ok"); 收红 for a day closing up (was every session counted);
- the fall from a year's highest close to the lowest close after it (2020年最高收盘价之后跌到最低,
  "from its 2020 high to the lowest close after it"): that fall, dated (was the daily returns'
  statistics, or the last close's distance from the high);
- "which one was bigger" of two names, one without data in the window: declined (was the
  other's figure alone).

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


def _month_moves(ticker: str, month: str) -> pd.Series:
    closes = _stock(ticker)
    returns = closes.pct_change()
    return returns.loc[month]


def _longest_down_run(moves: pd.Series) -> int:
    longest = run = 0
    for move in moves:
        run = run + 1 if move < 0 else 0
        longest = max(longest, run)
    return longest


async def test_up_days_and_the_longest_losing_streak_together(data: Any) -> None:
    moves = _month_moves("BAC", "2011-08")
    up, streak = int((moves > 0).sum()), _longest_down_run(moves)
    answer = await ask_offline(
        "美国银行2011年8月那叫一个闹心，整个月到底几天收红的？最多连跌几天啊？", date(2011, 9, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"有{up}个交易日收涨" in answer.summary, answer.summary
    assert f"最长连跌{streak}个交易日" in answer.summary, answer.summary
    english = await ask_offline(
        "How many up days did Bank of America have in August 2011, and what was its longest "
        "losing streak?",
        date(2011, 9, 10),
    )
    assert english.status == "ok", english.message
    assert f"closed up on {up} of {len(moves)}" in english.summary, english.summary
    assert f"{streak} sessions in a row" in english.summary, english.summary


async def test_down_days_said_green(data: Any) -> None:
    moves = _month_moves("BAC", "2011-08")
    answer = await ask_offline("美国银行2011年8月几天收绿？", date(2011, 9, 10))
    assert answer.status == "ok", answer.message
    assert f"有{int((moves < 0).sum())}个交易日收跌" in answer.summary, answer.summary


def _fall_from_the_years_high(ticker: str, year: str) -> tuple[float, str, str]:
    closes = _stock(ticker)
    in_year = closes.loc[year]
    peak = in_year.idxmax()
    after = closes.loc[peak:]
    trough = after.idxmin()
    fall = (after.min() / in_year.max() - 1) * 100
    return float(fall), str(peak.date()), str(trough.date())


async def test_the_fall_from_a_years_highest_close_to_the_low_after_it(data: Any) -> None:
    fall, peak, trough = _fall_from_the_years_high("KO", "2020")
    for question in (
        "可口可乐2020年最高收盘价之后跌到最低，跌幅是多少？",
        "How much did Coca-Cola fall from its 2020 high to the lowest close after it?",
    ):
        answer = await ask_offline(question, date(2020, 12, 31))
        assert answer.status == "ok", answer.message
        assert f"{fall:.2f}%" in answer.summary, answer.summary
        assert peak in answer.summary and trough in answer.summary, answer.summary


async def test_which_one_was_bigger_needs_both_names(data: Any) -> None:
    answer = await ask_offline(
        "Momentum factor vs the market factor Mkt-RF, both compounded over 2000-2009 - which one "
        "was bigger?",
        date(2010, 1, 15),
    )
    assert answer.status == "no_data", answer.summary
