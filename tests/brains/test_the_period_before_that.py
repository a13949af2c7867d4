"""A period named by the one said before it: "coca cola annualized volatility last year? and the
year before that?", 可口可乐去年的年化波动率是多少？再往前一年呢？, "Apple's return in Q3 2020? And
the quarter before?" — the calendar period just before the window named last, each answered as a
part of its own. Expected figures are computed here with pandas from skfolio's shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


def _year(closes: pd.Series, year: int) -> pd.Series:
    """The year's closes from the last close before it (its first return's base)."""
    base = closes.loc[: f"{year - 1}-12-31"].index[-1]
    return closes.loc[base : f"{year}-12-31"]


@pytest.mark.parametrize(
    "question",
    ["coca cola annualized volatilty last year? and the year before that?",
     "可口可乐去年的年化波动率是多少？再往前一年呢？",
     "Coca-Cola's annualized volatility in 2020? And the year before?"],
)  # fmt: skip
async def test_volatility_of_a_year_and_the_one_before_it(data: Any, question: str) -> None:
    closes = load_sp500_dataset()["KO"]
    answer = await ask(question, QuestionContext(today=date(2021, 5, 14), brain="offline"))
    assert answer.status == "ok", answer.message
    for year in (2020, 2019):
        vol = _year(closes, year).pct_change().dropna().std() * np.sqrt(252) * 100
        assert f"{vol:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    ["Apple's return in Q3 2020? And the quarter before?",
     "Apple's return in Q3 2020? And the prior quarter?"],
)  # fmt: skip
async def test_the_quarter_before_the_one_named(data: Any, question: str) -> None:
    """ "The prior quarter" after Q3 2020 is Q2 2020, not the three months before today."""
    closes = load_sp500_dataset()["AAPL"]
    answer = await ask(question, QuestionContext(today=date(2021, 5, 14), brain="offline"))
    assert answer.status == "ok", answer.message
    for first, last in (("2020-06-30", "2020-09-30"), ("2020-03-31", "2020-06-30")):
        change = closes.loc[:last].iloc[-1] / closes.loc[:first].iloc[-1] * 100 - 100
        assert f"{change:.2f}%" in answer.summary, answer.summary
