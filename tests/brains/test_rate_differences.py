"""Differences of a rate, in percentage points: a period's change ("by how many points did the
unemployment rate rise during 2008", 失业率2008年上升了几个百分点 — its last value minus the one
before the period), two quarters' values ("T-bill rate in Q1 1981 vs Q1 1990 - how many
percentage points lower was it in 1990?") and two years' averages (穆迪Aaa收益率2000年平均多少？
比1990年的平均水平低了几个百分点). Expected figures are computed here with pandas from the
warehouse's FRED and Moody's series."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask, series_values, shown

from datapilot.core.context import QuestionContext


@pytest.mark.parametrize(
    "question",
    [
        "By how many points did the unemployment rate rise during 2008?",
        "失业率2008年上升了几个百分点",
    ],
)
async def test_a_rates_change_over_a_year_starts_before_it(data: Any, question: str) -> None:
    rate = series_values(data, "UNRATE")
    before, last = rate.loc[:"2007-12-31"].iloc[-1], rate.loc[:"2008-12-31"].iloc[-1]
    answer = await ask(question, QuestionContext(today=date(2009, 8, 1), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{last - before:.2f}" in answer.summary, answer.summary
    assert f"{before:.2f}" in answer.summary, answer.summary  # the value before the year
    assert "%" not in answer.summary.split(f"{last - before:.2f}")[1][:2], answer.summary


@pytest.mark.parametrize(
    "question",
    ["3-month T-bill rate in Q1 1981 vs Q1 1990 - how many percentage points lower was it in "
     "1990?",
     "3个月国库券利率1981年一季度和1990年一季度相比，1990年低了几个百分点？"],
)  # fmt: skip
async def test_two_quarters_values_and_their_gap(data: Any, question: str) -> None:
    rate = series_values(data, "TB3MS")
    a, b = rate.loc["1981-01":"1981-03"], rate.loc["1990-01":"1990-03"]
    assert len(a) == len(b) == 1  # a quarterly series: one value per quarter
    answer = await ask(question, QuestionContext(today=date(2000, 1, 1), brain="offline"))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for value in (a.iloc[0], b.iloc[0], a.iloc[0] - b.iloc[0]):
        assert f"{value:.2f}" in text, text


@pytest.mark.parametrize(
    "question",
    ["穆迪Aaa企业债收益率2000年平均多少？比1990年的平均水平低了几个百分点",
     "What was the average Moody's Aaa yield in 2000, and how many percentage points lower was it "
     "than the 1990 average?",
     "Aaa corporate bond yield: its 2000 average, and how many points lower than the 1990 "
     "average?"],
)  # fmt: skip
async def test_two_years_averages_and_their_gap(data: Any, question: str) -> None:
    aaa = series_values(data, "AAA")
    a, b = aaa.loc["2000"].mean(), aaa.loc["1990"].mean()
    answer = await ask(question, QuestionContext(today=date(2005, 1, 1), brain="offline"))
    assert answer.status == "ok", answer.message
    for value in (a, b, a - b):
        assert f"{abs(value):.2f}" in answer.summary, answer.summary
