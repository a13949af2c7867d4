"""Two windows anchored on one day, each a part with its own figure: "10 trading days before D
and 10 after" is the 10 weekdays up to D (the documented count: 2021-01-15 to 2021-01-29) and the
10 after it (2021-01-29 to 2021-02-12), a day and unit left out of the second taken from the
first. Figures are computed here with pandas from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _growth(start: str, end: str) -> float:
    prices = load_sp500_dataset()["AAPL"]
    return float((prices[:end].iloc[-1] / prices[:start].iloc[-1] - 1) * 100)


@pytest.mark.parametrize(
    "question",
    [
        "Apple's return in the 10 trading days before 2021-01-29 and the 10 trading days after"
        " 2021-01-29",
        "Apple's return 10 trading days before 2021-01-29 and 10 after",
        "苹果在2021-01-29之前10个交易日和之后10个交易日的收益率",
    ],
)
async def test_each_window_either_side_of_a_day_has_its_own_figure(
    data: Any, question: str
) -> None:
    before = _growth("2021-01-15", "2021-01-29")
    after = _growth("2021-01-29", "2021-02-12")
    whole = _growth("2021-01-15", "2021-02-12")
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok"
    windows = [(p.start, p.end) for p in answer.intent.parts]
    assert windows == [
        (date(2021, 1, 15), date(2021, 1, 29)),
        (date(2021, 1, 29), date(2021, 2, 12)),
    ]
    assert f"{before:.2f}%" in answer.summary and f"{after:.2f}%" in answer.summary
    assert f"{whole:.2f}%" not in answer.summary  # never one window spanning both
