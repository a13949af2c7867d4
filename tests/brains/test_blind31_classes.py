"""Classes a fresh blind set found, now read:

- "real GDP growth in Q2 2009 over Q1 2009", 2009年二季度GDP相比一季度增长了多少: a plain growth
  word over an explicit basis is the change between the two periods' values, not the
  year-over-year change "growth" means alone; the name between the two periods (二季度GDP相比
  一季度) does not hide the basis, and 相比 is honoured by it;
- a level series such as GDP grows by a percent change over a window; only a rate or a factor's
  returns are read as their values, and GDP's change is no "return";
- 那 typed for 哪 ("蘋果2020年那個月漲得最多？"): which month, when nothing before points at one.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    "question",
    [
        "real GDP growth in Q2 2009 over Q1 2009",
        "2009年二季度GDP相比一季度增长了多少",
        "2009年二季度GDP对一季度增长了多少",
    ],
)
async def test_growth_over_a_basis_is_the_change_between_the_periods(
    data: Any, question: str
) -> None:
    gdp = series_values(data, "GDPC1")
    change = (gdp.loc["2009-04-01"] / gdp.loc["2009-01-01"] - 1) * 100
    year_over_year = (gdp.loc["2009-04-01"] / gdp.loc["2008-04-01"] - 1) * 100
    answer = await ask_offline(question, date(2009, 12, 1))
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary
    assert f"{year_over_year:.2f}" not in shown(answer)
    assert "returned" not in answer.summary and "收益率为" not in answer.summary, answer.summary


async def test_a_level_series_grows_by_its_change(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    change = (gdp.loc["2008-10-01"] / gdp.loc["2007-10-01"] - 1) * 100
    answer = await ask_offline("美国实际GDP在2008年增长了多少？", date(2009, 12, 1))
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_that_typed_for_which(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2019-12-31":"2020-12-31"]
    monthly = closes.resample("ME").last()
    monthly = (monthly / monthly.shift(1) - 1).dropna() * 100
    answer = await ask_offline("蘋果2020年那個月漲得最多？", date(2021, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{monthly.max():.2f}%" in answer.summary, answer.summary
    assert f"{monthly.idxmax():%Y-%m}" in answer.summary, answer.summary
