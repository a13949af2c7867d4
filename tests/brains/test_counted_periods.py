"""Counts of one name's periods up and down, asked on their own: "how many months was KO up in
2019", 有几个月是涨的 (each month from the previous month's last close), and "up days vs down
days" of one name, which is both counts, never a comparison of two names. Expected counts come
from skfolio's shipped prices, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput


def _closes(ticker: str) -> pd.Series:
    return load_sp500_dataset()[ticker]


def _said(answer: Answer) -> str:
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    cells = [str(c) for t in tables for r in t.rows for c in r]
    return " ".join([answer.summary or "", *cells])


async def _ask(question: str, today: date) -> Answer:
    answer = await ask(question, QuestionContext(today=today, brain="offline"))
    assert answer.status == "ok", answer.message
    return answer


def _monthly_moves(ticker: str, year: int) -> pd.Series:
    """Each month's close on the previous month's last close (January's on December's)."""
    closes = _closes(ticker).loc[f"{year - 1}-12-01" : f"{year}-12-31"].resample("ME").last()
    return closes.pct_change().dropna()


@pytest.mark.parametrize(
    ("question", "up"),
    [
        ("how many months was KO up in 2019", True),
        ("How many months were up for Coca-Cola in 2019?", True),
        ("how many months did KO fall in 2019?", False),
        ("可口可乐2019年有几个月是涨的", True),
        ("可口可乐2019年几个月上涨", True),
        ("可口可乐2019年上涨的月份有几个", True),
        ("可口可乐2019年有几个月下跌？", False),
    ],
)
async def test_the_months_up_or_down_are_counted(question: str, up: bool) -> None:
    moves = _monthly_moves("KO", 2019)
    want = int((moves > 0).sum()) if up else int((moves < 0).sum())
    answer = await _ask(question, date(2020, 1, 15))
    said = _said(answer)
    if up:
        assert f"{want} of 12" in said or f"{want}个月上涨" in said, said
    else:
        assert f"fell in {want}" in said or f"{want}个月下跌" in said, said


async def test_the_quarters_down_are_counted() -> None:
    closes = _closes("AAPL").loc["2017-12-01":"2018-12-31"].resample("QE").last()
    moves = closes.pct_change().dropna()
    answer = await _ask("How many quarters was Apple down in 2018?", date(2019, 3, 1))
    said = _said(answer)
    want = int((moves < 0).sum())
    assert f"{want} of 4" in said, said


@pytest.mark.parametrize(
    "question",
    [
        "J&J up days vs down days in 2021",
        "J&J up days versus down days in 2021",
        "J&J's down days and up days in 2021",
        "强生2021年上涨天数vs下跌天数",
        "强生2021年上涨和下跌的天数",
    ],
)
async def test_up_days_against_down_days_of_one_name_are_both_counts(question: str) -> None:
    moves = _closes("JNJ").diff().loc["2021"]
    answer = await _ask(question, date(2022, 1, 10))
    said = _said(answer)
    assert str(int((moves > 0).sum())) in said and str(int((moves < 0).sum())) in said, said
