"""Macro classes a fresh blind set found, each now read:

- 增长 / 增长了多少 of a series is its percent change over the window, read, not left unread;
- an explicit basis ("Q4 2008 over Q4 2007", 按2008年四季度对2007年四季度算) names the two points
  compared: the change from the earlier to the later, over any other period said;
- a change between averages (按年均值算, "annual average over annual average") is declined,
  never answered with another comparison;
- a Chinese series name in its common wordings (三个月期美国国债利率, 三个月美国国债利率,
  三个月期美债利率) is the series, never a length of time; a quarter of the bundled quarterly
  T-bill series is its one value;
- dates in brackets restate the period before them ("in the early 80s (1980-1984)"): they are
  the window, so the highest value over it is answered with its quarter;
- a formula in brackets after a measure says how it is computed ("annualized (q/q compounded,
  i.e. (Q/Qprev)^4-1)", （日收益率样本标准差×√252）): the measure answers it, its numbers are no
  thresholds; annualised growth of a quarter (annualized q/q, 环比折年率) is (Q / Qprev)^4 − 1,
  never the year-over-year change nor the plain quarter-over-quarter one; and the quarter's own
  value covers its quarter (no note that the data ends).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values


def _change(values: Any, base: str, end: str) -> float:
    return float((values.loc[end] / values.loc[base] - 1) * 100)


async def test_growth_in_chinese_is_the_change_over_the_window(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    answer = await ask_offline("美国实际GDP 2008年增长了多少", date(2010, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{abs(_change(gdp, '2007-10-01', '2008-10-01')):.2f}%" in answer.summary
    assert not any("增长" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    ("question", "base", "end"),
    [
        ("2008年美国实际GDP增长了多少？按2008年四季度对2007年四季度算", "2007-10-01", "2008-10-01"),
        ("2008年美国实际GDP增长了多少？按2008年三季度对2007年三季度算", "2007-07-01", "2008-07-01"),
        ("How much did real GDP grow in 2008, Q3 2008 over Q3 2007?", "2007-07-01", "2008-07-01"),
        (
            "How much did real GDP grow in 2008, measured Q4 2008 vs Q4 2007?",
            "2007-10-01",
            "2008-10-01",
        ),
        ("2008年美国实际GDP比2007年增长了多少", "2007-10-01", "2008-10-01"),
    ],
)
async def test_an_explicit_basis_names_the_two_points(
    data: Any, question: str, base: str, end: str
) -> None:
    gdp = series_values(data, "GDPC1")
    answer = await ask_offline(question, date(2010, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{abs(_change(gdp, base, end)):.2f}%" in answer.summary, answer.summary
    assert base in answer.summary and end in answer.summary, answer.summary
    assert not answer.notes, answer.notes  # every word read: none left out


@pytest.mark.parametrize("question", ["苹果2020年比2019年涨得多吗", "苹果2020年比2019年多涨了多少"])
async def test_two_years_set_against_each_other_stay_two_windows(question: str) -> None:
    closes = load_sp500_dataset()["AAPL"]
    returns = [
        (closes.loc[: f"{year}-12-31"].iloc[-1] / closes.loc[: f"{year - 1}-12-31"].iloc[-1] - 1)
        * 100
        for year in (2019, 2020)
    ]
    answer = await ask_offline(question, date(2021, 3, 1))
    assert answer.status == "ok", answer.message
    for figure in returns:
        assert f"{figure:.2f}%" in answer.summary, (figure, answer.summary)


@pytest.mark.parametrize(
    "question",
    [
        "1980年第二季度三个月期美国国债利率是多少？",
        "1980年二季度三个月美国国债利率是多少",
        "1980年二季度三个月期美债利率是多少",
    ],
)
async def test_a_chinese_series_name_in_its_common_wordings(data: Any, question: str) -> None:
    rate = series_values(data, "TB3MS").loc["1980-04-01":"1980-06-30"]
    assert len(rate) == 1  # the bundled series is quarterly: the quarter's own value
    answer = await ask_offline(question, date(2010, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{rate.iloc[0]:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "In the early 80s (1980-1984), what was the peak quarterly unemployment rate and which "
        "quarter was it?",
        "八十年代初（1980-1984年）失业率最高是多少，在哪个季度？",
    ],
)
async def test_dates_in_brackets_restate_the_period_before_them(data: Any, question: str) -> None:
    rate = series_values(data, "UNRATE").loc["1980":"1984"]
    answer = await ask_offline(question, date(2010, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{rate.max():.2f}%" in answer.summary, answer.summary
    assert str(rate.idxmax().to_period("Q")) in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "What was real GDP growth last quarter, annualized (q/q compounded, i.e. (Q/Qprev)^4-1)?",
        "What was real GDP growth last quarter, annualized?",
        "美国实际GDP上季度年化增长率是多少？（即(本季/上季)^4-1）",
        "What was real GDP growth last quarter, annualized q/q?",
        "美国实际GDP上季度环比折年率是多少",
    ],
)
async def test_a_formula_in_brackets_is_the_measure_it_defines(data: Any, question: str) -> None:
    gdp = series_values(data, "GDPC1")
    annualized = ((gdp.loc["2009-07-01"] / gdp.loc["2009-04-01"]) ** 4 - 1) * 100
    answer = await ask_offline(question, date(2009, 11, 30))
    assert answer.status == "ok", answer.message
    assert f"{annualized:.2f}%" in answer.summary, answer.summary
    assert not any("Qprev" in note for note in answer.notes), answer.notes


async def test_a_volatility_formula_in_brackets(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2019-12-31":"2020-12-31"]
    volatility = closes.pct_change().dropna().std() * np.sqrt(252) * 100
    question = "2020年标普500的年化波动率是多少？（日收益率样本标准差×√252）"
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{volatility:.2f}%" in answer.summary, answer.summary


async def test_a_quarterly_value_covers_its_quarter(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    assert gdp.index[-1] == gdp.loc["2009-07-01":"2009-09-30"].index[-1]  # 2009Q3's value
    answer = await ask_offline(
        "What was real GDP growth last quarter, annualized?", date(2009, 11, 30)
    )
    assert answer.status == "ok", answer.message
    assert not any("data ends" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    "question",
    [
        "2008年美国实际GDP增长了多少？按年均值算。",
        "How much did real GDP grow in 2008, annual average over annual average?",
    ],
)
async def test_a_change_between_averages_is_declined(data: Any, question: str) -> None:
    gdp = series_values(data, "GDPC1")
    answer = await ask_offline(question, date(2010, 1, 15))
    assert answer.status == "no_data", answer.summary
    ends = _change(gdp, "2007-10-01", "2008-10-01")
    assert f"{abs(ends):.2f}" not in answer.message, answer.message  # no other comparison
