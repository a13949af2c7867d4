"""Measure words typed a letter or a space off are read as the measure, and the answer says so.

A user who writes "Sharp ratio" or "cumulative retrun" gets the Sharpe ratio or the cumulative
return (the figure computed here with pandas from skfolio's shipped prices), with a note saying
what their words were read as; a word that is right as it stands ("a sharp drop", "bigger") is
never changed into a measure.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _closes(ticker: str, year: int) -> pd.Series:
    """The year's closes with the last close before it first (the base of its returns)."""
    prices = load_sp500_dataset()[ticker].dropna()
    before = prices[prices.index < f"{year}-01-01"].iloc[-1:]
    return pd.concat([before, prices[str(year)]])


def _said(answer: Answer) -> str:
    return " ".join([answer.summary, answer.message or "", *answer.notes])


async def _ask(question: str) -> Answer:
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


@pytest.mark.parametrize(
    ("question", "read_as"),
    [
        ("What was Apple's Sharp ratio in 2021?", "Sharp ratio"),
        ("apple sharpe ration 2021", "sharpe ration"),
        ("苹果2021年的Sharp ratio是多少", "Sharp ratio"),
    ],
)
async def test_a_misspelt_sharpe_ratio_is_the_sharpe_ratio(
    data: Any, question: str, read_as: str
) -> None:
    returns = _closes("AAPL", 2021).pct_change().dropna()
    sharpe = returns.mean() / returns.std(ddof=1) * math.sqrt(252)
    answer = await _ask(question)
    assert answer.status == "ok", answer.message
    assert answer.intent.metrics == ["sharpe"]
    assert f"{sharpe:.2f}" in answer.summary
    assert any(read_as in note for note in answer.notes), answer.notes


async def test_volatility_typed_without_an_i_is_the_annualised_volatility(data: Any) -> None:
    returns = _closes("AAPL", 2021).pct_change().dropna()
    volatility = returns.std(ddof=1) * math.sqrt(252) * 100
    answer = await _ask("how high was the volatilty of apple in 2021")
    assert answer.status == "ok", answer.message
    assert f"{volatility:.2f}%" in answer.summary
    assert any('"volatilty"' in note and "volatility" in note for note in answer.notes)


@pytest.mark.parametrize("question", ["Microsoft max draw down 2020", "微软2020年的max draw down"])
async def test_draw_down_in_two_words_is_the_maximum_drawdown(data: Any, question: str) -> None:
    closes = _closes("MSFT", 2020)
    drawdown = (closes / closes.cummax() - 1).min() * 100
    answer = await _ask(question)
    assert answer.status == "ok", answer.message
    assert answer.intent.metrics == ["max_drawdown"]
    assert f"{drawdown:.2f}%" in answer.summary
    assert any("draw down" in note for note in answer.notes), answer.notes


async def test_a_cumulative_retrun_is_the_cumulative_return(data: Any) -> None:
    closes = _closes("AAPL", 2021)
    growth = (closes.iloc[-1] / closes.iloc[0] - 1) * 100
    answer = await _ask("Show me Apple's cumulative retrun in 2021")
    assert answer.status == "ok", answer.message
    assert answer.intent.metrics == ["cumulative_return"]
    assert f"{growth:.2f}%" in answer.summary
    assert any("retrun" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    "question",
    [
        "Did Apple have a sharp drop in 2020?",
        "Which had the bigger drawdown in 2020, Exxon or Chevron?",
        "Apple's closing prices in 2021",
    ],
)
async def test_words_right_as_they_stand_are_not_read_as_another_measure(
    data: Any, question: str
) -> None:
    answer = await _ask(question)
    assert answer.intent.metrics != ["sharpe"]
    assert not any(note.startswith("Read ") for note in answer.notes), answer.notes
