"""The day of an index's lowest or highest close in a year, and the close: "when did the Nasdaq
hit its lowest close of 2002" is a close within 2002 (not the year's closing day), dated, in
English and Chinese. Expected figures are computed here with pandas from arch's and skfolio's
shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext


def _closes(ticker: str) -> pd.Series:
    if ticker == "^IXIC":
        return arch.data.nasdaq.load()["Close"]
    return load_sp500_index()["SP500"]


@pytest.mark.parametrize(
    ("question", "ticker", "year", "low"),
    [
        ("When did the Nasdaq hit its lowest close of 2002 and what was it?", "^IXIC", "2002",
         True),
        ("What was the S&P 500's highest close of 2019, and on which day?", "^GSPC", "2019",
         False),
        ("纳斯达克2002年最低收盘价是多少，在哪天", "^IXIC", "2002", True),
        ("标普500 2020年收盘最低是哪天，多少点", "^GSPC", "2020", True),
    ],
)  # fmt: skip
async def test_the_day_of_the_years_extreme_close(
    data: Any, question: str, ticker: str, year: str, low: bool
) -> None:
    closes = _closes(ticker)[year]
    day = closes.idxmin() if low else closes.idxmax()
    answer = await ask(question, QuestionContext(today=date(2023, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert (answer.intent.start, answer.intent.end) == (date(int(year), 1, 1),
                                                        date(int(year), 12, 31))  # fmt: skip
    assert f"{closes[day]:,.2f}" in answer.summary, answer.summary
    assert day.date().isoformat() in answer.summary, answer.summary
