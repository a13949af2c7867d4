"""A difference in the level's own unit: "how many points did the S&P 500 gain in 2021",
标普500 2021年涨了多少点, "how many dollars did Apple rise": index points or dollars between the
window's two ends, beside the return — never the percent alone for a question about points.
Expected figures are computed here with pandas from skfolio's shipped prices."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput


def _closes(ticker: str) -> pd.Series:
    return load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]


def _shown(answer: Any) -> str:
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    return "\n".join([answer.summary, *(f"{t.columns} {t.rows}" for t in tables)])


@pytest.mark.parametrize(
    ("question", "ticker", "base", "last"),
    [
        ("How many points did the S&P 500 gain in 2021?", "^GSPC", "2020-12-31", "2021-12-31"),
        ("标普500 2021年涨了多少点", "^GSPC", "2020-12-31", "2021-12-31"),
        ("How many dollars did AAPL rise in 2021?", "AAPL", "2020-12-31", "2021-12-31"),
        ("苹果2021年涨了多少美元", "AAPL", "2020-12-31", "2021-12-31"),
        ("How many points and what percent did the S&P 500 lose during the COVID crash?",
         "^GSPC", "2020-02-19", "2020-03-23"),
    ],
)  # fmt: skip
async def test_the_difference_is_said_in_the_levels_unit(
    data: Any, question: str, ticker: str, base: str, last: str
) -> None:
    closes = _closes(ticker)
    start, end = closes.loc[:base].iloc[-1], closes.loc[:last].iloc[-1]
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    shown = _shown(answer).replace(",", "")
    assert f"{abs(end - start):.2f}" in shown, shown
    assert f"{abs(end / start - 1) * 100:.2f}" in shown, shown


async def test_a_level_said_in_points_is_not_a_difference(data: Any) -> None:
    """标普500 2021年底是多少点: the level itself, no difference asked."""
    closes = _closes("^GSPC")
    answer = await ask("标普500 2021年底是多少点", QuestionContext(today=date(2022, 6, 30)))
    assert answer.status == "ok", answer.message
    assert f"{closes.loc[:'2021-12-31'].iloc[-1]:,.2f}" in answer.summary, answer.summary


async def test_dollars_one_would_have_is_an_amount_not_a_difference(data: Any) -> None:
    """ "How many dollars would I have" asks the grown amount, which the answer gives."""
    closes = _closes("AAPL")
    grown = 10_000 * closes.loc[:"2021-12-31"].iloc[-1] / closes.loc[:"2018-12-31"].iloc[-1]
    answer = await ask(
        "If I put $10,000 into Apple at the start of 2019, how many dollars would I have at the "
        "end of 2021?",
        QuestionContext(today=date(2022, 6, 30), brain="offline"),
    )
    assert answer.status == "ok", answer.message
    assert f"{grown:,.0f}" in answer.summary, answer.summary  # to the dollar: float paths differ
