""" "More then 5%", "less then $150": "then" typed for "than" after a comparative and before a
number is read as "than" (the threshold it states is honoured); "then" where it can be the real
word ("fell more, then rose") is left alone. Expected counts come from skfolio's shipped prices,
computed here with pandas."""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.brains.offline.spelling import respell_than
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


@pytest.mark.parametrize(
    ("question", "falls"),
    [
        ("how many days did AMD drop more then 5% this year", True),
        ("How many days did AMD fall more then 5 percent in 2022?", True),
        ("how many days did AMD gain more then 5% this year", False),
    ],
)
async def test_more_then_a_percent_is_a_threshold(question: str, falls: bool) -> None:
    moves = load_sp500_dataset()["AMD"].pct_change().loc["2022"] * 100
    want = int((moves < -5).sum()) if falls else int((moves > 5).sum())
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert f" {want} " in f" {answer.summary} ", answer.summary


async def test_closes_less_then_a_level_are_counted() -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2022"]
    want = int((closes < 150).sum())
    answer = await ask(
        "How many days did Apple close less then $150 in 2022?",
        QuestionContext(today=TODAY, brain="offline"),
    )
    assert answer.status == "ok", answer.message
    assert f" {want} " in f" {answer.summary} ", answer.summary


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("drop more then 5%", "drop more than 5%"),
        ("closed higher then $150", "closed higher than $150"),
        ("fell more, then rose 5%", "fell more, then rose 5%"),
        ("what was the price then", "what was the price then"),
        ("first it fell, then 3 days later it rose", "first it fell, then 3 days later it rose"),
    ],
)
def test_then_is_than_only_where_then_cannot_be_meant(text: str, read: str) -> None:
    assert respell_than(text) == read
