"""Follow-up windows in one message: "去年苹果涨了多少？今年以来呢？" is last year's return and
this year's so far, each its own part with its own figure. Figures are computed here with pandas
from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 30)


@pytest.mark.parametrize(
    "question",
    ["去年苹果涨了多少？今年以来呢？", "How much did Apple gain last year? And this year so far?"],
)
async def test_each_follow_up_window_has_its_own_figure(data: Any, question: str) -> None:
    prices = load_sp500_dataset()["AAPL"]
    last_year = (prices[:"2021-12-31"].iloc[-1] / prices[:"2020-12-31"].iloc[-1] - 1) * 100
    this_year = (prices.iloc[-1] / prices[:"2021-12-31"].iloc[-1] - 1) * 100
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok"
    assert f"{last_year:.2f}%" in answer.summary and f"{this_year:.2f}%" in answer.summary
