"""Classes a fresh blind set found declined or answered `ok` about something else, each now read:

- both ends of a ranking asked in two clauses ("which one held up best … how much did the worst
  one lose?");
- an entity's measure said by another of its names after it ("US CPI inflation": the CPI's
  year-over-year change, never its level);
- "the two levels and the change in percentage points": the difference between two windows'
  levels, not each one's change on its previous period;
- a series of returns (a Fama–French factor) ranked by its compounded yearly returns, "calendar
  year" read as the year ranked;
- "the longest run of consecutive down days": the longest losing streak, dated;
- "by how much did it rise" beside the best quarter: that quarter's move;
- "the S&P 500 vs its 52-week high": the distance from the high;
- "how far did it fall during the COVID crash": the move over the episode, not a distance;
- "the second best month": the ranking down to the second.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from arch.data import frenchdata
from skfolio.datasets import load_factors_dataset, load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values


async def test_the_best_and_the_worst_asked_in_two_clauses(data: Any) -> None:
    prices = load_factors_dataset()[["MTUM", "QUAL", "USMV", "VLUE"]]
    base = prices[prices.index < "2022-01-01"].iloc[-1]
    returns = (prices[prices.index <= "2022-12-28"].iloc[-1] / base - 1) * 100
    question = (
        "Of MTUM, QUAL, USMV and VLUE, which one held up best in 2022 and how much did the worst "
        "one lose?"
    )
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    for figure in (returns.max(), returns.min()):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)


async def test_cpi_inflation_is_the_cpis_yearly_change(data: Any) -> None:
    cpi = series_values(data, "CPIAUCSL").loc["1969":"1985"]
    yearly = (cpi / cpi.shift(4) - 1).loc["1970":] * 100  # quarterly data: a year is 4 rows
    question = "When did US CPI inflation peak between 1970 and 1985, and how high did it get?"
    answer = await ask_offline(question, date(2009, 12, 15))
    assert answer.status == "ok", answer.message
    assert f"{yearly.max():.2f}" in answer.summary, answer.summary
    assert yearly.idxmax().date().isoformat() in answer.summary, answer.summary


async def test_two_levels_and_their_change_in_points(data: Any) -> None:
    rate = series_values(data, "UNRATE")
    first, last = rate.loc["2007-10-01"], rate.loc["2009-04-01"]
    question = (
        "For a note I'm drafting: US unemployment rate in 2007Q4 versus 2009Q2 — the two levels "
        "and the change in percentage points."
    )
    answer = await ask_offline(question, date(2009, 12, 15))
    assert answer.status == "ok", answer.message
    for figure in (first, last, last - first):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)


@pytest.mark.parametrize(
    "question",
    [
        "Which calendar year in the 2010s was worst for the HML value factor (compounded), and "
        "what was its return?",
        "Which year in the 2010s was worst for the HML value factor?",
    ],
)
async def test_a_factors_worst_year_is_compounded(data: Any, question: str) -> None:
    raw = frenchdata.load()["HML"]
    labels = pd.to_datetime(raw.index.astype("int64").astype(str), format="%Y%m")
    months = pd.Series(raw.to_numpy(), index=labels).loc["2010":"2019"]
    yearly = months.groupby(months.index.year).apply(lambda m: ((1 + m / 100).prod() - 1) * 100)
    answer = await ask_offline(question, date(2018, 12, 31))
    assert answer.status == "ok", answer.message
    assert f"{yearly.min():.2f}" in answer.summary, answer.summary
    assert str(yearly.idxmin()) in answer.summary, answer.summary


async def test_the_longest_run_of_down_days_is_the_losing_streak(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2008"]
    down = closes.diff() < 0
    runs = down.groupby((~down).cumsum()).sum()
    question = (
        "What was the S&P 500's longest run of consecutive down days in 2008, and when did it "
        "start and end?"
    )
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f" {int(runs.max())} " in answer.summary, answer.summary


async def test_by_how_much_beside_the_best_quarter_is_its_move(data: Any) -> None:
    closes = load_sp500_dataset()["GE"]
    quarters = closes.resample("QE").last()
    moves = (quarters.pct_change() * 100).loc["2009":"2012"]
    question = "Which quarter between 2009 and 2012 was GE's best, and by how much did it rise?"
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{moves.max():.2f}" in answer.summary, answer.summary


async def test_an_index_against_its_52_week_high(data: Any) -> None:
    closes = load_sp500_index()["SP500"]
    year = closes.loc["2021-12-29":"2022-12-28"]
    question = (
        "Where's the S&P 500 vs its 52-week high? Give me the high, the date, and how far off "
        "it we are."
    )
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{year.max():,.2f}" in answer.summary, answer.summary
    assert f"{(year.iloc[-1] / year.max() - 1) * -100:.2f}" in answer.summary, answer.summary


async def test_how_far_it_fell_during_an_episode_is_its_move(data: Any) -> None:
    closes = load_sp500_index()["SP500"]
    fall = (closes.loc["2020-03-23"] / closes.loc["2020-02-19"] - 1) * 100
    question = "How far did the S&P 500 fall during the COVID crash?"
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{fall:.2f}" in answer.summary, answer.summary


async def test_the_second_best_month_is_ranked(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    months = (closes.resample("ME").last().pct_change() * 100).loc["2021"]
    second = months.sort_values(ascending=False).iloc[1]
    answer = await ask_offline("AAPL's second best month of 2021", date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{second:.2f}" in answer.summary, answer.summary


async def test_a_treasury_rates_fall_said_in_chinese(data: Any) -> None:
    rate = series_values(data, "TB3MS")
    before, last = rate.loc[:"2007-12-31"].iloc[-1], rate.loc[:"2008-12-31"].iloc[-1]
    question = "3个月期美国国债利率在2008年期间下降了多少个百分点？"
    answer = await ask_offline(question, date(2009, 12, 15))
    assert answer.status == "ok", answer.message
    assert f"{abs(last - before):.2f}个百分点" in answer.summary, answer.summary
    assert not answer.notes or all("下降" not in note for note in answer.notes), answer.notes
