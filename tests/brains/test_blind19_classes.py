"""Classes a fresh blind set found, each now read:

- an end said beside a named episode bounds it ("新冠疫情以来涨了多少（到2021年底）");
- "by how many percentage points did the T-bill rate change in 2001": the year's change in
  points, not the last quarter's change on the one before;
- "how much did it bounce in the month after the COVID low": a return, as its own part;
- "first ever close above 3,000";
- 利差的平均值是多少个百分点: the spread's mean, its points the spread's unit; the mean is written
  as the table writes it (1.82, never 1.81 from a value rounded twice).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values


async def test_an_end_beside_a_named_episode_bounds_it(data: Any) -> None:
    closes = load_sp500_dataset()["JPM"]
    change = (closes.loc[:"2021-12-31"].iloc[-1] / closes.loc["2020-02-19"] - 1) * 100
    answer = await ask_offline("摩根大通新冠疫情以来涨了多少（到2021年底）", date(2022, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_rates_yearly_change_in_percentage_points(data: Any) -> None:
    rate = series_values(data, "TB3MS")
    change = rate.loc[:"2001-12-31"].iloc[-1] - rate.loc[:"2000-12-31"].iloc[-1]
    question = "By how many percentage points did the 3-month T-bill rate change in 2001?"
    answer = await ask_offline(question, date(2002, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{abs(change):.2f} percentage points" in answer.summary, answer.summary


async def test_a_fall_and_a_bounce_each_over_its_window(data: Any) -> None:
    closes = load_sp500_index()["SP500"]
    fall = (closes.loc["2020-03-23"] / closes.loc["2020-02-19"] - 1) * 100
    bounce = (closes.loc[:"2020-04-23"].iloc[-1] / closes.loc["2020-03-23"] - 1) * 100
    question = (
        "S&P 500: how far did it fall during the COVID crash, and how much did it bounce in the "
        "month after the COVID low?"
    )
    answer = await ask_offline(question, date(2021, 1, 5))
    assert answer.status == "ok", answer.message
    for figure in (fall, bounce):
        assert f"{figure:.2f}%" in answer.summary, (figure, answer.summary)


async def test_the_first_ever_close_above_a_level(data: Any) -> None:
    closes = load_sp500_index()["SP500"]
    above = closes[closes > 3000]
    question = "on what date did the S&P 500 first ever close above 3,000, and at what level?"
    answer = await ask_offline(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    assert above.index[0].date().isoformat() in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question", ["2008年Baa与Aaa公司债利差的平均值是多少个百分点", "Baa-Aaa spread average in 2008"]
)
async def test_the_mean_of_a_spread_as_the_table_writes_it(data: Any, question: str) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008"]
    answer = await ask_offline(question, date(2009, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{spread.mean():.2f}%" in answer.summary, answer.summary


async def test_a_year_pair_is_two_years_when_a_month_in_them_is_asked(data: Any) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008":"2009"]
    question = "the widest the Baa-Aaa spread got in 2008-09, and which month?"
    answer = await ask_offline(question, date(2010, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{spread.max():.2f}%" in answer.summary, answer.summary
    assert spread.idxmax().strftime("%Y-%m") in answer.summary, answer.summary


async def test_a_claims_figure_is_not_a_filter(data: Any) -> None:
    closes = load_sp500_dataset()["UNH"]
    start, end = closes.loc[:"2009-12-31"].iloc[-1], closes.loc[:"2019-12-31"].iloc[-1]
    days = (closes.loc[:"2019-12-31"].index[-1] - closes.loc[:"2009-12-31"].index[-1]).days
    cagr = ((end / start) ** (365.25 / days) - 1) * 100
    question = (
        "A marketing deck says UnitedHealth compounded at over 25% a year from 2010 through 2019 "
        "— what was its actual CAGR?"
    )
    answer = await ask_offline(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


async def test_a_threshold_without_a_claim_still_filters(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2021"]
    answer = await ask_offline("How many days did AAPL close above $150 in 2021?", date(2022, 1, 5))
    assert answer.status == "ok", answer.message
    assert f" {int((closes > 150).sum())} " in answer.summary, answer.summary
