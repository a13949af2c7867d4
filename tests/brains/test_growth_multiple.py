"""A growth asked as a multiple of where it started: 苹果近十年涨了几倍, "how many times has Apple
grown since 2010", "how many-fold did MSFT and AAPL go up" — the answer states the end over the
start beside the return, or declines the words; never the return alone answered ok. Expected
figures are computed here with pandas from skfolio's prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _multiple(ticker: str, start: str, end: str, *, strictly_before: bool) -> float:
    """The last close on or before `end` over the base close (before or on/before `start`)."""
    closes = load_sp500_dataset()[ticker]
    base = closes[closes.index < start] if strictly_before else closes[closes.index <= start]
    return float(closes[closes.index <= end].iloc[-1] / base.iloc[-1])


@pytest.mark.parametrize(
    ("question", "start", "strictly_before"),
    [
        ("苹果近十年涨了几倍", "2012-12-28", False),
        ("苹果股价十年涨了几倍？", "2012-12-28", False),  # a bare length before 涨了 is the past
        ("How many times has Apple grown since 2010?", "2010-01-01", True),
        ("by what factor did apple's stock rise since 2010", "2010-01-01", True),
    ],
)  # fmt: skip
async def test_one_names_growth_multiple_is_stated(
    data: Any, question: str, start: str, strictly_before: bool
) -> None:
    times = _multiple("AAPL", start, TODAY.isoformat(), strictly_before=strictly_before)
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{times:.2f}" in answer.summary, answer.summary
    assert f"{(times - 1) * 100:,.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    ["how many-fold did MSFT and AAPL go up in the last 5 years", "苹果和微软近五年各涨了几倍"],
)
async def test_each_names_multiple_is_stated_beside_the_ranking(data: Any, question: str) -> None:
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    for ticker in ("AAPL", "MSFT"):
        times = _multiple(ticker, "2017-12-28", TODAY.isoformat(), strictly_before=False)
        assert f"{times:.2f}" in answer.summary, (ticker, answer.summary)


async def test_a_multiple_of_a_measure_it_cannot_give_is_declined(data: Any) -> None:
    question = "How many times has Apple's volatility risen since 2010?"
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status != "ok", answer.summary  # never the sessions counted, answered ok
