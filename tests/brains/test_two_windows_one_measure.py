"""One measure over two windows is two answers, never one window spanning both.

"Compare Apple's return in 2019 with its return in 2021", "Apple's return in 2019 and 2021",
苹果2019年和2021年的收益率: each year is a part of its own, and the answer quotes each year's
return; "between 2019 and 2021" (在2019年和2021年之间) stays one span, as does "from 2019 to 2021".
Expected returns are computed here with pandas from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.brains.offline.windows import read_time
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def year_return(ticker: str, year: int) -> float:
    """Close to close: the last close of the year before to the last close of the year."""
    prices = load_sp500_dataset()[ticker]
    start = prices.loc[: f"{year - 1}-12-31"].iloc[-1]
    end = prices.loc[: f"{year}-12-31"].iloc[-1]
    return float((end / start - 1) * 100)


@pytest.mark.parametrize(
    "question",
    [
        "Compare Apple's return in 2019 with its return in 2021",
        "Apple's return in 2019 and 2021",
        "How did Apple's return in 2019 compare to 2021?",
        "比较苹果2019年的收益率和2021年的收益率",
        "苹果2019年和2021年的收益率",
    ],
)
async def test_each_window_gets_its_own_answer(question: str) -> None:
    answer = await ask(question, QuestionContext(today=TODAY))
    assert answer.status == "ok", answer.message
    assert answer.intent is not None
    windows = [(p.start, p.end) for p in answer.intent.parts]
    assert windows == [
        (date(2019, 1, 1), date(2019, 12, 31)),
        (date(2021, 1, 1), date(2021, 12, 31)),
    ]
    for year in (2019, 2021):
        assert f"{year_return('AAPL', year):.2f}%" in answer.summary, answer.summary
    # Never the return over 2019–2021 as one span.
    spanning = (
        (load_sp500_dataset()["AAPL"].loc[:"2021-12-31"].iloc[-1])
        / (load_sp500_dataset()["AAPL"].loc[:"2018-12-31"].iloc[-1])
        * 100
        - 100
    )
    assert f"{spanning:.2f}%" not in answer.summary


@pytest.mark.parametrize(
    "text",
    ["between 2019 and 2021", "在2019年和2021年之间", "from 2019 to 2021", "2019年到2021年"],
)
def test_between_and_to_stay_one_span(text: str) -> None:
    reading = read_time(text, TODAY)
    assert [(c.start, c.end) for c in reading.clauses] == [(date(2019, 1, 1), date(2021, 12, 31))]


def test_adjoining_periods_joined_by_and_are_one_span() -> None:
    reading = read_time("2019 and 2020", TODAY)
    assert [(c.start, c.end) for c in reading.clauses] == [(date(2019, 1, 1), date(2020, 12, 31))]


def half_return(ticker: str, year: int, half: int) -> float:
    prices = load_sp500_dataset()[ticker]
    start = f"{year - 1}-12-31" if half == 1 else f"{year}-06-30"
    end = f"{year}-06-30" if half == 1 else f"{year}-12-31"
    return float((prices.loc[:end].iloc[-1] / prices.loc[:start].iloc[-1] - 1) * 100)


@pytest.mark.parametrize(
    "question",
    [
        "微软2021年上半年和下半年的收益率分别是多少",
        "Microsoft's return in the first half and the second half of 2021, respectively",
    ],
)
async def test_adjoining_periods_asked_for_each_are_two_answers(question: str) -> None:
    answer = await ask(question, QuestionContext(today=TODAY))
    assert answer.status == "ok", answer.message
    for half in (1, 2):
        assert f"{half_return('MSFT', 2021, half):.2f}%" in answer.summary, answer.summary
    assert not any("respectively" in note for note in answer.notes)


async def test_two_days_bound_one_span() -> None:
    """Invested at the start of one year, worth at the end of another: one window, not two."""
    question = (
        "How much would $10,000 invested in Apple at the start of 2015 be worth at the end of 2020?"
    )
    answer = await ask(question, QuestionContext(today=TODAY))
    assert answer.status == "ok" and answer.intent is not None and not answer.intent.parts
    prices = load_sp500_dataset()["AAPL"]
    worth = 10_000 * prices.loc[:"2020-12-31"].iloc[-1] / prices.loc[:"2014-12-31"].iloc[-1]
    assert f"{worth:,.2f}" in answer.summary, answer.summary
