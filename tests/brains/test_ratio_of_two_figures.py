"""A ratio of two figures: "exxon's gain is how many times chevron's?", "how many times
bigger was X's return than Y's", 苹果的涨幅是微软的几倍 — the answer shows both figures and their
ratio (the first named over the one after "times" / "than" / 是…的), or declines the word; never
the two figures alone answered ok. Expected figures are computed here with pandas from skfolio's
prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


def _return(ticker: str, start: str, end: str) -> float:
    """The return from the last close before `start` to the last close on or before `end`."""
    closes = load_sp500_dataset()[ticker]
    base = closes[closes.index < start].iloc[-1]
    last = closes[closes.index <= end].iloc[-1]
    return float((last / base - 1) * 100)


@pytest.mark.parametrize(
    ("question", "top", "bottom", "start", "end"),
    [
        ("XOM ytd vs CVX ytd - exxon's gain is how many times chevron's?", "XOM", "CVX",
         "2022-01-01", "2022-06-30"),
        ("Apple's 2020 return was how many times Microsoft's?", "AAPL", "MSFT", "2020-01-01",
         "2020-12-31"),
        ("How many times bigger was Microsoft's gain than Apple's in 2021?", "MSFT", "AAPL",
         "2021-01-01", "2021-12-31"),
        ("In 2020, Microsoft's return was what multiple of Apple's?", "MSFT", "AAPL",
         "2020-01-01", "2020-12-31"),
        ("苹果2020年的涨幅是微软的几倍？", "AAPL", "MSFT", "2020-01-01", "2020-12-31"),
        ("2021年微软涨幅是苹果的多少倍", "MSFT", "AAPL", "2021-01-01", "2021-12-31"),
        ("今年以来埃克森美孚的涨幅是雪佛龙的几倍", "XOM", "CVX", "2022-01-01", "2022-06-30"),
    ],
)  # fmt: skip
async def test_a_ratio_of_two_returns_is_shown(
    data: Any, question: str, top: str, bottom: str, start: str, end: str
) -> None:
    over, under = _return(top, start, end), _return(bottom, start, end)
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{over / under:.2f}" in answer.summary, answer.summary
    assert f"{over:.2f}%" in answer.summary, answer.summary
    assert f"{under:.2f}%" in answer.summary, answer.summary


async def test_how_many_times_with_a_condition_is_still_a_count(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]["2021"]
    days = int((closes > 150).sum())
    question = "How many times did Apple close above $150 in 2021?"
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f" {days} " in answer.summary, answer.summary
