"""The first day back at a level: "after the COVID crash, on what date did the S&P 500 first close
back above its Feb 19, 2020 close?", "when did Apple first close above $150", 苹果什么时候首次
收盘站上150美元. The level is a number said, or the close of a day said ("its Feb 19 2020 close");
the answer dates the first session past it after that day (or in the window), with its close.
Expected days are computed here with pandas from skfolio's shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext


def _closes(ticker: str) -> pd.Series:
    return load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]


def _first_back(closes: pd.Series, day: str, inclusive: bool) -> pd.Timestamp:
    level = closes.loc[:day].iloc[-1]
    after = closes.loc[pd.Timestamp(day) + pd.Timedelta(days=1) :]
    past = after >= level if inclusive else after > level
    return past[past].index[0]


@pytest.mark.parametrize(
    ("question", "inclusive"),
    [
        ("After the COVID crash, on what date did the S&P 500 first close back above its Feb 19, "
         "2020 record close?", False),
        ("after the covid crash, on what day did the S&P first close back at or above its Feb 19 "
         "2020 close?", True),
        ("新冠暴跌之后，标普500哪天首次收盘重新站上2020年2月19日的收盘价？", False),
    ],
)  # fmt: skip
async def test_the_first_close_back_above_a_days_close(
    data: Any, question: str, inclusive: bool
) -> None:
    closes = _closes("^GSPC")
    day = _first_back(closes, "2020-02-19", inclusive)
    answer = await ask(question, QuestionContext(today=date(2021, 1, 10), brain="offline"))
    assert answer.status == "ok", answer.message
    assert day.date().isoformat() in answer.summary, answer.summary
    assert f"{closes[day]:,.2f}" in answer.summary, answer.summary
    assert f"{closes['2020-02-19']:,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "ticker", "level", "start"),
    [
        ("When did Apple first close above $150 in 2021?", "AAPL", 150.0, "2021-01-01"),
        ("苹果2021年什么时候首次收盘站上150美元", "AAPL", 150.0, "2021-01-01"),
        ("When did the S&P 500 first close above 4000 in 2021?", "^GSPC", 4000.0, "2021-01-01"),
    ],
)
async def test_the_first_close_above_a_level_said(
    data: Any, question: str, ticker: str, level: float, start: str
) -> None:
    closes = _closes(ticker).loc[start:"2021-12-31"]
    day = closes[closes > level].index[0]
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert day.date().isoformat() in answer.summary, answer.summary
    assert f"{closes[day]:,.2f}" in answer.summary, answer.summary
