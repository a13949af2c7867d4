"""Classes two fresh blind sets (blind43, blind44) found, now read:

- a year followed by a counter-like word (2019年只看周一): the year, never 2019 years;
- "growth at an annualized rate": the period's growth compounded to a year, not year-over-year;
- "widest month in 2008-09", "best month in 2008-09": two years (one month has no month to pick),
  and "widest month" asks the month of the extreme;
- 第四季 (without 度) is the fourth quarter, not the past four quarters;
- "a positive return", 正收益: the sign counted, not a return beside the count.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


async def test_a_year_before_only_is_still_the_year(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["MRK"].loc[:"2019-12-31"]
    returns = closes.pct_change().loc["2019"] * 100
    mondays = returns[returns.index.day_of_week == 0]
    # today is a Monday, so 周一 could not be read as today either
    answer = await ask_offline("默沙东2019年只看周一的话，平均日收益率是多少？", date(2020, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{mondays.mean():.2f}%" in answer.summary, answer.summary
    assert f"{returns.mean():.2f}%" not in answer.summary, answer.summary


async def test_growth_at_an_annualized_rate_compounds_the_quarter(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    quarter = gdp.loc["2008-10-01"] / gdp.loc["2008-07-01"]
    annualized = (quarter**4 - 1) * 100
    answer = await ask_offline(
        "What was US real GDP growth in Q4 2008 at an annualized rate?", date(2009, 6, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{annualized:.2f}%" in answer.summary, answer.summary


async def test_the_widest_month_in_a_year_pair(data: Any) -> None:
    gap = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008":"2009"]
    answer = await ask_offline("Baa minus Aaa spread — widest month in 2008-09?", date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{gap.max():.2f}" in answer.summary, answer.summary
    assert f"{gap.idxmax():%Y-%m}" in answer.summary, answer.summary
    assert not answer.notes, answer.notes  # "widest" is read


async def test_the_best_month_in_a_year_pair_ranks_its_months(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"]
    ends = closes.loc[:"2009-12-31"].resample("ME").last()
    monthly = (ends / ends.shift(1) - 1).loc["2008":"2009"] * 100
    answer = await ask_offline("S&P 500 best month in 2008-09", date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{monthly.idxmax():%Y-%m}" in answer.summary, answer.summary
    assert f"{monthly.max():.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize("question", ["蘋果2018年第四季跌了多少", "苹果2018年第四季跌了多少"])
async def test_a_quarter_written_without_du(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"]
    base = closes.loc[:"2018-09-30"].iloc[-1]
    end = closes.loc[:"2018-12-31"].iloc[-1]
    answer = await ask_offline(question, date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{(end / base - 1) * 100:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "上世纪90年代（1990-1999），Fama-French价值因子HML有几个月是正收益？",
        "In how many months of the 1990s did HML have a positive return?",
    ],
)
async def test_months_with_a_positive_return_are_counted(data: Any, question: str) -> None:
    hml = series_values(data, "FF_HML").loc["1990-01-01":"1999-12-31"]
    up = int((hml > 0).sum())
    answer = await ask_offline(question, date(2000, 3, 1))
    assert answer.status == "ok", answer.message
    assert str(up) in answer.summary and f"{up / len(hml) * 100:.2f}%" in answer.summary, (
        answer.summary
    )
