"""The first close at a multiple of a day's close: "from its March 23 2020 close, when did Apple
first close at double that price?", 标普500从2009年3月9日的低点算起，啥时候第一次收盘翻倍的,
"first close up 50% from". The level is the multiple of the day's close; the answer dates the first
session at or past it after that day, with its close. Expected days are computed here with pandas
from skfolio's shipped prices."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext


def _closes(ticker: str) -> pd.Series:
    return load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]


@pytest.mark.parametrize(
    ("question", "ticker", "day", "multiple", "today"),
    [
        ("from its March 23 2020 close, when did apple first close at double that price?",
         "AAPL", "2020-03-23", 2.0, date(2021, 6, 30)),
        ("标普500从2009年3月9日的低点算起，啥时候第一次收盘翻倍的", "^GSPC", "2009-03-09", 2.0,
         date(2012, 6, 1)),
        ("苹果从2020年3月23日的收盘价算起，什么时候首次收盘涨到三倍", "AAPL", "2020-03-23", 3.0,
         date(2022, 6, 30)),
        ("When did the S&P 500 first close up 50% from its March 9, 2009 close?", "^GSPC",
         "2009-03-09", 1.5, date(2012, 6, 1)),
    ],
)  # fmt: skip
async def test_the_first_close_at_a_multiple_of_a_days_close(
    data: Any, question: str, ticker: str, day: str, multiple: float, today: date
) -> None:
    closes = _closes(ticker)
    base = closes.loc[:day].iloc[-1]
    after = closes.loc[pd.Timestamp(day) + pd.Timedelta(days=1) : pd.Timestamp(today)]
    first = after[after >= multiple * base].index[0]
    answer = await ask(question, QuestionContext(today=today, brain="offline"))
    assert answer.status == "ok", answer.message
    assert first.date().isoformat() in answer.summary, answer.summary
    assert f"{closes[first]:,.2f}" in answer.summary, answer.summary
    assert f"{base:,.2f}" in answer.summary, answer.summary
    shown = [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.\d\d", answer.summary)]
    assert any(abs(n - multiple * base) < 0.006 for n in shown), answer.summary  # the level


@pytest.mark.parametrize(
    "question",
    ["when did apple first close at double?",
     "when did apple first double from its March 2020 low?",
     "苹果从2020年3月的低点算起，什么时候第一次翻倍"],
)  # fmt: skip
async def test_a_multiple_without_the_day_it_multiplies_declines(data: Any, question: str) -> None:
    """No day said: whose close doubled is unknown, so no date is given for it."""
    answer = await ask(question, QuestionContext(today=date(2021, 6, 30), brain="offline"))
    assert answer.status != "ok", answer.summary
