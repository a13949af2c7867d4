"""Classes a fresh blind set (blind72) found, each failing before its fix:

- two periods joined by "and" with the change "from the first to the second" / 从前者到后者, or
  with a move asked in points: each level and the change between them (was each period's own
  change);
- a spread's level at two months and how many bps it widened or tightened: the spread's own
  move from the first month's value, restated in basis points (was its legs' returns, or
  nothing);
- "close up or down by more than 3%" counts moves either way (was the falls alone);
- 該不該把存款全部轉進… asks for advice;
- and declines: "biggest up day and biggest down day", a sum put in said with 投進 / 拿…買 and
  its 市值 (the holding's value, never a company's market cap).

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


async def test_two_periods_and_the_change_from_the_first_to_the_second(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    change = (gdp.loc["1991-01-01"] / gdp.loc["1990-07-01"] - 1) * 100
    answer = await ask_offline(
        "For my macro class: US real GDP in 1990Q3 and in 1991Q1, and the percent change from "
        "the first to the second?",
        date(1992, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary
    cpi = series_values(data, "CPIAUCSL")
    change = (cpi.loc["2009-01-01"] / cpi.loc["2008-07-01"] - 1) * 100
    answer = await ask_offline(
        "上课要用：CPI在2008年第三季度和2009年第一季度分别是多少？从前者到后者变化了百分之几？",
        date(2010, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_spreads_two_months_and_its_move_in_basis_points(data: Any) -> None:
    spread = series_values(data, "BAA") - series_values(data, "AAA")
    widened = round((spread.loc["2009-01-01"] - spread.loc["2007-06-01"]) * 100)
    answer = await ask_offline(
        "Baa-Aaa spread Jun 2007 vs Jan 2009 - both levels please, and how many bps did it widen?",
        date(2009, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"That is {widened} basis points" in answer.summary, answer.summary
    tightened = round((spread.loc["2016-10-01"] - spread.loc["2016-02-01"]) * 100)
    answer = await ask_offline(
        "Baa minus Aaa in Feb 2016 and in Oct 2016, and how much did it tighten in bps?",
        date(2017, 1, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"That is {tightened} basis points" in answer.summary, answer.summary


async def test_sessions_moving_more_than_a_level_either_way(data: Any) -> None:
    moves = _stock("JPM").pct_change().loc["2011"] * 100
    answer = await ask_offline(
        "how many sessions in 2011 did JPM close up or down by more than 3%?", date(2012, 1, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"on {int((moves.abs() > 3).sum())} of {len(moves)}" in answer.summary


async def test_should_i_move_my_savings_is_advice(data: Any) -> None:
    answer = await ask_offline("我快退休了，該不該把存款全部轉進那斯達克指數？", date(2012, 1, 10))
    assert answer.status == "out_of_scope", answer.summary


async def test_biggest_up_and_down_days(data: Any) -> None:
    moves = _stock("AMD").pct_change().loc["2016"] * 100
    answer = await ask_offline(
        "AMD 2016 - biggest up day and biggest down day? need % and dates", date(2017, 1, 10)
    )
    assert answer.status == "ok", answer.message
    for day in (moves.idxmax(), moves.idxmin()):
        assert f"{day:%Y-%m-%d} ({moves[day]:.2f}%)" in answer.summary, answer.summary


async def test_a_sum_put_into_an_index_said_in_traditional_chinese(data: Any) -> None:
    # (the warehouse keeps arch's S&P 500 closes for these years: the same closes, more digits)
    spx = source_frame("arch_sp500")["^GSPC"].dropna()
    worth = 1_000_000 * spx.loc["2012-12-31"] / spx.loc["1999-12-31"]
    answer = await ask_offline(
        "1999年12月31日收盤把100萬美元投進標普500，到2012年12月31日收盤剩下多少？虧了多少？",
        date(2013, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{1_000_000 - worth:,.2f}" in answer.summary, answer.summary
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].dropna()
    gain = 200_000 * (nasdaq.loc["2018-12-24"] / nasdaq.loc["2015-06-01"] - 1)
    answer = await ask_offline(
        "2015年6月1日收盤拿20萬美金買那斯達克，到2018年12月24日收盤市值是多少？賺還是賠？",
        date(2019, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{gain:,.2f}" in answer.summary, answer.summary
