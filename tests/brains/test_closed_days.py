"""A day the market was shut: a holiday said by name is its day, and a close asked on a day
without a session is the last close before it, said so. Figures are computed here with pandas
from skfolio's shipped prices (the bundled source of the 20 large caps and the S&P 500).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


async def _ask(question: str) -> Answer:
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


@pytest.mark.parametrize(
    ("question", "column", "shut"),
    [
        ("what did AAPL close at on Christmas Day 2019", "AAPL", "2019-12-25"),
        ("苹果2019年圣诞节收盘价是多少", "AAPL", "2019-12-25"),
        ("what did Apple close at on 2019-12-25", "AAPL", "2019-12-25"),
        ("S&P 500 close on Thanksgiving 2019", "SP500", "2019-11-28"),
        ("标普500在2019年感恩节的收盘价", "SP500", "2019-11-28"),
        ("Microsoft's close on Good Friday 2019", "MSFT", "2019-04-19"),
        ("微软2021年元旦的收盘价", "MSFT", "2021-01-01"),
    ],
)
async def test_a_close_on_a_shut_day_is_the_last_close_before_it_said_so(
    data: Any, question: str, column: str, shut: str
) -> None:
    prices = load_sp500_index() if column == "SP500" else load_sp500_dataset()
    series = prices[column]
    assert pd.Timestamp(shut) not in series.index  # the market was shut
    before = series[series.index < shut]
    day, close = before.index[-1], before.iloc[-1]
    answer = await _ask(question)
    assert answer.status == "ok"
    assert answer.intent.start == answer.intent.end == day.date()
    assert f"{close:,.2f}" in answer.summary, answer.summary
    said = " ".join(answer.notes)
    assert shut in said and f"{day:%Y-%m-%d}" in said, answer.notes
    assert "closed" in said or "休市" in said


async def test_a_session_day_is_unchanged(data: Any) -> None:
    close = load_sp500_dataset()["AAPL"]["2019-12-24"]
    answer = await _ask("what did AAPL close at on 2019-12-24")
    assert answer.status == "ok" and answer.intent.start == date(2019, 12, 24)
    assert f"{close:,.2f}" in answer.summary
    assert not any("closed" in note for note in answer.notes)


@pytest.mark.parametrize(
    "question", ["Apple's return on Christmas Day 2019", "苹果2019年圣诞节涨了多少"]
)
async def test_a_move_on_a_shut_day_is_no_data_saying_the_market_was_closed(
    data: Any, question: str
) -> None:
    answer = await _ask(question)
    assert answer.status == "no_data"
    message = answer.message or ""
    assert "2019-12-25" in message and ("closed" in message or "休市" in message), message
