""" "From that day" / 从那天 refers back to the day of an extreme asked earlier in the question:
"标普500 2020年最低点是哪天？从那天到年底涨了多少" is the day of 2020's lowest close and the gain
from it to the year's last close; "the end of the year" is the end of the year named before it, not
this year's. Expected figures are computed here with pandas from skfolio's shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.brains.offline.windows import read_time
from datapilot.core.context import QuestionContext


def _closes(ticker: str) -> pd.Series:
    return load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]


@pytest.mark.parametrize(
    ("question", "ticker", "year", "low"),
    [
        ("标普500 2020年最低点是哪天？从那天到年底涨了多少", "^GSPC", "2020", True),
        ("When did the S&P 500 bottom in 2020, and how much did it gain from that day to the end "
         "of the year?", "^GSPC", "2020", True),
        ("Which day was Apple's 2021 high, and how much did it lose from that day to the end of "
         "the year?", "AAPL", "2021", False),
        ("苹果2021年最高点是哪天？从那天到年底跌了多少", "AAPL", "2021", False),
    ],
)  # fmt: skip
async def test_from_that_day_measures_from_the_extremes_day(
    data: Any, question: str, ticker: str, year: str, low: bool
) -> None:
    closes = _closes(ticker)[year]
    day = closes.idxmin() if low else closes.idxmax()
    change = (closes.iloc[-1] / closes[day] - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert (answer.intent.start, answer.intent.end) == (date(int(year), 1, 1),
                                                        date(int(year), 12, 31))  # fmt: skip
    assert day.date().isoformat() in answer.summary, answer.summary
    assert f"{abs(change):.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "end"),
    [
        ("Apple in 2019: its return from March to the end of the year", "2019-12-31"),
        ("苹果2019年的最低点是哪天，从那天到年底涨了多少", "2019-12-31"),
        ("Apple since the start of the year", "2022-06-30"),
    ],
)
def test_the_end_of_the_year_is_the_year_named_before(question: str, end: str) -> None:
    assert read_time(question, date(2022, 6, 30)).end == date.fromisoformat(end)


@pytest.mark.parametrize(
    "question",
    [
        "spx worst day 2020 + date, and how much did it gain from that day to yr end",
        "标普500 2020年跌得最多的一天是哪天？从那天起到年底涨了多少？",
    ],
)
async def test_from_the_day_of_a_worst_day_is_declined_not_dropped(
    data: Any, question: str
) -> None:
    """The day is a best or worst day's, which no window starts from yet: declined, never the
    day alone with the gain asked after it left out."""
    returns = _closes("^GSPC").loc[:"2020-12-31"].pct_change().loc["2020"] * 100
    answer = await ask(question, QuestionContext(today=date(2021, 1, 15), brain="offline"))
    assert answer.status == "no_data"
    assert f"{returns.min():.2f}%" not in (answer.summary or "")
