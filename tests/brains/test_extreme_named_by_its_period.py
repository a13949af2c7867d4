"""An extreme named by its period, "peak month in 2008 and the price", "trough quarter", asks
the extreme and the period it fell in, as "the peak in 2008 and which month" does; before, the
period word was passed over and the answer was `ok` with summary statistics and no date.
Expected figures come from skfolio's shipped prices, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


@pytest.mark.parametrize(
    ("question", "side"),
    [
        ("apple peak month in 2020 and the price", "max"),
        ("AAPL's trough day in 2020 - what price?", "min"),
    ],
)
async def test_an_extreme_named_by_its_period_gives_its_date(question: str, side: str) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2020-01-01":"2020-12-31"]
    day = closes.idxmax() if side == "max" else closes.idxmin()
    answer = await ask(question, QuestionContext(today=date(2021, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{closes[day]:.2f}" in answer.summary, answer.summary
    assert str(day.date()) in answer.summary, answer.summary
