"""Two levels set against each other, and a series' sibling of another frequency:

- "how much more expensive was Brent than WTI", 布伦特比WTI贵多少: the difference of the two levels
  (a spread) with both legs, never one level alone nor their returns;
- two series combined value by value at one frequency: a monthly Brent against WTI, whose bare
  name is the daily series, takes the monthly WTI, never one day's price, and says so;
- a series with no data in the window (the daily WTI ends in January 2019) answered from its
  sibling of another frequency that has some (the monthly WTI), with a note naming both.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    "question",
    [
        "In December 2019, how much more expensive was Brent than WTI (monthly prices)?",
        "布伦特原油2019年12月比WTI贵多少",
    ],
)
async def test_how_much_more_expensive_is_the_spread(data: Any, question: str) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2019-12"].iloc[-1]
    wti = series_values(data, "MCOILWTICO").loc["2019-12"].iloc[-1]
    answer = await ask_offline(question, date(2020, 2, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for figure in (brent - wti, brent, wti):
        assert f"{figure:.2f}" in text, text


@pytest.mark.parametrize(
    "question",
    [
        "2011年8月布伦特比WTI贵多少",
        "How much more expensive was Brent than WTI in August 2011?",
        "What was the Brent-WTI spread in August 2011?",
    ],
)
async def test_a_gap_takes_both_series_at_one_frequency(data: Any, question: str) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2011-08"].iloc[-1]
    wti = series_values(data, "MCOILWTICO").loc["2011-08"].iloc[-1]
    daily = series_values(data, "DCOILWTICO").loc["2011-08"]
    assert not daily.empty  # the premise: the daily series has the month too
    answer = await ask_offline(question, date(2020, 2, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for figure in (brent - wti, brent, wti):
        assert f"{figure:.2f}" in text, text
    assert f"{daily.iloc[0]:.2f}" not in text and f"{brent - daily.iloc[0]:.2f}" not in text
    assert any("DCOILWTICO" in n and "MCOILWTICO" in n for n in answer.notes), answer.notes


async def test_a_series_without_data_in_the_window_is_answered_by_its_sibling(data: Any) -> None:
    daily = series_values(data, "DCOILWTICO")
    monthly = series_values(data, "MCOILWTICO")
    assert daily.index[-1] < pd.Timestamp("2019-12-01")  # the premise: the daily series ended
    answer = await ask_offline("WTI price in December 2019", date(2020, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{monthly.loc['2019-12'].iloc[-1]:.2f}" in shown(answer)
    assert any("DCOILWTICO" in n and "MCOILWTICO" in n for n in answer.notes), answer.notes


async def test_a_daily_measure_is_not_answered_by_a_monthly_sibling(data: Any) -> None:
    answer = await ask_offline("WTI annualized volatility in December 2019", date(2020, 2, 1))
    assert answer.status == "no_data", answer.summary
