"""The Fed's hiking and cutting cycles date a window by their first and last move.

"Since the Fed started hiking in 2015" is measured from the close of 2015-12-16 exactly as
"since 2015-12-16" is; "during the 2019 cutting cycle" from the close of its first cut to the
last close on or before its last. Figures are computed here with pandas from skfolio's prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


async def _ask(question: str) -> Answer:
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


@pytest.mark.parametrize(
    ("question", "ticker", "start"),
    [
        ("Apple's return since the Fed started hiking in 2015", "AAPL", "2015-12-16"),
        ("苹果自2015年美联储开始加息以来的收益率", "AAPL", "2015-12-16"),
        ("Walmart return since the Fed began cutting rates in 2019", "WMT", "2019-07-31"),
        ("沃尔玛自2019年美联储开始降息以来的收益率", "WMT", "2019-07-31"),
    ],
)
async def test_since_a_fed_cycle_is_since_its_first_move(
    data: Any, question: str, ticker: str, start: str
) -> None:
    prices = load_sp500_dataset()[ticker]
    base = prices[prices.index <= start].iloc[-1]
    growth = (prices.iloc[-1] / base - 1) * 100
    answer = await _ask(question)
    assert answer.status == "ok" and [e.id for e in answer.intent.entities] == [ticker]
    assert answer.intent.start == date.fromisoformat(start)
    assert f"{growth:.2f}%" in answer.summary
    assert any(start in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("Apple's return during the 2019 cutting cycle", "2019-07-31", "2020-03-15"),
        ("苹果在2015年加息周期的收益率", "2015-12-16", "2018-12-19"),
    ],
)
async def test_during_a_fed_cycle_is_first_move_to_last(
    data: Any, question: str, start: str, end: str
) -> None:
    prices = load_sp500_dataset()["AAPL"]
    base = prices[prices.index <= start].iloc[-1]
    last = prices[prices.index <= end].iloc[-1]
    answer = await _ask(question)
    assert answer.status == "ok"
    assert (answer.intent.start, answer.intent.end) == (
        date.fromisoformat(start),
        date.fromisoformat(end),
    )
    assert f"{(last / base - 1) * 100:.2f}%" in answer.summary
