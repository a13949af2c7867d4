"""A low or high named by its day, or an episode's low, anchors the window: "since the March 23,
2020 low", 2020年3月23日低点以来, "from the COVID low", 疫情低点以来 start on that day's close (as
"since 2020-03-23" does), not the window's minimum statistics. Expected returns are computed here
with pandas from skfolio's shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2021, 12, 31)


def _prices(ticker: str) -> pd.Series:
    return load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]


@pytest.mark.parametrize(
    ("question", "ticker", "end"),
    [
        ("How much has Microsoft gained since the March 23, 2020 low?", "MSFT", "2021-12-31"),
        ("微软自2020年3月23日低点以来涨了多少？", "MSFT", "2021-12-31"),
        ("What did the S&P 500 do from the Mar 23 2020 low thru the end of 2021?", "^GSPC",
         "2021-12-31"),
        ("How much has Apple gained since the COVID low?", "AAPL", "2021-12-31"),
        ("苹果从疫情低点以来涨了多少", "AAPL", "2021-12-31"),
        ("JPMorgan's return from the 2020-03-23 low to the end of June 2021", "JPM", "2021-06-30"),
    ],
)  # fmt: skip
async def test_a_named_low_starts_the_window_on_its_day(
    data: Any, question: str, ticker: str, end: str
) -> None:
    prices = _prices(ticker)
    base = prices[:"2020-03-23"].iloc[-1]  # the low's own close
    change = (prices[:end].iloc[-1] / base - 1) * 100
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert (answer.intent.start, answer.intent.end) == (date(2020, 3, 23), date.fromisoformat(end))
    assert f"{change:,.2f}%" in answer.summary, answer.summary
    assert "stats" not in answer.intent.metrics  # the low is the anchor, not a minimum asked


async def test_the_covid_low_is_said_in_the_note(data: Any) -> None:
    assert _prices("^GSPC")["2020-02-19":"2021-12-31"].idxmin() == pd.Timestamp("2020-03-23")
    answer = await ask(
        "How much has Apple gained since the COVID low?",
        QuestionContext(today=TODAY, brain="offline"),
    )
    assert any("2020-03-23" in note for note in answer.notes), answer.notes
