"""The distance from a high or low said before the question refers back to it: "walmart 52wk
high & how far below it is it now?", 沃尔玛52周最高价是多少？现在离它还差多少 — the high (or low)
with its date and value, and how far the latest close is from it in %. Expected figures are
computed here with pandas from skfolio's shipped prices."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


@pytest.mark.parametrize(
    ("question", "ticker", "today", "low"),
    [
        ("walmart 52wk high & how far below it is it now?", "WMT", "2022-10-14", False),
        ("Microsoft's 52-week low - how far above it is it trading now?", "MSFT", "2022-06-30",
         True),
        ("What was Coca-Cola's 52-week high, and how far off that is the stock today?", "KO",
         "2022-06-30", False),
        ("沃尔玛52周最高价是多少？现在离它还差多少？", "WMT", "2022-10-14", False),
        ("微软52周最低点是多少，现在比它高多少", "MSFT", "2022-06-30", True),
    ],
)  # fmt: skip
async def test_how_far_from_a_high_said_before(
    data: Any, question: str, ticker: str, today: str, low: bool
) -> None:
    end = date.fromisoformat(today)
    closes = load_sp500_dataset()[ticker]
    window = closes[(closes.index >= str(end - timedelta(weeks=52))) & (closes.index <= today)]
    day = window.idxmin() if low else window.idxmax()
    distance = (window.iloc[-1] / window[day] - 1) * 100
    answer = await ask(question, QuestionContext(today=end, brain="offline"))
    assert answer.status == "ok", answer.message
    assert day.date().isoformat() in answer.summary, answer.summary
    assert f"{window[day]:.2f}" in answer.summary, answer.summary
    assert f"{abs(distance):.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "ticker", "start", "today", "low"),
    [
        ("coca-cola all time high close - when and what price", "KO", None, "2022-12-28", False),
        ("Apple's 2021 low: when, and at what close?", "AAPL", "2021-01-01", "2021-12-31", True),
    ],
)
async def test_a_high_or_low_with_when_after_a_dash_or_colon(
    data: Any, question: str, ticker: str, start: str | None, today: str, low: bool
) -> None:
    closes = load_sp500_dataset()[ticker]
    window = closes[(closes.index >= (start or "1900")) & (closes.index <= today)]
    day = window.idxmin() if low else window.idxmax()
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "ok", answer.message
    assert day.date().isoformat() in answer.summary, answer.summary
    assert f"{window[day]:.2f}" in answer.summary, answer.summary
