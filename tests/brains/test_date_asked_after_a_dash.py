"""The date of an extreme asked in a clause of its own after a dash, a colon or a comma ("coca-cola
all time high close - when and what price"), and 历史最高/历史最低 (the all-time high, not the past
year's): the highest close over all the data, with its day.
Expected figures come from skfolio's shipped prices, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


@pytest.mark.parametrize(
    ("question", "high"),
    [
        ("coca-cola all time high close - when and what price", True),
        ("coca-cola all-time high close – when, and what price?", True),
        ("Coca-Cola all time high: when and how much?", True),
        ("coca-cola all time high close, when and what price", True),
        ("coca-cola all time low close - when and what price", False),
        ("可口可乐历史最高收盘价是哪天，多少钱", True),
        ("可口可乐历史最低收盘价是多少？哪天？", False),
        ("可口可乐历史低点在哪一天？", False),
    ],
)
async def test_the_extreme_and_its_day(question: str, high: bool) -> None:
    closes = load_sp500_dataset()["KO"].loc[:"2022-12-28"]
    value, day = (closes.max(), closes.idxmax()) if high else (closes.min(), closes.idxmin())
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{value:.2f}" in answer.summary and f"{day:%Y-%m-%d}" in answer.summary, answer.summary
