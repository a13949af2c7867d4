"""A day that starts a longer window is measured from its own close: "put 10k in at the close on
2009-03-09 … by the end of 2013", 2019年3月8日收盘时买入…到2021年底, "Walmart's close on
2021-06-30 against 2020-06-30" — the base is that day's close, not the close before it (which is
the base of a calendar period such as "2021"). Expected figures are computed here with pandas from
skfolio's shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext


def _on(prices: Any, day: str) -> float:
    return float(prices[:day].iloc[-1])


@pytest.mark.parametrize(
    ("question", "today", "amount", "ticker", "day", "end"),
    [
        ("If I'd put 10k into the S&P 500 at the close on March 9, 2009, what would I have by the "
         "end of 2013?", "2014-06-30", 10_000, "^GSPC", "2009-03-09", "2013-12-31"),
        ("If I bought $5,000 of Johnson & Johnson at the close on 2019-03-08, what was it worth "
         "at the end of 2021?", "2022-06-30", 5_000, "JNJ", "2019-03-08", "2021-12-31"),
        ("假如2019年3月8日收盘时买入1万美元强生，到2021年底值多少钱", "2022-06-30", 10_000, "JNJ",
         "2019-03-08", "2021-12-31"),
    ],
)  # fmt: skip
async def test_money_put_in_at_a_days_close_grows_from_that_close(
    data: Any, question: str, today: str, amount: int, ticker: str, day: str, end: str
) -> None:
    prices = load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]
    worth = amount * _on(prices, end) / _on(prices, day)
    answer = await ask(question, QuestionContext(today=date.fromisoformat(today), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "How much higher was Walmart's close on June 30, 2021 than on June 30, 2020?",
        "沃尔玛2021年6月30日的收盘价比2020年6月30日高多少",
    ],
)
async def test_a_close_against_an_earlier_days_close(data: Any, question: str) -> None:
    prices = load_sp500_dataset()["WMT"]
    change = (_on(prices, "2021-06-30") / _on(prices, "2020-06-30") - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary
