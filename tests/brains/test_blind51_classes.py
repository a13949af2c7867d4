"""Classes a fresh blind set (blind51) and its session found, each failing before its fix:

- a difference between two names' returns said as arithmetic ("the difference between Apple's
  and Microsoft's 2020 returns", "AAPL return 2020 - MSFT return 2020", 苹果收益减去微软收益,
  涨幅之差) is the gap between the returns in percentage points: never the two returns alone,
  nor a spread of their prices in dollars; a difference of prices stays a spread of prices;
- a figure asked in basis points ("the spread in bps", "how many basis points did the rate
  move", 多少个基点) is restated in them: a rate's change in points × 100, never its % change;
- a month with a two-digit year ("Oct '08") is that month;
- a part of a year said beside the year ("Walmart in 2021 - only the second half of the year",
  "WMT 2021, H2", "in 2021: from the end of June to year-end") is the window, never the whole
  year; asked as a second window beside it ("the 2020 return, and March?") it is declined;
- "the end of June" is June's last day, "year-end" alone the year said before;
- a name's gloss ("the market factor, i.e. the market return net of the risk-free rate") names
  nothing more: no S&P 500 and no T-bill rate beside the factor;
- a return series beside prices (the market factor beside the S&P 500) is compounded, never
  read as a price (-457.76%);
- two windows' volatilities and the gap between them (the count of returns is no figure);
- a streak's dates asked "between which dates" are its own, not a ranking of one name;
- "should the pension fund move … into bonds" is advice;
- "pre-COVID-crash" (a hyphen inside an episode's name) is the episode, never an error.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import close_to_close, source_frame


@pytest.mark.parametrize(
    "question",
    [
        "AAPL return 2020 - MSFT return 2020?",
        "What's the difference between Apple's and Microsoft's 2020 returns?",
        "Apple's 2020 return minus Microsoft's 2020 return",
        "difference in 2020 return, AAPL vs MSFT",
        "苹果和微软2020年涨幅之差",
        "苹果2020年收益减去微软2020年收益是多少",
    ],
)
async def test_a_difference_of_two_returns_is_their_gap(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")
    returns = {n: close_to_close(closes[n], "2019-12-31", "2020-12-31") for n in ("AAPL", "MSFT")}
    gap = returns["AAPL"] - returns["MSFT"]
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{gap:.2f}" in answer.summary, answer.summary
    assert "USD" not in answer.summary and "美元" not in answer.summary, answer.summary


async def test_a_difference_of_prices_stays_a_spread_of_prices(data: Any) -> None:
    closes = source_frame("skfolio_sp500")[["AAPL", "MSFT"]].loc[:"2020-12-31"].iloc[-1]
    answer = await ask_offline(
        "difference between Apple's and Microsoft's closing prices at end of 2020",
        date(2022, 6, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{closes['AAPL'] - closes['MSFT']:.2f}" in answer.summary, answer.summary


def _year_returns(ticker: str, start: str, end: str) -> float:
    return close_to_close(source_frame("skfolio_sp500")[ticker], start, end)


async def test_a_spread_asked_in_basis_points_is_restated_in_them(data: Any) -> None:
    yields = source_frame("arch_default").loc["2008-10-01"]
    points = round((yields["BAA"] - yields["AAA"]) * 100)
    for question in (
        "Moody's Baa vs Aaa for Oct '08 - give me both yields and the spread in bps.",
        "BAA AAA利差2008年10月是多少个基点",
    ):
        answer = await ask_offline(question, date(2008, 11, 20))
        assert answer.status == "ok", answer.message
        assert f"{points}" in answer.summary and "2008-10" in answer.summary, answer.summary


async def test_a_rates_move_in_basis_points_is_its_change_times_a_hundred(data: Any) -> None:
    rate = series_values(data, "TB3MS")
    change = (rate.loc[:"2008-12-31"].iloc[-1] - rate.loc[:"2007-12-31"].iloc[-1]) * 100
    answer = await ask_offline(
        "3m T-bill: how many basis points did the rate move over calendar 2008?", date(2009, 2, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"{change:,.0f} basis points" in answer.summary, answer.summary
    relative = (rate.loc[:"2008-12-31"].iloc[-1] / rate.loc[:"2007-12-31"].iloc[-1] - 1) * 1e4
    assert f"{relative:,.2f}" not in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "Walmart in 2021 - only the second half of the year, please: what was its return from "
        "the end of June to year-end?",
        "WMT 2021, H2 return",
        "Walmart in 2021: return from the end of June to year-end",
        "沃尔玛2021年，下半年收益率",
    ],
)
async def test_a_part_of_a_year_beside_the_year_is_the_window(data: Any, question: str) -> None:
    half = _year_returns("WMT", "2021-06-30", "2021-12-31")
    whole = _year_returns("WMT", "2020-12-31", "2021-12-31")
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{half:.2f}%" in answer.summary, answer.summary
    assert f"{whole:.2f}%" not in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    ["AAPL's 2020 return, and what was it in March?", "苹果2020年收益率是多少，3月份呢？"],
)
async def test_a_part_asked_beside_its_year_is_declined(data: Any, question: str) -> None:
    whole = _year_returns("AAPL", "2019-12-31", "2020-12-31")
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "no_data", answer.summary
    assert "March" in (answer.message or "") or "3月" in (answer.message or "")
    assert f"{whole:.2f}" not in (answer.summary or "")


async def test_the_end_of_a_month_is_its_last_day(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"]
    since = float(closes.loc[:"2021-12-31"].iloc[-1] / closes.loc[:"2021-06-30"].iloc[-1] - 1)
    answer = await ask_offline("AAPL return since the end of June 2021", date(2021, 12, 31))
    assert answer.status == "ok", answer.message
    assert f"{since * 100:.2f}%" in answer.summary, answer.summary


async def test_a_gloss_names_nothing_more_and_a_factor_beside_prices_compounds(
    data: Any,
) -> None:
    market = source_frame("arch_french")["FF_MKT_RF"].loc["2002-01-01":"2002-12-31"]
    compounded = float(((1 + market / 100).prod() - 1) * 100)
    answer = await ask_offline(
        "Fama-French market factor, i.e. the market return net of the risk-free rate: "
        "compounded over the 12 months of 2002, what did it come to?",
        date(2003, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{compounded:.2f}%" in answer.summary, answer.summary
    assert "^GSPC" not in answer.summary and "FF_RF" not in answer.summary, answer.summary
    both = await ask_offline(
        "Compare the S&P 500 and the Fama-French market factor's cumulative return in 2002",
        date(2003, 2, 1),
    )
    assert both.status == "ok", both.message
    assert f"{compounded:.2f}%" in both.summary, both.summary


async def test_two_years_volatilities_and_their_gap(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["PG"]

    def vol(start: str, end: str) -> float:
        window = closes.loc[:end]
        window = window.loc[window.loc[:start].index[-1] :]
        return float(window.pct_change().dropna().std(ddof=1) * np.sqrt(252) * 100)

    high, low = vol("2007-12-31", "2008-12-31"), vol("2017-12-31", "2018-12-31")
    answer = await ask_offline(
        "Was Procter & Gamble more volatile in 2008 or in 2018 (annualized volatility of daily "
        "returns), and by how many percentage points?",
        date(2019, 3, 1),
    )
    assert answer.status == "ok", answer.message
    for figure in (high, low, high - low):
        assert f"{figure:.2f}" in answer.summary, answer.summary


async def test_a_streaks_dates_asked_between_which_dates(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2021-12-31":"2022-12-28"]
    down = (closes.diff() < 0).to_numpy()[1:]
    best, run = 0, 0
    for is_down in down:
        run = run + 1 if is_down else 0
        best = max(best, run)
    answer = await ask_offline(
        "Longest losing streak for the S&P 500 so far this year: how many sessions in a row did "
        "it close down, between which dates, and how much did it lose over that run?",
        date(2022, 12, 28),
    )
    assert answer.status == "ok", answer.message
    assert f"{best} sessions" in answer.summary, answer.summary


async def test_a_fund_moving_into_bonds_is_advice(data: Any) -> None:
    answer = await ask_offline(
        "Given where rates are, should the pension fund move part of its equity allocation into "
        "long bonds now?",
        date(2022, 10, 5),
    )
    assert answer.status == "out_of_scope", answer.message


async def test_an_episode_name_with_a_hyphen_is_read(data: Any) -> None:
    answer = await ask_offline(
        "When did the S&P 500 get back to its pre-COVID-crash closing high?", date(2021, 1, 15)
    )
    assert answer.status != "error", answer.message
