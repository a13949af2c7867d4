"""A series' statistics name the days of its extremes: "收盘价最高和最低分别是多少" is answered with
the highest and lowest close and the day of each, computed here with pandas from skfolio's
prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


@pytest.mark.parametrize(
    ("question", "ticker", "year"),
    [
        ("埃克森美孚今年收盘价最高和最低分别是多少", "XOM", "2022"),
        ("summary statistics of apple's closing price in 2021", "AAPL", "2021"),
    ],
)
async def test_the_highest_and_lowest_close_come_with_their_days(
    data: Any, question: str, ticker: str, year: str
) -> None:
    closes = load_sp500_dataset()[ticker].loc[year]
    closes = closes[closes.index <= "2022-12-28"]
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "ok", answer.message
    for day, value in ((closes.idxmax(), closes.max()), (closes.idxmin(), closes.min())):
        assert f"{value:.2f}" in answer.summary, answer.summary
        assert day.date().isoformat() in answer.summary, (day, answer.summary)
